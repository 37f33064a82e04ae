/**
 * geqrf of tiny matrices (max(m, n) <= 8) on a real GPU: the per-thread kernel's fast variant
 * (src/cuda/kernels/qr/generate-thread-fast.ts), forced and by default (the `qr` table's
 * `threadVariant`), and the classic variant forced on a few shapes, against the CPU reference.
 * - n = 1..8 with m in {n, n + 1, 2n + 3} (up to 8) and wide shapes, both dtypes;
 * - layouts: densely packed at a 16-byte boundary (the vector copies) and shifted by one element (the
 *   element copies), odd ld with gaps between matrices, list batches (pointer form);
 * - counts 1, 31, 1037 (a partly empty last block) and 1,000,003 (4 x 4: a sample checked, all of info);
 * - fresh random members of every kind (random, graded, rank-deficient, zero column, ill-conditioned),
 *   a NaN member, a NaN row, and members scaled by 2^+-500 (float64) or 2^+-60 (float32), outside the
 *   fast variant's unscaled range; poisoned (NaN) elements before, between and after the matrices and
 *   around tau that must come back untouched; info poisoned.
 * Run: node dist/scripts/gpu-tests.js --require-gpu dist/test/gpu/geqrf-tiny.test.js
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { list, strided, type Batch } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import { geqrfCuda, type QrOptions } from '../../src/cuda/kernels/qr/index.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/index.js';
import { gpu } from '../helpers/gpu.js';
import { QR_KINDS, qrCase, qrRatios, referenceQr, relativeGap } from '../helpers/qr-checks.js';
import { Rng } from '../helpers/random.js';
import { EPS, LIMIT, fro, skip } from './qr-cases.js';

const FAST: QrOptions = { force: { design: 'thread', threadVariant: 'fast' } };
const CLASSIC: QrOptions = { force: { design: 'thread', threadVariant: 'classic' } };

/** n = 1..8 with m in {n, n + 1, 2n + 3} up to 8, and wide shapes. */
const SHAPES: [number, number][] = (() => {
  const out: [number, number][] = [];
  for (let n = 1; n <= 8; n++) for (const m of new Set([n, n + 1, 2 * n + 3])) if (m <= 8) out.push([m, n]);
  return [...out, [3, 8], [2, 5], [1, 6], [4, 7]];
})();
const FEW: [number, number][] = [[1, 1], [2, 2], [3, 3], [4, 4], [5, 3], [6, 6], [7, 7], [8, 8], [3, 8], [2, 5]];
/** Scales outside the fast variant's unscaled range (exact powers of two). */
const OUT_OF_RANGE: Record<DType, number> = { float64: 500, float32: 60 };

type Layout = 'dense' | 'shifted' | 'odd-ld';
interface Geometry { ld: number; stride: number; offset: number; tStride: number; tOffset: number; after: number }
function geometry(layout: Layout, dtype: DType, m: number, n: number, k: number): Geometry {
  const vec = dtype === 'float64' ? 2 : 4;
  if (layout === 'dense') return { ld: m, stride: m * n, offset: 2 * vec, tStride: k, tOffset: 2 * vec, after: 7 };
  if (layout === 'shifted') return { ld: m, stride: m * n, offset: 1, tStride: k, tOffset: 1, after: 7 };
  const ld = m % 2 === 0 ? m + 1 : m + 2;
  return { ld, stride: ld * n + 1, offset: 3, tStride: k + 1, tOffset: 2, after: 5 };
}

/** The members: every kind, a NaN member, a NaN row, a tiny and a huge member; plain uniform ones past `detailed`. */
function members(rng: Rng, dtype: DType, m: number, n: number, count: number, detailed: number): { mats: Float64Array[]; special: Map<number, string>; scale: Map<number, number> } {
  const e2 = OUT_OF_RANGE[dtype];
  const round = (v: number): number => (dtype === 'float32' ? Math.fround(v) : v);
  const mats = Array.from({ length: count }, (_, q) => (q < detailed
    ? qrCase(rng, QR_KINDS[q % QR_KINDS.length]!, m, n, dtype)
    : Float64Array.from({ length: m * n }, () => round(rng.uniform() * 2 - 1))));
  const special = new Map<number, string>(), scale = new Map<number, number>();
  const at = (q: number): number | undefined => (q < count ? q : undefined);
  const nan = at(3), row = at(6), tiny = at(9), huge = at(12);
  if (nan !== undefined) { mats[nan]![m * n - 1] = NaN; special.set(nan, 'NaN member'); }
  if (row !== undefined) { for (let j = 0; j < n; j++) mats[row]![m - 1 + j * m] = NaN; special.set(row, 'NaN row'); }
  if (tiny !== undefined) { mats[tiny] = mats[tiny]!.map((v) => v * 2 ** -e2); scale.set(tiny, 2 ** e2); }
  if (huge !== undefined) { mats[huge] = mats[huge]!.map((v) => v * 2 ** e2); scale.set(huge, 2 ** -e2); }
  return { mats, special, scale };
}

/** Members compared with the reference's factors element by element up to this condition of R (Frobenius). */
const COMPARE_CONDITION_MAX = 10;

/** ||R||_F ||R^-1||_F of the leading k x k triangle of the factors `f` (m x n, column-major). */
function triangleCondition(f: Float64Array, m: number, n: number): number {
  const k = Math.min(m, n);
  let norm = 0, inverse = 0;
  for (let j = 0; j < k; j++) for (let i = 0; i <= j; i++) norm += f[i + j * m]! ** 2;
  // Column j of R^-1 by back substitution of R x = e_j.
  for (let j = 0; j < k; j++) {
    const x = new Float64Array(k);
    for (let i = j; i >= 0; i--) {
      let v = i === j ? 1 : 0;
      for (let l = i + 1; l <= j; l++) v -= f[i + l * m]! * x[l]!;
      x[i] = v / f[i + i * m]!;
    }
    for (let i = 0; i <= j; i++) inverse += x[i]! ** 2;
  }
  const c = Math.sqrt(norm * inverse);
  return Number.isFinite(c) ? c : Infinity;
}

/**
 * Checks a member's factors and tau: the reference's non-finite pattern, else residuals (at the
 * ordinary scale) and, where `compare` (well-conditioned members: a rank-deficient column's reflector
 * is rounding noise), the reference's factors.
 */
function checkMember(what: string, x: Float64Array, f: Float64Array, tau: number[], m: number, n: number, eps: number, special: string | undefined, c: number,
  compare: boolean): void {
  const ref = referenceQr(x, m, n);
  if (special !== undefined) {
    assert.deepEqual([...f, ...tau].map(Number.isFinite), [...ref.f, ...ref.tau].map(Number.isFinite), `${what} (${special}): the reference's non-finite entries`);
    return;
  }
  assert.ok(f.every(Number.isFinite) && tau.every(Number.isFinite), `${what}: finite (NaN spread?)`);
  // QR of c A is (Q, c R) with the same reflectors and tau (c a power of two).
  const up = (a: ArrayLike<number>, s: number): Float64Array => Float64Array.from(a, (v, e) => (e % m <= Math.floor(e / m) ? v * s : v));
  const { residual, orthogonality } = qrRatios(x.map((v) => v * c), up(f, c), tau, m, n, eps);
  assert.ok(residual < LIMIT && orthogonality < LIMIT, `${what}: ||A - QR|| ratio ${residual}, ||Q^T Q - I|| ratio ${orthogonality}`);
  // Elementwise agreement with the reference is bounded by the member's condition times the backward
  // error: only well-conditioned members are compared (uniform random members past `detailed` are not
  // all well-conditioned; the residual and orthogonality above hold for every member).
  if (!compare || triangleCondition(ref.f, m, n) > COMPARE_CONDITION_MAX) return;
  const upper = (a: ArrayLike<number>): number[] => Array.from(a).filter((_, e) => e % m <= Math.floor(e / m)).map((v) => v * c);
  const lower = (a: ArrayLike<number>): number[] => Array.from(a).filter((_, e) => e % m > Math.floor(e / m));
  const rGap = relativeGap(upper(f), upper(ref.f), fro(x) * c, m, n, eps);
  const vGap = relativeGap([...lower(f), ...tau], [...lower(ref.f), ...ref.tau], 1, m, n, eps);
  assert.ok(rGap < LIMIT && vGap < LIMIT, `${what}: against the reference: R gap ${rGap}, reflector gap ${vGap} (max(m, n) eps units)`);
}

/** geqrf of a strided batch in `layout`; every member checked up to `detailed`, then every `step`-th and the last ones. */
function stridedCase(dev: GpuDevice, rng: Rng, dtype: DType, m: number, n: number, count: number, layout: Layout, opts: QrOptions, detailed = count): void {
  const eps = EPS[dtype];
  const k = Math.min(m, n);
  const g = geometry(layout, dtype, m, n, k);
  const { mats, special, scale } = members(rng, dtype, m, n, count, detailed);
  const A = allocate(dtype, g.offset + count * g.stride + g.after).fill(NaN);
  mats.forEach((x, q) => { for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) A[g.offset + q * g.stride + i + j * g.ld] = x[i + j * m]!; });
  const T = allocate(dtype, g.tOffset + count * g.tStride + g.after).fill(NaN);
  const dA = dev.upload(A), dT = dev.upload(T), dInfo = dev.upload(new Int32Array(count).fill(-7));
  const what = `geqrf ${dtype} ${m}x${n} ${layout} count=${count} ${JSON.stringify(opts.force ?? 'default')}`;
  try {
    geqrfCuda(dev, {
      a: strided(dA, { rows: m, cols: n, count, ld: g.ld, stride: g.stride, offset: g.offset }),
      tau: strided(dT, { rows: k, cols: 1, count, ld: k, stride: g.tStride, offset: g.tOffset }), info: dInfo,
    }, opts);
    const a = dev.download(dA) as FloatArray, t = dev.download(dT) as FloatArray;
    const info = dev.download(dInfo) as Int32Array;
    for (let q = 0; q < count; q++) if (info[q] !== 0) assert.fail(`${what}: info[${q}] = ${info[q]}`);
    for (let e = 0; e < a.length; e++) {
      const x = e - g.offset, r = x % g.stride;
      const inside = x >= 0 && x < count * g.stride && r < g.ld * n && r % g.ld < m;
      if (!inside && !Number.isNaN(a[e])) assert.fail(`${what}: A's poison at ${e} written (${a[e]})`);
    }
    for (let e = 0; e < t.length; e++) {
      const x = e - g.tOffset;
      const inside = x >= 0 && x < count * g.tStride && x % g.tStride < k;
      if (!inside && !Number.isNaN(t[e])) assert.fail(`${what}: tau's poison at ${e} written (${t[e]})`);
    }
    const step = Math.max(1, Math.floor(count / 2000));
    for (let q = 0; q < count; q++) {
      if (q >= detailed && q % step !== 0 && q < count - 40) continue;
      const f = new Float64Array(m * n);
      for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) f[i + j * m] = a[g.offset + q * g.stride + i + j * g.ld]!;
      const tau = Array.from(t.subarray(g.tOffset + q * g.tStride, g.tOffset + q * g.tStride + k));
      checkMember(`${what} #${q}`, mats[q]!, f, tau, m, n, eps, special.get(q), scale.get(q) ?? 1, q >= detailed || q % QR_KINDS.length === 0);
    }
  } finally {
    dA.dispose(); dT.dispose(); dInfo.dispose();
  }
}

/** geqrf of a list batch (one allocation per matrix and per tau, each with poison after it). */
function listCase(dev: GpuDevice, rng: Rng, dtype: DType, m: number, n: number, count: number, opts: QrOptions): void {
  const eps = EPS[dtype];
  const k = Math.min(m, n);
  const { mats, special, scale } = members(rng, dtype, m, n, count, count);
  const arrays = mats.map((x) => { const h = allocate(dtype, m * n + 3).fill(NaN); x.forEach((v, e) => { h[e] = v; }); return dev.upload(h); });
  const taus = mats.map(() => dev.upload(allocate(dtype, k + 3).fill(NaN)));
  const dInfo = dev.upload(new Int32Array(count).fill(-7));
  const what = `geqrf ${dtype} ${m}x${n} list count=${count} ${JSON.stringify(opts.force ?? 'default')}`;
  try {
    geqrfCuda(dev, { a: list(arrays, { rows: m, cols: n }) as Batch<DeviceArray>, tau: list(taus, { rows: k, cols: 1 }) as Batch<DeviceArray>, info: dInfo }, opts);
    assert.deepEqual(Array.from(dev.download(dInfo) as Int32Array), new Array(count).fill(0), `${what}: info`);
    mats.forEach((x, q) => {
      const a = dev.download(arrays[q]!) as FloatArray, t = dev.download(taus[q]!) as FloatArray;
      for (let e = m * n; e < a.length; e++) assert.ok(Number.isNaN(a[e]), `${what} #${q}: A's poison written`);
      for (let e = k; e < t.length; e++) assert.ok(Number.isNaN(t[e]), `${what} #${q}: tau's poison written`);
      checkMember(`${what} #${q}`, x, Float64Array.from(a.subarray(0, m * n)), Array.from(t.subarray(0, k)), m, n, eps, special.get(q), scale.get(q) ?? 1,
        q % QR_KINDS.length === 0);
    });
  } finally {
    for (const d of [...arrays, ...taus, dInfo]) d.dispose();
  }
}

test('tiny geqrf, densely packed (vector and element copies), fast forced and by default, classic on a few shapes', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(4101);
  for (const dtype of ['float64', 'float32'] as const) for (const [m, n] of SHAPES) {
    stridedCase(dev, rng, dtype, m, n, 1037, 'dense', FAST);
    stridedCase(dev, rng, dtype, m, n, 31, 'shifted', FAST);
    stridedCase(dev, rng, dtype, m, n, 1, 'dense', {});
    stridedCase(dev, rng, dtype, m, n, 300, 'dense', {});
  }
  for (const dtype of ['float64', 'float32'] as const) for (const [m, n] of FEW) stridedCase(dev, rng, dtype, m, n, 300, 'dense', CLASSIC);
});

test('tiny geqrf, odd ld and list batches, fast forced and by default', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(4102);
  for (const dtype of ['float64', 'float32'] as const) for (const [m, n] of FEW) {
    stridedCase(dev, rng, dtype, m, n, 300, 'odd-ld', FAST);
    stridedCase(dev, rng, dtype, m, n, 31, 'odd-ld', {});
    listCase(dev, rng, dtype, m, n, 31, FAST);
  }
  listCase(dev, rng, 'float32', 4, 4, 150, {});
});

test('tiny geqrf, 1,000,003 matrices of 4 x 4 (a sample checked, all of info and the poison)', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(4103);
  for (const dtype of ['float64', 'float32'] as const) stridedCase(dev, rng, dtype, 4, 4, 1_000_003, 'dense', {}, 200);
});
