/**
 * The blocked compact-WY QR driver on a real GPU (test/gpu/qr.test.ts has the shared-memory kernels
 * and the checks' description; test/gpu/qr-cases.ts the checks).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { list, strided, type Batch } from '../../src/core/batch.js';
import { org2r } from '../../src/cpu/lapack/qr.js';
import { orgqrCuda, type QrOptions } from '../../src/cuda/kernels/qr/index.js';
import type { DeviceArray } from '../../src/cuda/runtime/index.js';
import { gpu } from '../helpers/gpu.js';
import { relativeGap } from '../helpers/qr-checks.js';
import { Rng } from '../helpers/random.js';
import { EPS, LIMIT, check, skip, variableGeqrf } from './qr-cases.js';

test('blocked geqrf and orgqr on the GPU: 64...512 square, tall and wide, both dtypes', { skip, timeout: 1_800_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1805);
  // The host reference is O(m n^2) in JavaScript: few matrices at the large sizes (the third one holds NaN).
  const shapes: [number, number, number][] = [
    [64, 64, 6], [100, 100, 5], [128, 128, 4], [200, 200, 3], [256, 256, 3], [512, 512, 3],
    [500, 50, 3], [512, 48, 3], [480, 130, 3], [100, 300, 3], [48, 512, 3], [200, 512, 3], [129, 131, 3],
  ];
  for (const dtype of ['float64', 'float32'] as const) for (const [m, n, count] of shapes) check(dev, rng, dtype, m, n, count);
});

test('blocked geqrf and orgqr forced where the shared kernel would serve, and the shared kernel forced at 128 (same results)', { skip, timeout: 900_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1806);
  const forced: [number, number, QrOptions][] = [
    [40, 40, { force: { design: 'blocked', panel: 8, tailMax: 0 } }],
    [70, 45, { force: { design: 'blocked', panel: 16, tailMax: 20 } }],
    [33, 90, { force: { design: 'blocked', panel: 8, tailMax: 0 } }],
    [100, 100, { force: { design: 'blocked', panel: 32, tailMax: 0 } }],
    [128, 128, { force: { design: 'shared' } }],
    [256, 256, { force: { design: 'blocked', panel: 16 } }],
  ];
  for (const dtype of ['float64', 'float32'] as const) for (const [m, n, opts] of forced) check(dev, rng, dtype, m, n, 5, opts);
});

test('blocked sizes in list and variable batches: shared and blocked groups in one call, info in its place', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1807);
  const eps = EPS.float64;
  const shapes: [number, number][] = [[200, 150], [6, 4], [200, 150], [130, 130], [64, 64], [200, 150]];
  const { arrays, taus, dInfo, factors } = variableGeqrf(dev, rng, shapes);
  try {
    // orgqr on a list batch of the three 200 x 150 factors (pointer form, blocked).
    const same = [0, 2, 5];
    const dTau = dev.upload(Float64Array.from(same.flatMap((i) => Array.from(factors[i]!.tau))));
    orgqrCuda(dev, { a: list(same.map((i) => arrays[i]!), { rows: 200, cols: 150 }) as Batch<DeviceArray>, tau: strided(dTau, { rows: 150, cols: 1, count: 3 }) });
    same.forEach((i) => {
      const q = Float64Array.from(dev.download(arrays[i]!) as Float64Array);
      const ref = factors[i]!.f.slice();
      org2r(ref, factors[i]!.tau, 200, 150, 150);
      assert.ok(relativeGap(q, ref, 1, 200, 150, eps) < LIMIT, `list orgqr #${i}`);
    });
    dTau.dispose();
  } finally {
    for (const x of [...arrays, ...taus, dInfo]) x.dispose();
  }
});
