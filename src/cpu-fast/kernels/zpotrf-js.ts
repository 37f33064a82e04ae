/**
 * Generated complex Cholesky kernels (potrf, posv, potrs on complex128 / complex64) for one size,
 * triangle and element type: the whole factorisation unrolled, the real and imaginary part of
 * every element of the triangle in locals, as kernels/potrf-js.ts does for real matrices.
 * Batched: one call runs `count` matrices of a strided batch.
 *
 * The arithmetic is the complex reference's (src/cpu/complex/zpotrf.ts, zsolve.ts: zpotf2 and
 * zpotrs by substitution, Smith's division) operation for operation, in the same order and in
 * float64 locals, so results are bitwise the reference's, complex64 included (widened on load,
 * rounded once on store; the solve of posv reads the factor as stored).
 *
 * Offsets, leading dimensions and strides are in floats (twice the complex counts): element
 * (i, j) of matrix p is A[aOff + p aStride + j lda + 2 i] (re) and the float after it (im).
 * Names: `xr_i_j`, `xi_i_j` hold the stored value S(i, j), i >= j, of L(i, j) (lower) or of U(j, i)
 * (upper, where the stored value is conj(F(i, j)) for the factor F the reference reads).
 */
import type { ComplexDType } from '../../core/dtype.js';
import { complexInfo, jsRound } from '../../core/dtype-table.js';
import type { Uplo } from '../../core/enums.js';
import { Emitter, type JsKernelSource } from '../jit/compile.js';
import { CHOLESKY_PARAMS, type CholeskyOp, type PotrfJsKernel } from './potrf-js.js';
import { emitDivide, range } from './zarith-js.js';

export interface ZpotrfJsParams {
  readonly op: CholeskyOp;
  readonly n: number;
  readonly uplo: Uplo;
  readonly dtype: ComplexDType;
}

export type ZpotrfJsKernel = PotrfJsKernel;

const xr = (i: number, j: number): string => `xr_${i}_${j}`;
const xi = (i: number, j: number): string => `xi_${i}_${j}`;

export function generateZpotrfJs(p: ZpotrfJsParams): JsKernelSource {
  const { n, op } = p;
  const upper = p.uplo === 'upper';
  // The float index of the real part of S(i, j) (i >= j) in the caller's matrix.
  const at = (i: number, j: number): string => (upper ? `c${i} + ${2 * j}` : `c${j} + ${2 * i}`);
  const round = (v: string): string => jsRound(complexInfo(p.dtype).real, v);
  const e = new Emitter();
  e.line(`// myriad complex ${op} n=${n} uplo=${p.uplo} dtype=${p.dtype}`);
  e.open('outer: for (let p = 0; p < count; p++) {');
  e.line('const o = aOff + p * aStride;');
  for (let j = 0; j < n; j++) e.line(`const c${j} = o + ${j} * lda;`);
  if (op !== 'potrs') factor(e, n, upper, at);
  if (op !== 'potrf') {
    // The solve reads the factor as stored: the caller's (potrs) or the rounded one (posv).
    const sr = (i: number, j: number): string => (op === 'potrs' ? `A[${at(i, j)}]` : round(xr(i, j)));
    const si = (i: number, j: number): string => (op === 'potrs' ? `A[${at(i, j)} + 1]` : round(xi(i, j)));
    for (let j = 0; j < n; j++) {
      for (let i = j; i < n; i++) {
        e.line(`const sr_${i}_${j} = ${sr(i, j)}, si_${i}_${j} = ${si(i, j)};`);
      }
    }
    solve(e, n, upper);
  }
  e.line('info[infoOff + p] = 0;');
  e.close();
  return { params: CHOLESKY_PARAMS, body: e.toString() };
}

/**
 * zpotf2 as the reference runs it on F (F = L, or F = U^H read through conjugation, `sign` = -1):
 * step j makes column j of F final and stores it (the diagonal's imaginary part as 0).
 */
function factor(e: Emitter, n: number, upper: boolean, at: (i: number, j: number) => string): void {
  const neg = upper ? '-' : '';
  const pos = upper ? '' : '-';
  for (let j = 0; j < n; j++) {
    for (let i = j + 1; i < n; i++) e.line(`let ${xr(i, j)} = A[${at(i, j)}], ${xi(i, j)} = A[${at(i, j)} + 1];`);
    e.line(`let ${xr(j, j)} = A[${at(j, j)}], ${xi(j, j)} = 0;`);
  }
  for (let j = 0; j < n; j++) {
    const dot = ['0', ...range(j).map((k) => `(${xr(j, k)} * ${xr(j, k)} + ${xi(j, k)} * ${xi(j, k)})`)].join(' + ');
    e.line(`const d${j} = ${xr(j, j)} - (${dot});`);
    e.line(`A[${at(j, j)} + 1] = 0;`);
    e.line(`if (!(d${j} > 0)) { A[${at(j, j)}] = d${j}; info[infoOff + p] = ${j + 1}; continue outer; }`);
    e.line(`${xr(j, j)} = Math.sqrt(d${j}); A[${at(j, j)}] = ${xr(j, j)};`);
    for (let i = j + 1; i < n; i++) {
      e.open(`{ let re = ${xr(i, j)}, im = ${neg}${xi(i, j)};`);
      for (let k = 0; k < j; k++) {
        // x = F(i, k) = sign S, y = conj(F(j, k)) = -sign S.
        const a = xr(i, k), b = `${neg}${xi(i, k)}`, c = xr(j, k), d = `${pos}${xi(j, k)}`;
        e.line(`re -= ${a} * ${c} - (${b}) * (${d}); im -= ${a} * (${d}) + (${b}) * ${c};`);
      }
      e.line(`${xr(i, j)} = re / ${xr(j, j)}; ${xi(i, j)} = (${neg}im) / ${xr(j, j)};`);
      e.line(`A[${at(i, j)}] = ${xr(i, j)}; A[${at(i, j)} + 1] = ${xi(i, j)};`);
      e.close();
    }
  }
}

/**
 * Per right-hand side: forward substitution with T = S (lower) or conj(S) (upper), then backward
 * with T(i, k) = conj(S(k, i)) (lower) or S(k, i) (upper), each element's dot in ascending k and
 * a division by T(i, i), as the reference's solveVector.
 */
function solve(e: Emitter, n: number, upper: boolean): void {
  const br = (i: number): string => `br_${i}`;
  const bi = (i: number): string => `bi_${i}`;
  e.open('for (let c = 0; c < nrhs; c++) {');
  e.line('const q = bOff + p * bStride + c * ldb;');
  for (let i = 0; i < n; i++) e.line(`let ${br(i)} = B[q + ${2 * i}], ${bi(i)} = B[q + ${2 * i + 1}];`);
  const pass = (forward: boolean, conj: boolean): void => {
    const neg = conj ? '-' : '';
    for (let s = 0; s < n; s++) {
      const i = forward ? s : n - 1 - s;
      const ks = forward ? range(i) : range(n - i - 1).map((t) => i + 1 + t);
      e.line(`re = ${br(i)}; im = ${bi(i)};`);
      for (const k of ks) {
        const [r, c] = forward ? [i, k] : [k, i];
        const tr = `sr_${r}_${c}`, ti = `(${neg}si_${r}_${c})`;
        e.line(`re -= ${tr} * ${br(k)} - ${ti} * ${bi(k)}; im -= ${tr} * ${bi(k)} + ${ti} * ${br(k)};`);
      }
      emitDivide(e, br(i), bi(i), 're', 'im', `sr_${i}_${i}`, `${neg}si_${i}_${i}`);
    }
  };
  e.line('let re, im;');
  pass(true, upper);
  pass(false, !upper);
  for (let i = 0; i < n; i++) e.line(`B[q + ${2 * i}] = ${br(i)}; B[q + ${2 * i + 1}] = ${bi(i)};`);
  e.close();
}
