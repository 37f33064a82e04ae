/**
 * The variable-size batched trtri launcher (plan-vbatched.ts has the design): the members' pointer
 * and sizes in two device tables uploaded once per call; each class within one leaf one launch of
 * the class leaf (info included); the classes above one leaf one scan launch, a wait for info (as
 * the per-size path), then the recursion over the non-singular members: per depth two
 * variable-size trsm through the trsm family's face (trsmVbatchedSolve on the members' blocks, no
 * object per block), then one leaf launch per class. Members beyond the largest class go to the
 * per-size path (trtriGroup, info at their batch indices).
 */
import { batchCount, type VariableBatch } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import type { TrtriRequest } from '../../../core/ops.js';
import { tuningFor, type TrsmTuning, type TrtriTuning } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice, type LaunchConfig } from '../../runtime/types.js';
import { driverSection } from '../common/driver-section.js';
import { HostScratch, type HostFrame } from '../common/host-scratch.js';
import { kernelFor } from '../common/kernel-cache.js';
import { addressWords, blockFields, fieldValues, int32s, memberFields, memberView, putAddress, severalShapesIn, type MemberBlocks, type MemberFields } from '../common/members.js';
import { deviceDtype, sharedLimit } from '../common/operands.js';
import { elementBytes } from '../common/precision.js';
import { classPathPaysIn, releaseMemberTables, uploadMemberTables, type MemberTables } from '../common/vbatch.js';
import { trsmVbatchedMembers, trsmVbatchedSolve } from '../trsm/index.js';
import { TRTRI_VBATCH_INTS, TRTRI_VBATCH_POINTERS, trtriVbatchedLeafSource, trtriVbatchedScanSource, VSCAN_THREADS } from './generate-vbatched.js';
import { hostInfo, trtriGroup, trtriGroups } from './launch.js';
import type { TrtriForce } from './params.js';
import { memberOffDiagonal, planVbatchedTrtri, type VbatchedTrtriClass, type VbatchedTrtriPlan } from './plan-vbatched.js';

export interface TrtriVbatchedOptions {
  readonly tuning?: TrtriTuning;
  /** The tuning of the recursion's triangular solves (trsm's table). */
  readonly trsmTuning?: TrsmTuning;
  /** A leaf size instead of the table's (tests). */
  readonly force?: TrtriForce;
  /** Called with the plan before anything is launched (tests, benchmarks). */
  readonly onPlan?: (plan: VbatchedTrtriPlan) => void;
}

type Request = TrtriRequest<DeviceArray, DeviceArray>;

/** The launch of a class leaf over `count` members: blocks of the class's matrices, `leaves` leaves along grid.y. */
export function vbatchedTrtriLaunch(c: Pick<VbatchedTrtriClass, 'leaf' | 'matrices' | 'sharedBytes'>, count: number, leaves: number): LaunchConfig {
  const matrices = Math.min(c.matrices, count);
  return { grid: [Math.ceil(count / matrices), leaves, 1], block: [c.leaf.nb, matrices, 1], sharedBytes: c.sharedBytes };
}

export function trtriVbatchedCuda(dev: GpuDevice, r: Request, opts: TrtriVbatchedOptions = {}): void {
  if (batchCount(r.a) === 0) return;
  const dtype = deviceDtype(r.a);
  // Flat per-member fields: a call of 200,000 members makes no object per member.
  const frame = HostScratch.of(dev).frame();
  try {
    const fa = memberFields(r.a, frame);
    const tuning = opts.tuning ?? tuningFor(dev.info.arch, 'trtri');
    // The plan's arrays from the frame, unless onPlan may keep the plan beyond the call.
    const plan = planVbatchedTrtri({ dtype, uplo: r.uplo, diag: r.diag, n: fa.rows, sharedLimit: sharedLimit(dev) }, tuning, opts.force, opts.onPlan === undefined ? frame : undefined);
    opts.onPlan?.(plan);
    if (plan.order.length > 0) runClasses(dev, dtype, r, fa, plan, opts, frame);
    if (plan.large.length > 0) driverSection(dev, () => largeMembers(dev, dtype, r, fa, plan.large, tuning, opts.force));
  } finally {
    frame.end();
  }
}

/** The class members' leaves, scan and recursion. */
function runClasses(dev: GpuDevice, dtype: DType, r: Request, fa: MemberFields, plan: VbatchedTrtriPlan, opts: TrtriVbatchedOptions, frame: HostFrame): void {
  const bytes = elementBytes(dtype);
  const tables = trtriMemberTables(plan.place, plan.order.length, fa, bytes, frame);
  const uploaded = uploadMemberTables(dev, tables.pointers, TRTRI_VBATCH_POINTERS, tables.ints, TRTRI_VBATCH_INTS);
  let survivors: MemberTables | undefined;
  try {
    // The classes within one leaf: one launch each, info included (they come after the recursive ones in `order`).
    let first = 0;
    for (const c of plan.classes) {
      if (c.depths.length === 0) launchLeaves(dev, c, uploaded.at(first), c.members.length, 1, r.info.ptr);
      first += c.members.length;
    }
    if (plan.recursive === 0) return;
    const scan = kernelFor(dev, 'trtri-vscan', { dtype }, () => trtriVbatchedScanSource({ dtype }));
    scan.launch({ grid: [Math.ceil(plan.recursive / VSCAN_THREADS), 1, 1], block: [VSCAN_THREADS, 1, 1] },
      [arg.ptr(uploaded.at(0).pointers), arg.ptr(uploaded.at(0).ints), arg.i32(plan.recursive), arg.ptr(r.info), arg.i32(r.diag === 'unit' ? 1 : 0)]);
    // The recursion's solves cannot skip a member: it runs over the non-singular ones only.
    const live = r.diag === 'unit' ? undefined : liveMembers(plan, hostInfo(dev, r.info), frame);
    let tablesOf = uploaded;
    const classes = live === undefined ? plan.classes.filter((c) => c.depths.length > 0) : live.classes;
    if (live !== undefined && live.classes.length > 0) {
      const t = trtriMemberTables(live.place, live.count, fa, bytes, frame);
      tablesOf = survivors = uploadMemberTables(dev, t.pointers, TRTRI_VBATCH_POINTERS, t.ints, TRTRI_VBATCH_INTS);
    }
    if (classes.length === 0) return;
    driverSection(dev, () => {
      offDiagonal(dev, r, fa, classes, opts.trsmTuning);
      let at = 0;
      for (const c of classes) {
        launchLeaves(dev, c, tablesOf.at(at), c.members.length, c.leaves, 0n);
        at += c.members.length;
      }
    });
  } finally {
    releaseMemberTables(dev, uploaded);
    if (survivors !== undefined) survivors.dispose();
  }
}

/** One launch of a class leaf over `count` members from table row `at` (info: 0n for none). */
function launchLeaves(dev: GpuDevice, c: VbatchedTrtriClass, at: { pointers: bigint; ints: bigint }, count: number, leaves: number, info: bigint): void {
  if (count === 0) return;
  const kernel = kernelFor(dev, 'trtri-vleaf', c.leaf, () => trtriVbatchedLeafSource(c.leaf));
  kernel.launch(vbatchedTrtriLaunch(c, count, leaves), [arg.ptr(at.pointers), arg.ptr(at.ints), arg.i32(count), arg.ptr(info)]);
}

/**
 * The recursive classes' non-singular members (info 0 at their batch index), class by class in
 * launch order, and their places in new tables.
 */
function liveMembers(plan: VbatchedTrtriPlan, info: Int32Array, frame: HostFrame): { classes: VbatchedTrtriClass[]; place: Int32Array; count: number } {
  const place = int32s(plan.place.length, frame).fill(-1);
  const classes: VbatchedTrtriClass[] = [];
  let count = 0;
  for (const c of plan.classes) {
    if (c.depths.length === 0) continue;
    const members = int32s(c.members.length, frame);
    let kept = 0;
    for (let m = 0; m < c.members.length; m++) {
      const i = c.members[m]!;
      if (info[i] === 0) { members[kept++] = i; place[i] = count++; }
    }
    if (kept > 0) classes.push({ ...c, members: members.subarray(0, kept) });
  }
  return { classes, place, count };
}

/**
 * The recursion's off-diagonal blocks, depth by depth (plan-vbatched.ts): every member's blocks of
 * a depth in two variable-size triangular solves, B := left \ B, then B := -B / right.
 */
function offDiagonal(dev: GpuDevice, r: Request, fa: MemberFields, classes: readonly VbatchedTrtriClass[], trsmTuning: TrsmTuning | undefined): void {
  const depths = Math.max(...classes.map((c) => c.depths.length));
  const solve = { uplo: r.uplo, transA: 'N' as const, diag: r.diag, a: r.a, b: r.a };
  for (let d = 0; d < depths; d++) {
    const frame = HostScratch.of(dev).frame();
    try {
      const blocks = depthBlocks(r.uplo, fa.rows, classes, d, frame);
      if (blocks.b.count === 0) continue;
      const b = blockFields(fa, blocks.b, frame);
      for (const side of ['left', 'right'] as const) {
        const tri = blockFields(fa, side === 'left' ? blocks.left : blocks.right, frame);
        const members = trsmVbatchedMembers({ side, b: r.a }, tri, b, frame);
        trsmVbatchedSolve(dev, { ...solve, side, alpha: side === 'left' ? 1 : -1 }, members, trsmTuning === undefined ? {} : { tuning: trsmTuning });
      }
    } finally {
      frame.end();
    }
  }
}

/** The blocks of depth d of every member of `classes`: B, and the left and right triangles (memberOffDiagonal). */
function depthBlocks(uplo: Request['uplo'], n: Int32Array, classes: readonly VbatchedTrtriClass[], d: number, frame: HostFrame): { b: MemberBlocks; left: MemberBlocks; right: MemberBlocks } {
  let most = 0;
  for (const c of classes) most += c.members.length * (c.depths[d]?.length ?? 0);
  const take = (): MemberBlocks => ({ count: 0, member: int32s(most, frame), r0: int32s(most, frame), c0: int32s(most, frame), rows: int32s(most, frame), cols: int32s(most, frame) });
  const b = take(), left = take(), right = take();
  let q = 0;
  const put = (x: MemberBlocks, i: number, r0: number, c0: number, rows: number, cols: number): void => {
    x.member[q] = i; x.r0[q] = r0; x.c0[q] = c0; x.rows[q] = rows; x.cols[q] = cols;
  };
  for (const c of classes) {
    for (const step of c.depths[d] ?? []) {
      for (let m = 0; m < c.members.length; m++) {
        const i = c.members[m]!;
        const blk = memberOffDiagonal(uplo, n[i]!, step);
        if (blk === undefined) continue;
        put(b, i, blk.b.r0, blk.b.c0, blk.b.rows, blk.b.cols);
        put(left, i, blk.left.off, blk.left.off, blk.left.size, blk.left.size);
        put(right, i, blk.right.off, blk.right.off, blk.right.size, blk.right.size);
        q++;
      }
    }
  }
  return { b: { ...b, count: q }, left: { ...left, count: q }, right: { ...right, count: q } };
}

/**
 * The two tables of `count` members (`place[i]`: member i's row, -1 for none): pointer A (offset
 * folded in) and ints n, ldA, batch index (generate-vbatched.ts reads them), written in batch order.
 */
export function trtriMemberTables(place: Int32Array, count: number, fa: MemberFields, bytes: number, frame?: HostFrame): { pointers: BigInt64Array; ints: Int32Array } {
  const pointers = frame === undefined ? new BigInt64Array(count * TRTRI_VBATCH_POINTERS) : frame.bigint64(count * TRTRI_VBATCH_POINTERS);
  const ints = int32s(count * TRTRI_VBATCH_INTS, frame);
  fillTrtriTables(place, pointers, addressWords(pointers), ints, fa, bytes);
  return { pointers, ints };
}

/** trtriMemberTables' loop, alone in its function: code after a loop of 200,000 members has no type feedback when the loop is first optimised, and threw that code away on every call. */
function fillTrtriTables(place: Int32Array, pointers: BigInt64Array, words: Uint32Array, ints: Int32Array, fa: MemberFields, bytes: number): void {
  const n = fa.rows, ld = fa.ld;
  for (let i = 0; i < place.length; i++) {
    const q = place[i]!;
    if (q < 0) continue;
    putAddress(pointers, words, q * TRTRI_VBATCH_POINTERS, fa, i, bytes);
    const o = q * TRTRI_VBATCH_INTS;
    ints[o] = n[i]!; ints[o + 1] = ld[i]!; ints[o + 2] = i;
  }
}

/** Members beyond the classes: the per-size path, grouped by (n, ld), info at their batch indices. */
function largeMembers(dev: GpuDevice, dtype: DType, r: Request, fa: MemberFields, large: readonly number[], tuning: TrtriTuning, force: TrtriForce | undefined): void {
  const sub: VariableBatch<DeviceArray> = { kind: 'variable', order: 'col', matrices: large.map((i) => memberView(fa, i)) };
  const temporaries: DeviceArray[] = [];
  try {
    for (const g of trtriGroups(dev, sub, large.length, temporaries, large)) trtriGroup(dev, dtype, r, g, temporaries, { tuning, ...(force === undefined ? {} : { force }) });
  } finally {
    if (temporaries.length > 0) {
      dev.synchronize();
      for (const t of temporaries) t.dispose();
    }
  }
}

/**
 * Whether a request is a variable batch of more than one shape (n, ld), of few enough members a
 * size for the class path to pay (classPathPaysOf, measured on the other families).
 */
export function trtriVbatchedCovers(r: TrtriRequest<DeviceArray, DeviceArray>, dev: GpuDevice): boolean {
  if (r.a.kind !== 'variable') return false;
  const count = batchCount(r.a);
  if (count < 2) return false;
  return severalShapesIn([[r.a, 'rows'], [r.a, 'ld']], count) && classPathPaysIn(dev, (frame) => fieldValues(r.a, 'rows', count, frame));
}
