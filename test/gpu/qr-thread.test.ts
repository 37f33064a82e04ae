/**
 * The per-thread QR kernels (src/cuda/kernels/qr/generate-thread.ts) on a real GPU, forced
 * (`design: 'thread'`) against the CPU reference: n = 1..8 square, m > n and m < n, both dtypes.
 * - densely packed batches (the staged path: one contiguous span, 16-byte vectors in full blocks) with
 *   a partly empty last block, NaN poison before and after the batch and after tau that must come back
 *   untouched, info poisoned; random, graded, rank-deficient, zero-column and ill-conditioned members
 *   with a NaN and an Inf member (their non-finite entries where the reference has them, the others by
 *   residual and against the reference); the same unstaged by force;
 * - ragged ld and stride (test/gpu/qr-cases.ts `check`: NaN padding, a NaN member, orgqr on the
 *   reference's factors), unstaged and staged by force;
 * - orgqr on densely packed factors (k = n, n / 2), against the reference's dorg2r;
 * - a list batch (pointer form) and the plan's default design on a dense batch.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { list, strided, type Batch } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import { org2r } from '../../src/cpu/lapack/qr.js';
import { geqrfCuda, orgqrCuda, type QrOptions } from '../../src/cuda/kernels/qr/index.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/index.js';
import { gpu } from '../helpers/gpu.js';
import { QR_KINDS, qrCase, qrRatios, referenceQr, relativeGap } from '../helpers/qr-checks.js';
import { Rng } from '../helpers/random.js';
import { EPS, LIMIT, check, fro, skip } from './qr-cases.js';

const THREAD: QrOptions = { force: { design: 'thread' } };
const SHAPES: [number, number][] = [
  ...[1, 2, 3, 4, 5, 6, 7, 8].map((n) => [n, n] as [number, number]),
  [8, 3], [5, 2], [7, 1], [6, 4], [8, 7], [3, 8], [2, 5], [1, 6], [4, 7], [7, 8],
];
const GUARD = 7;
const upper = (f: ArrayLike<number>, m: number): number[] => Array.from(f).filter((_, e) => e % m <= Math.floor(e / m));
const lower = (f: ArrayLike<number>, m: number): number[] => Array.from(f).filter((_, e) => e % m > Math.floor(e / m));

/** geqrf of `count` densely packed m x n matrices (GUARD poisoned elements either side), then orgqr on the reference's factors. */
function dense(dev: GpuDevice, rng: Rng, dtype: DType, m: number, n: number, count: number, opts: QrOptions): void {
  const eps = EPS[dtype];
  const k = Math.min(m, n);
  const mats = Array.from({ length: count }, (_, q) => qrCase(rng, QR_KINDS[q % QR_KINDS.length]!, m, n, dtype));
  const NAN = 3, INF = 9;
  mats[NAN]![m * n - 1] = NaN;
  mats[INF]![0] = Infinity;
  const A = allocate(dtype, 2 * GUARD + count * m * n).fill(NaN);
  mats.forEach((x, q) => x.forEach((v, e) => { A[GUARD + q * m * n + e] = v; }));
  const dA = dev.upload(A);
  const dT = dev.upload(allocate(dtype, 2 * GUARD + count * k).fill(NaN));
  const dInfo = dev.upload(new Int32Array(count).fill(-7));
  const what = `geqrf ${dtype} ${m}x${n} dense count=${count} ${JSON.stringify(opts.force)}`;
  try {
    geqrfCuda(dev, {
      a: strided(dA, { rows: m, cols: n, count, offset: GUARD }), tau: strided(dT, { rows: k, cols: 1, count, offset: GUARD }), info: dInfo,
    }, opts);
    const a = dev.download(dA) as FloatArray;
    const t = dev.download(dT) as FloatArray;
    assert.deepEqual(Array.from(dev.download(dInfo) as Int32Array), new Array(count).fill(0), `${what}: info`);
    for (let e = 0; e < GUARD; e++) {
      assert.ok(Number.isNaN(a[e]) && Number.isNaN(a[a.length - 1 - e]), `${what}: poison around A written`);
      assert.ok(Number.isNaN(t[e]) && Number.isNaN(t[t.length - 1 - e]), `${what}: poison around tau written`);
    }
    mats.forEach((x, q) => {
      const at = `${what} #${q} (${QR_KINDS[q % QR_KINDS.length]})`;
      const f = Float64Array.from(a.subarray(GUARD + q * m * n, GUARD + (q + 1) * m * n));
      const tau = Array.from(t.subarray(GUARD + q * k, GUARD + (q + 1) * k));
      const ref = referenceQr(x, m, n);
      if (q === NAN || q === INF) {
        assert.deepEqual([...f, ...tau].map(Number.isFinite), [...ref.f, ...ref.tau].map(Number.isFinite), `${at}: the reference's non-finite entries`);
        return;
      }
      assert.ok(f.every(Number.isFinite) && tau.every(Number.isFinite), `${at}: finite (NaN spread?)`);
      const { residual, orthogonality } = qrRatios(x, f, tau, m, n, eps);
      assert.ok(residual < LIMIT && orthogonality < LIMIT, `${at}: ||A - QR|| ratio ${residual}, ||Q^T Q - I|| ratio ${orthogonality}`);
      if (q % QR_KINDS.length === 0) {
        const rGap = relativeGap(upper(f, m), upper(ref.f, m), fro(x), m, n, eps);
        const vGap = relativeGap([...lower(f, m), ...tau], [...lower(ref.f, m), ...ref.tau], 1, m, n, eps);
        assert.ok(rGap < LIMIT && vGap < LIMIT, `${at}: R gap ${rGap}, reflector gap ${vGap} (max(m, n) eps units)`);
      }
    });
  } finally {
    dA.dispose(); dT.dispose(); dInfo.dispose();
  }
  if (m < n) return;
  const round = (v: number): number => (dtype === 'float32' ? Math.fround(v) : v);
  const refs = mats.map((x) => referenceQr(x.map((v) => (Number.isFinite(v) ? v : 0)), m, n));
  for (const kq of new Set([n, Math.floor(n / 2)])) {
    const B = allocate(dtype, 2 * GUARD + count * m * n).fill(NaN);
    const T = allocate(dtype, 2 * GUARD + count * kq).fill(NaN);
    refs.forEach((r, q) => {
      r.f.forEach((v, e) => { B[GUARD + q * m * n + e] = round(v); });
      for (let j = 0; j < kq; j++) T[GUARD + q * kq + j] = round(r.tau[j]!);
    });
    const dB = dev.upload(B), dT2 = dev.upload(T);
    const at0 = `orgqr ${dtype} ${m}x${n} k=${kq} dense count=${count} ${JSON.stringify(opts.force)}`;
    try {
      orgqrCuda(dev, { a: strided(dB, { rows: m, cols: n, count, offset: GUARD }), tau: strided(dT2, { rows: kq, cols: 1, count, offset: GUARD }) }, opts);
      const b = dev.download(dB) as FloatArray;
      for (let e = 0; e < GUARD; e++) assert.ok(Number.isNaN(b[e]) && Number.isNaN(b[b.length - 1 - e]), `${at0}: poison around A written`);
      assert.deepEqual(Array.from(dev.download(dT2) as FloatArray), Array.from(T), `${at0}: tau unchanged`);
      refs.forEach((r, q) => {
        const mine = Float64Array.from(b.subarray(GUARD + q * m * n, GUARD + (q + 1) * m * n));
        const ref = Float64Array.from(r.f, round);
        org2r(ref, Float64Array.from(r.tau.slice(0, kq), round), m, n, kq);
        const gap = relativeGap(mine, ref, 1, m, n, eps);
        assert.ok(gap < LIMIT, `${at0} #${q}: Q gap ${gap}`);
      });
    } finally {
      dB.dispose(); dT2.dispose();
    }
  }
}

test('per-thread geqrf and orgqr, densely packed (staged, and unstaged by force), both dtypes', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(2701);
  for (const dtype of ['float64', 'float32'] as const) for (const [m, n] of SHAPES) {
    dense(dev, rng, dtype, m, n, 1000 + 37, THREAD);
    dense(dev, rng, dtype, m, n, 300 + 5, { force: { design: 'thread', stage: false } });
  }
  // Other block sizes.
  dense(dev, rng, 'float64', 6, 6, 500, { force: { design: 'thread', blockThreads: 32 } });
  dense(dev, rng, 'float32', 8, 8, 500, { force: { design: 'thread', blockThreads: 256 } });
  // The plan's default design.
  for (const dtype of ['float64', 'float32'] as const) dense(dev, rng, dtype, 4, 4, 2000, {});
});

test('per-thread geqrf and orgqr, ragged ld and stride (unstaged, and staged by force), both dtypes', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(2702);
  for (const dtype of ['float64', 'float32'] as const) for (const [m, n] of SHAPES) {
    check(dev, rng, dtype, m, n, 300, THREAD);
    check(dev, rng, dtype, m, n, 170, { force: { design: 'thread', stage: true } });
  }
});

test('per-thread geqrf, a list batch (pointer form)', { skip, timeout: 120_000 }, () => {
  const dev = gpu();
  const rng = new Rng(2703);
  for (const dtype of ['float64', 'float32'] as const) for (const [m, n] of [[5, 5], [8, 3], [3, 8]] as [number, number][]) {
    const k = Math.min(m, n);
    const count = 150;
    const mats = Array.from({ length: count }, (_, q) => qrCase(rng, QR_KINDS[q % QR_KINDS.length]!, m, n, dtype));
    const arrays = mats.map((x) => dev.upload(allocate(dtype, m * n).map((_, e) => x[e]!)));
    const taus = mats.map(() => dev.upload(allocate(dtype, k).fill(NaN)));
    const dInfo = dev.upload(new Int32Array(count).fill(-7));
    try {
      geqrfCuda(dev, {
        a: list(arrays, { rows: m, cols: n }) as Batch<DeviceArray>, tau: list(taus, { rows: k, cols: 1 }) as Batch<DeviceArray>, info: dInfo,
      }, THREAD);
      assert.deepEqual(Array.from(dev.download(dInfo) as Int32Array), new Array(count).fill(0));
      mats.forEach((x, q) => {
        const f = Float64Array.from(dev.download(arrays[q]!) as FloatArray);
        const tau = Array.from(dev.download(taus[q]!) as FloatArray);
        const { residual, orthogonality } = qrRatios(x, f, tau, m, n, EPS[dtype]);
        assert.ok(residual < LIMIT && orthogonality < LIMIT, `list ${dtype} ${m}x${n} #${q}: ${residual}, ${orthogonality}`);
      });
    } finally {
      for (const x of [...arrays, ...taus, dInfo]) x.dispose();
    }
  }
});
