/**
 * Variable-size batches by size class (common/vbatch.ts, gemm and potrf plan-/launch-vbatched.ts),
 * without a GPU: the classes and their order, the launches of the bench's workloads counted on a
 * planning device, argument errors, and (where nvcc is on PATH) the class kernels compiled for sm_90
 * with no spills.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DType } from '../../src/core/dtype.js';
import { MyriadError } from '../../src/core/errors.js';
import { classPathPaysOf, planClasses, sizeClass, SMALL_CLASS_SHIFT, VBATCH_CLASSES, VBATCH_MAX, VBATCH_MEMBERS_PER_SIZE_MAX } from '../../src/cuda/kernels/common/vbatch.js';
import { severalShapes } from '../../src/cuda/kernels/common/members.js';
import { planVbatchedGemm, vbatchedGemmSource } from '../../src/cuda/kernels/gemm/index.js';
import { planVbatchedPotrf, vbatchedPotrfSource } from '../../src/cuda/kernels/potrf/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { choose, runRouted } from '../../src/cuda/router.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { LaunchCounter, logUniformSizes, parseVbatchedOp, parseVbatchedWorkload, VBATCHED_WORKLOADS, vbatchedRequest } from '../../src/bench/vbatched.js';
import { H100 } from '../helpers/devices.js';
import { compileForSm90, compileFailures, compileSet, NVCC_SKIP } from '../helpers/nvcc.js';
import { recordVbatchedCalls, VBATCHED_GPU_KERNELS } from '../helpers/vbatched-cases.js';
import { Context } from '../../src/api/context.js';
import { strided, variable } from '../../src/core/batch.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { PlanningDevice } from '../../src/cuda/runtime/planning-device.js';

test('size classes: multiples of 8 to 32, of 16 to 64, powers of two to 512', () => {
  const want: [number, number | undefined][] = [[0, 8], [1, 8], [8, 8], [9, 16], [24, 24], [25, 32], [32, 32], [33, 48], [48, 48], [49, 64], [64, 64], [65, 128], [128, 128], [129, 256], [257, 512], [512, 512], [513, undefined]];
  for (const [d, bound] of want) assert.equal(sizeClass(d), bound, `size ${d}`);
  assert.deepEqual(VBATCH_CLASSES, [8, 16, 24, 32, 48, 64, 128, 256, 512]);
  assert.equal(VBATCH_MAX, 512);
  // The shift the host's loops index classes by (the fused solves' plan: (d - 1) >> shift, order 0 in the first) finds sizeClass's class.
  for (let d = 0; d <= 32; d++) assert.equal(VBATCH_CLASSES[d === 0 ? 0 : (d - 1) >> SMALL_CLASS_SHIFT], sizeClass(d), `size ${d}`);
});

test('classes largest first, members by size descending, ties in batch order; large and idle members apart', () => {
  const sizes = [3, 600, 70, undefined, 5, 3, 128, 0, 513, 8];
  const plan = planClasses(sizes);
  assert.deepEqual(plan.classes.map((c) => [c.bound, [...c.members]]), [[128, [6, 2]], [8, [9, 4, 0, 5, 7]]]);
  assert.deepEqual(plan.large, [1, 8]);
});

test('argument errors name the argument', () => {
  const named = (f: () => unknown, argument: string): void =>
    assert.throws(f, (e: unknown) => e instanceof MyriadError && e.argument === argument, argument);
  named(() => sizeClass(-1), 'size');
  named(() => sizeClass(2.5), 'size');
  named(() => parseVbatchedWorkload('c'), '--vbatched');
  named(() => parseVbatchedOp('getrs'), 'op');
});

/** A variable batch of square members of `sizes` on a launch-counting planning device. */
function workload(dev: LaunchCounter, op: 'gemm' | 'potrf', dtype: DType, sizes: readonly number[]): Record<string, unknown> {
  const elements = sizes.reduce((s, n) => s + n * n, 0);
  const data = Array.from({ length: op === 'gemm' ? 3 : 1 }, () => dev.alloc(dtype, elements));
  return vbatchedRequest(op, sizes, data, dev.alloc('int32', sizes.length));
}

for (const op of ['gemm', 'potrf'] as const) {
  test(`${op}: workload b (20,000 matrices, 1-512) takes at most 16 launches (9 classes); a takes at most 6`, () => {
    // Workload a (200,000 members: most of this test's time) in float64, b in both dtypes: the classes,
    // and so the launches, do not depend on the dtype (b's float32 meets the tiled kernels' classes).
    for (const dtype of ['float64', 'float32'] as DType[]) for (const w of dtype === 'float64' ? ['a', 'b'] as const : ['b'] as const) {
      const { count, max } = VBATCHED_WORKLOADS[w];
      const sizes = logUniformSizes(count, max, w === 'a' ? 1 : 2);
      const dev = new LaunchCounter(H100);
      const request = workload(dev, op, dtype, sizes);
      assert.equal(choose(op, request, dev).name, 'vbatched');
      runRouted(op, dev, request);
      const classes = new Set(sizes.map((n) => sizeClass(n))).size;
      assert.equal(dev.launches, classes, `${dtype} workload ${w}: one launch per class`);
      assert.ok(dev.launches <= (w === 'a' ? 6 : 16), `${dtype} workload ${w}: ${dev.launches} launches`);
      // The per-size path: one launch (or more) per distinct size.
      if (w === 'a' && dtype === 'float64') {
        const loop = new LaunchCounter(H100);
        runRouted(op, loop, workload(loop, op, dtype, sizes), op);
        assert.ok(loop.launches >= new Set(sizes).size, `per-size path: ${loop.launches} launches`);
      }
    }
  });
}

test('members beyond 512 keep the per-size path; one shape keeps the uniform route', () => {
  const dev = new LaunchCounter(H100);
  const sizes = [600, 600, 700, 3, 40];
  runRouted('potrf', dev, workload(dev, 'potrf', 'float64', sizes));
  assert.ok(dev.launches >= 2 + 2, `${dev.launches} launches: two classes and the large members' groups`);
  const plan = planVbatchedPotrf({ dtype: 'float64', uplo: 'lower', orders: sizes, sharedLimit: H100.sharedPerBlockOptin - 1024 }, tuningFor('sm_90', 'potrf'));
  assert.deepEqual(plan.large, [0, 1, 2]);
  const one = new LaunchCounter(H100);
  const uniform = workload(one, 'gemm', 'float64', [8, 8, 8]);
  assert.equal(choose('gemm', uniform, one).name, 'gemm');
});

test('gemm: alpha = 0 reads neither A nor B (k = 0), beta = 1 with nothing to add launches nothing', () => {
  const shapes = [{ m: 4, n: 4, k: 4 }, { m: 0, n: 3, k: 3 }, { m: 70, n: 2, k: 9 }];
  const p = planVbatchedGemm({ dtype: 'float64', transA: 'N', transB: 'N', alpha: 0, beta: 1, shapes }, tuningFor('sm_90', 'gemm'));
  assert.equal(p.launches.length, 0);
  const q = planVbatchedGemm({ dtype: 'float64', transA: 'N', transB: 'T', alpha: 0, beta: 0.5, shapes }, tuningFor('sm_90', 'gemm'));
  assert.deepEqual(q.launches.map((l) => [l.bound, [...l.members], l.params.variant]), [[128, [2], 'vmma'], [8, [0], 'vstaged']]);
  // float64 classes above 32 on the tensor cores where the card's table says so, the tiled kernel elsewhere.
  const f32 = planVbatchedGemm({ dtype: 'float32', transA: 'N', transB: 'T', alpha: 0, beta: 0.5, shapes }, tuningFor('sm_90', 'gemm'));
  assert.equal(f32.launches[0]!.params.variant, 'vtiled');
  const plain = planVbatchedGemm({ dtype: 'float64', transA: 'N', transB: 'T', alpha: 0, beta: 0.5, shapes }, { ...tuningFor('sm_90', 'gemm'), vbatchedMma: false });
  assert.equal(plain.launches[0]!.params.variant, 'vtiled');
});

/** Every class kernel of the sm_90 tables: gemm (both dtypes, four transposes, beta 0 or not), potrf (both dtypes and triangles). */
function vbatchedSources(): KernelSource[] {
  const orders = [0, ...VBATCH_CLASSES];
  const out = new Map<string, KernelSource>();
  for (const dtype of ['float64', 'float32'] as DType[]) {
    for (const [transA, transB] of [['N', 'N'], ['N', 'T'], ['T', 'N'], ['T', 'T']] as const) for (const beta of [0, 2]) {
      const p = planVbatchedGemm({ dtype, transA, transB, alpha: 1, beta, shapes: orders.map((n) => ({ m: n, n, k: n })) }, tuningFor('sm_90', 'gemm'));
      for (const l of p.launches) { const s = vbatchedGemmSource(l.params); out.set(s.entry, s); }
    }
    for (const uplo of ['lower', 'upper'] as const) {
      const p = planVbatchedPotrf({ dtype, uplo, orders, sharedLimit: H100.sharedPerBlockOptin - 1024 }, tuningFor('sm_90', 'potrf'));
      for (const l of p.launches) { const s = vbatchedPotrfSource(l.params); out.set(s.entry, s); }
    }
  }
  return [...out.values()];
}

test('the class kernels compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 900_000 }, async () => {
  // Default: one kernel of each design and precision; MYRIAD_FULL_COMPILE=1: all of them (176; the 40 float64 tensor-core
  // class kernels, vmma, had no spills, 2026-11-29).
  const picks = new Set(['gemm_vstaged_dNT_c16_m4_t2x2', 'gemm_vmma_dTN_c128_64x64x16_w4x2_s3_k8', 'gemm_vtiled_sTN_c512_64x64x16_t8x8_b0', 'potrf_vsmall_d_u_c24_w2', 'potrf_vreg_s_l_n64_pa_w4_nb8_b6', 'potrf_vpanel_d_u_ib16_kb16_pa_loop']);
  const sources = compileSet(vbatchedSources(), (e) => picks.has(e));
  const results = await compileForSm90(sources, 2);
  assert.deepEqual(compileFailures(results, (r) => (r.spillStores > 0 ? `${r.spillStores} bytes of spill stores` : undefined)), []);
});

test('the GPU file test/gpu/vbatched.test.ts compiles at most VBATCHED_GPU_KERNELS kernels (its calls planned here)', () => {
  // 425 on sm_90: gemm 144 class kernels and 141 per size (the compared members, those beyond 512), potrf 32 and 58,
  // getrf 18 (the blocked classes a panel and an update kernel) and 32 (28 compared shapes, the blocked design's two kernels of both dtypes).
  const dev = new PlanningDevice(H100);
  const backend = new CudaBackend(dev, 'planning');
  const ctx = new Context('cuda', backend, backend, () => {});
  recordVbatchedCalls(ctx, (op, force) => { backend.force = force === undefined ? {} : { [op]: force }; }, H100.arch);
  assert.ok(dev.sources.length <= VBATCHED_GPU_KERNELS, `${dev.sources.length} kernels`);
});

/** The keys of `count` members, member i's from `key(i)`. */
const keysOf = (count: number, key: (i: number) => number): Float64Array => Float64Array.from({ length: count }, (_, i) => key(i));

test('classPathPaysOf: the class path where members per distinct size average at most VBATCH_MEMBERS_PER_SIZE_MAX', () => {
  const twoSizes = (count: number) => (i: number): number => (i < count / 2 ? 8 : 16);
  assert.equal(classPathPaysOf(keysOf(2 * VBATCH_MEMBERS_PER_SIZE_MAX, twoSizes(2 * VBATCH_MEMBERS_PER_SIZE_MAX))), true);
  assert.equal(classPathPaysOf(keysOf(2 * VBATCH_MEMBERS_PER_SIZE_MAX + 1, twoSizes(2 * VBATCH_MEMBERS_PER_SIZE_MAX + 1))), false);
  assert.equal(classPathPaysOf(keysOf(1000, (i) => i)), true);
  assert.equal(classPathPaysOf(keysOf(1000, () => 5)), false);
});

test('classPathPaysOf counts distinct keys small and large alike (a flat table below 1024, a hash above it that grows)', () => {
  // 1,000 distinct keys: 400 below 1024, 600 from 2^31 up (past the hash's first sizes), each
  // repeated, in an order without runs; the class path pays from exactly 350 members a key.
  const keyOf = (i: number): number => { const k = (i * 7) % 1000; return k < 400 ? k * 2 : 2 ** 31 + k * 4099; };
  const edge = 1000 * VBATCH_MEMBERS_PER_SIZE_MAX;
  assert.equal(classPathPaysOf(keysOf(edge, keyOf)), true);
  assert.equal(classPathPaysOf(keysOf(edge + 1, keyOf)), false);
});

test('the variable-batch covers read shapes only: host batches (asked before staging) of one or several shapes route without touching an address', () => {
  const dev = new LaunchCounter(H100);
  const members = (sizes: readonly number[], cols?: number) => variable(sizes.map((n) => ({ data: new Float64Array(n * (cols ?? n)), rows: n, cols: cols ?? n })));
  const tri = (sizes: readonly number[]) => strided(new Float64Array(sizes[0]! * sizes[0]! * sizes.length), { rows: sizes[0]!, count: sizes.length });
  for (const sizes of [[1, 1], [3, 5, 8]]) {
    const several = new Set(sizes).size > 1;
    const a = several ? members(sizes) : tri(sizes);
    const trsm = { side: 'left', uplo: 'lower', transA: 'N', diag: 'unit', alpha: 1, a, b: members(sizes, 1) };
    assert.equal(choose('trsm', trsm, dev).name, several ? 'vbatched' : 'trsm', `trsm ${sizes}`);
    const solve = { uplo: 'lower', a, b: members(sizes, 1), info: new Int32Array(sizes.length) };
    assert.equal(choose('potrs', solve, dev).name, several ? 'vbatched' : 'potrs', `potrs ${sizes}`);
    assert.equal(choose('posv', solve, dev).name, several ? 'vbatched' : 'posv', `posv ${sizes}`);
  }
});

test('severalShapes: true as soon as one field of one member differs from member 0', () => {
  assert.equal(severalShapes([Int32Array.of(4, 4, 4), Int32Array.of(2, 2, 2)]), false);
  assert.equal(severalShapes([Int32Array.of(4, 4, 4), Int32Array.of(2, 2, 3)]), true);
  assert.equal(severalShapes([Int32Array.of(5)]), false);
});
