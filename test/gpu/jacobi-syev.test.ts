/**
 * Batched syev to n = 32 on a real GPU (skipped where none is usable): the per-thread design to 8
 * and the rows design (a lane per row) to 32 by default, the shared-memory warp design forced,
 * both dtypes, n = 1..16 and sampled to 32, list batches, and graded matrices to high relative
 * accuracy. Checks: test/gpu/jacobi-cases.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { strided } from '../../src/core/batch.js';
import { allocate, type FloatArray } from '../../src/core/dtype.js';
import { syevCuda, type JacobiOptions } from '../../src/cuda/kernels/jacobi/index.js';
import { gpu } from '../helpers/gpu.js';
import { checkListSyev } from '../helpers/jacobi-checks.js';
import { GRADED_COND_BOUND, GRADED_ORDERS, gradedSpd, relativeEigenvalueErrors } from '../helpers/graded.js';
import { Rng } from '../helpers/random.js';
import { EPS, LIMIT } from '../helpers/syev-gpu-checks.js';
import { SIZES, checkSyev, countFor, skip } from './jacobi-cases.js';

test('syev on the GPU: n = 1..16, 17 ... 32, both dtypes, vectors (and values for some)', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1701);
  for (const dtype of ['float64', 'float32'] as const)
    for (const n of SIZES) {
      checkSyev(dev, rng, dtype, n, countFor(n), true, n % 2 === 0 ? 'lower' : 'upper');
      if ([1, 2, 3, 8, 17, 32].includes(n)) checkSyev(dev, rng, dtype, n, countFor(n), false, n % 2 === 0 ? 'upper' : 'lower');
    }
});

test('syev, designs forced: the shared-memory warp design to 32, the rows design (a lane per row) to 8, both dtypes; rows on list batches', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1706);
  for (const dtype of ['float64', 'float32'] as const)
    for (const n of SIZES) {
      const designs = n <= 8 ? ['warp', 'rows'] as const : ['warp'] as const;
      for (const design of designs) {
        checkSyev(dev, rng, dtype, n, countFor(n), true, n % 2 === 0 ? 'upper' : 'lower', LIMIT, { force: { design } });
        if ([1, 2, 7, 16, 31].includes(n)) checkSyev(dev, rng, dtype, n, countFor(n), false, n % 2 === 0 ? 'lower' : 'upper', LIMIT, { force: { design } });
      }
    }
  // A list batch (pointer form) of 3 on the rows design: fewer matrices than a block's slots, whose
  // lanes must not read the pointer array past its end.
  for (const n of [9, 16, 32]) checkListSyev(dev, rng, LIMIT, (r) => syevCuda(dev, r), n);
});

test('syev on graded matrices (A = D H D, D over 16 orders, 8 in float32): every eigenvalue to relative 64 n eps cond(H), by exact inertia counts; default and forced designs, both dtypes', { skip, timeout: 300_000 }, () => {
  // README: Jacobi (n <= 32 on the GPU) finds the small eigenvalues of graded positive definite
  // matrices to high relative accuracy. The reference is exact for the matrix as stored
  // (test/helpers/graded.ts: Sylvester's inertia in BigInt), not another eigensolver.
  const dev = gpu();
  const rng = new Rng(1964);
  for (const dtype of ['float64', 'float32'] as const)
    for (const n of [3, 8, 16, 32]) {
      const designs: JacobiOptions[] = [{}, { force: { design: 'warp' } }, ...(n <= 8 ? [{ force: { design: 'rows' } } as const] : [])];
      for (const opts of designs) {
        const count = 3;
        const host = allocate(dtype, n * n * count);
        for (let i = 0; i < count; i++) host.set(gradedSpd(rng, n, GRADED_ORDERS[dtype]), i * n * n);
        const dA = dev.upload(host), dW = dev.upload(allocate(dtype, n * count).fill(NaN)), dInfo = dev.upload(new Int32Array(count).fill(-7));
        try {
          syevCuda(dev, { jobz: n % 2 === 0 ? 'vectors' : 'values', uplo: 'lower', a: strided(dA, { rows: n, count }), w: strided(dW, { rows: n, cols: 1, count }), info: dInfo }, opts);
          const w = dev.download(dW) as FloatArray, info = dev.download(dInfo) as Int32Array;
          const what = `graded syev ${dtype} n=${n} ${opts.force?.design ?? 'default design'}`;
          assert.deepEqual([...info], new Array(count).fill(0), `${what}: info`);
          // Every matrix up to 16; at 32 the first (an exact count there takes seconds in BigInt).
          for (let i = 0; i < (n < 32 ? count : 1); i++) {
            const off = relativeEigenvalueErrors(host.subarray(i * n * n, (i + 1) * n * n), n, w.subarray(i * n, (i + 1) * n), 64 * n * EPS[dtype] * GRADED_COND_BOUND);
            assert.deepEqual(off, [], `${what} matrix ${i}`);
          }
        } finally {
          dA.dispose(); dW.dispose(); dInfo.dispose();
        }
      }
    }
});
