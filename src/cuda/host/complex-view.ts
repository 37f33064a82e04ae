/**
 * Complex batches through the host path: staging (staging.ts) counts a batch's rows, ld, stride
 * and offset in elements of its host array, and a complex batch counts them in pairs, two floats
 * each. Seen as a real batch of twice the rows (ld, stride and offset doubled), a complex batch
 * spans exactly the floats its pairs do (a matrix's floats run from 2 offset to 2 (offset + (cols -
 * 1) ld + rows)), so the staging's ranges, chunks and copies are right unchanged; the staged
 * request is turned back into the complex one before it reaches the kernels.
 */
import { isBatch, type Batch } from '../../core/batch.js';
import type { ComplexDType } from '../../core/dtype.js';
import type { Request } from './request.js';

type AnyBatch = Batch<unknown>;

/** A batch's complex element type, where it has one. */
const complexType = (v: unknown): ComplexDType | undefined => (isBatch(v) ? (v as { dtype?: ComplexDType }).dtype : undefined);

/** The request with every complex batch seen as a real one of twice the rows; beta = 0 kept as such (C then need not be uploaded). */
export function realView(request: Request): Request {
  const out: Request = {};
  for (const [key, value] of Object.entries(request)) {
    if (complexType(value) !== undefined) out[key] = scaled(value as AnyBatch, 2, undefined);
    else if (key === 'beta' && Array.isArray(value) && value[0] === 0 && value[1] === 0) out[key] = 0;
    else out[key] = value;
  }
  return out;
}

/** A staged real view back as the complex request: the batches of `original` that were complex, with the staged storages and offsets. */
export function complexView(staged: Request, original: Request): Request {
  const out: Request = {};
  for (const [key, value] of Object.entries(original)) {
    const s = staged[key];
    // Scalars and enums as the caller gave them (realView rewrote beta); other storages as staged.
    const dtype = complexType(value);
    out[key] = dtype !== undefined && isBatch(s) ? scaled(s as AnyBatch, 0.5, dtype) : key === 'beta' ? value : s;
  }
  return out;
}

/** `b` with rows, ld, stride and offsets multiplied by `f`, and `dtype` set (or removed). */
function scaled(b: AnyBatch, f: number, dtype: ComplexDType | undefined): AnyBatch {
  const type = dtype === undefined ? {} : { dtype };
  switch (b.kind) {
    case 'strided': {
      const { dtype: _, ...rest } = b;
      return { ...rest, rows: b.rows * f, ld: b.ld * f, stride: b.stride * f, offset: b.offset * f, ...type };
    }
    case 'list': {
      const { dtype: _, ...rest } = b;
      return { ...rest, rows: b.rows * f, ld: b.ld * f, matrices: b.matrices.map((m) => ({ ...m, offset: m.offset * f })), ...type };
    }
    case 'variable': {
      const { dtype: _, ...rest } = b;
      return { ...rest, matrices: b.matrices.map((m) => ({ ...m, rows: m.rows * f, ld: m.ld * f, offset: m.offset * f })), ...type };
    }
  }
}
