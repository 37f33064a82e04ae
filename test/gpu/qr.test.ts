/**
 * Batched geqrf and orgqr on a real GPU (skipped where none is usable): the shared-memory
 * Householder kernels against the CPU reference (R, reflectors and tau of random matrices; orgqr's
 * Q from the reference's factors) and by residuals, ||A - Q R|| / (max(m, n) eps ||A||) < 30 and
 * ||Q^T Q - I|| / (max(m, n) eps) < 30, both dtypes, m, n = 1..33 (selection), tall (m = 10 n) and
 * wide, 64, 100, 128, 200 x 50, 512 x 32; random, graded, rank-deficient and zero-column matrices,
 * NaN in one matrix of a good batch (the others unaffected), info and tau poisoned before the call,
 * odd ld and strides with NaN padding that must come back untouched; list and variable batches;
 * a CUDA context's calls; the vendor baselines of the benchmark (cuBLAS geqrfBatched, cuSOLVER orgqr
 * looped) on the same data. The blocked compact-WY driver (from 128 reflectors, or where the tile does
 * not fit): 64...512 square, tall (500 x 50, 512 x 48) and wide (100 x 300, 48 x 512), both dtypes, the
 * same checks; forced onto small sizes with narrow panels and no tail; mixed shared and blocked groups
 * of a variable batch (info in its place) and a list batch's orgqr.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Context } from '../../src/api/context.js';
import { list, strided, variable, type Batch } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import { org2r } from '../../src/cpu/lapack/qr.js';
import { Cublas, Cusolver, batchPointers } from '../../src/cuda/baselines/index.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { geqrfCuda, orgqrCuda, type QrOptions } from '../../src/cuda/kernels/qr/index.js';
import { gpuCovers } from '../../src/cuda/router.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/index.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';
import { QR_KINDS, qrCase, qrRatios, referenceQr, relativeGap } from '../helpers/qr-checks.js';
import { Rng } from '../helpers/random.js';

const skip = gpuSkipReason();
const EPS: Record<DType, number> = { float64: 2 ** -52, float32: 2 ** -23 };
const LIMIT = 30;

const fro = (a: ArrayLike<number>): number => { let s = 0; for (let q = 0; q < a.length; q++) s += a[q]! * a[q]!; return Math.sqrt(s); };
const upper = (f: ArrayLike<number>, m: number): number[] => Array.from(f).filter((_, e) => e % m <= Math.floor(e / m));
const lower = (f: ArrayLike<number>, m: number): number[] => Array.from(f).filter((_, e) => e % m > Math.floor(e / m));
const round = (dtype: DType) => (v: number): number => (dtype === 'float32' ? Math.fround(v) : v);

/** geqrf of `count` m x n matrices in a padded strided batch (ld m + 1 or m + 2, odd gaps), then orgqr on the reference's factors. */
function check(dev: GpuDevice, rng: Rng, dtype: DType, m: number, n: number, count: number, opts: QrOptions = {}): void {
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

const SMALL = [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 13, 16, 17, 20, 24, 29, 31, 32, 33];
const countFor = (s: number): number => (s <= 4 ? 300 : s <= 16 ? 70 : s <= 64 ? 20 : 6);

test('geqrf and orgqr on the GPU: square sizes 1..33, both dtypes', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1801);
  for (const dtype of ['float64', 'float32'] as const) for (const n of SMALL) check(dev, rng, dtype, n, n, countFor(n));
});

test('geqrf and orgqr on the GPU: tall (m = 10 n), wide, 64, 100, 128, 200 x 50, 512 x 32', { skip, timeout: 900_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1802);
  const shapes: [number, number][] = [
    [10, 1], [30, 3], [32, 2], [50, 5], [160, 16], [320, 32], [4, 1], [5, 3], [3, 5], [1, 7], [8, 31], [16, 33], [20, 100], [31, 32],
    [64, 64], [100, 100], [128, 128], [200, 50], [512, 32], [40, 120],
  ];
  for (const dtype of ['float64', 'float32'] as const) for (const [m, n] of shapes) check(dev, rng, dtype, m, n, countFor(Math.max(m, n)));
});

/**
 * geqrf of random float64 matrices of `shapes` as one variable batch (a device array each, tau
 * poisoned, info -7): info all 0 and every matrix's residual and orthogonality below LIMIT; the
 * factors and tau as read back. The caller disposes arrays, taus and dInfo.
 */
function variableGeqrf(dev: GpuDevice, rng: Rng, shapes: readonly [number, number][]) {
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

test('list and variable batches (pointer form, grouped by size), and a CUDA context (300 x 300: the blocked driver)', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1803);
  const eps = EPS.float64;
  const shapes: [number, number][] = [[6, 4], [4, 6], [6, 4], [40, 30], [6, 4]];
  const { mats, arrays, taus, dInfo, factors } = variableGeqrf(dev, rng, shapes);
  try {
    // A list batch of the 6 x 4 factors: the thin Q.
    const same = [0, 2, 4];
    const dTau = dev.upload(Float64Array.from(same.flatMap((i) => Array.from(factors[i]!.tau))));
    orgqrCuda(dev, { a: list(same.map((i) => arrays[i]!), { rows: 6, cols: 4 }) as Batch<DeviceArray>, tau: strided(dTau, { rows: 4, cols: 1, count: 3 }) });
    same.forEach((i) => {
      const q = Float64Array.from(dev.download(arrays[i]!) as Float64Array);
      const ref = referenceQr(mats[i]!, 6, 4);
      org2r(ref.f, ref.tau, 6, 4, 4);
      assert.ok(relativeGap(q, ref.f, 1, 6, 4, eps) < LIMIT, `list orgqr #${i}`);
    });
    dTau.dispose();
  } finally {
    for (const x of [...arrays, ...taus, dInfo]) x.dispose();
  }
  const backend = new CudaBackend(dev, 'test');
  const ctx = new Context('cuda', backend, backend);
  for (const [m, n, covered] of [[24, 24, true], [128, 128, true], [300, 300, true]] as const) {
    const x = qrCase(rng, 'random', m, n, 'float64');
    const data = Float64Array.from(x);
    const tau = new Float64Array(n);
    const req = { a: strided(data, { rows: m, cols: n }), tau: strided(tau, { rows: n, cols: 1 }) };
    assert.equal(gpuCovers('geqrf', req, dev), covered, `${m}x${n} covered`);
    const { info } = ctx.geqrf(req);
    assert.equal(info[0], 0);
    const { residual, orthogonality } = qrRatios(x, data, tau, m, n, eps);
    assert.ok(residual < LIMIT && orthogonality < LIMIT, `context ${m}x${n}: ${residual}, ${orthogonality}`);
    const q = data.slice();
    ctx.orgqr({ a: strided(q, { rows: m, cols: n }), tau: strided(tau, { rows: n, cols: 1 }) });
    const check2 = qrRatios(x, data, tau, m, n, eps, q);
    assert.ok(check2.residual < LIMIT && check2.orthogonality < LIMIT, `context orgqr ${m}x${n}: ${check2.residual}, ${check2.orthogonality}`);
  }
  // The array level through the context.
  const a = qrCase(rng, 'random', 7, 5, 'float64');
  const rowMajor = new Float64Array(35);
  for (let i = 0; i < 7; i++) for (let j = 0; j < 5; j++) rowMajor[i * 5 + j] = a[i + j * 7]!;
  const { q, r } = ctx.qr({ data: rowMajor, shape: [7, 5] });
  assert.deepEqual(q!.shape, [7, 5]);
  let worst = 0;
  for (let i = 0; i < 7; i++) for (let j = 0; j < 5; j++) {
    let s = 0;
    for (let p = 0; p < 5; p++) s += q!.data[i * 5 + p]! * r.data[p * 5 + j]!;
    worst = Math.max(worst, Math.abs(s - rowMajor[i * 5 + j]!));
  }
  assert.ok(worst < LIMIT * 7 * eps * fro(a), `array-level qr: ${worst}`);
});

test('blocked geqrf and orgqr on the GPU: 64...512 square, tall and wide, both dtypes', { skip, timeout: 1_800_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1805);
  // The host reference is O(m n^2) in JavaScript: few matrices at the large sizes (the third one holds NaN).
  const shapes: [number, number, number][] = [
    [64, 64, 6], [100, 100, 5], [128, 128, 4], [200, 200, 3], [256, 256, 3], [512, 512, 3],
    [500, 50, 3], [512, 48, 3], [480, 130, 3], [100, 300, 3], [48, 512, 3], [200, 512, 3], [129, 131, 3],
  ];
  for (const dtype of ['float64', 'float32'] as const) for (const [m, n, count] of shapes) check(dev, rng, dtype, m, n, count);
});

test('blocked geqrf and orgqr forced where the shared kernel would serve, and the shared kernel forced at 128 (same results)', { skip, timeout: 900_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1806);
  const forced: [number, number, QrOptions][] = [
    [40, 40, { force: { design: 'blocked', panel: 8, tailMax: 0 } }],
    [70, 45, { force: { design: 'blocked', panel: 16, tailMax: 20 } }],
    [33, 90, { force: { design: 'blocked', panel: 8, tailMax: 0 } }],
    [100, 100, { force: { design: 'blocked', panel: 32, tailMax: 0 } }],
    [128, 128, { force: { design: 'shared' } }],
    [256, 256, { force: { design: 'blocked', panel: 16 } }],
  ];
  for (const dtype of ['float64', 'float32'] as const) for (const [m, n, opts] of forced) check(dev, rng, dtype, m, n, 5, opts);
});

test('blocked sizes in list and variable batches: shared and blocked groups in one call, info in its place', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1807);
  const eps = EPS.float64;
  const shapes: [number, number][] = [[200, 150], [6, 4], [200, 150], [130, 130], [64, 64], [200, 150]];
  const { arrays, taus, dInfo, factors } = variableGeqrf(dev, rng, shapes);
  try {
    // orgqr on a list batch of the three 200 x 150 factors (pointer form, blocked).
    const same = [0, 2, 5];
    const dTau = dev.upload(Float64Array.from(same.flatMap((i) => Array.from(factors[i]!.tau))));
    orgqrCuda(dev, { a: list(same.map((i) => arrays[i]!), { rows: 200, cols: 150 }) as Batch<DeviceArray>, tau: strided(dTau, { rows: 150, cols: 1, count: 3 }) });
    same.forEach((i) => {
      const q = Float64Array.from(dev.download(arrays[i]!) as Float64Array);
      const ref = factors[i]!.f.slice();
      org2r(ref, factors[i]!.tau, 200, 150, 150);
      assert.ok(relativeGap(q, ref, 1, 200, 150, eps) < LIMIT, `list orgqr #${i}`);
    });
    dTau.dispose();
  } finally {
    for (const x of [...arrays, ...taus, dInfo]) x.dispose();
  }
});

test('the vendor baselines agree: cublasDgeqrfBatched and the looped cusolverDnDorgqr give the reference factors', { skip, timeout: 120_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1804);
  const [n, count] = [12, 5];
  const mats = Array.from({ length: count }, () => qrCase(rng, 'random', n, n, 'float64'));
  const flat = new Float64Array(n * n * count);
  mats.forEach((x, i) => flat.set(x, i * n * n));
  const dA = dev.upload(flat);
  const dT = dev.upload(new Float64Array(n * count).fill(NaN));
  const blas = new Cublas(dev);
  const solver = new Cusolver(dev);
  const A = batchPointers(dev, dA, count, n * n);
  const T = batchPointers(dev, dT, count, n);
  try {
    assert.throws(() => blas.geqrfBatched('float64', n, n, A, n, T, count + 1), /pointers/);
    assert.equal(blas.geqrfBatched('float64', n, n, A, n, T, count), 0);
    const f = dev.download(dA) as Float64Array;
    const t = dev.download(dT) as Float64Array;
    mats.forEach((x, i) => {
      const ref = referenceQr(x, n, n);
      assert.ok(relativeGap(f.subarray(i * n * n, (i + 1) * n * n), ref.f, fro(x), n, n, EPS.float64) < LIMIT, `cuBLAS geqrf #${i}`);
      assert.ok(relativeGap(t.subarray(i * n, (i + 1) * n), ref.tau, 1, n, n, EPS.float64) < LIMIT, `cuBLAS tau #${i}`);
    });
    const call = solver.orgqrLooped('float64', n, n, n, dA, n * n, dT, n, count);
    call.run();
    call.dispose();
    const q = dev.download(dA) as Float64Array;
    mats.forEach((x, i) => {
      const { residual, orthogonality } = qrRatios(x, f.slice(i * n * n, (i + 1) * n * n), [], n, n, EPS.float64, q.slice(i * n * n, (i + 1) * n * n));
      assert.ok(residual < LIMIT && orthogonality < LIMIT, `cuSOLVER orgqr #${i}: ${residual}, ${orthogonality}`);
    });
  } finally {
    A.dispose(); T.dispose(); blas.dispose(); solver.dispose(); dA.dispose(); dT.dispose();
  }
});
