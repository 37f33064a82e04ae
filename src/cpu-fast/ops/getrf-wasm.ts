/**
 * getrf above the unrolled sizes: chunks of matrices packed as float64 into the WebAssembly
 * memory, factored by the generated kernel (getrfWasm: kernels/getrf-wasm.ts; getrfBlockWasm:
 * kernels/getrf-block-wasm.ts, which also solves gesv's B; plan/getrf.ts chooses), unpacked with
 * their pivots and infos. Bitwise the reference's results (same float64 operations, same order;
 * the kernels get the dtype's zero pivot test, dtype-table.ts zeroMax).
 */
import { matrixAt, type Batch, type MatrixView } from '../../core/batch.js';
import { dtypeOfArray, type DType, type FloatArray } from '../../core/dtype.js';
import { byPrecision, dtypeInfo } from '../../core/dtype-table.js';
import type { GetrfRequest, GetrsRequest } from '../../core/ops.js';
import { kernelFactory, moduleFactory } from '../jit/compile.js';
import { generateGetrfBlockWasm, type GetrfBlockWasmParams } from '../kernels/getrf-block-wasm.js';
import { generateGetrfWasm, ldOf, type GetrfWasmParams } from '../kernels/getrf-wasm.js';
import { generatePack, type PackKernel, type PackParams } from '../kernels/pack.js';
import { generateGetrsJs, type GetrsJsKernel } from '../kernels/getrs-js.js';
import { cpuScratch, cpuTuning, fmaFor, wasmChunk } from '../context.js';
import { stridedView } from './run-batch.js';
import { backToBack, narrowOut, widenIn } from './wasm-staging.js';
import { heap, heapInts, loadModule } from '../wasm/runtime.js';

type WasmGetrf = (a: number, ipiv: number, info: number, count: number) => void;
type WasmGetrfBlock = (a: number, ipiv: number, info: number, count: number, b: number) => void;
const kernel = moduleFactory<GetrfWasmParams, WasmGetrf>(generateGetrfWasm, 'getrf', loadModule);
const blockKernel = moduleFactory<GetrfBlockWasmParams, WasmGetrfBlock>(generateGetrfBlockWasm, 'getrf', loadModule);
const packKernel = kernelFactory<PackParams, PackKernel>(generatePack);
const solveKernel = kernelFactory<{ dtype: DType }, GetrsJsKernel>(generateGetrsJs);
/**
 * The wasm memory of getrfWasm's and getrfBlockWasm's chunks: `chunk` packed float64 matrices
 * (ld x n each) from byte 0, then `nrhs` columns of B per matrix (bBase), the pivots (pivBase)
 * and one info per matrix (infoBase).
 */
function chunkLayout(first: MatrixView<FloatArray>, count: number, nrhs: number) {
  const { rows: m, cols: n } = first;
  const dtype = dtypeOfArray(first.data, 'a.data');
  const ld = ldOf(m);
  const steps = Math.min(m, n);
  const chunk = wasmChunk(count, (ld * n + ld * nrhs) * 8 + steps * 4 + 4);
  const bBase = chunk * ld * n * 8, pivBase = bBase + chunk * ld * nrhs * 8, infoBase = pivBase + chunk * steps * 4;
  return { m, n, dtype, ld, steps, chunk, bBase, pivBase, infoBase };
}

const pack = (dtype: DType, direction: 'in' | 'out'): PackKernel => packKernel({ dtype, trans: 'N', direction, packed: 'float64' });

/**
 * With `b` (gesv), each matrix that factored (info = 0) is then solved from the packed float64
 * factor; B stays untouched where info > 0, as in LAPACK.
 */
export function getrfWasm(
  r: GetrfRequest<FloatArray, Int32Array>, first: MatrixView<FloatArray>, p0: number, count: number, b?: Batch<FloatArray>,
): void {
  const { m, n, dtype, ld, steps, chunk, pivBase, infoBase } = chunkLayout(first, count, 0);
  const { f64 } = heap(infoBase + chunk * 4 + 16);
  const ints = heapInts();
  const fn = kernel({ m, n, zeroMax: dtypeInfo(dtype).zeroMax });
  const solve = solveKernel({ dtype });
  const packIn = pack(dtype, 'in'), packOut = pack(dtype, 'out');
  const scratch = cpuScratch().f64('getrfWasmSolve', m);
  for (let q = p0; q < p0 + count; q += chunk) {
    const c = Math.min(chunk, p0 + count - q);
    const A = stridedView(r.a, q);
    packIn(A.data, A.offset, A.ld, A.stride, f64, 0, ld, ld * n, m, n, c);
    fn(0, pivBase, infoBase, c);
    packOut(f64, 0, ld, ld * n, A.data, A.offset, A.ld, A.stride, m, n, c);
    for (let t = 0; t < c; t++) {
      const pv = (q + t) * r.pivotStride;
      const src = pivBase / 4 + t * steps;
      for (let j = 0; j < steps; j++) r.ipiv[pv + j] = ints[src + j]!;
      r.info[q + t] = ints[infoBase / 4 + t]!;
      if (b && r.info[q + t] === 0) {
        const B = matrixAt(b, q + t);
        solve(f64, t * ld * n, ld, m, r.ipiv, pv, B.data, B.offset, B.ld, B.cols, scratch);
      }
    }
  }
}

/**
 * The same with the delayed-update kernel (kernels/getrf-block-wasm.ts), which for gesv also
 * solves each matrix that factored while its factor is in cache: B is packed beside A and only
 * the solved matrices' B copied back (B stays untouched where info > 0).
 */
export function getrfBlockWasm(
  r: GetrfRequest<FloatArray, Int32Array>, first: MatrixView<FloatArray>, p0: number, count: number, b?: Batch<FloatArray>,
): void {
  const nrhs = b ? matrixAt(b, p0).cols : 0;
  const { m, n, dtype, ld, steps, chunk, bBase, pivBase, infoBase } = chunkLayout(first, count, nrhs);
  // float32 staging (widenIn / narrowOut), as large as A's chunk or B's
  const stage = (infoBase + chunk * 4 + 15) & ~15;
  const { f64 } = heap(stage + chunk * ld * Math.max(n, nrhs) * 4 + 16);
  const ints = heapInts();
  // single precision: staged through float64, the factor rounded to float32
  const single = byPrecision(dtype, { double: false, single: true });
  const fn = blockKernel({ m, n, nb: cpuTuning().luWasmBlock.nb, nrhs, roundFactor: single, zeroMax: dtypeInfo(dtype).zeroMax, pairs: Math.max(m, n) <= cpuTuning().luWasmPairsMax, fma: fmaFor('getrfBlock', Math.min(m, n)) });
  const packIn = pack(dtype, 'in'), packOut = pack(dtype, 'out');
  for (let q = p0; q < p0 + count; q += chunk) {
    const c = Math.min(chunk, p0 + count - q);
    const A = stridedView(r.a, q);
    const B = b ? stridedView(b, q) : undefined;
    const aStaged = single && backToBack(A, m, n, ld);
    const bStaged = single && B !== undefined && backToBack(B, m, nrhs, ld);
    if (aStaged) widenIn(A.data as Float32Array, A.offset, c * m * n, 0, stage);
    else packIn(A.data, A.offset, A.ld, A.stride, f64, 0, ld, ld * n, m, n, c);
    if (bStaged) widenIn(B.data as Float32Array, B.offset, c * m * nrhs, bBase, stage);
    else if (B) packIn(B.data, B.offset, B.ld, B.stride, f64, bBase / 8, ld, ld * nrhs, m, nrhs, c);
    fn(0, pivBase, infoBase, c, bBase);
    if (aStaged) narrowOut(0, c * m * n, stage, A.data as Float32Array, A.offset);
    else packOut(f64, 0, ld, ld * n, A.data, A.offset, A.ld, A.stride, m, n, c);
    // pivots and infos by block copies where they lie back to back (native copies: a first call's
    // per-element loops run interpreted), B likewise where every matrix of the chunk factored
    if (r.pivotStride === steps) r.ipiv.set(ints.subarray(pivBase / 4, pivBase / 4 + c * steps), q * steps);
    else for (let t = 0; t < c; t++) r.ipiv.set(ints.subarray(pivBase / 4 + t * steps, pivBase / 4 + (t + 1) * steps), (q + t) * r.pivotStride);
    r.info.set(ints.subarray(infoBase / 4, infoBase / 4 + c), q);
    if (!B) continue;
    if (r.info.subarray(q, q + c).every((v) => v === 0)) {
      if (bStaged) narrowOut(bBase, c * m * nrhs, stage, B.data as Float32Array, B.offset);
      else packOut(f64, bBase / 8, ld, ld * nrhs, B.data, B.offset, B.ld, B.stride, m, nrhs, c);
    }
    else for (let t = 0; t < c; t++) if (r.info[q + t] === 0) packOut(f64, bBase / 8 + t * ld * nrhs, ld, 0, B.data, B.offset + t * B.stride, B.ld, 0, m, nrhs, 1);
  }
}

/**
 * getrs ('N', square) on the delayed-update kernel's solve alone (kernels/getrf-block-wasm.ts): the
 * factor and B of each chunk packed as float64 (a float32 factor is exact in float64: no rounding
 * needed), the caller's pivots copied beside them (checked in [j, n) by the API), B swapped and
 * solved as the reference does (dgetrs: the same operations in the same order, so bitwise), B
 * unpacked (rounded for float32); the factor is not written back.
 */
export function getrsWasm(r: GetrsRequest<FloatArray, Int32Array>, first: MatrixView<FloatArray>, p0: number, count: number): void {
  const n = first.rows;
  const dtype = dtypeOfArray(first.data, 'a.data');
  const ld = ldOf(n);
  const nrhs = matrixAt(r.b, p0).cols;
  if (nrhs === 0) {
    r.info.fill(0, p0, p0 + count); // nothing to solve
    return;
  }
  const per = (ld * n + ld * nrhs) * 8 + n * 4;
  const chunk = wasmChunk(count, per);
  const bBase = chunk * ld * n * 8, pivBase = bBase + chunk * ld * nrhs * 8;
  const { f64 } = heap(pivBase + chunk * n * 4 + 16);
  const ints = heapInts();
  // (no factorisation: zeroMax is not read, and one module serves both dtypes)
  const fn = blockKernel({ m: n, n, nb: cpuTuning().luWasmBlock.nb, nrhs, roundFactor: false, zeroMax: 0, solveOnly: true });
  const packIn = pack(dtype, 'in'), packOut = pack(dtype, 'out');
  for (let q = p0; q < p0 + count; q += chunk) {
    const c = Math.min(chunk, p0 + count - q);
    const A = stridedView(r.a, q);
    const B = stridedView(r.b, q);
    packIn(A.data, A.offset, A.ld, A.stride, f64, 0, ld, ld * n, n, n, c);
    packIn(B.data, B.offset, B.ld, B.stride, f64, bBase / 8, ld, ld * nrhs, n, nrhs, c);
    if (r.pivotStride === n) ints.set(r.ipiv.subarray(q * n, (q + c) * n), pivBase / 4);
    else for (let t = 0; t < c; t++) ints.set(r.ipiv.subarray((q + t) * r.pivotStride, (q + t) * r.pivotStride + n), pivBase / 4 + t * n);
    fn(0, pivBase, 0, c, bBase);
    packOut(f64, bBase / 8, ld, ld * nrhs, B.data, B.offset, B.ld, B.stride, n, nrhs, c);
    r.info.fill(0, q, q + c);
  }
}
