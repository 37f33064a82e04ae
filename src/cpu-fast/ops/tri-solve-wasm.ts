/**
 * potrs (either triangle) and getrs 'T' above the unrolled sizes on the generated WebAssembly
 * solves (kernels/tri-solve-wasm.ts): each chunk's factors copied as float64 as they lie (one
 * native copy: a packing loop cost twice the solve with one right-hand side) or, where the
 * batch's gaps are large, packed; B packed transposed (the right-hand sides of a row side by
 * side), getrs's pivots copied beside them; B unpacked (rounded for float32). The factor is not
 * written back. Bitwise the reference's results.
 */
import { matrixAt, type MatrixView } from '../../core/batch.js';
import type { DType, FloatArray } from '../../core/dtype.js';
import type { GetrsRequest, PotrsRequest } from '../../core/ops.js';
import { kernelFactory, moduleFactory } from '../jit/compile.js';
import { generatePack, type PackKernel, type PackParams } from '../kernels/pack.js';
import { generateTriSolveWasm, triSolveLdb, triSolveMats, type TriSolveOp, type TriSolveWasmParams } from '../kernels/tri-solve-wasm.js';
import { GEMM_WASM_CHUNK_BYTES } from '../tuning.js';
import { stridedView } from './run-batch.js';
import { heap, heapInts, loadModule } from '../wasm/runtime.js';

type WasmSolve = (a: number, b: number, piv: number, count: number) => void;
const kernel = moduleFactory<TriSolveWasmParams, WasmSolve>(generateTriSolveWasm, 'solve', loadModule);
const packKernel = kernelFactory<PackParams, PackKernel>(generatePack);

/** Solves `count` matrices from matrix p0 (a strided run, or one matrix). */
function triSolve(
  op: TriSolveOp, r: PotrsRequest<FloatArray, Int32Array> | GetrsRequest<FloatArray, Int32Array>,
  first: MatrixView<FloatArray>, p0: number, count: number, pivots?: { ipiv: Int32Array; stride: number },
): void {
  const n = first.rows;
  const nrhs = matrixAt(r.b, p0).cols;
  if (nrhs === 0) {
    r.info.fill(0, p0, p0 + count); // nothing to solve
    return;
  }
  const dtype: DType = first.data instanceof Float32Array ? 'float32' : 'float64';
  const ldb = triSolveLdb(nrhs);
  // the factors copied as they lie (one native copy per chunk, converting float32) where the
  // batch is strided and its gaps small; else packed, ld = n, back to back
  const stride = r.a.kind === 'strided' && count > 1 ? r.a.stride : 0;
  const footprint = (n - 1) * first.ld + n;
  const asLaid = count === 1 || (stride >= footprint && stride <= 2 * footprint + 16);
  // (one matrix: no stride, so that list and variable batches share one module per ld)
  const lda = asLaid ? first.ld : n, strideA = asLaid ? stride : n * n, foot = asLaid ? footprint : n * n;
  const per = (Math.max(strideA, foot) + ldb * n) * 8 + n * 4;
  const mats = triSolveMats(nrhs);
  // at least one fused group a chunk, whatever the size (alone, one right-hand side runs at one chain's latency)
  const chunk = Math.max(Math.min(count, mats), Math.min(count, Math.floor(GEMM_WASM_CHUNK_BYTES / per)));
  const bBase = (((chunk - 1) * strideA + foot) * 8 + 15) & ~15, pivBase = bBase + chunk * ldb * n * 8;
  const { f64 } = heap(pivBase + chunk * n * 4 + 16);
  const ints = heapInts();
  const fn = kernel({ op, n, nrhs, mats, lda, strideA });
  const fn1 = mats === 1 ? fn : kernel({ op, n, nrhs, mats: 1, lda, strideA });
  // packed: the triangle the solve reads (getrs: both)
  const packA = packKernel(op === 'getrs-T' ? { dtype, trans: 'N', direction: 'in', packed: 'float64' }
    : { dtype, trans: 'N', direction: 'in', packed: 'float64', ...(op === 'potrs-lower' ? { lower: true } : { upper: true }) });
  const packB = packKernel({ dtype, trans: 'T', direction: 'in', packed: 'float64' });
  const unpackB = packKernel({ dtype, trans: 'T', direction: 'out', packed: 'float64' });
  for (let q = p0; q < p0 + count; q += chunk) {
    const c = Math.min(chunk, p0 + count - q);
    const A = stridedView(r.a, q);
    const B = stridedView(r.b, q);
    if (asLaid) f64.set(A.data.subarray(A.offset, A.offset + (c - 1) * strideA + footprint));
    else packA(A.data, A.offset, A.ld, A.stride, f64, 0, n, n * n, n, n, c);
    packB(B.data, B.offset, B.ld, B.stride, f64, bBase / 8, ldb, ldb * n, nrhs, n, c);
    // an odd nrhs leaves a padding lane: zeros, not stale values (subnormals there would slow every operation)
    if (ldb !== nrhs) for (let e = bBase / 8 + nrhs, last = bBase / 8 + c * ldb * n; e < last; e += ldb) f64[e] = 0;
    if (pivots) {
      const { ipiv, stride } = pivots;
      if (stride === n) ints.set(ipiv.subarray(q * n, (q + c) * n), pivBase / 4);
      else for (let t = 0; t < c; t++) ints.set(ipiv.subarray((q + t) * stride, (q + t) * stride + n), pivBase / 4 + t * n);
    }
    // groups of `mats` matrices fused, the rest one by one
    const fused = c - (c % mats);
    if (fused > 0) fn(0, bBase, pivBase, fused / mats);
    if (fused < c) fn1(fused * strideA * 8, bBase + fused * ldb * n * 8, pivBase + fused * n * 4, c - fused);
    unpackB(f64, bBase / 8, ldb, ldb * n, B.data, B.offset, B.ld, B.stride, n, nrhs, c);
    r.info.fill(0, q, q + c);
  }
}

export const potrsWasm = (r: PotrsRequest<FloatArray, Int32Array>, first: MatrixView<FloatArray>, p0: number, count: number): void =>
  triSolve(r.uplo === 'upper' ? 'potrs-upper' : 'potrs-lower', r, first, p0, count);

/** getrs 'T' (square; the API checked the pivots). */
export const getrsTransWasm = (r: GetrsRequest<FloatArray, Int32Array>, first: MatrixView<FloatArray>, p0: number, count: number): void =>
  triSolve('getrs-T', r, first, p0, count, { ipiv: r.ipiv, stride: r.pivotStride });
