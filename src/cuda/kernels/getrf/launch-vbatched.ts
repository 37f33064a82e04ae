/**
 * The variable-size batched LU launcher: one launch per size class up to the register design's
 * classes, a panel and an update launch per panel of a blocked class (plan-vbatched.ts), the
 * members' pointers and (m, n, ld, batch index) in two device tables uploaded once per call; ipiv
 * and info as the per-size path takes them (member i's pivots at ipiv[i * pivotStride ...], its
 * info at info[i]). Members beyond the largest class go to the per-size path (getrfGroup per
 * distinct shape and ld, the matrices' batch indices passed as its index map).
 */
import { batchCount } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import type { GetrfRequest } from '../../../core/ops.js';
import { tuningFor, type GetrfTuning } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice, type KernelSource, type LaunchConfig } from '../../runtime/types.js';
import { kernelFor } from '../common/kernel-cache.js';
import { deviceDtype, release, sharedLimit, uploadPointers, type Grouping, type LaunchGroup } from '../common/operands.js';
import { elementBytes } from '../common/precision.js';
import { HostScratch, type HostFrame } from '../common/host-scratch.js';
import { addressWords, fieldValues, int32s, memberFields, memberView, pairKeys, putAddress, severalShapesIn, type MemberFields } from '../common/members.js';
import { classPathPaysIn, releaseMemberTables, uploadBuiltTables } from '../common/vbatch.js';
import { driverSection } from '../common/driver-section.js';
import { smallGrid } from '../common/warp-slots.js';
import { GETRF_PANEL_THREADS, getrfPanelSharedBytes, getrfPanelVbatchedSource, getrfUpdateVbatchedSource, UPDATE_COLUMNS, UPDATE_THREADS } from './generate-panel.js';
import { getrfRegisterVbatchedSource } from './generate-register.js';
import { getrfSmallLayout } from './generate-small.js';
import { GETRF_VBATCH_INTS, getrfSmallVbatchedSource } from './generate-vbatched.js';
import { getrfGroup } from './launch.js';
import type { GetrfPanelParams, GetrfVbatchedParams } from './params.js';
import { getrfMemberSize, planVbatchedGetrfSizes, type VbatchedGetrfPlan } from './plan-vbatched.js';

export interface GetrfVbatchedOptions {
  readonly tuning?: GetrfTuning;
  /** Called with the plan before anything is launched (tests, benchmarks); its member arrays are valid during the call only. */
  readonly onPlan?: (plan: VbatchedGetrfPlan) => void;
}

/** The generated source of a class kernel (the blocked design: its panel kernel; vbatchedGetrfUpdateSource its update). */
export function vbatchedGetrfSource(c: GetrfVbatchedParams): KernelSource {
  return c.variant === 'vsmall' ? getrfSmallVbatchedSource(c.params) : c.variant === 'vregister' ? getrfRegisterVbatchedSource(c.params) : getrfPanelVbatchedSource(c.params);
}

/** The launch of a warp or register class kernel over `n` members (warp design: several per block; register design: a block each). */
export function vbatchedGetrfLaunch(c: Exclude<GetrfVbatchedParams, { variant: 'vpanel' }>, n: number): LaunchConfig {
  if (c.variant === 'vsmall') {
    const p = c.params;
    return { grid: [smallGrid(getrfSmallLayout(p.dtype, p.rows, p.cols, p.warps), n), 1, 1], block: [p.warps * 32, 1, 1] };
  }
  return { grid: [n, 1, 1], block: [c.params.warps * 32, 1, 1] };
}

/** One panel of a blocked class: the panel kernel's launch at column i0, then the update's (null: no columns outside the panel). */
export interface PanelStep {
  readonly i0: number;
  readonly panel: LaunchConfig;
  readonly update: LaunchConfig | null;
}

/**
 * The launches of a blocked class over its members (`shapes`, launch order): panels at i0 = 0, ib,
 * ... up to the members' largest min(m, n), a block per member in each (a member whose panels are
 * done leaves at once), threads and shared memory for the largest m - i0 of the members still at
 * work, the update's column tiles for the widest of them (as getrfGroup sizes them for one shape).
 */
export function vbatchedGetrfPanelSteps(p: GetrfPanelParams, shapes: readonly { readonly rows: number; readonly cols: number }[]): PanelStep[] {
  const steps: PanelStep[] = [];
  const depth = shapes.reduce((s, x) => Math.max(s, Math.min(x.rows, x.cols)), 0);
  for (let i0 = 0; i0 < depth; i0 += p.ib) {
    const live = shapes.filter((x) => Math.min(x.rows, x.cols) > i0);
    const m = live.reduce((s, x) => Math.max(s, x.rows - i0), 0);
    const right = live.reduce((s, x) => Math.max(s, x.cols - i0 - Math.min(p.ib, Math.min(x.rows, x.cols) - i0)), 0);
    const tiles = Math.ceil(i0 / UPDATE_COLUMNS) + Math.ceil(right / UPDATE_COLUMNS);
    steps.push({
      i0,
      panel: { grid: [shapes.length, 1, 1], block: [Math.min(GETRF_PANEL_THREADS, Math.ceil(m / 32) * 32), 1, 1], sharedBytes: getrfPanelSharedBytes(p, m) },
      update: tiles > 0 ? { grid: [shapes.length, tiles, 1], block: [UPDATE_THREADS, 1, 1] } : null,
    });
  }
  return steps;
}

export function getrfVbatchedCuda(dev: GpuDevice, r: GetrfRequest<DeviceArray, DeviceArray>, opts: GetrfVbatchedOptions = {}): void {
  if (batchCount(r.a) === 0) return;
  // Flat per-member fields: a call of 200,000 members makes no object per member.
  const frame = HostScratch.of(dev).frame();
  try {
    getrfVbatchedFields(dev, r, memberFields(r.a, frame), opts);
  } finally {
    frame.end();
  }
}

/** getrfVbatchedCuda on A already read into flat fields (`f`: those of r.a), for a composition that reads A's members once (gesv). */
export function getrfVbatchedFields(dev: GpuDevice, r: GetrfRequest<DeviceArray, DeviceArray>, f: MemberFields, opts: GetrfVbatchedOptions = {}): void {
  const count = f.count;
  if (count === 0) return;
  const dtype = deviceDtype(r.a);
  const tuning = opts.tuning ?? tuningFor(dev.info.arch, 'getrf');
  const frame = HostScratch.of(dev).frame();
  try {
    getrfPlanned(dev, r, f, planVbatchedGetrfSizes(dtype, memberSizes(f.rows, f.cols, frame), sharedLimit(dev), tuning, frame), opts);
  } finally {
    frame.end();
  }
}

/** The launches of `plan` (its member arrays in the caller's host scratch frame). */
function getrfPlanned(dev: GpuDevice, r: GetrfRequest<DeviceArray, DeviceArray>, f: MemberFields, plan: VbatchedGetrfPlan, opts: GetrfVbatchedOptions): void {
  const dtype = deviceDtype(r.a);
  opts.onPlan?.(plan);
  if (plan.launches.length > 0) {
    const uploaded = uploadBuiltTables(dev, 1, GETRF_VBATCH_INTS, (frame) => getrfMemberTables(plan, f, elementBytes(dtype), frame));
    try {
      let first = 0;
      for (const l of plan.launches) {
        const at = uploaded.at(first);
        first += l.members.length;
        const c = l.params;
        const n = l.members.length;
        const member = [arg.ptr(at.pointers), arg.ptr(at.ints)];
        if (c.variant === 'vpanel') {
          const panel = kernelFor(dev, 'getrf-vpanel', c.params, () => getrfPanelVbatchedSource(c.params));
          const update = kernelFor(dev, 'getrf-vupdate', c.params, () => getrfUpdateVbatchedSource(c.params));
          // A blocked class: a panel and an update launch per panel.
          driverSection(dev, () => {
            for (const st of vbatchedGetrfPanelSteps(c.params, Array.from(l.members, (i) => ({ rows: f.rows[i]!, cols: f.cols[i]! })))) {
              panel.launch(st.panel, [...member, arg.ptr(r.ipiv), arg.i32(r.pivotStride), arg.ptr(r.info), arg.i32(n), arg.i32(st.i0)]);
              if (st.update !== null) update.launch(st.update, [...member, arg.ptr(r.ipiv), arg.i32(r.pivotStride), arg.i32(n), arg.i32(st.i0)]);
            }
          });
          continue;
        }
        const kernel = kernelFor(dev, `getrf-${c.variant}`, c.params, () => vbatchedGetrfSource(c));
        kernel.launch(vbatchedGetrfLaunch(c, n), [...member, arg.ptr(r.ipiv), arg.i32(r.pivotStride), arg.ptr(r.info), arg.i32(n)]);
      }
    } finally {
      releaseMemberTables(dev, uploaded);
    }
  }
  if (plan.large.length > 0) driverSection(dev, () => largeMembers(dev, dtype, r, f, plan.large));
}

/** Each member's getrfMemberSize, its loop alone in a function (no code after it that never ran). */
function memberSizes(rows: Int32Array, cols: Int32Array, frame: HostFrame): Int32Array {
  const sizes = frame.int32(rows.length);
  for (let i = 0; i < rows.length; i++) sizes[i] = getrfMemberSize(rows[i]!, cols[i]!);
  return sizes;
}

/**
 * The two tables of a plan's members, in launch order: a pointer (offset folded in) and m, n, ld,
 * batch index per member, written in batch order, each member's row at its place (the fields are
 * read in sequence).
 */
export function getrfMemberTables(plan: Pick<VbatchedGetrfPlan, 'order' | 'place'>, f: MemberFields, bytes: number, frame?: HostFrame): { pointers: BigInt64Array; ints: Int32Array } {
  const place = plan.place;
  const pointers = frame === undefined ? new BigInt64Array(plan.order.length) : frame.bigint64(plan.order.length);
  const ints = int32s(plan.order.length * GETRF_VBATCH_INTS, frame);
  fillGetrfTables(place, pointers, addressWords(pointers), ints, f, bytes);
  return { pointers, ints };
}

/** getrfMemberTables' loop, alone in its function: code after a loop of 200,000 members has no type feedback when the loop is first optimised, and threw that code away on every call. */
function fillGetrfTables(place: Int32Array, pointers: BigInt64Array, words: Uint32Array, ints: Int32Array, f: MemberFields, bytes: number): void {
  const rows = f.rows, cols = f.cols, ld = f.ld;
  for (let i = 0; i < place.length; i++) {
    const q = place[i]!;
    if (q < 0) continue;
    putAddress(pointers, words, q, f, i, bytes);
    const o = q * GETRF_VBATCH_INTS;
    ints[o] = rows[i]!; ints[o + 1] = cols[i]!; ints[o + 2] = ld[i]!; ints[o + 3] = i;
  }
}

/** Members beyond the largest class: one group per distinct (rows, cols, ld), as the per-size path runs them. */
function largeMembers(dev: GpuDevice, dtype: DType, r: GetrfRequest<DeviceArray, DeviceArray>, f: MemberFields, large: readonly number[]): void {
  const byShape = new Map<string, number[]>();
  for (const i of large) {
    const key = `${f.rows[i]}/${f.cols[i]}/${f.ld[i]}`;
    const g = byShape.get(key);
    if (g === undefined) byShape.set(key, [i]); else g.push(i);
  }
  const grouping: { groups: LaunchGroup[]; temporaries: DeviceArray[] } = { groups: [], temporaries: [] };
  try {
    for (const members of byShape.values()) {
      const first = memberView(f, members[0]!);
      const table = uploadPointers(dev, members.map((i) => memberView(f, i)));
      grouping.temporaries.push(table);
      const index = dev.upload(Int32Array.from(members));
      grouping.temporaries.push(index);
      grouping.groups.push({ count: members.length, index, operands: [{ kind: 'pointer', pointer: table.ptr, offset: 0, stride: 0, ld: first.ld, rows: first.rows, cols: first.cols }] });
    }
    for (const g of grouping.groups) getrfGroup(dev, dtype, g, r.ipiv, r.pivotStride, r.info);
  } finally {
    release(dev, grouping as Grouping);
  }
}

/** Whether a request is a variable batch of more than one (rows, cols, ld) (the class kernels' case), of few enough members a size for the class path to pay (classPathPaysOf). */
export function getrfVbatchedCovers(r: GetrfRequest<DeviceArray, DeviceArray>, dev: GpuDevice): boolean {
  if (r.a.kind !== 'variable') return false;
  const m = r.a.matrices;
  if (m.length < 2) return false;
  if (!severalShapesIn([[r.a, 'rows'], [r.a, 'cols'], [r.a, 'ld']], m.length)) return false;
  return classPathPaysIn(dev, (frame) => pairKeys(fieldValues(r.a, 'rows', m.length, frame), 2 ** 26, fieldValues(r.a, 'cols', m.length, frame)));
}
