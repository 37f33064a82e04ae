/**
 * gemm: WebAssembly SIMD register blocks (kernels/gemm-wasm.ts) on chunks of matrices copied into
 * the module's memory, one kernel call per chunk; unrolled JavaScript (bitwise the reference)
 * only for tiny matrices called one at a time, where a chunk's copies and call cost more than
 * the arithmetic. alpha = 0, k = 0 and empty C go to the reference.
 *
 * Batches are cut into runs of one shape (a whole strided or list batch is one run; a variable
 * batch one run per stretch of equal shapes): a run of list or variable matrices is gathered
 * into the chunk matrix by matrix, so it too costs one kernel call per chunk.
 */
import { batchCount, matrixAt, type Batch } from '../../core/batch.js';
import { dtypeOfArray, type DType, type FloatArray } from '../../core/dtype.js';
import { byPrecision, dtypeInfo } from '../../core/dtype-table.js';
import type { GemmRequest, Op } from '../../core/ops.js';
import { cpuGemm } from '../../cpu/blas3.js';
import { kernelFactory, moduleFactory } from '../jit/compile.js';
import { generateGemmJs, type GemmJsKernel, type GemmJsParams } from '../kernels/gemm-js.js';
import { generateGemmWasm, type GemmWasmParams } from '../kernels/gemm-wasm.js';
import { gemmWasmParamsFor, planGemm, type GemmForce, type GemmVariant } from '../plan/gemm.js';
import { generatePack, type PackKernel, type PackParams } from '../kernels/pack.js';
import { sliceRequest } from '../split.js';
import { cpuTuning, fmaFor, wasmChunk } from '../context.js';
import { heap, loadModule } from '../wasm/runtime.js';
import { stridedView } from './run-batch.js';

type WasmGemm = (a: number, b: number, c: number, count: number, alpha: number, beta: number) => void;
const jsKernel = kernelFactory<GemmJsParams, GemmJsKernel>(generateGemmJs);
const wasmKernel = moduleFactory<GemmWasmParams, WasmGemm>(generateGemmWasm, 'gemm', loadModule);
const packKernel = kernelFactory<PackParams, PackKernel>(generatePack);

const pack = (dtype: DType, trans: Op, direction: 'in' | 'out' = 'in'): PackKernel =>
  packKernel({ dtype, trans, direction, packed: dtype });

/** The WebAssembly kernel's parameters for a shape (tile and blocking from the tuning table). */
export const gemmWasmParams = (m: number, n: number, k: number, dtype: DType, transB: Op, fma = fmaFor('gemm', Math.max(m, n, k))): GemmWasmParams =>
  gemmWasmParamsFor(cpuTuning(), m, n, k, dtype, transB, fma);

/** The variant for a run: the tuning table's JavaScript sizes only for matrices called one at a time. */
export const selectGemm = (m: number, n: number, k: number, dtype: DType, strided: boolean, force?: GemmForce): GemmVariant =>
  planGemm({ m, n, k, dtype, strided }, cpuTuning(), force);

interface Run { p0: number; count: number; m: number; n: number; k: number; strided: boolean }

/**
 * Copies a chunk of matrices into the wasm memory (one block copy for each strided operand the
 * caller holds back to back, column by column otherwise, op(A) = A^T transposed on the way),
 * runs the kernel, copies C back.
 */
function gemmWasm(r: GemmRequest<FloatArray>, run: Run): void {
  const { m, n, k, p0, count } = run;
  const dtype = dtypeOfArray(matrixAt(r.c, p0).data, 'c.data');
  const E = dtypeInfo(dtype).bytes;
  const [bRows, bCols] = r.transB === 'N' ? [k, n] : [n, k];
  const params = gemmWasmParams(m, n, k, dtype, r.transB);
  const { lda } = params;
  const per = lda * k + k * n + m * n;
  const chunk = wasmChunk(count, per * E);
  // a vector of slack after C: the last column's partial vector is read whole
  const views = heap((chunk * per + 4) * E + 64);
  const mem = byPrecision<FloatArray>(dtype, { double: views.f64, single: views.f32 });
  const aBase = 0, bBase = chunk * lda * k, cBase = bBase + chunk * k * n;
  const fn = wasmKernel(params);
  const packA = pack(dtype, r.transA), copyIn = pack(dtype, 'N'), copyOut = pack(dtype, 'N', 'out');
  if (run.strided) {
    const A = stridedView(r.a, p0), B = stridedView(r.b, p0), C = stridedView(r.c, p0);
    for (let q = 0; q < count; q += chunk) {
      const c = Math.min(chunk, count - q);
      packA(A.data, A.offset + q * A.stride, A.ld, A.stride, mem, aBase, lda, lda * k, m, k, c);
      copyIn(B.data, B.offset + q * B.stride, B.ld, B.stride, mem, bBase, bRows, k * n, bRows, bCols, c);
      if (r.beta !== 0) copyIn(C.data, C.offset + q * C.stride, C.ld, C.stride, mem, cBase, m, m * n, m, n, c);
      fn(aBase * E, bBase * E, cBase * E, c, r.alpha, r.beta);
      copyOut(mem, cBase, m, m * n, C.data, C.offset + q * C.stride, C.ld, C.stride, m, n, c);
    }
    return;
  }
  for (let q = 0; q < count; q += chunk) {
    const c = Math.min(chunk, count - q);
    for (let i = 0; i < c; i++) {
      const A = matrixAt(r.a, p0 + q + i), B = matrixAt(r.b, p0 + q + i);
      packA(A.data, A.offset, A.ld, 0, mem, aBase + i * lda * k, lda, 0, m, k, 1);
      copyIn(B.data, B.offset, B.ld, 0, mem, bBase + i * k * n, bRows, 0, bRows, bCols, 1);
      if (r.beta !== 0) {
        const C = matrixAt(r.c, p0 + q + i);
        copyIn(C.data, C.offset, C.ld, 0, mem, cBase + i * m * n, m, 0, m, n, 1);
      }
    }
    fn(aBase * E, bBase * E, cBase * E, c, r.alpha, r.beta);
    for (let i = 0; i < c; i++) {
      const C = matrixAt(r.c, p0 + q + i);
      copyOut(mem, cBase + i * m * n, m, 0, C.data, C.offset, C.ld, 0, m, n, 1);
    }
  }
}

/** Unrolled JavaScript on the caller's arrays: the whole run in one call where strided, else matrix by matrix. */
function gemmJs(r: GemmRequest<FloatArray>, run: Run): void {
  const { m, n, k, p0, count } = run;
  const fn = jsKernel({ transA: r.transA, transB: r.transB, m, n, k, dtype: dtypeOfArray(matrixAt(r.c, p0).data, 'c.data') });
  for (let p = p0; p < p0 + (run.strided ? 1 : count); p++) {
    const A = stridedView(r.a, p), B = stridedView(r.b, p), C = stridedView(r.c, p);
    fn(A.data, A.offset, A.ld, A.stride, B.data, B.offset, B.ld, B.stride, C.data, C.offset, C.ld, C.stride, r.alpha, r.beta, run.strided ? count : 1);
  }
}

/** The shape of matrix p: C's m x n and the inner dimension from op(A). */
function shapeAt(r: GemmRequest<FloatArray>, p: number): { m: number; n: number; k: number } {
  const c = matrixAt(r.c, p);
  const a = matrixAt(r.a, p);
  return { m: c.rows, n: c.cols, k: r.transA === 'N' ? a.cols : a.rows };
}

const isStrided = (b: Batch<FloatArray>): boolean => b.kind === 'strided';

export function fastGemm(r: GemmRequest<FloatArray>): void {
  const count = batchCount(r.c);
  if (count === 0) return;
  if (r.alpha === 0) return cpuGemm(r);
  const strided = isStrided(r.a) && isStrided(r.b) && isStrided(r.c);
  const uniform = r.a.kind !== 'variable' && r.b.kind !== 'variable' && r.c.kind !== 'variable';
  for (let p0 = 0; p0 < count;) {
    const s = shapeAt(r, p0);
    let p1 = p0 + 1;
    if (uniform) p1 = count;
    else {
      for (; p1 < count; p1++) {
        const t = shapeAt(r, p1);
        if (t.m !== s.m || t.n !== s.n || t.k !== s.k) break;
      }
    }
    const run: Run = { p0, count: p1 - p0, ...s, strided };
    if (s.k === 0 || s.m === 0 || s.n === 0) cpuGemm(sliceRequest(r, p0, p1));
    else if (selectGemm(s.m, s.n, s.k, dtypeOfArray(matrixAt(r.c, p0).data, 'c.data'), strided) === 'js') gemmJs(r, run);
    else gemmWasm(r, run);
    p0 = p1;
  }
}
