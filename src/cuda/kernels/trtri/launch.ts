/**
 * trtriCuda: the batched triangular inverse of device batches, in place. Strided batches run as
 * one group; list and variable batches are grouped by size and leading dimension into list
 * batches. Per group:
 * - n <= the leaf: one launch of the register leaf, which also scans the diagonal and leaves a
 *   singular matrix untouched (info as dtrtri);
 * - above: the diagonal scan first (info), then, because the recursion's trmm cannot skip a
 *   matrix, the host waits for info and runs the recursion over the non-singular matrices only
 *   (all of them: the batch as it is; otherwise a list batch of those): one launch of every leaf
 *   of the diagonal, then the off-diagonal blocks by trmm through the trsm family's public face.
 */
import { batchCount, matrixAt, type ListBatch, type MatrixView, type StridedBatch } from '../../../core/batch.js';
import type { Diag, Uplo } from '../../../core/enums.js';
import type { DType } from '../../../core/dtype.js';
import type { TrtriRequest } from '../../../core/ops.js';
import { tuningFor, type TrtriTuning } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import type { FamilyOptions } from '../common/family-options.js';
import { cachedKernel } from '../common/kernel-cache.js';
import { zeroInfo } from '../common/info-zero.js';
import { deviceDtype, operandArgs, sharedLimit, uploadPointers, type OperandArgs } from '../common/operands.js';
import { block, type BlockBatch } from '../common/sub-blocks.js';
import { trmmCuda } from '../trsm/launch.js';
import { trtriLeafSource } from './generate-leaf.js';
import { SCAN_THREADS, trtriScanSource } from './generate-scan.js';
import type { TrtriForce, TrtriPlan, TrtriStep } from './params.js';
import { planTrtri } from './plan.js';

export type TrtriOptions = FamilyOptions<TrtriForce, TrtriTuning>;

type Sub = BlockBatch<DeviceArray>;

/** Matrices of one size and leading dimension. */
export interface TrtriGroup {
  readonly count: number;
  readonly n: number;
  /** The group as the trmm takes it. */
  readonly batch: Sub;
  readonly args: OperandArgs;
  /** int32 map from the group's matrix to its batch index (info), or null for the identity. */
  readonly index: DeviceArray | null;
  /** The same map on the host, or null for the identity. */
  readonly members: readonly number[] | null;
}

export function trtriCuda(dev: GpuDevice, r: TrtriRequest<DeviceArray, DeviceArray>, opts: TrtriOptions = {}): void {
  const count = batchCount(r.a);
  if (count === 0) return;
  const dtype = deviceDtype(r.a);
  const temporaries: DeviceArray[] = [];
  try {
    for (const g of trtriGroups(dev, r.a, count, temporaries)) trtriGroup(dev, dtype, r, g, temporaries, opts);
  } finally {
    if (temporaries.length > 0) {
      dev.synchronize();
      for (const t of temporaries) t.dispose();
    }
  }
}

/** Inverts one group; info[index] for each of its matrices. Temporaries it uploads go to `temporaries`. */
export function trtriGroup(
  dev: GpuDevice, dtype: DType, r: Pick<TrtriRequest<DeviceArray, DeviceArray>, 'uplo' | 'diag' | 'info'>, g: TrtriGroup,
  temporaries: DeviceArray[], opts: TrtriOptions = {},
): void {
  if (g.n === 0) {
    zeroInfo(dev, r.info, g.index, g.count);
    return;
  }
  const tuning = opts.tuning ?? tuningFor(dev.info.arch, 'trtri');
  const plan = planTrtri({ dtype, uplo: r.uplo, diag: r.diag, n: g.n, count: g.count, kind: g.args.kind, sharedLimit: sharedLimit(dev) }, tuning, { force: opts.force });
  if (plan.steps.length === 0) {
    launchLeaf(dev, plan, g.args, g.count, g.n, r.info, g.index);
    return;
  }
  const live = liveMatrices(dev, dtype, r, g, temporaries);
  if (live === null) return;
  const p = live.args.kind === plan.leaf.kind ? plan : { ...plan, leaf: { ...plan.leaf, kind: live.args.kind } };
  launchLeaf(dev, p, live.args, live.count, g.n, null, null);
  for (const step of plan.steps) offDiagonal(dev, r.uplo, r.diag, live.batch, step);
}

/**
 * Inverts every matrix of a strided batch in place, with no info and no host wait: the leaves, then
 * the recursion's trmm steps over the whole batch. For callers that accept a meaningless inverse of
 * a singular triangle (the leaf leaves such a block as it is): the large trsm's diagonal blocks.
 */
export function trtriUnchecked(dev: GpuDevice, dtype: DType, uplo: Uplo, diag: Diag, a: StridedBatch<DeviceArray>, opts: TrtriOptions = {}): void {
  if (a.count === 0 || a.rows === 0) return;
  const tuning = opts.tuning ?? tuningFor(dev.info.arch, 'trtri');
  const plan = planTrtri({ dtype, uplo, diag, n: a.rows, count: a.count, kind: 'strided', sharedLimit: sharedLimit(dev) }, tuning, { force: opts.force });
  const args: OperandArgs = { kind: 'strided', pointer: a.data.ptr, offset: a.offset, stride: a.stride, ld: a.ld, rows: a.rows, cols: a.cols };
  launchLeaf(dev, plan, args, a.count, a.rows, null, null);
  for (const step of plan.steps) offDiagonal(dev, uplo, diag, a, step);
}

/**
 * info for every matrix of the group (the diagonal scan; 0 where the diagonal is unit), and the
 * matrices the recursion may touch: the group itself, its non-singular matrices, or null where
 * none is.
 */
function liveMatrices(
  dev: GpuDevice, dtype: DType, r: Pick<TrtriRequest<DeviceArray, DeviceArray>, 'diag' | 'info'>, g: TrtriGroup, temporaries: DeviceArray[],
): TrtriGroup | null {
  if (r.diag === 'unit') {
    zeroInfo(dev, r.info, g.index, g.count);
    return g;
  }
  const kind = g.args.kind;
  const k = cachedKernel(dev, `trtri-scan/${JSON.stringify({ dtype, kind })}`, () => trtriScanSource({ dtype, kind }));
  k.launch({ grid: [Math.ceil(g.count / SCAN_THREADS), 1, 1], block: [SCAN_THREADS, 1, 1] },
    [...operandArgs(g.args), arg.ptr(g.index === null ? 0n : g.index.ptr), arg.i32(g.count), arg.ptr(r.info), arg.i32(g.n)]);
  return survivors(dev, g, hostInfo(dev, r.info), temporaries);
}

/** Waits for the work enqueued so far and reads info back. */
export function hostInfo(dev: GpuDevice, info: DeviceArray): Int32Array {
  dev.synchronize();
  return dev.download(info) as Int32Array;
}

/**
 * The matrices of group `g` whose info (indexed by batch position) is 0: `g` itself where all are,
 * a list batch of them (identity index: for work that writes no info of the batch), or null.
 */
export function survivors(dev: GpuDevice, g: TrtriGroup, info: Int32Array, temporaries: DeviceArray[]): TrtriGroup | null {
  const good: number[] = [];
  for (let q = 0; q < g.count; q++) if (info[g.members === null ? q : g.members[q]!] === 0) good.push(q);
  if (good.length === g.count) return g;
  if (good.length === 0) return null;
  const views = good.map((q) => matrixAt(g.batch, q));
  const pointers = uploadPointers(dev, views);
  temporaries.push(pointers);
  const args: OperandArgs = { ...g.args, kind: 'pointer', pointer: pointers.ptr, offset: 0, stride: 0 };
  return { count: good.length, n: g.n, batch: listOf(views, g.n), args, index: null, members: null };
}

function launchLeaf(dev: GpuDevice, plan: TrtriPlan, a: OperandArgs, count: number, n: number, info: DeviceArray | null, index: DeviceArray | null): void {
  const p = plan.leaf;
  const k = cachedKernel(dev, `trtri-leaf/${JSON.stringify(p)}`, () => trtriLeafSource(p));
  const matrices = Math.min(plan.matrices, count);
  k.launch({ grid: [Math.ceil(count / matrices), plan.leaves, 1], block: [p.nb, matrices, 1], sharedBytes: plan.sharedBytes }, [
    ...operandArgs(a), arg.ptr(index === null ? 0n : index.ptr), arg.i32(count), arg.ptr(info === null ? 0n : info.ptr), arg.i32(n),
  ]);
}

/** lower: A(hi, lo) := -X(hi, hi) A(hi, lo) X(lo, lo); upper: A(lo, hi) := -X(lo, lo) A(lo, hi) X(hi, hi). */
function offDiagonal(dev: GpuDevice, uplo: TrtriRequest['uplo'], diag: TrtriRequest['diag'], a: Sub, step: TrtriStep): void {
  const { lo, hi } = step;
  const xlo = block(a, lo.off, lo.off, lo.size, lo.size);
  const xhi = block(a, hi.off, hi.off, hi.size, hi.size);
  const lower = uplo === 'lower';
  const b = lower ? block(a, hi.off, lo.off, hi.size, lo.size) : block(a, lo.off, hi.off, lo.size, hi.size);
  const [left, right] = lower ? [xhi, xlo] : [xlo, xhi];
  trmmCuda(dev, { side: 'left', uplo, transA: 'N', diag, alpha: 1, a: left, b });
  trmmCuda(dev, { side: 'right', uplo, transA: 'N', diag, alpha: -1, a: right, b });
}

function listOf(views: readonly MatrixView<DeviceArray>[], n: number): ListBatch<DeviceArray> {
  return { kind: 'list', matrices: views.map((v) => ({ data: v.data, offset: v.offset })), rows: n, cols: n, ld: views[0]!.ld, order: 'col' };
}

/**
 * The groups of a batch: strided as it is; otherwise list batches by (n, ld), pointers and index
 * uploaded. `batchIndex`: where `a` is part of a larger batch, its member i's index there (info's
 * and the groups' `members` then refer to that batch).
 */
export function trtriGroups(dev: GpuDevice, a: TrtriRequest<DeviceArray>['a'], count: number, temporaries: DeviceArray[], batchIndex?: readonly number[]): TrtriGroup[] {
  if (a.kind === 'strided' && batchIndex === undefined) {
    const args: OperandArgs = { kind: 'strided', pointer: a.data.ptr, offset: a.offset, stride: a.stride, ld: a.ld, rows: a.rows, cols: a.cols };
    return [{ count, n: a.rows, batch: a, args, index: null, members: null }];
  }
  const byKey = new Map<string, number[]>();
  for (let i = 0; i < count; i++) {
    const m = matrixAt(a, i);
    const key = `${m.rows}/${m.ld}`;
    const members = byKey.get(key);
    if (members === undefined) byKey.set(key, [i]); else members.push(i);
  }
  const out: TrtriGroup[] = [];
  for (const members of byKey.values()) {
    const views = members.map((i) => matrixAt(a, i));
    const n = views[0]!.rows;
    const pointers = uploadPointers(dev, views);
    temporaries.push(pointers);
    const identity = members.length === count && batchIndex === undefined;
    const indices = batchIndex === undefined ? members : members.map((i) => batchIndex[i]!);
    let index: DeviceArray | null = null;
    if (!identity) {
      index = dev.upload(Int32Array.from(indices));
      temporaries.push(index);
    }
    const args: OperandArgs = { kind: 'pointer', pointer: pointers.ptr, offset: 0, stride: 0, ld: views[0]!.ld, rows: n, cols: n };
    out.push({ count: members.length, n, batch: listOf(views, n), args, index, members: identity ? null : indices });
  }
  return out;
}
