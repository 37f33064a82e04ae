/**
 * potrf on the interleaved layout (kernels/potrf-interleaved.ts) for a strided run of matrices:
 * chunks of the batch copied byte for byte into the wasm memory, factored two matrices per f64x2
 * vector (the kernel gathers each pair's elements itself), copied back; posv solves in the same
 * kernel (B's chunk copied in and back the same way). Bitwise the reference's results and infos.
 * Where tuning.ts enables them, see there.
 */
import type { Batch, MatrixView } from '../../core/batch.js';
import { dtypeOfArray, type FloatArray } from '../../core/dtype.js';
import { byPrecision, dtypeInfo } from '../../core/dtype-table.js';
import type { PosvRequest, PotrfRequest } from '../../core/ops.js';
import { moduleFactory } from '../jit/compile.js';
import { generatePotrfInterleavedStrided, scratchBytes, type PotrfInterleavedStridedParams } from '../kernels/potrf-interleaved.js';
import { cpuTuning, fmaFor } from '../context.js';
import { interleavedShape } from '../tuning.js';
import { heap, heapInts, loadModule } from '../wasm/runtime.js';

type WasmPotrf = (a: number, strideBytes: number, info: number, pairs: number, b: number, bStrideBytes: number, nrhs: number, scratch: number) => void;
const kernel = moduleFactory<PotrfInterleavedStridedParams, WasmPotrf>(generatePotrfInterleavedStrided, 'potrf', loadModule);

/** A strided batch's chunk copied byte for byte: how its matrices lie, and whether this kernel takes them. */
interface Region { readonly data: FloatArray; readonly offset: number; readonly stride: number; readonly footprint: number }
function region(b: Batch<FloatArray>, rows: number, cols: number): Region | undefined {
  if (b.kind !== 'strided') return undefined;
  const footprint = (cols - 1) * b.ld + rows;
  // matrices must not overlap (two threads' chunks stay disjoint) nor lie far apart (the gaps are copied too)
  if (b.stride < footprint || b.stride > 2 * footprint + 16) return undefined;
  return { data: b.data, offset: b.offset, stride: b.stride, footprint };
}

/**
 * Factors `count` matrices of r.a's strided batch from matrix p0 (first is matrix p0), and with
 * `b` solves B of each that factored, or returns false where the layout does not suit: the
 * chunks are copied back whole, gaps and the other triangle included (unchanged bytes), so
 * matrices must not overlap nor lie far apart, and A and B must not share an array (B's chunk,
 * copied back after A's, would restore A's old values in its gaps).
 */
export function potrfInterleaved(
  r: PotrfRequest<FloatArray, Int32Array>, first: MatrixView<FloatArray>, p0: number, count: number,
  pairsPerTrip?: 1 | 2, b?: Batch<FloatArray>,
  /** Called after each chunk is factored and copied back, its factors still at byte 0 of the wasm memory: matrices p0 + q ... p0 + q + c - 1. */
  afterChunk?: (q: number, c: number) => void,
): boolean {
  const n = first.rows;
  const shape = interleavedShape(cpuTuning(), n, b !== undefined);
  const ppt = pairsPerTrip ?? shape.pairsPerTrip;
  const ra = region(r.a, n, n);
  if (!ra || r.a.kind !== 'strided') return false;
  const nrhs = b && b.kind === 'strided' ? b.cols : 0;
  if (b && nrhs === 0) return false;
  const rb = b ? region(b, n, nrhs) : undefined;
  if (b && (!rb || b.kind !== 'strided' || rb.data.buffer === ra.data.buffer || rb.data.constructor !== ra.data.constructor)) return false;
  const { ld, stride } = r.a;
  const { footprint } = ra;
  const dtype = dtypeOfArray(first.data, 'a.data');
  const es = dtypeInfo(dtype).bytes;
  const bStride = rb ? rb.stride : 0;
  const per = Math.max(2, Math.floor(cpuTuning().interleavedChunkBytes[b || afterChunk ? 'posv' : 'potrf'] / ((stride + bStride) * es)) & ~1);
  const regionBytes = ((per - 1) * stride + footprint) * es;
  const bBase = (regionBytes + 15) & ~15;
  const bBytes = rb ? ((per - 1) * bStride + rb.footprint) * es : 0;
  const infoBase = (bBase + bBytes + 15) & ~15;
  const scratch = (infoBase + (per + 2) * 4 + 15) & ~15;
  const views = heap(scratch + scratchBytes(n, 2));
  let view = byPrecision<FloatArray>(dtype, { double: views.f64, single: views.f32 });
  let ints = heapInts();
  const params = { n, uplo: r.uplo, dtype, ld, form: shape.form, fma: fmaFor('potrfInterleaved', n), ...(rb && b?.kind === 'strided' ? { solve: { ldb: b.ld } } : {}) } as const;
  const fn = kernel({ ...params, pairsPerTrip: 1 });
  const fn2 = ppt === 2 ? kernel({ ...params, pairsPerTrip: 2 }) : fn;
  const data = first.data;
  const bs = bStride * es;
  for (let q = 0; q < count; q += per) {
    const c = Math.min(per, count - q);
    const start = first.offset + q * stride;
    const len = (c - 1) * stride + footprint;
    view.set(data.subarray(start, start + len));
    const bStart = rb ? rb.offset + (p0 + q) * bStride : 0;
    const bLen = rb ? (c - 1) * bStride + rb.footprint : 0;
    if (rb) view.set(rb.data.subarray(bStart, bStart + bLen), bBase / es);
    if (ppt === 2) {
      const quads = c >> 2;
      if (quads > 0) fn2(0, stride * es, infoBase, quads, bBase, bs, nrhs, scratch);
      if (c & 2) fn(quads * 4 * stride * es, stride * es, infoBase + quads * 16, 1, bBase + quads * 4 * bs, bs, nrhs, scratch);
    } else if (c >= 2) fn(0, stride * es, infoBase, c >> 1, bBase, bs, nrhs, scratch);
    if (c & 1) fn((c - 1) * stride * es, 0, infoBase + (c - 1) * 4, 1, bBase + (c - 1) * bs, 0, nrhs, scratch);
    data.set(view.subarray(0, len), start);
    if (rb) rb.data.set(view.subarray(bBase / es, bBase / es + bLen), bStart);
    // one block copy, not a loop (a first call's loop runs in V8's interpreter: 5 of 35 ms for posv 8 x 100,000)
    r.info.set(ints.subarray(infoBase / 4, infoBase / 4 + c), p0 + q);
    if (afterChunk) {
      afterChunk(q, c);
      // (it may have grown the memory, detaching these views)
      const v = heap(0);
      view = byPrecision<FloatArray>(dtype, { double: v.f64, single: v.f32 });
      ints = heapInts();
    }
  }
  return true;
}

/**
 * posv as the reference does it (src/cpu/lapack/solve.ts: potrf, then potrs with the factor as
 * stored, rounded for float32), fused in the interleaved kernel: each matrix solved while its
 * factor is still in registers. B of a failed matrix is not touched. False (nothing done)
 * where the layout does not suit (see potrfInterleaved).
 */
export function posvInterleaved(r: PosvRequest<FloatArray, Int32Array>, first: MatrixView<FloatArray>, p0: number, count: number): boolean {
  return potrfInterleaved(r, first, p0, count, undefined, r.b);
}
