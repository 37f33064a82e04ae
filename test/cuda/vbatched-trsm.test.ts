/**
 * Variable-size trsm, potrs and posv by size class (trsm/plan-/launch-vbatched.ts,
 * solve/launch-vbatched.ts), without a GPU: the plan's classes, steps and leaf shapes; the recursion
 * over a class cut at each member's order, run on the CPU (leaves by the reference on the cut
 * blocks, updates by memberUpdate's GEMMs), against the reference for every variant; the tables as
 * the launcher uploads them; the routes and the launches of the bench's workloads counted on a
 * planning device; and (where nvcc is on PATH) the class kernels compiled for sm_90 with no spills.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { variable, type MatrixView, type VariableBatch } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import { cpuGemm } from '../../src/cpu/gemm.js';
import { cpuTrsm, trsm1 } from '../../src/cpu/trsm.js';
import { sizeClass } from '../../src/cuda/kernels/common/vbatch.js';
import { copyVbatchedSource } from '../../src/cuda/kernels/solve/index.js';
import { cutSpan, leafChunk, memberUpdate, planVbatchedTrsm, TRSM_VBATCH_INTS, trsmVbatchedLeafSource, viewBlock } from '../../src/cuda/kernels/trsm/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { choose, runRouted } from '../../src/cuda/router.js';
import type { DeviceArray, HostArray, KernelSource } from '../../src/cuda/runtime/types.js';
import { LaunchCounter, logUniformSizes, VBATCHED_OPERANDS, VBATCHED_WORKLOADS, vbatchedRequest } from '../../src/bench/vbatched.js';
import { Context } from '../../src/api/context.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { PlanningDevice } from '../../src/cuda/runtime/planning-device.js';
import { H100 } from '../helpers/devices.js';
import { compileForSm90, compileFailures, compileSet, NVCC_SKIP } from '../helpers/nvcc.js';
import { Rng } from '../helpers/random.js';
import { compareOutput, fillTriangle, TRSM_VARIANTS, trsmTolerance, caseName } from '../helpers/trsm-data.js';
import { recordVbatchedSolveCalls, VBATCHED_SOLVE_GPU_KERNELS } from '../helpers/vbatched-solve-cases.js';

const SHARED = H100.sharedPerBlockOptin - 1024;

/** Members' triangle orders and vector counts as the plan takes them (flat arrays). */
const memberSizes = (list: readonly { t: number; nvec: number }[]): { t: Int32Array; nvec: Int32Array } =>
  ({ t: Int32Array.from(list, (q) => q.t), nvec: Int32Array.from(list, (q) => q.nvec) });
const LLNN = { side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit' } as const;

test('trsm plan: classes by the triangle, members without a triangle or vectors left out, the recursion over the class bound', () => {
  const members = [{ t: 3, nvec: 5 }, { t: 600, nvec: 2 }, { t: 70, nvec: 200 }, { t: 0, nvec: 4 }, { t: 5, nvec: 0 }, { t: 128, nvec: 1 }, { t: 8, nvec: 1 }];
  const plan = planVbatchedTrsm({ ...LLNN, dtype: 'float64', members: memberSizes(members), sharedLimit: SHARED }, tuningFor('sm_90', 'trsm'));
  assert.deepEqual(plan.launches.map((l) => [l.bound, [...l.members], l.nvecMax]), [[128, [5, 2], 200], [8, [6, 0], 5]]);
  assert.deepEqual(plan.large, [1]);
  const big = plan.launches[0]!;
  // 128 with leaves of 32: four leaves, three updates; the first leaf scaled by alpha, the others by the updates.
  const tag = (x: (typeof big.steps)[number]): string => (x.kind === 'leaf' ? `L${x.span.off}+${x.span.size}${x.scaled ? 's' : ''}` : `U${x.target.off}<-${x.source.off}`);
  assert.deepEqual(big.steps.map(tag), ['L0+32s', 'U32<-0', 'L32+32', 'U64<-0', 'L64+32', 'U96<-64', 'L96+32']);
  assert.equal(big.steps.filter((s) => s.kind === 'leaf').length, 4);
  assert.ok(big.steps.every((s) => s.kind === 'update' || s.span.size === 32));
  // The leaf's shape is the widest B's: 64 vectors a block (the table's vectorsMax).
  assert.equal(big.shapes.get(32)!.vectors, 64);
  assert.equal(plan.launches[1]!.steps.length, 1);
  // Five vectors a pass, eight threads a matrix (the triangle's loaders).
  assert.deepEqual([plan.launches[1]!.shapes.get(8)!.vectors, leafChunk(plan.launches[1]!.shapes.get(8)!)], [8, 5]);
  assert.deepEqual(cutSpan({ off: 64, size: 32 }, 70), { off: 64, size: 6 });
  assert.deepEqual(cutSpan({ off: 96, size: 32 }, 70), { off: 96, size: 0 });
});

/**
 * The launcher's steps run on the CPU: a leaf on each member's block cut at its order (trsm1, the
 * reference, alpha where the step scales), an update by memberUpdate's GEMMs; against cpuTrsm.
 */
for (const v of TRSM_VARIANTS) {
  test(`trsm: the class recursion cut at each member's order is the member's solve (${caseName(v)})`, () => {
    const rng = new Rng(7 + TRSM_VARIANTS.indexOf(v));
    const dtype: DType = 'float64';
    const left = v.side === 'left';
    const alpha = 0.75;
    const shapes: [number, number][] = [[128, 3], [65, 2], [100, 1], [96, 4], [97, 2], [48, 3], [33, 1], [40, 2], [7, 2]];
    let next = 1;
    const places = shapes.map(([t, nvec]) => {
      const [m, n] = left ? [t, nvec] : [nvec, t];
      const a = { off: next, ld: t + 1 }; next += (t + 1) * t + 2;
      const b = { off: next, ld: m + 2 }; next += (m + 2) * n + 1;
      return { t, nvec, m, n, a, b };
    });
    const buf = allocate(dtype, next + 1).fill(12345.5);
    const inB = new Uint8Array(buf.length);
    for (const q of places) {
      fillTriangle(rng, buf, q.a.off, q.a.ld, q.t, v.uplo, v.diag);
      for (let j = 0; j < q.n; j++) for (let i = 0; i < q.m; i++) { buf[q.b.off + i + j * q.b.ld] = rng.uniform(); inB[q.b.off + i + j * q.b.ld] = 1; }
    }
    const views = (data: FloatArray): { a: MatrixView<FloatArray>[]; b: MatrixView<FloatArray>[] } => ({
      a: places.map((q) => ({ data, offset: q.a.off, ld: q.a.ld, rows: q.t, cols: q.t })),
      b: places.map((q) => ({ data, offset: q.b.off, ld: q.b.ld, rows: q.m, cols: q.n })),
    });
    const want = buf.slice();
    const w = views(want);
    cpuTrsm({ ...v, alpha, a: variable(w.a), b: variable(w.b) });
    const got = buf.slice();
    const g = views(got);
    const plan = planVbatchedTrsm({ ...v, dtype, members: memberSizes(places), sharedLimit: SHARED }, tuningFor('sm_90', 'trsm'));
    const vb = (x: MatrixView<FloatArray>[]): VariableBatch<FloatArray> => ({ kind: 'variable', order: 'col', matrices: x });
    for (const l of plan.launches) for (const step of l.steps) {
      if (step.kind === 'leaf') {
        for (const i of l.members) {
          const s = cutSpan(step.span, places[i]!.t);
          if (s.size === 0) continue;
          const a = viewBlock(g.a[i]!, s.off, s.off, s.size, s.size);
          const b = left ? viewBlock(g.b[i]!, s.off, 0, s.size, places[i]!.n) : viewBlock(g.b[i]!, 0, s.off, places[i]!.m, s.size);
          trsm1(v.side, v.uplo, v.transA, v.diag, b.rows, b.cols, step.scaled ? alpha : 1, got, a.offset, a.ld, got, b.offset, b.ld);
        }
        continue;
      }
      const us = Array.from(l.members).map((i) => memberUpdate({ ...v, alpha }, g.a[i]!, g.b[i]!, step)).filter((u) => u.c.rows > 0 && u.c.cols > 0);
      if (us.length > 0) cpuGemm({ transA: us[0]!.transA, transB: us[0]!.transB, alpha: us[0]!.alpha, beta: us[0]!.beta, a: vb(us.map((u) => u.a)), b: vb(us.map((u) => u.b)), c: vb(us.map((u) => u.c)) });
    }
    compareOutput(got, want, (e) => inB[e] === 1, trsmTolerance(dtype, 128), caseName(v));
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

test('trsm updates: a class cut in batch order (a large share of the batch) and one cut member by member (a small share) make the same GEMM tables', () => {
  // Class 48's members (one update each) alone, then followed by 200 members of order 1 (class 8,
  // one leaf): the class is cut in batch order in the first batch, member by member in the second.
  const tables = (tiny: number): { ints: Int32Array; pointers: BigInt64Array } => {
    const dev = new TableCounter(H100);
    const a = dev.alloc('float64', 30_000), b = dev.alloc('float64', 30_000);
    const shapes = [[40, 2, 41, 40], [47, 3, 47, 48], [33, 1, 35, 33], [45, 2, 45, 46], ...Array.from({ length: tiny }, () => [1, 1, 1, 1])];
    const req = {
      ...LLNN, alpha: 2,
      a: variable(shapes.map(([t, , ld], i) => ({ data: a, rows: t!, cols: t!, ld: ld!, offset: 2503 * Math.min(i, 4) + 7 * i + 1 }))),
      b: variable(shapes.map(([t, nvec, , ld], i) => ({ data: b, rows: t!, cols: nvec!, ld: ld!, offset: 2477 * Math.min(i, 4) + 3 * i + 3 }))),
    };
    runRouted('trsm', dev, req, 'vbatched');
    assert.equal(dev.ints.length, 2, 'the trsm tables and the update\'s gemm tables');
    return { ints: dev.ints[1]!, pointers: dev.pointers[1]! };
  };
  const alone = tables(0), among = tables(200);
  assert.ok(alone.ints.length > 0);
  assert.deepEqual([...among.ints], [...alone.ints]);
  assert.deepEqual([...among.pointers], [...alone.pointers]);
});

test('trsm tables: t, nvec, ldA, ldB per member in launch order (classes largest first, members by t descending)', () => {
  const dev = new TableCounter(H100);
  const shapes = [[5, 3, 6, 7], [40, 2, 41, 40], [8, 9, 8, 10], [0, 3, 1, 1], [45, 1, 45, 46]];   // t, nvec, ldA, ldB (side left: B t x nvec)
  const a = dev.alloc('float64', 20_000), b = dev.alloc('float64', 20_000);
  const req = {
    ...LLNN, alpha: 2,
    a: variable(shapes.map(([t, , ld], i) => ({ data: a, rows: t!, cols: t!, ld: ld!, offset: 2003 * i + 1 }))),
    b: variable(shapes.map(([t, nvec, , ld], i) => ({ data: b, rows: t!, cols: nvec!, ld: ld!, offset: 1999 * i + 3 }))),
  };
  assert.equal(choose('trsm', req, dev).name, 'vbatched');
  runRouted('trsm', dev, req);
  assert.equal(dev.ints.length, 2, 'the trsm tables and, for the one update of class 48, the gemm tables');
  assert.deepEqual([...dev.ints[0]!], [45, 1, 45, 46, 40, 2, 41, 40, 8, 9, 8, 10, 5, 3, 6, 7]);
  // Pointers: A's and B's member addresses (offsets in elements, 8 bytes each) in the same order.
  const order = [4, 1, 2, 0];
  const address = (base: DeviceArray, m: { offset: number }): bigint => BigInt.asIntN(64, base.ptr + BigInt(m.offset) * 8n);
  assert.deepEqual([...dev.pointers[0]!], order.flatMap((i) => [address(a, req.a.matrices[i]!), address(b, req.b.matrices[i]!)]));
  assert.equal(dev.ints[0]!.length, 4 * TRSM_VBATCH_INTS);
  // Class 48 (two leaves and an update) and class 8 (one leaf): four launches, the update's GEMM one of them.
  assert.equal(dev.launches, 4);
});

test('routes: variable batches of several shapes take vbatched; one shape, alpha = 0 and strided batches the per-size path', () => {
  const dev = new LaunchCounter(H100);
  const a = dev.alloc('float64', 10_000), b = dev.alloc('float64', 10_000), info = dev.alloc('int32', 4);
  const vbatch = (data: DeviceArray, shapes: [number, number][]): VariableBatch<DeviceArray> => variable(shapes.map(([rows, cols]) => ({ data, rows, cols })));
  const two = { ...LLNN, alpha: 1, a: vbatch(a, [[4, 4], [6, 6]]), b: vbatch(b, [[4, 2], [6, 2]]) };
  assert.equal(choose('trsm', two, dev).name, 'vbatched');
  assert.equal(choose('trsm', { ...two, alpha: 0 }, dev).name, 'trsm');
  assert.equal(choose('trsm', { ...two, a: vbatch(a, [[4, 4], [4, 4]]), b: vbatch(b, [[4, 2], [4, 2]]) }, dev).name, 'trsm');
  for (const op of ['potrs', 'posv'] as const) {
    assert.equal(choose(op, { uplo: 'upper', a: two.a, b: two.b, info }, dev).name, 'vbatched', op);
    // Different nrhs alone makes several shapes.
    assert.equal(choose(op, { uplo: 'upper', a: vbatch(a, [[4, 4], [4, 4]]), b: vbatch(b, [[4, 1], [4, 3]]), info }, dev).name, 'vbatched', op);
    assert.equal(choose(op, { uplo: 'upper', a: vbatch(a, [[4, 4], [4, 4]]), b: vbatch(b, [[4, 3], [4, 3]]), info }, dev).name, op, op);
  }
  // alpha = 0 on the launcher itself: B := 0 by the per-size path's zero kernel (one launch per shape).
  const zero = new LaunchCounter(H100);
  runRouted('trsm', zero, { ...two, alpha: 0 }, 'vbatched');
  assert.equal(zero.launches, 2);
});

/** A variable batch of square members of `sizes` on a launch-counting planning device. */
function workload(dev: LaunchCounter, op: 'trsm' | 'posv', dtype: DType, sizes: readonly number[]): Record<string, unknown> {
  const elements = sizes.reduce((s, n) => s + n * n, 0);
  const data = Array.from({ length: VBATCHED_OPERANDS[op] }, () => dev.alloc(dtype, elements));
  return vbatchedRequest(op, sizes, data, dev.alloc('int32', sizes.length));
}

/**
 * Launches of the bench's workloads: trsm per class one leaf per block of the class's recursion and
 * one variable-size GEMM per update (each a launch per class of its members' sizes); posv adds
 * potrf's one launch per class and two copies of B. Workload a's sizes are drawn 20,000 times here
 * instead of 200,000 (the same classes and sizes; the host's time per member is the bench's
 * business, not this file's).
 */
for (const op of ['trsm', 'posv'] as const) {
  test(`${op}: the bench's workloads in a bounded number of launches, far fewer than per shape`, () => {
    for (const w of ['a', 'b'] as const) {
      const { max } = VBATCHED_WORKLOADS[w];
      const sizes = logUniformSizes(20_000, max, w === 'a' ? 1 : 2);
      const dev = new LaunchCounter(H100);
      const request = workload(dev, op, 'float64', sizes);
      assert.equal(choose(op, request, dev).name, 'vbatched');
      runRouted(op, dev, request);
      const classes = new Set(sizes.map((n) => sizeClass(n))).size;
      // Per class: the leaves and updates of its recursion (leaves of 32); each update's GEMM at most 9 class launches.
      const perClass = (bound: number): number => { const leaves = Math.ceil(bound / 32); return leaves + (leaves - 1) * 9; };
      const bound = [...new Set(sizes.map((n) => sizeClass(n)!))].reduce((s, c) => s + perClass(c), 0);
      const most = (op === 'trsm' ? 1 : 2) * bound + (op === 'posv' ? classes + 2 : 0);
      assert.ok(dev.launches <= most, `workload ${w}: ${dev.launches} launches (at most ${most})`);
      if (w === 'a') {
        const loop = new LaunchCounter(H100);
        runRouted(op, loop, workload(loop, op, 'float64', sizes), op);
        assert.ok(loop.launches >= new Set(sizes).size, `per-size path: ${loop.launches} launches`);
        assert.ok(dev.launches * 3 < loop.launches, `${dev.launches} against ${loop.launches} per shape`);
      }
    }
  });
}

/** Every class kernel: the trsm leaf of every variant and dtype, the posv copy of both dtypes. */
function vbatchedSolveSources(): KernelSource[] {
  const out = new Map<string, KernelSource>();
  for (const dtype of ['float64', 'float32'] as DType[]) {
    for (const v of TRSM_VARIANTS) { const s = trsmVbatchedLeafSource({ ...v, dtype }); out.set(s.entry, s); }
    const c = copyVbatchedSource(dtype);
    out.set(c.entry, c);
  }
  return [...out.values()];
}

test('the class kernels compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 900_000 }, async () => {
  // Default: one leaf of each side and precision and a copy; MYRIAD_FULL_COMPILE=1: all 34.
  const picks = new Set(['trsm_vleaf_d_LUTN', 'trsm_vleaf_s_RLNU', 'copy_vbatched_d']);
  const results = await compileForSm90(compileSet(vbatchedSolveSources(), (e) => picks.has(e)), 2);
  assert.deepEqual(compileFailures(results, (r) => (r.spillStores > 0 ? `${r.spillStores} bytes of spill stores` : undefined)), []);
  if (process.env['MYRIAD_PTXAS_REPORT'] === '1') for (const r of results) if ('report' in r) console.log(`${r.src.entry}: ${r.report.registers} registers, ${r.report.spillStores} bytes spilled`);
});

test('the GPU file test/gpu/vbatched-solve.test.ts compiles at most VBATCHED_SOLVE_GPU_KERNELS kernels (its calls planned here)', () => {
  const dev = new PlanningDevice(H100);
  const backend = new CudaBackend(dev, 'planning');
  const ctx = new Context('cuda', backend, backend, () => {});
  recordVbatchedSolveCalls(ctx, (force) => { backend.force = force; });
  const kinds = new Map<string, number>();
  for (const src of dev.sources) { const k = src.entry.split('_').slice(0, 2).join('_'); kinds.set(k, (kinds.get(k) ?? 0) + 1); }
  console.log(`test/gpu/vbatched-solve.test.ts: ${dev.sources.length} kernels (${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')})`);
  assert.ok(dev.sources.length <= VBATCHED_SOLVE_GPU_KERNELS, `${dev.sources.length} kernels`);
});
