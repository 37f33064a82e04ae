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
import { list, strided, type Batch } from '../../src/core/batch.js';
import { org2r } from '../../src/cpu/lapack/qr.js';
import { Cublas, Cusolver, batchPointers } from '../../src/cuda/baselines/index.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { orgqrCuda } from '../../src/cuda/kernels/qr/index.js';
import { gpuCovers } from '../../src/cuda/router.js';
import type { DeviceArray } from '../../src/cuda/runtime/index.js';
import { gpu } from '../helpers/gpu.js';
import { qrCase, qrRatios, referenceQr, relativeGap } from '../helpers/qr-checks.js';
import { Rng } from '../helpers/random.js';
import { EPS, LIMIT, SMALL, check, countFor, fro, skip, variableGeqrf } from './qr-cases.js';

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
