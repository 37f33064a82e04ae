/**
 * Any validated request cut to the matrices [p0, p1): batches keep their layout (a strided
 * batch moves its offset, a list or variable batch slices its matrices), info and pivots become
 * subarrays. The workers and the per-matrix fallbacks both run on such slices, so a request
 * never needs an op-specific splitter.
 */
import { isBatch as isCoreBatch, sliceBatch, type Batch } from '../core/batch.js';
import type { FloatArray } from '../core/dtype.js';

export type HostRequest = object;

/** core's isBatch, typed for host requests. */
export function isBatch(v: unknown): v is Batch<FloatArray> {
  return isCoreBatch(v);
}

export function sliceRequest<R extends HostRequest>(r: R, p0: number, p1: number): R {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(r)) {
    if (isBatch(value)) out[key] = sliceBatch(value, p0, p1);
    else if (key === 'info' && value instanceof Int32Array) out[key] = value.subarray(p0, p1);
    else if (key === 'ipiv' && value instanceof Int32Array) {
      const ps = (r as { pivotStride?: number }).pivotStride ?? 0;
      out[key] = value.subarray(p0 * ps, p1 * ps);
    } else out[key] = value;
  }
  return out as R;
}
