/**
 * The bidiagonalization gesvd on a real GPU (skipped where none is usable): k = min(m, n) = 33, 47,
 * 64, 100, 128, 256, 512, square, tall and wide, both dtypes, fresh random matrices of the kinds of
 * test/helpers/bidiag-cases.ts with a NaN member, outputs poisoned with NaN, A with odd ld and
 * stride and NaN padding that must come back untouched; checked against the CPU reference (singular
 * values within 30 max(m, n) eps ||A||; above k = 128 on the first matrix of a check with U and VT, the
 * others held by the residuals) and by LAPACK's ratios below 30 (||A - U S VT|| /
 * (max(m, n) eps ||A||), ||U^T U - I|| / (k eps), ||VT VT^T - I|| / (k eps)); U only, VT only and values
 * only; chunk boundaries forced; the router's choice (bidiag inside its range, jacobi forced). The
 * reduction as the table picks it (panels from k = 192), and each forced: panels of 8 ... 32 columns at
 * k = 33 ... 200 (several panels and a tail), dgebd2 alone at 256 and 512.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { strided } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import { cpuGesvd } from '../../src/cpu/lapack/index.js';
import { gesvdBidiagCuda, planGesvdBidiag, type BidiagOptions } from '../../src/cuda/kernels/bidiag/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { choose } from '../../src/cuda/router.js';
import type { GpuDevice } from '../../src/cuda/runtime/index.js';
import { BIDIAG_KINDS, bidiagCase } from '../helpers/bidiag-cases.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';
import { frob, orthoResidual, svdResidual } from '../helpers/jacobi-checks.js';
import { Rng } from '../helpers/random.js';
import { EPS, LIMIT, place, read, rounded } from '../helpers/syev-gpu-checks.js';

const skip = gpuSkipReason();

function check(dev: GpuDevice, rng: Rng, dtype: DType, m: number, n: number, count: number, wantU = true, wantVt = true, opts: BidiagOptions = {}): void {
  const eps = EPS[dtype], k = Math.min(m, n);
  const mats = Array.from({ length: count }, (_, i) => rounded(bidiagCase(rng, BIDIAG_KINDS[i % BIDIAG_KINDS.length]!, m, n), dtype));
  const bad = count > 2 ? 2 : -1;
  if (bad >= 0) mats[bad]!.d[Math.min(5, m * n - 1)] = NaN;
  const p = place(mats, dtype);
  // The CPU reference (one-sided Jacobi in JavaScript, cubic) for the first `referenced` matrices: all of
  // them to k = 128, the first alone above. The others' values are held by the residuals below: with U
  // and VT orthonormal to the ratio LIMIT and ||A - U S VT|| within LIMIT max(m, n) eps ||A||, each s_j
  // is within about 3 LIMIT max(m, n) eps ||A|| of A's j-th singular value (Weyl), independent of any
  // reference; a values-only check (no U, VT) keeps the reference for every matrix.
  const referenced = k <= 128 || !(wantU && wantVt) ? count : 1;
  const refS = allocate(dtype, k * count), refInfo = new Int32Array(count);
  cpuGesvd({ a: strided(p.data.slice(), { rows: m, cols: n, count: referenced, ld: p.ld, stride: p.stride }), s: strided(refS, { rows: k, cols: 1, count: referenced }), info: refInfo });
  const dA = dev.upload(p.data);
  const dS = dev.upload(allocate(dtype, k * count).fill(NaN));
  const dU = dev.upload(allocate(dtype, m * k * count).fill(NaN));
  const dV = dev.upload(allocate(dtype, k * n * count).fill(NaN));
  const dInfo = dev.upload(new Int32Array(count).fill(-7));
  try {
    const r = {
      a: strided(dA, { rows: m, cols: n, count, ld: p.ld, stride: p.stride }), s: strided(dS, { rows: k, cols: 1, count }),
      u: wantU ? strided(dU, { rows: m, cols: k, count }) : undefined, vt: wantVt ? strided(dV, { rows: k, cols: n, count }) : undefined, info: dInfo,
    };
    gesvdBidiagCuda(dev, r, opts);
    const what = `bidiag gesvd ${dtype} ${m}x${n} count=${count} u=${wantU} vt=${wantVt}${opts.force === undefined ? '' : ` ${JSON.stringify(opts.force)}`}`;
    const routed = k >= tuningFor(dev.info.arch, 'bidiag').gesvdFrom[dtype] ? 'bidiag' : 'jacobi';
    assert.equal(choose('gesvd', r, dev).name, routed, `${what}: the router's choice`);
    assert.equal(choose('gesvd', r, dev, 'jacobi').name, 'jacobi', `${what}: jacobi forced`);
    const a = dev.download(dA) as FloatArray, s = dev.download(dS) as FloatArray, u = dev.download(dU) as FloatArray, vt = dev.download(dV) as FloatArray;
    const info = dev.download(dInfo) as Int32Array;
    for (let e = 0; e < a.length; e++) assert.ok(Object.is(a[e], p.data[e]), `${what}: A changed at ${e}`);
    if (!wantU) assert.ok(u.every(Number.isNaN), `${what}: u written`);
    if (!wantVt) assert.ok(vt.every(Number.isNaN), `${what}: vt written`);
    mats.forEach((m0, i) => {
      const at = `${what} #${i} (${i === bad ? 'NaN' : BIDIAG_KINDS[i % BIDIAG_KINDS.length]})`;
      const si = Array.from(s.subarray(i * k, (i + 1) * k));
      if (i === bad) {
        assert.equal(info[i], k + 2, `${at}: info`);
        assert.ok(si.every(Number.isNaN), `${at}: s NaN`);
        if (wantU) assert.ok(u.subarray(i * m * k, (i + 1) * m * k).every(Number.isNaN), `${at}: U NaN`);
        return;
      }
      assert.equal(info[i], 0, `${at}: info`);
      const norm = frob(m0);
      if (i < referenced) si.forEach((x, j) => assert.ok(Math.abs(x - refS[i * k + j]!) <= LIMIT * Math.max(m, n) * eps * norm, `${at}: s[${j}] = ${x}, reference ${refS[i * k + j]}`));
      assert.ok(si[k - 1]! >= 0, `${at}: s[${k - 1}] = ${si[k - 1]} negative`);
      for (let j = 1; j < k; j++) assert.ok(si[j]! <= si[j - 1]!, `${at}: s descending at ${j}`);
      if (wantU) { const o = orthoResidual(read(u, i * m * k, m, m, k), eps); assert.ok(o < LIMIT, `${at}: ||U^T U - I|| ratio ${o}`); }
      if (wantVt) { const o = orthoResidual(read(vt, i * k * n, k, k, n), eps, true); assert.ok(o < LIMIT, `${at}: ||VT VT^T - I|| ratio ${o}`); }
      if (wantU && wantVt) {
        const res = svdResidual(m0, read(u, i * m * k, m, m, k), si, read(vt, i * k * n, k, k, n), eps);
        assert.ok(res < LIMIT, `${at}: ||A - U S VT|| ratio ${res}`);
      }
    });
  } finally {
    dA.dispose(); dS.dispose(); dU.dispose(); dV.dispose(); dInfo.dispose();
  }
}

/** Matrices per check: the CPU reference (one-sided Jacobi in JavaScript) is cubic. */
const countFor = (k: number): number => (k <= 64 ? 9 : k <= 128 ? 9 : k <= 256 ? 4 : 3);

test('bidiag gesvd: k = 33 ... 512, square, tall and wide, both dtypes, the matrix kinds and a NaN member', { skip, timeout: 1_800_000 }, () => {
  const dev = gpu();
  const rng = new Rng(5201);
  const shapes: [number, number][] = [[33, 33], [40, 33], [33, 40], [47, 47], [64, 64], [100, 64], [64, 100], [100, 100], [128, 128], [300, 128],
    [256, 256], [256, 200], [512, 512], [600, 512], [512, 600]];
  for (const dtype of ['float64', 'float32'] as const)
    for (const [m, n] of shapes) check(dev, rng, dtype, m, n, countFor(Math.min(m, n)));
});

test('bidiag gesvd: U only, VT only, values only; chunk boundaries', { skip, timeout: 900_000 }, () => {
  const dev = gpu();
  const rng = new Rng(5202);
  for (const dtype of ['float64', 'float32'] as const) {
    for (const [wantU, wantVt] of [[true, false], [false, true], [false, false]] as const) {
      check(dev, rng, dtype, 90, 47, 5, wantU, wantVt);
      check(dev, rng, dtype, 47, 90, 5, wantU, wantVt);
    }
    const p = planGesvdBidiag({ dtype, m: 70, n: 64, wantU: true, wantVt: true, kind: 'strided' }, tuningFor(dev.info.arch, 'bidiag'));
    check(dev, rng, dtype, 70, 64, 7, true, true, { force: { chunkBytes: 3 * 8 * (p.slice + p.bslice) } });
  }
});

test('bidiag gesvd: the reduction forced (panels of 8 ... 32 columns at k = 33 ... 200, unblocked at 256 and 512); U only, VT only, values only and a chunk boundary with panels', { skip, timeout: 1_800_000 }, () => {
  const dev = gpu();
  const rng = new Rng(5203);
  const panels = (nb: number): BidiagOptions => ({ force: { reduction: 'panels', nb } });
  for (const dtype of ['float64', 'float32'] as const) {
    for (const [m, n, nb] of [[33, 33, 8], [40, 33, 8], [33, 40, 8], [100, 64, 8], [64, 100, 16], [130, 130, 16], [200, 150, 32], [150, 200, 32], [200, 200, 24]] as const)
      check(dev, rng, dtype, m, n, countFor(Math.min(m, n)), true, true, panels(nb));
    for (const [m, n] of [[256, 256], [512, 512], [600, 512]] as const)
      check(dev, rng, dtype, m, n, countFor(Math.min(m, n)), true, true, { force: { reduction: 'unblocked' } });
    for (const [wantU, wantVt] of [[true, false], [false, true], [false, false]] as const) {
      check(dev, rng, dtype, 90, 47, 5, wantU, wantVt, panels(8));
      check(dev, rng, dtype, 47, 90, 5, wantU, wantVt, panels(8));
    }
    const p = planGesvdBidiag({ dtype, m: 70, n: 64, wantU: true, wantVt: true, kind: 'strided' }, tuningFor(dev.info.arch, 'bidiag'));
    check(dev, rng, dtype, 70, 64, 7, true, true, { force: { chunkBytes: 3 * 8 * (p.slice + p.bslice), reduction: 'panels', nb: 16 } });
  }
});
