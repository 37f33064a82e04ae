/**
 * The one error type of myriad. Bad arguments are thrown before anything reaches native code;
 * numerical failure (not positive definite, singular) is reported per matrix in `info` by the
 * LAPACK-level functions, thrown (NUMERICAL) only where the call asks (`check: true`, assertInfo)
 * and by the array level's plain functions (their *Ex forms return info).
 */
export type ErrorCode =
  | 'INVALID_ARGUMENT' // a value out of range, a missing field
  | 'SHAPE' // rows/cols/count inconsistent between arguments
  | 'LAYOUT' // leading dimension, stride or offset that does not fit
  | 'BOUNDS' // a buffer too short for the batch it describes
  | 'DTYPE' // unsupported dtype or mixed dtypes
  | 'ENUM' // a bad enum value (uplo, trans, side, diag, order, backend)
  | 'NUMERICAL' // thrown only by the array-level functions without the Ex suffix
  | 'BACKEND_UNAVAILABLE' // the requested backend cannot be used on this machine
  | 'UNSUPPORTED' // a valid request this backend does not implement
  | 'CUDA' // a CUDA driver call failed
  | 'NVRTC' // a kernel failed to compile
  | 'DISPOSED'; // a device buffer or context used after dispose()

/** Every error myriad throws: `code` says which kind, `argument` names the argument at fault. */
export class MyriadError extends Error {
  override readonly name = 'MyriadError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** The argument at fault, where there is one (`'a.ld'`, `'transA'`, ...). */
    readonly argument?: string,
  ) {
    super(argument === undefined ? message : `${argument}: ${message}`);
  }
}

/** Throws an INVALID_ARGUMENT/SHAPE/... error naming the argument when `ok` is false. */
export function check(ok: boolean, code: ErrorCode, argument: string, message: string): asserts ok {
  if (!ok) throw new MyriadError(code, message, argument);
}

/**
 * A value as an error message shows it: strings quoted ('2' vs 2), bigints with their n (2n),
 * arrays and objects by their type, so two different inputs never print alike.
 */
export function describeValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'bigint') return `${v}n (a bigint)`;
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  if (v === null || v === undefined || typeof v === 'boolean') return String(v);
  if (typeof v === 'symbol') return v.toString();
  if (typeof v === 'function') return 'a function';
  if (Array.isArray(v)) return `an array of length ${v.length}`;
  const name = (v as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== 'Object' ? `a ${name}` : 'an object';
}

/**
 * Rejects keys of an options object that are not in `allowed`, suggesting the nearest valid
 * name (a misspelled option silently ignored is a wrong result the user cannot see).
 */
export function checkKeys(options: object, allowed: readonly string[], argument?: string): void {
  for (const key of Object.keys(options)) {
    if (allowed.includes(key)) continue;
    const near = nearestName(key, allowed);
    const where = argument === undefined ? key : `${argument}.${key}`;
    throw new MyriadError('INVALID_ARGUMENT',
      `unknown option ${JSON.stringify(key)}${near === undefined ? '' : `; did you mean '${near}'?`} (valid: ${allowed.map((k) => `'${k}'`).join(', ')})`, where);
  }
}

/** The allowed name closest to `key` (case-insensitive equal first, then edit distance <= 2). */
export function nearestName(key: string, allowed: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  const same = allowed.find((a) => a.toLowerCase() === lower);
  if (same !== undefined) return same;
  let best: string | undefined;
  let bestDistance = 3;
  for (const a of allowed) {
    const d = editDistance(lower, a.toLowerCase());
    if (d < bestDistance) { best = a; bestDistance = d; }
  }
  return best;
}

function editDistance(x: string, y: string): number {
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++)
      row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1)));
    prev = row;
  }
  return prev[y.length]!;
}
