/**
 * Any validated request cut to the matrices [p0, p1): batches keep their layout (a strided
 * batch moves its offset, a list or variable batch slices its matrices), info and pivots become
 * subarrays. The workers and the per-matrix fallbacks both run on such slices, so a request
 * never needs an op-specific splitter.
 */
import { isBatch as isCoreBatch, type Batch } from '../core/batch.js';
import { sliceRequest as sliceCore } from '../core/slice.js';
import { isInt32Array, type FloatArray } from '../core/dtype.js';

export type HostRequest = object;

/** core's isBatch, typed for host requests. */
export function isBatch(v: unknown): v is Batch<FloatArray> {
  return isCoreBatch(v);
}

export function sliceRequest<R extends HostRequest>(r: R, p0: number, p1: number): R {
  return sliceCore(r, p0, p1, (v, lo, hi) => (isInt32Array(v) ? v.subarray(lo, hi) : v));
}
