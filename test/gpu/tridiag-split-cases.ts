/**
 * What the split-design GPU test files share (tridiag-split*.test.ts, split so that the GPU suite
 * runs them side by side): the split and one-kernel runs, the check against the reference and the
 * comparison of the two designs.
 */
import assert from 'node:assert/strict';

import { strided } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import type { SyevRequest } from '../../src/core/ops.js';
import { syevTridiagCuda, type TridiagForce } from '../../src/cuda/kernels/tridiag/index.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/index.js';
import { gpuSkipReason } from '../helpers/gpu.js';
import { eigenResidual, mat, orthoResidual, symmetricCase } from '../helpers/jacobi-checks.js';
import { Rng } from '../helpers/random.js';
import { EPS, LIMIT, checkSyevOnGpu, rounded } from '../helpers/syev-gpu-checks.js';


export const skip = gpuSkipReason();
const SYM = ['random', 'clustered', 'repeated', 'diagonal', 'zero', 'graded', 'rank-deficient'] as const;
type Run = (r: SyevRequest<DeviceArray, DeviceArray>) => void;
export const split = (dev: GpuDevice, force: TridiagForce = {}): Run => (r) => syevTridiagCuda(dev, r, { force: { split: true, ...force } });
/** The one-kernel design with the same threads (the block sums' order, so the same bits). */
const oneKernel = (dev: GpuDevice, threads?: number): Run => (r) => syevTridiagCuda(dev, r, { force: threads === undefined ? { split: false } : { split: false, threads } });

export function check(dev: GpuDevice, rng: Rng, dtype: DType, n: number, count: number, uplo: Uplo, run: Run, label: string): void {
  checkSyevOnGpu(dev, rng, dtype, n, count, true, uplo, run, { kinds: SYM, valueLimit: 1, nanVectors: true, label });
}

/** Matrices per check (the CPU reference is cubic, in JavaScript): every kind and the NaN one to 128. */
export const countFor = (n: number): number => (n <= 128 ? 8 : n <= 256 ? 4 : 3);

/** Both designs on the same batch: info equal, w bit for bit, vectors within n eps. */
export function compareDesigns(dev: GpuDevice, rng: Rng, dtype: DType, n: number, count: number, uplo: Uplo, force: TridiagForce): void {
  const kinds = ['random', 'graded', 'clustered', 'repeated'] as const;
  const mats = Array.from({ length: count }, (_, k) => rounded(symmetricCase(rng, kinds[k % kinds.length]!, n).a, dtype));
  const host = allocate(dtype, n * n * count);
  mats.forEach((a, k) => host.set(a.d, k * n * n));
  const results = [split(dev, force), oneKernel(dev, force.threads)].map((run) => {
    const dA = dev.upload(host), dW = dev.upload(allocate(dtype, n * count).fill(NaN)), dInfo = dev.upload(new Int32Array(count).fill(-7));
    try {
      run({ jobz: 'vectors', uplo, a: strided(dA, { rows: n, count }), w: strided(dW, { rows: n, cols: 1, count }), info: dInfo });
      return { a: dev.download(dA) as FloatArray, w: dev.download(dW) as FloatArray, info: [...(dev.download(dInfo) as Int32Array)] };
    } finally {
      dA.dispose(); dW.dispose(); dInfo.dispose();
    }
  });
  const [s, o] = results as [typeof results[0], typeof results[0]];
  const what = `split vs one kernel ${dtype} n=${n} ${uplo} ${JSON.stringify(force)}`;
  assert.deepEqual(s.info, o.info, `${what}: info`);
  assert.deepEqual(s.info, new Array(count).fill(0), `${what}: info 0`);
  s.w.forEach((x, e) => assert.ok(Object.is(x, o.w[e]), `${what}: w[${e}] ${x} vs ${o.w[e]}`));
  let diff = 0, same = 0;
  s.a.forEach((x, e) => { diff = Math.max(diff, Math.abs(x - o.a[e]!)); if (Object.is(x, o.a[e])) same++; });
  assert.ok(diff <= n * EPS[dtype], `${what}: vectors differ by ${diff}`);
  console.log(`${what}: vectors differ by at most ${diff.toExponential(2)} (${same} of ${s.a.length} elements the same bits)`);
  mats.forEach((a, k) => {
    const v = mat(n, n);
    for (let e = 0; e < n * n; e++) v.d[e] = s.a[k * n * n + e]!;
    const r1 = eigenResidual(a, v, s.w.subarray(k * n, (k + 1) * n), EPS[dtype]), r2 = orthoResidual(v, EPS[dtype]);
    assert.ok(r1 < LIMIT && r2 < LIMIT, `${what} #${k}: ratios ${r1}, ${r2}`);
  });
}

