/**
 * The Jacobi block design of gesvd on a real GPU (skipped where none is usable): square, tall and
 * wide to BLOCK_MAX, both dtypes, with and without U and VT, the global workspace forced.
 */
import { test } from 'node:test';

import { BLOCK_MAX } from '../../src/cuda/kernels/jacobi/index.js';
import { gpu } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';
import { blockCount, checkGesvd, skip } from './jacobi-cases.js';

test('gesvd, block design: square, tall and wide to the GPU limit (BLOCK_MAX), both dtypes, with and without U and VT', { skip, timeout: 900_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1707);
  const shapes: [number, number][] = [[33, 33], [40, 40], [47, 47], [64, 64], [100, 100], [128, 128], [256, 256], [512, 512], [100, 40], [40, 100], [64, 33], [33, 64], [300, 20], [20, 300], [512, 70], [70, 512]];
  // 512 x 512: two matrices (the reference's one-sided Jacobi takes seconds each in JavaScript).
  const count = (m: number, n: number): number => (Math.min(m, n) >= 512 ? 2 : Math.max(5, blockCount(Math.max(m, n))));
  for (const dtype of ['float64', 'float32'] as const) {
    for (const [m, n] of shapes.filter(([r, c]) => Math.max(r, c) <= BLOCK_MAX)) checkGesvd(dev, rng, dtype, m, n, count(m, n), true, true, 1);
    checkGesvd(dev, rng, dtype, 70, 45, 6, false, false, 1);
    checkGesvd(dev, rng, dtype, 45, 70, 6, true, false, 1);
    checkGesvd(dev, rng, dtype, 90, 34, 6, false, true, 1);
    checkGesvd(dev, rng, dtype, 64, 64, 6, true, true, 1, { force: { global: true, threads: 128 } });
  }
});
