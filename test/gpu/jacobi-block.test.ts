/**
 * The Jacobi block designs of syev (n = 33 ... 512) on a real GPU (skipped where none is usable):
 * every kind of matrix, NaN among good ones, A and V in shared memory and (forced) in the global
 * workspace, fewer threads, the pointer form. The router sends these sizes to the tridiagonal
 * kernel from its table's crossover (test/gpu/tridiag.test.ts); here the family is called alone.
 */
import { test } from 'node:test';

import { BLOCK_MAX, syevCuda } from '../../src/cuda/kernels/jacobi/index.js';
import { gpu } from '../helpers/gpu.js';
import { checkListSyev } from '../helpers/jacobi-checks.js';
import { Rng } from '../helpers/random.js';
import { LIMIT } from '../helpers/syev-gpu-checks.js';
import { blockCount, checkSyev, skip } from './jacobi-cases.js';

test('syev, block design: n = 33 ... 512 (float32 to its GPU limit), every kind, NaN among good ones', { skip, timeout: 900_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1705);
  for (const dtype of ['float64', 'float32'] as const)
    for (const n of [33, 40, 47, 64, 100, 128, 256, 512].filter((size) => size <= BLOCK_MAX)) {
      // 512: three matrices (the NaN one is #2).
      const count = n === 512 ? 3 : blockCount(n);
      // syevCuda is the Jacobi family alone: the router sends these sizes to the tridiagonal kernel (test/gpu/tridiag.test.ts).
      checkSyev(dev, rng, dtype, n, count, true, n % 2 === 0 ? 'lower' : 'upper', 1);
      if (n === 47 || n === 128) checkSyev(dev, rng, dtype, n, count, false, n % 2 === 0 ? 'upper' : 'lower', 1);
    }
});

test('syev, block design forced: A and V in the global workspace, fewer threads, pointer form', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1706);
  for (const dtype of ['float64', 'float32'] as const) {
    checkSyev(dev, rng, dtype, 64, 9, true, 'lower', 1, { force: { global: true } });
    checkSyev(dev, rng, dtype, 41, 9, true, 'upper', 1, { force: { threads: 64 } });
    checkSyev(dev, rng, dtype, 12, 9, true, 'lower', 1, { force: { design: 'block', threads: 32 } });
  }
  // A list batch of 100 x 100 matrices (pointer form) through the block design.
  checkListSyev(dev, rng, LIMIT, (r) => syevCuda(dev, r));
});
