/**
 * The one error type of myriad. Bad arguments are thrown before anything reaches native code;
 * numerical failure (not positive definite, singular) is never thrown by the LAPACK-level
 * functions: it is reported per matrix in `info`.
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
