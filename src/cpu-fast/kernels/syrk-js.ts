/**
 * Generated syrk for one order n, triangle, transpose and dtype: the whole triangle of C in
 * locals, the k loop outside (one column of A, 'N', or one row, 'T', loaded per step and used
 * for every element of the triangle it reaches), so C is read and written once per matrix.
 *
 * The arithmetic per element is the reference's (src/cpu/syrk.ts) in the same order: 'N' scales
 * C by beta, then adds (alpha A(j, l)) A(i, l) for each l, skipping an A(j, l) that is exactly
 * zero as dsyrk does, and rounds every update for float32 data where the reference stores it;
 * 'T' sums A(l, i) A(l, j) from 0 in float64 and stores alpha t (+ beta C) once. Bitwise the
 * reference's. beta = 0 never reads C; alpha = 0 and k = 0 are left to the reference.
 */
import type { DType } from '../../core/dtype.js';
import { jsRound } from '../../core/dtype-table.js';
import type { Uplo } from '../../core/enums.js';
import type { Op } from '../../core/ops.js';
import { Emitter, type JsKernelSource } from '../jit/compile.js';

export interface SyrkJsParams {
  readonly uplo: Uplo;
  readonly trans: Op;
  readonly n: number;
  readonly dtype: DType;
}

export const SYRK_PARAMS = ['A', 'aOff', 'lda', 'aStride', 'C', 'cOff', 'ldc', 'cStride', 'k', 'alpha', 'beta', 'count'] as const;

export type SyrkJsKernel = (
  A: Float64Array | Float32Array, aOff: number, lda: number, aStride: number,
  C: Float64Array | Float32Array, cOff: number, ldc: number, cStride: number,
  k: number, alpha: number, beta: number, count: number,
) => void;

const c = (i: number, j: number): string => `c_${i}_${j}`;

export function generateSyrkJs(p: SyrkJsParams): JsKernelSource {
  const { n } = p;
  const upper = p.uplo === 'upper';
  const st = (v: string): string => jsRound(p.dtype, v);
  /** The rows of column j in the triangle. */
  const rows = (j: number): number[] => Array.from({ length: upper ? j + 1 : n - j }, (_, t) => (upper ? t : j + t));
  const cell = (i: number, j: number): string => `C[co + ${i} + ${j} * ldc]`;
  const e = new Emitter();
  e.line(`// myriad syrk uplo=${p.uplo} trans=${p.trans} n=${n} dtype=${p.dtype}`);
  e.line('let t = 0;');
  e.open('for (let p = 0; p < count; p++) {');
  e.line('const ao = aOff + p * aStride, co = cOff + p * cStride;');
  if (p.trans === 'N') {
    for (let j = 0; j < n; j++) for (const i of rows(j))
      e.line(`let ${c(i, j)} = beta === 0 ? 0 : beta === 1 ? ${cell(i, j)} : ${st(`${cell(i, j)} * beta`)};`);
    e.open('for (let l = 0; l < k; l++) {');
    e.line('const al = ao + l * lda;');
    for (let i = 0; i < n; i++) e.line(`const a_${i} = A[al + ${i}];`);
    for (let j = 0; j < n; j++) {
      e.open(`if (a_${j} !== 0) {`);
      e.line(`t = alpha * a_${j};`);
      for (const i of rows(j)) e.line(`${c(i, j)} = ${st(`${c(i, j)} + t * a_${i}`)};`);
      e.close();
    }
    e.close();
    for (let j = 0; j < n; j++) for (const i of rows(j)) e.line(`${cell(i, j)} = ${c(i, j)};`);
  } else {
    for (let j = 0; j < n; j++) for (const i of rows(j)) e.line(`let ${c(i, j)} = 0;`);
    e.open('for (let l = 0; l < k; l++) {');
    e.line('const al = ao + l;');
    for (let i = 0; i < n; i++) e.line(`const a_${i} = A[al + ${i} * lda];`);
    for (let j = 0; j < n; j++) for (const i of rows(j)) e.line(`${c(i, j)} = ${c(i, j)} + a_${i} * a_${j};`);
    e.close();
    e.open('if (beta === 0) {');
    for (let j = 0; j < n; j++) for (const i of rows(j)) e.line(`${cell(i, j)} = alpha * ${c(i, j)};`);
    e.middle('} else {');
    for (let j = 0; j < n; j++) for (const i of rows(j)) e.line(`${cell(i, j)} = alpha * ${c(i, j)} + beta * ${cell(i, j)};`);
    e.close();
  }
  e.close();
  return { params: SYRK_PARAMS, body: e.toString() };
}
