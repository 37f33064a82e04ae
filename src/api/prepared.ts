/**
 * Prepared calls: `ctx.prepare.<op>(args)` validates the arguments of one call once (the same
 * checks as `ctx.<op>(args)`), and returns a function that runs the call again, on the same
 * storages or on new ones given by argument name: `f()`, `f({ a, b, c })`, `f({ a, info })`.
 * A new storage only has to fit the one it replaces: the same place (host, or device memory of
 * the same GPU), the same dtype, at least the elements the prepared batch reaches, not disposed;
 * arguments that shared one storage in the preparation share one again, and an output may not
 * overlap another argument (the one check of the full validation that depends on the storages).
 * Everything else (enums, scalars, shapes, strides, counts, the row-major mapping) is reused.
 *
 * The call then goes the usual way, on every backend: on the GPU the plan and the kernel come
 * from the memos (found at the first run), so a prepared call's host work is the fit checks
 * and the launch. Where the preparation allocated `info` (or `ipiv`) because none was given,
 * every run writes that same array unless the run is given one.
 *
 * Generic over the operation table: the validation of each operation is its VALIDATORS entry
 * (prepare.ts), its outputs its op spec's `writes` (core/op-specs.ts).
 */
import { batchCount, withValidatedScans, type Batch } from '../core/batch.js';
import { isDeviceVariable } from '../core/device-batch.js';
import { MyriadError, describeValue } from '../core/errors.js';
import type { OpName } from '../core/ops.js';
import { checkNoOverlaps, type Operand } from '../core/overlap.js';
import { isDeviceStorage, type IntStorage, type Storage } from '../core/storage.js';
import { isInt32Array, typedArrayName } from '../core/dtype.js';
import { OP_NAMES, OUTPUTS } from '../core/op-specs.js';
import { VALIDATORS, checkFlag, checkPivots, type IntAllocator } from './prepare.js';
import { bridgeArgs } from './bridge.js';

/** The storages a prepared call may be given anew, by argument name. */
export interface PreparedStorages {
  a?: Storage;
  b?: Storage;
  c?: Storage;
  /** syev's eigenvalues; gesvd's singular values and vectors. */
  w?: Storage;
  s?: Storage;
  u?: Storage;
  vt?: Storage;
  /** geqrf's, orgqr's and ormqr's reflector scalars. */
  tau?: Storage;
  info?: IntStorage;
  ipiv?: IntStorage;
}

/** A prepared call: runs the prepared operation, on new storages where given. */
export interface PreparedCall<R> {
  (storages?: PreparedStorages): R;
  /** The operation it runs. */
  readonly op: OpName;
}

type Request = Record<string, unknown>;

/** What the context lends a preparer: its validation allocator and the way it runs a validated request. */
export interface PreparedHost {
  intsFor(args: unknown): IntAllocator;
  /** Runs one validated request as `ctx.<op>` does after its validation; returns the result of the call. */
  execute(op: OpName, request: Request, checked: boolean): unknown;
  /** Whether the context can take the request (memory it can read): checked once, when the call is prepared. */
  admit(op: OpName, request: Request): void;
}

const SLOTS = ['a', 'b', 'c', 'w', 's', 'u', 'vt', 'tau', 'info', 'ipiv'] as const;
type Slot = (typeof SLOTS)[number];

/** One replaceable storage of the preparation: what it was and how many elements the call reaches. */
interface SlotPlan {
  readonly slot: Slot;
  readonly template: Storage | IntStorage;
  /** Elements the prepared call reads or writes from the storage's start (a new storage needs at least these). */
  readonly reach: number;
  /** A batch given as a list or variable batch: its storages cannot be replaced. */
  readonly fixed: boolean;
}

/** Builds `ctx.prepare`: one preparer per operation of the table. */
export function makePreparers(host: PreparedHost): { [K in OpName]: (args: unknown) => PreparedCall<unknown> } {
  const out = {} as { [K in OpName]: (args: unknown) => PreparedCall<unknown> };
  for (const op of OP_NAMES) out[op] = (args) => prepareCall(host, op, args);
  return out;
}

function prepareCall(host: PreparedHost, op: OpName, args: unknown): PreparedCall<unknown> {
  const validate = VALIDATORS[op] as (args: unknown, alloc: IntAllocator) => object;
  const checked = checkFlag(args);
  args = bridgeArgs(args);
  // (its variable batches each passed over once for their validation, arrays and overlap scan: core/batch.ts withValidatedScans)
  const request = snapshot(withValidatedScans(() => validate(args, host.intsFor(args))) as Request);
  host.admit(op, request);
  const slots = slotPlans(args as Record<string, unknown>, request);
  const count = countOf(request);
  // Pivots the call reads (getrs, getri) are data, not layout: their values are checked on every run,
  // as a plain call checks them (a new ipiv, or the prepared one changed since, could point outside A).
  const readsPivots = 'ipiv' in request && !OUTPUTS[op].includes('ipiv');
  const run = (storages?: PreparedStorages): unknown => {
    if (storages !== undefined && (typeof storages !== 'object' || storages === null || Array.isArray(storages)))
      throw new MyriadError('INVALID_ARGUMENT', `a prepared ${op} takes { ${slots.map((s) => s.slot).join(', ')} } or nothing`, 'storages');
    const r = storages === undefined ? request : substitute(op, request, slots, storages, count, OUTPUTS[op]);
    if (readsPivots && isInt32Array(r.ipiv)) checkPivots(r.a as Batch<Storage>, r.ipiv, count, r.pivotStride as number);
    return host.execute(op, r, checked);
  };
  return Object.assign(run, { op });
}

/**
 * The validated request with its batch descriptors copied and frozen (their storages kept): a run
 * is the call that was validated, whatever the caller changes afterwards in the batch objects it
 * passed (a variable batch's member moved out of its buffer, or onto another output's elements,
 * would otherwise run unchecked).
 */
function snapshot(request: Request): Request {
  const out: Request = {};
  for (const key in request) out[key] = frozenDescriptor(request[key]);
  return out;
}

function frozenDescriptor(v: unknown): unknown {
  if (typeof v !== 'object' || v === null || !('kind' in v)) return v;
  const kind = (v as { kind: unknown }).kind;
  if (kind === 'strided' || kind === 'device-variable') return Object.freeze({ ...v });
  if (kind === 'list' || kind === 'variable') {
    const b = v as unknown as { matrices: readonly object[] };
    return Object.freeze({ ...b, matrices: Object.freeze(b.matrices.map((m) => Object.freeze({ ...m }))) });
  }
  return v;   // device storage: its identity is the handle
}

function countOf(r: Request): number {
  for (const key in r) {
    const v = r[key];
    if (isDeviceVariable(v)) return v.count;
    if (typeof v === 'object' && v !== null && 'kind' in v && v.kind !== 'device') return batchCount(v as Batch<Storage>);
  }
  return 0;
}

function slotPlans(args: Record<string, unknown>, request: Request): SlotPlan[] {
  const out: SlotPlan[] = [];
  for (const slot of SLOTS) {
    const given = args[slot];
    if (given === undefined && (slot === 'info' || slot === 'ipiv')) {
      // Allocated by the preparation: it lives in the request.
      const made = request[slot];
      if (made !== undefined) out.push({ slot, template: made as IntStorage, reach: (made as IntStorage).length, fixed: false });
      continue;
    }
    if (given === undefined) continue;
    if (slot === 'info' || slot === 'ipiv') {
      out.push({ slot, template: given as IntStorage, reach: usedInts(slot, request), fixed: false });
      continue;
    }
    // A variableDevice batch: its arrays are the call's description, kept as prepared.
    if (isDeviceVariable(given)) {
      out.push({ slot, template: given.pointers, reach: 0, fixed: true });
      continue;
    }
    const b = given as Batch<Storage>;
    if (b.kind !== 'strided') {
      out.push({ slot, template: b.matrices[0]?.data as Storage, reach: 0, fixed: true });
      continue;
    }
    out.push({ slot, template: b.data, reach: stridedReach(b), fixed: false });
  }
  return out;
}

function usedInts(slot: 'info' | 'ipiv', r: Request): number {
  const count = countOf(r);
  return slot === 'info' ? count : count * (r.pivotStride as number);
}

function stridedReach(b: Extract<Batch<Storage>, { kind: 'strided' }>): number {
  if (b.count === 0 || b.rows === 0 || b.cols === 0) return 0;
  const last = b.order === 'col' ? (b.cols - 1) * b.ld + b.rows - 1 : (b.rows - 1) * b.ld + b.cols - 1;
  // A complex batch counts (re, im) pairs; its storage's length counts floats.
  return (b.dtype === undefined ? 1 : 2) * (b.offset + (b.count - 1) * b.stride + last + 1);
}

/** The request with each given storage in place of the one it replaces, after checking that it fits. */
function substitute(op: OpName, request: Request, slots: readonly SlotPlan[], given: PreparedStorages, count: number, outputs: readonly string[]): Request {
  const swaps = new Map<unknown, unknown>();
  for (const key in given) {
    const s = given[key as Slot];
    if (s === undefined) continue;
    const plan = slots.find((p) => p.slot === key);
    if (plan === undefined)
      throw new MyriadError('INVALID_ARGUMENT', `a prepared ${op} takes new storages for ${slots.filter((p) => !p.fixed).map((p) => p.slot).join(', ') || 'nothing'}`, key);
    if (plan.fixed) throw new MyriadError('UNSUPPORTED', `${key} was prepared as a list, variable or variableDevice batch: only a strided batch takes a new storage`, key);
    if (s === plan.template) continue; // the prepared storage itself: nothing to check
    checkFits(s, plan, op);
    const before = swaps.get(plan.template);
    if (before !== undefined && before !== s)
      throw new MyriadError('INVALID_ARGUMENT', `${key} shared its storage with another argument when ${op} was prepared: give both the same storage`, key);
    swaps.set(plan.template, s);
  }
  if (swaps.size === 0) return request;
  // Arguments that shared a storage when prepared must share the new one (one given, the other not: a mismatch).
  for (const p of slots) {
    const swapped = swaps.get(p.template);
    if (swapped !== undefined && given[p.slot] !== swapped)
      throw new MyriadError('INVALID_ARGUMENT', `${p.slot} shared its storage with another argument when ${op} was prepared: give it the new storage too`, p.slot);
  }
  const out: Request = {};
  for (const key in request) out[key] = swapField(request[key], swaps);
  checkNoOverlaps(operandsOf(out, count, outputs));
  return out;
}

function swapField(v: unknown, swaps: Map<unknown, unknown>): unknown {
  const direct = swaps.get(v);
  if (direct !== undefined) return direct;
  if (typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'strided') {
    const data = swaps.get((v as { data: unknown }).data);
    if (data !== undefined) return { ...(v as object), data };
  }
  return v;
}

function operandsOf(r: Request, count: number, outputs: readonly string[]): Operand[] {
  const out: Operand[] = [];
  for (const key in r) {
    const v = r[key];
    const output = outputs.includes(key);
    if (key === 'info') out.push({ name: key, ints: v as IntStorage, used: count, output });
    else if (key === 'ipiv') out.push({ name: key, ints: v as IntStorage, used: count * (r.pivotStride as number), output });
    else if (isDeviceVariable(v)) {
      // Its arrays (inputs) against a new info.
      for (const [field, ints] of [['rows', v.rows], ['cols', v.cols], ['ld', v.ld], ['pointers', v.pointers]] as const)
        if (ints !== undefined) out.push({ name: `${key}.${field}`, ints, used: v.count, output: false });
    }
    else if (typeof v === 'object' && v !== null && 'kind' in v && v.kind !== 'device') out.push({ name: key, batch: v as Batch<Storage>, output });
  }
  return out;
}

/** A storage's kind for messages: device memory, a typed array's name (any realm), or what else it is. */
const typeName = (s: unknown): string => (isDeviceStorage(s) ? `device ${s.dtype} memory of GPU ${s.device}` : typedArrayName(s) ?? describeValue(s));

function checkFits(s: unknown, plan: SlotPlan, op: string): void {
  const t = plan.template;
  const why = (text: string): MyriadError =>
    new MyriadError(text.startsWith('is disposed') ? 'DISPOSED' : 'INVALID_ARGUMENT', `${text} (a prepared ${op})`, plan.slot);
  if (typeof s !== 'object' || s === null) throw why(`expected a storage like the one prepared (${typeName(t)}), got ${String(s)}`);
  if (isDeviceStorage(t)) {
    if (!isDeviceStorage(s) || s.device !== t.device || s.dtype !== t.dtype)
      throw why(`expected ${typeName(t)} as prepared, got ${isDeviceStorage(s) ? typeName(s) : `a ${typeName(s)}`}`);
    if ((s as { disposed?: boolean }).disposed === true) throw why('is disposed');
  } else if (isDeviceStorage(s) || typedArrayName(s) !== typedArrayName(t)) {
    // The typed array's own kind, so that an array of another realm (vm, worker) passes as the plain call lets it.
    throw why(`expected a ${typeName(t)} as prepared, got ${typeName(s)}`);
  }
  const length = (s as { length: number }).length;
  if (length < plan.reach) throw new MyriadError('BOUNDS', `holds ${length} elements but the prepared ${op} reaches ${plan.reach}`, plan.slot);
}
