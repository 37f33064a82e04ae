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
import { HostScratch, type HostFrame } from './host-scratch.js';

/** The classes to 32 are the multiples of this (order 0 in the first): log2 of it, for the host's hot loops. */
export const SMALL_CLASS_SHIFT = 3;
export const SMALL_CLASS_STEP = 1 << SMALL_CLASS_SHIFT;

/** The class bounds, ascending: the multiples of SMALL_CLASS_STEP to 32, then 48, 64 and the powers of two to VBATCH_MAX (sizeClass). */
export const VBATCH_CLASSES: readonly number[] = [
  ...Array.from({ length: 32 / SMALL_CLASS_STEP }, (_, i) => (i + 1) * SMALL_CLASS_STEP), 48, 64, 128, 256, 512,
];

/** The largest member size a class takes; larger members keep the per-size path. */
export const VBATCH_MAX = 512;

/**
 * getrf's, trsm's and the solves' (potrs, posv, getrs, gesv) class paths make several passes of
 * per-member host work on every call (classes, tables, the trsm updates' blocks and their GEMMs'
 * classes), so they pay only where the per-size path has many distinct sizes to launch. Measured on an H200 (2026-11-29, `myriad bench <op> --vbatched a|b --dtype both`): 20,000
 * square members over 512 sizes (39 a size) ran 5.3-7.0x faster by classes than per size; 200,000
 * over 64 sizes (3,125 a size) 0.09-0.89x. Those families take the class path where a variable
 * batch's members per distinct size average at most this, about the geometric middle of the two
 * (posv: VBATCH_POSV_MEMBERS_PER_SIZE_MAX).
 */
export const VBATCH_MEMBERS_PER_SIZE_MAX = 350;

/**
 * posv's threshold: its members up to 32 take one fused launch a class (the factorisation and both
 * sweeps), which the per-size path's three launches a size do not match. Measured on an H200
 * (2026-12-01, `myriad bench posv --vbatched a --dtype float64 --ways vbatched,per-size`): 200,000
 * members over 64 sizes (3,125 a size) took 43.2 ms by classes against 92.9 per size. gesv's fused
 * classes only drew level there (64.5 against 64.0 ms), so gesv keeps the general threshold.
 */
export const VBATCH_POSV_MEMBERS_PER_SIZE_MAX = 3200;

/**
 * Whether a batch pays on the class path: `keys[i]` is member i's size as the per-size path groups
 * it (a non-negative integer below 2^53; a covers' sizes read in one pass of their own), counted
 * distinct in one pass (a flat hash set: no Set entry per member).
 */
export function classPathPaysOf(keys: Float64Array, membersPerSizeMax = VBATCH_MEMBERS_PER_SIZE_MAX): boolean {
  const seen = new DistinctKeys();
  const count = keys.length;
  for (let i = 0; i < count; i++) {
    seen.add(keys[i]!);
    if (count <= membersPerSizeMax * seen.size) return true;
  }
  return false;
}

/**
 * classPathPaysOf on the keys `keysOf` writes into a host scratch frame of `dev`: a covers is asked
 * on every call, and a fresh array of 200,000 keys per call costs more than reading them (its
 * external memory makes V8 collect).
 */
export function classPathPaysIn(dev: GpuDevice, keysOf: (frame: HostFrame) => Float64Array, membersPerSizeMax = VBATCH_MEMBERS_PER_SIZE_MAX): boolean {
  const frame = HostScratch.of(dev).frame();
  try {
    return classPathPaysOf(keysOf(frame), membersPerSizeMax);
  } finally {
    frame.end();
  }
}

/** Keys below this are counted in a flat table, without a hash (sizes: a member's order, say). */
const SMALL_KEYS = 1024;

/**
 * Distinct non-negative integer keys (below 2^53), counted: those below SMALL_KEYS in a flat table,
 * the others by open addressing in a typed array.
 */
class DistinctKeys {
  size = 0;
  private small = new Uint8Array(SMALL_KEYS);
  private slots = new Float64Array(256).fill(-1);
  private mask = 255;
  /** Keys in `slots`. */
  private hashed = 0;
  /** The last key added (a run of equal keys costs one comparison). */
  private last = -1;

  add(key: number): void {
    if (key === this.last) return;
    this.last = key;
    if (key < SMALL_KEYS) {
      if (this.small[key] === 0) { this.small[key] = 1; this.size++; }
      return;
    }
    let h = (Math.imul(key | 0, 0x9e3779b1) ^ Math.imul((key / 4294967296) | 0, 0x85ebca6b)) & this.mask;
    for (;;) {
      const v = this.slots[h]!;
      if (v === key) return;
      if (v === -1) break;
      h = (h + 1) & this.mask;
    }
    this.slots[h] = key;
    this.size++;
    if (++this.hashed * 2 > this.mask) this.grow();
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Float64Array(old.length * 2).fill(-1);
    this.mask = this.slots.length - 1;
    this.size -= this.hashed;
    this.hashed = 0;
    this.last = -1;
    for (const k of old) if (k !== -1) this.add(k);
  }
}

/** The class bound of a member of size `d` (undefined beyond VBATCH_MAX). */
export function sizeClass(d: number): number | undefined {
  if (!(Number.isInteger(d) && d >= 0)) throw new MyriadError('INVALID_ARGUMENT', `a member's size must be a non-negative integer, got ${d}`, 'size');
  if (d <= 32) return Math.max(SMALL_CLASS_STEP, Math.ceil(d / SMALL_CLASS_STEP) * SMALL_CLASS_STEP);
  if (d <= 64) return Math.ceil(d / 16) * 16;
  if (d > VBATCH_MAX) return undefined;
  return 2 ** Math.ceil(Math.log2(d));
}

/** One launch: the class bound and its members' batch indices in launch order. */
export interface SizeClass {
  readonly bound: number;
  /** A view of the plan's one order array (no array per class). */
  readonly members: Int32Array;
}

export interface ClassPlan {
  /** Non-empty classes, largest bound first. */
  readonly classes: readonly SizeClass[];
  /** Every member of the classes in launch order (the classes' `members` are views of it). */
  readonly order: Int32Array;
  /**
   * Per batch index, its place in `order` (-1: not in a class). The tables are filled in batch
   * order through it: reading the members' fields in order and scattering one row per member
   * costs a fraction of gathering a dozen fields per member in launch order.
   */
  readonly place: Int32Array;
  /** Batch indices of members beyond VBATCH_MAX (batch order). */
  readonly large: readonly number[];
}

/** A size that says "nothing to do" in an Int32Array of sizes (where undefined cannot be stored). */
export const NO_WORK = -1;

/**
 * Pure: the classes of members whose sizes are `sizes` (undefined or NO_WORK: the member needs no
 * work and is left out), largest class first, each class's members by size descending, ties in
 * batch order. `frame`: order and place come from it (valid until it ends: a launcher's plan
 * that is not kept); absent, fresh arrays.
 *
 * One counting sort by size, in O(count + VBATCH_MAX): a class is a range of sizes, so the members
 * sorted by size descending (stably) are already the classes from the largest down, each in the
 * order it launches in. A call of 200,000 members costs about a millisecond here, where a Map of
 * arrays and a comparator sort per class cost tens.
 */
export function planClasses(sizes: ArrayLike<number | undefined>, frame?: HostFrame): ClassPlan {
  const count = sizes.length;
  const perSize = new Int32Array(VBATCH_MAX + 1);
  const large: number[] = [];
  countSizes(sizes, perSize, large);
  // next[d]: where the next member of size d goes (sizes descending).
  const next = new Int32Array(VBATCH_MAX + 1);
  let placed = 0;
  for (let d = VBATCH_MAX; d >= 0; d--) { next[d] = placed; placed += perSize[d]!; }
  const order = frame === undefined ? new Int32Array(placed) : frame.int32(placed);
  const place = (frame === undefined ? new Int32Array(count) : frame.int32(count)).fill(-1);
  placeMembers(sizes, next, order, place);
  // Class c takes the sizes (bound of class c - 1, bound of c]; size 0 is in the first.
  const classes: SizeClass[] = [];
  let end = placed;
  for (let c = 0; c < VBATCH_CLASSES.length; c++) {
    const bound = VBATCH_CLASSES[c]!;
    let n = 0;
    for (let d = c === 0 ? 0 : VBATCH_CLASSES[c - 1]! + 1; d <= bound; d++) n += perSize[d]!;
    if (n > 0) classes.push({ bound, members: order.subarray(end - n, end) });
    end -= n;
  }
  return { classes: classes.reverse(), order, place, large };
}

/*
 * planClasses' two passes over the members, each alone in its function: code after a loop of
 * 200,000 members has no type feedback when the loop is first optimised, and would throw that code
 * away on every call.
 */

/** perSize[d] := the members of size d (up to VBATCH_MAX); the larger members' batch indices to `large`. */
function countSizes(sizes: ArrayLike<number | undefined>, perSize: Int32Array, large: number[]): void {
  for (let i = 0; i < sizes.length; i++) {
    const d = sizes[i];
    if (d === undefined || d === NO_WORK) continue;
    if (!(Number.isInteger(d) && d >= 0)) sizeClass(d); // throws, naming the size
    if (d > VBATCH_MAX) large.push(i); else perSize[d]!++;
  }
}

/** Each member up to VBATCH_MAX at next[d]++ of `order` (its size d), its place there in `place`. */
function placeMembers(sizes: ArrayLike<number | undefined>, next: Int32Array, order: Int32Array, place: Int32Array): void {
  for (let i = 0; i < sizes.length; i++) {
    const d = sizes[i];
    if (d === undefined || d === NO_WORK || d > VBATCH_MAX) continue;
    const q = next[d]!++;
    order[q] = i;
    place[i] = q;
  }
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

/**
 * Tables written by `build` into a host scratch frame (host-scratch.ts) and uploaded, the frame
 * ended once they are (the upload has read the host bytes when it returns).
 */
export function uploadBuiltTables(
  dev: GpuDevice, pointerStride: number, intStride: number, build: (frame: HostFrame) => { readonly pointers: BigInt64Array; readonly ints: Int32Array },
): MemberTables {
  const frame = HostScratch.of(dev).frame();
  try {
    const t = build(frame);
    return uploadMemberTables(dev, t.pointers, pointerStride, t.ints, intStride);
  } finally {
    frame.end();
  }
}

/** Waits for the launches that read the tables, then frees them. */
export function releaseMemberTables(dev: GpuDevice, t: MemberTables): void {
  dev.synchronize();
  t.dispose();
}
