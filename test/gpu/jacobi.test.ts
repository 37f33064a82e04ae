/**
 * Batched syev and gesvd on a real GPU (skipped where none is usable): the Jacobi kernels (syev's
 * per-thread design to 8 and rows design to 32 by default, the shared-memory warp design forced;
 * gesvd's warp design) against the CPU reference (info, eigenvalues and singular values within 30 n eps ||A||) and by
 * residuals (||A V - V W||, ||V^T V - I||, ||A - U S VT||, ||U^T U - I||, ||VT VT^T - I|| over
 * n eps, < 30), both dtypes, n = 1..16 and sampled to 32, tall and wide, random, repeated, zero,
 * graded and rank-deficient matrices, NaN among good ones, odd ld and stride with NaN padding that
 * must come back untouched, a list batch (pointer form), a CUDA context's calls (n = 513 falls back
 * to the CPU reference), the array level, and 1,000,000 matrices of 2 x 2 and 100,000 of 8 x 8.
 * The block designs (n = 33 ... 512): n = 33, 40, 47, 64, 100, 128, 256, 512, tall and wide to
 * 512, both dtypes, every kind of matrix, eigenvalues (singular values) within n eps ||A|| of the
 * reference, A and V in shared memory and (forced) in the global workspace (syev routed to them:
 * from the tridiag table's crossover syev goes to the tridiagonal kernel, test/gpu/tridiag.test.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Context } from '../../src/api/context.js';
import { list, strided, type Batch } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import { cpuGesvd, cpuSyev } from '../../src/cpu/lapack/index.js';
import { Cusolver } from '../../src/cuda/baselines/index.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { BLOCK_MAX, gesvdCuda, syevCuda, type JacobiOptions } from '../../src/cuda/kernels/jacobi/index.js';
import { gpuCovers } from '../../src/cuda/router.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/index.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';
import {
  checkListSyev, eigenResidual, frob, generalCase, mat, orthoResidual, svdResidual, symmetricCase, type Mat,
} from '../helpers/jacobi-checks.js';
import { GRADED_COND_BOUND, GRADED_ORDERS, gradedSpd, relativeEigenvalueErrors } from '../helpers/graded.js';
import { Rng } from '../helpers/random.js';
import { EPS, LIMIT, checkSyevOnGpu, place, randomSymmetricBatch, read, rounded } from '../helpers/syev-gpu-checks.js';

const skip = gpuSkipReason();
const SYM = ['random', 'repeated', 'zero', 'graded', 'rank-deficient', 'diagonal', 'clustered'] as const;
const GEN = ['random', 'repeated', 'zero', 'graded', 'rank-deficient'] as const;

/** syev through syevCuda with `opts` (forced plans, routes), checked as test/helpers/syev-gpu-checks.ts does. */
function checkSyev(dev: GpuDevice, rng: Rng, dtype: DType, n: number, count: number, vectors: boolean, uplo: 'lower' | 'upper', valueLimit = LIMIT, opts: JacobiOptions = {}): void {
  checkSyevOnGpu(dev, rng, dtype, n, count, vectors, uplo, (r) => syevCuda(dev, r, opts), { kinds: SYM, valueLimit, label: 'jacobi' });
}

function checkGesvd(dev: GpuDevice, rng: Rng, dtype: DType, m: number, n: number, count: number, wantU: boolean, wantVt: boolean, valueLimit = LIMIT, opts: JacobiOptions = {}): void {
  const eps = EPS[dtype];
  const k = Math.min(m, n);
  const mats = Array.from({ length: count }, (_, i) => rounded(generalCase(rng, GEN[i % GEN.length]!, m, n).a, dtype));
  const bad = count > 3 ? 3 : -1;
  if (bad >= 0) mats[bad]!.d[0] = -Infinity;
  const p = place(mats, dtype);
  const refS = allocate(dtype, k * count);
  const refInfo = new Int32Array(count);
  cpuGesvd({ a: strided(p.data.slice(), { rows: m, cols: n, count, ld: p.ld, stride: p.stride }), s: strided(refS, { rows: k, cols: 1, count }), info: refInfo });
  const dA = dev.upload(p.data);
  const dS = dev.upload(allocate(dtype, k * count).fill(NaN));
  const dU = dev.upload(allocate(dtype, Math.max(1, m * k * count)).fill(NaN));
  const dV = dev.upload(allocate(dtype, Math.max(1, k * n * count)).fill(NaN));
  const dInfo = dev.upload(new Int32Array(count).fill(-7));
  try {
    gesvdCuda(dev, {
      a: strided(dA, { rows: m, cols: n, count, ld: p.ld, stride: p.stride }), s: strided(dS, { rows: k, cols: 1, count }),
      u: wantU ? strided(dU, { rows: m, cols: k, count }) : undefined, vt: wantVt ? strided(dV, { rows: k, cols: n, count }) : undefined,
      info: dInfo,
    }, opts);
    const a = dev.download(dA) as FloatArray;
    const s = dev.download(dS) as FloatArray;
    const u = dev.download(dU) as FloatArray;
    const vt = dev.download(dV) as FloatArray;
    const info = dev.download(dInfo) as Int32Array;
    const what = `gesvd ${dtype} ${m}x${n} count=${count} u=${wantU} vt=${wantVt}`;
    for (let e = 0; e < a.length; e++) assert.ok(Object.is(a[e], p.data[e]), `${what}: A changed at ${e}`);
    if (!wantU) assert.ok(u.every(Number.isNaN), `${what}: u written`);
    if (!wantVt) assert.ok(vt.every(Number.isNaN), `${what}: vt written`);
    mats.forEach((m0, i) => {
      const at = `${what} #${i}`;
      assert.equal(info[i], refInfo[i], `${at}: info`);
      const si = Array.from(s.subarray(i * k, (i + 1) * k));
      if (i === bad) {
        assert.ok(si.every(Number.isNaN), `${at}: s NaN`);
        return;
      }
      const norm = frob(m0);
      si.forEach((x, j) => assert.ok(Math.abs(x - refS[i * k + j]!) <= valueLimit * Math.max(m, n) * eps * norm, `${at}: s[${j}] = ${x}, reference ${refS[i * k + j]}`));
      if (wantU) assert.ok(orthoResidual(read(u, i * m * k, m, m, k), eps) < LIMIT, `${at}: ||U^T U - I||`);
      if (wantVt) assert.ok(orthoResidual(read(vt, i * k * n, k, k, n), eps, true) < LIMIT, `${at}: ||VT VT^T - I||`);
      if (wantU && wantVt) {
        const r = svdResidual(m0, read(u, i * m * k, m, m, k), si, read(vt, i * k * n, k, k, n), eps);
        assert.ok(r < LIMIT, `${at}: ||A - U S VT|| ratio ${r}`);
      }
    });
  } finally {
    dA.dispose(); dS.dispose(); dU.dispose(); dV.dispose(); dInfo.dispose();
  }
}

const SIZES = [...Array.from({ length: 16 }, (_, i) => i + 1), 17, 20, 24, 29, 31, 32];
const countFor = (n: number): number => (n <= 4 ? 300 : n <= 16 ? 70 : 20);

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
  assert.equal(gpuCovers('syev', beyond, dev), false, 'n = 513 runs on the CPU reference');
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

/** Matrices per check of the block designs (the CPU reference is cubic, in JavaScript). */
const blockCount = (n: number): number => (n <= 64 ? 9 : n <= 128 ? 8 : n <= 256 ? 4 : 2);

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
