/**
 * A variable-size batch described by device arrays (MAGMA's *_vbatched arguments): the members'
 * rows, cols and leading dimensions are int32 device arrays and their addresses an int64 device
 * array, as a GPU phase (a sparse solver's symbolic analysis, say) produces them; the host gives
 * only the count and the largest rows and cols, which bound the size classes a call launches.
 *
 * It is a batch kind of its own ('device-variable'), not a variant of `variable`: the host cannot
 * see a member's shape, so none of the per-member checks, overlap tests, copies or CPU paths that
 * every other batch goes through can apply to it. Only the operations and backends that read the
 * sizes on the device take it (gemm, potrf, getrf, trsm, potrs, posv, getrs, gesv, syrk and trtri on a single-GPU CUDA context); everything else
 * rejects it with an error naming the argument (`validateBatch`, the context).
 *
 * What the host checks: count and maxima are non-negative integers, every array is device memory
 * of the right type holding at least `count` entries, the dtype is float64 or float32. What it
 * cannot check (the device does, per member, before any class kernel reads the member): a size
 * outside [0, max], a leading dimension below max(1, rows), shapes that do not agree across a
 * call's batches. Such a member is left untouched and reported in `info` with a negative code,
 * LAPACK's xerbla numbering of the argument at fault (api/prepare-vdevice.ts). The addresses
 * themselves cannot be checked anywhere: they must point into memory of the context's device.
 */
import type { DType } from './dtype.js';
import type { Diag, Side, Uplo } from './enums.js';
import type { Op } from './ops.js';
import { isDType } from './dtype-table.js';
import { MyriadError, check, checkKeys, describeValue } from './errors.js';
import { isDeviceStorage, type DeviceStorage, type IntStorage } from './storage.js';

export interface DeviceVariableBatch<S = DeviceStorage> {
  readonly kind: 'device-variable';
  readonly count: number;
  /** int32 device array: member i has rows[i] rows. */
  readonly rows: S;
  /** int32 device array of columns; absent: square members (cols = rows). */
  readonly cols: S | undefined;
  /** int32 device array of leading dimensions (column-major). */
  readonly ld: S;
  /** int64 device array: the device address of element (0, 0) of member i. */
  readonly pointers: S;
  /** The largest rows of any member (host-known: it bounds the size classes launched). */
  readonly maxRows: number;
  /** The largest cols (maxRows where cols is absent). */
  readonly maxCols: number;
  /** The element type the pointers address. */
  readonly dtype: DType;
}

export interface VariableDeviceOptions<S = DeviceStorage> {
  count: number;
  rows: S;
  cols?: S;
  ld: S;
  pointers: S;
  maxRows: number;
  /** Default: maxRows (and required where cols is given). */
  maxCols?: number;
  dtype: DType;
}

const KEYS = ['count', 'rows', 'cols', 'ld', 'pointers', 'maxRows', 'maxCols', 'dtype'] as const;

/** The most members one call takes: the device tables index them with 32-bit integers. */
export const DEVICE_VARIABLE_COUNT_MAX = 2 ** 31 - 1;

/**
 * A variable batch whose sizes and addresses are already on the GPU:
 * `variableDevice({ count, rows, cols?, ld, pointers, maxRows, maxCols?, dtype })`. Column-major.
 */
export function variableDevice<S extends DeviceStorage>(options: VariableDeviceOptions<S>, argument = 'variableDevice'): DeviceVariableBatch<S> {
  check(typeof options === 'object' && options !== null, 'INVALID_ARGUMENT', argument, 'expected { count, rows, cols?, ld, pointers, maxRows, maxCols?, dtype }');
  checkKeys(options, KEYS, argument);
  const maxRows = options.maxRows;
  const b: DeviceVariableBatch<S> = {
    kind: 'device-variable', count: options.count, rows: options.rows, cols: options.cols, ld: options.ld, pointers: options.pointers,
    maxRows, maxCols: options.maxCols ?? maxRows, dtype: options.dtype,
  };
  if (options.cols !== undefined && options.maxCols === undefined)
    throw new MyriadError('INVALID_ARGUMENT', 'give maxCols with cols (it bounds the members\' columns)', `${argument}.maxCols`);
  if (options.cols === undefined && options.maxCols !== undefined && options.maxCols !== maxRows)
    throw new MyriadError('INVALID_ARGUMENT', `without cols the members are square: maxCols must be maxRows (${describeValue(maxRows)}), got ${describeValue(options.maxCols)}`, `${argument}.maxCols`);
  validateDeviceVariable(b, argument);
  return b;
}

/** True for a `variableDevice` batch. */
export function isDeviceVariable(x: unknown): x is DeviceVariableBatch<DeviceStorage> {
  return typeof x === 'object' && x !== null && (x as { kind?: unknown }).kind === 'device-variable';
}

function count(v: unknown, argument: string, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0 || v > max)
    throw new MyriadError('INVALID_ARGUMENT', `expected an integer in [0, ${max}], got ${describeValue(v)}`, argument);
  return v;
}

function deviceArray(v: unknown, dtype: 'int32' | 'int64', length: number, argument: string): void {
  if (!isDeviceStorage(v)) {
    const host = ArrayBuffer.isView(v) ? ' (a host array: upload it, or use variable() for host-known sizes)' : '';
    throw new MyriadError('INVALID_ARGUMENT', `expected ${dtype} device memory, got ${describeValue(v)}${host}`, argument);
  }
  if (v.dtype !== dtype) throw new MyriadError('DTYPE', `expected ${dtype} device memory, got ${v.dtype}`, argument);
  if (v.length < length) throw new MyriadError('BOUNDS', `holds ${v.length} entries but count is ${length}`, argument);
}

/**
 * Checks everything the host can see of a `variableDevice` batch (a hand-written object too),
 * naming the field at fault; the per-member checks run on the device.
 */
export function validateDeviceVariable(b: DeviceVariableBatch<unknown>, argument: string): void {
  check(typeof b === 'object' && b !== null, 'INVALID_ARGUMENT', argument, 'expected a variableDevice batch');
  const n = count(b.count, `${argument}.count`, DEVICE_VARIABLE_COUNT_MAX);
  count(b.maxRows, `${argument}.maxRows`, 2 ** 31 - 1);
  count(b.maxCols, `${argument}.maxCols`, 2 ** 31 - 1);
  if (!isDType(b.dtype)) throw new MyriadError('DTYPE', `expected 'float64' or 'float32', got ${describeValue(b.dtype)}`, `${argument}.dtype`);
  deviceArray(b.rows, 'int32', n, `${argument}.rows`);
  if (b.cols !== undefined) deviceArray(b.cols, 'int32', n, `${argument}.cols`);
  else check(b.maxCols === b.maxRows, 'INVALID_ARGUMENT', `${argument}.maxCols`, 'without cols the members are square: maxCols must be maxRows');
  deviceArray(b.ld, 'int32', n, `${argument}.ld`);
  deviceArray(b.pointers, 'int64', n, `${argument}.pointers`);
  const devices = new Set([b.rows, b.cols, b.ld, b.pointers].filter((s) => s !== undefined).map((s) => (s as DeviceStorage).device));
  if (devices.size > 1) throw new MyriadError('INVALID_ARGUMENT', `rows, cols, ld and pointers must be memory of one device (got devices ${[...devices].join(', ')})`, argument);
}

/** gemm on variableDevice batches (every one of a, b, c), column-major; `info` required. */
export interface DeviceVariableGemmRequest {
  readonly transA: Op;
  readonly transB: Op;
  readonly alpha: number;
  readonly beta: number;
  readonly a: DeviceVariableBatch;
  readonly b: DeviceVariableBatch;
  readonly c: DeviceVariableBatch;
  readonly info: DeviceStorage;
}

/** potrf on a variableDevice batch. */
export interface DeviceVariablePotrfRequest {
  readonly uplo: Uplo;
  readonly a: DeviceVariableBatch;
  readonly info: IntStorage;
}

/**
 * getrf on a variableDevice batch: member i's pivots (0-based) at ipiv[i * pivotStride ...], where
 * pivotStride is min(maxRows, maxCols) (the host's bound of every min(m, n)), its info at info[i].
 */
export interface DeviceVariableGetrfRequest {
  readonly a: DeviceVariableBatch;
  readonly ipiv: IntStorage;
  readonly pivotStride: number;
  readonly info: IntStorage;
}

/** trsm on variableDevice batches a (the triangles) and b, column-major, real; `info` required (0, or a member's argument code). */
export interface DeviceVariableTrsmRequest {
  readonly side: Side;
  readonly uplo: Uplo;
  readonly transA: Op;
  readonly diag: Diag;
  readonly alpha: number;
  readonly a: DeviceVariableBatch;
  readonly b: DeviceVariableBatch;
  readonly info: DeviceStorage;
}

/** potrs or posv on variableDevice batches a (n x n) and b (n x nrhs). */
export interface DeviceVariableSolveRequest {
  readonly uplo: Uplo;
  readonly a: DeviceVariableBatch;
  readonly b: DeviceVariableBatch;
  readonly info: IntStorage;
}

/**
 * getrs or gesv on variableDevice batches a (n x n) and b (n x nrhs): member i's pivots (0-based,
 * getrf's) at ipiv[i * pivotStride ...], pivotStride min(a.maxRows, a.maxCols) as getrf's device
 * form gives them; gesv writes them and its trans is 'N'.
 */
export interface DeviceVariableLuSolveRequest {
  readonly trans: Op;
  readonly a: DeviceVariableBatch;
  readonly ipiv: IntStorage;
  readonly pivotStride: number;
  readonly b: DeviceVariableBatch;
  readonly info: IntStorage;
}

/** syrk on variableDevice batches a (op(A) n x k) and c (n x n), column-major, real; `info` required (0, or a member's argument code). */
export interface DeviceVariableSyrkRequest {
  readonly uplo: Uplo;
  /** 'N': C := alpha A A^T + beta C; 'T': C := alpha A^T A + beta C. */
  readonly trans: Op;
  readonly alpha: number;
  readonly beta: number;
  readonly a: DeviceVariableBatch;
  readonly c: DeviceVariableBatch;
  readonly info: DeviceStorage;
}

/** trtri on a variableDevice batch: info per member (0, k where A(k, k) is exactly zero (1-based, non-unit), or a negative argument code). */
export interface DeviceVariableTrtriRequest {
  readonly uplo: Uplo;
  readonly diag: Diag;
  readonly a: DeviceVariableBatch;
  readonly info: IntStorage;
}

export type DeviceVariableRequest =
  | DeviceVariableGemmRequest | DeviceVariablePotrfRequest | DeviceVariableGetrfRequest | DeviceVariableTrsmRequest | DeviceVariableSolveRequest
  | DeviceVariableLuSolveRequest | DeviceVariableSyrkRequest | DeviceVariableTrtriRequest;

/** The operations that take variableDevice batches. */
export const DEVICE_VARIABLE_OPS = ['gemm', 'potrf', 'getrf', 'trsm', 'potrs', 'posv', 'getrs', 'gesv', 'syrk', 'trtri'] as const;
export type DeviceVariableOp = (typeof DEVICE_VARIABLE_OPS)[number];

