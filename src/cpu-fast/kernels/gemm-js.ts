/**
 * Generated gemm for tiny sizes (m, n, k <= unrollMax.gemm), unrolled JavaScript: op(A) is held
 * in locals for the whole matrix and every loaded element of op(B) is used for a whole column of
 * C (the seed paper's register blocking, section 4.1, with A rather than B resident because
 * our matrices are column-major). The batch loop is inside.
 *
 * The arithmetic is reference dgemm's (src/cpu/gemm.ts) in the same order, and float32 results
 * are rounded where the reference stores into its Float32Array, so results are bitwise the
 * reference's. alpha = 0 and k = 0 are left to the reference; beta = 0 never reads C.
 */
import type { DType } from '../../core/dtype.js';
import { jsRound } from '../../core/dtype-table.js';
import type { Op } from '../../core/ops.js';
import { Emitter, type JsKernelSource } from '../jit/compile.js';

export interface GemmJsParams {
  readonly transA: Op;
  readonly transB: Op;
  readonly m: number;
  readonly n: number;
  readonly k: number;
  readonly dtype: DType;
}

export const GEMM_JS_PARAMS = [
  'A', 'aOff', 'lda', 'aStride', 'B', 'bOff', 'ldb', 'bStride', 'C', 'cOff', 'ldc', 'cStride', 'alpha', 'beta', 'count',
] as const;

export type GemmJsKernel = (
  A: Float64Array | Float32Array, aOff: number, lda: number, aStride: number,
  B: Float64Array | Float32Array, bOff: number, ldb: number, bStride: number,
  C: Float64Array | Float32Array, cOff: number, ldc: number, cStride: number,
  alpha: number, beta: number, count: number,
) => void;

export function generateGemmJs(p: GemmJsParams): JsKernelSource {
  const { m, n, k } = p;
  // Rounding where the reference stores an intermediate into a Float32Array C.
  const store = (v: string): string => jsRound(p.dtype, v);
  const opA = (i: number, l: number): string => (p.transA === 'N' ? `A[ao + ${i} + ${l} * lda]` : `A[ao + ${l} + ${i} * lda]`);
  const opB = (l: number, j: number): string => (p.transB === 'N' ? `B[bo + ${l} + ${j} * ldb]` : `B[bo + ${j} + ${l} * ldb]`);
  const e = new Emitter();
  e.line(`// myriad gemm ${p.transA}${p.transB} m=${m} n=${n} k=${k} dtype=${p.dtype}`);
  e.open('for (let p = 0; p < count; p++) {');
  e.line('const ao = aOff + p * aStride, bo = bOff + p * bStride, co = cOff + p * cStride;');
  for (let l = 0; l < k; l++) for (let i = 0; i < m; i++) e.line(`const a_${i}_${l} = ${opA(i, l)};`);
  e.line('let t = 0;');
  if (p.transA === 'N') e.line(`let ${Array.from({ length: m }, (_, i) => `c_${i} = 0`).join(', ')};`);
  for (let j = 0; j < n; j++) {
    const c = (i: number): string => `C[co + ${i} + ${j} * ldc]`;
    if (p.transA === 'N') {
      // dgemm 'N': scale the column by beta, then axpy with alpha op(B)(l, j) for each l.
      for (let i = 0; i < m; i++) e.line(`c_${i} = beta === 0 ? 0 : beta === 1 ? ${c(i)} : ${store(`${c(i)} * beta`)};`);
      for (let l = 0; l < k; l++) {
        e.line(`t = alpha * ${opB(l, j)};`);
        for (let i = 0; i < m; i++) e.line(`c_${i} = ${store(`c_${i} + t * a_${i}_${l}`)};`);
      }
      for (let i = 0; i < m; i++) e.line(`${c(i)} = c_${i};`);
    } else {
      // dgemm 'T': a dot product per element, then alpha t (+ beta C).
      for (let l = 0; l < k; l++) e.line(`const b_${l}_${j} = ${opB(l, j)};`);
      for (let i = 0; i < m; i++) {
        const dot = ['0', ...Array.from({ length: k }, (_, l) => `a_${i}_${l} * b_${l}_${j}`)].join(' + ');
        e.line(`t = ${dot};`);
        e.line(`${c(i)} = beta === 0 ? alpha * t : alpha * t + beta * ${c(i)};`);
      }
    }
  }
  e.close();
  return { params: GEMM_JS_PARAMS, body: e.toString() };
}
