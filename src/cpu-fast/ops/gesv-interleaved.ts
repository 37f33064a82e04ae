/**
 * gesv on the interleaved layout (kernels/getrf-interleaved.ts) for a strided run of square
 * matrices: chunks of A (and B) copied byte for byte into the wasm memory, factored and solved
 * two matrices per f64x2 vector, copied back with their pivots and infos. Bitwise the
 * reference's factors, pivots, infos and solutions. Where tuning.ts enables it, see there.
 */
import type { Batch, MatrixView } from '../../core/batch.js';
import { dtypeOfArray, type FloatArray } from '../../core/dtype.js';
import { byPrecision, dtypeInfo } from '../../core/dtype-table.js';
import type { GesvRequest } from '../../core/ops.js';
import { moduleFactory } from '../jit/compile.js';
import { generateGetrfInterleaved, luScratchBytes, type GetrfInterleavedParams } from '../kernels/getrf-interleaved.js';
import { generateGetrfInterleavedLocals } from '../kernels/getrf-interleaved-locals.js';
import { cpuTuning } from '../context.js';
import { heap, heapInts, loadModule } from '../wasm/runtime.js';

type WasmLu = (a: number, strideBytes: number, ipiv: number, info: number, pairs: number, b: number, bStrideBytes: number, nrhs: number, scratch: number) => void;
const kernel = moduleFactory<GetrfInterleavedParams, WasmLu>(generateGetrfInterleaved, 'getrf', loadModule);
const localsKernel = moduleFactory<GetrfInterleavedParams, WasmLu>(generateGetrfInterleavedLocals, 'getrf', loadModule);

/** Where each pair's matrix lives in the kernel: v128 locals (n <= gesvInterleavedLocalsMax) or the wasm scratch. */
export type LuInterleavedForm = 'locals' | 'scratch';

/** A strided batch's chunk copied byte for byte: how its matrices lie, if this kernel takes them. */
interface Region { readonly data: FloatArray; readonly offset: number; readonly stride: number; readonly ld: number; readonly footprint: number }
function region(b: Batch<FloatArray>, rows: number, cols: number): Region | undefined {
  if (b.kind !== 'strided') return undefined;
  const footprint = (cols - 1) * b.ld + rows;
  // matrices must not overlap (two threads' chunks stay disjoint) nor lie far apart (the gaps are copied too)
  if (b.stride < footprint || b.stride > 2 * footprint + 16) return undefined;
  return { data: b.data, offset: b.offset, stride: b.stride, ld: b.ld, footprint };
}

/**
 * gesv of `count` matrices from matrix p0 (first is matrix p0), or false where the layout does
 * not suit (nothing done): A and B strided, neither overlapping nor far apart, not sharing an
 * array (B's chunk, copied back after A's, would restore A's old values in its gaps), one dtype.
 */
export function gesvInterleaved(
  r: GesvRequest<FloatArray, Int32Array>, first: MatrixView<FloatArray>, p0: number, count: number, form?: LuInterleavedForm,
): boolean {
  const n = first.rows;
  if (first.cols !== n || r.b.kind !== 'strided' || r.b.cols === 0) return false;
  const ra = region(r.a, n, n), rb = region(r.b, n, r.b.cols);
  if (!ra || !rb || rb.data.buffer === ra.data.buffer || rb.data.constructor !== ra.data.constructor) return false;
  const nrhs = r.b.cols;
  const dtype = dtypeOfArray(first.data, 'a.data');
  const es = dtypeInfo(dtype).bytes;
  const per = Math.max(2, Math.floor(cpuTuning().interleavedChunkBytes.gesv / ((ra.stride + rb.stride) * es)) & ~1);
  const bBase = (((per - 1) * ra.stride + ra.footprint) * es + 15) & ~15;
  const ipivBase = (bBase + ((per - 1) * rb.stride + rb.footprint) * es + 15) & ~15;
  const infoBase = ipivBase + (per + 2) * n * 4;
  const scratch = (infoBase + (per + 2) * 4 + 15) & ~15;
  const views = heap(scratch + 2 * luScratchBytes(n));
  const view = byPrecision<FloatArray>(dtype, { double: views.f64, single: views.f32 });
  const ints = heapInts();
  const params = { n, dtype, ld: ra.ld, solve: { ldb: rb.ld }, loopUpdate: n >= cpuTuning().gesvInterleavedLoopMin } as const;
  const locals = (form ?? (n <= cpuTuning().gesvInterleavedLocalsMax ? 'locals' : 'scratch')) === 'locals';
  const fn = (locals ? localsKernel : kernel)({ ...params, pairsPerTrip: 1 });
  const pairs = locals ? 1 : cpuTuning().gesvInterleavedPairsPerTrip;
  const fn2 = pairs === 2 ? kernel({ ...params, pairsPerTrip: 2 }) : fn;
  const as = ra.stride * es, bs = rb.stride * es;
  for (let q = 0; q < count; q += per) {
    const c = Math.min(per, count - q);
    const start = first.offset + q * ra.stride, len = (c - 1) * ra.stride + ra.footprint;
    const bStart = rb.offset + (p0 + q) * rb.stride, bLen = (c - 1) * rb.stride + rb.footprint;
    view.set(ra.data.subarray(start, start + len));
    view.set(rb.data.subarray(bStart, bStart + bLen), bBase / es);
    const quads = pairs === 2 ? c >> 2 : 0;
    if (quads > 0) fn2(0, as, ipivBase, infoBase, quads, bBase, bs, nrhs, scratch);
    if ((c - 4 * quads) >= 2) fn(4 * quads * as, as, ipivBase + 4 * quads * n * 4, infoBase + 16 * quads, (c - 4 * quads) >> 1, bBase + 4 * quads * bs, bs, nrhs, scratch);
    if (c & 1) fn((c - 1) * as, 0, ipivBase + (c - 1) * n * 4, infoBase + (c - 1) * 4, 1, bBase + (c - 1) * bs, 0, nrhs, scratch);
    ra.data.set(view.subarray(0, len), start);
    rb.data.set(view.subarray(bBase / es, bBase / es + bLen), bStart);
    const m0 = p0 + q;
    if (r.pivotStride === n) r.ipiv.set(ints.subarray(ipivBase / 4, ipivBase / 4 + c * n), m0 * n);
    else for (let t = 0; t < c; t++) r.ipiv.set(ints.subarray(ipivBase / 4 + t * n, ipivBase / 4 + (t + 1) * n), (m0 + t) * r.pivotStride);
    r.info.set(ints.subarray(infoBase / 4, infoBase / 4 + c), m0);
  }
  return true;
}
