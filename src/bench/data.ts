/**
 * Random test and benchmark data, generated cheaply enough for millions of matrices
 * (xorshift, no allocation per element). Never zeros: they hide unwritten outputs.
 */
import { allocate, type DType, type FloatArray } from '../core/dtype.js';

/** A small seeded generator (xorshift32), uniform in [-1, 1). */
/** One xorshift32 step (13, 17, 5). */
function xorshift32(x: number): number {
  x ^= x << 13; x >>>= 0;
  x ^= x >>> 17;
  x ^= x << 5;
  return x >>> 0;
}

export class Random {
  private s: number;
  constructor(seed = 12345) {
    this.s = (seed >>> 0) || 0x9e3779b9;
  }
  next(): number {
    this.s = xorshift32(this.s);
    return this.s / 2147483648 - 1;
  }
  /** a[from:to] := the next values, as `next` would give them (the state kept in a local: about 2x faster). */
  fill<T extends FloatArray>(a: T, from = 0, to = a.length): T {
    let x = this.s;
    for (let i = from; i < to; i++) {
      x = xorshift32(x);
      a[i] = x / 2147483648 - 1;
    }
    this.s = x;
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
 * conditioned. The lower triangle is drawn column by column, then mirrored in tiles (a mirror
 * row by row thrashes the cache at the large sizes: 30720 x 30720 is 7.5 GB).
 */
export function randomSpd(dtype: DType, n: number, count: number, rng: Random): FloatArray {
  const a = allocate(dtype, n * n * count);
  for (let m = 0; m < count; m++) {
    const base = m * n * n;
    for (let j = 0; j < n; j++) {
      a[base + j + j * n] = n + Math.abs(rng.next());
      for (let i = j + 1; i < n; i++) a[base + i + j * n] = rng.next();
    }
    mirrorLower(a, base, n, n);
  }
  return a;
}

/** count random symmetric n x n matrices: randomMatrices' data with each lower triangle mirrored over the upper. */
export function randomSymmetric(dtype: DType, n: number, count: number, rng: Random): FloatArray {
  const a = randomMatrices(dtype, n, n, count, rng);
  for (let m = 0; m < count; m++) mirrorLower(a, m * n * n, n, n);
  return a;
}

/** Copies the strict lower triangle of the n x n matrix at `offset` (leading dimension ld) over the upper one, in cache-sized tiles. */
export function mirrorLower(a: FloatArray, offset: number, n: number, ld: number): void {
  const T = 64;
  for (let j0 = 0; j0 < n; j0 += T) {
    for (let i0 = j0; i0 < n; i0 += T) {
      for (let j = j0; j < Math.min(j0 + T, n); j++) {
        for (let i = Math.max(i0, j + 1); i < Math.min(i0 + T, n); i++) a[offset + j + i * ld] = a[offset + i + j * ld]!;
      }
    }
  }
}

/** count general n x n matrices with a dominant diagonal, so LU is well conditioned. */
export function randomGeneral(dtype: DType, n: number, count: number, rng: Random): FloatArray {
  const a = randomMatrices(dtype, n, n, count, rng);
  for (let m = 0; m < count; m++) for (let j = 0; j < n; j++) a[m * n * n + j + j * n] += Math.sign(a[m * n * n + j + j * n]!) * n / 2;
  return a;
}

/**
 * count Hermitian positive definite n x n complex matrices, packed as interleaved (re, im) pairs of
 * `real` (2 n^2 floats a matrix, column-major): lower entries with both parts in [-1, 1), the upper
 * triangle their conjugates, a real diagonal 2n + |noise|, so each is strictly diagonally dominant
 * (|a_ij| < sqrt(2)) and well conditioned.
 */
export function randomHpd(real: DType, n: number, count: number, rng: Random): FloatArray {
  return hermitian(real, n, count, rng, () => 2 * n + Math.abs(rng.next()));
}

/**
 * count random Hermitian n x n complex matrices (interleaved pairs of `real`, column-major): the
 * complex form of randomSymmetric, not diagonally dominant: lower entries with both parts in
 * [-1, 1), the upper triangle their conjugates, a real diagonal in [-1, 1).
 */
export function randomHermitian(real: DType, n: number, count: number, rng: Random): FloatArray {
  return hermitian(real, n, count, rng, () => rng.next());
}

/** Hermitian matrices: lower entries with both parts from `rng`, the upper triangle their conjugates, the real diagonal from `diagonal`. */
function hermitian(real: DType, n: number, count: number, rng: Random, diagonal: () => number): FloatArray {
  const a = allocate(real, 2 * n * n * count);
  for (let m = 0; m < count; m++) {
    const base = 2 * m * n * n;
    for (let j = 0; j < n; j++) {
      a[base + 2 * (j + j * n)] = diagonal();
      for (let i = j + 1; i < n; i++) {
        const [lower, upper] = [base + 2 * (i + j * n), base + 2 * (j + i * n)];
        a[lower] = rng.next();
        a[lower + 1] = rng.next();
        a[upper] = a[lower]!;
        a[upper + 1] = -a[lower + 1]!;
      }
    }
  }
  return a;
}

/** count general n x n complex matrices (interleaved pairs of `real`) whose diagonal's real parts are moved n away from zero, so LU is well conditioned. */
export function randomComplexGeneral(real: DType, n: number, count: number, rng: Random): FloatArray {
  const a = randomMatrices(real, 2 * n, n, count, rng);
  for (let m = 0; m < count; m++) {
    for (let j = 0; j < n; j++) {
      const d = 2 * (m * n * n + j + j * n);
      a[d] += (a[d]! < 0 ? -1 : 1) * n;
    }
  }
  return a;
}
