/**
 * Typed errors of the native libraries, one `check` per library (tinygrad's `check`, CuPy's
 * `CompileException`). Every native call whose status we read goes through one of these, so a
 * failure always names the status (CUDA_ERROR_..., NVRTC_ERROR_..., CUBLAS_STATUS_...) and
 * the call that failed.
 *
 * The status name is `.status`, not `.name`: `MyriadError.name` is typed as the literal
 * 'MyriadError' in src/core, and the message starts with the status name anyway.
 */
import { MyriadError } from '../../core/errors.js';

/** A CUDA driver call returned something other than CUDA_SUCCESS. */
export class CudaError extends MyriadError {
  constructor(
    /** The CUresult's name from cuGetErrorName, e.g. 'CUDA_ERROR_OUT_OF_MEMORY'. */
    readonly status: string,
    /** The CUresult's number. */
    readonly result: number,
    /** The driver function that failed, e.g. 'cuMemAlloc_v2'. */
    readonly call: string,
    description: string,
  ) {
    super('CUDA', `${status} (${result}) from ${call}${description ? `: ${description}` : ''}`);
  }
}

/** NVRTC refused a source (NVRTC_ERROR_COMPILATION with its log) or an NVRTC call failed. */
export class NvrtcError extends MyriadError {
  constructor(
    /** e.g. 'NVRTC_ERROR_COMPILATION'. */
    readonly status: string,
    readonly call: string,
    /** The KernelSource's name. */
    readonly sourceName: string,
    readonly options: readonly string[],
    /** The compiler log (empty when the failure is not a compile error). */
    readonly log: string,
    /** The source text, kept for `dump()`. */
    readonly source: string,
  ) {
    super(
      'NVRTC',
      `${status} from ${call} compiling ${sourceName} with [${options.join(' ')}]` + (log ? `\n${log.trimEnd()}` : ''),
    );
  }

  /** The source with line numbers (as the log cites them), then the log. */
  dump(): string {
    const lines = this.source.split('\n');
    const width = String(lines.length).length;
    const numbered = lines.map((line, i) => `${String(i + 1).padStart(width)} | ${line}`).join('\n');
    return `// ${this.sourceName}  [${this.options.join(' ')}]\n${numbered}\n// ---- NVRTC log ----\n${this.log}`;
  }
}

/** A cuBLAS or cuSOLVER call returned a status other than SUCCESS. */
export class VendorError extends MyriadError {
  constructor(
    /** e.g. 'CUBLAS_STATUS_INVALID_VALUE' or 'CUSOLVER_STATUS_NOT_INITIALIZED'. */
    readonly status: string,
    readonly result: number,
    readonly call: string,
  ) {
    super('CUDA', `${status} (${result}) from ${call}`);
  }
}

/** The `check()` of the driver API: throws CudaError naming the CUresult and the call. */
export function checkCuda(api: CudaErrorNames, result: number, call: string, detail = ''): void {
  if (result === 0) return;
  throw cudaError(api, result, call, detail);
}

/** The subset of the driver API that names a CUresult. */
export interface CudaErrorNames {
  cuGetErrorName(result: number, out: [string | null]): number;
  cuGetErrorString(result: number, out: [string | null]): number;
}

export function cudaError(api: CudaErrorNames, result: number, call: string, detail = ''): CudaError {
  const name: [string | null] = [null];
  const text: [string | null] = [null];
  let status = `CUDA_ERROR_${result}`;
  let description = '';
  try {
    if (api.cuGetErrorName(result, name) === 0 && name[0]) status = name[0];
    if (api.cuGetErrorString(result, text) === 0 && text[0]) description = text[0];
  } catch {
    // keep the number
  }
  return new CudaError(status, result, call, [description, detail].filter(Boolean).join('; '));
}
