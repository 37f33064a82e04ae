/**
 * Batched syev by tridiagonalization and implicit QL/QR on a real GPU (skipped where none is
 * usable): against the CPU reference (info; eigenvalues within n eps ||A||) and by the
 * residuals ||A V - V W|| / (n eps ||A||) and ||V^T V - I|| / (n eps) < 30; n = 33 ... 40, 47, 64,
 * 100, 128, 256, 512, both dtypes, both triangles, values and vectors, random, clustered, repeated,
 * diagonal, zero, graded and rank-deficient matrices, spectra that are mostly one cluster
 * (diagonally dominant, or half within 1e-9: the clusters kernel), NaN among good ones, odd ld and stride with
 * NaN padding that must come back untouched (and the unread triangle NaN); the working matrix in
 * shared memory and (forced) in the global workspace, fewer threads than rows, a list batch, the
 * route through the router, and large batches (the workspace in chunks).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { strided } from '../../src/core/batch.js';
import { type DType, type FloatArray } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import { runRouted } from '../../src/cuda/router.js';
import { syevTridiagCuda, type TridiagOptions } from '../../src/cuda/kernels/tridiag/index.js';
import type { GpuDevice } from '../../src/cuda/runtime/index.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';
import { checkListSyev, eigenResidual, mat, orthoResidual } from '../helpers/jacobi-checks.js';
import { Rng } from '../helpers/random.js';
import { EPS, LIMIT, checkSyevOnGpu, randomSymmetricBatch } from '../helpers/syev-gpu-checks.js';

const skip = gpuSkipReason();
const SYM = ['random', 'clustered', 'repeated', 'diagonal', 'zero', 'graded', 'rank-deficient'] as const;

/** syev through `run`, checked as test/helpers/syev-gpu-checks.ts does: eigenvalues within n eps ||A||, a NaN matrix's vectors NaN. */
function checkSyev(dev: GpuDevice, rng: Rng, dtype: DType, n: number, count: number, vectors: boolean, uplo: Uplo,
  run: (r: Parameters<typeof syevTridiagCuda>[1]) => void): void {
  checkSyevOnGpu(dev, rng, dtype, n, count, vectors, uplo, run, { kinds: SYM, valueLimit: 1, nanVectors: true, label: 'tridiag' });
}

/** Matrices per check (the CPU reference is cubic, in JavaScript): every kind and the NaN one to 128. */
const countFor = (n: number): number => (n <= 128 ? 8 : n <= 256 ? 4 : 3);
const direct = (dev: GpuDevice, opts: TridiagOptions = {}) => (r: Parameters<typeof syevTridiagCuda>[1]): void => syevTridiagCuda(dev, r, opts);

test('tridiagonal syev: n = 33 ... 40, 47, 64, 100, 128, 256, 512, both dtypes and triangles, values and vectors, every kind, NaN among good ones', { skip, timeout: 900_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1717);
  for (const dtype of ['float64', 'float32'] as const)
    for (const n of [33, 34, 35, 36, 37, 38, 39, 40, 47, 64, 100, 128, 256, 512]) {
      checkSyev(dev, rng, dtype, n, countFor(n), true, n % 2 === 0 ? 'lower' : 'upper', direct(dev));
      if ([33, 40, 47, 64, 128, 256, 512].includes(n)) checkSyev(dev, rng, dtype, n, countFor(n), false, n % 2 === 0 ? 'upper' : 'lower', direct(dev));
    }
});

test('tridiagonal syev on spectra that are mostly one cluster (diagonally dominant; half within 1e-9): n = 40, 64, 130, 256, 300, 512, both dtypes, vectors, the clusters kernel past SERIAL_CLUSTER (512 threads above 256: more than 300 rows)', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1720);
  for (const dtype of ['float64', 'float32'] as const)
    for (const n of [40, 64, 130, 256, 300, 512]) {
      checkSyevOnGpu(dev, rng, dtype, n, 4, true, n % 2 === 0 ? 'lower' : 'upper', direct(dev), { kinds: ['dominant', 'tight', 'random'], valueLimit: 1, nanVectors: true, label: 'tridiag clusters' });
    }
  });

test('tridiagonal syev on nearly degenerate clusters (vectors computed again serially) and with clusters of up to 8 on one thread (forced): n = 64, 130, 256, both dtypes', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1721);
  for (const dtype of ['float64', 'float32'] as const)
    for (const n of [64, 130, 256]) {
      const uplo = n % 2 === 0 ? 'lower' : 'upper';
      checkSyevOnGpu(dev, rng, dtype, n, 5, true, uplo, direct(dev), { kinds: ['clustered', 'repeated', 'random', 'tight'], valueLimit: 1, nanVectors: true, label: 'tridiag degenerate clusters' });
      checkSyevOnGpu(dev, rng, dtype, n, 5, true, uplo, direct(dev, { force: { steinSerialCluster: 8 } }), { kinds: ['dominant', 'clustered', 'random', 'tight'], valueLimit: 1, nanVectors: true, label: 'tridiag serial clusters of 8' });
    }
});

test('tridiagonal syev forced: the global workspace, fewer threads than rows, a list batch, the route through the router', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1718);
  for (const dtype of ['float64', 'float32'] as const) {
    checkSyev(dev, rng, dtype, 64, 8, true, 'lower', direct(dev, { force: { global: true } }));
    checkSyev(dev, rng, dtype, 100, 8, false, 'upper', direct(dev, { force: { global: true } }));
    checkSyev(dev, rng, dtype, 128, 8, true, 'upper', direct(dev, { force: { threads: 64 } }));
    checkSyev(dev, rng, dtype, 47, 8, true, 'lower', direct(dev, { force: { global: true, threads: 32 } }));
    checkSyev(dev, rng, dtype, 12, 8, true, 'upper', (r) => { runRouted('syev', dev, r as unknown as Record<string, unknown>, 'tridiag'); });
    checkSyev(dev, rng, dtype, 72, 8, true, 'lower', (r) => syevTridiagCuda(dev, r, { force: { global: true, threads: 96 } }));
  }
  // A list batch of 100 x 100 matrices (pointer form).
  checkListSyev(dev, rng, LIMIT, (r) => syevTridiagCuda(dev, r));
});

test('tridiagonal syev: large batches (2,000 of 64 x 64 in one chunk; 150 of 512 x 512 in the card\'s chunks and in three chunks of 1 GiB), residuals of a few', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1719);
  for (const [dtype, n, count, chunkBytes] of [['float64', 64, 2000, undefined], ['float32', 64, 2000, undefined], ['float64', 512, 150, undefined], ['float64', 512, 150, 2 ** 30]] as const) {
    const host = randomSymmetricBatch(rng, dtype, n, count);
    const dA = dev.upload(host);
    const dW = dev.alloc(dtype, n * count);
    const dInfo = dev.upload(new Int32Array(count).fill(-7));
    try {
      syevTridiagCuda(dev, { jobz: 'vectors', uplo: 'lower', a: strided(dA, { rows: n, count }), w: strided(dW, { rows: n, cols: 1, count }), info: dInfo },
        chunkBytes === undefined ? {} : { force: { chunkBytes } });
      const info = dev.download(dInfo) as Int32Array;
      assert.equal(info.reduce((c, v) => c + (v !== 0 ? 1 : 0), 0), 0, `${count} ${n}x${n}: every info 0`);
      const v = dev.download(dA) as FloatArray;
      const w = dev.download(dW) as FloatArray;
      // 1 GiB chunks of n = 512 hold 68 matrices: 67, 68, 135 and 136 lie on both sides of the boundaries.
      for (const k of [0, 1, 67, 68, 127, 128, 135, 136, count - 1]) {
        const a = mat(n, n);
        for (let e = 0; e < n * n; e++) a.d[e] = host[k * n * n + e]!;
        const vk = mat(n, n);
        for (let e = 0; e < n * n; e++) vk.d[e] = v[k * n * n + e]!;
        const r1 = eigenResidual(a, vk, w.subarray(k * n, (k + 1) * n), EPS[dtype]), r2 = orthoResidual(vk, EPS[dtype]);
        assert.ok(r1 < LIMIT && r2 < LIMIT, `${count} ${n}x${n} #${k}: ratios ${r1}, ${r2}`);
      }
    } finally {
      dA.dispose(); dW.dispose(); dInfo.dispose();
    }
  }
});
