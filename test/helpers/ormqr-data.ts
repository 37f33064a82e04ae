/**
 * Test data for ormqr (CPU reference, host emulation, GPU): geqrf's reflectors of a random
 * matrix, the complete Q they define formed explicitly (orgqr in float64 on an r x r copy, so a
 * float32 case is checked against the exact Q of its rounded reflectors), and op(Q) C or C op(Q)
 * as a dense float64 product.
 */
import { strided } from '../../src/core/batch.js';
import { referenceContext } from '../../src/api/context.js';
import { allocate, DTYPE_EPS, type DType, type FloatArray } from '../../src/core/dtype.js';
import type { Side } from '../../src/core/enums.js';
import type { Op } from '../../src/core/ops.js';
import { Rng } from './random.js';

export const SIDES: readonly Side[] = ['left', 'right'];
export const TRANSES: readonly Op[] = ['N', 'T'];

/** geqrf of a random r x p matrix (ld = r) in `dtype`: its first k reflectors (k <= min(r, p)) and their tau. */
export function reflectors(rng: Rng, dtype: DType, r: number, p: number, k = Math.min(r, p)): { a: FloatArray; tau: FloatArray } {
  const a = allocate(dtype, r * p);
  for (let i = 0; i < a.length; i++) a[i] = rng.uniform();
  const full = allocate(dtype, Math.min(r, p));
  referenceContext.geqrf({ a: strided(a, { rows: r, cols: p }), tau: strided(full, { rows: full.length, cols: 1 }) });
  return { a, tau: full.slice(0, k) };
}

/** `count` float64 batches of reflectors(rng, 'float64', r, p), packed: A (r x p each) and tau (min(r, p) each). */
export function reflectorBatch(rng: Rng, r: number, p: number, count: number): { a: Float64Array; tau: Float64Array } {
  const k = Math.min(r, p);
  const a = new Float64Array(count * r * p);
  const tau = new Float64Array(count * k);
  for (let i = 0; i < count; i++) {
    const x = reflectors(rng, 'float64', r, p);
    a.set(x.a, i * r * p);
    tau.set(x.tau, i * k);
  }
  return { a, tau };
}

/** The complete r x r Q = H(0) ... H(k-1) of reflectors in a (r x >= k, ld = lda), in float64. */
export function explicitQ(a: ArrayLike<number>, lda: number, tau: ArrayLike<number>, r: number, k: number): Float64Array {
  const q = new Float64Array(r * r);
  for (let j = 0; j < k; j++) for (let i = 0; i < r; i++) q[i + j * r] = a[i + j * lda]!;
  referenceContext.orgqr({ a: strided(q, { rows: r, cols: r }), tau: strided(Float64Array.from(tau), { rows: k, cols: 1 }) });
  return q;
}

/** op(Q) C (left) or C op(Q) (right) in float64; C m x n dense (ld = m), Q of order m or n. */
export function applyDense(side: Side, trans: Op, q: Float64Array, c: ArrayLike<number>, m: number, n: number): Float64Array {
  const out = new Float64Array(m * n);
  const r = side === 'left' ? m : n;
  const qe = (i: number, j: number): number => (trans === 'N' ? q[i + j * r]! : q[j + i * r]!);
  for (let j = 0; j < n; j++)
    for (let i = 0; i < m; i++) {
      let s = 0;
      if (side === 'left') for (let p = 0; p < m; p++) s += qe(i, p) * c[p + j * m]!;
      else for (let p = 0; p < n; p++) s += c[i + p * m]! * qe(p, j);
      out[i + j * m] = s;
    }
  return out;
}

export const fro = (a: ArrayLike<number>): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * a[i]!;
  return Math.sqrt(s);
};

/**
 * Tolerance per element of C for a GPU result against the CPU reference (C's entries O(1), Q
 * orthogonal): k <= r reflectors of length r, each applied with an error of O(r eps).
 */
export const ormqrTolerance = (dtype: DType, r: number): number => DTYPE_EPS[dtype] * 32 * Math.max(8, r);
