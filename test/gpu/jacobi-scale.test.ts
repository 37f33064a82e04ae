/**
 * syev on a real GPU (skipped where none is usable) at the bench's scale, 1,000,000 matrices of
 * 2 x 2 and 100,000 of 8 x 8; and the benchmark's vendor baselines beyond 32 (cuSOLVER syevd per
 * matrix, gesvdaStridedBatched, XsyevBatched where the library has it) against the CPU reference.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { strided } from '../../src/core/batch.js';
import { allocate, type FloatArray } from '../../src/core/dtype.js';
import { cpuGesvd, cpuSyev } from '../../src/cpu/lapack/index.js';
import { Cusolver } from '../../src/cuda/baselines/index.js';
import { syevCuda } from '../../src/cuda/kernels/jacobi/index.js';
import { gpu } from '../helpers/gpu.js';
import { eigenResidual, frob, generalCase, mat, symmetricCase, type Mat } from '../helpers/jacobi-checks.js';
import { Rng } from '../helpers/random.js';
import { EPS, LIMIT, randomSymmetricBatch, rounded } from '../helpers/syev-gpu-checks.js';
import { skip } from './jacobi-cases.js';

test('the benchmark baselines beyond 32: cuSOLVER syevd per matrix and gesvdaStridedBatched agree with the reference', { skip, timeout: 120_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1708);
  const solver = new Cusolver(dev);
  try {
    for (const dtype of ['float64', 'float32'] as const) {
      const n = 40, count = 3;
      const eps = EPS[dtype];
      const sym = Array.from({ length: count }, () => rounded(symmetricCase(rng, 'random', n).a, dtype));
      const gen = Array.from({ length: count }, () => rounded(generalCase(rng, 'random', n, n).a, dtype));
      const flat = (ms: Mat[]): FloatArray => { const x = allocate(dtype, n * n * count); ms.forEach((m0, k) => x.set(m0.d, k * n * n)); return x; };
      const refW = allocate(dtype, n * count);
      const refS = allocate(dtype, n * count);
      cpuSyev({ jobz: 'values', uplo: 'lower', a: strided(flat(sym), { rows: n, count }), w: strided(refW, { rows: n, cols: 1, count }), info: new Int32Array(count) });
      cpuGesvd({ a: strided(flat(gen), { rows: n, cols: n, count }), s: strided(refS, { rows: n, cols: 1, count }), info: new Int32Array(count) });
      const dA = dev.upload(flat(sym)), dW = dev.alloc(dtype, n * count), dInfo = dev.upload(new Int32Array(count).fill(-7));
      const dG = dev.upload(flat(gen)), dS = dev.alloc(dtype, n * count), dU = dev.alloc(dtype, n * n * count), dV = dev.alloc(dtype, n * n * count), dInfo2 = dev.upload(new Int32Array(count).fill(-7));
      const syevd = solver.syevdLoop(dtype, n, dA, dW, dInfo, count);
      const gesvda = solver.gesvdaStridedBatched(dtype, n, n, dG, dS, dU, dV, dInfo2, count);
      try {
        syevd.run();
        gesvda.run();
        const w = dev.download(dW) as FloatArray, sv = dev.download(dS) as FloatArray;
        assert.deepEqual([...(dev.download(dInfo) as Int32Array)], [0, 0, 0], `${dtype} syevd info`);
        assert.deepEqual([...(dev.download(dInfo2) as Int32Array)], [0, 0, 0], `${dtype} gesvda info`);
        for (let k = 0; k < count; k++) {
          const na = frob(sym[k]!), ng = frob(gen[k]!);
          for (let j = 0; j < n; j++) {
            assert.ok(Math.abs(w[k * n + j]! - refW[k * n + j]!) <= LIMIT * n * eps * na, `${dtype} syevd #${k} w[${j}]`);
            assert.ok(Math.abs(sv[k * n + j]! - refS[k * n + j]!) <= LIMIT * n * eps * ng, `${dtype} gesvda #${k} s[${j}]`);
          }
        }
      } finally {
        syevd.dispose(); gesvda.dispose();
        for (const x of [dA, dW, dInfo, dG, dS, dU, dV, dInfo2]) x.dispose();
      }
      // cusolverDnXsyevBatched (the bench's vendor beyond 32 where the library has it): values and vectors.
      if (!solver.hasSyevBatched) continue;
      const dB = dev.upload(flat(sym)), dWb = dev.upload(allocate(dtype, n * count).fill(NaN)), dInfoB = dev.upload(new Int32Array(count).fill(-7));
      const batched = solver.syevBatched(dtype, n, dB, dWb, dInfoB, count);
      try {
        batched.run();
        const w = dev.download(dWb) as FloatArray, vs = dev.download(dB) as FloatArray;
        assert.deepEqual([...(dev.download(dInfoB) as Int32Array)], [0, 0, 0], `${dtype} XsyevBatched info`);
        for (let k = 0; k < count; k++) {
          const na = frob(sym[k]!);
          for (let j = 0; j < n; j++) assert.ok(Math.abs(w[k * n + j]! - refW[k * n + j]!) <= LIMIT * n * eps * na, `${dtype} XsyevBatched #${k} w[${j}]`);
          const v = mat(n, n);
          for (let i = 0; i < n * n; i++) v.d[i] = vs[k * n * n + i]!;
          assert.ok(eigenResidual(sym[k]!, v, w.subarray(k * n, (k + 1) * n), eps) < LIMIT, `${dtype} XsyevBatched #${k} residual`);
        }
      } finally {
        batched.dispose();
        for (const x of [dB, dWb, dInfoB]) x.dispose();
      }
    }
  } finally {
    solver.dispose();
  }
});

test('1,000,000 matrices of 2 x 2 (float32) and 100,000 of 8 x 8 (float64) run', { skip, timeout: 120_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1704);
  for (const [dtype, n, count] of [['float32', 2, 1_000_000], ['float64', 8, 100_000]] as const) {
    const host = randomSymmetricBatch(rng, dtype, n, count);
    const dA = dev.upload(host);
    const dW = dev.alloc(dtype, n * count);
    const dInfo = dev.alloc('int32', count);
    try {
      syevCuda(dev, { jobz: 'vectors', uplo: 'lower', a: strided(dA, { rows: n, count }), w: strided(dW, { rows: n, cols: 1, count }), info: dInfo });
      const info = dev.download(dInfo) as Int32Array;
      assert.equal(info.reduce((c, v) => c + (v !== 0 ? 1 : 0), 0), 0, `${count} ${n}x${n}: every info 0`);
      const v = dev.download(dA) as FloatArray;
      const w = dev.download(dW) as FloatArray;
      for (const k of [0, 1, count >> 1, count - 1]) {
        const a = mat(n, n);
        for (let e = 0; e < n * n; e++) a.d[e] = host[k * n * n + e]!;
        const vk = mat(n, n);
        for (let e = 0; e < n * n; e++) vk.d[e] = v[k * n * n + e]!;
        const r = eigenResidual(a, vk, w.subarray(k * n, (k + 1) * n), EPS[dtype]);
        assert.ok(r < LIMIT, `${count} ${n}x${n} #${k}: ratio ${r}`);
      }
    } finally {
      dA.dispose(); dW.dispose(); dInfo.dispose();
    }
  }
});
