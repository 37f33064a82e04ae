/**
 * Opt-in checking at the LAPACK level: `posv({ a, b, check: true })` or `assertInfo(info, 'posv', a)`
 * throws MyriadError('NUMERICAL') naming the first failed matrices and what failed (see
 * core/info.ts for the codes). Without it, failure stays per matrix in `info`, never thrown.
 *
 * A matrix counts as failed when its info is non-zero, or (host data) when its output holds
 * NaN or Inf: gesv, gels and getrs run through NaN without a non-zero info. Of an output that is one
 * triangle (potrf, posv, poti, potri, lauum, trtri: `uplo`; trtri's unit diagonal is not read
 * either) only that part is looked at: the rest is not the call's.
 */
import { batchCount, isBatch, matrixAt, type Batch } from '../core/batch.js';
import { isFloatArray, isInt32Array } from '../core/dtype.js';
import { parseDiag, parseEnumValue, parseUplo, type Diag, type Uplo } from '../core/enums.js';
import { MyriadError, check, checkKeys, describeValue } from '../core/errors.js';
import { INFO_OP_NAMES, OP_SPECS } from '../core/op-specs.js';
import { INFO_OPS, failureError, isJacobi, orderKind, type Failure, type InfoOp } from '../core/info.js';
import { isDeviceStorage, type IntStorage, type Storage } from '../core/storage.js';
import { batchOf, isArrayView, type BatchArg } from './bridge.js';

/** The outputs where NaN/Inf shows (the op spec's `info`). */
const WATCH: Partial<Record<InfoOp, readonly string[]>> = Object.fromEntries(INFO_OP_NAMES.map((op) => [op, OP_SPECS[op].info!.watch]));

/**
 * The operations whose watched `a` is one triangle, the `uplo` one, what they read and write of it
 * (from the op specs: potrf, posv, trtri, lauum, potri, poti; syev's uplo is read, its output is w).
 */
const TRIANGLE_OPS: ReadonlySet<InfoOp> = new Set<InfoOp>(INFO_OP_NAMES.filter((op) => 'uplo' in OP_SPECS[op].args && OP_SPECS[op].info!.watch.includes('a')));

/** The part of an output the call owns: the whole matrix, or a triangle (without its diagonal where that is unit). */
interface OwnedPart {
  readonly uplo: Uplo;
  readonly diag?: Diag;
}

/** What `assertInfo` cannot read from the codes: the triangle of a triangle op's call, and inv's `assume`. */
export interface AssertInfoOptions {
  readonly uplo?: Uplo;
  readonly diag?: Diag;
  readonly assume?: 'general' | 'spd';
}

/** An output to look at, and its owned part (undefined: the whole matrix). */
interface Watched {
  readonly batch: Batch<Storage>;
  readonly part?: OwnedPart;
}

/**
 * Throws MyriadError('NUMERICAL') when any matrix failed, naming the first five and what failed
 * ("#3 not positive definite (the leading minor of order 2)", "#0 NaN/Inf in the input").
 * `info`: the call's result or its info array (host); `a`: the call's `a` (to read each matrix's
 * order, and, where the call writes its output there, to tell NaN/Inf apart); `options`: the
 * triangle potrf, posv, poti, potri, lauum and trtri owned (`uplo`, trtri's `diag`: without them
 * their a is not looked at) and inv's `assume`. Returns quietly when every info is 0.
 */
export function assertInfo(info: Int32Array | { info: IntStorage }, op: InfoOp, a?: BatchArg, options: AssertInfoOptions = {}): void {
  const codes = isBatchResult(info) ? info.info : info;
  if (isDeviceStorage(codes)) throw new MyriadError('UNSUPPORTED', 'info is in device memory: ctx.download() it first, or pass check: true to the call', 'info');
  check(isInt32Array(codes), 'DTYPE', 'info', `expected an Int32Array or a result { info }, got ${describeValue(codes)}`);
  check(INFO_OPS.includes(op), 'ENUM', 'op', `expected one of ${INFO_OPS.join(', ')}, got ${describeValue(op)}`);
  check(a === undefined || isArrayView(a) || isBatch(a), 'INVALID_ARGUMENT', 'a', `expected the call's a (a batch or an array), got ${describeValue(a)}`);
  check(typeof options === 'object' && options !== null, 'INVALID_ARGUMENT', 'options', `expected { uplo?, diag?, assume? }, got ${describeValue(options)}`);
  checkKeys(options, ['uplo', 'diag', 'assume'], 'options');
  const uplo = options.uplo === undefined ? undefined : parseUplo(options.uplo, 'options.uplo');
  const diag = options.diag === undefined ? undefined : parseDiag(options.diag, 'options.diag');
  const assume = options.assume === undefined ? undefined : parseEnumValue(options.assume, ['general', 'spd'] as const, 'options.assume');
  const batch = a === undefined ? undefined : isArrayView(a) ? batchOf(a, {}, 'a') : a;
  // One info code per matrix of a, or a single matrix broadcast over every code (numpy's rule for
  // the array level's a against a batch of b); any other count would leave codes unread.
  const held = batch === undefined ? codes.length : batchCount(batch);
  check(held === codes.length || held === 1, 'SHAPE', 'a', `holds ${held} matrices but info has ${codes.length} codes (give the call's a, or one matrix broadcast over them)`);
  // a is looked at where the call's output is there (not an input that other outputs came from: syev,
  // potrs, the array level, whose codes already say NaN/Inf in the input), and of a triangle op's
  // output only its triangle, where given.
  const watchesA = (WATCH[op] ?? []).includes('a') && (!TRIANGLE_OPS.has(op) || uplo !== undefined);
  const watched = held === codes.length && batch !== undefined && watchesA ? [{ batch, part: uplo === undefined ? undefined : { uplo, diag } }] : [];
  // inv on SPD matrices (poti) reports the Cholesky's codes.
  const words = op === 'inv' && assume === 'spd' ? 'cholesky' : op;
  throwFailures(words, codes, codes.length, batch, watched, '', op);
}

function isBatchResult(x: unknown): x is { info: IntStorage } {
  return typeof x === 'object' && x !== null && !ArrayBuffer.isView(x) && 'info' in x;
}

/**
 * `check: true` of a call: `request` holds the call's column-major batches after the call (host
 * data already written back), `codes` its info on the host.
 */
export function checkCall(op: InfoOp, codes: Int32Array, request: Record<string, unknown>): void {
  const a = request.a as Batch<Storage>;
  const watched: Watched[] = [];
  for (const name of WATCH[op] ?? []) {
    const v = request[name];
    if (!isBatch(v)) continue;
    const part = name === 'a' && TRIANGLE_OPS.has(op) ? { uplo: request.uplo as Uplo, diag: request.diag as Diag | undefined } : undefined;
    watched.push({ batch: v as Batch<Storage>, part });
  }
  throwFailures(op, codes, batchCount(a), a, watched, ' (check: true)');
}

function throwFailures(op: InfoOp, codes: Int32Array, count: number, a: Batch<Storage> | undefined, watched: readonly Watched[], hint: string, label: string = op): void {
  const flagged = nonFiniteFlags(watched, count);
  const failures: Failure[] = [];
  let total = 0;
  for (let i = 0; i < count; i++) {
    const code = codes[i]!;
    // Jacobi codes already say NaN/Inf (p + 2) apart from no convergence (p + 1).
    const nonFinite = (code === 0 || !isJacobi(op)) && flagged[i] === 1;
    if (code === 0 && !nonFinite) continue;
    total++;
    if (failures.length < 5) failures.push({ index: i, code, order: a === undefined ? -1 : orderOf(op, a, i), nonFinite });
  }
  if (total > 0) throw failureError(op, failures, total, hint, label);
}

function orderOf(op: InfoOp, a: Batch<Storage>, i: number): number {
  const m = matrixAt(a, Math.min(i, batchCount(a) - 1));
  return orderKind(op) === 'min' ? Math.min(m.rows, m.cols) : m.cols;
}

/** flags[i] = 1 where matrix i of any host output holds NaN or Inf in its owned part (device outputs are not read). */
function nonFiniteFlags(watched: readonly Watched[], count: number): Uint8Array {
  const flags = new Uint8Array(count);
  for (const { batch: b, part } of watched) {
    const n = Math.min(count, batchCount(b));
    const col = b.order === 'col';
    // A complex batch holds interleaved (re, im) pairs: its counts are in pairs of floats.
    const parts = (b as { dtype?: unknown }).dtype === undefined ? 1 : 2;
    // Of a triangle, element (i, j) with lower i >= j (upper i <= j), the diagonal only where not unit.
    const skipDiagonal = part?.diag === 'unit' ? 1 : 0;
    for (let i = 0; i < n; i++) {
      if (flags[i] === 1) continue;
      // Strided batches read in place (no per-matrix object: this runs for 10^5 matrices).
      const { data, offset, rows, cols, ld } = b.kind === 'strided'
        ? { data: b.data, offset: b.offset + i * b.stride, rows: b.rows, cols: b.cols, ld: b.ld }
        : matrixAt(b, i);
      if (!isFloatArray(data)) break;
      const outer = col ? cols : rows;
      const inner = col ? rows : cols;
      scan: for (let o = 0; o < outer; o++) {
        // The inner range of line o: all of it, or the triangle's part (o is the column where col, else the row).
        let lo = 0, hi = inner;
        if (part !== undefined) {
          const below = (part.uplo === 'lower') === col;   // the owned part of the line lies from the diagonal on
          if (below) lo = o + skipDiagonal;
          else hi = Math.min(inner, o + 1 - skipDiagonal);
        }
        const base = parts * (offset + o * ld);
        for (let k = parts * lo; k < parts * hi; k++) if (!Number.isFinite(data[base + k]!)) { flags[i] = 1; break scan; }
      }
    }
  }
  return flags;
}
