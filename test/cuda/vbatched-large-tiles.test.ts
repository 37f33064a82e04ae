/**
 * The class kernels above 32 of variable-size gemm and a tuning table's `vbatchedLarge`: the sm_90
 * table's tiles for classes 48 and 64 (float64 on the tensor cores, float32 tiled; every op pair,
 * both forms), the classes it leaves out on the uniform planner's bands as before, and the refusal
 * of the tensor-core design for float32 naming the table's field. No GPU.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { MyriadError } from '../../src/core/errors.js';
import { gemmClassParams, planVbatchedGemm, vbatchedGemmSource } from '../../src/cuda/kernels/gemm/index.js';
import { tuningFor, type GemmTuning } from '../../src/cuda/model/tuning/index.js';

const sm90 = tuningFor('sm_90', 'gemm');
const without: GemmTuning = { ...sm90, vbatchedLarge: undefined };
const OPS = [['N', 'N'], ['N', 'T'], ['T', 'N'], ['T', 'T']] as const;

test("the sm_90 table's tiles for classes 48 and 64: float64 one 48x48x8 w3x1 s4 and one 64x64x8 w2x2 s4 tile, float32 48x48x16 and 64x64x8, every op pair and beta", () => {
  for (const [transA, transB] of OPS) for (const beta of [0, 1]) {
    const at = (bound: number): ReturnType<typeof gemmClassParams> => gemmClassParams({ dtype: 'float64', transA, transB, beta }, bound, sm90);
    assert.deepEqual(at(48), { variant: 'vmma', dtype: 'float64', transA, transB, betaZero: beta === 0, bound: 48, bm: 48, bn: 48, bk: 8, wm: 3, wn: 1, stages: 4 });
    assert.deepEqual(at(64), { variant: 'vmma', dtype: 'float64', transA, transB, betaZero: beta === 0, bound: 64, bm: 64, bn: 64, bk: 8, wm: 2, wn: 2, stages: 4 });
    const f32 = (bound: number, t: GemmTuning): ReturnType<typeof gemmClassParams> => gemmClassParams({ dtype: 'float32', transA, transB, beta }, bound, t);
    assert.deepEqual(f32(48, sm90), { variant: 'vtiled', dtype: 'float32', transA, transB, betaZero: beta === 0, bound: 48, bm: 48, bn: 48, bk: 16, tm: 4, tn: 4 });
    assert.deepEqual(f32(64, sm90), { variant: 'vtiled', dtype: 'float32', transA, transB, betaZero: beta === 0, bound: 64, bm: 64, bn: 64, bk: 8, tm: 8, tn: 8 });
    assert.notDeepEqual(f32(64, sm90), f32(64, without));
    // Without the entries: the mma bands of 48 and 64 (the tiles the entries replace).
    const band = (bound: number): ReturnType<typeof gemmClassParams> => gemmClassParams({ dtype: 'float64', transA, transB, beta }, bound, without);
    const b48 = band(48);
    assert.equal(b48.variant === 'vmma' ? `${b48.bm}x${b48.bn}x${b48.bk} s${b48.stages}` : b48.variant, '32x32x32 s2');
    // Classes and dtypes the table leaves out keep the planner's bands.
    for (const bound of [8, 16, 24, 32, 128, 256, 512, 640]) assert.deepEqual(at(bound), band(bound), `class ${bound}`);
    for (const bound of [32, 128, 256]) assert.deepEqual(f32(bound, sm90), f32(bound, without), `float32 class ${bound}`);
  }
  // The plan of a batch takes them (the host-table form; the device form asks gemmClassParams too).
  const plan = planVbatchedGemm({ dtype: 'float64', transA: 'N', transB: 'N', alpha: 1, beta: 1, shapes: [{ m: 40, n: 40, k: 40 }, { m: 60, n: 60, k: 60 }] }, sm90);
  assert.deepEqual(plan.launches.map((l) => [l.bound, l.params.variant === 'vmma' ? `${l.params.bm}x${l.params.bn}x${l.params.bk}` : '']), [[64, '64x64x8'], [48, '48x48x8']]);
  assert.match(vbatchedGemmSource(plan.launches[0]!.params).entry, /^gemm_vmma_dNN_c64_64x64x8_w2x2_s4_k8$/);
});

test('the default table has no class tiles: every class on the bands; a tiled shape applies to float32; the tensor-core design for float32 is refused naming the field', () => {
  const base = tuningFor('sm_80', 'gemm');
  assert.equal(base.vbatchedLarge, undefined);
  const tiled: GemmTuning = { ...sm90, vbatchedLarge: { float32: { 48: { design: 'tiled', bm: 16, bn: 16, bk: 16, tm: 4, tn: 4 } } } };
  assert.deepEqual(gemmClassParams({ dtype: 'float32', transA: 'T', transB: 'N', beta: 0.5 }, 48, tiled),
    { variant: 'vtiled', dtype: 'float32', transA: 'T', transB: 'N', betaZero: false, bound: 48, bm: 16, bn: 16, bk: 16, tm: 4, tn: 4 });
  // float64 48 is absent from this table: the band again.
  assert.deepEqual(gemmClassParams({ dtype: 'float64', transA: 'N', transB: 'N', beta: 1 }, 48, tiled), gemmClassParams({ dtype: 'float64', transA: 'N', transB: 'N', beta: 1 }, 48, without));
  const wrong: GemmTuning = { ...sm90, vbatchedLarge: { float32: { 64: { design: 'mma', bm: 64, bn: 32, bk: 16, wm: 2, wn: 2, stages: 2 } } } };
  assert.throws(() => gemmClassParams({ dtype: 'float32', transA: 'N', transB: 'N', beta: 1 }, 64, wrong),
    (e: unknown) => e instanceof MyriadError && e.code === 'INVALID_ARGUMENT' && e.argument === 'tuning.vbatchedLarge');
});
