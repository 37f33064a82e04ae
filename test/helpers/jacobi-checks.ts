/**
 * Test matrices and checks for syev and gesvd that do not depend on the Jacobi reference:
 * matrices with a known spectrum (Q diag(d) Q^T, Q a product of Householder reflectors), and the
 * residuals: ||A V - V diag(w)||_F / (n eps ||A||_F), ||V^T V - I||_F / (n eps),
 * ||A - U diag(s) VT||_F / (max(m, n) eps ||A||_F).
 */
import assert from 'node:assert/strict';

import { list, strided, type Batch } from '../../src/core/batch.js';
import type { SyevRequest } from '../../src/core/ops.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/index.js';
import { Rng } from './random.js';

/** A dense column-major m x n matrix (ld = m) in float64. */
export interface Mat { m: number; n: number; d: Float64Array }

export const mat = (m: number, n: number): Mat => ({ m, n, d: new Float64Array(m * n) });
export const get = (a: Mat, i: number, j: number): number => a.d[i + j * a.m]!;

export function randomMat(rng: Rng, m: number, n: number): Mat {
  const a = mat(m, n);
  for (let k = 0; k < m * n; k++) a.d[k] = rng.uniform();
  return a;
}

export function mul(a: Mat, b: Mat, ta = false, tb = false): Mat {
  const m = ta ? a.n : a.m, k = ta ? a.m : a.n, n = tb ? b.m : b.n;
  const c = mat(m, n);
  for (let j = 0; j < n; j++)
    for (let i = 0; i < m; i++) {
      let s = 0;
      for (let p = 0; p < k; p++) s += (ta ? get(a, p, i) : get(a, i, p)) * (tb ? get(b, j, p) : get(b, p, j));
      c.d[i + j * m] = s;
    }
  return c;
}

export function frob(a: Mat): number {
  let s = 0;
  for (const x of a.d) s += x * x;
  return Math.sqrt(s);
}

/** An m x m orthogonal matrix: a product of `reflectors` random Householder reflectors. */
export function orthogonal(rng: Rng, m: number, reflectors = Math.min(m, 6)): Mat {
  const q = mat(m, m);
  for (let i = 0; i < m; i++) q.d[i + i * m] = 1;
  for (let r = 0; r < reflectors; r++) {
    const v = Array.from({ length: m }, () => rng.uniform());
    const vv = v.reduce((s, x) => s + x * x, 0);
    if (vv === 0) continue;
    // Q := Q (I - 2 v v^T / v^T v)
    for (let i = 0; i < m; i++) {
      let dot = 0;
      for (let k = 0; k < m; k++) dot += q.d[i + k * m]! * v[k]!;
      for (let k = 0; k < m; k++) q.d[i + k * m] -= (2 * dot * v[k]!) / vv;
    }
  }
  return q;
}

/** Q diag(d) Q^T (n = d.length), symmetric to the last bit. */
export function withSpectrum(rng: Rng, d: readonly number[]): Mat {
  const n = d.length;
  const q = orthogonal(rng, n);
  const a = mat(n, n);
  for (let j = 0; j < n; j++)
    for (let i = j; i < n; i++) {
      let s = 0;
      for (let k = 0; k < n; k++) s += get(q, i, k) * d[k]! * get(q, j, k);
      a.d[i + j * n] = s;
      a.d[j + i * n] = s;
    }
  return a;
}

/** U diag(s) V^T of m x n with the given singular values (k = s.length = min(m, n)). */
export function withSingularValues(rng: Rng, m: number, n: number, s: readonly number[]): Mat {
  const u = orthogonal(rng, m);
  const v = orthogonal(rng, n);
  const a = mat(m, n);
  for (let j = 0; j < n; j++)
    for (let i = 0; i < m; i++) {
      let t = 0;
      for (let k = 0; k < s.length; k++) t += get(u, i, k) * s[k]! * get(v, j, k);
      a.d[i + j * m] = t;
    }
  return a;
}

export function symmetrize(a: Mat): Mat {
  const n = a.n;
  for (let j = 0; j < n; j++) for (let i = j + 1; i < n; i++) a.d[j + i * n] = a.d[i + j * n]!;
  return a;
}

/** ||A V - V diag(w)||_F / (n eps ||A||_F) (||A|| taken as 1 when A = 0). */
export function eigenResidual(a: Mat, v: Mat, w: ArrayLike<number>, eps: number): number {
  const av = mul(a, v);
  for (let j = 0; j < v.n; j++) for (let i = 0; i < v.m; i++) av.d[i + j * v.m] -= get(v, i, j) * w[j]!;
  return frob(av) / (Math.max(1, a.n) * eps * (frob(a) || 1));
}

/** ||Q^T Q - I||_F / (n eps) for the columns of q (rows: transpose first). */
export function orthoResidual(q: Mat, eps: number, rows = false): number {
  const g = rows ? mul(q, q, false, true) : mul(q, q, true, false);
  for (let i = 0; i < g.m; i++) g.d[i + i * g.m] -= 1;
  return frob(g) / (Math.max(1, g.m) * eps);
}

/** ||A - U diag(s) VT||_F / (max(m, n) eps ||A||_F). */
export function svdResidual(a: Mat, u: Mat, s: ArrayLike<number>, vt: Mat, eps: number): number {
  const us = mat(u.m, u.n);
  for (let j = 0; j < u.n; j++) for (let i = 0; i < u.m; i++) us.d[i + j * u.m] = get(u, i, j) * s[j]!;
  const r = mul(us, vt);
  for (let k = 0; k < r.d.length; k++) r.d[k] -= a.d[k]!;
  return frob(r) / (Math.max(1, a.m, a.n) * eps * (frob(a) || 1));
}

/** The named kinds of test matrices for syev, n x n symmetric. */
export const SYM_KINDS = ['random', 'clustered', 'repeated', 'diagonal', 'zero', 'graded', 'rank-deficient'] as const;
/**
 * Kinds whose tridiagonal does not split but whose spectrum is mostly one cluster in dstein's sense
 * (eigenvalues within 1e-3 ||T|| of their neighbours): 'dominant', diagonal n + |r| and off-diagonal
 * r uniform in (-1, 1) (from n ~ 200 nearly every eigenvalue joins one cluster); 'tight', half the
 * eigenvalues within 1e-9 of each other, the rest spread. Not in SYM_KINDS: tests ask for them.
 */
export const CLUSTER_KINDS = ['dominant', 'tight'] as const;
export type SymKind = (typeof SYM_KINDS)[number] | (typeof CLUSTER_KINDS)[number];

/** A symmetric matrix of `kind` and, where known by construction, its eigenvalues (ascending). */
export function symmetricCase(rng: Rng, kind: SymKind, n: number): { a: Mat; spectrum?: number[] } {
  const sorted = (d: number[]): number[] => [...d].sort((x, y) => x - y);
  switch (kind) {
    case 'random': return { a: symmetrize(randomMat(rng, n, n)) };
    case 'clustered': {
      const d = Array.from({ length: n }, (_, i) => 1 + (i % 3) * 1e-12 + (i < n / 2 ? 0 : 2));
      return { a: withSpectrum(rng, d), spectrum: sorted(d) };
    }
    case 'repeated': {
      const d = Array.from({ length: n }, (_, i) => (i % 2 === 0 ? -3 : 5));
      return { a: withSpectrum(rng, d), spectrum: sorted(d) };
    }
    case 'diagonal': {
      const a = mat(n, n);
      const d = Array.from({ length: n }, () => rng.uniform(-10, 10));
      d.forEach((x, i) => { a.d[i + i * n] = x; });
      return { a, spectrum: sorted(d) };
    }
    case 'zero': return { a: mat(n, n), spectrum: new Array<number>(n).fill(0) };
    case 'graded': {
      // D B D with D from 1e-5 to 1e5: entries spanning 1e-10 ... 1e10.
      const b = symmetrize(randomMat(rng, n, n));
      const dg = Array.from({ length: n }, (_, i) => 10 ** (n === 1 ? 0 : -5 + (10 * i) / (n - 1)));
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) b.d[i + j * n] *= dg[i]! * dg[j]!;
      return { a: b };
    }
    case 'rank-deficient': {
      const r = Math.max(1, Math.floor(n / 3));
      const x = randomMat(rng, n, r);
      return { a: symmetrize(mul(x, x, false, true)) };
    }
    case 'dominant': {
      const a = symmetrize(randomMat(rng, n, n));
      for (let i = 0; i < n; i++) a.d[i + i * n] = n + Math.abs(rng.uniform(-1, 1));
      return { a };
    }
    case 'tight': {
      const d = Array.from({ length: n }, (_, i) => (i < n / 2 ? 1 + 1e-9 * i : rng.uniform(-2, 2)));
      return { a: withSpectrum(rng, d), spectrum: sorted(d) };
    }
  }
}

/** The named kinds of test matrices for gesvd. */
export const SVD_KINDS = ['random', 'repeated', 'zero', 'graded', 'rank-deficient'] as const;
export type SvdKind = (typeof SVD_KINDS)[number];

export function generalCase(rng: Rng, kind: SvdKind, m: number, n: number): { a: Mat; values?: number[] } {
  const k = Math.min(m, n);
  switch (kind) {
    case 'random': return { a: randomMat(rng, m, n) };
    case 'repeated': {
      const s = Array.from({ length: k }, (_, i) => (i < k / 2 ? 4 : 1));
      return { a: withSingularValues(rng, m, n, s), values: [...s].sort((x, y) => y - x) };
    }
    case 'zero': return { a: mat(m, n), values: new Array<number>(k).fill(0) };
    case 'graded': {
      const b = randomMat(rng, m, n);
      const dc = Array.from({ length: n }, (_, j) => 10 ** (n === 1 ? 0 : -10 + (20 * j) / (n - 1)));
      for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) b.d[i + j * m] *= dc[j]!;
      return { a: b };
    }
    case 'rank-deficient': {
      const r = Math.max(1, Math.floor(k / 2));
      return { a: mul(randomMat(rng, m, r), randomMat(rng, n, r), false, true) };
    }
  }
}

/**
 * Three random n x n (default 100) float64 matrices as a list batch (the pointer form) through `run` with
 * jobz 'vectors', uplo 'upper' (the GPU tests of both syev designs): info 0, and for each matrix
 * ||A V - V diag(w)|| and ||V^T V - I|| (ratios as above) below `limit`.
 */
export function checkListSyev(dev: GpuDevice, rng: Rng, limit: number, run: (r: SyevRequest<DeviceArray, DeviceArray>) => void, n = 100): void {
  const eps = 2 ** -52;
  const mats = Array.from({ length: 3 }, () => symmetricCase(rng, 'random', n).a);
  const arrays = mats.map((a) => dev.upload(Float64Array.from(a.d)));
  const dW = dev.alloc('float64', 3 * n);
  const dInfo = dev.alloc('int32', 3);
  try {
    run({ jobz: 'vectors', uplo: 'upper', a: list(arrays, { rows: n }) as Batch<DeviceArray>, w: strided(dW, { rows: n, cols: 1, count: 3 }), info: dInfo });
    const w = dev.download(dW) as Float64Array;
    assert.deepEqual([...(dev.download(dInfo) as Int32Array)], [0, 0, 0]);
    mats.forEach((a, k) => {
      const v = mat(n, n);
      v.d.set(dev.download(arrays[k]!) as Float64Array);
      const r = eigenResidual(a, v, w.subarray(k * n, (k + 1) * n), eps);
      assert.ok(r < limit && orthoResidual(v, eps) < limit, `list ${n} x ${n} #${k}: ratio ${r}`);
    });
  } finally {
    for (const x of arrays) x.dispose();
    dW.dispose(); dInfo.dispose();
  }
}
