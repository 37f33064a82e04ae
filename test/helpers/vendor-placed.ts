/**
 * What the vendor-route GPU tests (vendor-routes, vendor-solves) share: the library a route needs
 * (the test skipped where it does not load) and strided batches placed with padding, gaps and an
 * offset, NaN everywhere else, so that a route's writes outside its matrices show.
 */
import type { TestContext } from 'node:test';
import { strided, type Batch } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/types.js';
import { vendorUsable, type VendorLibrary } from '../../src/cuda/vendor/index.js';
import { gpu } from './gpu.js';

/** The library a route needs, or the test is skipped with the reason. */
export function needs(t: TestContext, library: VendorLibrary): GpuDevice | undefined {
  const dev = gpu();
  if (vendorUsable(dev, library)) return dev;
  t.skip(`${library} does not load on this machine`);
  return undefined;
}

/** count matrices rows x cols, ld = rows + 2, 3 elements between them, offset 5; NaN everywhere else. */
export interface Placed { data: FloatArray; ld: number; stride: number; offset: number; count: number; rows: number; cols: number }
export function placed(dtype: DType, rows: number, cols: number, count: number): Placed {
  const ld = rows + 2, stride = ld * cols + 3, offset = 5;
  return { data: allocate(dtype, offset + count * stride + 4).fill(NaN), ld, stride, offset, count, rows, cols };
}
/** The index of matrix k's (i, j) in `p.data`. */
export const at = (p: Placed, k: number, i: number, j: number): number => p.offset + k * p.stride + i + j * p.ld;
export const batchOf = <S extends FloatArray | DeviceArray>(p: Placed, data: S): Batch<S> =>
  strided(data, { rows: p.rows, cols: p.cols, count: p.count, ld: p.ld, stride: p.stride, offset: p.offset });
/** Element e's matrix and place, or undefined (padding, gaps). */
export function where(p: Placed, e: number): { k: number; i: number; j: number } | undefined {
  const q = e - p.offset;
  if (q < 0) return undefined;
  const k = Math.floor(q / p.stride), r = q - k * p.stride, j = Math.floor(r / p.ld), i = r - j * p.ld;
  return k < p.count && i < p.rows && j < p.cols ? { k, i, j } : undefined;
}
/** Equal, or both NaN. */
export const same = (x: number, y: number): boolean => Object.is(x, y) || (Number.isNaN(x) && Number.isNaN(y));
