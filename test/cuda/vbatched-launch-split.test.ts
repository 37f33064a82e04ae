/**
 * The --vbatched bench's launch split without a GPU: on the launch-counting planning device, the
 * launches of a variable-size call inside the launchers' blocked-driver sections
 * (common/driver-section.ts) are those the plan runs in several per class and the per-size path of
 * members beyond the classes; the rest serve a whole class or the whole batch. Checked against each
 * family's plan, and the compositions (posv, gesv) against their parts run alone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DType } from '../../src/core/dtype.js';
import { LaunchCounter, logUniformSizes, vbatchedRequest, VBATCHED_OPERANDS, type VbatchedOp } from '../../src/bench/vbatched.js';
import { gemmVbatchedCuda, type VbatchedGemmPlan } from '../../src/cuda/kernels/gemm/index.js';
import { getrfVbatchedCuda, vbatchedGetrfPanelSteps, type VbatchedGetrfPlan } from '../../src/cuda/kernels/getrf/index.js';
import { potrfVbatchedCuda, type VbatchedPotrfPlan } from '../../src/cuda/kernels/potrf/index.js';
import { trsmVbatchedCuda } from '../../src/cuda/kernels/trsm/launch-vbatched.js';
import type { VbatchedTrsmPlan } from '../../src/cuda/kernels/trsm/plan-vbatched.js';
import { driverSection } from '../../src/cuda/kernels/common/driver-section.js';
import { DEVICE_VARIABLE_ROUTES, runRouted } from '../../src/cuda/router.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/types.js';
import type { DeviceVariableRequest } from '../../src/core/device-batch.js';
import { Context } from '../../src/api/context.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { deviceFormCall } from '../../src/bench/vbatched-device.js';
import { H100 } from '../helpers/devices.js';

/** Sizes over every class to 512 (getrf's blocked classes, trsm's recursions), and two beyond the classes. */
const SIZES = [...logUniformSizes(300, 512, 5), 600, 530, 600];
const CLASSED = SIZES.filter((n) => n <= 512);

/** The request of `op` over `sizes` on `dev` (its arrays made there). */
function requestOn(dev: GpuDevice, op: VbatchedOp, dtype: DType, sizes: readonly number[]): Record<string, unknown> {
  const elements = sizes.reduce((s, n) => s + n * n, 0);
  const data = Array.from({ length: VBATCHED_OPERANDS[op] }, () => dev.alloc(dtype, elements));
  const ipiv = op === 'getrf' || op === 'gesv' ? dev.alloc('int32', sizes.length * Math.max(...sizes)) : undefined;
  return vbatchedRequest(op, sizes, data, dev.alloc('int32', sizes.length), ipiv);
}

/** The launches of `run` on a fresh counter. */
function counted(run: (dev: LaunchCounter) => void): LaunchCounter {
  const dev = new LaunchCounter(H100);
  run(dev);
  return dev;
}

/** Launches of the per-size route on `sizes` alone (what the class launchers send beyond their classes). */
const perSize = (op: VbatchedOp, dtype: DType, sizes: readonly number[]): number =>
  counted((d) => runRouted(op, d, requestOn(d, op, dtype, sizes), op)).launches;

test('driverSection: launches inside a section (nested too) count as driver launches, the rest as class launches; a device without sections runs them plainly', () => {
  const dev = new LaunchCounter(H100);
  const k = dev.kernel({ name: 'k', entry: 'k', source: '' });
  const launch = (): void => k.launch({ grid: [1, 1, 1], block: [32, 1, 1] }, []);
  launch();
  driverSection(dev, () => { launch(); driverSection(dev, launch); launch(); });
  launch();
  assert.deepEqual([dev.launches, dev.classLaunches, dev.driverLaunches], [5, 2, 3]);
  // A section left by a throw still ends.
  assert.throws(() => driverSection(dev, () => { throw new Error('x'); }));
  launch();
  assert.equal(dev.classLaunches, 3);
  let ran = 0;
  driverSection({ ...dev, driverSection: undefined } as unknown as GpuDevice, () => { ran++; });
  assert.equal(ran, 1);
});

test('gemm and potrf: one class launch per class of the plan; the members beyond 512 the per-size path\'s launches, as drivers', () => {
  for (const dtype of ['float64', 'float32'] as DType[]) {
    let gemmPlan: VbatchedGemmPlan | undefined;
    const gemm = counted((d) => gemmVbatchedCuda(d, requestOn(d, 'gemm', dtype, SIZES) as never, { onPlan: (p) => { gemmPlan = p; } }));
    assert.equal(gemm.classLaunches, gemmPlan!.launches.length, `gemm ${dtype}`);
    assert.equal(gemm.driverLaunches, perSize('gemm', dtype, SIZES.filter((n) => n > 512)), `gemm ${dtype}`);
    assert.ok(gemm.driverLaunches > 0);
    let potrfPlan: VbatchedPotrfPlan | undefined;
    const potrf = counted((d) => potrfVbatchedCuda(d, requestOn(d, 'potrf', dtype, SIZES) as never, { onPlan: (p) => { potrfPlan = p; } }));
    assert.equal(potrf.classLaunches, potrfPlan!.launches.length, `potrf ${dtype}`);
    assert.equal(potrf.driverLaunches, perSize('potrf', dtype, SIZES.filter((n) => n > 512)), `potrf ${dtype}`);
    // Without members beyond the classes nothing is a driver's.
    assert.equal(counted((d) => runRouted('potrf', d, requestOn(d, 'potrf', dtype, CLASSED), 'vbatched')).driverLaunches, 0);
  }
});

test('getrf: a class launch per class of the warp and register designs; a panel and an update launch per panel of a blocked class, and the per-size path beyond 512, as drivers', () => {
  for (const dtype of ['float64', 'float32'] as DType[]) {
    // The plan's member arrays live in the call's host scratch: what the test needs is read inside onPlan.
    let classes = 0, blocked = 0, panelLaunches: number[] = [];
    const dev = counted((d) => getrfVbatchedCuda(d, requestOn(d, 'getrf', dtype, SIZES) as never, {
      onPlan: (plan: VbatchedGetrfPlan) => {
        const panels = plan.launches.filter((l) => l.params.variant === 'vpanel');
        classes = plan.launches.length;
        blocked = panels.length;
        panelLaunches = panels.flatMap((l) => l.params.variant === 'vpanel'
          ? vbatchedGetrfPanelSteps(l.params.params, Array.from(l.members, (i) => ({ rows: SIZES[i]!, cols: SIZES[i]! }))).map((st) => (st.update === null ? 1 : 2)) : []);
      },
    }));
    assert.ok(blocked > 0, `${dtype}: a blocked class`);
    assert.equal(dev.classLaunches, classes - blocked, dtype);
    assert.equal(dev.driverLaunches, panelLaunches.reduce((x, y) => x + y, 0) + perSize('getrf', dtype, SIZES.filter((n) => n > 512)), dtype);
  }
});

test('trsm: a class launch per class whose recursion is one leaf; the recursions of several steps (leaves and update GEMMs) and the per-size path as drivers', () => {
  for (const dtype of ['float64', 'float32'] as DType[]) {
    let plan: VbatchedTrsmPlan | undefined;
    const dev = counted((d) => trsmVbatchedCuda(d, requestOn(d, 'trsm', dtype, SIZES) as never, { onPlan: (p) => { plan = p; } }));
    const single = plan!.launches.filter((l) => l.steps.length === 1);
    assert.ok(single.length > 0 && single.length < plan!.launches.length, `${dtype}: classes of one leaf and of several steps`);
    assert.equal(dev.classLaunches, single.length, dtype);
    // Each class of several steps launches at least its leaves.
    const leaves = plan!.launches.filter((l) => l.steps.length > 1).reduce((s, l) => s + l.steps.filter((x) => x.kind === 'leaf').length, 0);
    assert.ok(dev.driverLaunches >= leaves + perSize('trsm', dtype, SIZES.filter((n) => n > 512)), `${dtype}: ${dev.driverLaunches} driver launches`);
  }
});

test('posv and gesv: the drivers are their parts\' drivers; their class launches the parts\' and the whole-batch copies and interchanges', () => {
  const dtype = 'float64';
  const part = (op: VbatchedOp, patch: Record<string, unknown> = {}, sizes = CLASSED): LaunchCounter =>
    counted((d) => runRouted(op, d, { ...requestOn(d, op, dtype, sizes), ...patch }, 'vbatched'));
  // posv: one fused launch per class up to 32; the larger members on potrf's and trsm's classes.
  const larger = CLASSED.filter((n) => n > 32);
  const fusedClasses = new Set(CLASSED.filter((n) => n <= 32).map((n) => Math.max(8, Math.ceil(n / 8) * 8))).size;
  assert.equal(fusedClasses, 4);
  const posv = part('posv');
  const potrf = part('potrf', {}, larger);
  const lower = part('trsm', {}, larger), lowerT = part('trsm', { transA: 'T' }, larger);
  assert.equal(posv.driverLaunches, potrf.driverLaunches + lower.driverLaunches + lowerT.driverLaunches);
  // The larger members' B kept aside and copied back: two whole-batch launches.
  assert.equal(posv.classLaunches, fusedClasses + potrf.classLaunches + lower.classLaunches + lowerT.classLaunches + 2);
  // gesv likewise: the fused classes, then getrf's and trsm's over the larger members.
  const gesv = part('gesv');
  const getrf = part('getrf', {}, larger);
  const unitL = part('trsm', { diag: 'unit' }, larger), upper = part('trsm', { uplo: 'upper' }, larger);
  assert.equal(gesv.driverLaunches, getrf.driverLaunches + unitL.driverLaunches + upper.driverLaunches);
  // The copies and one interchange launch (every member within 512).
  assert.equal(gesv.classLaunches, fusedClasses + getrf.classLaunches + unitL.classLaunches + upper.classLaunches + 3);
});

test('posv and gesv on the bench\'s workload b (20,000 members, orders log-uniform in 1-512): at most 16 launches outside the blocked drivers', () => {
  for (const dtype of ['float64', 'float32'] as DType[]) {
    const posv = counted((d) => runRouted('posv', d, requestOn(d, 'posv', dtype, logUniformSizes(20_000, 512)), 'vbatched'));
    // The fused classes 8-32, potrf's classes 48-512, the copies aside and back.
    assert.equal(posv.classLaunches, 4 + 5 + 2, `posv ${dtype}`);
    const gesv = counted((d) => runRouted('gesv', d, requestOn(d, 'gesv', dtype, logUniformSizes(20_000, 512)), 'vbatched'));
    const getrf = counted((d) => runRouted('getrf', d, requestOn(d, 'getrf', dtype, logUniformSizes(20_000, 512).filter((n) => n > 32)), 'vbatched'));
    // The fused classes, getrf's class launches, the copies and one interchange launch.
    assert.equal(gesv.classLaunches, 4 + getrf.classLaunches + 3, `gesv ${dtype}`);
    assert.ok(gesv.classLaunches <= 16, `gesv ${dtype}: ${gesv.classLaunches}`);
  }
});

test('the device form: getrf\'s blocked regions and trsm\'s recursions of several steps are drivers; gemm and potrf launch no driver', () => {
  const sizes = logUniformSizes(300, 512, 5);
  for (const op of ['gemm', 'potrf', 'getrf', 'trsm', 'posv', 'gesv'] as const) {
    const dev = new LaunchCounter(H100);
    const backend = new CudaBackend(dev, 'planning');
    const ctx = new Context('cuda', backend, backend, () => {});
    const elements = sizes.reduce((s, n) => s + n * n, 0);
    const data: DeviceArray[] = Array.from({ length: VBATCHED_OPERANDS[op] }, () => dev.alloc('float64', elements));
    const call = deviceFormCall(ctx, dev, op, sizes, data, dev.alloc('int32', sizes.length), 'float64');
    const c = counted((d) => (DEVICE_VARIABLE_ROUTES[op].run as (x: GpuDevice, r: DeviceVariableRequest) => void)(d, call.request));
    if (op === 'gemm' || op === 'potrf') assert.equal(c.driverLaunches, 0, op);
    else assert.ok(c.driverLaunches > 0 && c.classLaunches > 0, `${op}: ${c.classLaunches} + ${c.driverLaunches}`);
    assert.equal(c.classLaunches + c.driverLaunches, c.launches);
  }
});
