/**
 * trsm, trmm and syrk: generated kernels (kernels/trsm-js.ts, kernels/syrk-js.ts) where the
 * triangle's order is at most unrollMax.triangular / unrollMax.syrk (bitwise the reference's
 * results); trsm/trmm above, up to triangularBlockedMax, blocked over the fast gemm
 * (ops/trsm-blocked.ts), and syrk up to syrkBlockedMax likewise (syrkBlocked); the
 * reference for the rest, alpha = 0 and empty shapes.
 */
import type { StridedBatch } from '../../core/batch.js';
import type { DType, FloatArray } from '../../core/dtype.js';
import type { SyrkRequest, TrsmRequest } from '../../core/ops.js';
import { cpuSyrk, cpuTrmm, cpuTrsm, trmm1, trsm1 } from '../../cpu/blas3.js';
import { kernelFactory } from '../jit/compile.js';
import { generateSyrk, type SyrkKernel, type SyrkParams } from '../kernels/syrk-js.js';
import { generateTriangular, type TriangularKernelFn, type TriangularParams } from '../kernels/trsm-js.js';
import { cpuTuning } from '../context.js';
import { planSyrk, type SyrkForce } from '../plan/syrk.js';
import { planTriangular, triangularLeafMax, type TriangularForce } from '../plan/trsm.js';
import type { CpuTuning } from '../tuning.js';
import { runBatch, stridedView } from './run-batch.js';
import { fastGemm } from './gemm.js';
import { triangularBlocked, type Leaf, type Run } from './trsm-blocked.js';
import { trsmLeftWasm } from './trsm-wasm.js';

const triangularKernel = kernelFactory<TriangularParams, TriangularKernelFn>(generateTriangular);
const syrkKernel = kernelFactory<SyrkParams, SyrkKernel>(generateSyrk);
const dtypeOf = (a: FloatArray): DType => (a instanceof Float32Array ? 'float32' : 'float64');

/** What a caller may fix for tests, benchmarks and sweeps: the design, or the whole table. */
export interface TriangularOptions { readonly force?: TriangularForce; readonly tuning?: CpuTuning }
export interface SyrkOptions { readonly force?: SyrkForce; readonly tuning?: CpuTuning }

function triangular(op: 'trsm' | 'trmm', r: TrsmRequest<FloatArray>, fallback: (r: TrsmRequest<FloatArray>) => void, options: TriangularOptions = {}): void {
  const tuning = options.tuning ?? cpuTuning();
  const one = op === 'trsm' ? trsm1 : trmm1;
  const shape = { op, side: r.side, uplo: r.uplo, transA: r.transA, diag: r.diag };
  const left = r.side === 'left';
  const leaf: Leaf = (A, B, m, n, alpha, count) => {
    const fn = triangularKernel({ ...shape, s: left ? m : n, dtype: dtypeOf(B.data) });
    // The reference on one matrix of this run (one whose triangle holds an exact zero, 'right').
    const slow = (p: number): void => one(r.side, r.uplo, r.transA, r.diag, m, n, alpha,
      A.data, A.offset + p * A.stride, A.ld, B.data, B.offset + p * B.stride, B.ld);
    fn(A.data, A.offset, A.ld, A.stride, B.data, B.offset, B.ld, B.stride, left ? n : m, alpha, count, slow);
  };
  const wasmLeaf: Leaf = (A, B, m, n, alpha, count) => (m > tuning.unrollMax.triangular
    ? trsmLeftWasm(r.uplo, r.transA, r.diag, A, B, m, n, alpha, count) : leaf(A, B, m, n, alpha, count));
  runBatch(r, {
    shapeOf: r.b,
    kernel(b, p0, count): boolean {
      const dtype = dtypeOf(b.data);
      const variant = planTriangular({ op, side: r.side, rows: b.rows, cols: b.cols, alpha: r.alpha, dtype }, tuning, options.force);
      if (variant === 'reference') return false;
      // blockedWasm: the WebAssembly solve up to trsmLeftWasm.max (bitwise the reference), above
      // it the blocked trsm with the WebAssembly solve as its leaf
      triangularBlocked(shape, stridedView(r.a, p0), stridedView(r.b, p0), b.rows, b.cols, r.alpha, count,
        triangularLeafMax(variant, tuning, dtype), variant === 'blockedWasm' ? wasmLeaf : leaf);
      return true;
    },
    fallback,
  });
}

export const fastTrsm = (r: TrsmRequest<FloatArray>, options?: TriangularOptions): void => triangular('trsm', r, cpuTrsm, options);
export const fastTrmm = (r: TrsmRequest<FloatArray>, options?: TriangularOptions): void => triangular('trmm', r, cpuTrmm, options);

export function fastSyrk(r: SyrkRequest<FloatArray>, options: SyrkOptions = {}): void {
  const tuning = options.tuning ?? cpuTuning();
  runBatch(r, {
    shapeOf: r.c,
    kernel(c, p0, count): boolean {
      const A = stridedView(r.a, p0);
      const k = r.trans === 'N' ? A.cols : A.rows;
      if (planSyrk({ n: c.rows, k, alpha: r.alpha }, tuning, options.force) === 'reference') return false;
      syrkBlocked(r, A, stridedView(r.c, p0), c.rows, k, count, tuning.unrollMax.syrk);
      return true;
    },
    fallback: cpuSyrk,
  });
}

/**
 * C's triangle halved recursively down to the unrolled kernel; the off-diagonal block is one
 * batched gemm on the fast gemm: C21 := alpha op(A)_2 op(A)_1^T + beta C21 ('lower'; C12 for
 * 'upper'). Not bitwise the reference above unrollMax.syrk (gemm's order of additions).
 */
function syrkBlocked(r: SyrkRequest<FloatArray>, A: Run, C: Run, n: number, k: number, count: number, leafMax: number): void {
  if (n <= leafMax) {
    const fn = syrkKernel({ uplo: r.uplo, trans: r.trans, n, dtype: dtypeOf(C.data) });
    fn(A.data, A.offset, A.ld, A.stride, C.data, C.offset, C.ld, C.stride, k, r.alpha, r.beta, count);
    return;
  }
  const n1 = n >> 1, n2 = n - n1;
  // Rows (trans 'N') or columns ('T') i0.. of A: op(A)'s rows i0...
  const part = (i0: number): Run => ({ ...A, offset: A.offset + (r.trans === 'N' ? i0 : i0 * A.ld) });
  const at = (i: number, j: number): Run => ({ ...C, offset: C.offset + i + j * C.ld });
  const view = (x: Run, rows: number, cols: number): StridedBatch<FloatArray> =>
    ({ kind: 'strided', data: x.data, offset: x.offset, ld: x.ld, stride: x.stride, rows, cols, count, order: 'col' });
  const aShape = (m: number): [number, number] => (r.trans === 'N' ? [m, k] : [k, m]);
  syrkBlocked(r, part(0), C, n1, k, count, leafMax);
  const lower = r.uplo === 'lower';
  // lower: C21 (n2 x n1) from op(A)_2 op(A)_1^T; upper: C12 (n1 x n2) from op(A)_1 op(A)_2^T.
  const [first, second, m1, m2] = lower ? [part(n1), part(0), n2, n1] : [part(0), part(n1), n1, n2];
  fastGemm({
    transA: r.trans, transB: r.trans === 'N' ? 'T' : 'N', alpha: r.alpha, beta: r.beta,
    a: view(first, ...aShape(m1)), b: view(second, ...aShape(m2)), c: view(lower ? at(n1, 0) : at(0, n1), m1, m2),
  });
  syrkBlocked(r, part(n1), at(n1, n1), n2, k, count, leafMax);
}
