/**
 * The variable-size batched LU by size class (getrf/plan-vbatched.ts, launch-vbatched.ts) without a
 * GPU: the classes of rectangular members (size max(m, n), empty members in class 8, members beyond
 * 512 on the per-size path), each class's design and launch shape (the blocked classes' steps), the two
 * member tables and the launch arguments as a recording planning device sees them, the router's
 * choice and the launches of the bench's workloads, and (where nvcc is on PATH) representative class
 * kernels compiled for sm_90 with no spills.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { variable } from '../../src/core/batch.js';
import type { DType } from '../../src/core/dtype.js';
import { sizeClass } from '../../src/cuda/kernels/common/vbatch.js';
import {
  GETRF_VBATCH_INTS, getrfClassParams, getrfMemberSize, getrfRegisterClassMax, getrfVbatchedCuda, planVbatchedGetrf, vbatchedGetrfLaunch,
  getrfUpdateVbatchedSource, vbatchedGetrfPanelSteps, vbatchedGetrfSource, type GetrfVbatchedParams,
} from '../../src/cuda/kernels/getrf/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { choose, runRouted } from '../../src/cuda/router.js';
import { PlanningDevice } from '../../src/cuda/runtime/planning-device.js';
import type { DeviceArray, HostArray, Kernel, KernelArg, KernelSource, LaunchConfig } from '../../src/cuda/runtime/types.js';
import { LaunchCounter, logUniformSizes, VBATCHED_WORKLOADS, vbatchedRequest } from '../../src/bench/vbatched.js';
import { H100 } from '../helpers/devices.js';
import { scalarArgs } from '../helpers/fake-gpus.js';
import { compileFailures, compileForSm90, compileSet, NVCC_SKIP } from '../helpers/nvcc.js';

const tuning = tuningFor('sm_90', 'getrf');
const SHARED = H100.sharedPerBlockOptin - 1024;

/** A class's design (the test's classes all have one). */
function classParams(dtype: DType, bound: number, t = tuning): GetrfVbatchedParams {
  const c = getrfClassParams(dtype, bound, t, SHARED);
  if (c === undefined) throw new Error(`no design for class ${bound}`);
  return c;
}

test('getrf classes: size max(m, n) (0 where m or n is 0), largest class first, members beyond 512 per size', () => {
  assert.equal(getrfMemberSize(0, 600), 0);
  assert.equal(getrfMemberSize(5, 0), 0);
  assert.equal(getrfMemberSize(3, 40), 40);
  assert.equal(getrfRegisterClassMax('float64', tuning), 128);
  const shapes = [[3, 3], [0, 600], [40, 10], [129, 2], [128, 128], [600, 600], [8, 3], [5, 0], [2, 33], [1, 1], [300, 513]].map(([rows, cols]) => ({ rows: rows!, cols: cols! }));
  const plan = planVbatchedGetrf({ dtype: 'float64', shapes, sharedLimit: SHARED }, tuning);
  assert.deepEqual(plan.launches.map((l) => [l.bound, [...l.members], l.params.variant]), [
    [256, [3], 'vpanel'], [128, [4], 'vregister'], [48, [2, 8], 'vregister'], [8, [6, 0, 9, 1, 7], 'vsmall'],
  ]);
  assert.deepEqual(plan.large, [5, 10]);
  // A table whose register design stops at 100: the register classes up to 64, the blocked design above.
  const low = { ...tuning, registerMax: { float64: 64, float32: 100 } };
  assert.equal(getrfRegisterClassMax('float64', low), 64);
  assert.equal(getrfRegisterClassMax('float32', low), 64);
  assert.equal(classParams('float32', 128, low).variant, 'vpanel');
  // A shared memory too small for the class's panel: its members per size.
  assert.equal(getrfClassParams('float64', 512, tuning, 1000), undefined);
  assert.deepEqual(planVbatchedGetrf({ dtype: 'float64', shapes, sharedLimit: 1000 }, tuning).large, [3, 5, 10]);
});

test('getrf class designs and launch shapes: the warp design to 32, the table\'s register shape to 128 (one block an SM where it would cap at 64 registers), the blocked design above', () => {
  for (const dtype of ['float64', 'float32'] as DType[]) {
    for (const bound of [8, 16, 24, 32]) {
      const c = classParams(dtype, bound);
      if (c.variant !== 'vsmall') throw new Error(`class ${bound}: ${c.variant}`);
      assert.deepEqual(c.params, { dtype, rows: bound, cols: bound, kind: 'pointer', warps: 4 });
      // Members a block: 4 warps of 32 / nextPow2(bound) members each.
      const perBlock = 4 * Math.floor(32 / 2 ** Math.ceil(Math.log2(bound)));
      assert.deepEqual(vbatchedGetrfLaunch(c, 1000), { grid: [Math.ceil(1000 / perBlock), 1, 1], block: [128, 1, 1] });
    }
    for (const bound of [48, 64, 128]) {
      const c = classParams(dtype, bound);
      if (c.variant !== 'vregister') throw new Error(`class ${bound}: ${c.variant}`);
      const shape = bound <= 64 ? { warps: 4, nb: 4 } : { warps: 16, nb: dtype === 'float32' ? 2 : 4 };
      assert.equal(c.params.warps, shape.warps);
      assert.equal(c.params.nb, shape.nb);
      const blocks = bound > 64 ? 1 : dtype === 'float32' ? 6 : bound <= 48 ? 5 : 4;
      assert.equal(c.params.minBlocks, blocks, `${dtype} class ${bound}`);
      assert.deepEqual(vbatchedGetrfLaunch(c, 77), { grid: [77, 1, 1], block: [shape.warps * 32, 1, 1] });
    }
    for (const bound of [256, 512]) {
      const c = classParams(dtype, bound);
      if (c.variant !== 'vpanel') throw new Error(`class ${bound}: ${c.variant}`);
      assert.deepEqual(c.params, { dtype, kind: 'pointer', ib: dtype === 'float64' ? 16 : 32 });
    }
  }
});

test('getrf blocked class steps: panels to the deepest member, threads and shared memory for the rows still at work, update tiles for the widest', () => {
  const p = { dtype: 'float64' as const, kind: 'pointer' as const, ib: 16 };
  const steps = vbatchedGetrfPanelSteps(p, [{ rows: 200, cols: 40 }, { rows: 20, cols: 256 }, { rows: 129, cols: 129 }]);
  assert.deepEqual(steps.map((st) => st.i0), [0, 16, 32, 48, 64, 80, 96, 112, 128]);
  // i0 = 0: 200 rows at most (224 threads), right of the panel 256 - 16 columns (8 tiles).
  assert.deepEqual(steps[0], { i0: 0, panel: { grid: [3, 1, 1], block: [224, 1, 1], sharedBytes: 200 * 16 * 8 }, update: { grid: [3, 8, 1], block: [256, 1, 1] } });
  // i0 = 32: the 20-row member is done; 200 - 32 rows; the 200 x 40 member's last panel is 8 wide.
  assert.deepEqual(steps[2]!.panel, { grid: [3, 1, 1], block: [192, 1, 1], sharedBytes: 168 * 16 * 8 });
  assert.deepEqual(steps[2]!.update, { grid: [3, 1 + 3, 1], block: [256, 1, 1] });
  // i0 = 128: only the 129 x 129 member, one row and column: its left columns only.
  assert.deepEqual(steps[8], { i0: 128, panel: { grid: [3, 1, 1], block: [32, 1, 1], sharedBytes: 16 * 8 }, update: { grid: [3, 4, 1], block: [256, 1, 1] } });
});

/** A planning device that keeps what is uploaded and launched. */
class Recorder extends PlanningDevice {
  readonly uploads: { host: HostArray; array: DeviceArray }[] = [];
  readonly launches: { entry: string; config: LaunchConfig; args: readonly KernelArg[] }[] = [];
  override upload(host: HostArray, dst?: DeviceArray): DeviceArray {
    const array = super.upload(host, dst);
    this.uploads.push({ host: host.slice(), array });
    return array;
  }
  override kernel(src: KernelSource): Kernel {
    const k = super.kernel(src);
    return { ...k, launch: (config, args) => { this.launches.push({ entry: src.entry, config, args: scalarArgs(args) }); } };
  }
}

test('getrf tables and launch arguments: pointers and (m, n, ld, batch index) in launch order, each class from its first member', () => {
  const dev = new Recorder(H100);
  const data = dev.alloc('float64', 10_000);
  const shapes = [[5, 7, 6, 10], [40, 33, 41, 200], [0, 3, 1, 3000], [8, 8, 9, 3100], [600, 2, 600, 4000], [7, 5, 8, 9000]] as const;
  const a = variable(shapes.map(([rows, cols, ld, offset]) => ({ data, rows, cols, ld, offset })));
  const ipiv = dev.alloc('int32', shapes.length * 7), info = dev.alloc('int32', shapes.length);
  getrfVbatchedCuda(dev, { a, ipiv, pivotStride: 7, info });
  // Launch order: class 48 (member 1), class 8 (members 3, 0, 5, 2: by size, ties in batch order); then member 4 per size.
  const order = [1, 3, 0, 5, 2];
  const [pointers, ints] = dev.uploads;
  assert.deepEqual([...(pointers!.host as BigInt64Array)], order.map((i) => data.ptr + BigInt(shapes[i]![3] * 8)));
  assert.deepEqual([...(ints!.host as Int32Array)], order.flatMap((i) => [shapes[i]![0], shapes[i]![1], shapes[i]![2], i]));
  const classLaunches = dev.launches.filter((l) => /getrf_v(small|reg)_/.test(l.entry));
  assert.deepEqual(classLaunches.map((l) => l.entry), ['getrf_vreg_d_48x48_pa_w4_nb4_b5', 'getrf_vsmall_d_c8_w4']);
  const firsts = [0, 1];
  classLaunches.forEach((l, c) => {
    assert.deepEqual(l.args, [
      { type: 'ptr', value: pointers!.array.ptr + BigInt(firsts[c]! * 8) },
      { type: 'ptr', value: ints!.array.ptr + BigInt(firsts[c]! * GETRF_VBATCH_INTS * 4) },
      { type: 'ptr', value: ipiv.ptr }, { type: 'i32', value: 7 }, { type: 'ptr', value: info.ptr }, { type: 'i32', value: c === 0 ? 1 : 4 },
    ]);
  });
  // The 600 x 2 member: the per-size path (beyond the classes).
  assert.ok(dev.launches.length > classLaunches.length, 'the large member launched per size');
  assert.ok(dev.launches.every((l) => !/getrf_v/.test(l.entry) || classLaunches.includes(l)));
});

/** A variable batch of square members of `sizes` on a launch-counting planning device. */
function workload(dev: LaunchCounter, dtype: DType, sizes: readonly number[]): Record<string, unknown> {
  const elements = sizes.reduce((s, n) => s + n * n, 0);
  return vbatchedRequest('getrf', sizes, [dev.alloc(dtype, elements)], dev.alloc('int32', sizes.length), dev.alloc('int32', sizes.length * sizes.reduce((x, n) => Math.max(x, n), 1)));
}

test('getrf: the router takes the vbatched route for several shapes of few members each (workload b; workload a, 3,125 a size, per size); forced, workload a one launch per class, b also a panel and an update launch per panel of classes 256 and 512', () => {
  for (const dtype of ['float64', 'float32'] as DType[]) for (const w of ['a', 'b'] as const) {
    const { count, max } = VBATCHED_WORKLOADS[w];
    const sizes = logUniformSizes(count, max, w === 'a' ? 1 : 2);
    const dev = new LaunchCounter(H100);
    const request = workload(dev, dtype, sizes);
    assert.equal(choose('getrf', request, dev).name, w === 'a' ? 'getrf' : 'vbatched');
    runRouted('getrf', dev, request, 'vbatched');
    const classes = new Set(sizes.filter((n) => n <= 128).map((n) => sizeClass(n))).size;
    const plan = planVbatchedGetrf({ dtype, shapes: sizes.map((n) => ({ rows: n, cols: n })), sharedLimit: SHARED }, tuning);
    const panels = plan.launches.flatMap((l) => (l.params.variant === 'vpanel'
      ? vbatchedGetrfPanelSteps(l.params.params, Array.from(l.members, (i) => ({ rows: sizes[i]!, cols: sizes[i]! }))).map((st) => (st.update === null ? 1 : 2)) : []));
    assert.equal(dev.launches, classes + panels.reduce((x, y) => x + y, 0), `${dtype} workload ${w}`);
    if (w === 'a') assert.equal(dev.launches, classes, `${dtype} workload a: one launch per class`);
    else assert.ok(dev.launches <= 7 + 2 * (256 + 512) / (dtype === 'float64' ? 16 : 32), `${dtype} workload b: ${dev.launches} launches`);
  }
  const one = new LaunchCounter(H100);
  assert.equal(choose('getrf', workload(one, 'float64', [8, 8, 8]), one).name, 'getrf');
});

test('getrf class kernels compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 900_000 }, async () => {
  // Default: one of each design and precision; MYRIAD_FULL_COMPILE=1: every class of both precisions.
  const sources = new Map<string, KernelSource>();
  for (const dtype of ['float64', 'float32'] as DType[]) for (const bound of [8, 16, 24, 32, 48, 64, 128, 256]) {
    const c = classParams(dtype, bound);
    for (const s of c.variant === 'vpanel' ? [vbatchedGetrfSource(c), getrfUpdateVbatchedSource(c.params)] : [vbatchedGetrfSource(c)]) sources.set(s.entry, s);
  }
  const picks = new Set(['getrf_vsmall_d_c32_w4', 'getrf_vsmall_s_c8_w4', 'getrf_vreg_d_64x64_pa_w4_nb4_b4', 'getrf_vreg_s_128x128_pa_w16_nb4', 'getrf_vpanel_d_ib16_pa', 'getrf_vupdate_s_ib32_pa']);
  const results = await compileForSm90(compileSet([...sources.values()], (e) => picks.has(e)), 2);
  // Known spills (ptxas, sm_90): float64 class 128 (the table's 16 warps, 4-column panels, 128
  // registers) 4 bytes, the member's run-time bounds beside the uniform kernel's full register file;
  // the blocked design's panel kernel 12 bytes in both precisions (ptxas keeps it at 64 registers;
  // the uniform panel kernel spills 24 bytes in float64, none in float32).
  const allowed = (entry: string): number => (entry === 'getrf_vreg_d_128x128_pa_w16_nb4' ? 4 : entry.startsWith('getrf_vpanel_') ? 12 : 0);
  assert.deepEqual(compileFailures(results, (r) => (r.spillStores > allowed(r.log.match(/entry function '(\w+)'/)?.[1] ?? '') ? `${r.spillStores} bytes of spill stores` : undefined)), []);
});
