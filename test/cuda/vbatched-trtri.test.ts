/**
 * Variable-size trtri by size class (trtri/plan-, launch-, generate-vbatched.ts), without a GPU:
 * the plan's classes, depths and members' blocks; the class recursion cut at each member's order
 * run on the CPU (solves by the reference trsm on the blocks, leaves by the reference trtri on the
 * cut diagonal blocks) against the reference for every uplo and diag; the tables and the launches
 * on a planning device (info, the scan and its wait, singular members left out of the recursion,
 * members beyond 512 per size); the routes; and (where nvcc is on PATH) the class kernels compiled
 * for sm_90 without spills.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { variable, type MatrixView, type VariableBatch } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import type { Diag, Uplo } from '../../src/core/enums.js';
import { cpuTrtri } from '../../src/cpu/lapack/inverse.js';
import { trsm1 } from '../../src/cpu/trsm.js';
import {
  memberOffDiagonal, planVbatchedTrtri, TRTRI_VBATCH_INTS, trtriStepsByDepth, trtriSteps, trtriVbatchedLeafSource, trtriVbatchedScanSource, type VbatchedTrtriPlan,
} from '../../src/cuda/kernels/trtri/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { choose, runRouted } from '../../src/cuda/router.js';
import type { DeviceArray, HostArray, KernelSource } from '../../src/cuda/runtime/types.js';
import { LaunchCounter, logUniformSizes } from '../../src/bench/vbatched.js';
import { H100 } from '../helpers/devices.js';
import { compileForSm90, compileFailures, compileSet, NVCC_SKIP } from '../helpers/nvcc.js';
import { Rng } from '../helpers/random.js';
import { compareOutput, fillTriangle, trsmTolerance } from '../helpers/trsm-data.js';

const SHARED = H100.sharedPerBlockOptin - 1024;
const TUNING = tuningFor('sm_90', 'trtri');
const VARIANTS: readonly { uplo: Uplo; diag: Diag }[] = (['lower', 'upper'] as const).flatMap((uplo) => (['nonunit', 'unit'] as const).map((diag) => ({ uplo, diag })));

test('trtri plan: classes largest first, those above one leaf first with their depths, n = 0 in class 8, beyond 512 per size', () => {
  const n = Int32Array.from([3, 600, 70, 0, 128, 33, 8, 512, 24]);
  const plan = planVbatchedTrtri({ dtype: 'float64', uplo: 'lower', diag: 'nonunit', n, sharedLimit: SHARED }, TUNING);
  assert.deepEqual(plan.classes.map((c) => [c.bound, [...c.members], c.leaf.nb, c.leaves, c.depths.length]),
    [[512, [7], 32, 16, 4], [128, [4, 2], 32, 4, 2], [48, [5], 32, 2, 1], [24, [8], 32, 1, 0], [8, [6, 0, 3], 8, 1, 0]]);
  assert.equal(plan.recursive, 4);
  assert.deepEqual(plan.large, [1]);
  // Depths of the 512 class: 1, 2, 4, 8 splits; together the per-size recursion's 15 steps.
  const c512 = plan.classes[0]!;
  assert.deepEqual(c512.depths.map((d) => d.length), [1, 2, 4, 8]);
  const key = (s: { lo: { off: number }; hi: { off: number; size: number } }): string => `${s.lo.off}/${s.hi.off}+${s.hi.size}`;
  assert.deepEqual(c512.depths.flat().map(key).sort(), trtriSteps(512, 32).map(key).sort());
  assert.deepEqual(trtriStepsByDepth(48, 32), [[{ lo: { off: 0, size: 32 }, hi: { off: 32, size: 16 } }]]);
  // A member of 70 in class 128: the split at 64 leaves it 6 rows of the second half; the split inside [64, 128) none.
  const [top, deeper] = plan.classes[1]!.depths;
  assert.deepEqual(memberOffDiagonal('lower', 70, top![0]!), { b: { r0: 64, c0: 0, rows: 6, cols: 64 }, left: { off: 64, size: 6 }, right: { off: 0, size: 64 } });
  assert.deepEqual(memberOffDiagonal('upper', 70, top![0]!), { b: { r0: 0, c0: 64, rows: 64, cols: 6 }, left: { off: 0, size: 64 }, right: { off: 64, size: 6 } });
  assert.equal(memberOffDiagonal('lower', 70, deeper![1]!), undefined);
  assert.deepEqual(memberOffDiagonal('lower', 70, deeper![0]!)!.b, { r0: 32, c0: 0, rows: 32, cols: 32 });
  // Leaves of 8 forced: class 24 and 16 recurse too.
  const small = planVbatchedTrtri({ dtype: 'float32', uplo: 'upper', diag: 'unit', n: Int32Array.from([20, 5, 16]), sharedLimit: SHARED }, TUNING, { leafMax: 8 });
  assert.deepEqual(small.classes.map((c) => [c.bound, c.leaf.nb, c.depths.length]), [[24, 8, 2], [16, 8, 1], [8, 8, 0]]);
  assert.equal(small.recursive, 2);
});

/**
 * The launcher's order run on the CPU: per depth every member's solves (trsm1 on its blocks, B :=
 * left \ B, then B := -B / right), then every leaf (the reference trtri on the member's diagonal
 * block cut at its order); classes within one leaf by the reference directly. Against cpuTrtri.
 */
function runPlanOnCpu(plan: VbatchedTrtriPlan, uplo: Uplo, diag: Diag, a: readonly MatrixView<FloatArray>[]): void {
  const leaf = (v: MatrixView<FloatArray>, off: number, t: number): void => {
    const blk = { data: v.data, offset: v.offset + off + off * v.ld, ld: v.ld, rows: t, cols: t };
    cpuTrtri({ uplo, diag, a: variable([blk]), info: new Int32Array(1) });
  };
  const recursive = plan.classes.filter((c) => c.depths.length > 0);
  const depths = Math.max(0, ...recursive.map((c) => c.depths.length));
  for (let d = 0; d < depths; d++) {
    for (const c of recursive) for (const step of c.depths[d] ?? []) for (const i of c.members) {
      const v = a[i]!;
      const blk = memberOffDiagonal(uplo, v.rows, step);
      if (blk === undefined) continue;
      const bOff = v.offset + blk.b.r0 + blk.b.c0 * v.ld;
      const at = (s: { off: number }): number => v.offset + s.off + s.off * v.ld;
      trsm1('left', uplo, 'N', diag, blk.b.rows, blk.b.cols, 1, v.data, at(blk.left), v.ld, v.data, bOff, v.ld);
      trsm1('right', uplo, 'N', diag, blk.b.rows, blk.b.cols, -1, v.data, at(blk.right), v.ld, v.data, bOff, v.ld);
    }
  }
  for (const c of plan.classes) for (const i of c.members) {
    const v = a[i]!;
    for (let l = 0; l < c.leaves; l++) { const off = l * c.leaf.nb; if (off < v.rows) leaf(v, off, Math.min(c.leaf.nb, v.rows - off)); }
  }
}

for (const { uplo, diag } of VARIANTS) {
  for (const leafMax of [32, 8]) {
    test(`trtri: the class recursion cut at each member's order is the member's inverse (${uplo}, ${diag}, leaves of ${leafMax})`, () => {
      const rng = new Rng(11 + leafMax + (uplo === 'upper' ? 2 : 0) + (diag === 'unit' ? 1 : 0));
      const dtype: DType = 'float64';
      const sizes = [128, 65, 100, 96, 97, 48, 33, 40, 7, 1, 0, 24, 17, 256, 200];
      let next = 1;
      const places = sizes.map((n) => { const p = { off: next, ld: n + 1 + (n % 3) }; next += p.ld * n + 2; return p; });
      const buf = allocate(dtype, next + 1).fill(12345.5);
      const inTri = new Uint8Array(buf.length);
      sizes.forEach((n, q) => {
        fillTriangle(rng, buf, places[q]!.off, places[q]!.ld, n, uplo, diag);
        for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) if (uplo === 'lower' ? i > j || (i === j && diag === 'nonunit') : i < j || (i === j && diag === 'nonunit')) inTri[places[q]!.off + i + j * places[q]!.ld] = 1;
      });
      const views = (data: FloatArray): MatrixView<FloatArray>[] => sizes.map((n, q) => ({ data, offset: places[q]!.off, ld: places[q]!.ld, rows: n, cols: n }));
      const want = buf.slice();
      cpuTrtri({ uplo, diag, a: variable(views(want)), info: new Int32Array(sizes.length) });
      const got = buf.slice();
      const plan = planVbatchedTrtri({ dtype, uplo, diag, n: Int32Array.from(sizes), sharedLimit: SHARED }, TUNING, { leafMax });
      runPlanOnCpu(plan, uplo, diag, views(got));
      compareOutput(got, want, (e) => inTri[e] === 1, trsmTolerance(dtype, 256), `${uplo} ${diag}`);
    });
  }
}

/** A launch counter that keeps the int tables it is given and answers info downloads with `info`. */
class TableCounter extends LaunchCounter {
  readonly ints: Int32Array[] = [];
  answer: Int32Array | undefined;
  override upload(host: HostArray, dst?: DeviceArray): DeviceArray {
    if (host instanceof Int32Array) this.ints.push(host.slice());
    return super.upload(host, dst);
  }
  override download(src: DeviceArray, dst?: HostArray): HostArray {
    if (this.answer !== undefined && src.dtype === 'int32' && src.length === this.answer.length) return this.answer.slice();
    return super.download(src, dst);
  }
}

const squares = (data: DeviceArray, sizes: readonly number[], ld: (n: number) => number = (n) => Math.max(1, n)): VariableBatch<DeviceArray> => {
  let at = 0;
  return variable(sizes.map((n) => { const m = { data, rows: n, cols: n, ld: ld(n), offset: at }; at += ld(n) * n + 1; return m; }));
};

test('trtri tables and launches: one leaf launch per small class, the scan and its wait, the recursion over the non-singular members only', () => {
  const sizes = [5, 40, 8, 0, 45, 100, 30];
  const dev = new TableCounter(H100);
  const data = dev.alloc('float64', 100_000), info = dev.alloc('int32', sizes.length);
  const req = { uplo: 'lower', diag: 'nonunit', a: squares(data, sizes, (n) => n + 2), info } as const;
  assert.equal(choose('trtri', req, dev).name, 'vbatched');
  // Member 4 (order 45) singular: the recursion leaves it out.
  dev.answer = Int32Array.from([0, 0, 0, 0, 7, 0, 0]);
  runRouted('trtri', dev, req);
  // The first int table: n, ld, batch index per member, classes largest first (128: 100; 48: 45, 40; 32: 30; 8: 8, 5, 0).
  assert.deepEqual([...dev.ints[0]!], [100, 102, 5, 45, 47, 4, 40, 42, 1, 30, 32, 6, 8, 10, 2, 5, 7, 0, 0, 2, 3]);
  assert.equal(dev.ints[0]!.length, sizes.length * TRTRI_VBATCH_INTS);
  // The survivors' table: 100 and 40 (45 left out).
  assert.deepEqual([...dev.ints[1]!], [100, 102, 5, 40, 42, 1]);
  // Classes 32 and 8 one leaf launch each; the scan; the solves (trsm classes up to 32 one launch, 48 and 64 three: two
  // leaves and a GEMM): depth 0, 100 split at 64 and 40 at 32: left triangles 36 and 8 (3 + 1), right 64 and 32 (3 + 1);
  // depth 1, 100's splits at 32 and 96: left 32 and 4 (1 + 1), right 32 and 32 (1); then a leaf launch per class (128, 48).
  assert.equal(dev.launches, 2 + 1 + (4 + 4) + (2 + 1) + 2);
});

test('trtri launches on a planning device: classes within a leaf one launch each; above, the scan, the depths\' solves, a leaf launch per class', () => {
  const count = (sizes: readonly number[], diag: Diag = 'nonunit', route?: string): number => {
    const dev = new LaunchCounter(H100);
    const data = dev.alloc('float32', sizes.reduce((s, n) => s + n * n + 1, 0)), info = dev.alloc('int32', sizes.length);
    runRouted('trtri', dev, { uplo: 'upper', diag, a: squares(data, sizes), info }, route);
    return dev.launches;
  };
  // Classes 8, 16, 24, 32: four launches, whatever the sizes.
  assert.equal(count([1, 2, 3, 9, 10, 17, 18, 25, 32, 0]), 4);
  // Class 48 alone: the scan, the solves of depth 0 (triangles of 1-16 and 32: one trsm class launch each), one leaf launch.
  assert.equal(count([33, 40, 48]), 1 + 2 + 1 + 1);
  // Beyond 512: the per-size path (for order 600, one scan, one leaf launch and the trmm recursion).
  assert.ok(count([600, 5]) > 2);
  // The bench's workload b (1-512): far fewer launches than per size.
  const sizes = logUniformSizes(2_000, 512, 2);
  const classes = count(sizes), perSize = count(sizes, 'nonunit', 'trtri');
  assert.ok(classes * 5 < perSize, `${classes} launches by class against ${perSize} per size`);
  console.log(`trtri, 2,000 members of 1-512: ${classes} launches by class, ${perSize} per size (${new Set(sizes).size} sizes)`);
});

test('routes: variable batches of several shapes (n or ld) take vbatched; one shape the per-size path', () => {
  const dev = new LaunchCounter(H100);
  const data = dev.alloc('float64', 10_000), info = dev.alloc('int32', 4);
  const two = { uplo: 'lower', diag: 'unit', a: squares(data, [4, 6]), info } as const;
  assert.equal(choose('trtri', two, dev).name, 'vbatched');
  assert.equal(choose('trtri', { ...two, a: squares(data, [4, 4]) }, dev).name, 'trtri');
  // ld alone makes two shapes.
  assert.equal(choose('trtri', { ...two, a: variable([{ data, rows: 4, cols: 4, ld: 4 }, { data, rows: 4, cols: 4, ld: 5, offset: 100 }]) }, dev).name, 'vbatched');
});

/** Every class kernel: the leaf of every size, uplo, diag and dtype, the scan of each dtype. */
export function vbatchedTrtriSources(): KernelSource[] {
  const out: KernelSource[] = [];
  for (const dtype of ['float64', 'float32'] as DType[]) {
    out.push(trtriVbatchedScanSource({ dtype }));
    for (const { uplo, diag } of VARIANTS) for (const nb of [8, 16, 32]) out.push(trtriVbatchedLeafSource({ dtype, uplo, diag, nb }));
  }
  return out;
}

test('the class kernels are pure and compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 900_000 }, async () => {
  assert.equal(trtriVbatchedLeafSource({ dtype: 'float64', uplo: 'lower', diag: 'unit', nb: 32 }).source, trtriVbatchedLeafSource({ dtype: 'float64', uplo: 'lower', diag: 'unit', nb: 32 }).source);
  // Default: the largest leaf of each dtype and the scans; MYRIAD_FULL_COMPILE=1: all 26.
  const picks = new Set(['trtri_vleaf_d_ln_32', 'trtri_vleaf_s_uu_32', 'trtri_vscan_d', 'trtri_vscan_s']);
  const results = await compileForSm90(compileSet(vbatchedTrtriSources(), (e) => picks.has(e)), 2);
  assert.deepEqual(compileFailures(results, (r) => (r.spillStores > 0 ? `${r.spillStores} bytes of spill stores` : undefined)), []);
  if (process.env['MYRIAD_PTXAS_REPORT'] === '1') for (const r of results) if ('report' in r) console.log(`${r.src.entry}: ${r.report.registers} registers, ${r.report.spillStores} bytes spilled`);
});
