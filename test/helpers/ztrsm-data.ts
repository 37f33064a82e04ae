/**
 * Test data of the complex triangular solves (host emulation and GPU tests of kernels/ztrsm/):
 * well-conditioned complex triangles with everything a solve must not read poisoned with NaN (the
 * other triangle; the diagonal where diag is 'unit'), and the comparison of a result with the
 * complex reference (cpu/complex/ztrsm.ts): close inside B's matrices, NaN and Inf exactly where the
 * reference has them, bit for bit elsewhere.
 *
 * Conditioning: the off-diagonal parts are uniform in [-1, 1] / (2t), so each entry's modulus is
 * at most 1 / (sqrt(2) t) and a row's off-diagonal sum below 0.71; the diagonal's modulus lies in
 * [1, 2] (random phase). T = D (I + D^-1 E) with ||D^-1 E||_inf < 0.71, so ||T^-1||_inf < 1 / 0.29 < 3.5
 * and ||T||_inf < 2.71: cond_inf(T) < 10 for every order. A backward-stable substitution then errs
 * by at most about c t eps cond ||x|| per entry; the tolerance below allows 64 max(8, t) eps of the
 * largest entry of the matrix's result (the real trsm tests' bound, trsm-data.ts, with cond < 10
 * folded into its constant), and random rounding keeps the observed errors far below it.
 */
import assert from 'node:assert/strict';
import type { Diag, Side, Uplo } from '../../src/core/enums.js';
import { DTYPE_EPS, type DType } from '../../src/core/dtype.js';
import type { ComplexOp } from '../../src/core/op-specs.js';
import { Rng } from './random.js';

export interface ZtrsmCase { side: Side; uplo: Uplo; transA: ComplexOp; diag: Diag }

/** The 24 variants, side x uplo x trans x diag. */
export const ZTRSM_VARIANTS: readonly ZtrsmCase[] = (['left', 'right'] as const).flatMap((side) =>
  (['lower', 'upper'] as const).flatMap((uplo) => (['N', 'T', 'C'] as const).flatMap((transA) =>
    (['nonunit', 'unit'] as const).map((diag) => ({ side, uplo, transA, diag })))));

export const variantName = (c: ZtrsmCase): string => `${c.side}/${c.uplo}/${c.transA}/${c.diag}`;

/** A buffer of interleaved pairs: rounded to float32 where the data is complex64. */
export type Pairs = Float64Array | Float32Array;

/**
 * Makes the t x t matrix at pair offset `off` (leading dimension `ld` pairs) a well-conditioned
 * `uplo` triangle (see the file comment); the other triangle NaN, and the diagonal too where unit.
 * `zeroAt`: that diagonal entry exactly 0 (a singular triangle; non-unit only).
 */
export function fillComplexTriangle(rng: Rng, a: Pairs, off: number, ld: number, t: number, uplo: Uplo, diag: Diag, zeroAt = -1): void {
  for (let j = 0; j < t; j++) for (let i = 0; i < t; i++) {
    const e = 2 * (off + i + j * ld);
    const inside = uplo === 'lower' ? i > j : i < j;
    if (i === j) {
      if (diag === 'unit') { a[e] = NaN; a[e + 1] = NaN; continue; }
      const m = rng.uniform(1, 2), phase = rng.uniform(-Math.PI, Math.PI);
      a[e] = i === zeroAt ? 0 : m * Math.cos(phase);
      a[e + 1] = i === zeroAt ? 0 : m * Math.sin(phase);
    } else if (inside) {
      a[e] = rng.uniform() / (2 * t);
      a[e + 1] = rng.uniform() / (2 * t);
    } else {
      a[e] = NaN;
      a[e + 1] = NaN;
    }
  }
}

/** The relative tolerance of a solve with a triangle of order t (see the file comment). */
export const ztrsmTolerance = (dtype: DType, t: number): number => DTYPE_EPS[dtype] * 64 * Math.max(8, t);

const same = (x: number, y: number): boolean => Object.is(x, y) || (Number.isNaN(x) && Number.isNaN(y)) || x === y;

/**
 * Compares an output buffer of pairs with the reference's: a part inside B's matrices
 * (`matrixOf(pair)` its matrix, -1 outside) within tol * max(1, largest finite |part| of that
 * matrix's reference result), NaN and +-Inf exactly where the reference has them; outside, bit for
 * bit (NaN poison stays NaN).
 */
export function compareComplex(got: ArrayLike<number>, want: ArrayLike<number>, matrixOf: (pair: number) => number, tol: number, what: string): void {
  assert.equal(got.length, want.length, `${what}: buffer length`);
  const scale = new Map<number, number>();
  for (let f = 0; f < want.length; f++) {
    const m = matrixOf(Math.floor(f / 2));
    const w = Math.abs(want[f]!);
    if (m >= 0 && Number.isFinite(w)) scale.set(m, Math.max(scale.get(m) ?? 1, w));
  }
  for (let f = 0; f < got.length; f++) {
    const g = got[f]!, w = want[f]!;
    if (same(g, w)) continue;
    const m = matrixOf(Math.floor(f / 2));
    if (m >= 0 && Number.isFinite(g) && Number.isFinite(w) && Math.abs(g - w) <= tol * scale.get(m)!) continue;
    assert.fail(`${what}: float ${f} (pair ${Math.floor(f / 2)}, matrix ${m}) is ${g}, expected ${w}${m >= 0 ? '' : ' (outside B: must be unchanged)'}`);
  }
}
