/**
 * Variable-size syrk by size class (syrk/plan-/launch-vbatched.ts), without a GPU: the plan's
 * classes, steps and leaves; the recursion over a class cut at each member's order, run on the CPU
 * (leaves by the reference on the cut diagonal blocks, off-diagonal blocks by memberOffdiagOf's
 * GEMMs), against the reference for every variant; the tables and the off-diagonal GEMM's members
 * as the launcher uploads them; the routes (syrk and real herk) and the launches of the bench's
 * workloads counted on a planning device; and (where nvcc is on PATH) the class kernels compiled
 * for sm_90 with no spills.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { strided, variable, type MatrixView, type VariableBatch } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import { cpuGemm } from '../../src/cpu/gemm.js';
import { cpuSyrk } from '../../src/cpu/syrk.js';
import { sizeClass } from '../../src/cuda/kernels/common/vbatch.js';
import { GEMM_VBATCH_INTS } from '../../src/cuda/kernels/gemm/index.js';
import {
  cutSpan, memberOffdiagOf, offdiagTransposes, planVbatchedSyrk, SYRK_VBATCH_INTS, syrkVbatchedLeafSource, type SyrkVariant, type VbatchedSyrkForce,
} from '../../src/cuda/kernels/syrk/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { choose, runRouted } from '../../src/cuda/router.js';
import type { DeviceArray, HostArray, KernelSource } from '../../src/cuda/runtime/types.js';
import { LaunchCounter, logUniformSizes } from '../../src/bench/vbatched.js';
import { Context } from '../../src/api/context.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { PlanningDevice } from '../../src/cuda/runtime/planning-device.js';
import { H100 } from '../helpers/devices.js';
import { compileForSm90, compileFailures, compileSet, NVCC_SKIP } from '../helpers/nvcc.js';
import { Rng } from '../helpers/random.js';
import { syrkTolerance } from '../helpers/syrk-data.js';
import { compareOutput } from '../helpers/trsm-data.js';
import { recordVbatchedSyrkCalls } from '../helpers/vbatched-syrk-cases.js';

const SHARED = H100.sharedPerBlockOptin - 1024;
const VARIANTS: readonly SyrkVariant[] = (['lower', 'upper'] as const).flatMap((uplo) => (['N', 'T'] as const).map((trans) => ({ uplo, trans })));
const members = (list: readonly { n: number; k: number }[]): { n: Int32Array; k: Int32Array } => ({ n: Int32Array.from(list, (q) => q.n), k: Int32Array.from(list, (q) => q.k) });

test('syrk plan: classes by C\'s order, members with nothing to do left out, the recursion over the class bound', () => {
  const list = [{ n: 3, k: 5 }, { n: 600, k: 2 }, { n: 70, k: 200 }, { n: 0, k: 4 }, { n: 5, k: 0 }, { n: 128, k: 1 }, { n: 8, k: 1 }, { n: 40, k: 9 }];
  const tuning = tuningFor('sm_90', 'syrk');
  const plan = planVbatchedSyrk({ uplo: 'lower', trans: 'N', dtype: 'float64', beta: 1, members: members(list), sharedLimit: SHARED }, tuning);
  // beta = 1: k = 0 (member 4) has nothing to do; n = 0 (member 3) never.
  assert.deepEqual(plan.launches.map((l) => [l.bound, [...l.members]]), [[128, [5, 2]], [48, [7]], [8, [6, 0]]]);
  assert.deepEqual(plan.large, [1]);
  const tag = (s: (typeof plan.launches)[number]['steps'][number]): string =>
    (s.kind === 'leaf' ? `L${s.off}+${s.size}x${s.blocks}` : s.kind === 'offdiag' ? `O${s.rows.off}+${s.rows.size},${s.cols.off}+${s.cols.size}` : 'T');
  // 128 with leaves of 64: one leaf launch of two blocks, one off-diagonal block (lower: rows after columns).
  assert.deepEqual(plan.launches[0]!.steps.map(tag), ['L0+64x2', 'O64+64,0+64']);
  assert.deepEqual(plan.launches[1]!.steps.map(tag), ['L0+48x1']);
  assert.deepEqual(plan.launches[2]!.steps.map(tag), ['L0+8x1']);
  // Leaf tiles: the per-size leaf's for the class's order (48: tile 64 of 4 x 4 accumulators; 8: one each).
  assert.deepEqual([...plan.launches[1]!.leaves.values()].map((x) => [x.params.tile, x.params.reg, x.params.chunk, x.shape.side, x.shape.matrices]), [[64, 4, 32, 16, 1]]);
  assert.deepEqual([...plan.launches[2]!.leaves.values()].map((x) => [x.params.tile, x.params.reg, x.shape.side, x.shape.matrices]), [[8, 1, 8, 2]]);
  // beta != 1: the k = 0 member is scaled (class 8).
  const scaled = planVbatchedSyrk({ uplo: 'upper', trans: 'T', dtype: 'float32', beta: 0, members: members(list), sharedLimit: SHARED }, tuning);
  assert.deepEqual(scaled.launches.map((l) => [l.bound, [...l.members]]), [[128, [5, 2]], [48, [7]], [8, [6, 4, 0]]]);
  assert.deepEqual(scaled.launches[0]!.steps.map(tag), ['L0+64x2', 'O0+64,64+64'], 'upper: rows before columns');
  // A 512 class: eight leaves in one launch, seven off-diagonal blocks.
  const big = planVbatchedSyrk({ uplo: 'lower', trans: 'N', dtype: 'float64', beta: 0, members: members([{ n: 300, k: 3 }]), sharedLimit: SHARED }, tuning);
  assert.deepEqual(big.launches[0]!.steps.map((s) => s.kind).join(' '), `leaf ${new Array(7).fill('offdiag').join(' ')}`);
  assert.equal((big.launches[0]!.steps[0] as { blocks: number }).blocks, 8);
  // Cuts at a member's order.
  assert.deepEqual(cutSpan({ off: 64, size: 64 }, 70), { off: 64, size: 6 });
  assert.deepEqual(cutSpan({ off: 64, size: 64 }, 64), { off: 64, size: 0 });
  const step = { kind: 'offdiag', rows: { off: 64, size: 64 }, cols: { off: 0, size: 64 } } as const;
  assert.equal(memberOffdiagOf('N', 64, 9, step), undefined);
  assert.deepEqual(memberOffdiagOf('N', 70, 9, step), { a: { r0: 64, c0: 0, rows: 6, cols: 9 }, b: { r0: 0, c0: 0, rows: 64, cols: 9 }, c: { r0: 64, c0: 0, rows: 6, cols: 64 } });
  assert.deepEqual(memberOffdiagOf('T', 70, 9, step), { a: { r0: 0, c0: 64, rows: 9, cols: 6 }, b: { r0: 0, c0: 0, rows: 9, cols: 64 }, c: { r0: 64, c0: 0, rows: 6, cols: 64 } });
});

/** The rows x cols block at (r0, c0) of one matrix. */
const viewBlock = <S>(v: MatrixView<S>, r0: number, c0: number, rows: number, cols: number): MatrixView<S> => ({ data: v.data, offset: v.offset + r0 + c0 * v.ld, ld: v.ld, rows, cols });
const vb = <S>(x: MatrixView<S>[]): VariableBatch<S> => ({ kind: 'variable', order: 'col', matrices: x });

/**
 * The launcher's steps run on the CPU: each leaf step on every member's diagonal blocks cut at its
 * order (cpuSyrk on the cut blocks), every off-diagonal block by memberOffdiagOf's GEMMs; against
 * cpuSyrk on the whole batch, the other triangle and the gaps unchanged bit for bit.
 */
for (const v of VARIANTS) for (const force of [{}, { leafMax: 16 }] as VbatchedSyrkForce[]) {
  test(`syrk: the class recursion cut at each member's order is the member's syrk (${v.uplo}/${v.trans}${force.leafMax ? ', leaves of 16' : ''})`, () => {
    const rng = new Rng(11 + VARIANTS.indexOf(v) + (force.leafMax ?? 0));
    const dtype: DType = 'float64';
    const alpha = 0.75, beta = -0.5;
    const shapes: [number, number][] = [[128, 3], [65, 2], [100, 1], [96, 40], [97, 0], [48, 3], [33, 1], [40, 2], [7, 2], [255, 5], [129, 1]];
    let next = 1;
    const places = shapes.map(([n, k]) => {
      const [ar, ac] = v.trans === 'N' ? [n, k] : [k, n];
      const a = { off: next, ld: ar + 1, rows: ar, cols: ac }; next += (ar + 1) * ac + 2;
      const c = { off: next, ld: n + 2 }; next += (n + 2) * n + 1;
      return { n, k, a, c };
    });
    const buf = allocate(dtype, next + 1).fill(12345.5);
    const inC = new Uint8Array(buf.length);
    for (const q of places) {
      for (let j = 0; j < q.a.cols; j++) for (let i = 0; i < q.a.rows; i++) buf[q.a.off + i + j * q.a.ld] = rng.uniform();
      for (let j = 0; j < q.n; j++) for (let i = 0; i < q.n; i++) { const e = q.c.off + i + j * q.c.ld; buf[e] = rng.uniform(); if (v.uplo === 'lower' ? i >= j : i <= j) inC[e] = 1; }
    }
    const views = (data: FloatArray): { a: MatrixView<FloatArray>[]; c: MatrixView<FloatArray>[] } => ({
      a: places.map((q) => ({ data, offset: q.a.off, ld: Math.max(1, q.a.ld), rows: q.a.rows, cols: q.a.cols })),
      c: places.map((q) => ({ data, offset: q.c.off, ld: q.c.ld, rows: q.n, cols: q.n })),
    });
    const want = buf.slice();
    const w = views(want);
    cpuSyrk({ ...v, alpha, beta, a: variable(w.a), c: variable(w.c) });
    const got = buf.slice();
    const g = views(got);
    const plan = planVbatchedSyrk({ ...v, dtype, beta, members: members(places), sharedLimit: SHARED }, tuningFor('sm_90', 'syrk'), force);
    assert.equal(plan.launches.reduce((s, l) => s + l.members.length, 0), places.length);
    const gemms: ReturnType<typeof memberOffdiagOf>[] = [];
    const gemmOf: number[] = [];
    for (const l of plan.launches) for (const step of l.steps) {
      if (step.kind === 'leaf') {
        for (const i of l.members) for (let b = 0; b < step.blocks; b++) {
          const s = cutSpan({ off: step.off + b * step.size, size: step.size }, places[i]!.n);
          if (s.size === 0) continue;
          const a = v.trans === 'N' ? viewBlock(g.a[i]!, s.off, 0, s.size, places[i]!.k) : viewBlock(g.a[i]!, 0, s.off, places[i]!.k, s.size);
          cpuSyrk({ ...v, alpha, beta, a: vb([a]), c: vb([viewBlock(g.c[i]!, s.off, s.off, s.size, s.size)]) });
        }
      } else if (step.kind === 'offdiag') {
        for (const i of l.members) { const u = memberOffdiagOf(v.trans, places[i]!.n, places[i]!.k, step); if (u !== undefined) { gemms.push(u); gemmOf.push(i); } }
      }
    }
    // One GEMM over every class's off-diagonal blocks, as the launcher runs it.
    const cut = (x: MatrixView<FloatArray>, b: { r0: number; c0: number; rows: number; cols: number }): MatrixView<FloatArray> => viewBlock(x, b.r0, b.c0, b.rows, b.cols);
    if (gemms.length > 0) {
      cpuGemm({ ...offdiagTransposes(v.trans), alpha, beta, a: vb(gemms.map((u, q) => cut(g.a[gemmOf[q]!]!, u!.a))), b: vb(gemms.map((u, q) => cut(g.a[gemmOf[q]!]!, u!.b))), c: vb(gemms.map((u, q) => cut(g.c[gemmOf[q]!]!, u!.c))) });
    }
    compareOutput(got, want, (e) => inC[e] === 1, syrkTolerance(dtype, 40), `${v.uplo}/${v.trans}`);
  });
}

/** A launch counter that keeps the tables it is given (the vbatched tables are the Int32Array and BigInt64Array uploads). */
class TableCounter extends LaunchCounter {
  readonly ints: Int32Array[] = [];
  readonly pointers: BigInt64Array[] = [];
  override upload(host: HostArray, dst?: DeviceArray): DeviceArray {
    if (host instanceof Int32Array) this.ints.push(host.slice());
    if (host instanceof BigInt64Array) this.pointers.push(host.slice());
    return super.upload(host, dst);
  }
}

test('syrk tables: n, k, ldA, ldC per member in launch order; the off-diagonal blocks in one GEMM', () => {
  const dev = new TableCounter(H100);
  const shapes = [[5, 3, 6, 7], [70, 2, 71, 70], [8, 9, 8, 10], [0, 3, 1, 1], [45, 1, 45, 46], [600, 2, 600, 601]];   // n, k, ldA, ldC (trans N: A n x k)
  const a = dev.alloc('float64', 2_000_000), c = dev.alloc('float64', 2_400_000);
  const req = {
    uplo: 'lower', trans: 'N', alpha: 2, beta: 0.5,
    a: variable(shapes.map(([n, k, ld], i) => ({ data: a, rows: n!, cols: k!, ld: ld!, offset: 2003 * i + 1 }))),
    c: variable(shapes.map(([n, , , ld], i) => ({ data: c, rows: n!, cols: n!, ld: ld!, offset: 400_000 * i + 3 }))),
  } as const;
  assert.equal(choose('syrk', req, dev).name, 'vbatched');
  assert.equal(choose('herk', req, dev).name, 'vbatched');
  runRouted('syrk', dev, req);
  assert.equal(dev.ints.length, 2, 'the syrk tables and the off-diagonal GEMM\'s (the 600 member: the per-size path, pointer arrays)');
  assert.deepEqual([...dev.ints[0]!], [70, 2, 71, 70, 45, 1, 45, 46, 8, 9, 8, 10, 5, 3, 6, 7]);
  const order = [1, 4, 2, 0];
  const address = (base: DeviceArray, m: { offset: number }): bigint => BigInt.asIntN(64, base.ptr + BigInt(m.offset) * 8n);
  assert.deepEqual([...dev.pointers[0]!], order.flatMap((i) => [address(a, req.a.matrices[i]!), address(c, req.c.matrices[i]!)]));
  assert.equal(dev.ints[0]!.length, 4 * SYRK_VBATCH_INTS);
  // The GEMM: member 1's one off-diagonal block of class 128 (rows 64..69, columns 0..63), k = 2: m, n, k, ldA, ldB, ldC.
  assert.deepEqual([...dev.ints[1]!], [6, 64, 2, 71, 71, 70]);
  assert.equal(dev.ints[1]!.length, GEMM_VBATCH_INTS);
  const m1 = req.a.matrices[1]!, c1 = req.c.matrices[1]!;
  assert.deepEqual([...dev.pointers[1]!], [address(a, { offset: m1.offset + 64 }), address(a, m1), address(c, { offset: c1.offset + 64 })]);
  // Launches: classes 128, 48, 8 one leaf launch each, the GEMM one (class 64), the 600 member's per-size GEMM over its triangle.
  assert.equal(dev.launches, 5);
});

test('routes: variable batches of several shapes take vbatched; one shape, strided batches and force \'syrk\' the per-size path', () => {
  const dev = new LaunchCounter(H100);
  const a = dev.alloc('float64', 10_000), c = dev.alloc('float64', 10_000);
  const vbatch = (data: DeviceArray, shapes: [number, number][]): VariableBatch<DeviceArray> => variable(shapes.map(([rows, cols]) => ({ data, rows, cols })));
  const two = { uplo: 'upper', trans: 'T', alpha: 1, beta: 0, a: vbatch(a, [[3, 4], [3, 6]]), c: vbatch(c, [[4, 4], [6, 6]]) } as const;
  assert.equal(choose('syrk', two, dev).name, 'vbatched');
  assert.equal(choose('syrk', { ...two, alpha: 0 }, dev).name, 'vbatched', 'alpha = 0: C := beta C by class');
  // k alone differs: several shapes.
  assert.equal(choose('syrk', { ...two, a: vbatch(a, [[3, 4], [5, 4]]), c: vbatch(c, [[4, 4], [4, 4]]) }, dev).name, 'vbatched');
  assert.equal(choose('syrk', { ...two, a: vbatch(a, [[3, 4], [3, 4]]), c: vbatch(c, [[4, 4], [4, 4]]) }, dev).name, 'syrk');
  const s = { ...two, a: strided(a, { rows: 3, cols: 4, count: 2 }), c: strided(c, { rows: 4, cols: 4, count: 2 }) };
  assert.equal(choose('syrk', s, dev).name, 'syrk');
  // Many members of few sizes: the per-size path (classPathPaysOf).
  const many = (k: number): VariableBatch<DeviceArray> => vbatch(a, Array.from({ length: 800 }, (_, i) => [k, i % 2 === 0 ? 4 : 6]));
  assert.equal(choose('syrk', { ...two, a: many(3), c: vbatch(c, Array.from({ length: 800 }, (_, i) => [i % 2 === 0 ? 4 : 6, i % 2 === 0 ? 4 : 6])) }, dev).name, 'syrk');
  // Forced: the class path on one launch; the per-size path two (one leaf per shape).
  const byClass = new LaunchCounter(H100), perSize = new LaunchCounter(H100);
  runRouted('syrk', byClass, two, 'vbatched');
  runRouted('syrk', perSize, two, 'syrk');
  assert.deepEqual([byClass.launches, perSize.launches], [1, 2]);
  // Nothing to do (k = 0, beta = 1): no launch.
  const idle = new LaunchCounter(H100);
  runRouted('syrk', idle, { ...two, beta: 1, a: vbatch(a, [[0, 4], [0, 6]]) }, 'vbatched');
  assert.equal(idle.launches, 0);
});

/**
 * Launches of the bench's workloads (square members, k = n): per class one leaf launch, then one
 * variable-size GEMM of every class's off-diagonal blocks (at most 9 class launches); far fewer
 * than the per-size path's one per shape.
 */
test('syrk: the bench\'s workloads in a handful of launches', () => {
  for (const [count, max] of [[20_000, 64], [20_000, 512]] as const) {
    const sizes = logUniformSizes(count, max, max === 64 ? 1 : 2);
    const dev = new LaunchCounter(H100);
    const elements = sizes.reduce((s, n) => s + n * n, 0);
    const batch = (d: DeviceArray): VariableBatch<DeviceArray> => { let at = 0; return variable(sizes.map((n) => { const m = { data: d, rows: n, offset: at }; at += n * n; return m; })); };
    const request = { uplo: 'lower', trans: 'N', alpha: 1, beta: 1, a: batch(dev.alloc('float64', elements)), c: batch(dev.alloc('float64', elements)) } as const;
    assert.equal(choose('syrk', request, dev).name, 'vbatched');
    runRouted('syrk', dev, request);
    const classes = new Set(sizes.map((n) => sizeClass(n))).size;
    assert.ok(dev.launches <= classes + 9, `max ${max}: ${dev.launches} launches (classes ${classes})`);
    const loop = new LaunchCounter(H100);
    runRouted('syrk', loop, request, 'syrk');
    assert.ok(loop.launches >= new Set(sizes).size, `per-size path: ${loop.launches} launches`);
    assert.ok(dev.launches * 3 < loop.launches, `${dev.launches} against ${loop.launches} per shape`);
  }
});

/** Every class leaf the sm_90 table plans: tiles 8, 16, 32 and 64, every variant and dtype. */
function syrkClassSources(): KernelSource[] {
  const out = new Map<string, KernelSource>();
  const tuning = tuningFor('sm_90', 'syrk');
  for (const dtype of ['float64', 'float32'] as DType[]) for (const v of VARIANTS) {
    const plan = planVbatchedSyrk({ ...v, dtype, beta: 0, members: members([8, 16, 24, 32, 48, 64, 128, 256, 512].map((n) => ({ n, k: 1 }))), sharedLimit: SHARED }, tuning);
    for (const l of plan.launches) for (const { params } of l.leaves.values()) { const s = syrkVbatchedLeafSource(params); out.set(s.entry, s); }
  }
  return [...out.values()];
}

test('the class kernels compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 900_000 }, async () => {
  const sources = syrkClassSources();
  assert.equal(sources.length, 2 * 4 * 4, 'four tiles a variant and dtype');
  // Default: a tile 64 and a tile 8 of each precision; MYRIAD_FULL_COMPILE=1: all 32.
  const picks = new Set(['syrk_vleaf_d_LN_64x4_k32', 'syrk_vleaf_s_UT_64x4_k32', 'syrk_vleaf_d_UT_8x1_k32', 'syrk_vleaf_s_LN_32x2_k32']);
  const results = await compileForSm90(compileSet(sources, (e) => picks.has(e)), 2);
  assert.deepEqual(compileFailures(results, (r) => (r.spillStores > 0 ? `${r.spillStores} bytes of spill stores` : undefined)), []);
  if (process.env['MYRIAD_PTXAS_REPORT'] === '1') for (const r of results) if ('report' in r) console.log(`${r.src.entry}: ${r.report.registers} registers, ${r.report.spillStores} bytes spilled`);
});

test('the GPU file test/gpu/vbatched-syrk.test.ts compiles a bounded set of kernels (its calls planned here)', () => {
  const dev = new PlanningDevice(H100);
  const backend = new CudaBackend(dev, 'planning');
  const ctx = new Context('cuda', backend, backend, () => {});
  recordVbatchedSyrkCalls(ctx, (force) => { backend.force = force === undefined ? {} : { syrk: 'syrk' }; });
  const kinds = new Map<string, number>();
  for (const src of dev.sources) { const k = src.entry.split('_').slice(0, 2).join('_'); kinds.set(k, (kinds.get(k) ?? 0) + 1); }
  console.log(`test/gpu/vbatched-syrk.test.ts: ${dev.sources.length} kernels (${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')})`);
  assert.ok((kinds.get('syrk_vleaf') ?? 0) > 0, 'the class leaves');
  assert.ok(dev.sources.length <= 400, `${dev.sources.length} kernels`);
});
