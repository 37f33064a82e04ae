/**
 * Complex matrices placed in NaN-poisoned buffers for the GPU tests of the complex kernels (ztrsm,
 * zherk): the poison's bits are a NaN with a payload of its own, so a NaN a kernel writes differs
 * from it, and memory a kernel must not touch is compared bit for bit.
 */
import { list, strided, type Batch } from '../../src/core/batch.js';
import type { DType } from '../../src/core/dtype.js';
import type { Storage } from '../../src/core/storage.js';
import type { Pairs } from './ztrsm-data.js';

export type PlacedForm = 'strided' | 'list';

/** Bits of a NaN with a payload of its own (the poison around B): a kernel's NaN would differ. */
export function poison(a: Pairs): void {
  if (a instanceof Float64Array) {
    const w = new Uint32Array(a.buffer, a.byteOffset, a.length * 2);
    for (let i = 0; i < a.length; i++) { w[2 * i] = 0x0badf00d + i; w[2 * i + 1] = 0x7ff4dead; }
  } else {
    new Uint32Array(a.buffer, a.byteOffset, a.length).fill(0x7fa0beef);
  }
}
export const bits = (a: Pairs): Uint32Array => new Uint32Array(a.buffer, a.byteOffset, a.byteLength / 4);

/** count rows x cols matrices: one buffer (ld = rows + 1 or + 2, gaps of 3 pairs, offset 5) for 'strided', a buffer each (offset 2, one pair after) for 'list'. */
export interface Placed { arrays: Pairs[]; rows: number; cols: number; ld: number; offsets: number[]; stride: number; form: PlacedForm }
export function place(dtype: DType, rows: number, cols: number, count: number, form: PlacedForm, fill: (data: Pairs, off: number, ld: number) => void): Placed {
  const ld = rows % 2 === 0 ? rows + 1 : rows + 2;
  const stride = ld * cols + 3;
  const make = (pairs: number): Pairs => { const a = dtype === 'float64' ? new Float64Array(2 * pairs) : new Float32Array(2 * pairs); poison(a); return a; };
  const arrays = form === 'strided' ? [make(5 + count * stride + 1)] : Array.from({ length: count }, () => make(2 + ld * cols + 1));
  const offsets = Array.from({ length: count }, (_, q) => (form === 'strided' ? 5 + q * stride : 2));
  offsets.forEach((off, q) => fill(arrays[form === 'strided' ? 0 : q]!, off, ld));
  return { arrays, rows, cols, ld, offsets, stride, form };
}
export function batchOf<S extends Storage>(p: Placed, data: readonly S[], dtype: 'complex128' | 'complex64'): Batch<S> {
  const shape = { rows: p.rows, cols: p.cols, ld: p.ld, dtype };
  if (p.form === 'list') return list(data.map((d, q) => ({ data: d, offset: p.offsets[q]! })), shape) as unknown as Batch<S>;
  return strided(data[0]!, { ...shape, stride: p.stride, offset: p.offsets[0]!, count: p.offsets.length }) as unknown as Batch<S>;
}
