/**
 * What the QR GPU test files share (qr.test.ts and qr-blocked.test.ts, split so that the GPU suite
 * runs them side by side): geqrf then orgqr checked against the CPU reference and by residuals on
 * padded strided batches, and a variable batch's geqrf.
 */
import assert from 'node:assert/strict';

import { strided, variable, type Batch } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import { org2r } from '../../src/cpu/lapack/qr.js';
import { geqrfCuda, orgqrCuda, type QrOptions } from '../../src/cuda/kernels/qr/index.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/index.js';
import { gpuSkipReason } from '../helpers/gpu.js';
import { QR_KINDS, qrCase, qrRatios, referenceQr, relativeGap } from '../helpers/qr-checks.js';
import { Rng } from '../helpers/random.js';

export const skip = gpuSkipReason();
export const EPS: Record<DType, number> = { float64: 2 ** -52, float32: 2 ** -23 };
export const LIMIT = 30;

export const fro = (a: ArrayLike<number>): number => { let s = 0; for (let q = 0; q < a.length; q++) s += a[q]! * a[q]!; return Math.sqrt(s); };
const upper = (f: ArrayLike<number>, m: number): number[] => Array.from(f).filter((_, e) => e % m <= Math.floor(e / m));
const lower = (f: ArrayLike<number>, m: number): number[] => Array.from(f).filter((_, e) => e % m > Math.floor(e / m));
const round = (dtype: DType) => (v: number): number => (dtype === 'float32' ? Math.fround(v) : v);

/** geqrf of `count` m x n matrices in a padded strided batch (ld m + 1 or m + 2, odd gaps), then orgqr on the reference's factors. */
export function check(dev: GpuDevice, rng: Rng, dtype: DType, m: number, n: number, count: number, opts: QrOptions = {}): void {
  const eps = EPS[dtype];
  const k = Math.min(m, n);
  const mats = Array.from({ length: count }, (_, i) => qrCase(rng, QR_KINDS[i % QR_KINDS.length]!, m, n, dtype));
  const bad = count > 2 ? 2 : -1;
  if (bad >= 0) mats[bad]![Math.floor((m * n) / 2)] = NaN;
  const ld = m + 1 + (m % 2);
  const stride = ld * n + 3;
  const tStride = k + 1;
  const A = allocate(dtype, count * stride + 2).fill(NaN);
  mats.forEach((x, q) => { for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) A[q * stride + i + j * ld] = x[i + j * m]!; });
  const inside = (e: number): boolean => { const r = e % stride; return Math.floor(e / stride) < count && r < ld * n && r % ld < m; };
  const dA = dev.upload(A);
  const dT = dev.upload(allocate(dtype, count * tStride + 1).fill(NaN));
  const dInfo = dev.upload(new Int32Array(count).fill(-7));
  const what = `geqrf ${dtype} ${m}x${n} count=${count}`;
  try {
    geqrfCuda(dev, { a: strided(dA, { rows: m, cols: n, count, ld, stride }), tau: strided(dT, { rows: k, cols: 1, count, ld: k, stride: tStride }), info: dInfo }, opts);
    const a = dev.download(dA) as FloatArray;
    const t = dev.download(dT) as FloatArray;
    assert.deepEqual(Array.from(dev.download(dInfo) as Int32Array), new Array(count).fill(0), `${what}: info`);
    for (let e = 0; e < a.length; e++) if (!inside(e)) assert.ok(Number.isNaN(a[e]), `${what}: padding ${e} written`);
    for (let q = 0; q < count; q++) assert.ok(Number.isNaN(t[q * tStride + k]), `${what}: tau padding written`);
    mats.forEach((x, q) => {
      const at = `${what} #${q} (${QR_KINDS[q % QR_KINDS.length]})`;
      const f = new Float64Array(m * n);
      for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) f[i + j * m] = a[q * stride + i + j * ld]!;
      const tau = Array.from(t.subarray(q * tStride, q * tStride + k));
      if (q === bad) {
        assert.ok(f.some(Number.isNaN), `${at}: NaN stays in its matrix`);
        return;
      }
      assert.ok(f.every(Number.isFinite) && tau.every(Number.isFinite), `${at}: finite (NaN spread?)`);
      const { residual, orthogonality } = qrRatios(x, f, tau, m, n, eps);
      assert.ok(residual < LIMIT && orthogonality < LIMIT, `${at}: ||A - QR|| ratio ${residual}, ||Q^T Q - I|| ratio ${orthogonality}`);
      if (q % QR_KINDS.length === 0) {
        const ref = referenceQr(x, m, n);
        const rGap = relativeGap(upper(f, m), upper(ref.f, m), fro(x), m, n, eps);
        const vGap = relativeGap([...lower(f, m), ...tau], [...lower(ref.f, m), ...ref.tau], 1, m, n, eps);
        assert.ok(rGap < LIMIT && vGap < LIMIT, `${at}: against the reference: R gap ${rGap}, reflector gap ${vGap} (max(m, n) eps units)`);
      }
    });
  } finally {
    dA.dispose(); dT.dispose(); dInfo.dispose();
  }
  if (m < n) return;
  // orgqr: the thin Q (k = n) and the Q of fewer reflectors (k < n), from the reference's factors.
  for (const kq of n > 1 ? [n, Math.floor(n / 2)] : [n]) {
    const r8 = round(dtype);
    const refs = mats.map((x) => referenceQr(x.map((v) => (Number.isNaN(v) ? 0 : v)), m, n));
    const B = allocate(dtype, count * stride + 2).fill(NaN);
    const T = allocate(dtype, count * (kq + 1)).fill(NaN);
    refs.forEach((r, q) => {
      for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) B[q * stride + i + j * ld] = r8(r.f[i + j * m]!);
      for (let j = 0; j < kq; j++) T[q * (kq + 1) + j] = r8(r.tau[j]!);
    });
    const dB = dev.upload(B);
    const dT2 = dev.upload(T);
    const at0 = `orgqr ${dtype} ${m}x${n} k=${kq} count=${count}`;
    try {
      orgqrCuda(dev, { a: strided(dB, { rows: m, cols: n, count, ld, stride }), tau: strided(dT2, { rows: kq, cols: 1, count, ld: kq, stride: kq + 1 }) }, opts);
      const b = dev.download(dB) as FloatArray;
      for (let e = 0; e < b.length; e++) if (!inside(e)) assert.ok(Number.isNaN(b[e]), `${at0}: padding ${e} written`);
      refs.forEach((r, q) => {
        const at = `${at0} #${q}`;
        const mine = new Float64Array(m * n);
        const ref = new Float64Array(m * n);
        for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) { mine[i + j * m] = b[q * stride + i + j * ld]!; ref[i + j * m] = r8(r.f[i + j * m]!); }
        org2r(ref, Float64Array.from(r.tau.slice(0, kq), r8), m, n, kq);
        const gap = relativeGap(mine, ref, 1, m, n, eps);
        assert.ok(gap < LIMIT, `${at}: Q against the reference: gap ${gap}`);
        const qtq = new Float64Array(n * n);
        for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
          let s = 0;
          for (let p = 0; p < m; p++) s += mine[p + i * m]! * mine[p + j * m]!;
          qtq[i + j * n] = s - (i === j ? 1 : 0);
        }
        assert.ok(fro(qtq) / (m * eps) < LIMIT, `${at}: ||Q^T Q - I|| ratio ${fro(qtq) / (m * eps)}`);
        if (kq === n) {
          // A - Q R with the reference's R (as dtype rounds it).
          const x = mats[q]!.map((v) => (Number.isNaN(v) ? 0 : v));
          const rr = r.f.map(r8);
          const { residual } = qrRatios(x, rr, [], m, n, eps, mine);
          assert.ok(residual < LIMIT, `${at}: ||A - QR|| ratio ${residual}`);
        }
      });
    } finally {
      dB.dispose(); dT2.dispose();
    }
  }
}

export const SMALL = [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 13, 16, 17, 20, 24, 29, 31, 32, 33];
export const countFor = (s: number): number => (s <= 4 ? 300 : s <= 16 ? 70 : s <= 64 ? 20 : 6);

/**
 * geqrf of random float64 matrices of `shapes` as one variable batch (a device array each, tau
 * poisoned, info -7): info all 0 and every matrix's residual and orthogonality below LIMIT; the
 * factors and tau as read back. The caller disposes arrays, taus and dInfo.
 */
export function variableGeqrf(dev: GpuDevice, rng: Rng, shapes: readonly [number, number][]) {
  const eps = EPS.float64;
  const mats = shapes.map(([m, n]) => qrCase(rng, 'random', m, n, 'float64'));
  const arrays = mats.map((x) => dev.upload(Float64Array.from(x)));
  const taus = shapes.map(([m, n]) => dev.upload(new Float64Array(Math.min(m, n)).fill(NaN)));
  const dInfo = dev.upload(new Int32Array(shapes.length).fill(-7));
  geqrfCuda(dev, {
    a: variable(arrays.map((data, i) => ({ data, rows: shapes[i]![0], cols: shapes[i]![1] }))) as Batch<DeviceArray>,
    tau: variable(taus.map((data, i) => ({ data, rows: Math.min(...shapes[i]!), cols: 1 }))) as Batch<DeviceArray>,
    info: dInfo,
  });
  assert.deepEqual(Array.from(dev.download(dInfo) as Int32Array), new Array(shapes.length).fill(0));
  const factors = mats.map((x, i) => {
    const [m, n] = shapes[i]!;
    const f = Float64Array.from(dev.download(arrays[i]!) as Float64Array);
    const tau = Float64Array.from(dev.download(taus[i]!) as Float64Array);
    const { residual, orthogonality } = qrRatios(x, f, tau, m, n, eps);
    assert.ok(residual < LIMIT && orthogonality < LIMIT, `variable #${i} ${m}x${n}: ${residual}, ${orthogonality}`);
    return { f, tau };
  });
  return { mats, arrays, taus, dInfo, factors };
}

