/**
 * trsm and trmm: generated kernels (kernels/trsm-js.ts) where the triangle's order is at most
 * unrollMax.triangular (bitwise the reference's results); above, up to triangularBlockedMax,
 * blocked over the fast gemm (ops/trsm-blocked.ts), trsm 'left' with the WebAssembly solves as
 * its leaves (ops/trsm-wasm.ts); the reference for the rest, alpha = 0 and empty shapes
 * (plan/trsm.ts).
 */
import { dtypeOfArray, type FloatArray } from '../../core/dtype.js';
import type { TrsmRequest } from '../../core/ops.js';
import { cpuTrmm, cpuTrsm, trmm1, trsm1 } from '../../cpu/blas3.js';
import { kernelFactory } from '../jit/compile.js';
import { generateTrsmJs, type TrsmJsKernel, type TrsmJsParams } from '../kernels/trsm-js.js';
import { cpuTuning } from '../context.js';
import { planTrsm, trsmLeafMax, type TrsmForce } from '../plan/trsm.js';
import type { OpOptions } from '../tuning.js';
import { runBatch, stridedView } from './run-batch.js';
import { triangularBlocked, type Leaf } from './trsm-blocked.js';
import { trsmLeftWasm } from './trsm-wasm.js';

const triangularKernel = kernelFactory<TrsmJsParams, TrsmJsKernel>(generateTrsmJs);

export type TrsmOptions = OpOptions<TrsmForce>;

function triangular(op: 'trsm' | 'trmm', r: TrsmRequest<FloatArray>, fallback: (r: TrsmRequest<FloatArray>) => void, options: TrsmOptions = {}): void {
  const tuning = options.tuning ?? cpuTuning();
  const one = op === 'trsm' ? trsm1 : trmm1;
  const shape = { op, side: r.side, uplo: r.uplo, transA: r.transA, diag: r.diag };
  const left = r.side === 'left';
  const leaf: Leaf = (A, B, m, n, alpha, count) => {
    const fn = triangularKernel({ ...shape, s: left ? m : n, dtype: dtypeOfArray(B.data, 'b.data') });
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
      const dtype = dtypeOfArray(b.data, 'b.data');
      const variant = planTrsm({ op, side: r.side, rows: b.rows, cols: b.cols, alpha: r.alpha, dtype }, tuning, options.force);
      if (variant === 'reference') return false;
      // blockedWasm: the WebAssembly solve up to trsmLeftWasm.max (bitwise the reference), above
      // it the blocked trsm with the WebAssembly solve as its leaf
      triangularBlocked(shape, stridedView(r.a, p0), stridedView(r.b, p0), b.rows, b.cols, r.alpha, count,
        trsmLeafMax(variant, tuning, dtype), variant === 'blockedWasm' ? wasmLeaf : leaf);
      return true;
    },
    fallback,
  });
}

export const fastTrsm = (r: TrsmRequest<FloatArray>, options?: TrsmOptions): void => triangular('trsm', r, cpuTrsm, options);
export const fastTrmm = (r: TrsmRequest<FloatArray>, options?: TrsmOptions): void => triangular('trmm', r, cpuTrmm, options);
