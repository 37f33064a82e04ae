/**
 * The rows and the table of `myriad bench --vbatched` (bench/vbatched.ts), and its `--ways` option:
 * which ways of running the variable batch a run times. A way not run leaves its fields undefined
 * and its columns out of the table (where no row has them). Ratios are speed-ups of the own route
 * over another way (that way's ms over the own ms), but the rates against the uniform reference: the
 * variable batch's rate as a fraction of the uniform batch's (bench/vbatched-uniform.ts).
 */
import type { DType } from '../core/dtype.js';
import { MyriadError } from '../core/errors.js';
import type { Column } from './table.js';

export const VBATCHED_WAYS = ['vbatched', 'per-size', 'device', 'vendor', 'grouped', 'uniform'] as const;
export type VbatchedWay = (typeof VBATCHED_WAYS)[number];

/** `--ways`: a comma list of VBATCHED_WAYS (absent: all of them); an unknown or empty entry names the option. */
export function parseVbatchedWays(text: string | undefined): ReadonlySet<VbatchedWay> {
  if (text === undefined) return new Set(VBATCHED_WAYS);
  const ways = new Set<VbatchedWay>();
  for (const part of text.split(',').map((p) => p.trim())) {
    const way = VBATCHED_WAYS.find((w) => w === part);
    if (way === undefined)
      throw new MyriadError('ENUM', `--ways takes a comma list of ${VBATCHED_WAYS.join(', ')}, got ${part === '' ? 'an empty entry' : `'${part}'`} in '${text}'`, '--ways');
    ways.add(way);
  }
  return ways;
}

export interface VbatchedRow {
  op: string; dtype: DType; workload: string;
  /** Members and distinct sizes of the workload. */
  count: number; shapes: number;
  /** Route 'vbatched': launches per call (all; those serving a class or the batch; the blocked drivers') and ms. */
  launches?: number; classLaunches?: number; driverLaunches?: number; ms?: number;
  /** The per-size path: launches and ms, and its ms over the class route's. */
  loopLaunches?: number; loopMs?: number; speedup?: number;
  /** The vendor's loop (vendor calls a run) and, for gemm where cuBLAS has it, its grouped call; ms over the class route's. */
  vendorCalls?: number; vendorMs?: number; vendorSpeedup?: number; groupedMs?: number; groupedSpeedup?: number;
  /** The device form (variableDevice, route 'vdevice'): launches (all, class, driver) and ms of the whole API call, the vendor's loop ms over it. */
  deviceLaunches?: number; deviceClassLaunches?: number; deviceDriverLaunches?: number; deviceMs?: number; deviceVendorSpeedup?: number;
  /** The uniform reference: order s, count c, the route the uniform API takes, ms; the class route's and the device form's rates as fractions of its rate. */
  uniformOrder?: number; uniformCount?: number; uniformRoute?: string; uniformMs?: number; uniformRate?: number; deviceUniformRate?: number;
}

const ms = (v: number | undefined): string | undefined => v?.toFixed(3);
const times = (v: number | undefined): string | undefined => (v === undefined ? undefined : `${v.toFixed(2)}x`);
const split = (c: number | undefined, d: number | undefined): string | undefined => (c === undefined || d === undefined ? undefined : `${c} + ${d}`);
const percent = (v: number | undefined): string | undefined => (v === undefined ? undefined : `${(100 * v).toFixed(0)}%`);

export const VBATCHED_COLUMNS: readonly Column<VbatchedRow>[] = [
  { header: 'op', value: (r) => r.op },
  { header: 'dtype', value: (r) => r.dtype },
  { header: 'workload', value: (r) => r.workload },
  { header: 'launches (class + driver)', value: (r) => split(r.classLaunches, r.driverLaunches), optional: true },
  { header: 'ms', value: (r) => ms(r.ms), optional: true },
  { header: 'per-size launches', value: (r) => r.loopLaunches, optional: true },
  { header: 'per-size ms', value: (r) => ms(r.loopMs), optional: true },
  { header: 'vs per-size', value: (r) => times(r.speedup), optional: true },
  { header: 'vendor calls', value: (r) => r.vendorCalls, optional: true },
  { header: 'vendor ms', value: (r) => ms(r.vendorMs), optional: true },
  { header: 'vs vendor', value: (r) => times(r.vendorSpeedup), optional: true },
  { header: 'grouped ms', value: (r) => ms(r.groupedMs), optional: true },
  { header: 'device launches (class + driver)', value: (r) => split(r.deviceClassLaunches, r.deviceDriverLaunches), optional: true },
  { header: 'device ms', value: (r) => ms(r.deviceMs), optional: true },
  { header: 'device vs vendor', value: (r) => times(r.deviceVendorSpeedup), optional: true },
  { header: 'uniform s x c', value: (r) => (r.uniformOrder === undefined ? undefined : `${r.uniformOrder} x ${r.uniformCount}`), optional: true },
  { header: 'uniform route', value: (r) => r.uniformRoute, optional: true },
  { header: 'uniform ms', value: (r) => ms(r.uniformMs), optional: true },
  { header: 'rate vs uniform', value: (r) => percent(r.uniformRate), optional: true },
  { header: 'device rate vs uniform', value: (r) => percent(r.deviceUniformRate), optional: true },
];
