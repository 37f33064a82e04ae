/**
 * trtri on a variable batch whose sizes and addresses are on the device (common/vdevice.ts): zeroed
 * tables from the device workspace, the classification kernel (generate-vdevice.ts: the members'
 * checks, and the scan of the members of classes above one leaf, a singular one in no class), then
 * the host-sized path's work (launch-vbatched.ts) with its class kernels unchanged: each class
 * within one leaf one launch of the class leaf with info (over the whole region); the classes above
 * one leaf the recursion of plan-vbatched.ts over their bounds, depth by depth two trsm solves on
 * device-cut rows (the step's rows kernel, then trsm's device form's solve, trsmDeviceSolve, over
 * the rows' tables), then their leaves. info through a scratch of count + 1 entries (entry 0 the
 * sink of the zero rows past a class's members), copied to info at the end. Nothing is read back:
 * where the host path waits for the scan to leave the singular members out of the recursion, the
 * classification leaves them out of the regions.
 *
 * The host path agrees bit for bit where it runs the same classes (orders up to 512): a member's
 * leaves and solves are its class's and its blocks' triangle classes' either way. Members beyond
 * 512 take the large region, its bound the largest order rounded up to LARGE_STEP, with the
 * recursion over that bound (the host path's per-size driver multiplies by inverted blocks: the
 * two agree within rounding there).
 *
 * A depth's solves hold a row per member and step of that depth: their tables have room for
 * count x (the most steps of any depth) rows a region, taken once and zeroed before each depth.
 */
import { DEVICE_VARIABLE_COUNT_MAX, type DeviceVariableTrtriRequest } from '../../../core/device-batch.js';
import { MyriadError } from '../../../core/errors.js';
import type { DType } from '../../../core/dtype.js';
import type { DeviceStorage } from '../../../core/storage.js';
import { tuningFor, type GemmTuning, type TrsmTuning, type TrtriTuning } from '../../model/tuning/index.js';
import { arg, type GpuDevice } from '../../runtime/types.js';
import type { WorkspaceFrame } from '../../runtime/workspace.js';
import { driverSection } from '../common/driver-section.js';
import { kernelFor } from '../common/kernel-cache.js';
import { sharedLimit } from '../common/operands.js';
import { elementBytes } from '../common/precision.js';
import { VBATCH_CLASSES } from '../common/vbatch.js';
import { deviceRegions, inDeviceFrame, launchPerMember, onDevice, optionalPtr, takeDeviceTables, type DeviceRegion, type DeviceTables } from '../common/vdevice.js';
import { TRSM_VBATCH_INTS, TRSM_VBATCH_POINTERS, trsmDeviceSolve, type TrsmDeviceMembers } from '../trsm/index.js';
import { TRTRI_VBATCH_INTS, TRTRI_VBATCH_POINTERS, trtriVbatchedLeafSource } from './generate-vbatched.js';
import { generateTrtriClassify, generateTrtriSolveRows, type TrtriClassifyParams, type TrtriSolveRowsParams } from './generate-vdevice.js';
import { vbatchedTrtriLaunch } from './launch-vbatched.js';
import type { TrtriForce, TrtriStep, TrtriVbatchedLeafParams } from './params.js';
import { leafLaunchShape, leafSize, trtriStepsByDepth } from './plan.js';

export interface TrtriDeviceOptions {
  readonly tuning?: TrtriTuning;
  /** The recursion's triangular solves' table (trsm's). */
  readonly trsmTuning?: TrsmTuning;
  /** The solves' updates' GEMM classes' table. */
  readonly gemmTuning?: GemmTuning;
  /** A leaf size instead of the table's (tests). */
  readonly force?: TrtriForce;
}

/** One region's design: its class leaf and, above one leaf, the recursion's steps by depth. */
export interface TrtriDeviceClass extends DeviceRegion {
  readonly leaf: TrtriVbatchedLeafParams;
  /** Leaves along the bound's diagonal (the leaf launch's grid.y). */
  readonly leaves: number;
  /** The recursion's off-diagonal blocks by depth (empty: the class is one leaf, its leaf writes info). */
  readonly depths: readonly (readonly TrtriStep[])[];
}

/**
 * Pure: the classes a call with members up to order `maxN` launches (largest first), each with the
 * host path's design for its bound (plan-vbatched.ts), and the classification's scan threshold: a
 * member of order above `scanAbove` is in a class above one leaf (-1: every member).
 */
export function trtriDeviceClasses(
  p: { readonly dtype: DType; readonly uplo: TrtriVbatchedLeafParams['uplo']; readonly diag: TrtriVbatchedLeafParams['diag'] }, maxN: number, leafMax: number,
): { readonly classes: readonly TrtriDeviceClass[]; readonly regions: number; readonly scanAbove: number } {
  const { launches, regions } = deviceRegions(maxN);
  const classes = launches.map((l): TrtriDeviceClass => {
    const nb = leafSize(l.bound, leafMax);
    return { ...l, leaf: { dtype: p.dtype, uplo: p.uplo, diag: p.diag, nb }, leaves: Math.ceil(l.bound / nb), depths: trtriStepsByDepth(l.bound, nb) };
  });
  // A class is above one leaf where its bound exceeds leafMax: the classes are ordered, so an order threshold.
  const scanAbove = VBATCH_CLASSES.filter((b) => b <= leafMax).reduce((x, b) => Math.max(x, b), -1);
  return { classes, regions, scanAbove };
}

export function trtriDeviceVariableCuda(dev: GpuDevice, r: DeviceVariableTrtriRequest, opts: TrtriDeviceOptions = {}): void {
  const a = r.a;
  const count = a.count;
  if (count === 0) return;
  const dtype = a.dtype;
  const tuning = opts.tuning ?? tuningFor(dev.info.arch, 'trtri');
  const leafMax = opts.force?.leafMax ?? tuning.leafMax[dtype];
  const { classes, regions, scanAbove } = trtriDeviceClasses({ dtype, uplo: r.uplo, diag: r.diag }, Math.min(a.maxRows, a.maxCols), leafMax);
  const limit = sharedLimit(dev);
  const recursive = classes.filter((c) => c.depths.length > 0);
  solveRows(recursive, count);
  inDeviceFrame(dev, (frame) => {
    const tables = takeDeviceTables(dev, frame, regions, count, TRTRI_VBATCH_POINTERS, TRTRI_VBATCH_INTS, 'zeroed');
    const work = frame.take('int32', count + 1, 'the device form\'s info scratch');
    const cp: TrtriClassifyParams = { dtype };
    const classify = kernelFor(dev, 'trtri-vclassify', cp, () => generateTrtriClassify(cp));
    launchPerMember(classify, count, [
      arg.ptr(onDevice(a.rows)), arg.ptr(optionalPtr(a.cols)), arg.ptr(onDevice(a.ld)), arg.ptr(onDevice(a.pointers)),
      arg.i32(a.maxRows), arg.i32(a.maxCols), arg.i32(count), arg.i32(scanAbove), arg.i32(r.diag === 'unit' ? 1 : 0), arg.i64(count),
      arg.ptr(tables.pointers), arg.ptr(tables.ints), arg.ptr(tables.counters), arg.ptr(work),
    ]);
    // The classes within one leaf: one launch each, info included.
    for (const c of classes) if (c.depths.length === 0) launchLeaves(dev, c, tables, count, limit, tuning, 1, work.ptr);
    if (recursive.length > 0) driverSection(dev, () => recursion(dev, r, recursive, tables, frame, count, limit, tuning, opts));
    dev.copy(work, 1, onDevice(r.info as DeviceStorage), 0, count);
  });
}

/** The rows of a depth's solves: a member has one block per step of its class at that depth (checked: the solves index them with 32-bit integers). */
function solveRows(recursive: readonly TrtriDeviceClass[], count: number): number {
  const perMember = Math.max(0, ...recursive.flatMap((c) => c.depths.map((d) => d.length)));
  const rows = count * perMember;
  if (rows > DEVICE_VARIABLE_COUNT_MAX)
    throw new MyriadError('BOUNDS', `${count} members with up to ${perMember} recursion blocks a depth make ${rows} solve rows, more than ${DEVICE_VARIABLE_COUNT_MAX}: split the batch or lower a.maxRows`, 'a.count');
  return rows;
}

/** A launch of class c's leaf over its whole region (`count` rows), `leaves` leaves along grid.y; info at each row's batch index (0n: none). */
function launchLeaves(dev: GpuDevice, c: TrtriDeviceClass, tables: DeviceTables, count: number, limit: number, tuning: TrtriTuning, leaves: number, info: bigint): void {
  const shape = leafLaunchShape(c.leaf.dtype, c.leaf.nb, count, tuning, limit);
  const kernel = kernelFor(dev, 'trtri-vleaf', c.leaf, () => trtriVbatchedLeafSource(c.leaf));
  const at = tables.at(c.region);
  kernel.launch(vbatchedTrtriLaunch({ leaf: c.leaf, ...shape }, count, leaves), [arg.ptr(at.pointers), arg.ptr(at.ints), arg.i32(count), arg.ptr(info)]);
}

/**
 * The classes above one leaf: depth by depth (top-down) the two solves of every member's blocks of
 * that depth, B := inv(left) B then B := -B inv(right) with the original diagonal blocks, then
 * every class's leaves (no info: the classification wrote it).
 */
function recursion(
  dev: GpuDevice, r: DeviceVariableTrtriRequest, classes: readonly TrtriDeviceClass[], tables: DeviceTables, frame: WorkspaceFrame,
  count: number, limit: number, tuning: TrtriTuning, opts: TrtriDeviceOptions,
): void {
  const dtype = r.a.dtype;
  const depths = Math.max(...classes.map((c) => c.depths.length));
  const rows = solveRows(classes, count);
  // The triangles of a solve are at most the largest step's spans; B's other side likewise.
  const spanMax = Math.max(...classes.flatMap((c) => c.depths.flat().flatMap((s) => [s.lo.size, s.hi.size])));
  const triangleRegions = deviceRegions(spanMax);
  const left = takeDeviceTables(dev, frame, triangleRegions.regions, rows, TRSM_VBATCH_POINTERS, TRSM_VBATCH_INTS, 'zeroed');
  const right = takeDeviceTables(dev, frame, triangleRegions.regions, rows, TRSM_VBATCH_POINTERS, TRSM_VBATCH_INTS, 'zeroed');
  const sp: TrtriSolveRowsParams = { uplo: r.uplo };
  const cut = kernelFor(dev, 'trtri-vsolve-rows', sp, () => generateTrtriSolveRows(sp));
  const bytes = elementBytes(dtype);
  const gemm: { tables?: DeviceTables } = {};
  const solveOpts = { ...(opts.trsmTuning === undefined ? {} : { tuning: opts.trsmTuning }), ...(opts.gemmTuning === undefined ? {} : { gemmTuning: opts.gemmTuning }) };
  for (let d = 0; d < depths; d++) {
    if (d > 0) { left.zero(triangleRegions.regions); right.zero(triangleRegions.regions); }
    let depthSpan = 0;
    for (const c of classes) {
      const at = tables.at(c.region);
      for (const step of c.depths[d] ?? []) {
        depthSpan = Math.max(depthSpan, step.lo.size, step.hi.size);
        launchPerMember(cut, count, [
          arg.ptr(at.pointers), arg.ptr(at.ints), arg.i32(count),
          arg.i32(step.lo.off), arg.i32(step.lo.size), arg.i32(step.hi.off), arg.i32(step.hi.size), arg.i32(bytes), arg.i64(rows),
          arg.ptr(left.pointers), arg.ptr(left.ints), arg.ptr(left.counters),
          arg.ptr(right.pointers), arg.ptr(right.ints), arg.ptr(right.counters),
        ]);
      }
    }
    if (depthSpan === 0) continue;
    // The depth's triangles are at most depthSpan, and so is B's other side (the other span).
    const members = (t: DeviceTables): TrsmDeviceMembers => ({ dtype, count: rows, tables: t, frame, launches: deviceRegions(depthSpan).launches, nvecMax: depthSpan });
    const variant = { uplo: r.uplo, transA: 'N' as const, diag: r.diag };
    trsmDeviceSolve(dev, members(left), { ...variant, side: 'left' }, 1, gemm, solveOpts);
    trsmDeviceSolve(dev, members(right), { ...variant, side: 'right' }, -1, gemm, solveOpts);
  }
  for (const c of classes) launchLeaves(dev, c, tables, count, limit, tuning, c.leaves, 0n);
}
