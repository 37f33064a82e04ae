/**
 * syrk: C's triangle halved recursively over the fast gemm down to the generated kernel
 * (kernels/syrk-js.ts, the triangle in locals, bitwise the reference's) up to syrkBlockedMax;
 * the reference for the rest, alpha = 0, k = 0 and empty C (plan/syrk.ts).
 */
import type { StridedBatch } from '../../core/batch.js';
import { dtypeOfArray, type FloatArray } from '../../core/dtype.js';
import type { SyrkRequest } from '../../core/ops.js';
import { cpuSyrk } from '../../cpu/blas3.js';
import { cpuTuning } from '../context.js';
import { kernelFactory } from '../jit/compile.js';
import { generateSyrkJs, type SyrkJsKernel, type SyrkJsParams } from '../kernels/syrk-js.js';
import { planSyrk, type SyrkForce } from '../plan/syrk.js';
import type { OpOptions } from '../tuning.js';
import { fastGemm } from './gemm.js';
import { runBatch, stridedView } from './run-batch.js';
import type { Run } from './trsm-blocked.js';

const syrkKernel = kernelFactory<SyrkJsParams, SyrkJsKernel>(generateSyrkJs);

export type SyrkOptions = OpOptions<SyrkForce>;

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
    const fn = syrkKernel({ uplo: r.uplo, trans: r.trans, n, dtype: dtypeOfArray(C.data, 'c.data') });
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
