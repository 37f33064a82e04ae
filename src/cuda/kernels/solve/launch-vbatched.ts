/**
 * potrs and posv on variable-size batches, composed of the class kernels of the families they
 * run on, through those families' faces: potrs as the two triangular solves of trsm's variable-
 * size launcher (trsmVbatchedCuda: one set of class launches each); posv's members of order up to
 * 32 on its own fused class kernels (generate-vsmall.ts: one launch a class, B unchanged where the
 * factorisation fails), the larger ones on potrf's (potrfVbatchedCuda) and then those solves, with
 * their B kept aside in the workspace and the failed members' B copied back
 * (generate-copy-vbatched.ts), so that B is unchanged where info > 0, as LAPACK's posv and the
 * per-size path leave it (`keepingFailed`, which gesv's class path shares: launch-vbatched-lu.ts).
 * Members beyond the classes take each family's per-size path inside those launchers. Each batch's
 * members are read once a call (memberFields), and the two solves share one classing of B's members
 * and its host tables (trsmVbatchedMembers).
 */
import { batchCount, type Batch } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { Op, PosvRequest, PotrsRequest } from '../../../core/ops.js';
import { arg, type DeviceArray, type GpuDevice, type LaunchConfig } from '../../runtime/types.js';
import { Workspace } from '../../runtime/workspace.js';
import { zeroInfo } from '../common/info-zero.js';
import { cachedKernel, kernelFor } from '../common/kernel-cache.js';
import { deviceDtype } from '../common/operands.js';
import { elementBytes } from '../common/precision.js';
import { HostScratch, type HostFrame } from '../common/host-scratch.js';
import { addressWords, arrayFields, fieldValues, int32s, memberFields, putAddress, severalShapesIn, type MemberFields } from '../common/members.js';
import { classPathPaysIn, releaseMemberTables, uploadBuiltTables, VBATCH_MAX, VBATCH_MEMBERS_PER_SIZE_MAX, VBATCH_POSV_MEMBERS_PER_SIZE_MAX, type MemberTables } from '../common/vbatch.js';
import { smallGrid } from '../common/warp-slots.js';
import { potrfVbatchedFields } from '../potrf/index.js';
import { trsmVbatchedMembers, trsmVbatchedSolve } from '../trsm/index.js';
import { COPY_VBATCH_INTS, COPY_VBATCH_POINTERS, COPY_VBATCH_THREADS, copyVbatchedSource } from './generate-copy-vbatched.js';
import { gesvLayout, posvLayout } from './generate-small.js';
import { FUSED_VBATCH_INTS, FUSED_VBATCH_POINTERS, posvSmallVbatchedSource } from './generate-vsmall.js';
import type { FusedVbatchedParams } from './params.js';
import { planVbatchedFused, type VbatchedFusedPlan } from './plan-vbatched.js';

/** Most blocks of the copy's launch (each walks further members in steps of the grid). */
const COPY_GRID_MAX = 65535;

/** The launch of the copy over `n` members: a block each, at most `gridMax` blocks. */
export function vbatchedCopyLaunch(n: number, gridMax = COPY_GRID_MAX): LaunchConfig {
  return { grid: [Math.max(1, Math.min(n, gridMax)), 1, 1], block: [COPY_VBATCH_THREADS, 1, 1] };
}

/**
 * Both triangular solves with a Cholesky factor on a variable batch: L L^T X = B (lower) or U^T U X
 * = B (upper); `fa`, `fb` the members of a and b, read once for both; their tables from `frame`.
 */
function choleskySolves(dev: GpuDevice, uplo: Uplo, a: Batch<DeviceArray>, b: Batch<DeviceArray>, fa: MemberFields, fb: MemberFields, frame: HostFrame): void {
  const members = trsmVbatchedMembers({ side: 'left', b }, fa, fb, frame);
  const solve = (transA: Op): void => trsmVbatchedSolve(dev, { side: 'left', uplo, transA, diag: 'nonunit', alpha: 1, a, b }, members);
  if (uplo === 'lower') { solve('N'); solve('T'); } else { solve('T'); solve('N'); }
}

/** Solves A X = B with the Cholesky factor of A (from potrf), by size class. info is set to 0. */
export function potrsVbatchedCuda(dev: GpuDevice, r: PotrsRequest<DeviceArray, DeviceArray>): void {
  const count = batchCount(r.b);
  if (count === 0) return;
  zeroInfo(dev, r.info, null, count);
  const frame = HostScratch.of(dev).frame();
  try {
    choleskySolves(dev, r.uplo, r.a, r.b, memberFields(r.a, frame), memberFields(r.b, frame), frame);
  } finally {
    frame.end();
  }
}

/**
 * Cholesky factorisation and solve by size class; B is left unchanged where info > 0 (LAPACK's
 * posv). Members of order up to 32 on the fused class kernels; the others factored by potrf's class
 * path and solved by trsm's, their B kept aside.
 */
export function posvVbatchedCuda(dev: GpuDevice, r: PosvRequest<DeviceArray, DeviceArray>): void {
  const count = batchCount(r.b);
  if (count === 0) return;
  // A's and B's members read once, for the factorisation, the copies and both solves.
  const frame = HostScratch.of(dev).frame();
  try {
    const dtype = deviceDtype(r.b);
    const fa = memberFields(r.a, frame), fb = memberFields(r.b, frame);
    fusedClasses(dev, dtype, fa, fb, frame, (params, at, n) => {
      const p = { ...params, uplo: r.uplo };
      kernelFor(dev, 'posv-vsmall', p, () => posvSmallVbatchedSource(p)).launch(vbatchedFusedLaunch(posvLayout(p), p, n),
        [arg.ptr(at.pointers), arg.ptr(at.ints), arg.ptr(r.info), arg.i32(n)]);
    }, (restA, restB) => {
      potrfVbatchedFields(dev, { uplo: r.uplo, a: r.a, info: r.info }, restA);
      keepingFailed(dev, dtype, restB, keptMembers(restB, frame), r.info, () => choleskySolves(dev, r.uplo, r.a, r.b, restA, restB, frame));
    });
  } finally {
    frame.end();
  }
}

/**
 * posv's and gesv's members of order up to 32 on their fused class kernels: the plan
 * (planVbatchedFused), the tables (A, B; n, ldA, nrhs, ldB, batch index) uploaded once, and
 * `launch` per class (its parameters, its first member's table entries, its members); then `rest`
 * on the fields of the others: the fused members with the shape -1 x -1 in A (no order for the
 * factorisation's plan: common/vbatch.ts NO_WORK) and no rows in B (nothing for the solves and
 * copies). The tables are released (a wait) once `rest` has enqueued its work too.
 */
export function fusedClasses(
  dev: GpuDevice, dtype: DType, fa: MemberFields, fb: MemberFields, frame: HostFrame,
  launch: (params: FusedVbatchedParams, at: { readonly pointers: bigint; readonly ints: bigint }, n: number) => void,
  rest: (restA: MemberFields, restB: MemberFields) => void,
): void {
  const plan = planVbatchedFused({ dtype, orders: fa.rows, nrhs: fb.cols }, frame);
  if (plan.launches.length === 0) { rest(fa, fb); return; }
  const bytes = elementBytes(dtype);
  const tables = uploadBuiltTables(dev, FUSED_VBATCH_POINTERS, FUSED_VBATCH_INTS, (f) => fusedTables(plan, fa, fb, bytes, f));
  try {
    let first = 0;
    for (const l of plan.launches) {
      launch(l.params, tables.at(first), l.members.length);
      first += l.members.length;
    }
    const restA = { ...fa, rows: frame.int32(fa.count), cols: frame.int32(fa.count) };
    const restB = { ...fb, rows: frame.int32(fb.count) };
    withoutFused(plan.place, fa, fb, restA, restB);
    rest(restA, restB);
  } finally {
    releaseMemberTables(dev, tables);
  }
}

/**
 * The rest's shapes in one pass: the members placed in `place` (>= 0, the fused ones) -1 x -1 in A
 * (getrf's size is min(m, n) = -1, NO_WORK, and potrf's order -1) and of 0 rows in B (nothing to
 * solve or copy: rows x cols = 0, trsm's triangle 0), the others as in `fa` and `fb`. Alone in its
 * function (no code after the loop that never ran).
 */
function withoutFused(place: Int32Array, fa: MemberFields, fb: MemberFields, restA: MemberFields, restB: MemberFields): void {
  const aRows = fa.rows, aCols = fa.cols, bRows = fb.rows;
  const rRows = restA.rows, rCols = restA.cols, sRows = restB.rows;
  for (let i = 0; i < place.length; i++) {
    const fused = place[i]! >= 0;
    rRows[i] = fused ? -1 : aRows[i]!; rCols[i] = fused ? -1 : aCols[i]!;
    sRows[i] = fused ? 0 : bRows[i]!;
  }
}

/** The launch of a fused class kernel (`layout`: posvLayout or gesvLayout of `p`) over `n` members (several a warp where the class is narrow). */
export function vbatchedFusedLaunch(layout: ReturnType<typeof posvLayout | typeof gesvLayout>, p: FusedVbatchedParams, n: number): LaunchConfig {
  return { grid: [smallGrid(layout, n), 1, 1], block: [p.warps * 32, 1, 1] };
}

/** The fused kernels' two tables, in launch order, written in batch order (each member's row at its place). */
export function fusedTables(plan: Pick<VbatchedFusedPlan, 'order' | 'place'>, fa: MemberFields, fb: MemberFields, bytes: number, frame?: HostFrame): { pointers: BigInt64Array; ints: Int32Array } {
  const n = plan.order.length;
  const pointers = frame === undefined ? new BigInt64Array(n * FUSED_VBATCH_POINTERS) : frame.bigint64(n * FUSED_VBATCH_POINTERS);
  const ints = int32s(n * FUSED_VBATCH_INTS, frame);
  fillFusedTables(plan.place, pointers, addressWords(pointers), ints, fa, fb, bytes);
  return { pointers, ints };
}

/** fusedTables' loop, alone in its function. */
function fillFusedTables(place: Int32Array, pointers: BigInt64Array, words: Uint32Array, ints: Int32Array, fa: MemberFields, fb: MemberFields, bytes: number): void {
  for (let i = 0; i < place.length; i++) {
    const q = place[i]!;
    if (q < 0) continue;
    putAddress(pointers, words, q * FUSED_VBATCH_POINTERS, fa, i, bytes);
    putAddress(pointers, words, q * FUSED_VBATCH_POINTERS + 1, fb, i, bytes);
    const o = q * FUSED_VBATCH_INTS;
    ints[o] = fa.rows[i]!; ints[o + 1] = fa.ld[i]!; ints[o + 2] = fb.cols[i]!; ints[o + 3] = fb.ld[i]!; ints[o + 4] = i;
  }
}

/**
 * The members of B with work (rows x cols > 0): batch indices, those of order (rows) up to
 * VBATCH_MAX first, then the larger ones, each part in batch order; `small` of them in the first
 * part, `elements` in all.
 */
export interface KeptMembers {
  readonly order: Int32Array;
  readonly small: number;
  readonly elements: number;
}

/** `frame`: the order comes from it (valid until it ends); absent, a fresh array. */
export function keptMembers(fb: MemberFields, frame?: HostFrame): KeptMembers {
  const counts = new Float64Array(3);
  countKept(fb, counts);
  const small = counts[0]!, large = counts[1]!, elements = counts[2]!;
  const order = int32s(small + large, frame);
  placeKept(fb, order, small);
  return { order, small, elements };
}

/*
 * keptMembers' two passes, each alone in its function: code after a loop of 200,000 members has no
 * type feedback when the loop is first optimised, and threw that code away on every call.
 */

/** counts := the members with work of order up to VBATCH_MAX, the larger ones, their elements. */
function countKept(fb: MemberFields, counts: Float64Array): void {
  const rows = fb.rows, cols = fb.cols;
  for (let i = 0; i < fb.count; i++) {
    const size = rows[i]! * cols[i]!;
    if (size === 0) continue;
    if (rows[i]! <= VBATCH_MAX) counts[0]++; else counts[1]++;
    counts[2] += size;
  }
}

/** The members with work into `order`: those of order up to VBATCH_MAX from 0, the larger from `small`. */
function placeKept(fb: MemberFields, order: Int32Array, small: number): void {
  const rows = fb.rows, cols = fb.cols;
  for (let i = 0, s = 0, l = small; i < fb.count; i++) {
    if (rows[i]! * cols[i]! === 0) continue;
    if (rows[i]! <= VBATCH_MAX) order[s++] = i; else order[l++] = i;
  }
}

/**
 * The tables of the kept members, in their order: B's address (and, with `aside`, the address of
 * its packed copy there, members one after another) and rows, cols, ldB, batch index (the copy's
 * and the permutation's layout).
 */
export function solveTables(dev: GpuDevice, dtype: DType, fb: MemberFields, kept: KeptMembers, aside?: DeviceArray): MemberTables {
  const stride = aside === undefined ? 1 : COPY_VBATCH_POINTERS;
  return uploadBuiltTables(dev, stride, COPY_VBATCH_INTS, (frame) => writeSolveTables(dtype, fb, kept, aside, frame));
}

/** solveTables' two tables, every entry written, from `frame`. */
function writeSolveTables(dtype: DType, fb: MemberFields, kept: KeptMembers, aside: DeviceArray | undefined, frame: HostFrame): { pointers: BigInt64Array; ints: Int32Array } {
  const n = kept.order.length;
  const stride = aside === undefined ? 1 : COPY_VBATCH_POINTERS;
  const bytes = elementBytes(dtype);
  const pointers = frame.bigint64(n * stride);
  const words = addressWords(pointers);
  const ints = frame.int32(n * COPY_VBATCH_INTS);
  // Each member's copy in the aside array, one after the other.
  const places = frame.float64(aside === undefined ? 0 : n);
  if (aside !== undefined) for (let q = 0, at = 0; q < n; q++) { places[q] = at; at += fb.rows[kept.order[q]!]! * fb.cols[kept.order[q]!]!; }
  const fs = aside === undefined ? undefined : arrayFields(aside, places, frame);
  for (let q = 0; q < n; q++) {
    const i = kept.order[q]!;
    putAddress(pointers, words, q * stride, fb, i, bytes);
    if (fs !== undefined) putAddress(pointers, words, q * stride + 1, fs, q, bytes);
    const o = q * COPY_VBATCH_INTS;
    ints[o] = fb.rows[i]!; ints[o + 1] = fb.cols[i]!; ints[o + 2] = fb.ld[i]!; ints[o + 3] = i;
  }
  return { pointers, ints };
}

/**
 * Runs `solve` (which may change every kept member's B) with B kept aside: every kept member's B
 * copied into the workspace (packed) before, and copied back after where info is non-zero, so a
 * failed member's B is unchanged. `solve` gets the tables (pointer stride COPY_VBATCH_POINTERS, B
 * first), which serve the permutation as well.
 */
export function keepingFailed(dev: GpuDevice, dtype: DType, fb: MemberFields, kept: KeptMembers, info: DeviceArray, solve: (tables: MemberTables) => void): void {
  const n = kept.order.length;
  if (n === 0) return;
  const frame = Workspace.of(dev).frame();
  try {
    const aside = frame.take(dtype, kept.elements, `the copy of B kept aside by ${fb.count} solves`);
    const tables = solveTables(dev, dtype, fb, kept, aside);
    try {
      const k = cachedKernel(dev, `copy-vbatched/${dtype}`, () => copyVbatchedSource(dtype));
      const copy = (back: boolean): void => k.launch(vbatchedCopyLaunch(n),
        [arg.ptr(tables.pointers), arg.ptr(tables.ints), arg.ptr(info), arg.i32(n), arg.i32(back ? 1 : 0)]);
      copy(false);
      solve(tables);
      copy(true);
    } finally {
      releaseMemberTables(dev, tables);
    }
  } finally {
    frame.end();
  }
}

type SolveOperands = { readonly a: Batch<DeviceArray>; readonly b: Batch<DeviceArray> };

/**
 * Whether a solve's request (potrs, posv, getrs, gesv) is a variable batch of more than one shape
 * (n, nrhs, ldA, ldB) (the class kernels' case), of at most `membersPerSizeMax` members a distinct
 * order on average, where the class path pays (classPathPaysOf).
 */
function solveVbatchedCoversWithin(r: SolveOperands, dev: GpuDevice, membersPerSizeMax: number): boolean {
  if (r.a.kind !== 'variable' && r.b.kind !== 'variable') return false;
  const count = batchCount(r.b);
  if (count < 2) return false;
  return severalShapesIn([[r.a, 'rows'], [r.b, 'cols'], [r.a, 'ld'], [r.b, 'ld']], count)
    && classPathPaysIn(dev, (frame) => fieldValues(r.a, 'rows', count, frame), membersPerSizeMax);
}

/** solveVbatchedCoversWithin at the general threshold (potrs, getrs, gesv). */
export function solveVbatchedCovers(r: SolveOperands, dev: GpuDevice): boolean {
  return solveVbatchedCoversWithin(r, dev, VBATCH_MEMBERS_PER_SIZE_MAX);
}

/** solveVbatchedCoversWithin at posv's threshold (its fused classes). */
export function posvVbatchedCovers(r: SolveOperands, dev: GpuDevice): boolean {
  return solveVbatchedCoversWithin(r, dev, VBATCH_POSV_MEMBERS_PER_SIZE_MAX);
}
