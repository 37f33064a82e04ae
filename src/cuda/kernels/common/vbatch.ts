/**
 * Variable-size batches in a few launches (MAGMA's vbatched form), shared by the gemm and potrf
 * families: each member's size is rounded up to a size class, and one kernel per class, masked
 * inside it, serves every member of the class, reading each member's pointers and sizes from
 * device tables uploaded once per call.
 *
 * Classes (the bound of a member of size d, d >= 0):
 * - d <= 32: the next multiple of 8 (8, 16, 24, 32; d = 0 is in class 8);
 * - 32 < d <= 64: the next multiple of 16 (48, 64);
 * - 64 < d <= VBATCH_MAX: the next power of two (128, 256, 512).
 * Nine classes, so at most nine launches per call for members up to VBATCH_MAX; members larger
 * than VBATCH_MAX keep the per-size path (one launch, or one plan, per distinct shape).
 *
 * Order: classes from the largest bound down (the longest blocks start first); inside a class the
 * members by size, largest first, ties in batch order, so the blocks of one launch that start
 * together have about the same work and finish together.
 */
import { MyriadError } from '../../../core/errors.js';
import type { DeviceArray, GpuDevice } from '../../runtime/types.js';

/** The class bounds, ascending. */
export const VBATCH_CLASSES: readonly number[] = [8, 16, 24, 32, 48, 64, 128, 256, 512];

/** The largest member size a class takes; larger members keep the per-size path. */
export const VBATCH_MAX = 512;

/** The class bound of a member of size `d` (undefined beyond VBATCH_MAX). */
export function sizeClass(d: number): number | undefined {
  if (!(Number.isInteger(d) && d >= 0)) throw new MyriadError('INVALID_ARGUMENT', `a member's size must be a non-negative integer, got ${d}`, 'size');
  if (d <= 32) return Math.max(8, Math.ceil(d / 8) * 8);
  if (d <= 64) return Math.ceil(d / 16) * 16;
  if (d > VBATCH_MAX) return undefined;
  return 2 ** Math.ceil(Math.log2(d));
}

/** One launch: the class bound and its members' batch indices in launch order. */
export interface SizeClass {
  readonly bound: number;
  readonly members: readonly number[];
}

export interface ClassPlan {
  /** Non-empty classes, largest bound first. */
  readonly classes: readonly SizeClass[];
  /** Batch indices of members beyond VBATCH_MAX (batch order). */
  readonly large: readonly number[];
}

/**
 * Pure: the classes of members whose sizes are `sizes` (undefined: the member needs no work and
 * is left out), largest class first, each class's members by size descending, ties in batch order.
 */
export function planClasses(sizes: readonly (number | undefined)[]): ClassPlan {
  const byClass = new Map<number, number[]>();
  const large: number[] = [];
  sizes.forEach((d, i) => {
    if (d === undefined) return;
    const bound = sizeClass(d);
    if (bound === undefined) { large.push(i); return; }
    const list = byClass.get(bound);
    if (list === undefined) byClass.set(bound, [i]); else list.push(i);
  });
  const classes = [...byClass.entries()].sort((x, y) => y[0] - x[0]).map(([bound, members]): SizeClass => ({
    bound,
    // Array.prototype.sort is stable: equal sizes keep batch order.
    members: members.sort((x, y) => sizes[y]! - sizes[x]!),
  }));
  return { classes, large };
}

/**
 * The per-call device tables of a vbatched launch: `pointers` (int64, `pointerStride` per member)
 * and `ints` (int32, `intStride` per member), members in launch order, class after class.
 * `at(q)` gives the two device addresses of member q's entries (a class's launch passes those of
 * its first member).
 */
export interface MemberTables {
  readonly pointers: DeviceArray;
  readonly ints: DeviceArray;
  at(q: number): { readonly pointers: bigint; readonly ints: bigint };
  dispose(): void;
}

/** Uploads the two tables (one upload each per call, whatever the number of classes). */
export function uploadMemberTables(dev: GpuDevice, pointers: BigInt64Array, pointerStride: number, ints: Int32Array, intStride: number): MemberTables {
  const p = dev.upload(pointers);
  let i: DeviceArray;
  try {
    i = dev.upload(ints);
  } catch (e) {
    p.dispose();
    throw e;
  }
  return {
    pointers: p, ints: i,
    at: (q) => ({ pointers: p.ptr + BigInt(q * pointerStride * 8), ints: i.ptr + BigInt(q * intStride * 4) }),
    dispose: () => { p.dispose(); i.dispose(); },
  };
}

/** Waits for the launches that read the tables, then frees them. */
export function releaseMemberTables(dev: GpuDevice, t: MemberTables): void {
  dev.synchronize();
  t.dispose();
}

/** The device address of element `offset` of `data` (the pointer-array form's entries). */
export function elementAddress(data: DeviceArray, offset: number, bytes: number): bigint {
  return BigInt.asIntN(64, data.ptr + BigInt(offset) * BigInt(bytes));
}
