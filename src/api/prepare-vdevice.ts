/**
 * Validation of the calls that take `variableDevice` batches (core/device-batch.ts): gemm, potrf,
 * getrf, trsm, potrs, posv, getrs, gesv, syrk and trtri.
 * prepare.ts hands a call here when one of its batches is of that kind, so the common validators
 * never see one.
 *
 * The host checks what it can see (the argument object, enums, scalars, every batch's fields and
 * arrays, one count and one dtype across the call, info's type and length, that the int arrays and
 * info share no memory); per-member sizes are checked on the device. A member the device finds
 * invalid is left untouched and gets a negative info, LAPACK's xerbla numbering of the argument at
 * fault (MAGMA's vbatched checkers use the same codes):
 * - potrf: -2 (n: rows outside [0, maxRows], or cols given and not equal to rows), -4 (ld < max(1, n));
 * - getrf: -1 (m: rows outside [0, maxRows]), -2 (n: cols outside [0, maxCols]), -4 (ld < max(1, m));
 * - gemm: -3 (m: C's rows, or op(A)'s rows, outside its batch's maxima, or the two differ), -4 (n: C's
 *   and op(B)'s columns likewise), -5 (k: op(A)'s columns and op(B)'s rows likewise), -8, -10, -13
 *   (ldA, ldB, ldC below max(1, rows)). gemm has no info otherwise, so on these batches it takes
 *   `info` (required: every member gets 0 or its code).
 * - trsm: -5 (m: B's rows outside [0, b.maxRows], or side left and A not m x m within its maxima),
 *   -6 (n: B's columns likewise, A n x n for side right), -9 (ldA < max(1, A's order)), -11
 *   (ldB < max(1, m)); like gemm it takes `info` (required) for them.
 * - potrs, posv: -2 (n: A not n x n within its maxima, or B's rows not n), -3 (nrhs: B's columns
 *   outside [0, b.maxCols]), -5 (ldA < max(1, n)), -7 (ldB < max(1, n)); posv's positive info is
 *   potrf's.
 * - getrs: -2 (n, as potrs), -3 (nrhs), -5 (ldA < max(1, n)), -8 (ldB < max(1, n)), dgetrs's numbers;
 *   gesv: -1 (n), -2 (nrhs), -4 (ldA), -7 (ldB), dgesv's; gesv's positive info is getrf's.
 *   Both take ipiv with getrf's device form's pivot stride, min(a.maxRows, a.maxCols).
 * - syrk: -3 (n: C not n x n within its maxima, or op(A)'s rows not n), -4 (k: op(A)'s columns outside
 *   a's bound), -7 (ldA < max(1, A's rows)), -10 (ldC < max(1, n)), dsyrk's numbers; like gemm it
 *   takes `info` (required) for them.
 * - trtri: -3 (n: rows outside [0, maxRows] or [0, maxCols], or cols given and not equal to rows),
 *   -5 (ld < max(1, n)); its positive info is dtrtri's (the first exactly zero diagonal element).
 * `check: true` is not taken: the host cannot see the members' matrices it would name.
 */
import {
  isDeviceVariable, validateDeviceVariable,
  type DeviceVariableBatch, type DeviceVariableGemmRequest, type DeviceVariableGetrfRequest, type DeviceVariableLuSolveRequest, type DeviceVariablePotrfRequest,
  type DeviceVariableRequest, type DeviceVariableSolveRequest, type DeviceVariableSyrkRequest, type DeviceVariableTrsmRequest, type DeviceVariableTrtriRequest,
} from '../core/device-batch.js';
import { parseDiag, parseSide, parseTrans, parseUplo } from '../core/enums.js';
import { MyriadError, checkKeys, describeValue } from '../core/errors.js';
import { checkNoOverlaps, type Operand } from '../core/overlap.js';
import { isDeviceStorage, type DeviceStorage, type IntStorage } from '../core/storage.js';

/** Whether any of `names` in `args` is a variableDevice batch (then the call is validated here). */
export function takesDeviceVariable(args: unknown, names: readonly string[]): boolean {
  if (typeof args !== 'object' || args === null) return false;
  const o = args as Record<string, unknown>;
  return names.some((n) => isDeviceVariable(o[n]));
}

/** Whether a validated request is one of this module's (its `a` is a variableDevice batch). */
export function isDeviceVariableRequest(request: object): request is DeviceVariableRequest {
  return isDeviceVariable((request as { a?: unknown }).a);
}

function argsObject(args: unknown, op: string, keys: readonly string[]): Record<string, unknown> {
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    throw new MyriadError('INVALID_ARGUMENT', `${op} expects one argument object { ${keys.join(', ')} }, got ${describeValue(args)}`, 'args');
  checkKeys(args, keys);
  const o = args as Record<string, unknown>;
  if (o.check !== undefined && o.check !== false)
    throw new MyriadError('UNSUPPORTED', 'check: true needs the matrices on the host side; with variableDevice batches read info (negative: the member\'s device sizes were invalid)', 'check');
  return o;
}

function batch(v: unknown, name: string, what: string): DeviceVariableBatch {
  if (v === undefined || v === null) throw new MyriadError('INVALID_ARGUMENT', 'is required', name);
  if (!isDeviceVariable(v))
    throw new MyriadError('UNSUPPORTED', `${what}: every batch of the call must be a variableDevice batch where one is (got ${describeValue(v)})`, name);
  validateDeviceVariable(v, name);
  return v;
}

function deviceInts(v: unknown, length: number, argument: string): DeviceStorage {
  if (!isDeviceStorage(v)) throw new MyriadError('INVALID_ARGUMENT', `expected int32 device memory (the members' sizes are on the device), got ${describeValue(v)}`, argument);
  if (v.dtype !== 'int32') throw new MyriadError('DTYPE', `expected int32 device memory, got ${v.dtype}`, argument);
  if (v.length < length) throw new MyriadError('BOUNDS', `holds ${v.length} elements but ${length} are needed`, argument);
  return v;
}

const deviceInfo = (v: unknown, count: number): DeviceStorage => deviceInts(v, count, 'info');

/** The int arrays a batch's members are described by (inputs of the call). */
function sizeOperands(b: DeviceVariableBatch, name: string): Operand[] {
  const out: Operand[] = [
    { name: `${name}.rows`, ints: b.rows, used: b.count, output: false },
    { name: `${name}.ld`, ints: b.ld, used: b.count, output: false },
    { name: `${name}.pointers`, ints: b.pointers, used: b.count, output: false },
  ];
  if (b.cols !== undefined) out.push({ name: `${name}.cols`, ints: b.cols, used: b.count, output: false });
  return out;
}

function sameCallAs(first: DeviceVariableBatch, firstName: string, b: DeviceVariableBatch, name: string): void {
  if (b.count !== first.count) throw new MyriadError('SHAPE', `holds ${b.count} matrices but ${firstName} holds ${first.count}`, `${name}.count`);
  if (b.dtype !== first.dtype) throw new MyriadError('DTYPE', `is ${b.dtype} but ${firstName} is ${first.dtype}: element types cannot be mixed`, `${name}.dtype`);
  if (b.rows.device !== first.rows.device) throw new MyriadError('INVALID_ARGUMENT', `is memory of device ${b.rows.device} but ${firstName} of device ${first.rows.device}`, name);
}

const GEMM_KEYS = ['transA', 'transB', 'alpha', 'a', 'b', 'beta', 'c', 'info'] as const;

function realScalar(v: unknown, fallback: number, argument: string): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || Number.isNaN(v)) throw new MyriadError('INVALID_ARGUMENT', `expected a number (variableDevice batches are real), got ${describeValue(v)}`, argument);
  return v;
}

/** The info argument the calls on variableDevice batches require: a member whose device sizes are invalid is reported there. */
function requiredInfo(info: unknown, count: number, op: string): ReturnType<typeof deviceInfo> {
  if (info === undefined)
    throw new MyriadError('INVALID_ARGUMENT', `${op} on variableDevice batches needs info (int32 device memory, one per member): a member whose device sizes are invalid is skipped and reported there`, 'info');
  return deviceInfo(info, count);
}

export function prepareGemmDeviceVariable(args: unknown): DeviceVariableGemmRequest {
  const o = argsObject(args, 'gemm', GEMM_KEYS);
  const transA = parseTrans(o.transA ?? 'N', 'transA');
  const transB = parseTrans(o.transB ?? 'N', 'transB');
  const alpha = realScalar(o.alpha, 1, 'alpha');
  const beta = realScalar(o.beta, 0, 'beta');
  const a = batch(o.a, 'a', 'gemm'), b = batch(o.b, 'b', 'gemm'), c = batch(o.c, 'c', 'gemm');
  sameCallAs(a, 'a', b, 'b');
  sameCallAs(a, 'a', c, 'c');
  const info = requiredInfo(o.info, a.count, 'gemm');
  checkNoOverlaps([...sizeOperands(a, 'a'), ...sizeOperands(b, 'b'), ...sizeOperands(c, 'c'), { name: 'info', ints: info, used: a.count, output: true }]);
  return { transA, transB, alpha, beta, a, b, c, info };
}

const POTRF_KEYS = ['uplo', 'a', 'info', 'check'] as const;

/** potrf on a variableDevice batch; `alloc` gives device ints where info is not given. */
export function preparePotrfDeviceVariable(args: unknown, alloc: (length: number) => IntStorage): DeviceVariablePotrfRequest {
  const o = argsObject(args, 'potrf', POTRF_KEYS);
  const uplo = parseUplo((o.uplo ?? 'lower') as string, 'uplo');
  const a = batch(o.a, 'a', 'potrf');
  const given = o.info === undefined ? undefined : deviceInfo(o.info, a.count);
  checkNoOverlaps([...sizeOperands(a, 'a'), ...(given === undefined ? [] : [{ name: 'info', ints: given, used: a.count, output: true }])]);
  return { uplo, a, info: given ?? alloc(a.count) };
}

const GETRF_KEYS = ['a', 'ipiv', 'info', 'check'] as const;

/** An LU's pivots on a variableDevice batch: stride min(maxRows, maxCols) (the host's bound of every min(m, n)), count * stride in all. */
function luPivots(a: DeviceVariableBatch): { readonly pivotStride: number; readonly pivots: number } {
  const pivotStride = Math.min(a.maxRows, a.maxCols);
  const pivots = a.count * pivotStride;
  if (!Number.isSafeInteger(pivots) || pivots > 2 ** 31 - 1)
    throw new MyriadError('BOUNDS', `count * min(maxRows, maxCols) = ${pivots} pivots: more than an int32 array holds; split the batch`, 'a.count');
  return { pivotStride, pivots };
}

/** getrf on a variableDevice batch: pivotStride min(maxRows, maxCols); `alloc` gives device ints where ipiv or info is not given. */
export function prepareGetrfDeviceVariable(args: unknown, alloc: (length: number) => IntStorage): DeviceVariableGetrfRequest {
  const o = argsObject(args, 'getrf', GETRF_KEYS);
  const a = batch(o.a, 'a', 'getrf');
  const { pivotStride, pivots } = luPivots(a);
  const ipiv = o.ipiv === undefined ? undefined : deviceInts(o.ipiv, pivots, 'ipiv');
  const info = o.info === undefined ? undefined : deviceInfo(o.info, a.count);
  checkNoOverlaps([
    ...sizeOperands(a, 'a'),
    ...(ipiv === undefined ? [] : [{ name: 'ipiv', ints: ipiv, used: pivots, output: true }]),
    ...(info === undefined ? [] : [{ name: 'info', ints: info, used: a.count, output: true }]),
  ]);
  return { a, pivotStride, ipiv: ipiv ?? alloc(pivots), info: info ?? alloc(a.count) };
}

const TRSM_KEYS = ['side', 'uplo', 'transA', 'diag', 'alpha', 'a', 'b', 'info'] as const;

/** trsm on variableDevice batches a (triangles) and b; `info` required (a member's argument code, else 0). */
export function prepareTrsmDeviceVariable(args: unknown): DeviceVariableTrsmRequest {
  const o = argsObject(args, 'trsm', TRSM_KEYS);
  const side = parseSide(o.side ?? 'left', 'side');
  const uplo = parseUplo((o.uplo ?? 'lower') as string, 'uplo');
  const transA = parseTrans(o.transA ?? 'N', 'transA');
  const diag = parseDiag(o.diag ?? 'nonunit', 'diag');
  const alpha = realScalar(o.alpha, 1, 'alpha');
  const a = batch(o.a, 'a', 'trsm'), b = batch(o.b, 'b', 'trsm');
  sameCallAs(a, 'a', b, 'b');
  const info = requiredInfo(o.info, a.count, 'trsm');
  checkNoOverlaps([...sizeOperands(a, 'a'), ...sizeOperands(b, 'b'), { name: 'info', ints: info, used: a.count, output: true }]);
  return { side, uplo, transA, diag, alpha, a, b, info };
}

const SOLVE_KEYS = ['uplo', 'a', 'b', 'info', 'check'] as const;

/** potrs or posv on variableDevice batches a (n x n) and b (n x nrhs); `alloc` gives device ints where info is not given. */
export function prepareSolveDeviceVariable(args: unknown, op: 'potrs' | 'posv', alloc: (length: number) => IntStorage): DeviceVariableSolveRequest {
  const o = argsObject(args, op, SOLVE_KEYS);
  const uplo = parseUplo((o.uplo ?? 'lower') as string, 'uplo');
  const a = batch(o.a, 'a', op), b = batch(o.b, 'b', op);
  sameCallAs(a, 'a', b, 'b');
  const given = o.info === undefined ? undefined : deviceInfo(o.info, a.count);
  checkNoOverlaps([...sizeOperands(a, 'a'), ...sizeOperands(b, 'b'), ...(given === undefined ? [] : [{ name: 'info', ints: given, used: a.count, output: true }])]);
  return { uplo, a, b, info: given ?? alloc(a.count) };
}

const GETRS_KEYS = ['trans', 'a', 'ipiv', 'b', 'info', 'check'] as const;
const GESV_KEYS = ['a', 'ipiv', 'b', 'info', 'check'] as const;

/**
 * getrs or gesv on variableDevice batches a (n x n) and b (n x nrhs), pivots with getrf's device
 * form's stride: getrs reads them (required), gesv writes them; `alloc` gives device ints where
 * gesv's ipiv or either's info is not given. trans 'C' is 'T' (the batches are real).
 */
export function prepareLuSolveDeviceVariable(args: unknown, op: 'getrs' | 'gesv', alloc: (length: number) => IntStorage): DeviceVariableLuSolveRequest {
  const o = argsObject(args, op, op === 'getrs' ? GETRS_KEYS : GESV_KEYS);
  const trans = op === 'getrs' ? parseTrans(o.trans ?? 'N', 'trans') : 'N';
  const a = batch(o.a, 'a', op), b = batch(o.b, 'b', op);
  sameCallAs(a, 'a', b, 'b');
  const { pivotStride, pivots } = luPivots(a);
  if (op === 'getrs' && o.ipiv === undefined) throw new MyriadError('INVALID_ARGUMENT', 'is required (the pivots from getrf)', 'ipiv');
  const ipiv = o.ipiv === undefined ? undefined : deviceInts(o.ipiv, pivots, 'ipiv');
  const info = o.info === undefined ? undefined : deviceInfo(o.info, a.count);
  checkNoOverlaps([
    ...sizeOperands(a, 'a'), ...sizeOperands(b, 'b'),
    ...(ipiv === undefined ? [] : [{ name: 'ipiv', ints: ipiv, used: pivots, output: op === 'gesv' }]),
    ...(info === undefined ? [] : [{ name: 'info', ints: info, used: a.count, output: true }]),
  ]);
  return { trans, a, ipiv: ipiv ?? alloc(pivots), pivotStride, b, info: info ?? alloc(a.count) };
}

const SYRK_KEYS = ['uplo', 'trans', 'alpha', 'a', 'beta', 'c', 'info'] as const;

/** syrk on variableDevice batches a and c; `info` required (a member's argument code, else 0). trans 'C' is 'T' (the batches are real). */
export function prepareSyrkDeviceVariable(args: unknown): DeviceVariableSyrkRequest {
  const o = argsObject(args, 'syrk', SYRK_KEYS);
  const uplo = parseUplo((o.uplo ?? 'lower') as string, 'uplo');
  const trans = parseTrans(o.trans ?? 'N', 'trans');
  const alpha = realScalar(o.alpha, 1, 'alpha');
  const beta = realScalar(o.beta, 0, 'beta');
  const a = batch(o.a, 'a', 'syrk'), c = batch(o.c, 'c', 'syrk');
  sameCallAs(a, 'a', c, 'c');
  const info = requiredInfo(o.info, a.count, 'syrk');
  checkNoOverlaps([...sizeOperands(a, 'a'), ...sizeOperands(c, 'c'), { name: 'info', ints: info, used: a.count, output: true }]);
  return { uplo, trans, alpha, beta, a, c, info };
}

const TRTRI_KEYS = ['uplo', 'diag', 'a', 'info', 'check'] as const;

/** trtri on a variableDevice batch; `alloc` gives device ints where info is not given. */
export function prepareTrtriDeviceVariable(args: unknown, alloc: (length: number) => IntStorage): DeviceVariableTrtriRequest {
  const o = argsObject(args, 'trtri', TRTRI_KEYS);
  const uplo = parseUplo((o.uplo ?? 'lower') as string, 'uplo');
  const diag = parseDiag(o.diag ?? 'nonunit', 'diag');
  const a = batch(o.a, 'a', 'trtri');
  const given = o.info === undefined ? undefined : deviceInfo(o.info, a.count);
  checkNoOverlaps([...sizeOperands(a, 'a'), ...(given === undefined ? [] : [{ name: 'info', ints: given, used: a.count, output: true }])]);
  return { uplo, diag, a, info: given ?? alloc(a.count) };
}
