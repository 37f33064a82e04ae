/**
 * The trtri family without a GPU: generators pure (every parameter changes the source or the
 * name), the leaf sizes and the recursion's off-diagonal blocks, and the whole plan run on the CPU
 * (each leaf inverted by the CPU reference on its diagonal block, as the leaf kernel does with all
 * of them at once, then the very trmm requests the launcher passes, run by the CPU trmm) against
 * the CPU reference; where nvcc is installed, representative kernels compile for sm_90 without
 * spills.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { strided, type StridedBatch } from '../../src/core/batch.js';
import { DTYPE_EPS, type DType, type FloatArray } from '../../src/core/dtype.js';
import type { Diag, Uplo } from '../../src/core/enums.js';
import { cpuTrtri } from '../../src/cpu/lapack/index.js';
import { cpuTrmm } from '../../src/cpu/trmm.js';
import { block } from '../../src/cuda/kernels/common/sub-blocks.js';
import { leafSize, planTrtri, trtriLeafSource, trtriScanSource, trtriSteps, LEAF_SIZES } from '../../src/cuda/kernels/trtri/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { NVCC_SKIP, compileFailures, compileForSm90, compileSet } from '../helpers/nvcc.js';
import { Rng } from '../helpers/random.js';
import { fillTriangle } from '../helpers/trsm-data.js';

const tuning = tuningFor('sm_90', 'trtri');
const LIMIT = 227 * 1024 - 1024;

test('trtri generators are pure and every parameter changes the kernel', () => {
  const base = { dtype: 'float64', uplo: 'lower', diag: 'nonunit', kind: 'strided', nb: 32 } as const;
  assert.equal(trtriLeafSource(base).source, trtriLeafSource({ ...base }).source);
  const variants: KernelSource[] = [
    trtriLeafSource(base), trtriLeafSource({ ...base, dtype: 'float32' }), trtriLeafSource({ ...base, uplo: 'upper' }),
    trtriLeafSource({ ...base, diag: 'unit' }), trtriLeafSource({ ...base, kind: 'pointer' }), trtriLeafSource({ ...base, nb: 16 }),
    trtriScanSource({ dtype: 'float64', kind: 'strided' }), trtriScanSource({ dtype: 'float32', kind: 'strided' }), trtriScanSource({ dtype: 'float64', kind: 'pointer' }),
  ];
  assert.equal(new Set(variants.map((v) => v.entry)).size, variants.length, 'entry names are distinct');
  assert.equal(new Set(variants.map((v) => v.source)).size, variants.length, 'sources are distinct');
  for (const v of variants) assert.match(v.source, new RegExp(`__global__ void (__launch_bounds__\\([^)]*\\) )?${v.entry}\\(`));
  assert.throws(() => trtriLeafSource({ ...base, nb: 24 }), /not one of/);
});

test('trtri plan: leaf sizes, one launch of every leaf, the off-diagonal blocks smallest first', () => {
  assert.deepEqual([1, 2, 3, 5, 17, 32, 33, 500].map((n) => leafSize(n, 32)), [1, 2, 4, 8, 32, 32, 32, 32]);
  assert.throws(() => leafSize(10, 24), /leaf size/);
  assert.deepEqual(trtriSteps(32, 32), []);
  const s = (off: number, size: number) => ({ off, size });
  assert.deepEqual(trtriSteps(100, 32), [{ lo: s(0, 32), hi: s(32, 32) }, { lo: s(64, 32), hi: s(96, 4) }, { lo: s(0, 64), hi: s(64, 36) }]);
  for (const n of [33, 47, 64, 100, 127, 128, 200, 256, 300, 512]) {
    const steps = trtriSteps(n, 32);
    assert.equal(steps.length, Math.ceil(n / 32) - 1, `n = ${n}: one step per pair of neighbouring blocks`);
    for (const st of steps) assert.ok(st.lo.off % 32 === 0 && st.hi.off % 32 === 0 && st.lo.off + st.lo.size === st.hi.off);
    const last = steps[steps.length - 1]!;
    assert.deepEqual([last.lo.off, last.lo.size + last.hi.size], [0, n]);
  }
  for (const dtype of ['float64', 'float32'] as const) {
    for (const [n, count] of [[1, 1000], [3, 7], [32, 1000], [33, 5], [512, 2]] as const) {
      const p = planTrtri({ dtype, uplo: 'lower', diag: 'nonunit', n, count, kind: 'strided', sharedLimit: LIMIT }, tuning);
      assert.ok(p.matrices >= 1 && p.matrices <= count && p.matrices * p.leaf.nb <= 256 && p.sharedBytes <= LIMIT);
      assert.equal(p.leaves, Math.ceil(n / p.leaf.nb));
      assert.ok(LEAF_SIZES.includes(p.leaf.nb));
    }
  }
  assert.equal(planTrtri({ dtype: 'float32', uplo: 'upper', diag: 'unit', n: 40, count: 3, kind: 'pointer', sharedLimit: LIMIT }, tuning, { force: { leafMax: 4 } }).leaves, 10);
});

test('the trtri plan run on the CPU (leaves by the reference, trmm steps as the launcher asks) matches the reference', () => {
  const rng = new Rng(12);
  for (const dtype of ['float64', 'float32'] as const) {
    for (const uplo of ['lower', 'upper'] as const) {
      for (const diag of ['nonunit', 'unit'] as const) {
        for (const [n, leaf] of [[100, 32], [47, 8], [13, 1], [64, 16], [33, 32]] as const) {
          const ld = n + 3;
          const count = 3;
          const stride = ld * n + 5;
          const data = dtype === 'float64' ? new Float64Array(7 + stride * count) : new Float32Array(7 + stride * count);
          for (let i = 0; i < count; i++) fillTriangle(rng, data, 7 + i * stride, ld, n, uplo, diag);
          const a = strided(data, { rows: n, cols: n, count, ld, stride, offset: 7 });
          const want = data.slice();
          cpuTrtri({ uplo, diag, a: { ...a, data: want }, info: new Int32Array(count) });
          emulatePlan(dtype, uplo, diag, a, n, leaf);
          const tol = DTYPE_EPS[dtype] * 64 * n;
          for (let e = 0; e < data.length; e++) {
            const [x, y] = [data[e]!, want[e]!];
            if (Number.isNaN(y)) { if (!Number.isNaN(x)) assert.fail(`${dtype} ${uplo} ${diag} n=${n}: element ${e} stays NaN`); }
            else if (!(Math.abs(x - y) <= tol * Math.max(1, Math.abs(y)))) assert.fail(`${dtype} ${uplo} ${diag} n=${n} leaf=${leaf}: element ${e}: ${x} vs ${y}`);
          }
        }
      }
    }
  }
});

function emulatePlan(dtype: DType, uplo: Uplo, diag: Diag, a: StridedBatch<FloatArray>, n: number, leaf: number): void {
  const blk = (r0: number, c0: number, rows: number, cols: number): StridedBatch<FloatArray> => block(a, r0, c0, rows, cols) as StridedBatch<FloatArray>;
  const plan = planTrtri({ dtype, uplo, diag, n, count: a.count, kind: 'strided', sharedLimit: LIMIT }, tuning, { force: { leafMax: leaf } });
  const nb = plan.leaf.nb;
  for (let l = 0; l < plan.leaves; l++) {
    const t = Math.min(nb, n - l * nb);
    cpuTrtri({ uplo, diag, a: blk(l * nb, l * nb, t, t), info: new Int32Array(a.count) });
  }
  for (const { lo, hi } of plan.steps) {
    const xlo = blk(lo.off, lo.off, lo.size, lo.size);
    const xhi = blk(hi.off, hi.off, hi.size, hi.size);
    const lower = uplo === 'lower';
    const b = lower ? blk(hi.off, lo.off, hi.size, lo.size) : blk(lo.off, hi.off, lo.size, hi.size);
    cpuTrmm({ side: 'left', uplo, transA: 'N', diag, alpha: 1, a: lower ? xhi : xlo, b });
    cpuTrmm({ side: 'right', uplo, transA: 'N', diag, alpha: -1, a: lower ? xlo : xhi, b });
  }
}

test('trtri kernels compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 120_000 }, async () => {
  // By default the largest leaf (float64, 32) and a scan; MYRIAD_FULL_COMPILE=1: every variant.
  const all = (['float64', 'float32'] as const).flatMap((dtype) => (['strided', 'pointer'] as const).flatMap((kind) => [
    trtriScanSource({ dtype, kind }),
    ...(['lower', 'upper'] as const).flatMap((uplo) => (['nonunit', 'unit'] as const).flatMap((diag) => LEAF_SIZES.map((nb) => trtriLeafSource({ dtype, uplo, diag, kind, nb })))),
  ]));
  const sources = compileSet(all, (e) => e === 'trtri_leaf_d_ln_st_32' || e === 'trtri_scan_d_pa');
  const results = await compileForSm90(sources);
  assert.deepEqual(compileFailures(results, (r) => (r.spillStores > 0 ? `${r.spillStores} bytes of spill stores` : undefined)), []);
});
