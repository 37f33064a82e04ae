/**
 * Test matrices and checks of TSQR (test/cuda/tsqr-host-emulation.test.ts, test/gpu/tsqr.test.ts):
 * tall matrices with chosen singular values, and the two ratios of the tests,
 * ||A - Q R||_F / (n eps ||A||_F) and ||Q^T Q - I||_F / (n eps), accumulated in float64.
 */
import { DTYPE_EPS, type DType } from '../../src/core/dtype.js';
import type { Rng } from './random.js';

/** A standard normal sample (Box-Muller on the test's generator). */
export function gaussian(rng: Rng): number {
  const u = 1 - rng.next();   // (0, 1]
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

/** m x n with orthonormal columns (column-major, Gram-Schmidt twice on a Gaussian matrix). */
export function orthonormal(rng: Rng, m: number, n: number): Float64Array {
  const q = new Float64Array(m * n);
  for (let i = 0; i < q.length; i++) q[i] = gaussian(rng);
  for (let j = 0; j < n; j++) {
    for (let pass = 0; pass < 2; pass++)
      for (let k = 0; k < j; k++) {
        let d = 0;
        for (let i = 0; i < m; i++) d += q[i + k * m]! * q[i + j * m]!;
        for (let i = 0; i < m; i++) q[i + j * m] -= d * q[i + k * m]!;
      }
    let s = 0;
    for (let i = 0; i < m; i++) s += q[i + j * m]! ** 2;
    s = Math.sqrt(s);
    for (let i = 0; i < m; i++) q[i + j * m] /= s;
  }
  return q;
}

/**
 * m x n, column-major, A = U diag(sigma) V^T with random orthonormal U, V and singular values
 * from 1 down to 1 / cond, evenly spaced in the logarithm (a "graded" spectrum when cond is big).
 */
export function withCondition(rng: Rng, m: number, n: number, cond: number): Float64Array {
  const u = orthonormal(rng, m, n);
  const v = orthonormal(rng, n, n);
  const a = new Float64Array(m * n);
  for (let k = 0; k < n; k++) {
    const s = n === 1 ? 1 : cond ** (-k / (n - 1));
    for (let j = 0; j < n; j++) {
      const f = s * v[j + k * n]!;
      for (let i = 0; i < m; i++) a[i + j * m] += u[i + k * m]! * f;
    }
  }
  return a;
}

/** Gaussian columns scaled from 1 down to 10^-decades: graded, its QR benign for Householder. */
export function graded(rng: Rng, m: number, n: number, decades: number): Float64Array {
  const a = new Float64Array(m * n);
  for (let j = 0; j < n; j++) {
    const s = 10 ** (-(decades * j) / Math.max(1, n - 1));
    for (let i = 0; i < m; i++) a[i + j * m] = gaussian(rng) * s;
  }
  return a;
}

export interface QrRatios { residual: number; orthogonality: number; upper: boolean; positive: boolean }

/**
 * ||A - Q R||_F / (n eps ||A||_F) and ||Q^T Q - I||_F / (n eps) in float64, the matrices read
 * through accessors (row i, column j); and whether R is upper triangular with a positive diagonal.
 */
export function qrRatios(dtype: DType, m: number, n: number,
  aAt: (i: number, j: number) => number, qAt: (i: number, j: number) => number, rAt: (i: number, j: number) => number): QrRatios {
  const eps = DTYPE_EPS[dtype];
  let res = 0, norm = 0;
  const row = new Float64Array(n);
  const gram = new Float64Array(n * n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) row[j] = qAt(i, j);
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let k = 0; k <= j; k++) s += row[k]! * rAt(k, j);
      const d = aAt(i, j) - s;
      res += d * d;
      norm += aAt(i, j) ** 2;
      for (let k = 0; k <= j; k++) gram[k + j * n] += row[k]! * row[j]!;
    }
  }
  let orth = 0;
  for (let j = 0; j < n; j++) for (let k = 0; k <= j; k++) {
    const d = gram[k + j * n]! - (k === j ? 1 : 0);
    orth += (k === j ? 1 : 2) * d * d;
  }
  let upper = true, positive = true;
  for (let j = 0; j < n; j++) {
    if (!(rAt(j, j) > 0)) positive = false;
    for (let i = j + 1; i < n; i++) if (rAt(i, j) !== 0) upper = false;
  }
  return { residual: Math.sqrt(res) / (n * eps * Math.sqrt(norm)), orthogonality: Math.sqrt(orth) / (n * eps), upper, positive };
}
