/**
 * Test matrices and checks for batched QR that need no second implementation: the
 * Q of geqrf's reflectors (formed in float64 by the CPU reference's dorg2r), ||A - Q R||_F /
 * (max(m, n) eps ||A||_F) and ||Q^T Q - I||_F / (max(m, n) eps); random, graded (rows and columns
 * scaled over 12 decades), rank-deficient (rank about n / 2), zero-column and ill-conditioned
 * (U diag(s) V^T, singular values from 1 down to 1e-12: cond 1e12) matrices.
 */
import { geqr2, org2r } from '../../src/cpu/lapack/qr.js';
import type { DType } from '../../src/core/dtype.js';
import { Rng } from './random.js';

export const QR_KINDS = ['random', 'graded', 'rank-deficient', 'zero-column', 'ill-conditioned'] as const;
export type QrKind = (typeof QR_KINDS)[number];

/** r x c (r >= c) with orthonormal columns: the Q of a random matrix's Householder QR. */
function orthonormal(rng: Rng, r: number, c: number): Float64Array {
  const q = Float64Array.from({ length: r * c }, () => rng.uniform() - 0.5);
  const tau = new Float64Array(c);
  geqr2(q, tau, r, c);
  org2r(q, tau, r, c, c);
  return q;
}

/** An m x n column-major float64 matrix of `kind`, rounded to `dtype`. */
export function qrCase(rng: Rng, kind: QrKind, m: number, n: number, dtype: DType): Float64Array {
  const a = new Float64Array(m * n);
  if (kind === 'ill-conditioned') {
    const k = Math.min(m, n);
    const u = orthonormal(rng, m, k), v = orthonormal(rng, n, k);
    for (let p = 0; p < k; p++) {
      const s = 10 ** (-12 * p / Math.max(1, k - 1));
      for (let j = 0; j < n; j++) {
        const vs = s * v[j + p * n]!;
        for (let i = 0; i < m; i++) a[i + j * m] += u[i + p * m]! * vs;
      }
    }
  } else if (kind === 'rank-deficient') {
    const r = Math.max(1, Math.floor(Math.min(m, n) / 2));
    const x = Array.from({ length: m * r }, () => rng.uniform());
    const y = Array.from({ length: r * n }, () => rng.uniform());
    for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) {
      let s = 0;
      for (let p = 0; p < r; p++) s += x[i + p * m]! * y[p + j * r]!;
      a[i + j * m] = s;
    }
  } else {
    for (let q = 0; q < m * n; q++) a[q] = rng.uniform();
    if (kind === 'graded') for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) a[i + j * m] *= 10 ** (-12 * (i + j) / Math.max(1, m + n - 2));
    if (kind === 'zero-column') for (let i = 0; i < m; i++) a[i + Math.floor(n / 2) * m] = 0;
  }
  return dtype === 'float32' ? Float64Array.from(new Float32Array(a)) : a;
}

const fro = (a: ArrayLike<number>): number => { let s = 0; for (let q = 0; q < a.length; q++) s += a[q]! * a[q]!; return Math.sqrt(s); };

/**
 * The ratios of geqrf's output `f` (m x n, ld m: R on and above the diagonal, reflectors below) and
 * `tau` for the input `a`: Q (m x k) formed from them in float64, then ||A - Q R|| / (max(m, n) eps
 * ||A||) and ||Q^T Q - I|| / (max(m, n) eps). `q` may be given instead (orgqr's output, m x k).
 */
export function qrRatios(a: Float64Array, f: Float64Array, tau: ArrayLike<number>, m: number, n: number, eps: number, q?: Float64Array): { residual: number; orthogonality: number } {
  const k = Math.min(m, n);
  let Q = q;
  if (Q === undefined) {
    Q = f.slice(0, m * k);
    org2r(Q, Float64Array.from(tau), m, k, k);
  }
  const diff = new Float64Array(m * n);
  for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) {
    let s = 0;
    for (let p = 0; p <= Math.min(j, k - 1); p++) s += Q[i + p * m]! * f[p + j * m]!;
    diff[i + j * m] = a[i + j * m]! - s;
  }
  const qtq = new Float64Array(k * k);
  for (let j = 0; j < k; j++) for (let i = 0; i < k; i++) {
    let s = 0;
    for (let p = 0; p < m; p++) s += Q[p + i * m]! * Q[p + j * m]!;
    qtq[i + j * k] = s - (i === j ? 1 : 0);
  }
  const scale = Math.max(m, n) * eps;
  const na = fro(a);
  return { residual: na === 0 ? fro(diff) : fro(diff) / (scale * na), orthogonality: fro(qtq) / scale };
}

/** The CPU reference's geqrf of one matrix in float64: factors (ld m) and tau. */
export function referenceQr(a: Float64Array, m: number, n: number): { f: Float64Array; tau: Float64Array } {
  const f = a.slice();
  const tau = new Float64Array(Math.min(m, n));
  geqr2(f, tau, m, n);
  return { f, tau };
}

/** max |x - y| over the entries, relative to ||A||_F, in units of max(m, n) eps. */
export function relativeGap(x: ArrayLike<number>, y: ArrayLike<number>, normA: number, m: number, n: number, eps: number): number {
  let d = 0;
  for (let q = 0; q < x.length; q++) d = Math.max(d, Math.abs(x[q]! - y[q]!));
  return d / (Math.max(m, n) * eps * Math.max(normA, Number.MIN_VALUE));
}
