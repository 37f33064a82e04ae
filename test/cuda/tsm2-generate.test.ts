/**
 * TSM2 without a GPU: generators are pure and name every parameter, bad parameters are refused,
 * the model's numbers for an H100 match the paper's formulas, the planner's picks are legal and
 * sensible (memory-bound n <= 32, a k-split where m is small, vec within alignment), routing, and
 * (where nvcc is installed) the kernels the planner picks for the benchmark compile for sm_90
 * without spills.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import type { DeviceInfo, KernelSource } from '../../src/cuda/runtime/types.js';
import {
  classifyTallSkinny, estimateTsm2r, generateScale, generateTsm2l, generateTsm2r, isTallSkinny, occupancy,
  planTsm2l, planTsm2r, t2Threshold, tsm2rRegisters, type Tsm2lParams, type Tsm2Problem, type Tsm2rParams,
} from '../../src/cuda/kernels/tsm2/index.js';
import { peakBandwidth, peakFlops } from '../../src/cuda/model/roofline.js';
import { NVCC_SKIP, compileFailures, compileForSm90, compileSet } from '../helpers/nvcc.js';
import { H100 } from '../helpers/devices.js';

const A100: DeviceInfo = { ...H100, name: 'A100', arch: 'sm_80', major: 8, minor: 0, smCount: 108, clockKHz: 1410000, sharedPerBlockOptin: 166912, sharedPerSM: 167936 };
const BW = 3.0e12;

const R: Tsm2rParams = { dtype: 'float64', transA: 'N', transB: 'N', n: 8, t1: 128, t2: 8, t3: 8, tileK: 32, vec: 2, split: 4, prefetch: 0, stages: 0, engine: 'fma' };
const L: Tsm2lParams = { dtype: 'float32', transA: 'N', transB: 'T', k: 16, n: 16, t1: 128, vec: 2, variant: 'opt2' };

function problem(over: Partial<Tsm2Problem>): Tsm2Problem {
  return { dtype: 'float64', transA: 'N', transB: 'N', m: 20480, n: 8, k: 20480, betaZero: true, maxVecA: 4, maxVecC: 4, ...over };
}

test('generators are pure, and every parameter changes the source and the name', () => {
  assert.deepEqual(generateTsm2r(R), generateTsm2r({ ...R }));
  assert.deepEqual(generateTsm2l(L), generateTsm2l({ ...L }));
  const variantsR: Partial<Tsm2rParams>[] = [{ dtype: 'float32' }, { transA: 'T', vec: 1 }, { transB: 'T' }, { n: 9, t2: 8 },
    { t1: 256 }, { t2: 4 }, { t3: 4 }, { tileK: 64 }, { vec: 1 }, { split: 8 }, { prefetch: 1 }, { stages: 3 }, { stages: 2, t3: 16, engine: 'dmma' }];
  const names = new Set([generateTsm2r(R).entry]);
  const sources = new Set([generateTsm2r(R).source]);
  for (const v of variantsR) {
    const s = generateTsm2r({ ...R, ...v });
    names.add(s.entry);
    sources.add(s.source);
    assert.ok(s.source.includes(`${s.entry}(`), 'the entry is the kernel defined');
  }
  assert.equal(names.size, variantsR.length + 1);
  assert.equal(sources.size, variantsR.length + 1);
  const variantsL: Partial<Tsm2lParams>[] = [{ dtype: 'float64' }, { transA: 'T', vec: 1 }, { transB: 'N' }, { k: 15 }, { n: 3 }, { t1: 256 }, { vec: 1 }, { variant: 'opt1' }];
  const namesL = new Set([generateTsm2l(L).entry, ...variantsL.map((v) => generateTsm2l({ ...L, ...v }).entry)]);
  assert.equal(namesL.size, variantsL.length + 1);
  assert.notEqual(generateScale({ dtype: 'float64' }).source, generateScale({ dtype: 'float32' }).source);
});

test('the cluster code appears only when k is split, and beta = 0 never reads C', () => {
  assert.ok(generateTsm2r({ ...R, split: 4 }).source.includes('__cluster_dims__(1, 4, 1)'));
  assert.ok(!generateTsm2r({ ...R, split: 1 }).source.includes('cluster'));
  for (const src of [generateTsm2r(R).source, generateTsm2r({ ...R, split: 1 }).source, generateTsm2l(L).source])
    assert.ok(/beta != \(real\)0/.test(src), 'C is read behind beta != 0');
});

test('bad parameters are refused', () => {
  const bad: Partial<Tsm2rParams>[] = [{ t1: 100 }, { t2: 9 }, { tileK: 30, t3: 8 }, { vec: 3 }, { vec: 4 }, { transA: 'T', vec: 2 }, { split: 3 }, { split: 16 }, { n: 0 }, { prefetch: 3 },
    { stages: 1 }, { engine: 'dmma' }, { stages: 5, t3: 8, tileK: 16 }, { stages: 2, transA: 'T', vec: 1 }, { stages: 2, prefetch: 1 },
    { stages: 2, t3: 8, engine: 'dmma' }, { stages: 2, t3: 16, engine: 'dmma', dtype: 'float32' }];
  for (const b of bad) assert.throws(() => generateTsm2r({ ...R, ...b }), /tsm2r params/, JSON.stringify(b));
  const badL: Partial<Tsm2lParams>[] = [{ k: 65 }, { n: 0 }, { t1: 96 + 1 }, { vec: 3 }, { transA: 'T', vec: 2 }];
  for (const b of badL) assert.throws(() => generateTsm2l({ ...L, ...b }), /tsm2l params/, JSON.stringify(b));
});

test('model: H100 peaks, t2 threshold, occupancy and Little\'s law follow the paper', () => {
  assert.ok(Math.abs(peakFlops(H100, 'float64') / 1e12 - 33.45) < 0.1);
  assert.ok(Math.abs(peakBandwidth(H100) / 1e12 - 3.35) < 0.01);
  const th = t2Threshold(H100, 'float64', BW);
  assert.ok(th > 32 && th < 100, `t2 threshold ${th}`); // every n <= 32 is memory-bound on an H100
  assert.equal(estimateTsm2r(H100, BW, 20480, 16, 20480, { ...R, n: 16, t2: 16 }).bound, 'memory');
  const gaming: DeviceInfo = { ...H100, arch: 'sm_89', major: 8, minor: 9 }; // FP64 at 1/64 rate
  assert.equal(estimateTsm2r(gaming, 1e12, 20480, 16, 20480, { ...R, n: 16, t2: 16 }).bound, 'compute');
  // Registers bind: 255 registers x 256 threads leaves one block per SM.
  assert.deepEqual(occupancy(H100, 255, 0, 256), { blocksPerSM: 1, threadsPerSM: 256 });
  assert.deepEqual(occupancy(H100, 32, 0, 128), { blocksPerSM: 16, threadsPerSM: 2048 });
  assert.equal(occupancy(H100, 32, 300 * 1024, 128).blocksPerSM, 0);
  // More loads in flight never makes the predicted time worse.
  const slow = estimateTsm2r(H100, BW, 10240, 4, 10240, { ...R, n: 4, t2: 4, t3: 1, vec: 1 });
  const fast = estimateTsm2r(H100, BW, 10240, 4, 10240, { ...R, n: 4, t2: 4, t3: 8, vec: 2 });
  assert.ok(fast.seconds <= slow.seconds && fast.utilMem > slow.utilMem);
  assert.ok(tsm2rRegisters({ ...R, t2: 32, n: 32, vec: 2, t3: 8 }) > 255);
});

test('planner: legal picks; k split on sm_90 only; vec within alignment; one pass over A when memory-bound', () => {
  for (const dtype of ['float64', 'float32'] as const) {
    for (const n of [1, 2, 4, 8, 16, 32]) {
      const p = planTsm2r(H100, BW, problem({ dtype, n, m: 10240, k: 10240 }));
      assert.equal(p.params.t2, n, 'memory-bound: t2 = n, A read once');
      assert.ok(p.params.split > 1, 'm = 10240 needs a k-split to fill 132 SMs');
      assert.ok(tsm2rRegisters(p.params) <= 255);
      assert.equal(p.grid[1], p.params.split);
      assert.ok(p.kChunk * p.params.split >= 10240 && p.kChunk % p.params.tileK === 0);
      assert.ok(p.grid[0] * p.params.t1 * p.params.vec >= 10240);
    }
  }
  assert.equal(planTsm2r(A100, BW, problem({ m: 10240 })).params.split, 1, 'no clusters before sm_90');
  assert.equal(planTsm2r(H100, BW, problem({ maxVecA: 1 })).params.vec, 1);
  assert.equal(planTsm2r(H100, BW, problem({ transA: 'T' })).params.vec, 1);
  assert.equal(planTsm2r(H100, BW, problem({}), { vec: 4 }).params.vec, 2, 'a forced vec is clamped to what float64 allows');
  assert.equal(planTsm2r(H100, BW, problem({ k: 100 })).params.split <= 4, true, 'no split into empty k-ranges');
  for (const m of [1e4, 1e5, 1e6, 1e7]) {
    for (const dtype of ['float64', 'float32'] as const) {
      const p = planTsm2l(H100, BW, problem({ dtype, m, n: 16, k: 16 }));
      assert.ok(p.tcf >= 1 && p.grid[0] * p.params.t1 * p.params.vec * p.tcf >= m);
      assert.ok(['opt1', 'opt2'].includes(p.params.variant));
    }
  }
  const forced = planTsm2l(H100, BW, problem({ m: 1e6, n: 8, k: 8 }), { variant: 'opt1', tcf: 7, vec: 1 });
  assert.equal(forced.params.variant, 'opt1');
  assert.equal(forced.tcf, 7);
  assert.equal(forced.from, 'forced');
});

test('routing: which shapes are tall and skinny', () => {
  assert.equal(classifyTallSkinny(20480, 2, 20480), 'tsm2r');
  assert.equal(classifyTallSkinny(20480, 32, 20480), 'tsm2r');
  assert.equal(classifyTallSkinny(1e7, 8, 8), 'tsm2l');
  assert.equal(classifyTallSkinny(1e7, 16, 33), 'tsm2r');
  assert.equal(classifyTallSkinny(20480, 33, 20480), undefined);
  assert.equal(classifyTallSkinny(100, 4, 16), undefined);
  assert.equal(isTallSkinny(4096, 4096, 4096), false);
});

// ---------------------------------------------------------------------------------------------
// nvcc: the kernels that matter compile for sm_90 without spills.

function representativeKernels(): KernelSource[] {
  const out: KernelSource[] = [];
  for (const dtype of ['float64', 'float32'] as const) {
    for (const n of [1, 4, 16, 32]) out.push(generateTsm2r(planTsm2r(H100, BW, problem({ dtype, n, m: 10240, k: 10240 })).params));
    out.push(generateTsm2r(planTsm2r(H100, BW, problem({ dtype, n: 16 }), { prefetch: 2, tileK: 64 }).params));
    for (const n of [8, 32]) out.push(generateTsm2r(planTsm2r(H100, BW, problem({ dtype, n }), { stages: 4, vec: 2 }).params));
    if (dtype === 'float64') for (const n of [16, 32]) out.push(generateTsm2r(planTsm2r(H100, BW, problem({ dtype, n }), { stages: 3, engine: 'dmma' }).params));
    for (const [transA, transB] of [['T', 'N'], ['N', 'T'], ['T', 'T']] as const)
      out.push(generateTsm2r(planTsm2r(H100, BW, problem({ dtype, transA, transB, n: 7 })).params));
    for (const kn of [8, 16]) {
      for (const variant of ['opt1', 'opt2'] as const)
        out.push(generateTsm2l(planTsm2l(H100, BW, problem({ dtype, m: 1e7, n: kn, k: kn }), { variant }).params));
    }
    out.push(generateTsm2l(planTsm2l(H100, BW, problem({ dtype, transA: 'T', transB: 'T', m: 1e6, n: 33, k: 5 })).params));
    out.push(generateScale({ dtype }));
  }
  return out;
}

test('the planner\'s kernels compile for sm_90 with nvcc, without spills', { skip: NVCC_SKIP }, async () => {
  // Representative: register TSM2R, staged (cp.async) TSM2R, the tensor-core engine, TSM2L opt2.
  const quick = (e: string): boolean => /^(tsm2r_dTN_n7_|tsm2r_sNN_n8_.*_st4$|tsm2r_dNN_n32_t128x32x16_tk32_v1_s8_.*_dmma$|tsm2l_dNN_k16_n16_.*_opt2$)/.test(e);
  const failures = compileFailures(await compileForSm90(compileSet(representativeKernels(), quick)), (r) =>
    !(r.registers <= 255) || r.spillStores !== 0 ? `${r.registers} registers, ${r.spillStores} bytes spilled` : undefined);
  assert.deepEqual(failures, [], failures.join('\n'));
});

