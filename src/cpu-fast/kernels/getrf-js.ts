/**
 * Generated LU kernels (getrf, gesv, getrs) for one shape and dtype, unrolled: every element of
 * the matrix and of the right-hand side in a local (the data-dependent row swap of the factor is a
 * switch over the candidate rows; that of the right-hand side one dynamic index into a scratch).
 *
 * The arithmetic is the reference's (src/cpu/lapack/getrf.ts: dgetf2; solve.ts: dgetrs) in the
 * same order, so factors, pivots (0-based) and solutions are bitwise the reference's; so is the
 * zero pivot test (float32: a pivot that stores as zero, |p| <= 2^-150, dtype-table.ts zeroMax;
 * there no interchange, ipiv[j] = j), emitted for the dtype.
 */
import type { DType } from '../../core/dtype.js';
import type { Op } from '../../core/ops.js';
import { dtypeInfo, jsStoresNonzero } from '../../core/dtype-table.js';
import { Emitter, type JsKernelSource } from '../jit/compile.js';

export type LuOp = 'getrf' | 'gesv' | 'getrs';

export interface GetrfJsParams {
  readonly op: LuOp;
  /** Rows and columns of A (square for gesv and getrs). */
  readonly m: number;
  readonly n: number;
  readonly dtype: DType;
  /** getrs only: solve with A ('N') or A^T ('T'). */
  readonly trans: Op;
}

export const LU_PARAMS = [
  'A', 'aOff', 'lda', 'aStride', 'B', 'bOff', 'ldb', 'bStride', 'nrhs',
  'info', 'infoOff', 'ipiv', 'pivOff', 'pivStride', 'count', 'w', 'v',
] as const;

export type GetrfJsKernel = (
  A: Float64Array | Float32Array, aOff: number, lda: number, aStride: number,
  B: Float64Array | Float32Array | null, bOff: number, ldb: number, bStride: number, nrhs: number,
  info: Int32Array, infoOff: number, ipiv: Int32Array, pivOff: number, pivStride: number, count: number,
  w: Float64Array, v: Float64Array,
) => void;

/** LAPACK's dlamch('S'): below it dgetf2 divides by the pivot instead of scaling by its reciprocal. */
const SAFE_MIN = '2.2250738585072014e-308';

export function generateGetrfJs(p: GetrfJsParams): JsKernelSource {
  const { m, n, op } = p;
  const e = new Emitter();
  e.line(`// myriad ${op} m=${m} n=${n} trans=${p.trans} dtype=${p.dtype}`);
  e.open('for (let p = 0; p < count; p++) {');
  e.line('const o = aOff + p * aStride;');
  e.line('const po = pivOff + p * pivStride;');
  for (let j = 0; j < n; j++) e.line(`const c${j} = o + ${j} * lda;`);
  if (op === 'getrs') {
    solve(e, n, p.trans);
  } else {
    factor(e, m, n, p.dtype);
    if (op === 'gesv') {
      e.open('if (inf === 0) {');
      solve(e, n, 'N');
      e.close();
    }
  }
  e.line(op === 'getrs' ? 'info[infoOff + p] = 0;' : 'info[infoOff + p] = inf;');
  e.close();
  return { params: LU_PARAMS, body: e.toString() };
}

/**
 * dgetf2 with every element in a local: pivot search (first largest magnitude, keeping the
 * pivot's value), the row swap as a switch over the candidate rows, scaling, rank-1 update.
 */
function factor(e: Emitter, m: number, n: number, dtype: DType): void {
  // float32: a pivot that stores as zero is zero; the largest tiny entry may then lie below j, and
  // ipiv[j] is set back to j (no interchange). float64 keeps `pval !== 0` alone (pv is j there).
  const tiny = dtypeInfo(dtype).zeroMax > 0;
  const a = (i: number, j: number): string => `a_${i}_${j}`;
  for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) e.line(`let ${a(i, j)} = A[c${j} + ${i}];`);
  e.line('let inf = 0, pv = 0, pm = 0, pval = 0, t = 0, s = 0;');
  for (let j = 0; j < Math.min(m, n); j++) {
    e.line(`pv = ${j}; pval = ${a(j, j)}; pm = Math.abs(pval);`);
    for (let i = j + 1; i < m; i++) e.line(`t = Math.abs(${a(i, j)}); if (t > pm) { pm = t; pv = ${i}; pval = ${a(i, j)}; }`);
    e.line(`ipiv[po + ${j}] = pv;`);
    e.open(`if (${jsStoresNonzero(dtype, 'pval')}) {`);
    if (j + 1 < m) {
      e.open('switch (pv) {');
      for (let i = j + 1; i < m; i++) {
        const swaps = range(n).map((c) => `t = ${a(j, c)}; ${a(j, c)} = ${a(i, c)}; ${a(i, c)} = t;`).join(' ');
        e.line(`case ${i}: ${swaps} break;`);
      }
      e.close();
      e.line(`s = ${a(j, j)};`);
      e.open(`if (Math.abs(s) >= ${SAFE_MIN}) {`);
      e.line('s = 1 / s;');
      for (let i = j + 1; i < m; i++) e.line(`${a(i, j)} *= s;`);
      e.middle('} else {');
      for (let i = j + 1; i < m; i++) e.line(`${a(i, j)} /= s;`);
      e.close();
    }
    e.middle('} else {');
    if (tiny && j + 1 < m) e.line(`ipiv[po + ${j}] = ${j};`);
    e.line(`if (inf === 0) inf = ${j + 1};`);
    e.close();
    if (j + 1 >= m) continue;
    for (let c = j + 1; c < n; c++) for (let i = j + 1; i < m; i++) e.line(`${a(i, c)} -= ${a(i, j)} * ${a(j, c)};`);
  }
  for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) e.line(`A[c${j} + ${i}] = ${a(i, j)};`);
}

/**
 * dgetrs with the factor as stored in A: 'N': swap B's rows forward, L (unit) then U;
 * 'T': U^T, then L^T (unit), then the swaps backward.
 */
function solve(e: Emitter, n: number, trans: Op): void {
  const f = (i: number, j: number): string => `f_${i}_${j}`;
  const b = (i: number): string => `b_${i}`;
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) e.line(`const ${f(i, j)} = A[c${j} + ${i}];`);
  e.open('for (let c = 0; c < nrhs; c++) {');
  e.line('const q = bOff + p * bStride + c * ldb;');
  e.line('let x = 0, k = 0;');
  if (trans === 'N') {
    for (let i = 0; i < n; i++) e.line(`v[${i}] = B[q + ${i}];`);
    for (let j = 0; j < n; j++) e.line(`k = ipiv[po + ${j}]; if (k !== ${j}) { x = v[${j}]; v[${j}] = v[k]; v[k] = x; }`);
    for (let i = 0; i < n; i++) e.line(`let ${b(i)} = v[${i}];`);
    for (let j = 0; j < n; j++) {
      const terms = range(j).map((q) => ` - ${f(j, q)} * ${b(q)}`).join('');
      if (terms) e.line(`${b(j)} = ${b(j)}${terms};`);
    }
    for (let j = n - 1; j >= 0; j--) {
      const terms = range(n - j - 1).map((t) => n - 1 - t).map((q) => ` - ${f(j, q)} * ${b(q)}`).join('');
      e.line(`${b(j)} = (${b(j)}${terms}) / ${f(j, j)};`);
    }
    for (let i = 0; i < n; i++) e.line(`B[q + ${i}] = ${b(i)};`);
  } else {
    for (let i = 0; i < n; i++) e.line(`let ${b(i)} = B[q + ${i}];`);
    for (let j = 0; j < n; j++) {
      const terms = range(j).map((q) => ` - ${f(q, j)} * ${b(q)}`).join('');
      e.line(`${b(j)} = (${b(j)}${terms}) / ${f(j, j)};`);
    }
    for (let j = n - 1; j >= 0; j--) {
      const terms = range(n - j - 1).map((t) => j + 1 + t).map((q) => ` - ${f(q, j)} * ${b(q)}`).join('');
      if (terms) e.line(`${b(j)} = ${b(j)}${terms};`);
    }
    for (let i = 0; i < n; i++) e.line(`v[${i}] = ${b(i)};`);
    for (let j = n - 1; j >= 0; j--) e.line(`k = ipiv[po + ${j}]; if (k !== ${j}) { x = v[${j}]; v[${j}] = v[k]; v[k] = x; }`);
    for (let i = 0; i < n; i++) e.line(`B[q + ${i}] = v[${i}];`);
  }
  e.close();
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
