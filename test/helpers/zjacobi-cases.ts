/**
 * Complex test matrices and the checks of a decomposition that do not need a second
 * implementation, shared by the complex Jacobi tests (heev, gesvd; host emulation and GPU).
 * Hermitian: random, clustered (eigenvalues 1 + k 1e-9 ...), repeated (three distinct values),
 * diagonal (converged from the start), zero, graded (rows and columns scaled by 2^-i) and positive
 * definite. General m x n: random, repeated singular values, zero, graded columns (10^-10 ...
 * 10^10) and rank-deficient. The ratios are LAPACK's: ||A V - V diag(w)||_F / (n ||A||_F eps),
 * ||A - U diag(s) VT||_F / (max(m, n) ||A||_F eps), ||Q^H Q - I||_F / (n eps).
 */
import { get, identity, multiply, norm, op, random, randomHermitian, randomHpd, set, subtract, zeros, type Z } from './complex.js';
import type { Rng } from './random.js';

export type HermitianKind = 'random' | 'clustered' | 'repeated' | 'diagonal' | 'zero' | 'graded' | 'hpd';
export const HERMITIAN_KINDS: readonly HermitianKind[] = ['random', 'clustered', 'repeated', 'diagonal', 'zero', 'graded', 'hpd'];

/** A random unitary matrix: the product of two Householder reflectors I - 2 u u^H / (u^H u). */
export function randomUnitary(rng: Rng, n: number): Z {
  let q = identity(n);
  for (let r = 0; r < 2; r++) {
    const u = random(rng, n, 1);
    const uu = norm(u) ** 2;
    const h = identity(n);
    const outer = multiply(u, op(u, 'C'));
    for (let k = 0; k < h.d.length; k++) h.d[k] = h.d[k]! - (uu > 0 ? (2 / uu) * outer.d[k]! : 0);
    q = multiply(q, h);
  }
  return q;
}

/** U diag(d) U^H for a random unitary U, made exactly Hermitian (the lower triangle mirrored, the diagonal real). */
function withSpectrum(rng: Rng, d: readonly number[]): Z {
  const n = d.length;
  const u = randomUnitary(rng, n);
  const ud = zeros(n, n);
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) { const [re, im] = get(u, i, j); set(ud, i, j, re * d[j]!, im * d[j]!); }
  const a = multiply(ud, op(u, 'C'));
  for (let j = 0; j < n; j++) for (let i = 0; i <= j; i++) {
    const [re, im] = get(a, j, i);
    if (i === j) set(a, i, i, re, 0);
    else set(a, i, j, re, -im);
  }
  return a;
}

/** A Hermitian n x n matrix of `kind` (full, the diagonal real). */
export function hermitianCase(rng: Rng, kind: HermitianKind, n: number): Z {
  switch (kind) {
    case 'random': return randomHermitian(rng, n);
    case 'hpd': return randomHpd(rng, n);
    case 'clustered': return withSpectrum(rng, Array.from({ length: n }, (_, k) => (k < n / 2 ? 1 + k * 1e-9 : -2 + k * 1e-9)));
    case 'repeated': return withSpectrum(rng, Array.from({ length: n }, (_, k) => [3, -1, 0.5][k % 3]!));
    case 'diagonal': {
      const a = zeros(n, n);
      for (let i = 0; i < n; i++) set(a, i, i, rng.uniform(-1, 1), 0);
      return a;
    }
    case 'zero': return zeros(n, n);
    case 'graded': {
      const a = randomHermitian(rng, n);
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) { const [re, im] = get(a, i, j); const s = 2 ** -(i + j); set(a, i, j, re * s, im * s); }
      return a;
    }
  }
}

/** ||A V - V diag(w)||_F / (n ||A||_F eps) (1 for A = 0 if the residual is 0). */
export function heevResidual(a: Z, v: Z, w: readonly number[], eps: number): number {
  const n = a.rows;
  const vw = zeros(n, n);
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) { const [re, im] = get(v, i, j); set(vw, i, j, re * w[j]!, im * w[j]!); }
  const r = norm(subtract(multiply(a, v), vw));
  const an = norm(a);
  return r === 0 ? 0 : r / (Math.max(1, n) * (an === 0 ? 1 : an) * eps);
}

/** ||V^H V - I||_F / (n eps). */
export function unitaryResidual(v: Z, eps: number): number {
  return norm(subtract(multiply(op(v, 'C'), v), identity(v.cols))) / (Math.max(1, v.cols) * eps);
}

export type GeneralKind = 'random' | 'repeated' | 'zero' | 'graded' | 'rank-deficient';
export const GENERAL_KINDS: readonly GeneralKind[] = ['random', 'repeated', 'zero', 'graded', 'rank-deficient'];

/** The first `cols` columns of a. */
const leading = (a: Z, cols: number): Z => ({ rows: a.rows, cols, d: a.d.slice(0, 2 * a.rows * cols) });

/** A complex m x n matrix of `kind`. */
export function generalCase(rng: Rng, kind: GeneralKind, m: number, n: number): Z {
  const k = Math.min(m, n);
  switch (kind) {
    case 'random': return random(rng, m, n);
    case 'zero': return zeros(m, n);
    case 'repeated': {
      // U_k diag(s) V_k^H, s = 4 (first half), 1.
      const u = leading(randomUnitary(rng, m), k);
      const v = leading(randomUnitary(rng, n), k);
      const us = zeros(m, k);
      for (let j = 0; j < k; j++) for (let i = 0; i < m; i++) { const [re, im] = get(u, i, j); const s = j < k / 2 ? 4 : 1; set(us, i, j, re * s, im * s); }
      return multiply(us, op(v, 'C'));
    }
    case 'graded': {
      const b = random(rng, m, n);
      for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) {
        const [re, im] = get(b, i, j);
        const s = 10 ** (n === 1 ? 0 : -10 + (20 * j) / (n - 1));
        set(b, i, j, re * s, im * s);
      }
      return b;
    }
    case 'rank-deficient': {
      const r = Math.max(1, Math.floor(k / 2));
      return multiply(random(rng, m, r), op(random(rng, n, r), 'C'));
    }
  }
}

/** ||A - U diag(s) VT||_F / (max(m, n) ||A||_F eps) (||A|| taken as 1 where A = 0). */
export function svdResidual(a: Z, u: Z, s: readonly number[], vt: Z, eps: number): number {
  const us = zeros(u.rows, u.cols);
  for (let j = 0; j < u.cols; j++) for (let i = 0; i < u.rows; i++) { const [re, im] = get(u, i, j); set(us, i, j, re * s[j]!, im * s[j]!); }
  const an = norm(a);
  return norm(subtract(a, multiply(us, vt))) / (Math.max(1, a.rows, a.cols) * (an === 0 ? 1 : an) * eps);
}
