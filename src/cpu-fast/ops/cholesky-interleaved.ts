/**
 * potrf on the interleaved layout (kernels/potrf-interleaved.ts) for a strided run of matrices:
 * chunks of the batch copied byte for byte into the wasm memory, factored two matrices per f64x2
 * vector (the kernel gathers each pair's elements itself), copied back; posv adds the unrolled
 * potrs. Bitwise the reference's results and infos. Where tuning.ts enables them, see there.
 */
import type { MatrixView } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import type { PosvRequest, PotrfRequest } from '../../core/ops.js';
import { kernelFactory, moduleFactory } from '../jit/compile.js';
import { generateCholesky, type CholeskyKernel, type CholeskyParams } from '../kernels/cholesky.js';
import { generatePotrfInterleavedStrided, type PotrfInterleavedStridedParams } from '../kernels/potrf-interleaved.js';
import { INTERLEAVED_CHUNK_BYTES, INTERLEAVED_PAIRS_PER_TRIP } from '../tuning.js';
import { heap, heapInts, instantiate } from '../wasm/runtime.js';
import { stridedView } from './run-batch.js';

type WasmPotrf = (a: number, strideBytes: number, info: number, pairs: number) => void;
const kernel = moduleFactory<PotrfInterleavedStridedParams, WasmPotrf>(generatePotrfInterleavedStrided, 'potrf', instantiate);
const potrsKernel = kernelFactory<CholeskyParams, CholeskyKernel>(generateCholesky);

/**
 * Factors `count` matrices of r.a's strided batch from matrix p0 (first is matrix p0), or returns
 * false where the layout does not suit: the chunks are copied back whole, gaps and the other
 * triangle included (unchanged bytes), so matrices must not overlap (stride at least the
 * footprint: two threads' chunks stay disjoint) nor lie far apart (the gaps are copied too).
 */
export function potrfInterleaved(
  r: PotrfRequest<FloatArray, Int32Array>, first: MatrixView<FloatArray>, p0: number, count: number,
  pairsPerTrip: 1 | 2 = INTERLEAVED_PAIRS_PER_TRIP,
): boolean {
  if (r.a.kind !== 'strided') return false;
  const n = first.rows;
  const { ld, stride } = r.a;
  const footprint = (n - 1) * ld + n;
  if (stride < footprint || stride > 2 * footprint + 16) return false;
  const f32 = first.data instanceof Float32Array;
  const es = f32 ? 4 : 8;
  const per = Math.max(2, Math.floor(INTERLEAVED_CHUNK_BYTES / (stride * es)) & ~1);
  const regionBytes = ((per - 1) * stride + footprint) * es;
  const infoBase = (regionBytes + 15) & ~15;
  const views = heap(infoBase + (per + 2) * 4);
  const view = f32 ? views.f32 : views.f64;
  const ints = heapInts();
  const params = { n, uplo: r.uplo, dtype: f32 ? 'float32' : 'float64', ld } as const;
  const fn = kernel({ ...params, pairsPerTrip: 1 });
  const fn2 = pairsPerTrip === 2 ? kernel({ ...params, pairsPerTrip: 2 }) : fn;
  const data = first.data;
  for (let q = 0; q < count; q += per) {
    const c = Math.min(per, count - q);
    const start = first.offset + q * stride;
    const len = (c - 1) * stride + footprint;
    view.set(data.subarray(start, start + len));
    if (pairsPerTrip === 2) {
      const quads = c >> 2;
      if (quads > 0) fn2(0, stride * es, infoBase, quads);
      if (c & 2) fn(quads * 4 * stride * es, stride * es, infoBase + quads * 16, 1);
    } else if (c >= 2) fn(0, stride * es, infoBase, c >> 1);
    if (c & 1) fn((c - 1) * stride * es, 0, infoBase + (c - 1) * 4, 1);
    data.set(view.subarray(0, len), start);
    for (let t = 0; t < c; t++) r.info[p0 + q + t] = ints[infoBase / 4 + t]!;
  }
  return true;
}

/**
 * posv as the reference does it (src/cpu/lapack/solve.ts: potrf, then potrs with the factor as
 * stored, rounded for float32): the interleaved potrf, then the unrolled potrs kernel on each
 * run of matrices that factored (it writes info 0, which those already have); B of a failed
 * matrix is not touched. False (nothing done) where potrfInterleaved declines the layout.
 */
export function posvInterleaved(r: PosvRequest<FloatArray, Int32Array>, first: MatrixView<FloatArray>, p0: number, count: number): boolean {
  if (r.a.kind !== 'strided' || r.b.kind !== 'strided' || !potrfInterleaved(r, first, p0, count)) return false;
  const n = first.rows;
  const solve = potrsKernel({ op: 'potrs', n, uplo: r.uplo, dtype: first.data instanceof Float32Array ? 'float32' : 'float64' });
  const aStride = r.a.stride;
  const b = stridedView(r.b, p0);
  for (let s = 0; s < count;) {
    if (r.info[p0 + s] !== 0) { s++; continue; }
    let e = s + 1;
    while (e < count && r.info[p0 + e] === 0) e++;
    solve(first.data, first.offset + s * aStride, first.ld, aStride, b.data, b.offset + s * b.stride, b.ld, b.stride, b.cols, r.info, p0 + s, e - s);
    s = e;
  }
  return true;
}
