/**
 * The resume and chunking cases of the split design (test/gpu/tridiag-split.test.ts has the rest).
 *
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
import type { FloatArray } from '../../src/core/dtype.js';
import { planSyevSplit, splitSlice, syevTridiagCuda } from '../../src/cuda/kernels/tridiag/index.js';
import { BLOCK_WORKSPACE_BYTES } from '../../src/cuda/kernels/common/block-launch.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { gpu } from '../helpers/gpu.js';
import { eigenResidual, mat, orthoResidual } from '../helpers/jacobi-checks.js';
import { Rng } from '../helpers/random.js';
import { EPS, LIMIT, randomSymmetricBatch } from '../helpers/syev-gpu-checks.js';
import { check, compareDesigns, skip, split } from './tridiag-split-cases.js';

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
