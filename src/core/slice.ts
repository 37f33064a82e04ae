/**
 * Any validated request cut to its matrices [start, end): batches keep their layout (a strided
 * batch moves its offset, a list or variable batch slices its matrices), each per-matrix integer
 * field (info, ipiv) is cut by the caller's `ints` (host subarrays on the CPU, int slices of
 * device memory on the GPU), every other field is kept. One splitter for every operation.
 */
import { isBatch, sliceBatch } from './batch.js';

/** The per-matrix integer fields of the requests (core/op-specs.ts: kind 'ints'). */
export const INT_FIELDS: readonly string[] = ['info', 'ipiv'];

/** Integers per matrix of an int field: pivotStride for ipiv, 1 for info. */
export function intsPerMatrix(request: object, field: string): number {
  return field === 'ipiv' ? ((request as { pivotStride?: number }).pivotStride ?? 0) : 1;
}

/** Cuts one int field's value to the elements [lo, hi) of the matrices kept. */
export type IntCut = (value: unknown, lo: number, hi: number) => unknown;

export function sliceRequest<R extends object>(request: R, start: number, end: number, ints: IntCut): R {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(request)) {
    if (isBatch(value)) out[key] = sliceBatch(value, start, end);
    else if (value !== undefined && value !== null && INT_FIELDS.includes(key)) {
      const per = intsPerMatrix(request, key);
      out[key] = ints(value, start * per, end * per);
    } else out[key] = value;
  }
  return out as R;
}
