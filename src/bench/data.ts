/**
 * Random test and benchmark data, generated cheaply enough for millions of matrices
 * (xorshift, no allocation per element). Never zeros: they hide unwritten outputs.
 */
import { allocate, type DType, type FloatArray } from '../core/dtype.js';

/** A small seeded generator (xorshift32), uniform in [-1, 1). */
export class Random {
  private s: number;
  constructor(seed = 12345) {
    this.s = (seed >>> 0) || 0x9e3779b9;
  }
  next(): number {
    let x = this.s;
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    this.s = x;
    return x / 2147483648 - 1;
  }
  fill<T extends FloatArray>(a: T, from = 0, to = a.length): T {
    for (let i = from; i < to; i++) a[i] = this.next();
    return a;
  }
}

/** count general m x n matrices, packed column-major (ld = m). */
export function randomMatrices(dtype: DType, m: number, n: number, count: number, rng: Random): FloatArray {
  return rng.fill(allocate(dtype, m * n * count));
}

/**
 * count symmetric positive definite n x n matrices, packed: symmetric entries in [-1, 1) and
 * diagonal n + |noise|, so each is strictly diagonally dominant (SPD by Gershgorin) and well
 * conditioned.
 */
export function randomSpd(dtype: DType, n: number, count: number, rng: Random): FloatArray {
  const a = allocate(dtype, n * n * count);
  for (let m = 0; m < count; m++) {
    const base = m * n * n;
    for (let j = 0; j < n; j++) {
      a[base + j + j * n] = n + Math.abs(rng.next());
      for (let i = j + 1; i < n; i++) {
        const v = rng.next();
        a[base + i + j * n] = v;
        a[base + j + i * n] = v;
      }
    }
  }
  return a;
}

/** count general n x n matrices with a dominant diagonal, so LU is well conditioned. */
export function randomGeneral(dtype: DType, n: number, count: number, rng: Random): FloatArray {
  const a = randomMatrices(dtype, n, n, count, rng);
  for (let m = 0; m < count; m++) for (let j = 0; j < n; j++) a[m * n * n + j + j * n] += Math.sign(a[m * n * n + j + j * n]!) * n / 2;
  return a;
}
