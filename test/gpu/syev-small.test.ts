/**
 * syev for n <= 8 on a real GPU (skipped where none is usable): the per-thread QL design
 * (src/cuda/kernels/ql-thread/) directly (float32 data in both arithmetics, each forced) and as the
 * router's default, and the per-thread Jacobi design forced through the router ('jacobi'), on
 * fresh random batches with NaN-filled outputs: info, eigenvalues against the CPU reference (the QL
 * design in float64 arithmetic within n eps ||A||; in float32 arithmetic, like Jacobi, within the
 * Jacobi tests' 30 n eps ||A||), ||A V - V W|| and ||V^T V - I|| below 30 n eps, NaN among good
 * matrices (info n + 2, NaN values and vectors), values only leaving A as it was, nothing written
 * outside the batch (test/helpers/syev-gpu-checks.ts); list batches; tiny and huge scales; a large
 * batch (many blocks) checked by residuals and against the Jacobi design's eigenvalues.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { strided } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import type { SyevRequest } from '../../src/core/ops.js';
import { STAGED_SHARED_MAX } from '../../src/cuda/kernels/common/span-stage.js';
import { syevCuda } from '../../src/cuda/kernels/jacobi/index.js';
import { QL_THREAD_COMPUTE, QL_THREAD_LIMIT, planQlThread, qlThreadServes, qlThreadSharedBytes, syevQlThreadCuda } from '../../src/cuda/kernels/ql-thread/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { runRouted } from '../../src/cuda/router.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/index.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';
import { checkListSyev, eigenResidual, mat, orthoResidual, symmetricCase, type Mat } from '../helpers/jacobi-checks.js';
import { Rng } from '../helpers/random.js';
import { EPS, LIMIT, checkSyevOnGpu, randomSymmetricBatch, rounded } from '../helpers/syev-gpu-checks.js';

const skip = gpuSkipReason();
/** Eigenvalues against the reference, in n eps ||A||: the design's bound and the reference's. */
const QL_VALUE_LIMIT = 2;
const KINDS = ['random', 'clustered', 'repeated', 'diagonal', 'zero', 'graded', 'rank-deficient'] as const;
type Run = (dev: GpuDevice, r: SyevRequest<DeviceArray, DeviceArray>) => void;
const routed = (force?: string): Run => (dev, r) => {
  assert.ok(runRouted('syev', dev, r as unknown as Record<string, unknown>, force), 'a GPU route ran');
};
/** The QL design with float32 data in float32 arithmetic whatever the table says. */
const qlSingle: Run = (dev, r) => syevQlThreadCuda(dev, r, { force: { arithmetic: 'float32' } });
/** The QL design with float32 data in float64 arithmetic whatever the table says. */
const qlWide: Run = (dev, r) => syevQlThreadCuda(dev, r, { force: { arithmetic: 'float64' } });

test('syev n = 1 ... 8: the per-thread QL design (direct: float32 data in either arithmetic, and routed) and the per-thread Jacobi forced; both dtypes, vectors and values, both triangles', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(2208);
  const tuning = tuningFor(dev.info.arch, 'qlThread');
  for (const dtype of ['float64', 'float32'] as const)
    for (let n = 1; n <= QL_THREAD_LIMIT; n++)
      for (const vectors of [true, false]) {
        // 300 matrices: two full blocks of 128 and a partial one. The QL design's eigenvalues lie
        // within n eps ||A|| of the exact ones, and so do the reference's: they may differ by twice that.
        const ql = qlThreadServes(n, dtype, vectors, tuning);
        const single = planQlThread({ dtype, n, uplo: 'lower', vectors, kind: 'strided' }, tuning).arithmetic !== QL_THREAD_COMPUTE;
        const qlLimit = single ? LIMIT : QL_VALUE_LIMIT;
        const designs: [string, Run, number][] = [
          [`ql-thread (${single ? 'float32' : 'float64'} arithmetic by the table)`, (d, r) => syevQlThreadCuda(d, r), qlLimit],
          ...(dtype === 'float32' ? [
            ['ql-thread in float32 arithmetic (forced)', qlSingle, LIMIT] as [string, Run, number],
            ['ql-thread in float64 arithmetic (forced)', qlWide, QL_VALUE_LIMIT] as [string, Run, number],
          ] : []),
          [`routed (${ql ? 'ql-thread' : 'jacobi'} by the table)`, routed(), ql ? qlLimit : LIMIT],
          ['jacobi (forced)', routed('jacobi'), LIMIT],
        ];
        const uplo: Uplo = (n + (vectors ? 0 : 1)) % 2 === 0 ? 'lower' : 'upper';
        for (const [label, run, valueLimit] of designs)
          checkSyevOnGpu(dev, rng, dtype, n, 300, vectors, uplo, (r) => run(dev, r), { kinds: KINDS, valueLimit, nanVectors: true, label });
      }
});

test('syev n <= 8 on list batches (the pointer form): the per-thread QL design and the forced Jacobi', { skip, timeout: 120_000 }, () => {
  const dev = gpu();
  const rng = new Rng(2209);
  for (const n of [2, 3, 5, 8]) {
    checkListSyev(dev, rng, LIMIT, (r) => syevQlThreadCuda(dev, r), n);
    checkListSyev(dev, rng, LIMIT, (r) => routed('jacobi')(dev, r), n);
  }
});

/** ||A||_F of a scaled matrix from A / scale (exact for powers of two), clear of underflow in the squares. */
function scaledNorm(a: Mat, scale: number): number {
  let s = 0;
  for (const x of a.d) s += (x / scale) ** 2;
  return Math.sqrt(s) * scale;
}

/**
 * Staging moves data, not arithmetic: each per-thread design staged through shared memory gives the
 * bits its unstaged kernel gives (info, W, and A with vectors) on the same batch, densely packed (the
 * vector copies; 300 matrices: two full blocks and a partial one) and with ragged ld and gaps (the
 * element-by-element copies), NaN members among them, every order whose slots fit. The QL design in
 * float32 arithmetic is the exception: nvcc fuses its float32 products and sums as it sees fit, and
 * did so differently in one of the two kernels (order 3, ragged: 831 of 6,300 outputs apart, H200,
 * 2026-12-02), so there the staged kernel's info is the unstaged one's, its eigenvalues within
 * LIMIT n eps ||A|| of them and its vectors pass the residual and orthogonality checks.
 */
test('syev n <= 8: the per-thread designs staged through shared memory give their unstaged kernels\' bits, dense and ragged batches', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(2211);
  const count = 300;
  for (const dtype of ['float64', 'float32'] as const) for (let n = 1; n <= QL_THREAD_LIMIT; n++) for (const vectors of [true, false]) {
    if (qlThreadSharedBytes({ dtype, n, staged: true }) > STAGED_SHARED_MAX) continue;
    // [label, the design staged or not, whether the two must agree bit for bit]
    const designs: [string, (stage: boolean) => Run, boolean][] = [
      ['jacobi', (stage) => (d, r) => syevCuda(d, r, { force: { design: 'thread', stage } }), true],
      ['ql-thread, float64 arithmetic', (stage) => (d, r) => syevQlThreadCuda(d, r, { force: { arithmetic: 'float64', stage } }), true],
      ...(dtype === 'float32' ? [['ql-thread, float32 arithmetic', (stage: boolean): Run => (d, r) => syevQlThreadCuda(d, r, { force: { arithmetic: 'float32', stage } }), false] as [string, (stage: boolean) => Run, boolean]] : []),
    ];
    for (const dense of [true, false]) {
      const ld = dense ? n : n + 2, stride = dense ? n * n : ld * n + 3;
      const host = allocate(dtype, stride * count).fill(NaN);
      const mats = randomSymmetricBatch(rng, dtype, n, count);
      for (let k = 0; k < count; k++) for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) host[k * stride + i + j * ld] = mats[k * n * n + i + j * n]!;
      host[7 * stride] = NaN;   // a failing member (info n + 2) among good ones
      for (const [label, design, bitwise] of designs) {
        const outputs = [false, true].map((stage) => {
          const dA = dev.upload(host), dW = dev.upload(allocate(dtype, n * count).fill(-1)), dInfo = dev.upload(new Int32Array(count).fill(-7));
          try {
            design(stage)(dev, { jobz: vectors ? 'vectors' : 'values', uplo: n % 2 === 0 ? 'lower' : 'upper', a: strided(dA, { rows: n, count, ld, stride }), w: strided(dW, { rows: n, cols: 1, count }), info: dInfo });
            return [dev.download(dA), dev.download(dW), dev.download(dInfo)].map((x) => Array.from(x as ArrayLike<number>, String));
          } finally {
            dA.dispose(); dW.dispose(); dInfo.dispose();
          }
        });
        const at = `${label} ${dtype} n=${n} ${vectors ? 'vectors' : 'values'} ${dense ? 'dense' : 'ragged'}`;
        assert.deepEqual(outputs[1]![2], outputs[0]![2], `${at}: info`);
        assert.equal(outputs[0]![2]![7], String(n + 2), `${at}: the NaN member's info`);
        if (bitwise) {
          assert.deepEqual(outputs[1]![1], outputs[0]![1], `${at}: W`);
          assert.deepEqual(outputs[1]![0], outputs[0]![0], `${at}: A`);
          continue;
        }
        const eps = EPS[dtype];
        for (let k = 0; k < count; k++) {
          if (k === 7) continue;
          const a = mat(n, n);
          a.d.set(mats.subarray(k * n * n, (k + 1) * n * n));
          let norm = 0;
          for (const x of a.d) norm += x * x;
          norm = Math.sqrt(norm);
          const ws = outputs[1]![1]!.slice(k * n, (k + 1) * n).map(Number), wu = outputs[0]![1]!.slice(k * n, (k + 1) * n).map(Number);
          ws.forEach((x, j) => assert.ok(Math.abs(x - wu[j]!) <= LIMIT * n * eps * norm, `${at} #${k}: w[${j}] staged ${x}, unstaged ${wu[j]}`));
          if (!vectors) continue;
          const v = mat(n, n);
          for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) v.d[i + j * n] = Number(outputs[1]![0]![k * stride + i + j * ld]);
          const r1 = eigenResidual(a, v, ws, eps), r2 = orthoResidual(v, eps);
          assert.ok(r1 < LIMIT && r2 < LIMIT, `${at} #${k}: staged ||AV - VW|| ratio ${r1}, ||V^T V - I|| ratio ${r2}`);
        }
      }
    }
  }
});

test('syev n <= 8 on tiny and huge matrices (powers of two far from 1): the per-thread QL design scales them (float32 data in either arithmetic), values and vectors', { skip, timeout: 120_000 }, () => {
  const dev = gpu();
  const rng = new Rng(2210);
  // Graded matrices reach 1e10 (2^33) before scaling: the largest scales keep them finite.
  const scales: Record<DType, number[]> = { float64: [2 ** -1000, 2 ** -600, 2 ** 600, 2 ** 950], float32: [2 ** -100, 2 ** -60, 2 ** 60, 2 ** 90] };
  const runs: [DType, string, Run][] = [['float64', 'default', (d, r) => syevQlThreadCuda(d, r)], ['float32', 'float64 arithmetic', qlWide], ['float32', 'float32 arithmetic', qlSingle]];
  for (const [dtype, label, run] of runs) for (const n of [2, 5, 8]) {
    const eps = EPS[dtype];
    const cases = scales[dtype].flatMap((scale) => (['random', 'graded', 'clustered'] as const).map((kind) => {
      const a = symmetricCase(rng, kind, n).a;
      return { scale, a: rounded({ ...a, d: a.d.map((x) => x * scale) }, dtype) };
    }));
    const count = cases.length;
    const host = allocate(dtype, n * n * count);
    cases.forEach((c, k) => host.set(c.a.d, k * n * n));
    const dA = dev.upload(host), dW = dev.upload(allocate(dtype, n * count).fill(NaN)), dInfo = dev.upload(new Int32Array(count).fill(-7));
    try {
      run(dev, { jobz: 'vectors', uplo: 'lower', a: strided(dA, { rows: n, count }), w: strided(dW, { rows: n, cols: 1, count }), info: dInfo });
      const a = dev.download(dA) as FloatArray, w = dev.download(dW) as FloatArray, info = dev.download(dInfo) as Int32Array;
      cases.forEach((c, k) => {
        const at = `scaled ${dtype} (${label}) n=${n} x${c.scale} #${k}`;
        assert.equal(info[k], 0, `${at}: info`);
        const wk = Array.from(w.subarray(k * n, (k + 1) * n));
        for (let j = 1; j < n; j++) assert.ok(wk[j - 1]! <= wk[j]!, `${at}: ascending`);
        const v = mat(n, n);
        v.d.set(a.subarray(k * n * n, (k + 1) * n * n));
        const r1 = eigenResidual({ ...c.a, d: c.a.d.map((x) => x / c.scale) }, v, wk.map((x) => x / c.scale), eps), r2 = orthoResidual(v, eps);
        assert.ok(r1 < LIMIT && r2 < LIMIT, `${at}: ||AV - VW|| ratio ${r1}, ||V^T V - I|| ratio ${r2} (||A|| ${scaledNorm(c.a, c.scale)})`);
      });
    } finally {
      dA.dispose(); dW.dispose(); dInfo.dispose();
    }
  }
});

test('syev n = 8, 200,000 fresh random matrices: the per-thread QL design (float32 data in either arithmetic) against the per-thread Jacobi on the device, residuals of a sample', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(2211);
  const n = 8, count = 200_000;
  // Both within their bound of the exact eigenvalues (QL in float64 arithmetic 1, in float32 like Jacobi LIMIT): within the sum of each other.
  const runs: [DType, string, Run, number][] = [
    ['float64', 'default', (d, r) => syevQlThreadCuda(d, r), LIMIT + 1], ['float32', 'float64 arithmetic', qlWide, LIMIT + 1], ['float32', 'float32 arithmetic', qlSingle, 2 * LIMIT],
  ];
  for (const [dtype, label, run, apart] of runs) {
    const eps = EPS[dtype];
    const host = randomSymmetricBatch(rng, dtype, n, count);
    const outputs = (run: Run): { w: FloatArray; v: FloatArray; info: Int32Array } => {
      const dA = dev.upload(host), dW = dev.upload(allocate(dtype, n * count + 1).fill(NaN)), dInfo = dev.upload(new Int32Array(count + 1).fill(-7));
      try {
        run(dev, { jobz: 'vectors', uplo: 'upper', a: strided(dA, { rows: n, count }), w: strided(dW, { rows: n, cols: 1, count }), info: dInfo });
        return { w: dev.download(dW) as FloatArray, v: dev.download(dA) as FloatArray, info: dev.download(dInfo) as Int32Array };
      } finally {
        dA.dispose(); dW.dispose(); dInfo.dispose();
      }
    };
    const ql = outputs(run);
    const jac = outputs(routed('jacobi'));
    assert.ok(ql.info.subarray(0, count).every((x) => x === 0), `${dtype} (${label}): QL info`);
    assert.ok(jac.info.subarray(0, count).every((x) => x === 0), `${dtype} (${label}): Jacobi info`);
    assert.equal(ql.info[count], -7, `${dtype} (${label}): info written past the batch`);
    assert.ok(Number.isNaN(ql.w[n * count]!), `${dtype} (${label}): w written past the batch`);
    let worst = 0;
    for (let k = 0; k < count; k++) {
      let norm = 0;
      for (let e = 0; e < n * n; e++) norm += host[k * n * n + e]! ** 2;
      norm = Math.sqrt(norm);
      for (let j = 0; j < n; j++) worst = Math.max(worst, Math.abs(ql.w[k * n + j]! - jac.w[k * n + j]!) / (n * eps * norm));
    }
    assert.ok(worst <= apart, `${dtype} (${label}): QL and Jacobi eigenvalues ${worst} n eps ||A|| apart`);
    for (let k = 0; k < count; k += 997) {
      const a = mat(n, n), v = mat(n, n);
      a.d.set(host.subarray(k * n * n, (k + 1) * n * n));
      v.d.set(ql.v.subarray(k * n * n, (k + 1) * n * n));
      const wk = ql.w.subarray(k * n, (k + 1) * n);
      const r1 = eigenResidual(a, v, wk, eps), r2 = orthoResidual(v, eps);
      assert.ok(r1 < LIMIT && r2 < LIMIT, `${dtype} (${label}) #${k}: ||AV - VW|| ratio ${r1}, ||V^T V - I|| ratio ${r2}`);
    }
  }
});
