/**
 * Members of a variable-size batched LU for the tests (test/cuda/vbatched-getrf-host-emulation.test.ts,
 * test/gpu/vbatched.test.ts): how a member is filled, and its check against the CPU reference
 * (src/cpu/lapack/getrf.ts, dgetf2 on a float64 copy of the input as stored).
 *
 * float64 members are uniform in [-1, 1): their pivots are LAPACK's exactly (a near tie within
 * rounding is vanishingly rare). float32 members are a random row permutation of a matrix whose
 * first min(m, n) columns are strictly diagonally dominant (|A(j, j)| > the sum of the column's
 * other magnitudes): elimination keeps that (the Schur complement of a column diagonally dominant
 * matrix is one), so every pivot wins by a wide margin and float32 rounding cannot change which
 * row it is, while the pivots still follow the random permutation. 'singular' zeroes two columns
 * (info: the first + 1), 'nan' plants one NaN.
 */
import { DTYPE_EPS, type DType, type FloatArray } from '../../src/core/dtype.js';
import { getrfMatrix } from '../../src/cpu/lapack/getrf.js';
import type { Rng } from './random.js';

export type GetrfMemberKind = 'plain' | 'singular' | 'nan';

/** Fills member m x n at `off` (leading dimension ld) of `buf`, values rounded to `dtype`. */
export function fillGetrfMember(rng: Rng, dtype: DType, buf: FloatArray, off: number, ld: number, m: number, n: number, kind: GetrfMemberKind): void {
  const k = Math.min(m, n);
  const a = new Float64Array(m * n);
  for (let e = 0; e < a.length; e++) a[e] = rng.uniform();
  if (dtype === 'float32') {
    for (let j = 0; j < k; j++) a[j + j * m] = (rng.uniform() < 0 ? -1 : 1) * (m + 1 + rng.uniform(0, 1));
    const perm = Array.from({ length: m }, (_, i) => i);
    for (let i = m - 1; i > 0; i--) { const j = rng.int(0, i); [perm[i], perm[j]] = [perm[j]!, perm[i]!]; }
    const b = a.slice();
    for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) a[i + j * m] = b[perm[i]! + j * m]!;
  }
  if (kind === 'singular' && k >= 2) {
    const f = rng.int(0, k - 2), g = rng.int(f + 1, n - 1);
    for (const c of [f, g]) for (let i = 0; i < m; i++) a[i + c * m] = 0;
  }
  if (kind === 'nan' && k >= 1) a[rng.int(0, m - 1) + rng.int(0, n - 1) * m] = NaN;
  const round = dtype === 'float32' ? Math.fround : (x: number): number => x;
  for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) buf[off + i + j * ld] = round(a[i + j * m]!);
}

/** Equal values (a zero's sign aside), or both NaN. */
const same = (x: number, y: number): boolean => x === y || (Number.isNaN(x) && Number.isNaN(y));

export interface GetrfMemberResult {
  /** The whole buffer after the call, the member's batch index's info and its pivot slot (pivotStride entries). */
  readonly a: ArrayLike<number>;
  readonly info: number;
  readonly pivots: ArrayLike<number>;
}

/**
 * Checks one member against the reference: info and the first min(m, n) pivots exactly, the
 * factors within rounding (NaN where the reference has NaN), the member's pivots past min(m, n)
 * still `untouched`. Returns the reference's info. `input` is the buffer before the call.
 */
export function checkGetrfMember(
  what: string, dtype: DType, input: ArrayLike<number>, got: GetrfMemberResult, off: number, ld: number, m: number, n: number, untouched: number,
): number {
  const k = Math.min(m, n);
  const ref = new Float64Array(Math.max(1, m * n));
  for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) ref[i + j * m] = input[off + i + j * ld]!;
  const piv = new Int32Array(Math.max(1, k));
  const info = getrfMatrix(ref, 0, Math.max(1, m), m, n, piv, 0);
  if (got.info !== info) throw new Error(`${what}: info ${got.info}, want ${info}`);
  for (let j = 0; j < k; j++) if (got.pivots[j] !== piv[j]) throw new Error(`${what}: pivot ${j} is ${got.pivots[j]}, want ${piv[j]}`);
  for (let j = k; j < got.pivots.length; j++) if (got.pivots[j] !== untouched) throw new Error(`${what}: pivot slot ${j} (past min(m, n) = ${k}) written: ${got.pivots[j]}`);
  // Relative to the element, at least 1 (the factors' elements of random and dominant members are
  // O(1) to O(n)); the host-emulated kernels came within 5 max(m, n) eps of the reference.
  const tol = 64 * Math.max(1, m, n) * DTYPE_EPS[dtype];
  for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) {
    const w = ref[i + j * m]!, g = got.a[off + i + j * ld]!;
    if (!(same(g, w) || Math.abs(g - w) <= tol * Math.max(1, Math.abs(w)))) throw new Error(`${what} (info ${info}): (${i}, ${j}) = ${g}, want ${w}`);
  }
  return info;
}
