/**
 * The tridiagonal syev's split design (record the chain's rotations, apply them by blocks of rows
 * over all SMs, finish: kernels/tridiag/generate-apply.ts) on a real GPU (skipped where none is
 * usable): against the CPU reference (info; eigenvalues within n eps ||A||), by the
 * residuals ||A V - V W|| / (n eps ||A||) and ||V^T V - I|| / (n eps) < 30 and against the one-kernel
 * design on the same data (the same chain: the same eigenvalues bit for bit; the same rotations in
 * the same order: vectors within n eps); n = 64, 100, 128, 200, 256, 384, 512, both dtypes, both
 * triangles, every kind of test matrix, NaN among good ones (info n + 2, NaN outputs, neighbours
 * untouched), odd ld and stride with NaN padding; tiny rotation buffers (the finish kernel resumes
 * the chains), batches in several workspace chunks (with a NaN matrix and tiny buffers among them),
 * a list batch, and the route through the router.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { strided } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import type { SyevRequest } from '../../src/core/ops.js';
import { runRouted } from '../../src/cuda/router.js';
import { planSyevSplit, splitSlice, syevTridiagCuda, type TridiagForce } from '../../src/cuda/kernels/tridiag/index.js';
import { BLOCK_WORKSPACE_BYTES } from '../../src/cuda/kernels/common/block-launch.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/index.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';
import { checkListSyev, eigenResidual, mat, orthoResidual, symmetricCase } from '../helpers/jacobi-checks.js';
import { Rng } from '../helpers/random.js';
import { EPS, LIMIT, checkSyevOnGpu, randomSymmetricBatch, rounded } from '../helpers/syev-gpu-checks.js';

const skip = gpuSkipReason();
const SYM = ['random', 'clustered', 'repeated', 'diagonal', 'zero', 'graded', 'rank-deficient'] as const;
type Run = (r: SyevRequest<DeviceArray, DeviceArray>) => void;
const split = (dev: GpuDevice, force: TridiagForce = {}): Run => (r) => syevTridiagCuda(dev, r, { force: { split: true, ...force } });
/** The one-kernel design with the same threads (the block sums' order, so the same bits). */
const oneKernel = (dev: GpuDevice, threads?: number): Run => (r) => syevTridiagCuda(dev, r, { force: threads === undefined ? { split: false } : { split: false, threads } });

function check(dev: GpuDevice, rng: Rng, dtype: DType, n: number, count: number, uplo: Uplo, run: Run, label: string): void {
  checkSyevOnGpu(dev, rng, dtype, n, count, true, uplo, run, { kinds: SYM, valueLimit: 1, nanVectors: true, label });
}

/** Matrices per check (the CPU reference is cubic, in JavaScript): every kind and the NaN one to 128. */
const countFor = (n: number): number => (n <= 128 ? 8 : n <= 256 ? 4 : 3);

test('split syev: n = 64 ... 512, both dtypes and triangles, every kind, NaN among good ones, against the reference', { skip, timeout: 900_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1721);
  for (const dtype of ['float64', 'float32'] as const)
    for (const n of [64, 100, 128, 200, 256, 384, 512])
      for (const uplo of ['lower', 'upper'] as const) {
        if (n >= 384 && uplo === (dtype === 'float64' ? 'upper' : 'lower')) continue;   // one triangle each at the largest sizes (time)
        check(dev, rng, dtype, n, countFor(n), uplo, split(dev), `split ${dtype}`);
      }
});

/** Both designs on the same batch: info equal, w bit for bit, vectors within n eps. */
function compareDesigns(dev: GpuDevice, rng: Rng, dtype: DType, n: number, count: number, uplo: Uplo, force: TridiagForce): void {
  const kinds = ['random', 'graded', 'clustered', 'repeated'] as const;
  const mats = Array.from({ length: count }, (_, k) => rounded(symmetricCase(rng, kinds[k % kinds.length]!, n).a, dtype));
  const host = allocate(dtype, n * n * count);
  mats.forEach((a, k) => host.set(a.d, k * n * n));
  const results = [split(dev, force), oneKernel(dev, force.threads)].map((run) => {
    const dA = dev.upload(host), dW = dev.upload(allocate(dtype, n * count).fill(NaN)), dInfo = dev.upload(new Int32Array(count).fill(-7));
    try {
      run({ jobz: 'vectors', uplo, a: strided(dA, { rows: n, count }), w: strided(dW, { rows: n, cols: 1, count }), info: dInfo });
      return { a: dev.download(dA) as FloatArray, w: dev.download(dW) as FloatArray, info: [...(dev.download(dInfo) as Int32Array)] };
    } finally {
      dA.dispose(); dW.dispose(); dInfo.dispose();
    }
  });
  const [s, o] = results as [typeof results[0], typeof results[0]];
  const what = `split vs one kernel ${dtype} n=${n} ${uplo} ${JSON.stringify(force)}`;
  assert.deepEqual(s.info, o.info, `${what}: info`);
  assert.deepEqual(s.info, new Array(count).fill(0), `${what}: info 0`);
  s.w.forEach((x, e) => assert.ok(Object.is(x, o.w[e]), `${what}: w[${e}] ${x} vs ${o.w[e]}`));
  let diff = 0, same = 0;
  s.a.forEach((x, e) => { diff = Math.max(diff, Math.abs(x - o.a[e]!)); if (Object.is(x, o.a[e])) same++; });
  assert.ok(diff <= n * EPS[dtype], `${what}: vectors differ by ${diff}`);
  console.log(`${what}: vectors differ by at most ${diff.toExponential(2)} (${same} of ${s.a.length} elements the same bits)`);
  mats.forEach((a, k) => {
    const v = mat(n, n);
    for (let e = 0; e < n * n; e++) v.d[e] = s.a[k * n * n + e]!;
    const r1 = eigenResidual(a, v, s.w.subarray(k * n, (k + 1) * n), EPS[dtype]), r2 = orthoResidual(v, EPS[dtype]);
    assert.ok(r1 < LIMIT && r2 < LIMIT, `${what} #${k}: ratios ${r1}, ${r2}`);
  });
}

test('split syev against the one-kernel design: the same eigenvalues bit for bit, vectors within n eps; default and tiny buffers (the resume path)', { skip, timeout: 900_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1722);
  for (const dtype of ['float64', 'float32'] as const) {
    for (const n of [128, 256, 512]) compareDesigns(dev, rng, dtype, n, 4, n === 256 ? 'upper' : 'lower', {});
    // Buffers of 2n (every chain stops after its first sweep), n^2 / 4 (mid-way) and apply blocks of 8 and 32 rows.
    compareDesigns(dev, rng, dtype, 200, 4, 'lower', { cap: 400, applyRows: 8 });
    compareDesigns(dev, rng, dtype, 256, 4, 'upper', { cap: 256 * 64, applyRows: 32 });
    compareDesigns(dev, rng, dtype, 100, 4, 'lower', { cap: 200, threads: 32 });
  }
});

test('split syev, tiny buffers against the reference: every kind and NaN, the finish kernel resuming the chains', { skip, timeout: 900_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1723);
  for (const dtype of ['float64', 'float32'] as const) {
    check(dev, rng, dtype, 128, 8, 'upper', split(dev, { cap: 256 }), `split cap 2n ${dtype}`);
    check(dev, rng, dtype, 200, 4, 'lower', split(dev, { cap: 5000, applyRows: 32 }), `split cap 5000 ${dtype}`);
    check(dev, rng, dtype, 64, 8, 'lower', split(dev, { cap: 300, applyRows: 5, threads: 32 }), `split cap 300, 5 rows ${dtype}`);
  }
});

test('split syev: batches in three or more workspace chunks (a NaN matrix in the second), default, large and small buffers (512 x 120 resumes every chain)', { skip, timeout: 900_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1724);
  const tuning = tuningFor(dev.info.arch, 'tridiag');
  for (const [dtype, n, count, force] of [
    ['float64', 512, 60, {}], ['float32', 256, 250, {}], ['float64', 128, 400, { cap: 128 * 128 * 8 }], ['float64', 512, 120, { cap: 512 * 256 }],
  ] as const) {
    const p = planSyevSplit({ dtype, n, uplo: 'lower', vectors: true, kind: 'strided', sharedLimit: dev.info.sharedPerBlockOptin - 1024 }, tuning, { force });
    const chunk = Math.floor(BLOCK_WORKSPACE_BYTES / (splitSlice(n, p.apply.cap).slice * 8));
    assert.ok(count > 2 * chunk, `${dtype} ${n} x ${count}: at least three chunks of ${chunk}`);
    const host = randomSymmetricBatch(rng, dtype, n, count);
    const bad = chunk + 1;
    host[bad * n * n + 3 * (n + 1)] = NaN;
    const dA = dev.upload(host);
    const dW = dev.alloc(dtype, n * count);
    const dInfo = dev.upload(new Int32Array(count).fill(-7));
    try {
      syevTridiagCuda(dev, { jobz: 'vectors', uplo: 'lower', a: strided(dA, { rows: n, count }), w: strided(dW, { rows: n, cols: 1, count }), info: dInfo }, { force: { split: true, ...force } });
      const info = dev.download(dInfo) as Int32Array;
      const what = `${dtype} ${count} of ${n}x${n} ${JSON.stringify(force)} (chunks of ${chunk})`;
      info.forEach((x, k) => assert.equal(x, k === bad ? n + 2 : 0, `${what} #${k}: info`));
      const v = dev.download(dA) as FloatArray;
      const w = dev.download(dW) as FloatArray;
      assert.ok(w.subarray(bad * n, (bad + 1) * n).every(Number.isNaN) && v.subarray(bad * n * n, (bad + 1) * n * n).every(Number.isNaN), `${what}: the NaN matrix's outputs NaN`);
      for (const k of [0, chunk - 1, chunk, bad + 1, 2 * chunk - 1, 2 * chunk, count - 1]) {
        const a = mat(n, n);
        for (let e = 0; e < n * n; e++) a.d[e] = host[k * n * n + e]!;
        const vk = mat(n, n);
        for (let e = 0; e < n * n; e++) vk.d[e] = v[k * n * n + e]!;
        const r1 = eigenResidual(a, vk, w.subarray(k * n, (k + 1) * n), EPS[dtype]), r2 = orthoResidual(vk, EPS[dtype]);
        assert.ok(r1 < LIMIT && r2 < LIMIT, `${what} #${k}: ratios ${r1}, ${r2}`);
      }
    } finally {
      dA.dispose(); dW.dispose(); dInfo.dispose();
    }
  }
});

test('split syev through the router (the table\'s route) and a list batch', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1725);
  const from = tuningFor(dev.info.arch, 'tridiag').splitFrom;
  check(dev, rng, 'float64', Math.max(from, 130), 4, 'upper', (r) => { runRouted('syev', dev, r as unknown as Record<string, unknown>); }, 'router');
  check(dev, rng, 'float32', 256, 4, 'lower', (r) => { runRouted('syev', dev, r as unknown as Record<string, unknown>); }, 'router');
  // A list batch (pointer form) of matrices the table splits.
  checkListSyev(dev, rng, LIMIT, (r) => syevTridiagCuda(dev, r), Math.max(from, 200));
});
