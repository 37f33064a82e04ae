/**
 * The check of the vendor's eigenvalues (complex heev) and singular values (complex gesvd) in the
 * complex bench rows (bench/complex-vendor.ts), against the CPU reference (cpu/complex/zheev.ts,
 * zgesvd.ts) run in float64 on the pristine matrices: the largest difference of the sorted values,
 * max_i |x_i - x_ref,i| / (n eps ||A||_F). A backward stable method's values lie within a small
 * multiple of eps ||A||_2 <= eps ||A||_F of the exact ones (Weyl's inequality for both
 * decompositions), so above VALUES_LIMIT (or NaN) they are wrong. Only the values are compared: the
 * vectors of clustered values are not unique.
 */
import type { FloatArray } from '../core/dtype.js';
import { heevMatrix } from '../cpu/complex/zheev.js';
import { gesvdMatrixComplex } from '../cpu/complex/zgesvd.js';

/** Above this normalised difference (or NaN) the values are wrong. */
export const VALUES_LIMIT = 100;

/** Matrices a row's check reads at most (the CPU reference's Jacobi sweeps cost far more than an LU product). */
export const VALUES_SAMPLE = 8;

/**
 * The eigenvalues, ascending, of the Hermitian n x n matrix whose lower triangle `a` holds
 * (interleaved pairs, column-major, ld n; the upper triangle and the diagonal's imaginary parts not
 * read, as the vendor's lower call), in float64.
 */
export function hermitianEigenvalues(a: FloatArray, n: number): Float64Array {
  if (a.length < 2 * n * n) throw new RangeError(`hermitianEigenvalues: an array shorter than one ${n} x ${n} matrix`);
  const full = new Float64Array(2 * n * n);
  for (let j = 0; j < n; j++) {
    full[2 * (j + j * n)] = a[2 * (j + j * n)]!;
    for (let i = j + 1; i < n; i++) {
      const [re, im] = [a[2 * (i + j * n)]!, a[2 * (i + j * n) + 1]!];
      full[2 * (i + j * n)] = re;
      full[2 * (i + j * n) + 1] = im;
      full[2 * (j + i * n)] = re;
      full[2 * (j + i * n) + 1] = -im;
    }
  }
  const d = new Float64Array(n);
  if (heevMatrix(full, new Float64Array(0), d, n, false) === n + 2) d.fill(NaN);
  return d;
}

/** The singular values, descending, of the complex n x n matrix `a` (interleaved pairs, column-major, ld n), in float64. */
export function complexSingularValues(a: FloatArray, n: number): Float64Array {
  if (a.length < 2 * n * n) throw new RangeError(`complexSingularValues: an array shorter than one ${n} x ${n} matrix`);
  const g = Float64Array.from(a.subarray(0, 2 * n * n));
  const s = new Float64Array(n);
  if (gesvdMatrixComplex(g, new Float64Array(2 * n * n), s, n, n) === n + 2) s.fill(NaN);
  return s;
}

/**
 * max_i |got_i - reference_i| / (n eps ||A||_F) over the n values of one matrix, both sorted
 * ascending first (the vendor's order is not the reference's everywhere); `a` the matrix (pairs,
 * both triangles for a Hermitian one), for its norm. NaN in `got` (or the reference) gives NaN.
 */
export function valuesDeviation(a: FloatArray, reference: Float64Array, got: FloatArray, n: number, eps: number): number {
  if (reference.length < n || got.length < n) throw new RangeError(`valuesDeviation: fewer than ${n} values`);
  let norm = 0;
  for (let x = 0; x < 2 * n * n; x++) norm += a[x]! ** 2;
  const sorted = (v: ArrayLike<number>): Float64Array => Float64Array.from({ length: n }, (_, i) => v[i]!).sort();
  const [r, g] = [sorted(reference), sorted(got)];
  let worst = 0;
  for (let i = 0; i < n; i++) {
    const d = Math.abs(g[i]! - r[i]!);
    if (Number.isNaN(d)) return NaN;
    worst = Math.max(worst, d);
  }
  return worst / (Math.max(1, n) * eps * Math.max(Math.sqrt(norm), Number.MIN_VALUE));
}
