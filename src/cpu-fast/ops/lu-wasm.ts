/**
 * getrf above the unrolled sizes: chunks of matrices packed as float64 into the WebAssembly
 * memory, factored by the generated kernel (kernels/getrf-wasm.ts, or from LU_WASM_BLOCK.min
 * kernels/getrf-block-wasm.ts, which also solves gesv's B), unpacked with their pivots and
 * infos. Bitwise the reference's results (same float64 operations, same order).
 */
import { matrixAt, type Batch, type MatrixView } from '../../core/batch.js';
import type { DType, FloatArray } from '../../core/dtype.js';
import type { GetrfRequest, GetrsRequest } from '../../core/ops.js';
import { copyElements } from '../copy.js';
import { kernelFactory, moduleFactory } from '../jit/compile.js';
import type { GetrfBlockWasmParams } from '../kernels/getrf-block-wasm.js';
import { generateGetrfWasm, ldOf, type GetrfWasmParams } from '../kernels/getrf-wasm.js';
import { generatePack, type PackKernel, type PackParams } from '../kernels/pack.js';
import { generateLuSolve, type LuSolveKernel } from '../kernels/lu-solve.js';
import { GEMM_WASM_CHUNK_BYTES, LU_WASM_BLOCK } from '../tuning.js';
import { dtypeOf, runChunks, runnersOf, type ChunkPlan } from './chunks.js';
import { luLayout, luRunner } from './kernel-calls.js';
import { stridedView } from './run-batch.js';
import { heap, heapInts, loadModule } from '../wasm/runtime.js';

type WasmGetrf = (a: number, ipiv: number, info: number, count: number) => void;
const kernel = moduleFactory<GetrfWasmParams, WasmGetrf>(generateGetrfWasm, 'getrf', loadModule);
const packKernel = kernelFactory<PackParams, PackKernel>(generatePack);
const solveKernel = kernelFactory<{ dtype: DType }, LuSolveKernel>(generateLuSolve);
let scratch = new Float64Array(64);

const pack = (dtype: DType, direction: 'in' | 'out'): PackKernel => packKernel({ dtype, trans: 'N', direction, packed: 'float64' });

/**
 * With `b` (gesv), each matrix that factored (info = 0) is then solved from the packed float64
 * factor; B stays untouched where info > 0, as in LAPACK.
 */
export function getrfWasm(
  r: GetrfRequest<FloatArray, Int32Array>, first: MatrixView<FloatArray>, p0: number, count: number, b?: Batch<FloatArray>,
): void {
  const { rows: m, cols: n } = first;
  const dtype: DType = first.data instanceof Float32Array ? 'float32' : 'float64';
  if (Math.min(m, n) >= LU_WASM_BLOCK.min) return runChunks(luBlockPlan(r, first, b, b ? matrixAt(b, p0).cols : 0, false), p0, count);
  const ld = ldOf(m);
  const steps = Math.min(m, n);
  const per = ld * n * 8 + steps * 4 + 4;
  const chunk = Math.max(1, Math.min(count, Math.floor(GEMM_WASM_CHUNK_BYTES / per)));
  const aBytes = chunk * ld * n * 8;
  const pivBase = aBytes, infoBase = pivBase + chunk * steps * 4;
  const { f64 } = heap(infoBase + chunk * 4 + 16);
  const ints = heapInts();
  const fn = kernel({ m, n });
  const solve = solveKernel({ dtype });
  const packIn = pack(dtype, 'in'), packOut = pack(dtype, 'out');
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
        if (scratch.length < m) scratch = new Float64Array(m);
        solve(f64, t * ld * n, ld, m, r.ipiv, pv, B.data, B.offset, B.ld, B.cols, scratch);
      }
    }
  }
}

/** The arrays of getrf, gesv and getrs that the delayed-update kernel's chunks read and write. */
interface LuArrays { readonly a: Batch<FloatArray>; readonly ipiv: Int32Array; readonly pivotStride: number; readonly info: Int32Array }

/**
 * The delayed-update kernel (kernels/getrf-block-wasm.ts) chunk by chunk (ops/chunks.ts): getrf,
 * or with `b` gesv, which solves each matrix that factored while its factor is in cache (B
 * packed beside A, only the solved matrices' B copied back: B stays untouched where info > 0), or
 * with `solveOnly` getrs ('N', square): the factor and B packed as float64 (a float32 factor is
 * exact in float64: no rounding needed), the caller's pivots copied beside them (checked in
 * [j, n) by the API), B swapped and solved as the reference does (dgetrs: the same operations in
 * the same order, so bitwise), B unpacked (rounded for float32); the factor is not written back.
 * A chunk of c matrices lies as c packed A, c packed B, c x min(m, n) pivots, c infos.
 */
export function luBlockPlan(r: LuArrays, first: MatrixView<FloatArray>, b: Batch<FloatArray> | undefined, nrhs: number, solveOnly: boolean): ChunkPlan {
  const { rows: m, cols: n } = first;
  const dtype = dtypeOf(first.data);
  const ld = ldOf(m);
  const steps = Math.min(m, n);
  const params: GetrfBlockWasmParams = solveOnly
    ? { m, n, nb: LU_WASM_BLOCK.nb, nrhs, roundFactor: false, solveOnly: true }
    : { m, n, nb: LU_WASM_BLOCK.nb, nrhs, roundFactor: dtype === 'float32' };
  const packIn = pack(dtype, 'in'), packOut = pack(dtype, 'out');
  return {
    perMatrix: (ld * n + ld * nrhs) * 8 + steps * 4 + 4,
    fixed: 0,
    pack(heap, base, p, c): void {
      const { b: bBase, piv } = luLayout(params, base, c);
      const A = stridedView(r.a, p);
      packIn(A.data, A.offset, A.ld, A.stride, heap.f64, base / 8, ld, ld * n, m, n, c);
      if (b) {
        const B = stridedView(b, p);
        packIn(B.data, B.offset, B.ld, B.stride, heap.f64, bBase / 8, ld, ld * nrhs, m, nrhs, c);
      }
      if (!solveOnly) return;
      if (r.pivotStride === n) copyElements(heap.i32, piv / 4, r.ipiv, p * n, c * n);
      else for (let t = 0; t < c; t++) copyElements(heap.i32, piv / 4 + t * n, r.ipiv, (p + t) * r.pivotStride, n);
    },
    runner: runnersOf((shared) => luRunner(params, shared)),
    call: (base, count) => ({ kernel: 'getrf-block', params, base, count }),
    unpack(heap, base, p, c): void {
      const f64 = heap.f64, ints = heap.i32;
      const l = luLayout(params, base, c);
      const bBase = l.b / 8;
      if (solveOnly) {
        const B = stridedView(b!, p);
        packOut(f64, bBase, ld, ld * nrhs, B.data, B.offset, B.ld, B.stride, m, nrhs, c);
        r.info.fill(0, p, p + c);
        return;
      }
      const A = stridedView(r.a, p);
      packOut(f64, base / 8, ld, ld * n, A.data, A.offset, A.ld, A.stride, m, n, c);
      // pivots and infos by block copies where they lie back to back (native copies: a first call's
      // per-element loops run interpreted), B likewise where every matrix of the chunk factored
      const piv = l.piv / 4, info = l.info / 4;
      if (r.pivotStride === steps) copyElements(r.ipiv, p * steps, ints, piv, c * steps);
      else for (let t = 0; t < c; t++) copyElements(r.ipiv, (p + t) * r.pivotStride, ints, piv + t * steps, steps);
      copyElements(r.info, p, ints, info, c);
      if (!b) return;
      const B = stridedView(b, p);
      if (r.info.subarray(p, p + c).every((v) => v === 0)) packOut(f64, bBase, ld, ld * nrhs, B.data, B.offset, B.ld, B.stride, m, nrhs, c);
      else for (let t = 0; t < c; t++) if (r.info[p + t] === 0) packOut(f64, bBase + t * ld * nrhs, ld, 0, B.data, B.offset + t * B.stride, B.ld, 0, m, nrhs, 1);
    },
  };
}

/**
 * getrs ('N', square) on the delayed-update kernel's solve alone (luBlockPlan with solveOnly).
 */
export function getrsWasm(r: GetrsRequest<FloatArray, Int32Array>, first: MatrixView<FloatArray>, p0: number, count: number): void {
  const nrhs = matrixAt(r.b, p0).cols;
  if (nrhs === 0) {
    r.info.fill(0, p0, p0 + count); // nothing to solve
    return;
  }
  runChunks(luBlockPlan(r, first, r.b, nrhs, true), p0, count);
}
