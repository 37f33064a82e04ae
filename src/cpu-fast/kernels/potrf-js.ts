/**
 * Generated Cholesky kernels (potrf, posv, potrs) for one size, triangle and dtype: the whole
 * factorisation unrolled, every element of the triangle in a local variable (the register
 * blocking of the seed paper, section 4.1, taken to the whole matrix: each element is loaded
 * once and stored once). Batched: one call runs `count` matrices of a strided batch.
 *
 * The arithmetic is the reference's (src/cpu/lapack/potrf.ts, solve.ts) operation for operation,
 * in the same order and in float64 locals, so results are bitwise those of the reference, float32
 * included (float32 data is widened on load and rounded once on store, as the reference does).
 *
 * Names: `x_i_j` is L(i, j) (i >= j); for 'upper' U(j, i) is stored where L(i, j) would be read,
 * so one set of locals serves both triangles and only the index map and the reference's order of
 * additions differ.
 */
import type { DType } from '../../core/dtype.js';
import { jsRound } from '../../core/dtype-table.js';
import type { Uplo } from '../../core/enums.js';
import { Emitter, type JsKernelSource } from '../jit/compile.js';

export type CholeskyOp = 'potrf' | 'posv' | 'potrs';

export interface PotrfJsParams {
  readonly op: CholeskyOp;
  readonly n: number;
  readonly uplo: Uplo;
  readonly dtype: DType;
}

/** A(off..), B(off..), strides of the strided batch, nrhs, info (one per matrix), count. */
export const CHOLESKY_PARAMS = ['A', 'aOff', 'lda', 'aStride', 'B', 'bOff', 'ldb', 'bStride', 'nrhs', 'info', 'infoOff', 'count'] as const;

export type PotrfJsKernel = (
  A: Float64Array | Float32Array, aOff: number, lda: number, aStride: number,
  B: Float64Array | Float32Array | null, bOff: number, ldb: number, bStride: number, nrhs: number,
  info: Int32Array, infoOff: number, count: number,
) => void;

const x = (i: number, j: number): string => `x_${i}_${j}`;
const r = (i: number, j: number): string => `r_${i}_${j}`;

export function generatePotrfJs(p: PotrfJsParams): JsKernelSource {
  const { n, op } = p;
  const upper = p.uplo === 'upper';
  // Element L(i, j) of the matrix whose column offsets are c0, c1, ...
  const at = (i: number, j: number): string => (upper ? `A[c${i} + ${j}]` : `A[c${j} + ${i}]`);
  const e = new Emitter();
  e.line(`// myriad ${op} n=${n} uplo=${p.uplo} dtype=${p.dtype}`);
  e.open('outer: for (let p = 0; p < count; p++) {');
  e.line('const o = aOff + p * aStride;');
  for (let j = 0; j < n; j++) e.line(`const c${j} = o + ${j} * lda;`);
  if (op !== 'potrs') factor(e, n, upper, at);
  if (op !== 'potrf') {
    for (let j = 0; j < n; j++) {
      for (let i = j; i < n; i++) {
        // The solve uses the factor as stored (rounded to float32 for float32 data), as the reference.
        const value = op === 'potrs' ? at(i, j) : jsRound(p.dtype, x(i, j));
        e.line(`const ${r(i, j)} = ${value};`);
      }
    }
    solve(e, n, upper);
  }
  e.line('info[infoOff + p] = 0;');
  e.close();
  return { params: CHOLESKY_PARAMS, body: e.toString() };
}

/** Left-looking Cholesky (dpotf2): column j (lower) or row j (upper) is final, and stored, after step j. */
function factor(e: Emitter, n: number, upper: boolean, at: (i: number, j: number) => string): void {
  for (let j = 0; j < n; j++) for (let i = j; i < n; i++) e.line(`let ${x(i, j)} = ${at(i, j)};`);
  for (let j = 0; j < n; j++) {
    const dot = ['0', ...range(j).map((k) => `${x(j, k)} * ${x(j, k)}`)].join(' + ');
    e.line(`const d${j} = ${x(j, j)} - (${dot});`);
    e.line(`if (!(d${j} > 0)) { ${at(j, j)} = d${j}; info[infoOff + p] = ${j + 1}; continue outer; }`);
    e.line(`${x(j, j)} = Math.sqrt(d${j}); ${at(j, j)} = ${x(j, j)};`);
    e.line(`const s${j} = 1 / ${x(j, j)};`);
    for (let i = j + 1; i < n; i++) {
      if (upper) {
        // potrfUpper: one sequential dot per column to the right, then (a - s) * rcp.
        const s = ['0', ...range(j).map((k) => `${x(i, k)} * ${x(j, k)}`)].join(' + ');
        e.line(`${x(i, j)} = (${x(i, j)} - (${s})) * s${j};`);
      } else {
        // potrfLower: four columns per subtraction, then the rest one by one, then * rcp.
        let k = 0;
        for (; k + 3 < j; k += 4) {
          const terms = [k, k + 1, k + 2, k + 3].map((q) => `${x(j, q)} * ${x(i, q)}`).join(' + ');
          e.line(`${x(i, j)} -= ${terms};`);
        }
        for (; k < j; k++) e.line(`${x(i, j)} -= ${x(j, k)} * ${x(i, k)};`);
        e.line(`${x(i, j)} *= s${j};`);
      }
      e.line(`${at(i, j)} = ${x(i, j)};`);
    }
  }
}

/** L y = b then L^T x = y (lower), U^T y = b then U x = y (upper), per right-hand side. */
function solve(e: Emitter, n: number, upper: boolean): void {
  const b = (i: number): string => `b_${i}`;
  e.open('for (let c = 0; c < nrhs; c++) {');
  e.line('const q = bOff + p * bStride + c * ldb;');
  for (let i = 0; i < n; i++) e.line(`let ${b(i)} = B[q + ${i}];`);
  for (let j = 0; j < n; j++) {
    const terms = range(j).map((k) => ` - ${r(j, k)} * ${b(k)}`).join('');
    e.line(`${b(j)} = (${b(j)}${terms}) / ${r(j, j)};`);
  }
  for (let j = n - 1; j >= 0; j--) {
    // lower: dtrsm's dot form (ascending i); upper: its axpy form, which subtracts from the last row up.
    const order = range(n - j - 1).map((t) => j + 1 + t);
    if (upper) order.reverse();
    const terms = order.map((i) => ` - ${r(i, j)} * ${b(i)}`).join('');
    e.line(`${b(j)} = (${b(j)}${terms}) / ${r(j, j)};`);
  }
  for (let i = 0; i < n; i++) e.line(`B[q + ${i}] = ${b(i)};`);
  e.close();
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
