/**
 * The gesvd rows design (a lane per row, G and V in registers: generate-gesvd-rows.ts) forced on a
 * real GPU (skipped where none is usable), against the CPU reference: square, tall and wide 1 ... 32,
 * every job, both dtypes, through test/gpu/jacobi-cases.ts's checkGesvd (fresh random, repeated,
 * zero, graded and rank-deficient matrices, -Inf in one, A at an odd ld and stride with NaN padding
 * that must stay untouched, outputs poisoned with NaN, unasked ones left so); then list batches
 * (pointer form) with padded U and VT, a NaN matrix among them, and a batch over many blocks.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { list, strided, type Batch } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import { cpuGesvd } from '../../src/cpu/lapack/index.js';
import { gesvdCuda, type JacobiOptions } from '../../src/cuda/kernels/jacobi/index.js';
import type { DeviceArray } from '../../src/cuda/runtime/index.js';
import { gpu } from '../helpers/gpu.js';
import { frob, generalCase, orthoResidual, svdResidual } from '../helpers/jacobi-checks.js';
import { Rng } from '../helpers/random.js';
import { EPS, LIMIT, read, rounded } from '../helpers/syev-gpu-checks.js';
import { checkGesvd, countFor, skip } from './jacobi-cases.js';

const ROWS: JacobiOptions = { force: { design: 'rows' } };
const SHAPES: readonly (readonly [number, number])[] = [
  [1, 1], [2, 2], [5, 3], [3, 5], [8, 8], [9, 9], [12, 12], [16, 16], [17, 17], [24, 24], [31, 31], [32, 32],
  [32, 9], [9, 32], [20, 13], [13, 20], [32, 31], [31, 32], [17, 2], [2, 17],
];

test('gesvd rows design on the GPU: square, tall and wide to 32, every job, both dtypes', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(2207);
  for (const dtype of ['float64', 'float32'] as const) {
    for (const [m, n] of SHAPES) checkGesvd(dev, rng, dtype, m, n, countFor(Math.max(m, n)), true, true, LIMIT, ROWS);
    checkGesvd(dev, rng, dtype, 16, 16, 40, false, false, LIMIT, ROWS);
    checkGesvd(dev, rng, dtype, 12, 31, 40, true, false, LIMIT, ROWS);
    checkGesvd(dev, rng, dtype, 31, 12, 40, false, true, LIMIT, ROWS);
    checkGesvd(dev, rng, dtype, 24, 10, 40, true, false, LIMIT, ROWS);
    checkGesvd(dev, rng, dtype, 10, 24, 40, false, true, LIMIT, ROWS);
    // Many blocks (4 matrices a block at 32, 8 at 16).
    checkGesvd(dev, rng, dtype, 32, 32, 403, true, true, LIMIT, ROWS);
    checkGesvd(dev, rng, dtype, 16, 11, 805, true, true, LIMIT, ROWS);
  }
});

/** A list batch of `count` m x n matrices (one with NaN), U at ld m + 2 and VT at ld k + 1, every output poisoned. */
function checkList(dtype: DType, m: number, n: number, count: number, rng: Rng): void {
  const dev = gpu();
  const k = Math.min(m, n);
  const eps = EPS[dtype];
  const ldU = m + 2;
  const ldV = k + 1;
  const mats = Array.from({ length: count }, (_, i) => rounded(generalCase(rng, (['random', 'graded', 'rank-deficient', 'zero'] as const)[i % 4], m, n).a, dtype));
  const bad = 2;
  mats[bad]!.d[1] = NaN;
  const host = mats.map((a) => { const x = allocate(dtype, m * n); x.set(a.d); return x; });
  const refS = allocate(dtype, k * count);
  const refInfo = new Int32Array(count);
  const flat = allocate(dtype, m * n * count);
  host.forEach((x, i) => flat.set(x, i * m * n));
  cpuGesvd({ a: strided(flat, { rows: m, cols: n, count }), s: strided(refS, { rows: k, cols: 1, count }), info: refInfo });
  const dA = host.map((x) => dev.upload(x));
  const dS = mats.map(() => dev.upload(allocate(dtype, k).fill(NaN)));
  const dU = mats.map(() => dev.upload(allocate(dtype, ldU * k).fill(NaN)));
  const dV = mats.map(() => dev.upload(allocate(dtype, ldV * n).fill(NaN)));
  const dInfo = dev.upload(new Int32Array(count).fill(-7));
  try {
    gesvdCuda(dev, {
      a: list(dA, { rows: m, cols: n }) as Batch<DeviceArray>, s: list(dS, { rows: k, cols: 1 }) as Batch<DeviceArray>,
      u: list(dU, { rows: m, cols: k, ld: ldU }) as Batch<DeviceArray>, vt: list(dV, { rows: k, cols: n, ld: ldV }) as Batch<DeviceArray>, info: dInfo,
    }, ROWS);
    const info = dev.download(dInfo) as Int32Array;
    mats.forEach((a0, i) => {
      const at = `gesvd rows list ${dtype} ${m}x${n} #${i}`;
      assert.equal(info[i], refInfo[i], `${at}: info`);
      const a = dev.download(dA[i]!) as FloatArray;
      for (let e = 0; e < a.length; e++) assert.ok(Object.is(a[e], host[i]![e]), `${at}: A changed at ${e}`);
      const s = Array.from(dev.download(dS[i]!) as FloatArray);
      const u = dev.download(dU[i]!) as FloatArray;
      const vt = dev.download(dV[i]!) as FloatArray;
      // The padding rows of U and VT stay as they were.
      for (let j = 0; j < k; j++) for (let r = m; r < ldU; r++) assert.ok(Number.isNaN(u[r + j * ldU]!), `${at}: U padding`);
      for (let j = 0; j < n; j++) for (let r = k; r < ldV; r++) assert.ok(Number.isNaN(vt[r + j * ldV]!), `${at}: VT padding`);
      if (i === bad) {
        assert.equal(info[i], k + 2);
        assert.ok(s.every(Number.isNaN), `${at}: NaN s`);
        assert.ok(read(u, 0, ldU, m, k).d.every(Number.isNaN) && read(vt, 0, ldV, k, n).d.every(Number.isNaN), `${at}: NaN U and VT`);
        return;
      }
      const norm = frob(a0);
      s.forEach((x, j) => assert.ok(Math.abs(x - refS[i * k + j]!) <= LIMIT * Math.max(m, n) * eps * norm, `${at}: s[${j}] = ${x}, reference ${refS[i * k + j]}`));
      const um = read(u, 0, ldU, m, k);
      const vm = read(vt, 0, ldV, k, n);
      assert.ok(orthoResidual(um, eps) < LIMIT, `${at}: ||U^T U - I||`);
      assert.ok(orthoResidual(vm, eps, true) < LIMIT, `${at}: ||VT VT^T - I||`);
      assert.ok(svdResidual(a0, um, s, vm, eps) < LIMIT, `${at}: ||A - U S VT|| ratio ${svdResidual(a0, um, s, vm, eps)}`);
    });
  } finally {
    for (const x of [...dA, ...dS, ...dU, ...dV, dInfo]) x.dispose();
  }
}

test('gesvd rows design on the GPU: list batches (pointer form), padded U and VT, NaN among them', { skip, timeout: 300_000 }, () => {
  const rng = new Rng(2208);
  checkList('float64', 17, 11, 13, rng);
  checkList('float64', 10, 24, 11, rng);
  checkList('float32', 32, 32, 9, rng);
  checkList('float32', 9, 14, 19, rng);
});
