/**
 * The variable-size batched LU by size class (getrf/plan-vbatched.ts, launch-vbatched.ts) without a
 * GPU: the classes of rectangular members (size max(m, n), empty members in class 8, classes above
 * the register design's limit on the per-size path), each class's design and launch shape, the two
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
  GETRF_VBATCH_INTS, getrfClassMax, getrfClassParams, getrfMemberSize, getrfVbatchedCuda, planVbatchedGetrf, vbatchedGetrfLaunch, vbatchedGetrfSource,
} from '../../src/cuda/kernels/getrf/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { choose, runRouted } from '../../src/cuda/router.js';
import { PlanningDevice } from '../../src/cuda/runtime/planning-device.js';
import type { DeviceArray, HostArray, Kernel, KernelArg, KernelSource, LaunchConfig } from '../../src/cuda/runtime/types.js';
import { LaunchCounter, logUniformSizes, VBATCHED_WORKLOADS, vbatchedRequest } from '../../src/bench/vbatched.js';
import { H100 } from '../helpers/devices.js';
import { compileFailures, compileForSm90, compileSet, NVCC_SKIP } from '../helpers/nvcc.js';

const tuning = tuningFor('sm_90', 'getrf');

test('getrf classes: size max(m, n) (0 where m or n is 0), largest class first, members beyond the register limit per size', () => {
  assert.equal(getrfMemberSize(0, 600), 0);
  assert.equal(getrfMemberSize(5, 0), 0);
  assert.equal(getrfMemberSize(3, 40), 40);
  assert.equal(getrfClassMax('float64', tuning), 128);
  const shapes = [[3, 3], [0, 600], [40, 10], [129, 2], [128, 128], [600, 600], [8, 3], [5, 0], [2, 33], [1, 1]].map(([rows, cols]) => ({ rows: rows!, cols: cols! }));
  const plan = planVbatchedGetrf({ dtype: 'float64', shapes }, tuning);
  assert.deepEqual(plan.launches.map((l) => [l.bound, [...l.members], l.params.variant]), [
    [128, [4], 'vregister'], [48, [2, 8], 'vregister'], [8, [6, 0, 9, 1, 7], 'vsmall'],
  ]);
  assert.deepEqual(plan.large, [3, 5]);
  // A table whose register design stops at 64: classes up to 64, the rest per size.
  const low = { ...tuning, registerMax: { float64: 64, float32: 100 } };
  assert.equal(getrfClassMax('float64', low), 64);
  assert.equal(getrfClassMax('float32', low), 64);
  assert.deepEqual(planVbatchedGetrf({ dtype: 'float64', shapes }, low).large, [3, 4, 5]);
  assert.throws(() => getrfClassParams('float64', 128, low), /per-size path/);
});

test('getrf class designs and launch shapes: the warp design to 32, the table\'s register shape above (one block an SM where it would cap at 64 registers)', () => {
  for (const dtype of ['float64', 'float32'] as DType[]) {
    for (const bound of [8, 16, 24, 32]) {
      const c = getrfClassParams(dtype, bound, tuning);
      assert.equal(c.variant, 'vsmall');
      assert.deepEqual(c.params, { dtype, rows: bound, cols: bound, kind: 'pointer', warps: 4 });
      // Members a block: 4 warps of 32 / nextPow2(bound) members each.
      const perBlock = 4 * Math.floor(32 / 2 ** Math.ceil(Math.log2(bound)));
      assert.deepEqual(vbatchedGetrfLaunch(c, 1000), { grid: [Math.ceil(1000 / perBlock), 1, 1], block: [128, 1, 1] });
    }
    for (const bound of [48, 64, 128]) {
      const c = getrfClassParams(dtype, bound, tuning);
      if (c.variant !== 'vregister') throw new Error(`class ${bound}: ${c.variant}`);
      const shape = bound <= 64 ? { warps: 4, nb: 8 } : { warps: 16, nb: 4 };
      assert.equal(c.params.warps, shape.warps);
      assert.equal(c.params.nb, shape.nb);
      assert.equal(c.params.minBlocks, bound <= 64 ? (dtype === 'float64' ? 4 : 6) : 1, `${dtype} class ${bound}`);
      assert.deepEqual(vbatchedGetrfLaunch(c, 77), { grid: [77, 1, 1], block: [shape.warps * 32, 1, 1] });
    }
  }
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
    return { ...k, launch: (config, args) => { this.launches.push({ entry: src.entry, config, args }); } };
  }
}

test('getrf tables and launch arguments: pointers and (m, n, ld, batch index) in launch order, each class from its first member', () => {
  const dev = new Recorder(H100);
  const data = dev.alloc('float64', 10_000);
  const shapes = [[5, 7, 6, 10], [40, 33, 41, 200], [0, 3, 1, 3000], [8, 8, 9, 3100], [130, 2, 130, 4000], [7, 5, 8, 9000]] as const;
  const a = variable(shapes.map(([rows, cols, ld, offset]) => ({ data, rows, cols, ld, offset })));
  const ipiv = dev.alloc('int32', shapes.length * 7), info = dev.alloc('int32', shapes.length);
  getrfVbatchedCuda(dev, { a, ipiv, pivotStride: 7, info });
  // Launch order: class 48 (member 1), class 8 (members 3, 0, 5, 2: by size, ties in batch order); then member 4 per size.
  const order = [1, 3, 0, 5, 2];
  const [pointers, ints] = dev.uploads;
  assert.deepEqual([...(pointers!.host as BigInt64Array)], order.map((i) => data.ptr + BigInt(shapes[i]![3] * 8)));
  assert.deepEqual([...(ints!.host as Int32Array)], order.flatMap((i) => [shapes[i]![0], shapes[i]![1], shapes[i]![2], i]));
  const classLaunches = dev.launches.filter((l) => /getrf_v(small|reg)_/.test(l.entry));
  assert.deepEqual(classLaunches.map((l) => l.entry), ['getrf_vreg_d_48x48_pa_w4_nb8_b4', 'getrf_vsmall_d_c8_w4']);
  const firsts = [0, 1];
  classLaunches.forEach((l, c) => {
    assert.deepEqual(l.args, [
      { type: 'ptr', value: pointers!.array.ptr + BigInt(firsts[c]! * 8) },
      { type: 'ptr', value: ints!.array.ptr + BigInt(firsts[c]! * GETRF_VBATCH_INTS * 4) },
      { type: 'ptr', value: ipiv.ptr }, { type: 'i32', value: 7 }, { type: 'ptr', value: info.ptr }, { type: 'i32', value: c === 0 ? 1 : 4 },
    ]);
  });
  // The 130 x 2 member: the per-size path (its own kernel, beyond the classes).
  assert.ok(dev.launches.length > classLaunches.length, 'the large member launched per size');
  assert.ok(dev.launches.every((l) => !/getrf_v/.test(l.entry) || classLaunches.includes(l)));
});

/** A variable batch of square members of `sizes` on a launch-counting planning device. */
function workload(dev: LaunchCounter, dtype: DType, sizes: readonly number[]): Record<string, unknown> {
  const elements = sizes.reduce((s, n) => s + n * n, 0);
  return vbatchedRequest('getrf', sizes, [dev.alloc(dtype, elements)], dev.alloc('int32', sizes.length), dev.alloc('int32', sizes.length * sizes.reduce((x, n) => Math.max(x, n), 1)));
}

test('getrf: the router takes the vbatched route for several shapes; workload a one launch per class, b per class to 128 and per size above', () => {
  for (const dtype of ['float64', 'float32'] as DType[]) for (const w of ['a', 'b'] as const) {
    const { count, max } = VBATCHED_WORKLOADS[w];
    const sizes = logUniformSizes(count, max, w === 'a' ? 1 : 2);
    const dev = new LaunchCounter(H100);
    const request = workload(dev, dtype, sizes);
    assert.equal(choose('getrf', request, dev).name, 'vbatched');
    runRouted('getrf', dev, request);
    const classes = new Set(sizes.filter((n) => n <= 128).map((n) => sizeClass(n))).size;
    if (w === 'a') assert.equal(dev.launches, classes, `${dtype} workload a: one launch per class`);
    else {
      const loop = new LaunchCounter(H100);
      runRouted('getrf', loop, workload(loop, dtype, sizes.filter((n) => n > 128)), 'getrf');
      assert.equal(dev.launches, classes + loop.launches, `${dtype} workload b: the classes, then the larger members per size`);
    }
  }
  const one = new LaunchCounter(H100);
  assert.equal(choose('getrf', workload(one, 'float64', [8, 8, 8]), one).name, 'getrf');
});

test('getrf class kernels compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 900_000 }, async () => {
  // Default: one of each design and precision; MYRIAD_FULL_COMPILE=1: every class of both precisions.
  const sources = new Map<string, KernelSource>();
  for (const dtype of ['float64', 'float32'] as DType[]) for (const bound of [8, 16, 24, 32, 48, 64, 128]) {
    const s = vbatchedGetrfSource(getrfClassParams(dtype, bound, tuning));
    sources.set(s.entry, s);
  }
  const picks = new Set(['getrf_vsmall_d_c32_w4', 'getrf_vsmall_s_c8_w4', 'getrf_vreg_d_64x64_pa_w4_nb8_b4', 'getrf_vreg_s_128x128_pa_w16_nb4']);
  const results = await compileForSm90(compileSet([...sources.values()], (e) => picks.has(e)), 2);
  // float64 class 128 (the table's 16 warps, 4-column panels, 128 registers) spills 4 bytes: the
  // member's run-time bounds beside the uniform kernel's full register file.
  const allowed = (entry: string): number => (entry === 'getrf_vreg_d_128x128_pa_w16_nb4' ? 4 : 0);
  assert.deepEqual(compileFailures(results, (r) => (r.spillStores > allowed(r.log.match(/entry function '(\w+)'/)?.[1] ?? '') ? `${r.spillStores} bytes of spill stores` : undefined)), []);
});
