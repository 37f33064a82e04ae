/**
 * Generated complex LU kernels (getrf, gesv, getrs on complex128 / complex64) for one order and
 * element type. The factorisation runs on a float64 scratch `w` (ld = n, interleaved) with every
 * index a constant of the generated code; the row interchange is the one data-dependent index
 * (a swap of row j with row p across the columns). The solves hold one right-hand side in
 * locals, its interchanges applied in the scratch `v`.
 *
 * The trailing update runs a loop over the columns with each column's rows unrolled, so that the
 * function stays small enough for V8's optimising compiler up to n = 16.
 *
 * The arithmetic is the complex reference's (src/cpu/complex/zgetrf.ts: zgetf2 with izamax's
 * |re| + |im| pivot and the reciprocal scaling above the safe minimum; zsolve.ts: zgetrs by
 * substitution with Smith's division) in the same order, so factors, pivots (0-based), info (the
 * zero pivot test the reference's for the dtype) and solutions are bitwise the reference's; the solves read the factor as stored (rounded, for
 * complex64), as the reference's gesv does. Offsets, leading dimensions and strides are in floats.
 */
import type { ComplexDType } from '../../core/dtype.js';
import type { ComplexOp } from '../../core/op-specs.js';
import { complexInfo, dtypeInfo, jsStoresNonzero } from '../../core/dtype-table.js';
import { Emitter, type JsKernelSource } from '../jit/compile.js';
import { LU_PARAMS, type GetrfJsKernel, type LuOp } from './getrf-js.js';
import { emitDivide, range } from './zarith-js.js';

export interface ZgetrfJsParams {
  readonly op: LuOp;
  /** Order of A. */
  readonly n: number;
  readonly dtype: ComplexDType;
  /** getrs only: solve with A, A^T or A^H. */
  readonly trans: ComplexOp;
}

export type ZgetrfJsKernel = GetrfJsKernel;

/** LAPACK's dlamch('S'): below it zgetf2 divides by the pivot instead of scaling by its reciprocal. */
const SAFE_MIN = '2.2250738585072014e-308';

export function generateZgetrfJs(p: ZgetrfJsParams): JsKernelSource {
  const { n, op } = p;
  const e = new Emitter();
  e.line(`// myriad complex ${op} n=${n} trans=${p.trans} dtype=${p.dtype}`);
  e.open('for (let p = 0; p < count; p++) {');
  e.line('const o = aOff + p * aStride;');
  e.line('const po = pivOff + p * pivStride;');
  for (let j = 0; j < n; j++) e.line(`const c${j} = o + ${j} * lda;`);
  if (op === 'getrs') {
    solve(e, n, p.trans);
    e.line('info[infoOff + p] = 0;');
  } else {
    factor(e, n, p.dtype);
    e.line('info[infoOff + p] = inf;');
    if (op === 'gesv') {
      e.open('if (inf === 0) {');
      solve(e, n, 'N');
      e.close();
    }
  }
  e.close();
  return { params: LU_PARAMS, body: e.toString() };
}

/**
 * zgetf2 on the scratch, then the whole matrix stored back (as the reference does). A pivot is
 * zero where it stores as zero in `dtype` (complex64: both parts within 2^-150, dtype-table.ts
 * zeroMax; complex128 both exactly 0, the test as ever).
 */
function factor(e: Emitter, n: number, dtype: ComplexDType): void {
  const part = complexInfo(dtype).real;
  const tiny = dtypeInfo(part).zeroMax > 0;
  const w = (i: number, j: number): number => 2 * (i + j * n);
  const columns = (body: (i: number) => string): void => {
    e.open(`for (let x = 0, y = o; x < ${2 * n * n}; x += ${2 * n}, y += lda) {`);
    for (let i = 0; i < 2 * n; i++) e.line(body(i));
    e.close();
  };
  columns((i) => `w[x + ${i}] = A[y + ${i}];`);
  e.line('let inf = 0;');
  for (let j = 0; j < n; j++) {
    e.open('{');
    e.line(`let piv = ${j}, pmax = Math.abs(w[${w(j, j)}]) + Math.abs(w[${w(j, j) + 1}]), t;`);
    for (let i = j + 1; i < n; i++) e.line(`t = Math.abs(w[${w(i, j)}]) + Math.abs(w[${w(i, j) + 1}]); if (t > pmax) { pmax = t; piv = ${i}; }`);
    e.line(`ipiv[po + ${j}] = piv;`);
    e.open(`if (${jsStoresNonzero(part, `w[2 * piv + ${2 * j * n}]`, `w[2 * piv + ${2 * j * n + 1}]`)}) {`);
    e.open(`if (piv !== ${j}) {`);
    e.line(`for (let x = ${2 * j}, y = 2 * piv; x < ${2 * n * n}; x += ${2 * n}, y += ${2 * n}) { t = w[x]; w[x] = w[y]; w[y] = t; t = w[x + 1]; w[x + 1] = w[y + 1]; w[y + 1] = t; }`);
    e.close();
    e.line(`const pr = w[${w(j, j)}], pi = w[${w(j, j) + 1}];`);
    // The reference's test hypot(pr, pi) >= safe minimum, with hypot (slow in V8) only where the
    // larger magnitude alone does not decide it: hypot >= max(|pr|, |pi|).
    e.open(`if (Math.max(Math.abs(pr), Math.abs(pi)) >= ${SAFE_MIN} || Math.hypot(pr, pi) >= ${SAFE_MIN}) {`);
    e.line('let rr = 0, ri = 0;');
    emitDivide(e, 'rr', 'ri', '1', '0', 'pr', 'pi');
    for (let i = j + 1; i < n; i++) {
      const x = w(i, j);
      e.line(`{ const a = w[${x}], b = w[${x + 1}]; w[${x}] = a * rr - b * ri; w[${x + 1}] = a * ri + b * rr; }`);
    }
    e.middle('} else {');
    if (j + 1 < n) {
      e.open(`for (let x = ${w(j + 1, j)}; x < ${w(0, j + 1)}; x += 2) {`);
      emitDivide(e, 'w[x]', 'w[x + 1]', 'w[x]', 'w[x + 1]', 'pr', 'pi');
      e.close();
    }
    e.close();
    if (tiny && j + 1 < n) {
      // the largest, tiny entry may lie below j: no interchange, ipiv[j] = j
      e.middle('} else {');
      e.line(`ipiv[po + ${j}] = ${j};`);
      e.line(`if (inf === 0) inf = ${j + 1};`);
    } else {
      e.middle('} else if (inf === 0) {');
      e.line(`inf = ${j + 1};`);
    }
    e.close();
    if (j + 1 < n) {
      for (let i = j + 1; i < n; i++) e.line(`const lr${i} = w[${w(i, j)}], li${i} = w[${w(i, j) + 1}];`);
      // Column by column (a loop: the code stays small enough for V8 to optimise), each column's rows unrolled.
      e.open(`for (let x = ${w(0, j + 1)}; x < ${2 * n * n}; x += ${2 * n}) {`);
      e.line(`const ur = w[x + ${2 * j}], ui = w[x + ${2 * j + 1}];`);
      for (let i = j + 1; i < n; i++) {
        e.line(`w[x + ${2 * i}] -= lr${i} * ur - li${i} * ui; w[x + ${2 * i + 1}] -= lr${i} * ui + li${i} * ur;`);
      }
      e.close();
    }
    e.close();
  }
  columns((i) => `A[y + ${i}] = w[x + ${i}];`);
}

/**
 * zgetrs per right-hand side. 'N': interchanges, then L (unit, forward), then U (backward).
 * 'T' / 'C': op(U) (forward), op(L) (unit, backward), then the interchanges in reverse order.
 */
function solve(e: Emitter, n: number, trans: ComplexOp): void {
  const br = (i: number): string => `br_${i}`;
  const bi = (i: number): string => `bi_${i}`;
  const aRe = (i: number, k: number): string => `A[c${k} + ${2 * i}]`;
  const aIm = (i: number, k: number): string => `A[c${k} + ${2 * i + 1}]`;
  const swaps = (forward: boolean): void => {
    for (const j of forward ? range(n) : range(n).reverse()) {
      e.line(`t = ipiv[po + ${j}]; if (t !== ${j}) { s = v[${2 * j}]; v[${2 * j}] = v[2 * t]; v[2 * t] = s; s = v[${2 * j + 1}]; v[${2 * j + 1}] = v[2 * t + 1]; v[2 * t + 1] = s; }`);
    }
  };
  /** One substitution: T(i, k) = A(i, k), or A(k, i) (conjugated) where transposed. */
  const pass = (forward: boolean, transposed: boolean, conj: boolean, unit: boolean): void => {
    const neg = conj ? '-' : '';
    for (let s = 0; s < n; s++) {
      const i = forward ? s : n - 1 - s;
      const ks = forward ? range(i) : range(n - i - 1).map((t) => i + 1 + t);
      if (ks.length === 0 && unit) continue;
      e.line(`re = ${br(i)}; im = ${bi(i)};`);
      for (const k of ks) {
        const [r, c] = transposed ? [k, i] : [i, k];
        const tr = aRe(r, c), ti = `(${neg}${aIm(r, c)})`;
        e.line(`re -= ${tr} * ${br(k)} - ${ti} * ${bi(k)}; im -= ${tr} * ${bi(k)} + ${ti} * ${br(k)};`);
      }
      if (unit) e.line(`${br(i)} = re; ${bi(i)} = im;`);
      else emitDivide(e, br(i), bi(i), 're', 'im', aRe(i, i), `${neg}${aIm(i, i)}`);
    }
  };
  e.open('for (let c = 0; c < nrhs; c++) {');
  e.line('const q = bOff + p * bStride + c * ldb;');
  e.line('let re, im, s, t;');
  if (trans === 'N') {
    for (let i = 0; i < n; i++) e.line(`v[${2 * i}] = B[q + ${2 * i}]; v[${2 * i + 1}] = B[q + ${2 * i + 1}];`);
    swaps(true);
    for (let i = 0; i < n; i++) e.line(`let ${br(i)} = v[${2 * i}], ${bi(i)} = v[${2 * i + 1}];`);
    pass(true, false, false, true);
    pass(false, false, false, false);
    for (let i = 0; i < n; i++) e.line(`B[q + ${2 * i}] = ${br(i)}; B[q + ${2 * i + 1}] = ${bi(i)};`);
  } else {
    const conj = trans === 'C';
    for (let i = 0; i < n; i++) e.line(`let ${br(i)} = B[q + ${2 * i}], ${bi(i)} = B[q + ${2 * i + 1}];`);
    pass(true, true, conj, false);
    pass(false, true, conj, true);
    for (let i = 0; i < n; i++) e.line(`v[${2 * i}] = ${br(i)}; v[${2 * i + 1}] = ${bi(i)};`);
    swaps(false);
    for (let i = 0; i < n; i++) e.line(`B[q + ${2 * i}] = v[${2 * i}]; B[q + ${2 * i + 1}] = v[${2 * i + 1}];`);
  }
  e.close();
}
