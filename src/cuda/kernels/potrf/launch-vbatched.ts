/**
 * The variable-size batched Cholesky launcher: one launch per size class (plan-vbatched.ts), the
 * members' pointers and (n, ld, batch index) in two device tables uploaded once per call; members
 * beyond the largest class go to the per-size path (potrfGroup per distinct order and ld, the
 * matrices' batch indices passed as its index map).
 */
import { batchCount } from '../../../core/batch.js';
import type { PotrfRequest } from '../../../core/ops.js';
import { tuningFor, type PotrfTuning } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice, type KernelSource, type LaunchConfig } from '../../runtime/types.js';
import { kernelFor } from '../common/kernel-cache.js';
import { deviceDtype, release, sharedLimit, uploadPointers, type Grouping, type LaunchGroup } from '../common/operands.js';
import { elementBytes } from '../common/precision.js';
import { HostScratch, type HostFrame } from '../common/host-scratch.js';
import { addressWords, int32s, memberFields, memberView, putAddress, type MemberFields } from '../common/members.js';
import { releaseMemberTables, uploadBuiltTables } from '../common/vbatch.js';
import { driverSection } from '../common/driver-section.js';
import { smallGrid } from '../common/warp-slots.js';
import { PANEL_MAX_THREADS, potrfPanelSharedBytes, potrfPanelVbatchedSource } from './generate-panel.js';
import { potrfRegisterVbatchedSource } from './generate-register.js';
import { POTRF_VBATCH_INTS, potrfSmallVbatchedSource } from './generate-vbatched.js';
import { potrfGroup } from './launch.js';
import type { PotrfVbatchedParams } from './params.js';
import { planVbatchedPotrf, type VbatchedPotrfPlan } from './plan-vbatched.js';

export interface PotrfVbatchedOptions {
  readonly tuning?: PotrfTuning;
  /** Called with the plan before anything is launched (tests, benchmarks); its member arrays are valid during the call only. */
  readonly onPlan?: (plan: VbatchedPotrfPlan) => void;
}

/** The generated source of a class kernel. */
export function vbatchedPotrfSource(c: PotrfVbatchedParams): KernelSource {
  return c.variant === 'vsmall' ? potrfSmallVbatchedSource(c.params) : c.variant === 'vregister' ? potrfRegisterVbatchedSource(c.params) : potrfPanelVbatchedSource(c.params);
}

/** The launch of a class kernel over `n` members (warp design: several per block; the others: a block each). */
export function vbatchedPotrfLaunch(c: PotrfVbatchedParams, n: number): LaunchConfig {
  if (c.variant === 'vsmall') {
    const p = c.params;
    return { grid: [smallGrid({ dtype: p.dtype, n: p.n, warps: p.warps, tile: p.uplo === 'upper', lanes: p.n }, n), 1, 1], block: [p.warps * 32, 1, 1] };
  }
  if (c.variant === 'vregister') return { grid: [n, 1, 1], block: [c.params.warps * 32, 1, 1] };
  const threads = Math.min(PANEL_MAX_THREADS, Math.ceil(c.bound / 32) * 32);
  return { grid: [n, 1, 1], block: [threads, 1, 1], sharedBytes: potrfPanelSharedBytes(c.params, c.bound) };
}

export function potrfVbatchedCuda(dev: GpuDevice, r: PotrfRequest<DeviceArray, DeviceArray>, opts: PotrfVbatchedOptions = {}): void {
  if (batchCount(r.a) === 0) return;
  // Flat per-member fields: a call of 200,000 members makes no object per member.
  const frame = HostScratch.of(dev).frame();
  try {
    potrfVbatchedFields(dev, r, memberFields(r.a, frame), opts);
  } finally {
    frame.end();
  }
}

/** potrfVbatchedCuda on A already read into flat fields (`a`: those of r.a), for a composition that reads A's members once (posv). */
export function potrfVbatchedFields(dev: GpuDevice, r: PotrfRequest<DeviceArray, DeviceArray>, a: MemberFields, opts: PotrfVbatchedOptions = {}): void {
  if (a.count === 0) return;
  const dtype = deviceDtype(r.a);
  const tuning = opts.tuning ?? tuningFor(dev.info.arch, 'potrf');
  const frame = HostScratch.of(dev).frame();
  try {
    potrfPlanned(dev, r, a, planVbatchedPotrf({ dtype, uplo: r.uplo, orders: a.rows, sharedLimit: sharedLimit(dev) }, tuning, frame), opts);
  } finally {
    frame.end();
  }
}

/** The launches of `plan` (its member arrays in the caller's host scratch frame). */
function potrfPlanned(dev: GpuDevice, r: PotrfRequest<DeviceArray, DeviceArray>, a: MemberFields, plan: VbatchedPotrfPlan, opts: PotrfVbatchedOptions): void {
  const dtype = deviceDtype(r.a);
  opts.onPlan?.(plan);
  if (plan.launches.length > 0) {
    const uploaded = uploadBuiltTables(dev, 1, POTRF_VBATCH_INTS, (frame) => potrfMemberTables(plan, a, elementBytes(dtype), frame));
    try {
      let first = 0;
      for (const l of plan.launches) {
        const at = uploaded.at(first);
        first += l.members.length;
        const c = l.params;
        const kernel = kernelFor(dev, `potrf-${c.variant}`, c.params, () => vbatchedPotrfSource(c));
        const n = l.members.length;
        kernel.launch(vbatchedPotrfLaunch(c, n), [arg.ptr(at.pointers), arg.ptr(at.ints), arg.ptr(r.info), arg.i32(n)]);
      }
    } finally {
      releaseMemberTables(dev, uploaded);
    }
  }
  if (plan.large.length > 0) driverSection(dev, () => largeMembers(dev, dtype, r, a, plan.large));
}

/**
 * The two tables of a plan's members, in launch order: a pointer (offset folded in) and n, ld, batch
 * index per member; every entry written. `frame`: the tables come from it; absent, fresh arrays.
 */
export function potrfMemberTables(plan: VbatchedPotrfPlan, a: MemberFields, bytes: number, frame?: HostFrame): { pointers: BigInt64Array; ints: Int32Array } {
  const members = plan.order.length, place = plan.place;
  const pointers = frame === undefined ? new BigInt64Array(members) : frame.bigint64(members);
  const ints = int32s(members * POTRF_VBATCH_INTS, frame);
  fillPotrfTables(place, pointers, addressWords(pointers), ints, a, bytes);
  return { pointers, ints };
}

/** potrfMemberTables' loop, alone in its function: code after a loop of 200,000 members has no type feedback when the loop is first optimised, and threw that code away on every call. */
function fillPotrfTables(place: Int32Array, pointers: BigInt64Array, words: Uint32Array, ints: Int32Array, a: MemberFields, bytes: number): void {
  // Batch order, each member's row written at its place: the fields are read in sequence.
  const n = a.rows, ld = a.ld;
  for (let i = 0; i < place.length; i++) {
    const q = place[i]!;
    if (q < 0) continue;
    putAddress(pointers, words, q, a, i, bytes);
    const t = q * POTRF_VBATCH_INTS;
    ints[t] = n[i]!; ints[t + 1] = ld[i]!; ints[t + 2] = i;
  }
}

/** Members beyond the largest class: one group per distinct (order, ld), as the per-size path runs them. */
function largeMembers(dev: GpuDevice, dtype: ReturnType<typeof deviceDtype>, r: PotrfRequest<DeviceArray, DeviceArray>, a: MemberFields, large: readonly number[]): void {
  const views = new Map(large.map((i) => [i, memberView(a, i)]));
  const byShape = new Map<string, number[]>();
  for (const i of large) {
    const key = `${a.rows[i]}/${a.ld[i]}`;
    const g = byShape.get(key);
    if (g === undefined) byShape.set(key, [i]); else g.push(i);
  }
  const grouping: { groups: LaunchGroup[]; temporaries: DeviceArray[] } = { groups: [], temporaries: [] };
  try {
    for (const members of byShape.values()) {
      const first = views.get(members[0]!)!;
      const table = uploadPointers(dev, members.map((i) => views.get(i)!));
      grouping.temporaries.push(table);
      const index = dev.upload(Int32Array.from(members));
      grouping.temporaries.push(index);
      grouping.groups.push({ count: members.length, index, operands: [{ kind: 'pointer', pointer: table.ptr, offset: 0, stride: 0, ld: first.ld, rows: first.rows, cols: first.cols }] });
    }
    for (const g of grouping.groups) potrfGroup(dev, dtype, r.uplo, g, r.info);
  } finally {
    release(dev, grouping as Grouping);
  }
}

/** Whether a request is a variable batch of more than one (order, ld) (the class kernels' case). */
export function potrfVbatchedCovers(r: PotrfRequest<DeviceArray, DeviceArray>): boolean {
  if (r.a.kind !== 'variable') return false;
  const m = r.a.matrices;
  if (m.length < 2) return false;
  const rows = m[0]!.rows, ld = m[0]!.ld;
  for (let i = 1; i < m.length; i++) if (m[i]!.rows !== rows || m[i]!.ld !== ld) return true;
  return false;
}
