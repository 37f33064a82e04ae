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
import { test } from 'node:test';

import { runRouted } from '../../src/cuda/router.js';
import { syevTridiagCuda } from '../../src/cuda/kernels/tridiag/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { gpu } from '../helpers/gpu.js';
import { checkListSyev } from '../helpers/jacobi-checks.js';
import { Rng } from '../helpers/random.js';
import { LIMIT } from '../helpers/syev-gpu-checks.js';
import { check, countFor, skip, split } from './tridiag-split-cases.js';

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


test('split syev through the router (the table\'s route) and a list batch', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1725);
  const from = tuningFor(dev.info.arch, 'tridiag').splitFrom;
  check(dev, rng, 'float64', Math.max(from, 130), 4, 'upper', (r) => { runRouted('syev', dev, r as unknown as Record<string, unknown>); }, 'router');
  check(dev, rng, 'float32', 256, 4, 'lower', (r) => { runRouted('syev', dev, r as unknown as Record<string, unknown>); }, 'router');
  // A list batch (pointer form) of matrices the table splits.
  checkListSyev(dev, rng, LIMIT, (r) => syevTridiagCuda(dev, r), Math.max(from, 200));
});
