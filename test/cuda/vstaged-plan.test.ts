/**
 * The staged class kernels of variable-size gemm (gemm/generate-vstaged.ts) as the plan picks and
 * the launcher launches them: which class and variant a size takes, the tuning table's overrides,
 * the shapes' budgets (threads, shared memory), the generator's refusals, and the generated text's
 * compile-time product loop and beta = 0 variant. No GPU.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';

import type { DType } from '../../src/core/dtype.js';
import {
  gemmClassParams, generateVstagedGemm, planVbatchedGemm, vbatchedGemmLaunch, vstagedProblem, vstagedSharedBytes, vstagedTeam, type VstagedGemmParams,
} from '../../src/cuda/kernels/gemm/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';

const tuning = tuningFor('sm_90', 'gemm');
const DTYPES: readonly DType[] = ['float64', 'float32'];
const OPS = [['N', 'N'], ['N', 'T'], ['T', 'N'], ['T', 'T']] as const;

test('sizes 0-32 take the staged classes 8, 16, 24, 32; 33 the next class, another design', () => {
  for (const dtype of DTYPES) {
    const shapes = Array.from({ length: 34 }, (_, s) => ({ m: Math.max(1, s), n: Math.max(1, s), k: s }));
    const plan = planVbatchedGemm({ dtype, transA: 'N', transB: 'N', alpha: 1, beta: 0.5, shapes }, tuning);
    const classOf = new Map<number, { bound: number; variant: string }>();
    for (const l of plan.launches) for (const q of l.members) classOf.set(q, { bound: l.bound, variant: l.params.variant });
    for (let s = 0; s <= 33; s++) {
      const want = s <= 8 ? 8 : s <= 16 ? 16 : s <= 24 ? 24 : s <= 32 ? 32 : 48;
      assert.equal(classOf.get(s)?.bound, want, `${dtype} size ${s}`);
      assert.equal(classOf.get(s)?.variant === 'vstaged', s <= 32, `${dtype} size ${s}: ${classOf.get(s)?.variant}`);
    }
  }
});

test('the default staged shapes: blocks of 128-256 threads, at most 48 KiB of shared memory (at least four blocks an SM), every dtype and transpose', () => {
  for (const dtype of DTYPES) for (const [transA, transB] of OPS) for (const bound of [8, 16, 24, 32]) {
    const p = gemmClassParams({ dtype, transA, transB, beta: 1 }, bound, tuning);
    assert.equal(p.variant, 'vstaged');
    if (p.variant !== 'vstaged') continue;
    assert.equal(vstagedProblem(p), undefined);
    const launch = vbatchedGemmLaunch(p, 1001);
    const threads = launch.block[0];
    assert.ok(threads >= 128 && threads <= 256, `${bound}: ${threads} threads`);
    assert.equal(threads, p.members * vstagedTeam(p));
    assert.equal(launch.grid[0], Math.ceil(1001 / p.members));
    assert.ok(4 * vstagedSharedBytes(p) <= 228 * 1024, `${bound} ${dtype}: ${vstagedSharedBytes(p)} bytes`);
  }
});

test("a tuning table's vbatchedSmall picks a staged shape or the team design, per dtype and class", () => {
  const forced = { ...tuning, vbatchedSmall: { float64: { 16: { design: 'team' as const, team: 64, tbc: 4 }, 32: { design: 'staged' as const, members: 1, tm: 2, tn: 2 } } } };
  const at = (dtype: DType, bound: number): ReturnType<typeof gemmClassParams> => gemmClassParams({ dtype, transA: 'N', transB: 'T', beta: 0 }, bound, forced);
  assert.deepEqual(at('float64', 16), { variant: 'vsmall', dtype: 'float64', transA: 'N', transB: 'T', betaZero: true, bound: 16, team: 64, tbc: 4 });
  assert.deepEqual(at('float64', 32), { variant: 'vstaged', dtype: 'float64', transA: 'N', transB: 'T', betaZero: true, bound: 32, members: 1, tm: 2, tn: 2 });
  // Classes and dtypes the table leaves out keep the planner's shapes (those of a table without the entry).
  const plain = { ...tuning, vbatchedSmall: undefined };
  assert.deepEqual(at('float64', 8), gemmClassParams({ dtype: 'float64', transA: 'N', transB: 'T', beta: 0 }, 8, plain));
  assert.deepEqual(at('float32', 16), gemmClassParams({ dtype: 'float32', transA: 'N', transB: 'T', beta: 0 }, 16, plain));
});

test('the staged generator refuses tiles that do not divide the bound, blocks over 1024 threads or 48 KiB', () => {
  const base: VstagedGemmParams = { variant: 'vstaged', dtype: 'float64', transA: 'N', transB: 'N', betaZero: false, bound: 24, members: 2, tm: 3, tn: 3 };
  assert.equal(vstagedProblem(base), undefined);
  assert.throws(() => generateVstagedGemm({ ...base, tm: 5 }), /tm and tn must divide the bound/);
  assert.throws(() => generateVstagedGemm({ ...base, bound: 40 }), /bound must be in 1\.\.32/);
  assert.throws(() => generateVstagedGemm({ ...base, members: 0 }), /members must be a positive integer/);
  assert.throws(() => generateVstagedGemm({ ...base, members: 17, tm: 1, tn: 1 }), /more than 1024 threads/);
  // float64 class 32: two members are 33 KiB, four are 66.
  assert.throws(() => generateVstagedGemm({ ...base, bound: 32, members: 4, tm: 4, tn: 4 }), /shared memory/);
  assert.equal(vstagedProblem({ ...base, dtype: 'float32', bound: 32, members: 4, tm: 4, tn: 4 }), undefined);
});

test('the staged text: a compile-time product over the bound, odd shared leading dimensions where read across columns, beta = 0 never reads C', () => {
  const p: VstagedGemmParams = { variant: 'vstaged', dtype: 'float32', transA: 'T', transB: 'N', betaZero: false, bound: 16, members: 4, tm: 2, tn: 2 };
  const src = generateVstagedGemm(p);
  assert.match(src.source, /constexpr int B = 16;/);
  assert.match(src.source, /for \(int q = 0; q < B; \+\+q\)/);
  assert.match(src.source, /constexpr int LDA = 17, LDB = 17;/);
  assert.match(src.source, /beta \* \*cij/);
  assert.equal(generateVstagedGemm({ ...p, transA: 'N', transB: 'T' }).source.match(/constexpr int LDA = (\d+), LDB = (\d+);/)?.slice(1).join(' '), '16 16');
  const zero = generateVstagedGemm({ ...p, betaZero: true });
  assert.doesNotMatch(zero.source, /\*cij;|beta \*/);
  assert.notEqual(zero.entry, src.entry);
  assert.equal(generateVstagedGemm(p).source, src.source);
});
