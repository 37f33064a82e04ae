/**
 * A variable batch on launchers that take strided and list batches only (the complex families):
 * the members grouped by the shape and leading dimension of every batch of the request (members.ts
 * `groupByShape`, in order of first appearance, each group in batch order), and each group run as a
 * list batch of its members' addresses, one launcher call per group (the per-size path of the real
 * families, which group inside their kernels' pointer arrays).
 *
 * The per-matrix integers stay the request's: a group's launcher writes info and pivots into
 * compact arrays of the call's workspace frame (q = 0 .. members - 1; pivots min(m, n) apart, the
 * group's own pivot stride), and a kernel scatters them to the members' places in the batch
 * (int-move.ts; pivots `pivotStride` apart, the batch's largest min(m, n)); pivots a launcher reads
 * (getrs) are gathered the same way before it runs. Every group's places go to the frame in one
 * upload on the device's stream, before the first launch; an operation without per-matrix integers
 * uploads nothing. A batch of one shape in order needs neither: its group gets the request's arrays. Groups run one after another on the device's stream, each
 * a launcher call of its own, so what the launchers promise per matrix holds per member: info in
 * the member's place, a failed member's B kept by posv and gesv, no NaN spread between members.
 */
import { batchCount, matrixAt, type Batch, type ListBatch, type StridedBatch, type VariableBatch } from '../../../core/batch.js';
import type { OpName } from '../../../core/ops.js';
import { OP_SPECS } from '../../../core/op-specs.js';
import { Workspace } from '../../runtime/workspace.js';
import type { DeviceArray, GpuDevice } from '../../runtime/types.js';
import { gatherInts, scatterInts } from './int-move.js';
import { groupByShape } from './members.js';

type Fields = Record<string, unknown>;

/** Per operation, from its spec once: its batch fields and its per-matrix integer fields (info, ipiv), in the request's order. */
const FIELDS = new Map<OpName, { readonly batches: readonly string[]; readonly ints: readonly string[] }>();
function fieldsOf(op: OpName): { readonly batches: readonly string[]; readonly ints: readonly string[] } {
  let f = FIELDS.get(op);
  if (f === undefined) {
    const args = Object.entries(OP_SPECS[op].args);
    f = { batches: args.filter(([, kind]) => kind === 'batch' || kind === 'batch?').map(([name]) => name), ints: args.filter(([, kind]) => kind === 'ints').map(([name]) => name) };
    FIELDS.set(op, f);
  }
  return f;
}

/** The batch fields of `op` present in `r`, in the request's order. */
export function batchFields(op: OpName, r: Fields): string[] {
  return fieldsOf(op).batches.filter((f) => r[f] !== undefined);
}

/** Whether a request of `op` has a variable batch (the case the groups are for); asked on every complex call, so no array is made. */
export function hasVariableBatch(op: OpName, r: Fields): boolean {
  for (const f of fieldsOf(op).batches) if ((r[f] as Batch<unknown> | undefined)?.kind === 'variable') return true;
  return false;
}

/** The members of a request's batches (one count) grouped by every batch's rows, cols and ld (members.ts `groupByShape`). */
export function shapeGroups(batches: readonly Batch<unknown>[]): number[][] {
  return batches.length === 0 ? [] : groupByShape(batches, batchCount(batches[0]!));
}

/** Members `members` of `b` (one shape and ld) as a list batch of their places, with b's element type. */
export function memberList<S>(b: Batch<S>, members: readonly number[]): ListBatch<S> {
  const first = matrixAt(b, members[0]!);
  const matrices = members.map((i) => {
    const m = matrixAt(b, i);
    return { data: m.data, offset: m.offset };
  });
  const list: ListBatch<S> = { kind: 'list', matrices, rows: first.rows, cols: first.cols, ld: first.ld, order: 'col' };
  return b.dtype === undefined ? list : { ...list, dtype: b.dtype };
}

/** Systems of one shape and leading dimensions: A and B as strided or list batches, and where they sit in the batch. */
export interface PairGroup<S> {
  readonly a: StridedBatch<S> | ListBatch<S>;
  readonly b: StridedBatch<S> | ListBatch<S>;
  /** The batch index of each of the group's systems, or null where the group is the whole batch in order. */
  readonly members: readonly number[] | null;
}

/**
 * The systems of A and B (one count) grouped by both batches' rows, cols and ld (`shapeGroups`), each
 * group as list batches of its members; two strided batches are one group as they are.
 */
export function pairGroups<S>(a: Batch<S>, b: Batch<S>): PairGroup<S>[] {
  if (a.kind === 'strided' && b.kind === 'strided') return [{ a, b, members: null }];
  const count = batchCount(a);
  return shapeGroups([a, b]).map((members) => ({ a: memberList(a, members), b: memberList(b, members), members: members.length === count ? null : members }));
}

/** Entries per matrix of an integer field in a group whose A is `rows` x `cols`: pivots min(m, n), info 1. */
const widthOf = (field: string, a: { rows: number; cols: number }): number => (field === 'ipiv' ? Math.min(a.rows, a.cols) : 1);

/**
 * The request of one group: every batch a list batch of the members' places, the pivot stride the
 * group's min(m, n) where the operation has one, and the integer fields `ints` gives (absent ones as
 * in `r`). Pure: the launch-free part of `runByShape`, and what a router's `covers` asks about a group.
 */
export function groupRequest(op: OpName, r: Fields, members: readonly number[], ints: Readonly<Record<string, unknown>> = {}): Fields {
  const out: Fields = { ...r };
  for (const f of batchFields(op, r)) out[f] = memberList(r[f] as Batch<unknown>, members);
  // The operations with pivots (getrf, getrs, gesv) count them by A's min(m, n).
  if ('pivotStride' in OP_SPECS[op].args) out['pivotStride'] = widthOf('ipiv', out['a'] as ListBatch<unknown>);
  for (const [f, v] of Object.entries(ints)) out[f] = v;
  return out;
}

/** Whether `covers` takes every group of a request with a variable batch (a request without one: `covers` itself). */
export function coversEachShape<R, D>(op: OpName, covers: (r: R, dev: D) => boolean): (r: R, dev: D) => boolean {
  return (r, dev) => {
    const request = r as unknown as Fields;
    if (!hasVariableBatch(op, request)) return covers(r, dev);
    const groups = shapeGroups(batchFields(op, request).map((f) => request[f] as Batch<unknown>));
    return groups.every((members) => covers(groupRequest(op, request, [members[0]!]) as unknown as R, dev));
  };
}

/** Members `members` of `b` as a variable batch of their places, in the order given (b's element type kept). */
export function memberVariable<S>(b: Batch<S>, members: readonly number[]): VariableBatch<S> {
  const part: VariableBatch<S> = { kind: 'variable', matrices: members.map((i) => matrixAt(b, i)), order: b.order };
  return b.dtype === undefined ? part : { ...part, dtype: b.dtype };
}

/**
 * The request of one part of a variable batch (members of any shapes): every batch a variable batch
 * of the members' places, the pivot stride the part's largest min(m, n) where the operation has one,
 * and the integer fields `ints` gives (absent ones as in `r`).
 */
export function partRequest(op: OpName, r: Fields, members: readonly number[], ints: Readonly<Record<string, unknown>> = {}): Fields {
  const out: Fields = { ...r };
  for (const f of batchFields(op, r)) out[f] = memberVariable(r[f] as Batch<unknown>, members);
  if ('pivotStride' in OP_SPECS[op].args) out['pivotStride'] = partPivotWidth(out['a'] as Batch<unknown>, members.length);
  for (const [f, v] of Object.entries(ints)) out[f] = v;
  return out;
}

/** The largest min(m, n) of a part's A: its pivots' stride. */
function partPivotWidth(a: Batch<unknown>, count: number): number {
  let most = 0;
  for (let i = 0; i < count; i++) { const m = matrixAt(a, i); most = Math.max(most, Math.min(m.rows, m.cols)); }
  return most;
}

/**
 * A request with a variable batch run in parts (lists of batch places, together every member once):
 * `requestOf` makes each part's request, with the per-matrix integers in compact arrays of the call's
 * workspace frame that are gathered from the batch's places before `run` (where it reads them) and
 * scattered back after it (where it writes them); one upload holds every part's places. Parts run
 * one after another on the device's stream, so what `run` promises per matrix holds per member.
 */
export function runParts(op: OpName, dev: GpuDevice, request: Fields, parts: readonly (readonly number[])[],
  requestOf: (members: readonly number[], ints: Readonly<Record<string, unknown>>) => Fields, run: (request: Fields, part: number) => void): void {
  const ints = fieldsOf(op).ints;
  // Without per-matrix integers (gemm, trsm, trmm, herk, syrk) the parts need nothing on the device.
  if (ints.length === 0) { parts.forEach((members, i) => run(requestOf(members, {}), i)); return; }
  const written = new Set(OP_SPECS[op].writes);
  const main = request[OP_SPECS[op].main] as Batch<DeviceArray>;
  const frame = Workspace.of(dev).frame();
  try {
    // Every part's places in one upload, part after part; each part reads its slice.
    const places = frame.take('int32', parts.reduce((n, p) => n + p.length, 0), "the parts' batch places");
    dev.upload(Int32Array.from(parts.flat()), places);
    let start = 0;
    parts.forEach((members, i) => {
      const n = members.length;
      const index = dev.view(places, start, n);
      start += n;
      const pivots = 'pivotStride' in OP_SPECS[op].args ? partPivotWidth(memberVariable(main, members), n) : 1;
      const moves = ints.map((f) => {
        const width = f === 'ipiv' ? pivots : 1;
        const group = frame.take('int32', Math.max(1, n * width), `a part's ${f}`);
        const move = { batch: request[f] as DeviceArray, batchStride: f === 'ipiv' ? (request['pivotStride'] as number) : 1, group, groupStride: width, index, count: n, width };
        return { field: f, move };
      });
      for (const { field, move } of moves) if (!written.has(field)) gatherInts(dev, move);
      run(requestOf(members, Object.fromEntries(moves.map(({ field, move }) => [field, move.group]))), i);
      for (const { field, move } of moves) if (written.has(field)) scatterInts(dev, move);
    });
  } finally {
    frame.end();
  }
}

/**
 * `run` (a launcher of strided and list batches) for requests with a variable batch: one call per
 * group of members of one shape and ld, integers moved between the groups' arrays and the batch's
 * places; a request without a variable batch goes to `run` as it is.
 */
export function runByShape<R>(op: OpName, run: (dev: GpuDevice, r: R) => void): (dev: GpuDevice, r: R) => void {
  return (dev, r) => {
    const request = r as unknown as Fields;
    if (!hasVariableBatch(op, request)) { run(dev, r); return; }
    const batches = batchFields(op, request).map((f) => request[f] as Batch<DeviceArray>);
    if (batchCount(batches[0]!) === 0) return;
    const groups = shapeGroups(batches);
    // One shape in batch order: the group is the batch, its integers the request's (same pivot stride: the largest min(m, n) is the group's).
    if (groups.length === 1) { run(dev, groupRequest(op, request, groups[0]!) as unknown as R); return; }
    runParts(op, dev, request, groups, (members, ints) => groupRequest(op, request, members, ints), (part) => run(dev, part as unknown as R));
  };
}
