/**
 * What the Jacobi GPU test files share: syev and gesvd checked against the CPU reference (info,
 * eigenvalues and singular values within 30 n eps ||A||) and by residuals (||A V - V W||,
 * ||V^T V - I||, ||A - U S VT||, ||U^T U - I||, ||VT VT^T - I|| over n eps, < 30), random,
 * repeated, zero, graded and rank-deficient matrices, NaN among good ones, odd ld and stride with
 * NaN padding that must come back untouched. The tests are split over jacobi-*.test.ts so that the
 * GPU suite runs them side by side.
 */
import assert from 'node:assert/strict';

import { strided } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import { cpuGesvd } from '../../src/cpu/lapack/index.js';
import { gesvdCuda, syevCuda, type JacobiOptions } from '../../src/cuda/kernels/jacobi/index.js';
import type { GpuDevice } from '../../src/cuda/runtime/index.js';
import { gpuSkipReason } from '../helpers/gpu.js';
import { frob, generalCase, orthoResidual, svdResidual } from '../helpers/jacobi-checks.js';
import { Rng } from '../helpers/random.js';
import { EPS, LIMIT, checkSyevOnGpu, place, read, rounded } from '../helpers/syev-gpu-checks.js';

export const skip = gpuSkipReason();
const SYM = ['random', 'repeated', 'zero', 'graded', 'rank-deficient', 'diagonal', 'clustered'] as const;
const GEN = ['random', 'repeated', 'zero', 'graded', 'rank-deficient'] as const;

/** syev through syevCuda with `opts` (forced plans, routes), checked as test/helpers/syev-gpu-checks.ts does. */
export function checkSyev(dev: GpuDevice, rng: Rng, dtype: DType, n: number, count: number, vectors: boolean, uplo: 'lower' | 'upper', valueLimit = LIMIT, opts: JacobiOptions = {}): void {
  checkSyevOnGpu(dev, rng, dtype, n, count, vectors, uplo, (r) => syevCuda(dev, r, opts), { kinds: SYM, valueLimit, label: 'jacobi' });
}

export function checkGesvd(dev: GpuDevice, rng: Rng, dtype: DType, m: number, n: number, count: number, wantU: boolean, wantVt: boolean, valueLimit = LIMIT, opts: JacobiOptions = {}): void {
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

export const SIZES = [...Array.from({ length: 16 }, (_, i) => i + 1), 17, 20, 24, 29, 31, 32];
export const countFor = (n: number): number => (n <= 4 ? 300 : n <= 16 ? 70 : 20);

/** Matrices per check of the block designs (the CPU reference is cubic, in JavaScript). */
export const blockCount = (n: number): number => (n <= 64 ? 9 : n <= 128 ? 8 : n <= 256 ? 4 : 2);
