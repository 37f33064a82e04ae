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
import { batchCount, type Batch, type MatrixView } from '../../../core/batch.js';
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
 * batch order.
 *
 * One counting sort by size, in O(count + VBATCH_MAX): a class is a range of sizes, so the members
 * sorted by size descending (stably) are already the classes from the largest down, each in the
 * order it launches in. A call of 200,000 members costs about a millisecond here, where a Map of
 * arrays and a comparator sort per class cost tens.
 */
export function planClasses(sizes: ArrayLike<number | undefined>): ClassPlan {
  const count = sizes.length;
  const perSize = new Int32Array(VBATCH_MAX + 1);
  const large: number[] = [];
  for (let i = 0; i < count; i++) {
    const d = sizes[i];
    if (d === undefined || d === NO_WORK) continue;
    if (!(Number.isInteger(d) && d >= 0)) sizeClass(d); // throws, naming the size
    if (d > VBATCH_MAX) large.push(i); else perSize[d]!++;
  }
  // next[d]: where the next member of size d goes (sizes descending).
  const next = new Int32Array(VBATCH_MAX + 1);
  let placed = 0;
  for (let d = VBATCH_MAX; d >= 0; d--) { next[d] = placed; placed += perSize[d]!; }
  const order = new Int32Array(placed);
  const place = new Int32Array(count).fill(-1);
  for (let i = 0; i < count; i++) {
    const d = sizes[i];
    if (d === undefined || d === NO_WORK || d > VBATCH_MAX) continue;
    const q = next[d]!++;
    order[q] = i;
    place[i] = q;
  }
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

/**
 * The per-member fields of a device batch in flat arrays, read once (for a variable batch: one
 * pass over its member objects; no object per member is made). A member's array is a slot in
 * `arrays` (a batch usually lies in one or a few), with that array's address split into two
 * 32-bit words, so that the tables' addresses are written without a BigInt per member.
 */
export interface MemberFields {
  readonly count: number;
  readonly rows: Int32Array;
  readonly cols: Int32Array;
  readonly ld: Int32Array;
  /** Elements from the start of the member's array (an offset may exceed 2^31). */
  readonly offset: Float64Array;
  /** The member's array: `arrays[slot[i]]`. */
  readonly slot: Int32Array;
  readonly arrays: readonly DeviceArray[];
  /** Low and high 32 bits of each array's address. */
  readonly baseLo: Float64Array;
  readonly baseHi: Float64Array;
}

export function memberFields(b: Batch<DeviceArray>): MemberFields {
  const count = batchCount(b);
  const rows = new Int32Array(count), cols = new Int32Array(count), ld = new Int32Array(count);
  const offset = new Float64Array(count);
  const slot = new Int32Array(count);
  const arrays: DeviceArray[] = [];
  if (b.kind === 'strided') {
    rows.fill(b.rows); cols.fill(b.cols); ld.fill(b.ld);
    for (let i = 0; i < count; i++) offset[i] = b.offset + i * b.stride;
    arrays.push(b.data);
  } else {
    const slots = new Map<DeviceArray, number>();
    let last: DeviceArray | undefined, lastSlot = -1;
    const slotOf = (d: DeviceArray): number => {
      if (d === last) return lastSlot;
      let s = slots.get(d);
      if (s === undefined) { s = arrays.length; arrays.push(d); slots.set(d, s); }
      last = d;
      return (lastSlot = s);
    };
    if (b.kind === 'variable') {
      const m = b.matrices;
      for (let i = 0; i < count; i++) {
        const v = m[i]!;
        rows[i] = v.rows; cols[i] = v.cols; ld[i] = v.ld; offset[i] = v.offset; slot[i] = slotOf(v.data);
      }
    } else {
      rows.fill(b.rows); cols.fill(b.cols); ld.fill(b.ld);
      const m = b.matrices;
      for (let i = 0; i < count; i++) { offset[i] = m[i]!.offset; slot[i] = slotOf(m[i]!.data); }
    }
  }
  const baseLo = new Float64Array(arrays.length), baseHi = new Float64Array(arrays.length);
  arrays.forEach((d, s) => {
    const p = BigInt.asUintN(64, d.ptr);
    baseLo[s] = Number(p & 0xffffffffn);
    baseHi[s] = Number(p >> 32n);
  });
  return { count, rows, cols, ld, offset, slot, arrays, baseLo, baseHi };
}

/** Member i as a view (for the few members a launcher hands on to another path). */
export function memberView(f: MemberFields, i: number): MatrixView<DeviceArray> {
  return { data: f.arrays[f.slot[i]!]!, offset: f.offset[i]!, ld: f.ld[i]!, rows: f.rows[i]!, cols: f.cols[i]! };
}

const TWO_32 = 4294967296;
/** Whether int64 entries can be written as two uint32 words, low first (every platform CUDA runs on). */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** The 32-bit words of an int64 table (`putAddress` writes through them). */
export function addressWords(table: BigInt64Array): Uint32Array {
  return new Uint32Array(table.buffer, table.byteOffset, table.length * 2);
}

/**
 * Entry q of `table` := the address of member i of `f` (`bytes` per element), the value
 * `elementAddress` gives, without a BigInt: x = low word + byte offset is exact in a double (below
 * 2^53), its low 32 bits are the entry's low word and its carry goes to the high word, whose
 * `>>> 0` keeps its low 32 bits: the int64 wrap of BigInt.asIntN(64). No branch either: a carry taken for the first time in optimised code would
 * throw that code away mid-loop. On a big-endian platform the entry is written as a BigInt.
 */
export function putAddress(table: BigInt64Array, words: Uint32Array, q: number, f: MemberFields, i: number, bytes: number): void {
  const s = f.slot[i]!;
  if (!LITTLE_ENDIAN) { table[q] = elementAddress(f.arrays[s]!, f.offset[i]!, bytes); return; }
  const x = f.baseLo[s]! + f.offset[i]! * bytes;
  const carry = Math.floor(x / TWO_32);
  // Subtraction and `>>> 0`, not `%`: a double remainder is a call to fmod, several times slower.
  words[2 * q] = x - carry * TWO_32;
  words[2 * q + 1] = (f.baseHi[s]! + carry) >>> 0;
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
