/**
 * trsm, trmm and syrk: generated kernels (kernels/triangular.ts, kernels/syrk.ts) where the
 * triangle's order is at most UNROLL_MAX.triangular / UNROLL_MAX.syrk (bitwise the reference's
 * results); trsm/trmm above, up to TRIANGULAR_BLOCKED_MAX, blocked over the fast gemm
 * (ops/triangular-blocked.ts); the reference for the rest, alpha = 0 and empty shapes.
 */
import type { DType, FloatArray } from '../../core/dtype.js';
import type { SyrkRequest, TrsmRequest } from '../../core/ops.js';
import { cpuSyrk, cpuTrmm, cpuTrsm, trmm1, trsm1 } from '../../cpu/blas3.js';
import { kernelFactory } from '../jit/compile.js';
import { generateSyrk, type SyrkKernel, type SyrkParams } from '../kernels/syrk.js';
import { generateTriangular, type TriangularKernelFn, type TriangularParams } from '../kernels/triangular.js';
import { TRIANGULAR_BLOCKED_MAX, UNROLL_MAX } from '../tuning.js';
import { runBatch, stridedView } from './run-batch.js';
import { triangularBlocked, type Leaf } from './triangular-blocked.js';

const triangularKernel = kernelFactory<TriangularParams, TriangularKernelFn>(generateTriangular);
const syrkKernel = kernelFactory<SyrkParams, SyrkKernel>(generateSyrk);
const dtypeOf = (a: FloatArray): DType => (a instanceof Float32Array ? 'float32' : 'float64');

function triangular(op: 'trsm' | 'trmm', r: TrsmRequest<FloatArray>, fallback: (r: TrsmRequest<FloatArray>) => void): void {
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
  runBatch(r, {
    shapeOf: r.b,
    kernel(b, p0, count): boolean {
      const s = left ? b.rows : b.cols;
      if (r.alpha === 0 || b.rows === 0 || b.cols === 0 || s > TRIANGULAR_BLOCKED_MAX) return false;
      triangularBlocked(shape, stridedView(r.a, p0), stridedView(r.b, p0), b.rows, b.cols, r.alpha, count, UNROLL_MAX.triangular, leaf);
      return true;
    },
    fallback,
  });
}

export const fastTrsm = (r: TrsmRequest<FloatArray>): void => triangular('trsm', r, cpuTrsm);
export const fastTrmm = (r: TrsmRequest<FloatArray>): void => triangular('trmm', r, cpuTrmm);

export function fastSyrk(r: SyrkRequest<FloatArray>): void {
  runBatch(r, {
    shapeOf: r.c,
    kernel(c, p0, count): boolean {
      const a = stridedView(r.a, p0);
      const k = r.trans === 'N' ? a.cols : a.rows;
      if (r.alpha === 0 || k === 0 || c.rows === 0 || c.rows > UNROLL_MAX.syrk) return false;
      const fn = syrkKernel({ uplo: r.uplo, trans: r.trans, n: c.rows, dtype: dtypeOf(c.data) });
      const C = stridedView(r.c, p0);
      fn(a.data, a.offset, a.ld, a.stride, C.data, C.offset, C.ld, C.stride, k, r.alpha, r.beta, count);
      return true;
    },
    fallback: cpuSyrk,
  });
}
