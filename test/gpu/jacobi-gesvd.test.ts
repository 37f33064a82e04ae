/**
 * Batched gesvd to 32 on a real GPU (skipped where none is usable): tall, square and wide, with
 * and without U and VT, both dtypes; then syev on a list batch (pointer form), a CUDA context's
 * calls (n = 513 goes to cuSOLVER's dense syevd where the library loads, else to the CPU reference) and the array level. Checks: test/gpu/jacobi-cases.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Context } from '../../src/api/context.js';
import { list, strided, type Batch } from '../../src/core/batch.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { syevCuda } from '../../src/cuda/kernels/jacobi/index.js';
import { cusolverMissing } from '../../src/cuda/baselines/cusolver.js';
import { choose, gpuCovers } from '../../src/cuda/router.js';
import type { DeviceArray } from '../../src/cuda/runtime/index.js';
import { gpu } from '../helpers/gpu.js';
import { eigenResidual, mat, symmetricCase } from '../helpers/jacobi-checks.js';
import { Rng } from '../helpers/random.js';
import { EPS, LIMIT } from '../helpers/syev-gpu-checks.js';
import { checkGesvd, countFor, skip } from './jacobi-cases.js';

test('gesvd on the GPU: tall, square and wide to 32, with and without U and VT', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1702);
  const shapes: [number, number][] = [[1, 1], [2, 2], [3, 3], [4, 1], [1, 4], [5, 3], [3, 5], [8, 8], [13, 7], [7, 13], [16, 16], [32, 5], [5, 32], [31, 31], [32, 32]];
  for (const dtype of ['float64', 'float32'] as const) {
    for (const [m, n] of shapes) checkGesvd(dev, rng, dtype, m, n, countFor(Math.max(m, n)), true, true);
    checkGesvd(dev, rng, dtype, 9, 6, 40, false, false);
    checkGesvd(dev, rng, dtype, 6, 9, 40, true, false);
    checkGesvd(dev, rng, dtype, 12, 4, 40, false, true);
  }
});

test('a list batch (pointer form), a CUDA context, fallback beyond 512, and the array level', { skip, timeout: 120_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1703);
  const n = 6;
  const mats = Array.from({ length: 5 }, () => symmetricCase(rng, 'random', n).a);
  const arrays = mats.map((a) => dev.upload(Float64Array.from(a.d)));
  const dW = dev.alloc('float64', 5 * n);
  const dInfo = dev.alloc('int32', 5);
  try {
    syevCuda(dev, { jobz: 'vectors', uplo: 'lower', a: list(arrays, { rows: n }) as Batch<DeviceArray>, w: strided(dW, { rows: n, cols: 1, count: 5 }), info: dInfo });
    const w = dev.download(dW) as Float64Array;
    assert.deepEqual([...(dev.download(dInfo) as Int32Array)], [0, 0, 0, 0, 0]);
    mats.forEach((a, k) => {
      const v = mat(n, n);
      v.d.set(dev.download(arrays[k]!) as Float64Array);
      assert.ok(eigenResidual(a, v, w.subarray(k * n, (k + 1) * n), EPS.float64) < LIMIT, `list #${k}`);
    });
  } finally {
    for (const x of arrays) x.dispose();
    dW.dispose(); dInfo.dispose();
  }
  const backend = new CudaBackend(dev, 'test');
  const ctx = new Context('cuda', backend, backend);
  const beyond = { jobz: 'vectors' as const, uplo: 'lower' as const, a: strided(new Float64Array(513 * 513), { rows: 513 }), w: strided(new Float64Array(513), { rows: 513, cols: 1 }) };
  // Beyond the own designs: cuSOLVER's dense syevd where the library loads, else the CPU reference.
  if (cusolverMissing() === undefined) assert.equal(choose('syev', beyond, dev).name, 'cusolver-syevd', 'n = 513 runs on cuSOLVER syevd');
  else assert.equal(gpuCovers('syev', beyond, dev), false, 'n = 513 runs on the CPU reference');
  for (const size of [8, 40]) {
    const a = symmetricCase(rng, 'random', size).a;
    const data = Float64Array.from(a.d);
    const w = new Float64Array(size);
    const req = { jobz: 'vectors' as const, uplo: 'lower' as const, a: strided(data, { rows: size }), w: strided(w, { rows: size, cols: 1 }) };
    assert.equal(gpuCovers('syev', req, dev), true);
    const { info } = ctx.syev(req);
    assert.equal(info[0], 0);
    assert.ok(eigenResidual(a, { m: size, n: size, d: data }, w, EPS.float64) < LIMIT, `context n=${size}`);
  }
  const x = new Float32Array(3 * 5 * 4).map(() => rng.uniform());
  const r = ctx.svd({ data: x, shape: [3, 5, 4] });
  assert.deepEqual([r.u.shape, r.s.shape, r.vt.shape], [[3, 5, 4], [3, 4], [3, 4, 4]]);
  const e = ctx.eighEx({ data: new Float64Array([2, 1, 1, 2, NaN, 0, 0, 1]), shape: [2, 2, 2] });
  assert.deepEqual([...e.info], [0, 4]);
  assert.ok(Math.abs(e.values.data[0]! - 1) < 1e-15 && Math.abs(e.values.data[1]! - 3) < 1e-15);
});
