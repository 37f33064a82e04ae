/**
 * The syev rows design (n = 9 ... 32) on a real GPU (skipped where none is usable): the planner's
 * kernel (the half-angle rotation and the card's occupancy table), the tangent rotation forced,
 * and `__launch_bounds__` requests of 2 ... 8 blocks an SM forced (the values the table may hold:
 * fewer registers a thread, spills where ptxas needs them), both dtypes, vectors and values, on
 * fresh random, clustered, repeated, graded, diagonal, zero and rank-deficient matrices with a NaN
 * among them, NaN padding and poisoned outputs (test/helpers/syev-gpu-checks.ts): eigenvalues
 * within n eps ||A|| of the CPU reference, residual and orthogonality below 30 n eps. Then matrices
 * scaled far from 1 (the half-angle rotation's power-of-two scaling), and a batch of many blocks.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { strided } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import { cpuSyev } from '../../src/cpu/lapack/index.js';
import { rowsShape, syevCuda, type JacobiOptions } from '../../src/cuda/kernels/jacobi/index.js';
import { gpu } from '../helpers/gpu.js';
import { eigenResidual, frob, orthoResidual, symmetricCase } from '../helpers/jacobi-checks.js';
import { Rng } from '../helpers/random.js';
import { EPS, LIMIT, read, rounded } from '../helpers/syev-gpu-checks.js';
import { checkSyev, skip } from './jacobi-cases.js';

const SIZES = [9, 10, 12, 15, 16, 17, 20, 24, 28, 31, 32];
const REQUESTS = [2, 3, 4, 5, 6, 8];
/** Two blocks and a partial one. */
const countOf = (n: number): number => 2 * rowsShape(n).perBlock + 3;
const rows = (more: JacobiOptions['force'] = {}): JacobiOptions => ({ force: { design: 'rows', ...more } });

test('syev rows design: the planned kernel, the tangent rotation and every occupancy request, both dtypes, vectors and values', { skip, timeout: 900_000 }, () => {
  const dev = gpu();
  const rng = new Rng(2718);
  for (const dtype of ['float64', 'float32'] as const)
    for (const [i, n] of SIZES.entries()) {
      const uplo = i % 2 === 0 ? 'lower' : 'upper';
      const variants: JacobiOptions[] = [{}, rows({ angle: 'tangent', minBlocks: 0 }), rows({ minBlocks: REQUESTS[i % REQUESTS.length]! }),
        rows({ angle: 'tangent', minBlocks: REQUESTS[(i + 3) % REQUESTS.length]! })];
      for (const opts of variants) {
        checkSyev(dev, rng, dtype, n, countOf(n), true, uplo, 1, opts);
        checkSyev(dev, rng, dtype, n, countOf(n), false, uplo === 'lower' ? 'upper' : 'lower', 1, opts);
      }
    }
});

test('syev rows design on matrices scaled far from 1 (2^-1000 ... 2^600, float32 2^-100 ... 2^60): both rotations', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1414);
  for (const dtype of ['float64', 'float32'] as const) {
    const scales = dtype === 'float64' ? [2 ** -1000, 2 ** -300, 2 ** 300, 2 ** 600] : [2 ** -100, 2 ** -30, 2 ** 30, 2 ** 60];
    for (const n of [9, 16, 24, 32]) for (const opts of [{}, rows({ angle: 'tangent' })]) {
      const count = scales.length * 3;
      // Matrix k is scale(k) mats[k] exactly; the checks run on mats[k] and W / scale(k), whose squares stay finite and normal.
      const mats = Array.from({ length: count }, (_, k) => rounded(symmetricCase(rng, (['random', 'graded', 'clustered'] as const)[k % 3]!, n).a, dtype));
      const scale = (k: number): number => scales[Math.floor(k / 3)]!;
      const host = allocate(dtype, n * n * count);
      mats.forEach((m, k) => { for (let e = 0; e < n * n; e++) host[k * n * n + e] = m.d[e]! * scale(k); });
      const refW = allocate(dtype, n * count);
      const refInfo = new Int32Array(count);
      cpuSyev({ jobz: 'values', uplo: 'lower', a: strided(host.slice(), { rows: n, count }), w: strided(refW, { rows: n, cols: 1, count }), info: refInfo });
      const dA = dev.upload(host), dW = dev.upload(allocate(dtype, n * count).fill(NaN)), dInfo = dev.upload(new Int32Array(count).fill(-7));
      try {
        syevCuda(dev, { jobz: 'vectors', uplo: 'lower', a: strided(dA, { rows: n, count }), w: strided(dW, { rows: n, cols: 1, count }), info: dInfo }, opts);
        const a = dev.download(dA) as FloatArray, w = dev.download(dW) as FloatArray, info = dev.download(dInfo) as Int32Array;
        mats.forEach((m, k) => {
          const at = `scaled syev rows ${dtype} n=${n} ${opts.force?.angle ?? 'planned'} #${k} (2^${Math.log2(scale(k))})`;
          assert.equal(info[k], 0, `${at}: info`);
          assert.equal(refInfo[k], 0, `${at}: the reference's info`);
          const wk = Array.from(w.subarray(k * n, (k + 1) * n), (x) => x / scale(k));
          const eps = EPS[dtype], norm = frob(m);
          wk.forEach((x, j) => assert.ok(Math.abs(x - refW[k * n + j]! / scale(k)) <= n * eps * norm, `${at}: w[${j}] = ${x}, reference ${refW[k * n + j]! / scale(k)}`));
          const v = read(a, k * n * n, n, n, n);
          const r1 = eigenResidual(m, v, wk, eps), r2 = orthoResidual(v, eps);
          assert.ok(r1 < LIMIT && r2 < LIMIT, `${at}: ||AV - VW|| ratio ${r1}, ||V^T V - I|| ratio ${r2}`);
        });
      } finally {
        dA.dispose(); dW.dispose(); dInfo.dispose();
      }
    }
  }
});

test('syev rows design, 4,000 random matrices a size (many blocks an SM): the planned kernel against the tangent rotation, residuals of a sample', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1618);
  for (const dtype of ['float64', 'float32'] as const satisfies readonly DType[]) for (const n of [12, 20, 32]) {
    const count = 4000;
    const mats = Array.from({ length: count }, () => rounded(symmetricCase(rng, 'random', n).a, dtype));
    const host = allocate(dtype, n * n * count);
    mats.forEach((m, k) => host.set(m.d, k * n * n));
    const eps = EPS[dtype];
    const results = [{}, rows({ angle: 'tangent' })].map((opts) => {
      const dA = dev.upload(host), dW = dev.upload(allocate(dtype, n * count).fill(NaN)), dInfo = dev.upload(new Int32Array(count).fill(-7));
      try {
        syevCuda(dev, { jobz: 'vectors', uplo: 'upper', a: strided(dA, { rows: n, count }), w: strided(dW, { rows: n, cols: 1, count }), info: dInfo }, opts);
        return { a: dev.download(dA) as FloatArray, w: dev.download(dW) as FloatArray, info: dev.download(dInfo) as Int32Array };
      } finally {
        dA.dispose(); dW.dispose(); dInfo.dispose();
      }
    });
    const [half, tangent] = results as [typeof results[0], typeof results[0]];
    for (let k = 0; k < count; k++) {
      const at = `syev rows ${dtype} n=${n} #${k}`;
      assert.equal(half.info[k], 0, `${at}: info`);
      assert.equal(tangent.info[k], 0, `${at}: the tangent rotation's info`);
      const norm = frob(mats[k]!);
      for (let j = 0; j < n; j++) {
        const x = half.w[k * n + j]!, y = tangent.w[k * n + j]!;
        assert.ok(Math.abs(x - y) <= 2 * n * eps * norm, `${at}: w[${j}] ${x} against the tangent rotation's ${y}`);
      }
      if (k % 97 === 0) {
        const v = read(half.a, k * n * n, n, n, n);
        const r1 = eigenResidual(mats[k]!, v, half.w.subarray(k * n, (k + 1) * n), eps), r2 = orthoResidual(v, eps);
        assert.ok(r1 < LIMIT && r2 < LIMIT, `${at}: ||AV - VW|| ratio ${r1}, ||V^T V - I|| ratio ${r2}`);
      }
    }
  }
});
