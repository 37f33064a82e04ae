/**
 * Generated trsm and trmm for one triangle size, variant and dtype: A's triangle in locals for
 * the whole matrix, and one vector of B at a time in locals (a column of B for side 'left', a
 * row for 'right'), so each element of A and B is loaded once and stored once per matrix. The
 * other dimension of B (and the batch) is a loop: B may be rectangular.
 *
 * The arithmetic is the reference's (src/cpu/trsm.ts, trmm.ts) operation for operation, per
 * element in the same order, and for float32 data every value the reference stores into B is
 * rounded where it stores it, so results are bitwise the reference's, zero shortcuts included:
 * the 'left' kernels skip a vector element that is exactly zero as the reference does; the
 * 'right' kernels call `slow(p)` (the reference on matrix p) for a matrix whose triangle holds
 * an exact zero off the diagonal, which the reference skips. alpha = 0 is left to the reference.
 */
import type { DType } from '../../core/dtype.js';
import { jsRound } from '../../core/dtype-table.js';
import type { Diag, Side, Uplo } from '../../core/enums.js';
import type { Op } from '../../core/ops.js';
import { Emitter, type JsKernelSource } from '../jit/compile.js';

export interface TrsmJsParams {
  readonly op: 'trsm' | 'trmm';
  readonly side: Side;
  readonly uplo: Uplo;
  readonly transA: Op;
  readonly diag: Diag;
  /** The order of A: B's rows for 'left', its columns for 'right'. */
  readonly s: number;
  readonly dtype: DType;
}

/** `other`: B's columns ('left') or rows ('right'). */
export const TRIANGULAR_PARAMS = ['A', 'aOff', 'lda', 'aStride', 'B', 'bOff', 'ldb', 'bStride', 'other', 'alpha', 'count', 'slow'] as const;

export type TrsmJsKernel = (
  A: Float64Array | Float32Array, aOff: number, lda: number, aStride: number,
  B: Float64Array | Float32Array, bOff: number, ldb: number, bStride: number,
  other: number, alpha: number, count: number, slow: (p: number) => void,
) => void;

const a = (i: number, j: number): string => `a_${i}_${j}`;
const x = (i: number): string => `x_${i}`;
const range = (lo: number, hi: number): number[] => Array.from({ length: Math.max(0, hi - lo) }, (_, t) => lo + t);

export function generateTrsmJs(p: TrsmJsParams): JsKernelSource {
  const { s, side } = p;
  const upper = p.uplo === 'upper';
  const nonunit = p.diag === 'nonunit';
  const left = side === 'left';
  // A value the reference stores into B (float32 data: rounded there).
  const st = (v: string): string => jsRound(p.dtype, v);
  const e = new Emitter();
  e.line(`// myriad ${p.op} side=${side} uplo=${p.uplo} trans=${p.transA} diag=${p.diag} s=${s} dtype=${p.dtype}`);
  e.line('let t = 0;');
  e.open('for (let p = 0; p < count; p++) {');
  e.line('const o = aOff + p * aStride;');
  const tri = (i: number, j: number): boolean => (upper ? i < j : i > j) || (nonunit && i === j);
  for (let j = 0; j < s; j++) for (let i = 0; i < s; i++) if (tri(i, j)) e.line(`const ${a(i, j)} = A[o + ${i} + ${j} * lda];`);
  if (!left) {
    const offDiagonal = range(0, s).flatMap((j) => range(0, s).filter((i) => i !== j && tri(i, j)).map((i) => `${a(i, j)} === 0`));
    if (offDiagonal.length > 0) e.line(`if (${offDiagonal.join(' || ')}) { slow(p); continue; }`);
    constantsRight(e, p);
  }
  e.line('const bo = bOff + p * bStride;');
  e.open('for (let c = 0; c < other; c++) {');
  const at = (i: number): string => (left ? `B[q + ${i}]` : `B[q + ${i} * ldb]`);
  e.line(left ? 'const q = bo + c * ldb;' : 'const q = bo + c;');
  for (let i = 0; i < s; i++) e.line(`let ${x(i)} = ${at(i)};`);
  const body = p.op === 'trsm' ? (left ? trsmLeft : trsmRight) : (left ? trmmLeft : trmmRight);
  body(e, { s, upper, nonunit, transA: p.transA }, st);
  for (let i = 0; i < s; i++) e.line(`${at(i)} = ${x(i)};`);
  e.close();
  e.close();
  return { params: TRIANGULAR_PARAMS, body: e.toString() };
}

/** The variant as the bodies read it. */
interface Variant { s: number; upper: boolean; nonunit: boolean; transA: Op }
type Body = (e: Emitter, v: Variant, st: (v: string) => string) => void;

/** Per-matrix scalars of the 'right' variants: 1 / A(j, j) (trsm), alpha A(k, j) (trmm). */
function constantsRight(e: Emitter, p: TrsmJsParams): void {
  const upper = p.uplo === 'upper';
  for (let j = 0; j < p.s; j++) {
    if (p.op === 'trsm') {
      if (p.diag === 'nonunit') e.line(`const r_${j} = 1 / ${a(j, j)};`);
      continue;
    }
    if (p.diag === 'nonunit') e.line(`const d_${j} = alpha * ${a(j, j)};`);
    for (const k of upper ? range(0, j) : range(j + 1, p.s)) e.line(`const g_${k}_${j} = alpha * ${a(k, j)};`);
  }
}

/** trsm 'left': op(A) x = alpha b, one column of B. */
const trsmLeft: Body = (e, { s, upper, nonunit, transA }, st) => {
  if (transA === 'N') {
    for (let i = 0; i < s; i++) e.line(`${x(i)} = ${st(`${x(i)} * alpha`)};`);
    for (let step = 0; step < s; step++) {
      const k = upper ? s - 1 - step : step;
      const rows = upper ? range(0, k) : range(k + 1, s);
      if (!nonunit && rows.length === 0) continue;
      e.open(`if (${x(k)} !== 0) {`);
      // t is the reference's xk: unrounded after the division, used by the axpy.
      e.line(nonunit ? `t = ${x(k)} / ${a(k, k)}; ${x(k)} = ${st('t')};` : `t = ${x(k)};`);
      for (const i of rows) e.line(`${x(i)} = ${st(`${x(i)} + -t * ${a(i, k)}`)};`);
      e.close();
    }
    return;
  }
  for (let step = 0; step < s; step++) {
    const i = upper ? step : s - 1 - step;
    const terms = (upper ? range(0, i) : range(i + 1, s)).map((k) => ` - ${a(k, i)} * ${x(k)}`).join('');
    const t = `alpha * ${x(i)}${terms}`;
    e.line(`${x(i)} = ${st(nonunit ? `(${t}) / ${a(i, i)}` : t)};`);
  }
};

/** trsm 'right': x op(A) = alpha b, one row of B. */
const trsmRight: Body = (e, { s, upper, nonunit, transA }, st) => {
  if (transA === 'N') {
    for (let step = 0; step < s; step++) {
      const j = upper ? step : s - 1 - step;
      e.line(`${x(j)} = ${st(`${x(j)} * alpha`)};`);
      for (const k of upper ? range(0, j) : range(j + 1, s)) e.line(`${x(j)} = ${st(`${x(j)} + -${a(k, j)} * ${x(k)}`)};`);
      if (nonunit) e.line(`${x(j)} = ${st(`${x(j)} * r_${j}`)};`);
    }
    return;
  }
  for (let step = 0; step < s; step++) {
    const k = upper ? s - 1 - step : step;
    if (nonunit) e.line(`${x(k)} = ${st(`${x(k)} * r_${k}`)};`);
    for (const j of upper ? range(0, k) : range(k + 1, s)) e.line(`${x(j)} = ${st(`${x(j)} + -${a(j, k)} * ${x(k)}`)};`);
    e.line(`${x(k)} = ${st(`${x(k)} * alpha`)};`);
  }
};

/** trmm 'left': b := alpha op(A) b, one column of B. */
const trmmLeft: Body = (e, { s, upper, nonunit, transA }, st) => {
  if (transA === 'N') {
    for (let step = 0; step < s; step++) {
      const k = upper ? step : s - 1 - step;
      e.open(`if (${x(k)} !== 0) {`);
      e.line(`t = alpha * ${x(k)};`);
      const own = `${x(k)} = ${st(nonunit ? `t * ${a(k, k)}` : 't')};`;
      if (!upper) e.line(own);
      for (const i of upper ? range(0, k) : range(k + 1, s)) e.line(`${x(i)} = ${st(`${x(i)} + t * ${a(i, k)}`)};`);
      if (upper) e.line(own);
      e.close();
    }
    return;
  }
  for (let step = 0; step < s; step++) {
    const i = upper ? s - 1 - step : step;
    const terms = (upper ? range(0, i) : range(i + 1, s)).map((k) => ` + ${a(k, i)} * ${x(k)}`).join('');
    e.line(`${x(i)} = ${st(`alpha * (${x(i)}${nonunit ? ` * ${a(i, i)}` : ''}${terms})`)};`);
  }
};

/** trmm 'right': b := alpha b op(A), one row of B. */
const trmmRight: Body = (e, { s, upper, nonunit, transA }, st) => {
  if (transA === 'N') {
    for (let step = 0; step < s; step++) {
      const j = upper ? s - 1 - step : step;
      e.line(`${x(j)} = ${st(`${x(j)} * ${nonunit ? `d_${j}` : 'alpha'}`)};`);
      for (const k of upper ? range(0, j) : range(j + 1, s)) e.line(`${x(j)} = ${st(`${x(j)} + g_${k}_${j} * ${x(k)}`)};`);
    }
    return;
  }
  for (let step = 0; step < s; step++) {
    const k = upper ? step : s - 1 - step;
    for (const j of upper ? range(0, k) : range(k + 1, s)) e.line(`${x(j)} = ${st(`${x(j)} + g_${j}_${k} * ${x(k)}`)};`);
    e.line(`${x(k)} = ${st(`${x(k)} * ${nonunit ? `d_${k}` : 'alpha'}`)};`);
  }
};
