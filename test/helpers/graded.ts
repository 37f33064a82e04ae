/**
 * Graded symmetric positive definite matrices A = D H D (D diagonal over many orders of
 * magnitude, H with unit diagonal and small off-diagonal row sums, so well conditioned), and an
 * exact test of where their eigenvalues lie, independent of any eigensolver: Sylvester's law of
 * inertia on A - sigma I, its leading principal minors computed exactly in BigInt (Bareiss'
 * fraction-free elimination on the float entries as integers times a power of two). The count of
 * eigenvalues below sigma is then exact for the matrix as stored, so a computed eigenvalue w_j
 * is within relative delta of the exact j-th one iff count(w_j (1 - delta)) <= j < count(w_j (1 + delta)).
 *
 * This is the README's claim for Jacobi (Demmel and Veselic): the eigenvalues of A = D H D come
 * out with relative error of order n eps cond(H), however small they are; a method accurate only
 * to n eps ||A|| (QR-based LAPACK) misses the small ones entirely.
 */
import { Rng } from './random.js';

/** Bound on the off-diagonal row sums of H: its eigenvalues lie in [1 - R, 1 + R] (Gershgorin), cond(H) <= 3. */
export const GRADED_ROW_SUM = 0.5;
export const GRADED_COND_BOUND = (1 + GRADED_ROW_SUM) / (1 - GRADED_ROW_SUM);

/**
 * Orders of magnitude D spans per dtype: A's entries go down to 10^(-2 orders), and a Jacobi
 * sweep forms products of two of them (a_pp a_qq in the convergence test), so float32 stays at 8
 * (products near 1e-32, inside its range; 16 would underflow) and float64 takes 16.
 */
export const GRADED_ORDERS = { float64: 16, float32: 8 } as const;

/** An n x n graded SPD matrix, column-major, float64: D = diag(10^(-orders t)), t over [0, 1] in a random order. */
export function gradedSpd(rng: Rng, n: number, orders: number): Float64Array {
  const h = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    h[j + j * n] = 1;
    for (let i = j + 1; i < n; i++) h[i + j * n] = h[j + i * n] = (rng.uniform(-1, 1) * GRADED_ROW_SUM) / Math.max(1, n - 1);
  }
  const t = Array.from({ length: n }, (_, i) => (n === 1 ? 0 : i / (n - 1)));
  for (let i = n - 1; i > 0; i--) { const k = rng.int(0, i); [t[i], t[k]] = [t[k]!, t[i]!]; }
  const d = t.map((x) => 10 ** (-orders * x));
  const a = new Float64Array(n * n);
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) a[i + j * n] = d[i]! * h[i + j * n]! * d[j]!;
  return a;
}

/** x = m 2^e exactly (x finite). */
function dyadic(x: number): { m: bigint; e: number } {
  if (x === 0) return { m: 0n, e: 0 };
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0), lo = view.getUint32(4);
  const sign = hi >>> 31 ? -1n : 1n;
  const exp = (hi >>> 20) & 0x7ff;
  const frac = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  if (exp === 0x7ff) throw new Error(`not finite: ${x}`);
  return exp === 0 ? { m: sign * frac, e: -1074 } : { m: sign * ((1n << 52n) | frac), e: exp - 1075 };
}

/**
 * The number of eigenvalues of the symmetric n x n matrix `a` (column-major; entries exactly as
 * given) below sigma, exactly; undefined where a leading principal minor of A - sigma I is
 * exactly zero (then ask again with another sigma).
 */
export function eigenvaluesBelow(a: ArrayLike<number>, n: number, sigma: number): number | undefined {
  const parts: { m: bigint; e: number }[][] = [];
  const s = dyadic(sigma);
  let emin = s.e;
  for (let i = 0; i < n; i++) {
    parts.push([]);
    for (let j = 0; j < n; j++) {
      const p = dyadic(a[i + j * n]!);
      parts[i]!.push(p);
      if (p.m !== 0n) emin = Math.min(emin, p.e);
    }
  }
  const scaled = (p: { m: bigint; e: number }): bigint => (p.m === 0n ? 0n : p.m << BigInt(p.e - emin));
  const m: bigint[][] = parts.map((row, i) => row.map((p, j) => (i === j ? scaled(p) - scaled(s) : scaled(p))));
  // Bareiss: after step k, m[k][k] is the leading principal minor of order k + 1 (times 2^(-emin (k+1)) > 0).
  let prev = 1n;
  let negative = 0;
  let lastSign = 1;
  for (let k = 0; k < n; k++) {
    const pivot = m[k]![k]!;
    if (pivot === 0n) return undefined;
    const sign = pivot > 0n ? 1 : -1;
    if (sign !== lastSign) negative++;
    lastSign = sign;
    for (let i = k + 1; i < n; i++) {
      for (let j = k + 1; j < n; j++) m[i]![j] = (m[i]![j]! * pivot - m[i]![k]! * m[k]![j]!) / prev;
    }
    prev = pivot;
  }
  return negative;
}

/**
 * Checks computed eigenvalues `w` (ascending) of the stored matrix `a` for relative accuracy
 * `delta` by exact inertia counts; returns one line per eigenvalue that is off (empty: all within).
 */
export function relativeEigenvalueErrors(a: ArrayLike<number>, n: number, w: ArrayLike<number>, delta: number): string[] {
  const off: string[] = [];
  const count = (sigma: number): number => {
    // A zero leading minor is a measure-zero event: nudge sigma by one ulp-ish step.
    for (let t = 0; t < 8; t++) {
      const c = eigenvaluesBelow(a, n, sigma * (1 + t * 1e-15));
      if (c !== undefined) return c;
    }
    throw new Error(`eigenvaluesBelow: singular leading minors near ${sigma}`);
  };
  for (let j = 0; j < n; j++) {
    const x = w[j]!;
    if (!(x > 0)) { off.push(`w[${j}] = ${x} (A is positive definite)`); continue; }
    const below = count(x * (1 - delta)), upTo = count(x * (1 + delta));
    if (!(below <= j && j < upTo)) off.push(`w[${j}] = ${x}: the exact eigenvalue ${j} is not within relative ${delta} (${below} below ${x * (1 - delta)}, ${upTo} below ${x * (1 + delta)})`);
  }
  return off;
}
