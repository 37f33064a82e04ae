/**
 * The variable-size batched trsm launcher: per size class of the triangle (plan-vbatched.ts) the
 * recursion over the class bound, each leaf one launch of the class kernel over all the class's
 * members and each update one variable-size GEMM through the gemm family's face (gemmVbatchedCuda);
 * the members' pointers and sizes in two device tables uploaded once per call. Members beyond the
 * largest class, and every member where alpha = 0, go to the per-size path (trsmCuda).
 */
import { batchCount, type MatrixView, type VariableBatch } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import type { TrsmRequest } from '../../../core/ops.js';
import { tuningFor, type TrsmTuning } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice, type LaunchConfig } from '../../runtime/types.js';
import { kernelFor } from '../common/kernel-cache.js';
import { deviceDtype, sharedLimit } from '../common/operands.js';
import { elementBytes } from '../common/precision.js';
import { HostScratch, type HostFrame } from '../common/host-scratch.js';
import { addressWords, fieldValues, int32s, memberFields, memberView, putAddress, severalShapesIn, type MemberFields } from '../common/members.js';
import { classPathPaysIn, releaseMemberTables, uploadMemberTables } from '../common/vbatch.js';
import { driverSection } from '../common/driver-section.js';
import { gemmVbatchedFields, type VbatchedGemmScalars } from '../gemm/index.js';
import { TRSM_VBATCH_INTS, TRSM_VBATCH_POINTERS, trsmVbatchedLeafSource } from './generate-vbatched.js';
import { trsmCuda } from './launch-trsm.js';
import type { TrsmForce, TrsmLeafShape, TrsmStep } from './params.js';
import { classifyTrsm, memberUpdateOf, planVbatchedTrsm, type TrsmClassing, type VbatchedTrsmPlan } from './plan-vbatched.js';
import { leafChunk } from './plan.js';

export interface TrsmVbatchedOptions {
  readonly tuning?: TrsmTuning;
  /** A leaf size or vectors per block instead of the table's (tests). */
  readonly force?: Pick<TrsmForce, 'leafMax' | 'vectorsMax'>;
  /** Called with the plan before anything is launched (tests, benchmarks). */
  readonly onPlan?: (plan: VbatchedTrsmPlan) => void;
}

/** grid.y is limited to 65535: the leaf walks further vectors in steps of gridDim.y * V. */
const GRID_Y_MAX = 65535;

/** The launch of a class kernel's leaf over `n` members whose widest B has `nvecMax` vectors. */
export function vbatchedTrsmLaunch(shape: TrsmLeafShape, n: number, nvecMax: number): LaunchConfig {
  return {
    grid: [Math.ceil(n / shape.matrices), Math.max(1, Math.min(Math.ceil(nvecMax / leafChunk(shape)), GRID_Y_MAX)), 1],
    block: [shape.vectors, shape.matrices, 1],
    sharedBytes: shape.sharedBytes,
  };
}

const variableOf = (matrices: MatrixView<DeviceArray>[]): VariableBatch<DeviceArray> => ({ kind: 'variable', order: 'col', matrices });

export function trsmVbatchedCuda(dev: GpuDevice, r: TrsmRequest<DeviceArray>, opts: TrsmVbatchedOptions = {}): void {
  if (batchCount(r.b) === 0) return;
  if (r.alpha === 0) { trsmCuda(dev, r); return; }
  // Flat per-member fields: a call of 200,000 members makes no object per member.
  const frame = HostScratch.of(dev).frame();
  try {
    // The classing from the frame too, unless onPlan may keep the plan (and its classes) beyond the call.
    const members = trsmVbatchedMembers(r, memberFields(r.a, frame), memberFields(r.b, frame), frame, opts.onPlan === undefined ? frame : undefined);
    trsmVbatchedSolve(dev, r, members, opts);
  } finally {
    frame.end();
  }
}

/**
 * A variable trsm's members read into flat fields, classed and their tables written (on the host),
 * once for every solve on the same batches with the same side (posv's and gesv's two solves): what
 * does not depend on uplo, transA, diag or alpha.
 */
export interface TrsmVbatchedMembers {
  readonly side: TrsmRequest['side'];
  readonly dtype: DType;
  readonly fa: MemberFields;
  readonly fb: MemberFields;
  /** Per member: its triangle's order and B's other dimension. */
  readonly t: Int32Array;
  readonly nvec: Int32Array;
  readonly classing: TrsmClassing;
  /** The class members' tables, in launch order (trsmMemberTables); undefined where no member is in a class. */
  readonly tables: { readonly pointers: BigInt64Array; readonly ints: Int32Array } | undefined;
}

/**
 * The members of r.a and r.b (`fa`, `fb`: their flat fields) for trsmVbatchedSolve. `frame`: the
 * tables come from it (valid until it ends); absent, fresh arrays. `classFrame`: the same for the
 * classing (the plans' classes and order), where no plan is kept beyond the frame.
 */
export function trsmVbatchedMembers(
  r: Pick<TrsmRequest<DeviceArray>, 'side' | 'b'>, fa: MemberFields, fb: MemberFields, frame?: HostFrame, classFrame: HostFrame | undefined = frame,
): TrsmVbatchedMembers {
  const dtype = deviceDtype(r.b);
  const left = r.side === 'left';
  const t = left ? fb.rows : fb.cols, nvec = left ? fb.cols : fb.rows;
  const classing = classifyTrsm({ t, nvec }, classFrame);
  const tables = classing.order.length === 0 ? undefined : trsmMemberTables(classing, fa, fb, t, nvec, elementBytes(dtype), frame);
  return { side: r.side, dtype, fa, fb, t, nvec, classing, tables };
}

/**
 * trsmVbatchedCuda on members already read, classed and tabled (trsmVbatchedMembers of r.a and r.b
 * with r.side), for a composition that runs several solves on the same batches. alpha must not be
 * 0 (trsmVbatchedCuda sends that to the per-size path).
 */
export function trsmVbatchedSolve(dev: GpuDevice, r: TrsmRequest<DeviceArray>, m: TrsmVbatchedMembers, opts: TrsmVbatchedOptions = {}): void {
  const { fa, fb, dtype } = m;
  if (fb.count === 0) return;
  if (m.side !== r.side || m.dtype !== deviceDtype(r.b)) throw new Error(`trsm members read for side ${m.side} (${m.dtype}), used for side ${r.side}`);
  const variant = { side: r.side, uplo: r.uplo, transA: r.transA, diag: r.diag };
  const plan = planVbatchedTrsm({ ...variant, dtype, members: m, sharedLimit: sharedLimit(dev) }, opts.tuning ?? tuningFor(dev.info.arch, 'trsm'), opts.force, m.classing);
  opts.onPlan?.(plan);
  if (plan.launches.length > 0 && m.tables !== undefined) {
    const uploaded = uploadMemberTables(dev, m.tables.pointers, TRSM_VBATCH_POINTERS, m.tables.ints, TRSM_VBATCH_INTS);
    try {
      const kernel = kernelFor(dev, 'trsm-vleaf', plan.leaf, () => trsmVbatchedLeafSource(plan.leaf));
      let first = 0;
      for (const l of plan.launches) {
        const at = uploaded.at(first);
        const where: ClassPlace = { place: plan.place, start: first };
        first += l.members.length;
        const n = l.members.length;
        const steps = (): void => {
          for (const step of l.steps) {
            if (step.kind === 'leaf') {
              const shape = l.shapes.get(step.span.size)!;
              kernel.launch(vbatchedTrsmLaunch(shape, n, l.nvecMax), [
                arg.ptr(at.pointers), arg.ptr(at.ints), arg.i32(n), arg.i32(step.span.off), arg.i32(step.span.size),
                arg.i32(l.nvecMax), arg.i32(shape.ldx), arg.real(dtype, step.scaled ? r.alpha : 1),
              ]);
              continue;
            }
            // The update over the members whose target block is not empty (the others have nothing to change).
            const frame = HostScratch.of(dev).frame();
            try {
              const update = updateFields(r, fa, fb, l.members, where, m.t, step, frame);
              if (update !== undefined) gemmVbatchedFields(dev, { dtype, ...update.scalars }, update.a, update.b, update.c);
            } finally {
              frame.end();
            }
          }
        };
        // A class of one leaf is one launch; a recursion of several steps is a blocked driver.
        if (l.steps.length > 1) driverSection(dev, steps); else steps();
      }
    } finally {
      releaseMemberTables(dev, uploaded);
    }
  }
  if (plan.large.length > 0) driverSection(dev, () => trsmCuda(dev, { ...r, a: variableOf(plan.large.map((i) => memberView(fa, i))), b: variableOf(plan.large.map((i) => memberView(fb, i))) }));
}

/**
 * The two tables of a plan's members, in launch order: pointers A, B (offsets folded in) and ints
 * t, nvec, ldA, ldB per member (generate-vbatched.ts reads them), written in batch order, each
 * member's row at its place (the fields are read in sequence).
 */
export function trsmMemberTables(
  plan: Pick<TrsmClassing, 'order' | 'place'>, fa: MemberFields, fb: MemberFields, t: ArrayLike<number>, nvec: ArrayLike<number>, bytes: number, frame?: HostFrame,
): { pointers: BigInt64Array; ints: Int32Array } {
  const place = plan.place;
  const pointers = frame === undefined ? new BigInt64Array(plan.order.length * TRSM_VBATCH_POINTERS) : frame.bigint64(plan.order.length * TRSM_VBATCH_POINTERS);
  const ints = int32s(plan.order.length * TRSM_VBATCH_INTS, frame);
  fillTrsmTables(place, pointers, addressWords(pointers), ints, fa, fb, t, nvec, bytes);
  return { pointers, ints };
}

/** trsmMemberTables' loop, alone in its function: code after a loop of 200,000 members has no type feedback when the loop is first optimised, and threw that code away on every call. */
function fillTrsmTables(
  place: Int32Array, pointers: BigInt64Array, words: Uint32Array, ints: Int32Array, fa: MemberFields, fb: MemberFields, t: ArrayLike<number>, nvec: ArrayLike<number>, bytes: number,
): void {
  const lda = fa.ld, ldb = fb.ld;
  for (let i = 0; i < place.length; i++) {
    const q = place[i]!;
    if (q < 0) continue;
    putAddress(pointers, words, q * TRSM_VBATCH_POINTERS, fa, i, bytes);
    putAddress(pointers, words, q * TRSM_VBATCH_POINTERS + 1, fb, i, bytes);
    const o = q * TRSM_VBATCH_INTS;
    ints[o] = t[i]!; ints[o + 1] = nvec[i]!; ints[o + 2] = lda[i]!; ints[o + 3] = ldb[i]!;
  }
}

/**
 * Whether a request is a variable batch of more than one shape (m, n, ldA, ldB) with alpha != 0 (the
 * class kernels' case), of few enough members a size for the class path to pay (classPathPaysOf).
 */
export function trsmVbatchedCovers(r: TrsmRequest<DeviceArray>, dev: GpuDevice): boolean {
  if (r.alpha === 0 || (r.a.kind !== 'variable' && r.b.kind !== 'variable')) return false;
  const count = batchCount(r.b);
  if (count < 2) return false;
  // The triangle's order: m for side left, n for right.
  const t = r.side === 'left' ? 'rows' : 'cols';
  return severalShapesIn([[r.b, 'rows'], [r.b, 'cols'], [r.a, 'ld'], [r.b, 'ld']], count) && classPathPaysIn(dev, (frame) => fieldValues(r.b, t, count, frame));
}

/** A member's block of an update step, as updateOf cuts it: from A or B, at (r0, c0), rows x cols. */
interface Cut { fromA: boolean; r0: number; c0: number; rows: number; cols: number }

/** The update of the members of one B shape: the GEMM's scalars and the member's three blocks (A, B, C of the GEMM). */
interface ShapeUpdate { readonly scalars: Omit<VbatchedGemmScalars, 'dtype'>; readonly cuts: readonly [Cut, Cut, Cut] }

/** Entries of one block in the flat cut table: r0, c0, rows, cols. */
const CUT_ENTRIES = 4;

/**
 * One update step's GEMM over the members of a class, in flat fields (common/members.ts): each
 * member's blocks as memberUpdate cuts them (memberUpdateOf, the rule its tests check), only the
 * members whose C block is not empty, in class order; undefined where none is.
 *
 * A member's cuts depend on its B's rows and cols alone (offsets and ld are applied below): made
 * once per shape of the class (200,000 members, a few hundred shapes), a run of members of one
 * shape (the class is in size order) found without the Map. One pass finds each member's shape
 * (updateEntries); then each operand's fields are written from typed arrays alone (cutFields).
 */
function updateFields(
  r: TrsmRequest<DeviceArray>, fa: MemberFields, fb: MemberFields, classMembers: Int32Array, where: ClassPlace,
  triangle: Int32Array, step: Extract<TrsmStep, { kind: 'update' }>, frame: HostFrame,
): { scalars: Omit<VbatchedGemmScalars, 'dtype'>; a: MemberFields; b: MemberFields; c: MemberFields } | undefined {
  const shapes: ShapeUpdate[] = [];
  const entry = frame.int32(classMembers.length);
  const kept = updateEntries(r, fb, classMembers, triangle, step, entry, shapes);
  if (kept === 0) return undefined;
  // The first shape is the first kept member's (a shape is added where a member first needs it).
  const first = 0;
  // Which of A and B each operand is cut from is the step's (the same for every shape).
  const parents = [0, 1, 2].map((w) => (shapes[first]!.cuts[w]!.fromA ? fa : fb));
  const cuts = [0, 1, 2].map((w) => {
    const table = new Int32Array(shapes.length * CUT_ENTRIES);
    shapes.forEach((s, e) => { const x = s.cuts[w]!; table.set([x.r0, x.c0, x.rows, x.cols], e * CUT_ENTRIES); });
    return table;
  });
  const [a, b, c] = parents.map((p) => cutFieldsOf(p, kept, frame)) as [MemberFields, MemberFields, MemberFields];
  // A class of many members is cut in batch order (see BATCH_ORDER_SHARE), the three operands in one pass.
  if (classMembers.length * BATCH_ORDER_SHARE >= where.place.length) {
    cutInBatchOrder(where, classMembers.length, keptRows(entry, frame), entry, [parents[0]!, parents[1]!, parents[2]!], [cuts[0]!, cuts[1]!, cuts[2]!], [a, b, c]);
  } else {
    for (let w = 0; w < 3; w++) cutLoop(parents[w]!, classMembers, entry, cuts[w]!, [a, b, c][w]!);
  }
  return { scalars: shapes[first]!.scalars, a, b, c };
}

/**
 * updateFields' pass over the class: entry[m] := member classMembers[m]'s shape in `shapes` (added
 * there where first needed; -1: no update), the members that update counted. Alone in its function,
 * so that the loop's optimised code has no code after it that never ran.
 */
function updateEntries(
  r: TrsmRequest<DeviceArray>, fb: MemberFields, classMembers: Int32Array, triangle: Int32Array,
  step: Extract<TrsmStep, { kind: 'update' }>, entry: Int32Array, shapes: ShapeUpdate[],
): number {
  const block = (fromA: boolean) => (r0: number, c0: number, rows: number, cols: number): Cut => ({ fromA, r0, c0, rows, cols });
  const [fromA, fromB] = [block(true), block(false)];
  const byShape = new Map<number, number>();
  const off = step.target.off, bRows = fb.rows, bCols = fb.cols;
  let lastKey = -1, last = -1, kept = 0;
  for (let m = 0; m < classMembers.length; m++) {
    const i = classMembers[m]!;
    if (off >= triangle[i]!) { entry[m] = -1; continue; }   // the target lies beyond its triangle
    const rows = bRows[i]!, cols = bCols[i]!;
    const key = rows * 2 ** 31 + cols;
    if (key !== lastKey) {
      let e = byShape.get(key);
      if (e === undefined) {
        const u = memberUpdateOf(r, rows, cols, step, fromA, fromB);
        e = u.c.rows === 0 || u.c.cols === 0 ? -1 : shapes.push({ scalars: { transA: u.transA, transB: u.transB, alpha: u.alpha, beta: u.beta }, cuts: [u.a, u.b, u.c] }) - 1;
        byShape.set(key, e);
      }
      lastKey = key;
      last = e;
    }
    entry[m] = last;
    if (last >= 0) kept++;
  }
  return kept;
}

/**
 * The fields of one operand's `kept` blocks cut from `parent`'s members (cutLoop or cutInBatchOrder
 * fills them): the members that update, in class order.
 */
function cutFieldsOf(parent: MemberFields, kept: number, frame: HostFrame): MemberFields {
  return {
    count: kept, rows: frame.int32(kept), cols: frame.int32(kept), ld: frame.int32(kept), offset: frame.float64(kept), slot: frame.int32(kept),
    arrays: parent.arrays, baseLo: parent.baseLo, baseHi: parent.baseHi,
  };
}

/** Where a class's members are in its plan's launch order: member i at place[i] - start (from 0 to its count). */
interface ClassPlace {
  readonly place: Int32Array;
  readonly start: number;
}

/**
 * A class of at least 1/BATCH_ORDER_SHARE of the batch's members is cut in batch order. Its
 * members, in class order, are spread over the whole batch: gathering their fields from arrays
 * that the call's other passes have pushed out of the caches cost about 60 ns a member on a 2-core
 * x86 machine, a pass over every member in batch order about 1.5 ns a member.
 */
const BATCH_ORDER_SHARE = 32;

/** Per class position, its row among the blocks that update (the members with entry >= 0, in class order), -1 for none. */
function keptRows(entry: Int32Array, frame: HostFrame): Int32Array {
  const rows = frame.int32(entry.length);
  for (let m = 0, q = 0; m < entry.length; m++) rows[m] = entry[m]! < 0 ? -1 : q++;
  return rows;
}

/**
 * cutLoop's fields of the three operands written in batch order: each member of the class (its
 * class position place[i] - start) that updates writes its row rowOf[position] of each, so that
 * the parents' fields are read in sequence and only the class-sized arrays are reached at random.
 */
function cutInBatchOrder(
  at: ClassPlace, n: number, rowOf: Int32Array, entry: Int32Array,
  parents: readonly [MemberFields, MemberFields, MemberFields], cuts: readonly [Int32Array, Int32Array, Int32Array], outs: readonly [MemberFields, MemberFields, MemberFields],
): void {
  const place = at.place, start = at.start;
  const [p0, p1, p2] = parents, [c0, c1, c2] = cuts, [o0, o1, o2] = outs;
  for (let i = 0; i < place.length; i++) {
    const m = place[i]! - start;
    if (m < 0 || m >= n) continue;
    const q = rowOf[m]!;
    if (q < 0) continue;
    const k = entry[m]! * CUT_ENTRIES;
    cutRow(p0, i, c0, k, o0, q);
    cutRow(p1, i, c1, k, o1, q);
    cutRow(p2, i, c2, k, o2, q);
  }
}

/** Row q of `out` := member i of `parent` cut by entries k ... of `cuts` (r0, c0, rows, cols). */
function cutRow(parent: MemberFields, i: number, cuts: Int32Array, k: number, out: MemberFields, q: number): void {
  const ld = parent.ld[i]!;
  out.rows[q] = cuts[k + 2]!; out.cols[q] = cuts[k + 3]!; out.ld[q] = ld; out.slot[q] = parent.slot[i]!;
  out.offset[q] = parent.offset[i]! + cuts[k]! + cuts[k + 1]! * ld;
}

/**
 * One operand's blocks of the members that update (`entry[m]` >= 0: member classMembers[m]'s shape,
 * whose block is entries entry[m] * CUT_ENTRIES ... of `cuts`), cut from `parent`, in class order.
 * Alone in its function: code after a loop of 200,000 members has no type feedback when the loop
 * is first optimised, and threw that code away on every call.
 */
function cutLoop(parent: MemberFields, classMembers: Int32Array, entry: Int32Array, cuts: Int32Array, out: MemberFields): void {
  for (let m = 0, q = 0; m < classMembers.length; m++) {
    const e = entry[m]!;
    if (e < 0) continue;
    cutRow(parent, classMembers[m]!, cuts, e * CUT_ENTRIES, out, q++);
  }
}
