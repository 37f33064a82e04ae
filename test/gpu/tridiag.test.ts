/**
 * Batched syev by tridiagonalization and implicit QL/QR on a real GPU (skipped where none is
 * usable), issue 17: against the CPU reference (info; eigenvalues within n eps ||A||) and by the
 * residuals ||A V - V W|| / (n eps ||A||) and ||V^T V - I|| / (n eps) < 30; n = 33 ... 40, 47, 64,
 * 100, 128, 256, 512, both dtypes, both triangles, values and vectors, random, clustered, repeated,
 * diagonal, zero, graded and rank-deficient matrices, NaN among good ones, odd ld and stride with
 * NaN padding that must come back untouched (and the unread triangle NaN); the working matrix in
 * shared memory and (forced) in the global workspace, fewer threads than rows, a list batch, the
 * route through syevCuda, and large batches (the workspace in chunks).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { strided } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import { cpuSyev } from '../../src/cpu/lapack/index.js';
import { syevCuda } from '../../src/cuda/kernels/jacobi/index.js';
import { syevTridiagCuda, type TridiagOptions } from '../../src/cuda/kernels/tridiag/index.js';
import type { GpuDevice } from '../../src/cuda/runtime/index.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';
import { checkListSyev, eigenResidual, frob, mat, orthoResidual, symmetricCase, type Mat } from '../helpers/jacobi-checks.js';
import { Rng } from '../helpers/random.js';

const skip = gpuSkipReason();
const EPS: Record<DType, number> = { float64: 2 ** -52, float32: 2 ** -23 };
const LIMIT = 30;
const SYM = ['random', 'clustered', 'repeated', 'diagonal', 'zero', 'graded', 'rank-deficient'] as const;

const rounded = (a: Mat, dtype: DType): Mat => ({ ...a, d: dtype === 'float32' ? Float64Array.from(new Float32Array(a.d)) : a.d });

/**
 * `count` matrices of the kinds in turn (#2 NaN where count > 2) in a strided buffer with ld = n + 1,
 * a gap of 3 between matrices and NaN everywhere else, the triangle syev must not read included;
 * syev by `run`, then every check. `valuesRef`: check the eigenvalues against the CPU reference.
 */
function checkSyev(dev: GpuDevice, rng: Rng, dtype: DType, n: number, count: number, vectors: boolean, uplo: Uplo,
  run: (r: Parameters<typeof syevTridiagCuda>[1]) => void): void {
  const eps = EPS[dtype];
  const mats = Array.from({ length: count }, (_, i) => rounded(symmetricCase(rng, SYM[i % SYM.length]!, n).a, dtype));
  const bad = count > 2 ? 2 : -1;
  if (bad >= 0) mats[bad]!.d[(n - 1) * (n + 1)] = NaN;   // on the diagonal: read whatever the triangle
  const ld = n + 1;
  const stride = ld * n + 3;
  const A = allocate(dtype, stride * count + 2).fill(NaN);
  mats.forEach((m0, k) => { for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) if (uplo === 'lower' ? i >= j : i <= j) A[k * stride + i + j * ld] = m0.d[i + j * n]!; });
  const inside = (e: number): boolean => { const r = e % stride; return Math.floor(e / stride) < count && r < ld * n && r % ld < n; };
  const refW = allocate(dtype, n * count);
  const refInfo = new Int32Array(count);
  cpuSyev({ jobz: 'values', uplo, a: strided(A.slice(), { rows: n, count, ld, stride }), w: strided(refW, { rows: n, cols: 1, count }), info: refInfo });
  const dA = dev.upload(A);
  const dW = dev.upload(allocate(dtype, n * count + 1).fill(NaN));
  const dInfo = dev.upload(new Int32Array(count).fill(-7));
  try {
    run({ jobz: vectors ? 'vectors' : 'values', uplo, a: strided(dA, { rows: n, count, ld, stride }), w: strided(dW, { rows: n, cols: 1, count }), info: dInfo });
    const a = dev.download(dA) as FloatArray;
    const w = dev.download(dW) as FloatArray;
    const info = dev.download(dInfo) as Int32Array;
    const what = `tridiag syev ${dtype} n=${n} count=${count} ${vectors ? 'vectors' : 'values'} ${uplo}`;
    for (let e = 0; e < A.length; e++) {
      if (inside(e) && vectors) continue;
      assert.ok(Object.is(a[e], A[e]), `${what}: element ${e} outside the written region changed`);
    }
    assert.ok(Number.isNaN(w[n * count]!), `${what}: wrote past w`);
    mats.forEach((m0, k) => {
      const at = `${what} #${k}`;
      assert.equal(info[k], refInfo[k], `${at}: info`);
      const wk = Array.from(w.subarray(k * n, (k + 1) * n));
      if (k === bad) {
        assert.equal(info[k], n + 2);
        assert.ok(wk.every(Number.isNaN), `${at}: w NaN`);
        if (vectors) for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) assert.ok(Number.isNaN(a[k * stride + i + j * ld]!), `${at}: vectors NaN`);
        return;
      }
      const norm = frob(m0);
      wk.forEach((x, j) => assert.ok(Math.abs(x - refW[k * n + j]!) <= n * eps * norm, `${at}: w[${j}] = ${x}, reference ${refW[k * n + j]}`));
      if (!vectors) return;
      const v = mat(n, n);
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) v.d[i + j * n] = a[k * stride + i + j * ld]!;
      const r1 = eigenResidual(m0, v, wk, eps), r2 = orthoResidual(v, eps);
      assert.ok(r1 < LIMIT && r2 < LIMIT, `${at}: ||AV - VW|| ratio ${r1}, ||V^T V - I|| ratio ${r2}`);
    });
  } finally {
    dA.dispose(); dW.dispose(); dInfo.dispose();
  }
}

/** Matrices per check (the CPU reference is cubic, in JavaScript): every kind and the NaN one to 128. */
const countFor = (n: number): number => (n <= 128 ? 8 : n <= 256 ? 4 : 3);
const direct = (dev: GpuDevice, opts: TridiagOptions = {}) => (r: Parameters<typeof syevTridiagCuda>[1]): void => syevTridiagCuda(dev, r, opts);

test('tridiagonal syev: n = 33 ... 40, 47, 64, 100, 128, 256, 512, both dtypes and triangles, values and vectors, every kind, NaN among good ones', { skip, timeout: 900_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1717);
  for (const dtype of ['float64', 'float32'] as const)
    for (const n of [33, 34, 35, 36, 37, 38, 39, 40, 47, 64, 100, 128, 256, 512]) {
      checkSyev(dev, rng, dtype, n, countFor(n), true, n % 2 === 0 ? 'lower' : 'upper', direct(dev));
      if ([33, 40, 47, 64, 128, 256, 512].includes(n)) checkSyev(dev, rng, dtype, n, countFor(n), false, n % 2 === 0 ? 'upper' : 'lower', direct(dev));
    }
});

test('tridiagonal syev forced: the global workspace, fewer threads than rows, a list batch, the route through syevCuda', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1718);
  for (const dtype of ['float64', 'float32'] as const) {
    checkSyev(dev, rng, dtype, 64, 8, true, 'lower', direct(dev, { force: { global: true } }));
    checkSyev(dev, rng, dtype, 100, 8, false, 'upper', direct(dev, { force: { global: true } }));
    checkSyev(dev, rng, dtype, 128, 8, true, 'upper', direct(dev, { force: { threads: 64 } }));
    checkSyev(dev, rng, dtype, 47, 8, true, 'lower', direct(dev, { force: { global: true, threads: 32 } }));
    checkSyev(dev, rng, dtype, 12, 8, true, 'upper', (r) => syevCuda(dev, r, { route: 'tridiag' }));
    checkSyev(dev, rng, dtype, 72, 8, true, 'lower', (r) => syevCuda(dev, r, { route: 'tridiag', tridiag: { global: true, threads: 96 } }));
  }
  // A list batch of 100 x 100 matrices (pointer form).
  checkListSyev(dev, rng, LIMIT, (r) => syevTridiagCuda(dev, r));
});

test('tridiagonal syev: large batches (2,000 of 64 x 64, 150 of 512 x 512: the workspace in two chunks), residuals of a few', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1719);
  for (const [dtype, n, count] of [['float64', 64, 2000], ['float32', 64, 2000], ['float64', 512, 150]] as const) {
    const host = allocate(dtype, n * n * count);
    for (let k = 0; k < count; k++) for (let j = 0; j < n; j++) for (let i = j; i < n; i++) {
      const x = rng.uniform();
      host[k * n * n + i + j * n] = x;
      host[k * n * n + j + i * n] = x;
    }
    const dA = dev.upload(host);
    const dW = dev.alloc(dtype, n * count);
    const dInfo = dev.upload(new Int32Array(count).fill(-7));
    try {
      syevTridiagCuda(dev, { jobz: 'vectors', uplo: 'lower', a: strided(dA, { rows: n, count }), w: strided(dW, { rows: n, cols: 1, count }), info: dInfo });
      const info = dev.download(dInfo) as Int32Array;
      assert.equal(info.reduce((c, v) => c + (v !== 0 ? 1 : 0), 0), 0, `${count} ${n}x${n}: every info 0`);
      const v = dev.download(dA) as FloatArray;
      const w = dev.download(dW) as FloatArray;
      for (const k of [0, 1, 127, 128, count - 1]) {
        const a = mat(n, n);
        for (let e = 0; e < n * n; e++) a.d[e] = host[k * n * n + e]!;
        const vk = mat(n, n);
        for (let e = 0; e < n * n; e++) vk.d[e] = v[k * n * n + e]!;
        const r1 = eigenResidual(a, vk, w.subarray(k * n, (k + 1) * n), EPS[dtype]), r2 = orthoResidual(vk, EPS[dtype]);
        assert.ok(r1 < LIMIT && r2 < LIMIT, `${count} ${n}x${n} #${k}: ratios ${r1}, ${r2}`);
      }
    } finally {
      dA.dispose(); dW.dispose(); dInfo.dispose();
    }
  }
});
