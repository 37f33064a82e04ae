/**
 * A device batch's members as flat typed arrays, and int64 address tables written from them:
 * the launchers of variable batches (the class kernels' tables, the per-size groups and their
 * pointer arrays; the --vbatched bench's vendor runs too) handle 200,000 members without an
 * object, a string or a BigInt per member.
 */
import { batchCount, type Batch, type ListEntry, type MatrixView } from '../../../core/batch.js';
import type { DeviceArray } from '../../runtime/types.js';
import type { HostFrame } from './host-scratch.js';

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

/** `frame`: the fields' arrays come from it (valid until it ends); absent, fresh arrays. */
export function memberFields(b: Batch<DeviceArray>, frame?: HostFrame): MemberFields {
  const count = batchCount(b);
  const rows = int32s(count, frame), cols = int32s(count, frame), ld = int32s(count, frame);
  const offset = frame === undefined ? new Float64Array(count) : frame.float64(count);
  const slot = int32s(count, frame);
  const arrays: DeviceArray[] = [];
  if (b.kind === 'strided') {
    rows.fill(b.rows); cols.fill(b.cols); ld.fill(b.ld);
    for (let i = 0; i < count; i++) offset[i] = b.offset + i * b.stride;
    slot.fill(0);
    arrays.push(b.data);
  } else {
    if (b.kind !== 'variable') { rows.fill(b.rows); cols.fill(b.cols); ld.fill(b.ld); }
    readMembers(b.matrices, b.kind === 'variable', rows, cols, ld, offset, slot, arrays);
  }
  const baseLo = new Float64Array(arrays.length), baseHi = new Float64Array(arrays.length);
  arrays.forEach((d, s) => {
    const p = BigInt.asUintN(64, d.ptr);
    baseLo[s] = Number(p & 0xffffffffn);
    baseHi[s] = Number(p >> 32n);
  });
  return { count, rows, cols, ld, offset, slot, arrays, baseLo, baseHi };
}

/** `length` int32 entries from `frame` (contents undefined), or fresh ones. */
export const int32s = (length: number, frame: HostFrame | undefined): Int32Array => (frame === undefined ? new Int32Array(length) : frame.int32(length));

/**
 * The member loop of memberFields for a list or variable batch (`shapes`: read each member's rows,
 * cols and ld too), alone in its function: code run once per call after a loop of 200,000 members
 * would have no type feedback when the loop is first optimised, and would throw that code away on
 * every call.
 */
function readMembers(
  m: readonly (ListEntry<DeviceArray> | MatrixView<DeviceArray>)[], shapes: boolean,
  rows: Int32Array, cols: Int32Array, ld: Int32Array, offset: Float64Array, slot: Int32Array, arrays: DeviceArray[],
): void {
  // A member's array is usually the previous member's: a comparison, the Map only on a change.
  const slots = new Map<DeviceArray, number>();
  let last: DeviceArray | undefined, lastSlot = -1;
  for (let i = 0; i < m.length; i++) {
    const v = m[i]!;
    if (shapes) {
      const w = v as MatrixView<DeviceArray>;
      rows[i] = w.rows; cols[i] = w.cols; ld[i] = w.ld;
    }
    offset[i] = v.offset;
    const d = v.data;
    if (d !== last) {
      let s = slots.get(d);
      if (s === undefined) { s = arrays.length; arrays.push(d); slots.set(d, s); }
      last = d;
      lastSlot = s;
    }
    slot[i] = lastSlot;
  }
}

/** A batch's member shapes only (rows, cols, ld): what a router's `covers` reads, for host and device batches alike (no addresses). */
export interface MemberShapes {
  readonly rows: Int32Array;
  readonly cols: Int32Array;
  readonly ld: Int32Array;
}

/** The rows, cols and ld of every member of `b` (any storage: a covers is asked before host data is staged). */
export function memberShapes(b: Batch<unknown>): MemberShapes {
  const count = batchCount(b);
  const rows = new Int32Array(count), cols = new Int32Array(count), ld = new Int32Array(count);
  if (b.kind !== 'variable') {
    rows.fill(b.rows); cols.fill(b.cols); ld.fill(b.ld);
  } else {
    const m = b.matrices;
    for (let i = 0; i < count; i++) {
      const w = m[i]!;
      rows[i] = w.rows; cols[i] = w.cols; ld[i] = w.ld;
    }
  }
  return { rows, cols, ld };
}

/**
 * Members that all lie in one array `d`, at element offsets `offsets` (a scratch array a launcher
 * lays out itself): the address fields only (putAddress reads them); their shapes are the caller's.
 */
export function arrayFields(d: DeviceArray, offsets: Float64Array, frame?: HostFrame): MemberFields {
  const count = offsets.length;
  const p = BigInt.asUintN(64, d.ptr);
  // rows, cols and ld are zeros (putAddress reads none of them); every slot is array 0.
  const none = int32s(count, frame).fill(0);
  return {
    count, rows: none, cols: none, ld: none, offset: offsets, slot: none, arrays: [d],
    baseLo: Float64Array.of(Number(p & 0xffffffffn)), baseHi: Float64Array.of(Number(p >> 32n)),
  };
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
 * BigInt.asIntN(64, ptr + offset * bytes), without a BigInt: x = low word + byte offset is exact
 * in a double (below 2^53), its low 32 bits are the entry's low word and its carry goes to the
 * high word, whose `>>> 0` keeps its low 32 bits: the int64 wrap of BigInt.asIntN(64). No branch
 * either: a carry taken for the first time in optimised code would throw that code away
 * mid-loop. On a big-endian platform the entry is written as a BigInt.
 */
export function putAddress(table: BigInt64Array, words: Uint32Array, q: number, f: MemberFields, i: number, bytes: number): void {
  const s = f.slot[i]!;
  if (!LITTLE_ENDIAN) { table[q] = BigInt.asIntN(64, f.arrays[s]!.ptr + BigInt(f.offset[i]!) * BigInt(bytes)); return; }
  const x = f.baseLo[s]! + f.offset[i]! * bytes;
  const carry = Math.floor(x / TWO_32);
  // Subtraction and `>>> 0`, not `%`: a double remainder is a call to fmod, several times slower.
  words[2 * q] = x - carry * TWO_32;
  words[2 * q + 1] = (f.baseHi[s]! + carry) >>> 0;
}


/** Whether some member differs from member 0 in one of `fields` (a variable batch of several shapes). */
export function severalShapes(fields: readonly Int32Array[]): boolean {
  for (const f of fields) {
    const first = f[0];
    for (let i = 1; i < f.length; i++) if (f[i] !== first) return true;
  }
  return false;
}

/** A shape field of a batch's members. */
export type ShapeField = 'rows' | 'cols' | 'ld';

/** Member i's `field` (a strided or list batch's members all have the batch's). */
export const shapeField = (b: Batch<unknown>, field: ShapeField, i: number): number => (b.kind === 'variable' ? b.matrices[i]![field] : b[field]);

/**
 * Every member's `field` (a strided or list batch's own for each of its `count`), in one pass that
 * reads one named field (a covers' sizes: no call and no field looked up by name per member).
 * `frame`: the array comes from it (valid until it ends); absent, a fresh one.
 */
export function fieldValues(b: Batch<unknown>, field: ShapeField, count: number, frame?: HostFrame): Float64Array {
  const out = frame === undefined ? new Float64Array(count) : frame.float64(count);
  if (b.kind !== 'variable') return out.fill(b[field]);
  if (field === 'rows') rowsOf(b.matrices, out); else if (field === 'cols') colsOf(b.matrices, out); else ldOf(b.matrices, out);
  return out;
}

/*
 * fieldValues' loops, each alone in its function: a loop of 200,000 members optimised while it
 * runs, beside code that has not run yet, would throw that code away on every call.
 */
function rowsOf(m: readonly MatrixView<unknown>[], out: Float64Array): void {
  for (let i = 0; i < out.length; i++) out[i] = m[i]!.rows;
}
function colsOf(m: readonly MatrixView<unknown>[], out: Float64Array): void {
  for (let i = 0; i < out.length; i++) out[i] = m[i]!.cols;
}
function ldOf(m: readonly MatrixView<unknown>[], out: Float64Array): void {
  for (let i = 0; i < out.length; i++) out[i] = m[i]!.ld;
}

/** keys[i] := keys[i] * scale + low[i]: two fields in one key (classPathPaysOf's), in place. */
export function pairKeys(keys: Float64Array, scale: number, low: Float64Array): Float64Array {
  for (let i = 0; i < keys.length; i++) keys[i] = keys[i]! * scale + low[i]!;
  return keys;
}

/**
 * severalShapes on the members themselves: whether some member of `count` differs from member 0 in
 * one of `fields` (a batch and a field each), read where they are (a router's `covers`, asked on
 * every call, makes no array; a variable batch of several shapes usually answers at member 1).
 */
export function severalShapesIn(fields: readonly (readonly [Batch<unknown>, ShapeField])[], count: number): boolean {
  for (const [b, field] of fields) {
    if (b.kind !== 'variable') continue;
    const m = b.matrices, first = m[0]![field];
    for (let i = 1; i < count; i++) if (m[i]![field] !== first) return true;
  }
  return false;
}

/** The addresses of members `members` of `f`, in that order (a pointer array's contents). */
export function memberAddresses(f: MemberFields, members: ArrayLike<number>, bytes: number): BigInt64Array {
  const table = new BigInt64Array(members.length);
  const words = addressWords(table);
  for (let q = 0; q < members.length; q++) putAddress(table, words, q, f, members[q]!, bytes);
  return table;
}

/**
 * The places of `batches`' members (all of one count) grouped by every batch's rows, cols and ld
 * (groupMembers' order: first appearance, batch order inside a group). Shapes only, so any storage:
 * the own launchers', the vendor routes' and the complex shape groups' grouping.
 */
export function groupByShape(batches: readonly Batch<unknown>[], count: number): number[][] {
  return groupMembers(count, batches.flatMap((b) => {
    const s = memberShapes(b);
    return [s.rows, s.cols, s.ld];
  }));
}

/**
 * The members (0 .. count - 1) grouped by equal values of every array of `fields` (member i's key
 * is fields[0][i], fields[1][i], ...): groups in order of first appearance, each in batch order.
 * A hash of the key finds the group, compared field by field (no key string per member); a member
 * of the previous member's group is found without the hash.
 */
export function groupMembers(count: number, fields: readonly Int32Array[]): number[][] {
  const groups: number[][] = [];
  const byHash = new Map<number, number[]>();
  const same = (g: number, i: number): boolean => {
    const j = groups[g]![0]!;
    for (const f of fields) if (f[i] !== f[j]) return false;
    return true;
  };
  let last = -1;
  for (let i = 0; i < count; i++) {
    if (last >= 0 && same(last, i)) { groups[last]!.push(i); continue; }
    let h = 0;
    for (const f of fields) h = Math.imul(h ^ f[i]!, 0x9e3779b1) ^ (h >>> 15);
    let candidates = byHash.get(h);
    let g = -1;
    if (candidates !== undefined) for (const c of candidates) if (same(c, i)) { g = c; break; }
    if (g < 0) {
      g = groups.length;
      groups.push([]);
      if (candidates === undefined) byHash.set(h, (candidates = []));
      candidates.push(g);
    }
    groups[g]!.push(i);
    last = g;
  }
  return groups;
}

/** Blocks of members, one per entry q: member `member[q]`'s rows[q] x cols[q] block at (r0[q], c0[q]). */
export interface MemberBlocks {
  readonly count: number;
  readonly member: Int32Array;
  readonly r0: Int32Array;
  readonly c0: Int32Array;
  readonly rows: Int32Array;
  readonly cols: Int32Array;
}

/**
 * The blocks `b` of `parent`'s members as members of their own (each in its member's array, with its
 * ld), for a launcher that hands sub-blocks of its members to another's variable-size launcher.
 * `frame`: the arrays come from it (valid until it ends); absent, fresh arrays.
 */
export function blockFields(parent: MemberFields, b: MemberBlocks, frame?: HostFrame): MemberFields {
  const count = b.count;
  const ld = int32s(count, frame), slot = int32s(count, frame);
  const offset = frame === undefined ? new Float64Array(count) : frame.float64(count);
  const pld = parent.ld, poff = parent.offset, pslot = parent.slot;
  for (let q = 0; q < count; q++) {
    const i = b.member[q]!;
    ld[q] = pld[i]!; slot[q] = pslot[i]!;
    offset[q] = poff[i]! + b.r0[q]! + b.c0[q]! * pld[i]!;
  }
  return { count, rows: b.rows.subarray(0, count), cols: b.cols.subarray(0, count), ld, offset, slot, arrays: parent.arrays, baseLo: parent.baseLo, baseHi: parent.baseHi };
}
