/**
 * Fixtures for the LAPACK reference tests: a seeded PRNG, random matrices of known structure, and
 * batches laid out with padding (ld > rows, offsets, gaps between matrices) where every element that
 * the operation may not touch is poisoned with NaN, so that a read shows up as a NaN result and a
 * stray write as a changed poison.
 */
import assert from 'node:assert/strict';
import { list, matrixAt, strided, variable, type Batch, type MatrixView } from '../../../src/core/batch.js';
import { allocate, DTYPE_EPS, type DType, type FloatArray } from '../../../src/core/dtype.js';
import type { Uplo } from '../../../src/core/enums.js';
import { at, multiply, transpose, zeros, type Dense } from '../../helpers/lapack-checks.js';

export const DTYPES: readonly DType[] = ['float64', 'float32'];
export const SIZES: readonly number[] = [0, 1, 2, 3, 5, 7, 13, 16, 32, 33, 64, 100];
export const UPLOS: readonly Uplo[] = ['lower', 'upper'];
/** LAPACK's threshold for its test ratios. */
export const THRESHOLD = 30;
export const eps = (dtype: DType): number => DTYPE_EPS[dtype];

/** mulberry32: small, fast, and good enough for test data. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }
}

/** Rounds every entry to the dtype, so the dense copy is exactly what the batch stores. */
export function rounded(d: Dense, dtype: DType): Dense {
  if (dtype === 'float32') for (let i = 0; i < d.data.length; i++) d.data[i] = Math.fround(d.data[i]!);
  return d;
}

export function randomGeneral(rng: Rng, m: number, n: number, dtype: DType): Dense {
  const d = zeros(m, n);
  for (let i = 0; i < d.data.length; i++) d.data[i] = rng.uniform(-1, 1);
  return rounded(d, dtype);
}

/** G G^T / n + I with G uniform in [-1, 1]: symmetric positive definite, eigenvalues in [1, ~5]. */
export function randomSpd(rng: Rng, n: number, dtype: DType): Dense {
  const g = randomGeneral(rng, n, n, 'float64');
  const a = multiply(g, transpose(g));
  for (let i = 0; i < a.data.length; i++) a.data[i] = a.data[i]! / Math.max(n, 1);
  for (let i = 0; i < n; i++) a.data[i + i * n] = a.data[i + i * n]! + 1;
  return rounded(a, dtype);
}

/** Well-conditioned triangle data (both triangles filled): |diagonal| in [1, 2], off-diagonal in [-2/n, 2/n]. */
export function randomTriangular(rng: Rng, n: number, dtype: DType): Dense {
  const d = zeros(n, n);
  for (let j = 0; j < n; j++)
    for (let i = 0; i < n; i++)
      d.data[i + j * n] = i === j ? (rng.next() < 0.5 ? -1 : 1) * rng.uniform(1, 2) : rng.uniform(-2, 2) / n;
  return rounded(d, dtype);
}

/** Which part of each matrix an operation may read and write. */
export type Region = 'all' | Uplo;
export type LayoutKind = 'strided' | 'list' | 'variable';

export interface Layout {
  kind: LayoutKind;
  /** ld = rows + ldPad (variable batches add i % 2 more). */
  ldPad?: number;
  /** Elements before the first matrix. */
  offset?: number;
  /** Elements between consecutive matrices (strided: stride = ld * cols + gap). */
  gap?: number;
}

export const PADDED: Layout = { kind: 'strided', ldPad: 3, offset: 5, gap: 7 };

export interface Placed {
  batch: Batch<FloatArray>;
  stores: FloatArray[];
  region: Region;
  /** The diagonal is outside the region (trtri with diag 'unit'). */
  skipDiagonal: boolean;
}

function inRegion(region: Region, skipDiagonal: boolean, i: number, j: number): boolean {
  if (i === j) return !skipDiagonal;
  return region === 'all' || (region === 'lower' ? i > j : i < j);
}

/**
 * Lays matrices out in a new batch of the dtype: poison (NaN) everywhere, then the `region` of each
 * matrix written. A strided or list batch needs matrices of one shape (give `shape` if there are none).
 */
export function place(
  mats: readonly Dense[], dtype: DType, region: Region, layout: Layout,
  options: { shape?: { rows: number; cols: number }; skipDiagonal?: boolean } = {},
): Placed {
  const ldPad = layout.ldPad ?? 0;
  const offset = layout.offset ?? 0;
  const gap = layout.gap ?? 0;
  const skipDiagonal = options.skipDiagonal ?? false;
  const rows = mats[0]?.rows ?? options.shape?.rows ?? 0;
  const cols = mats[0]?.cols ?? options.shape?.cols ?? 0;
  const poisoned = (length: number): FloatArray => allocate(dtype, length).fill(NaN);
  let batch: Batch<FloatArray>;
  const stores: FloatArray[] = [];
  if (layout.kind === 'strided') {
    const ld = Math.max(1, rows + ldPad);
    const stride = ld * cols + gap;
    const data = poisoned(offset + mats.length * stride + 3);
    stores.push(data);
    batch = strided(data, { rows, cols, count: mats.length, ld, stride, offset });
  } else if (layout.kind === 'list') {
    const ld = Math.max(1, rows + ldPad);
    const entries = mats.map((_, i) => {
      const data = poisoned(offset + i + ld * cols + gap);
      stores.push(data);
      return { data, offset: offset + i };
    });
    batch = list(entries, { rows, cols, ld });
  } else {
    let end = offset;
    const specs = mats.map((m, i) => {
      const ld = Math.max(1, m.rows + ldPad + (i % 2));
      const spec = { rows: m.rows, cols: m.cols, ld, offset: end };
      end += ld * m.cols + gap;
      return spec;
    });
    const data = poisoned(end + 3);
    stores.push(data);
    batch = variable(specs.map((s) => ({ ...s, data })));
  }
  mats.forEach((m, k) => {
    if (layout.kind !== 'variable' && (m.rows !== rows || m.cols !== cols)) throw new Error('place: shapes differ');
    writeRegion(matrixAt(batch, k), m, region, skipDiagonal);
  });
  return { batch, stores, region, skipDiagonal };
}

export function writeRegion(v: MatrixView<FloatArray>, m: Dense, region: Region, skipDiagonal = false): void {
  for (let j = 0; j < m.cols; j++)
    for (let i = 0; i < m.rows; i++)
      if (inRegion(region, skipDiagonal, i, j)) v.data[v.offset + i + j * v.ld] = at(m, i, j);
}

export function snapshot(p: Placed): FloatArray[] {
  return p.stores.map((s) => s.slice());
}

/** Asserts that nothing outside the region of any matrix changed since `before` (bitwise, NaN included). */
export function assertOnlyRegionWritten(p: Placed, before: readonly FloatArray[], what: string): void {
  const masks = p.stores.map((s) => new Uint8Array(s.length));
  const count = p.batch.kind === 'strided' ? p.batch.count : p.batch.matrices.length;
  for (let k = 0; k < count; k++) {
    const v = matrixAt(p.batch, k);
    const mask = masks[p.stores.indexOf(v.data)]!;
    for (let j = 0; j < v.cols; j++)
      for (let i = 0; i < v.rows; i++) if (inRegion(p.region, p.skipDiagonal, i, j)) mask[v.offset + i + j * v.ld] = 1;
  }
  p.stores.forEach((s, si) => {
    const old = before[si]!;
    const mask = masks[si]!;
    for (let e = 0; e < s.length; e++)
      if (mask[e] === 0 && !Object.is(s[e], old[e]))
        assert.fail(`${what}: element ${e} of store ${si}, outside every matrix's region, changed from ${old[e]} to ${s[e]}`);
  });
}

/** True when two arrays hold the same values (NaN equal to NaN, -0 distinct from 0). */
export function sameBits(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

export const info = (count: number): Int32Array => new Int32Array(count).fill(-99);
