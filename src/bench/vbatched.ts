/**
 * `myriad bench gemm|potrf|trsm|posv|getrf|gesv --vbatched a|b [--dtype D]` (CUDA): one variable-size batch, square
 * members of log-uniform sizes (a: 200,000 in 1..64; b: 20,000 in 1..512; seeded, so every run
 * times the same batch), on device data filled on the device. Timed on the same data: the class
 * kernels (route 'vbatched') and the per-size path (route forced to the family's: one launch per
 * distinct shape), through the router, each call building its tables; then the vendor's way
 * (bench/vbatched-vendor.ts: one cuBLAS or cuSOLVER batched call per distinct shape, and cuBLAS's
 * grouped GEMM where it has it, over address arrays built before the timing; none for getrf and
 * gesv: cuBLAS's getrfBatched is no route of this project), and the device form of the ops that have
 * one (`variableDevice`, route 'vdevice', bench/vbatched-device.ts): the members' sizes, leading dimensions
 * and addresses uploaded once before the timing, as the vendor's address arrays are built before its
 * timing, and each timed call the whole API call (validation, the classification kernel, the class
 * kernels and the tables' allocation and wait). CUDA events after a
 * warm-up, median of 5 repeats (3 for calls of 50 ms or more); the operands a call overwrites
 * (potrf's A, trsm's B, posv's and gesv's both) reset from pristine copies outside the timed region (gemm's
 * C += A B needs none). Launches per call are counted by
 * running the same launcher on a planning device (nothing runs there), whose kernels are then
 * compiled at once on the compile workers before the timing.
 */
import { variable, type VariableBatch } from '../core/batch.js';
import type { DType } from '../core/dtype.js';
import { MyriadError } from '../core/errors.js';
import type { GemmRequest, PotrfRequest } from '../core/ops.js';
import { DEVICE_VARIABLE_ROUTES, runRouted } from '../cuda/router.js';
import type { DeviceVariableRequest } from '../core/device-batch.js';
import { PlanningDevice } from '../cuda/runtime/planning-device.js';
import type { DeviceArray, GpuDevice, Kernel, KernelSource } from '../cuda/runtime/types.js';
import { fillUniform } from '../cuda/tune/tsm2-bench.js';
import { timeMs } from '../cuda/tune/measure.js';
import { progress, progressDone } from './progress.js';
import type { Column } from './table.js';
import { vendorGemm, vendorPotrf, type VendorRun } from './vbatched-vendor.js';
import { deviceFormCall } from './vbatched-device.js';
import type { Context } from '../api/context.js';

export type VbatchedWorkload = 'a' | 'b';
export const VBATCHED_WORKLOADS: Readonly<Record<VbatchedWorkload, { count: number; max: number }>> = {
  a: { count: 200_000, max: 64 },
  b: { count: 20_000, max: 512 },
};
export const VBATCHED_OPS = ['gemm', 'potrf', 'trsm', 'posv', 'getrf', 'gesv'] as const;
export type VbatchedOp = (typeof VBATCHED_OPS)[number];
/** The ops whose device form (variableDevice, route 'vdevice') the bench times: those DEVICE_VARIABLE_ROUTES runs. */
export type VbatchedDeviceOp = Extract<VbatchedOp, keyof typeof DEVICE_VARIABLE_ROUTES>;
export const hasDeviceForm = (op: VbatchedOp): op is VbatchedDeviceOp => Object.hasOwn(DEVICE_VARIABLE_ROUTES, op);
/** Device arrays of members per op (gemm A, B, C; potrf and getrf A; trsm, posv and gesv A, B), the last the one each call writes. */
export const VBATCHED_OPERANDS: Readonly<Record<VbatchedOp, number>> = { gemm: 3, potrf: 1, trsm: 2, posv: 2, getrf: 1, gesv: 2 };
/** The operands (indices into the request's data) each op overwrites. */
const VBATCHED_OVERWRITTEN: Readonly<Record<VbatchedOp, readonly number[]>> = { gemm: [], potrf: [0], trsm: [1], posv: [0, 1], getrf: [0], gesv: [0, 1] };
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

/** A planning device that counts the launches of the calls run on it. */
export class LaunchCounter extends PlanningDevice {
  launches = 0;
  override kernel(src: KernelSource): Kernel {
    const k = super.kernel(src);
    return { ...k, launch: () => { this.launches++; } };
  }
}

/** The request of `op` over square members of `sizes` in `data` (one array, members packed), and info (getrf, gesv: ipiv, max(sizes) a member). */
export function vbatchedRequest(op: VbatchedOp, sizes: readonly number[], data: readonly DeviceArray[], info: DeviceArray, ipiv?: DeviceArray): Record<string, unknown> {
  const batch = (d: DeviceArray): VariableBatch<DeviceArray> => {
    let at = 0;
    return variable(sizes.map((n) => { const m = { data: d, rows: n, offset: at }; at += n * n; return m; }), {}, 'a');
  };
  switch (op) {
    case 'gemm': return { transA: 'N', transB: 'N', alpha: 1, beta: 1, a: batch(data[0]!), b: batch(data[1]!), c: batch(data[2]!) };
    case 'potrf': return { uplo: 'lower', a: batch(data[0]!), info };
    // B n x n per member (n right-hand sides); A's lower triangle with n added to its diagonal.
    case 'trsm': return { side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', alpha: 1, a: batch(data[0]!), b: batch(data[1]!) };
    case 'posv': return { uplo: 'lower', a: batch(data[0]!), b: batch(data[1]!), info };
    case 'getrf': return { a: batch(data[0]!), ipiv, pivotStride: sizes.reduce((x, n) => Math.max(x, n), 0), info };
    // B n x n per member, as posv's.
    case 'gesv': return { a: batch(data[0]!), ipiv, pivotStride: sizes.reduce((x, n) => Math.max(x, n), 0), b: batch(data[1]!), info };
  }
}

export interface VbatchedRow {
  op: string; dtype: DType; workload: string; count: number; shapes: number; launches: number; ms: number;
  loopLaunches: number; loopMs: number; speedup: number;
  /** The vendor's loop (one batched call per shape) and, for gemm where cuBLAS has it, its grouped call; undefined where absent. */
  vendorCalls?: number; vendorMs?: number; vendorSpeedup?: number; groupedMs?: number; groupedSpeedup?: number;
  /** The device form (variableDevice, route 'vdevice'): launches and ms of the whole API call, the vendor's loop ms over it; undefined where absent. */
  deviceLaunches?: number; deviceMs?: number; deviceVendorSpeedup?: number;
}

const optional = (v: number | undefined, f: (x: number) => string): string => (v === undefined ? '-' : f(v));

export const VBATCHED_COLUMNS: readonly Column<VbatchedRow>[] = [
  { header: 'op', value: (r) => r.op },
  { header: 'dtype', value: (r) => r.dtype },
  { header: 'workload', value: (r) => r.workload },
  { header: 'matrices', value: (r) => String(r.count) },
  { header: 'sizes', value: (r) => String(r.shapes) },
  { header: 'launches', value: (r) => String(r.launches) },
  { header: 'ms', value: (r) => r.ms.toFixed(3) },
  { header: 'per-size launches', value: (r) => String(r.loopLaunches) },
  { header: 'per-size ms', value: (r) => r.loopMs.toFixed(3) },
  { header: 'speed-up', value: (r) => `${r.speedup.toFixed(2)}x` },
  { header: 'vendor calls', value: (r) => optional(r.vendorCalls, String) },
  { header: 'vendor ms', value: (r) => optional(r.vendorMs, (x) => x.toFixed(3)) },
  { header: 'vs vendor', value: (r) => optional(r.vendorSpeedup, (x) => `${x.toFixed(2)}x`) },
  { header: 'grouped ms', value: (r) => optional(r.groupedMs, (x) => x.toFixed(3)) },
  { header: 'vs grouped', value: (r) => optional(r.groupedSpeedup, (x) => `${x.toFixed(2)}x`) },
  { header: 'device launches', value: (r) => optional(r.deviceLaunches, String) },
  { header: 'device ms', value: (r) => optional(r.deviceMs, (x) => x.toFixed(3)) },
  { header: 'device vs vendor loop', value: (r) => optional(r.deviceVendorSpeedup, (x) => `${x.toFixed(2)}x`) },
];

/** Timed calls per row after the warm-up; rows whose calls take SLOW_MS or more take SLOW_REPEATS (their spread is small beside them). */
const REPEATS = 5;
const SLOW_MS = 50;
const SLOW_REPEATS = 3;
const repeatsFor = (warmMs: number): number => (warmMs >= SLOW_MS ? SLOW_REPEATS : REPEATS);

/** `ctx`: the context over `dev` whose API the device form's column times (absent: no device column). */
export function benchVbatched(dev: GpuDevice, op: VbatchedOp, workload: VbatchedWorkload, dtypes: readonly DType[], ctx?: Context): VbatchedRow[] {
  const { count, max } = VBATCHED_WORKLOADS[workload];
  const sizes = logUniformSizes(count, max, workload === 'a' ? 1 : 2);
  const elements = sizes.reduce((s, n) => s + n * n, 0);
  const rows: VbatchedRow[] = [];
  for (const dtype of dtypes) {
    progress(`vbatched ${op} ${dtype} workload ${workload} ...`);
    const arrays: DeviceArray[] = [];
    const vendors: VendorRun[] = [];
    try {
      const operands = VBATCHED_OPERANDS[op];
      const data = Array.from({ length: operands }, () => { const a = dev.alloc(dtype, elements); arrays.push(a); return a; });
      const info = dev.alloc('int32', count);
      arrays.push(info);
      data.forEach((d, i) => fillUniform(dev, d, 11 + i));
      // potrf, posv: SPD members, A + n I (uniform entries in [0, 1), the lower triangle read); trsm: that triangle.
      if (op !== 'gemm') addDiagonal(dev, dtype, data[0]!, sizes);
      // The operands a call overwrites with what the next call cannot take as it was (a factor; a
      // solution, which would shrink call after call) are reset from pristine copies, untimed; gemm's
      // C += A B changes values but not the work, so it runs without a reset (and without a copy).
      const overwritten = VBATCHED_OVERWRITTEN[op].map((i) => data[i]!);
      const pristine = overwritten.map((d) => { const p = dev.alloc(dtype, elements); arrays.push(p); dev.copy(d, 0, p, 0, elements); return p; });
      const reset = overwritten.length === 0 ? undefined : (): void => overwritten.forEach((d, i) => dev.copy(pristine[i]!, 0, d, 0, elements));
      // getrf, gesv: A + n I (partial pivoting on it), pivots max(sizes) a member.
      const ipiv = pivoted(op) ? dev.alloc('int32', count * sizes.reduce((x, n) => Math.max(x, n), 1)) : undefined;
      if (ipiv !== undefined) arrays.push(ipiv);
      const request = vbatchedRequest(op, sizes, data, info, ipiv);
      // Launches counted on a planning device, whose recorded sources are then compiled at once on
      // the compile workers: the per-size path of workload b needs hundreds of kernels.
      const plan = (force: string): number => {
        const c = new LaunchCounter(dev.info);
        runRouted(op, c, request, force);
        dev.prefetch?.(c.sources);
        return c.launches;
      };
      const time = (run: () => void): number => timeMs(dev, run, repeatsFor, reset);
      const launches = plan('vbatched');
      const ms = time(() => { runRouted(op, dev, request, 'vbatched'); });
      const loopLaunches = plan(op);
      const loopMs = time(() => { runRouted(op, dev, request, op); });
      const row: VbatchedRow = { op, dtype, workload, count, shapes: new Set(sizes).size, launches, ms, loopLaunches, loopMs, speedup: loopMs / ms };
      const vendor = op === 'gemm' ? vendorGemm(dev, request as unknown as GemmRequest<DeviceArray>, false)
        : op === 'potrf' ? vendorPotrf(dev, request as unknown as PotrfRequest<DeviceArray, DeviceArray>) : undefined;
      if (vendor !== undefined) {
        vendors.push(vendor);
        row.vendorCalls = vendor.calls;
        row.vendorMs = time(() => vendor.run());
        row.vendorSpeedup = row.vendorMs / ms;
      }
      const grouped = op === 'gemm' ? vendorGemm(dev, request as unknown as GemmRequest<DeviceArray>, true) : undefined;
      if (grouped !== undefined) {
        vendors.push(grouped);
        row.groupedMs = time(() => grouped.run());
        row.groupedSpeedup = row.groupedMs / ms;
      }
      // The device form: its arrays uploaded here, untimed; the timed call is the API call.
      const device = ctx === undefined || !hasDeviceForm(op) ? undefined : deviceFormCall(ctx, dev, op, sizes, data, info, dtype);
      if (device !== undefined) {
        arrays.push(...device.arrays);
        const c = new LaunchCounter(dev.info);
        (DEVICE_VARIABLE_ROUTES[op as VbatchedDeviceOp].run as (d: GpuDevice, r: DeviceVariableRequest) => void)(c, device.request);
        dev.prefetch?.(c.sources);
        row.deviceLaunches = c.launches;
        row.deviceMs = time(device.run);
        if (row.vendorMs !== undefined) row.deviceVendorSpeedup = row.vendorMs / row.deviceMs;
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

/** Adds n to each member's diagonal (on the host: downloaded, changed, uploaded once, untimed). */
function addDiagonal(dev: GpuDevice, dtype: DType, a: DeviceArray, sizes: readonly number[]): void {
  const host = dev.download(a) as Float64Array | Float32Array;
  let at = 0;
  for (const n of sizes) {
    for (let j = 0; j < n; j++) host[at + j * (n + 1)] = host[at + j * (n + 1)]! + n;
    at += n * n;
  }
  void dtype;
  dev.upload(host, a);
}
