/**
 * `myriad bench gemm|potrf|trsm|posv|getrf|gesv|syrk|trtri --vbatched a|b [--dtype D] [--ways W,...]` (CUDA): one
 * variable-size batch, square members of log-uniform sizes (a: 200,000 in 1..64; b: 20,000 in
 * 1..512; seeded, so every run times the same batch), on device data filled on the device. The ways
 * (`--ways`, a comma list; all by default), each timed on the same data:
 * - vbatched: the class kernels (route 'vbatched') through the router, each call building its tables.
 * - per-size: the route forced to the family's (one launch, or one plan, per distinct shape).
 * - vendor: the vendor's loop (bench/vbatched-vendor.ts, vbatched-vendor-solve.ts): one cuBLAS or
 *   cuSOLVER batched call (or the op's few: posv potrfBatched and two trsmBatched, gesv getrfBatched
 *   and getrsBatched) per distinct shape, over address arrays built before the timing.
 * - grouped: cuBLAS's grouped GEMM (gemm only, where the library has it): one call.
 * - device: the device form of the ops that have one (`variableDevice`, route 'vdevice',
 *   bench/vbatched-device.ts): the members' sizes, leading dimensions and addresses uploaded once
 *   before the timing, as the vendor's address arrays are, and each timed call the whole API call
 *   (validation, the classification kernel, the class kernels, the tables' allocation and wait).
 * - uniform: the uniform reference (bench/vbatched-uniform.ts): a uniform batch of order
 *   s = round(E[n^3] / E[n^2]) and count c = round(N E[n^2] / s^2), so of the variable batch's total
 *   flops and bytes up to rounding, timed on the route the uniform API takes; the variable batch's
 *   rate over it (uniform ms / variable ms x variable flops / uniform flops) for the class route and
 *   the device form.
 * CUDA events after a warm-up, median of 5 repeats (3 for calls of 50 ms or more); the operands a
 * call overwrites (potrf's and getrf's A, trsm's B, posv's and gesv's both) reset from pristine
 * copies outside the timed region (gemm's C += A B needs none).
 *
 * Launches per call are counted by running the same launcher on a planning device (nothing runs
 * there; its kernels are then compiled at once on the compile workers before the timing), in two
 * parts: class launches, each serving a whole size class or the whole batch (class kernels, the
 * classification, copies, interchanges), and blocked-driver launches, those the launchers' plans run
 * in several per class (a panel and an update per panel, a leaf or an update per recursion step)
 * and the per-size path of members beyond the largest class (common/driver-section.ts).
 */
import { variable, type Batch, type VariableBatch } from '../core/batch.js';
import type { DType } from '../core/dtype.js';
import { MyriadError } from '../core/errors.js';
import type { GemmRequest, GesvRequest, GetrfRequest, PosvRequest, PotrfRequest, TrsmRequest } from '../core/ops.js';
import { choose, DEVICE_VARIABLE_ROUTES, runRouted } from '../cuda/router.js';
import type { DeviceVariableRequest } from '../core/device-batch.js';
import type { DeviceArray, GpuDevice } from '../cuda/runtime/types.js';
import { fillUniform } from '../cuda/tune/tsm2-bench.js';
import { timeMs } from '../cuda/tune/measure.js';
import { LaunchCounter } from './launch-counter.js';
import { progress, progressDone } from './progress.js';
import { vendorGemm, vendorPotrf, type VendorRun } from './vbatched-vendor.js';
import { vendorGesv, vendorGetrf, vendorPosv, vendorTrsm } from './vbatched-vendor-solve.js';
import { deviceFormCall } from './vbatched-device.js';
import { batchCost, rateVsUniform, referenceCost, uniformBatch, uniformReference } from './vbatched-uniform.js';
import { parseVbatchedWays, type VbatchedRow, type VbatchedWay } from './vbatched-table.js';
import type { Context } from '../api/context.js';

export { LaunchCounter } from './launch-counter.js';
export { parseVbatchedWays, VBATCHED_COLUMNS, VBATCHED_WAYS, type VbatchedRow, type VbatchedWay } from './vbatched-table.js';

export type VbatchedWorkload = 'a' | 'b';
export const VBATCHED_WORKLOADS: Readonly<Record<VbatchedWorkload, { count: number; max: number }>> = {
  a: { count: 200_000, max: 64 },
  b: { count: 20_000, max: 512 },
};
export const VBATCHED_OPS = ['gemm', 'potrf', 'trsm', 'posv', 'getrf', 'gesv', 'syrk', 'trtri'] as const;
export type VbatchedOp = (typeof VBATCHED_OPS)[number];
/** The ops whose device form (variableDevice, route 'vdevice') the bench times: those DEVICE_VARIABLE_ROUTES runs. */
export type VbatchedDeviceOp = Extract<VbatchedOp, keyof typeof DEVICE_VARIABLE_ROUTES>;
export const hasDeviceForm = (op: VbatchedOp): op is VbatchedDeviceOp => Object.hasOwn(DEVICE_VARIABLE_ROUTES, op);
/** Device arrays of members per op (gemm A, B, C; potrf, getrf and trtri A; trsm, posv and gesv A, B; syrk A, C), the last the one each call writes. */
export const VBATCHED_OPERANDS: Readonly<Record<VbatchedOp, number>> = { gemm: 3, potrf: 1, trsm: 2, posv: 2, getrf: 1, gesv: 2, syrk: 2, trtri: 1 };
/** The operands (indices into the request's data) each op overwrites. */
const VBATCHED_OVERWRITTEN: Readonly<Record<VbatchedOp, readonly number[]>> = { gemm: [], potrf: [0], trsm: [1], posv: [0, 1], getrf: [0], gesv: [0, 1], syrk: [], trtri: [0] };
/** Whether `op` takes pivots (max(sizes) a member). */
const pivoted = (op: VbatchedOp): boolean => op === 'getrf' || op === 'gesv';

/** The workload named by `--vbatched` (an unknown one names the option). */
export function parseVbatchedWorkload(value: string): VbatchedWorkload {
  if (value === 'a' || value === 'b') return value;
  throw new MyriadError('ENUM', `--vbatched takes a (200,000 matrices, sizes log-uniform in 1-64) or b (20,000, 1-512), got '${value}'`, '--vbatched');
}

/** The op a --vbatched benchmark runs (the families with class kernels). */
export function parseVbatchedOp(op: string): VbatchedOp {
  const found = VBATCHED_OPS.find((o) => o === op);
  if (found === undefined) throw new MyriadError('INVALID_ARGUMENT', `--vbatched runs ${VBATCHED_OPS.join(' or ')}, not '${op}'`, 'op');
  return found;
}

/** Sizes log-uniform in 1..max: floor(exp(u ln(max + 1))), u uniform in [0, 1) from a fixed-seed generator. */
export function logUniformSizes(count: number, max: number, seed = 1): number[] {
  let s = seed >>> 0 || 1;
  const next = (): number => {   // xorshift32
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    return s / 2 ** 32;
  };
  return Array.from({ length: count }, () => Math.min(max, Math.max(1, Math.floor(Math.exp(next() * Math.log(max + 1))))));
}

/** The request of `op` over square members of `sizes` in `data` (one array, members packed), and info (getrf, gesv: ipiv, max(sizes) a member). */
export function vbatchedRequest(op: VbatchedOp, sizes: readonly number[], data: readonly DeviceArray[], info: DeviceArray, ipiv?: DeviceArray): Record<string, unknown> {
  const batch = (d: DeviceArray): VariableBatch<DeviceArray> => {
    let at = 0;
    return variable(sizes.map((n) => { const m = { data: d, rows: n, offset: at }; at += n * n; return m; }), {}, 'a');
  };
  return opRequest(op, batch, data, sizes.reduce((x, n) => Math.max(x, n), 0), info, ipiv);
}

/** The request of `op` over the batches `batch` makes of `data`, pivots `pivotStride` a member. */
export function opRequest(
  op: VbatchedOp, batch: (d: DeviceArray) => Batch<DeviceArray>, data: readonly DeviceArray[], pivotStride: number, info: DeviceArray, ipiv?: DeviceArray,
): Record<string, unknown> {
  switch (op) {
    case 'gemm': return { transA: 'N', transB: 'N', alpha: 1, beta: 1, a: batch(data[0]!), b: batch(data[1]!), c: batch(data[2]!) };
    case 'potrf': return { uplo: 'lower', a: batch(data[0]!), info };
    // B n x n per member (n right-hand sides); A's lower triangle with n added to its diagonal.
    case 'trsm': return { side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', alpha: 1, a: batch(data[0]!), b: batch(data[1]!) };
    case 'posv': return { uplo: 'lower', a: batch(data[0]!), b: batch(data[1]!), info };
    case 'getrf': return { a: batch(data[0]!), ipiv, pivotStride, info };
    // B n x n per member, as posv's.
    case 'gesv': return { a: batch(data[0]!), ipiv, pivotStride, b: batch(data[1]!), info };
    // C += A A^T on the lower triangle, A n x n (k = n).
    case 'syrk': return { uplo: 'lower', trans: 'N', alpha: 1, beta: 1, a: batch(data[0]!), c: batch(data[1]!) };
    // The lower triangle of A + n I (non-singular, well conditioned), inverted in place.
    case 'trtri': return { uplo: 'lower', diag: 'nonunit', a: batch(data[0]!), info };
  }
}

/** Timed calls per row after the warm-up; rows whose calls take SLOW_MS or more take SLOW_REPEATS (their spread is small beside them). */
const REPEATS = 5;
const SLOW_MS = 50;
const SLOW_REPEATS = 3;
const repeatsFor = (warmMs: number): number => (warmMs >= SLOW_MS ? SLOW_REPEATS : REPEATS);

/** A batch's device operands: the members' arrays, info, pivots (getrf, gesv), and the untimed reset of what a call overwrites. */
interface Operands {
  readonly data: readonly DeviceArray[];
  readonly info: DeviceArray;
  readonly ipiv: DeviceArray | undefined;
  readonly reset: (() => void) | undefined;
}

/**
 * The operands of `op` over members of `sizes` packed one after another (`elements` in all),
 * `pivotStride` pivots a member, every array made kept in `arrays` (the caller frees them).
 */
function makeOperands(dev: GpuDevice, op: VbatchedOp, dtype: DType, sizes: readonly number[], elements: number, pivotStride: number, arrays: DeviceArray[]): Operands {
  const keep = (a: DeviceArray): DeviceArray => { arrays.push(a); return a; };
  const data = Array.from({ length: VBATCHED_OPERANDS[op] }, () => keep(dev.alloc(dtype, elements)));
  const info = keep(dev.alloc('int32', sizes.length));
  data.forEach((d, i) => fillUniform(dev, d, 11 + i));
  // potrf, posv: SPD members, A + n I (uniform entries in [0, 1), the lower triangle read); trsm, trtri:
  // that triangle; getrf, gesv: A + n I (partial pivoting on it).
  if (op !== 'gemm' && op !== 'syrk') addDiagonal(dev, data[0]!, sizes);
  // The operands a call overwrites with what the next call cannot take as it was (a factor; a
  // solution, which would shrink call after call) are reset from pristine copies, untimed; gemm's
  // C += A B and syrk's C += A A^T change values but not the work, so they run without a reset (and without a copy).
  const overwritten = VBATCHED_OVERWRITTEN[op].map((i) => data[i]!);
  const pristine = overwritten.map((d) => { const p = keep(dev.alloc(dtype, elements)); dev.copy(d, 0, p, 0, elements); return p; });
  const reset = overwritten.length === 0 ? undefined : (): void => overwritten.forEach((d, i) => dev.copy(pristine[i]!, 0, d, 0, elements));
  const ipiv = pivoted(op) ? keep(dev.alloc('int32', sizes.length * Math.max(1, pivotStride))) : undefined;
  return { data, info, ipiv, reset };
}

/** Launches of `run` counted on a planning device, whose recorded kernels are then compiled at once on the compile workers. */
function countLaunches(dev: GpuDevice, run: (counter: LaunchCounter) => void): LaunchCounter {
  const counter = new LaunchCounter(dev.info);
  run(counter);
  dev.prefetch?.(counter.sources);
  return counter;
}

/** The vendor's loop over the request of `op` (undefined where the library is not here). */
function vendorLoop(dev: GpuDevice, op: VbatchedOp, request: Record<string, unknown>): VendorRun | undefined {
  const r = request as unknown;
  switch (op) {
    case 'gemm': return vendorGemm(dev, r as GemmRequest<DeviceArray>, false);
    case 'potrf': return vendorPotrf(dev, r as PotrfRequest<DeviceArray, DeviceArray>);
    case 'trsm': return vendorTrsm(dev, r as TrsmRequest<DeviceArray>);
    case 'posv': return vendorPosv(dev, r as PosvRequest<DeviceArray, DeviceArray>);
    case 'getrf': return vendorGetrf(dev, r as GetrfRequest<DeviceArray, DeviceArray>);
    case 'gesv': return vendorGesv(dev, r as GesvRequest<DeviceArray, DeviceArray>);
    // cuBLAS has no batched syrk, and neither cuBLAS nor cuSOLVER a batched trtri.
    case 'syrk': case 'trtri': return undefined;
  }
}

/**
 * `ctx`: the context over `dev` whose API the device form's column times (absent: no device column);
 * `ways`: the ways to time (all by default).
 */
export function benchVbatched(
  dev: GpuDevice, op: VbatchedOp, workload: VbatchedWorkload, dtypes: readonly DType[], ctx?: Context, ways: ReadonlySet<VbatchedWay> = parseVbatchedWays(undefined),
): VbatchedRow[] {
  const { count, max } = VBATCHED_WORKLOADS[workload];
  return benchVbatchedSizes(dev, op, workload, logUniformSizes(count, max, workload === 'a' ? 1 : 2), dtypes, ctx, ways);
}

/** benchVbatched over members of `sizes` (the row's workload named `workload`): a workload of the caller's (tests). */
export function benchVbatchedSizes(
  dev: GpuDevice, op: VbatchedOp, workload: string, sizes: readonly number[], dtypes: readonly DType[], ctx?: Context, ways: ReadonlySet<VbatchedWay> = parseVbatchedWays(undefined),
): VbatchedRow[] {
  const count = sizes.length, max = sizes.reduce((x, n) => Math.max(x, n), 0);
  const elements = sizes.reduce((s, n) => s + n * n, 0);
  const rows: VbatchedRow[] = [];
  for (const dtype of dtypes) {
    const arrays: DeviceArray[] = [];
    const vendors: VendorRun[] = [];
    const step = (way: string): void => progress(`vbatched ${op} ${dtype} workload ${workload}: ${way} ...`);
    try {
      step('data');
      const operands = makeOperands(dev, op, dtype, sizes, elements, max, arrays);
      const request = vbatchedRequest(op, sizes, operands.data, operands.info, operands.ipiv);
      const time = (run: () => void): number => timeMs(dev, run, repeatsFor, operands.reset);
      const row: VbatchedRow = { op, dtype, workload, count, shapes: new Set(sizes).size };
      if (ways.has('vbatched')) {
        step('vbatched');
        const c = countLaunches(dev, (d) => runRouted(op, d, request, 'vbatched'));
        Object.assign(row, { launches: c.launches, classLaunches: c.classLaunches, driverLaunches: c.driverLaunches });
        row.ms = time(() => { runRouted(op, dev, request, 'vbatched'); });
      }
      if (ways.has('per-size')) {
        step('per-size');
        row.loopLaunches = countLaunches(dev, (d) => runRouted(op, d, request, op)).launches;
        row.loopMs = time(() => { runRouted(op, dev, request, op); });
        if (row.ms !== undefined) row.speedup = row.loopMs / row.ms;
      }
      const vendor = ways.has('vendor') ? vendorLoop(dev, op, request) : undefined;
      if (vendor !== undefined) {
        step('vendor');
        vendors.push(vendor);
        row.vendorCalls = vendor.calls;
        row.vendorMs = time(() => vendor.run());
        if (row.ms !== undefined) row.vendorSpeedup = row.vendorMs / row.ms;
      }
      const grouped = ways.has('grouped') && op === 'gemm' ? vendorGemm(dev, request as unknown as GemmRequest<DeviceArray>, true) : undefined;
      if (grouped !== undefined) {
        step('grouped');
        vendors.push(grouped);
        row.groupedMs = time(() => grouped.run());
        if (row.ms !== undefined) row.groupedSpeedup = row.groupedMs / row.ms;
      }
      // The device form: its arrays uploaded here, untimed; the timed call is the API call.
      const device = !ways.has('device') || ctx === undefined || !hasDeviceForm(op) ? undefined : deviceFormCall(ctx, dev, op, sizes, operands.data, operands.info, dtype);
      if (device !== undefined) {
        step('device');
        arrays.push(...device.arrays);
        const run = DEVICE_VARIABLE_ROUTES[op as VbatchedDeviceOp].run as (d: GpuDevice, r: DeviceVariableRequest) => void;
        const c = countLaunches(dev, (d) => run(d, device.request));
        Object.assign(row, { deviceLaunches: c.launches, deviceClassLaunches: c.classLaunches, deviceDriverLaunches: c.driverLaunches });
        row.deviceMs = time(device.run);
        if (row.vendorMs !== undefined) row.deviceVendorSpeedup = row.vendorMs / row.deviceMs;
      }
      if (ways.has('uniform')) {
        step('uniform');
        uniformColumns(dev, op, dtype, sizes, row);
      }
      rows.push(row);
    } finally {
      dev.synchronize();
      for (const v of vendors) v.dispose();
      for (const a of arrays) a.dispose();
    }
  }
  progressDone();
  return rows;
}

/**
 * The uniform reference's columns of `row` (bench/vbatched-uniform.ts): the uniform batch of the
 * variable one's flops and bytes on its own arrays, timed on the route the uniform API takes, and
 * the rates of the ways `row` has timed as fractions of its rate. Nothing where that route is not
 * a GPU route.
 */
function uniformColumns(dev: GpuDevice, op: VbatchedOp, dtype: DType, sizes: readonly number[], row: VbatchedRow): void {
  const ref = uniformReference(sizes);
  const arrays: DeviceArray[] = [];
  try {
    const operands = makeOperands(dev, op, dtype, new Array<number>(ref.count).fill(ref.order), ref.count * ref.order * ref.order, ref.order, arrays);
    const request = opRequest(op, (d) => uniformBatch(ref, d), operands.data, ref.order, operands.info, operands.ipiv);
    let gpu = false;
    countLaunches(dev, (d) => { gpu = runRouted(op, d, request); });
    if (!gpu) return;
    row.uniformRoute = choose(op, request, dev).name;
    const uniformMs = timeMs(dev, () => { runRouted(op, dev, request); }, repeatsFor, operands.reset);
    const variableFlops = batchCost(op, dtype, sizes).flops, referenceFlops = referenceCost(op, dtype, ref).flops;
    Object.assign(row, { uniformOrder: ref.order, uniformCount: ref.count, uniformMs });
    if (row.ms !== undefined) row.uniformRate = rateVsUniform(row.ms, uniformMs, variableFlops, referenceFlops);
    if (row.deviceMs !== undefined) row.deviceUniformRate = rateVsUniform(row.deviceMs, uniformMs, variableFlops, referenceFlops);
  } finally {
    dev.synchronize();
    for (const a of arrays) a.dispose();
  }
}

/** Adds n to each member's diagonal (on the host: downloaded, changed, uploaded once, untimed). */
function addDiagonal(dev: GpuDevice, a: DeviceArray, sizes: readonly number[]): void {
  const host = dev.download(a) as Float64Array | Float32Array;
  let at = 0;
  for (const n of sizes) {
    for (let j = 0; j < n; j++) host[at + j * (n + 1)] = host[at + j * (n + 1)]! + n;
    at += n * n;
  }
  dev.upload(host, a);
}
