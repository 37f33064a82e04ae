/**
 * The variable-size batched Cholesky launcher: one launch per size class (plan-vbatched.ts), the
 * members' pointers and (n, ld, batch index) in two device tables uploaded once per call; members
 * beyond the largest class go to the per-size path (potrfGroup per distinct order and ld, the
 * matrices' batch indices passed as its index map).
 */
import { batchCount, matrixAt, type MatrixView } from '../../../core/batch.js';
import type { PotrfRequest } from '../../../core/ops.js';
import { tuningFor, type PotrfTuning } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice, type KernelSource, type LaunchConfig } from '../../runtime/types.js';
import { kernelFor } from '../common/kernel-cache.js';
import { deviceDtype, release, sharedLimit, uploadPointers, type Grouping, type LaunchGroup } from '../common/operands.js';
import { elementBytes } from '../common/precision.js';
import { elementAddress, releaseMemberTables, uploadMemberTables } from '../common/vbatch.js';
import { smallGrid } from '../common/warp-slots.js';
import { PANEL_MAX_THREADS, potrfPanelSharedBytes, potrfPanelVbatchedSource } from './generate-panel.js';
import { potrfRegisterVbatchedSource } from './generate-register.js';
import { POTRF_VBATCH_INTS, potrfSmallVbatchedSource } from './generate-vbatched.js';
import { potrfGroup } from './launch.js';
import type { PotrfVbatchedParams } from './params.js';
import { planVbatchedPotrf, type VbatchedPotrfPlan } from './plan-vbatched.js';

export interface PotrfVbatchedOptions {
  readonly tuning?: PotrfTuning;
  /** Called with the plan before anything is launched (tests, benchmarks). */
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
  const count = batchCount(r.a);
  if (count === 0) return;
  const dtype = deviceDtype(r.a);
  const views: MatrixView<DeviceArray>[] = [];
  for (let i = 0; i < count; i++) views.push(matrixAt(r.a, i));
  const tuning = opts.tuning ?? tuningFor(dev.info.arch, 'potrf');
  const plan = planVbatchedPotrf({ dtype, uplo: r.uplo, orders: views.map((v) => v.rows), sharedLimit: sharedLimit(dev) }, tuning);
  opts.onPlan?.(plan);
  if (plan.launches.length > 0) {
    const members = plan.launches.reduce((s, l) => s + l.members.length, 0);
    const pointers = new BigInt64Array(members);
    const ints = new Int32Array(members * POTRF_VBATCH_INTS);
    const bytes = elementBytes(dtype);
    let q = 0;
    for (const l of plan.launches) for (const i of l.members) {
      const v = views[i]!;
      pointers[q] = elementAddress(v.data, v.offset, bytes);
      ints.set([v.rows, v.ld, i], q * POTRF_VBATCH_INTS);
      q++;
    }
    const tables = uploadMemberTables(dev, pointers, 1, ints, POTRF_VBATCH_INTS);
    try {
      let first = 0;
      for (const l of plan.launches) {
        const at = tables.at(first);
        first += l.members.length;
        const c = l.params;
        const kernel = kernelFor(dev, `potrf-${c.variant}`, c.params, () => vbatchedPotrfSource(c));
        const n = l.members.length;
        kernel.launch(vbatchedPotrfLaunch(c, n), [arg.ptr(at.pointers), arg.ptr(at.ints), arg.ptr(r.info), arg.i32(n)]);
      }
    } finally {
      releaseMemberTables(dev, tables);
    }
  }
  if (plan.large.length > 0) largeMembers(dev, dtype, r, views, plan.large);
}

/** Members beyond the largest class: one group per distinct (order, ld), as the per-size path runs them. */
function largeMembers(dev: GpuDevice, dtype: ReturnType<typeof deviceDtype>, r: PotrfRequest<DeviceArray, DeviceArray>, views: readonly MatrixView<DeviceArray>[], large: readonly number[]): void {
  const byShape = new Map<string, number[]>();
  for (const i of large) {
    const key = `${views[i]!.rows}/${views[i]!.ld}`;
    const g = byShape.get(key);
    if (g === undefined) byShape.set(key, [i]); else g.push(i);
  }
  const grouping: { groups: LaunchGroup[]; temporaries: DeviceArray[] } = { groups: [], temporaries: [] };
  try {
    for (const members of byShape.values()) {
      const first = views[members[0]!]!;
      const table = uploadPointers(dev, members.map((i) => views[i]!));
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
  return m.some((x) => x.rows !== m[0]!.rows || x.ld !== m[0]!.ld);
}
