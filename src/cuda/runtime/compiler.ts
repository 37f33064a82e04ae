/**
 * NVRTC: CUDA C++ source -> a binary for one architecture. The compile function is a plain
 * `(request) -> bytes` so the module cache can be tested with a fake one (no GPU, no NVRTC).
 *
 * Options: `--gpu-architecture=sm_XY` (a CUBIN for exactly the device's arch, fetched with
 * nvrtcGetCUBIN: no JIT at load time), `-std=c++17`, then the kernel's own options.
 * `--use_fast_math` is deliberately not a default: it flushes denormals and uses approximate
 * division and square root, which changes the numerics a factorization depends on.
 * Where the device is newer than every arch this NVRTC knows, we emit PTX for the newest
 * `compute_XY` it supports and let the driver JIT it (the only way such a device can run).
 */
import { NvrtcError } from './errors.js';
import { loadNvrtc, NVRTC_SUCCESS, type NvrtcApi, type NvrtcProgram } from './ffi-nvrtc.js';

export interface CompileRequest {
  readonly name: string;
  readonly source: string;
  /** The full option list, as built by `compileOptions` (it is part of the cache key). */
  readonly options: readonly string[];
}

/** Compiles one source to the bytes `cuModuleLoadData` takes (a CUBIN, or NUL-terminated PTX). */
export type CompileFn = (request: CompileRequest) => Uint8Array;

export const BASE_OPTIONS: readonly string[] = ['-std=c++17'];

/** 'sm_90' -> 90 */
export function archNumber(arch: string): number {
  const m = /^sm_(\d+)[a-z]?$/.exec(arch);
  if (!m?.[1]) throw new Error(`not an sm_XY arch: ${arch}`);
  return Number(m[1]);
}

/**
 * The NVRTC target option for a device arch: `--gpu-architecture=sm_XY` when NVRTC supports
 * it (or when its list is unknown), else PTX for the newest supported `compute_XY` below it.
 */
export function targetOption(arch: string, supported: readonly number[] | undefined): string {
  const want = archNumber(arch);
  if (!supported || supported.length === 0 || supported.includes(want)) return `--gpu-architecture=${arch}`;
  const below = supported.filter((a) => a <= want);
  const best = below.length > 0 ? Math.max(...below) : Math.max(...supported);
  return `--gpu-architecture=compute_${best}`;
}

/** The full option list for one compile: target, base options, the kernel's own. */
export function compileOptions(target: string, extra: readonly string[] = []): string[] {
  return [target, ...BASE_OPTIONS, ...extra];
}

/** Throws NvrtcError for a failed NVRTC call, naming the status, the call and the source. */
function checkNvrtc(nvrtc: NvrtcApi, result: number, call: string, request: CompileRequest, log = ''): void {
  if (result === NVRTC_SUCCESS) return;
  let status = `NVRTC_ERROR_${result}`;
  try {
    status = nvrtc.nvrtcGetErrorString(result) || status;
  } catch {
    // keep the numeric name
  }
  throw new NvrtcError(status, call, request.name, request.options, log, request.source);
}

function programLog(nvrtc: NvrtcApi, prog: NvrtcProgram): string {
  const size: [number] = [0];
  if (nvrtc.nvrtcGetProgramLogSize(prog, size) !== NVRTC_SUCCESS || size[0] <= 1) return '';
  const buf = Buffer.alloc(size[0]);
  if (nvrtc.nvrtcGetProgramLog(prog, buf) !== NVRTC_SUCCESS) return '';
  return buf.toString('utf8', 0, size[0] - 1);
}

/** Compiles with a loaded NVRTC; the binary kind follows the target option (sm_ -> CUBIN, compute_ -> PTX). */
export function nvrtcCompile(nvrtc: NvrtcApi, request: CompileRequest): Uint8Array {
  const out: [NvrtcProgram | null] = [null];
  checkNvrtc(nvrtc, nvrtc.nvrtcCreateProgram(out, request.source, request.name, 0, null, null), 'nvrtcCreateProgram', request);
  const prog = out[0];
  if (!prog) throw new NvrtcError('NVRTC_ERROR_PROGRAM_CREATION_FAILURE', 'nvrtcCreateProgram', request.name, request.options, '', request.source);
  try {
    const result = nvrtc.nvrtcCompileProgram(prog, request.options.length, request.options);
    checkNvrtc(nvrtc, result, 'nvrtcCompileProgram', request, result === NVRTC_SUCCESS ? '' : programLog(nvrtc, prog));
    const ptx = request.options.some((o) => o.startsWith('--gpu-architecture=compute_'));
    const size: [number] = [0];
    if (ptx) {
      checkNvrtc(nvrtc, nvrtc.nvrtcGetPTXSize(prog, size), 'nvrtcGetPTXSize', request);
      const image = Buffer.alloc(size[0]);
      checkNvrtc(nvrtc, nvrtc.nvrtcGetPTX(prog, image), 'nvrtcGetPTX', request);
      return new Uint8Array(image.buffer, image.byteOffset, image.byteLength);
    }
    checkNvrtc(nvrtc, nvrtc.nvrtcGetCUBINSize(prog, size), 'nvrtcGetCUBINSize', request);
    const image = Buffer.alloc(size[0]);
    checkNvrtc(nvrtc, nvrtc.nvrtcGetCUBIN(prog, image), 'nvrtcGetCUBIN', request);
    return new Uint8Array(image.buffer, image.byteOffset, image.byteLength);
  } finally {
    nvrtc.nvrtcDestroyProgram([prog]);
  }
}

export interface NvrtcCompiler {
  /** 'major.minor', part of the cache key. */
  readonly version: string;
  /** Where libnvrtc was found. */
  readonly path: string;
  /** The sm_XY numbers this NVRTC can emit a CUBIN for (undefined where it cannot tell). */
  readonly supportedArchs: readonly number[] | undefined;
  readonly compile: CompileFn;
}

/** Loads NVRTC (BACKEND_UNAVAILABLE when absent) and reads its version and archs. */
export function openNvrtc(): NvrtcCompiler {
  const nvrtc = loadNvrtc();
  const major: [number] = [0];
  const minor: [number] = [0];
  const rc = nvrtc.nvrtcVersion(major, minor);
  if (rc !== NVRTC_SUCCESS) throw new NvrtcError(nvrtc.nvrtcGetErrorString(rc), 'nvrtcVersion', '', [], '', '');
  let supportedArchs: number[] | undefined;
  const count: [number] = [0];
  if (nvrtc.nvrtcGetNumSupportedArchs && nvrtc.nvrtcGetSupportedArchs && nvrtc.nvrtcGetNumSupportedArchs(count) === NVRTC_SUCCESS && count[0] > 0) {
    const archs = new Int32Array(count[0]);
    if (nvrtc.nvrtcGetSupportedArchs(archs) === NVRTC_SUCCESS) supportedArchs = Array.from(archs);
  }
  return { version: `${major[0]}.${minor[0]}`, path: nvrtc.path, supportedArchs, compile: (request) => nvrtcCompile(nvrtc, request) };
}
