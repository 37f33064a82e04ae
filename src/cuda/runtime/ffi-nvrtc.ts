/**
 * Declarations of NVRTC (nvrtc.h) through koffi. Mechanical: the C prototypes, no logic.
 */
import koffi from 'koffi';
import { loadLibrary, LIBNVRTC, type Env } from './libraries.js';
import { bindAll, optionalFunc } from './ffi-cuda.js';

export type NvrtcProgram = { readonly __nvrtc: 'nvrtcProgram' };
type Out<T> = [T | null];

koffi.pointer('nvrtcProgram', koffi.opaque('_nvrtcProgram'));
koffi.alias('nvrtcResult', 'int');

export const NVRTC_SUCCESS = 0;
export const NVRTC_ERROR_COMPILATION = 6;

export interface NvrtcApi {
  readonly path: string;
  nvrtcGetErrorString(result: number): string;
  nvrtcVersion(major: [number], minor: [number]): number;
  nvrtcCreateProgram(
    out: Out<NvrtcProgram>, src: string, name: string,
    numHeaders: number, headers: null, includeNames: null,
  ): number;
  nvrtcDestroyProgram(prog: [NvrtcProgram]): number;
  nvrtcCompileProgram(prog: NvrtcProgram, numOptions: number, options: readonly string[]): number;
  nvrtcGetProgramLogSize(prog: NvrtcProgram, size: [number]): number;
  nvrtcGetProgramLog(prog: NvrtcProgram, log: Buffer): number;
  nvrtcGetCUBINSize(prog: NvrtcProgram, size: [number]): number;
  nvrtcGetCUBIN(prog: NvrtcProgram, cubin: Buffer): number;
  nvrtcGetPTXSize(prog: NvrtcProgram, size: [number]): number;
  nvrtcGetPTX(prog: NvrtcProgram, ptx: Buffer): number;
  /** NVRTC 11.2+; undefined on older ones. */
  nvrtcGetNumSupportedArchs: ((count: [number]) => number) | undefined;
  nvrtcGetSupportedArchs: ((archs: Int32Array) => number) | undefined;
}

const PROTOTYPES: readonly string[] = [
  'const char *nvrtcGetErrorString(nvrtcResult result)',
  'nvrtcResult nvrtcVersion(_Out_ int *major, _Out_ int *minor)',
  'nvrtcResult nvrtcCreateProgram(_Out_ nvrtcProgram *prog, const char *src, const char *name, int numHeaders, ' +
    'const char **headers, const char **includeNames)',
  'nvrtcResult nvrtcDestroyProgram(_Inout_ nvrtcProgram *prog)',
  'nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int numOptions, const char **options)',
  'nvrtcResult nvrtcGetProgramLogSize(nvrtcProgram prog, _Out_ size_t *logSizeRet)',
  'nvrtcResult nvrtcGetProgramLog(nvrtcProgram prog, char *log)',
  'nvrtcResult nvrtcGetCUBINSize(nvrtcProgram prog, _Out_ size_t *cubinSizeRet)',
  'nvrtcResult nvrtcGetCUBIN(nvrtcProgram prog, char *cubin)',
  'nvrtcResult nvrtcGetPTXSize(nvrtcProgram prog, _Out_ size_t *ptxSizeRet)',
  'nvrtcResult nvrtcGetPTX(nvrtcProgram prog, char *ptx)',
];

let cached: NvrtcApi | undefined;

/** Loads NVRTC once per process (throws BACKEND_UNAVAILABLE when it cannot be found). */
export function loadNvrtc(env: Env = process.env): NvrtcApi {
  if (cached) return cached;
  const { lib, path } = loadLibrary(LIBNVRTC, env);
  const api = bindAll(lib, PROTOTYPES);
  cached = {
    ...api,
    nvrtcGetNumSupportedArchs: optionalFunc(lib, 'nvrtcResult nvrtcGetNumSupportedArchs(_Out_ int *numArchs)'),
    nvrtcGetSupportedArchs: optionalFunc(lib, 'nvrtcResult nvrtcGetSupportedArchs(int *supportedArchs)'),
    path,
  } as unknown as NvrtcApi;
  return cached;
}
