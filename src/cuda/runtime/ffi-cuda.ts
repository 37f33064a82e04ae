/**
 * Declarations of the CUDA driver API (cuda.h) used by myriad, through koffi. Mechanical:
 * one line per function, the C prototype as cuda.h writes it (with the _v2 names the header's
 * #defines select), no logic. `_Out_ T *` parameters take a one-element array.
 */
import koffi from 'koffi';
import { loadLibrary, LIBCUDA, type Env, type NativeLibrary } from './libraries.js';

/** Opaque driver handles: koffi gives them as external objects; the brand keeps them apart. */
export type CUcontext = { readonly __cuda: 'CUcontext' };
export type CUmodule = { readonly __cuda: 'CUmodule' };
export type CUfunction = { readonly __cuda: 'CUfunction' };
export type CUstream = { readonly __cuda: 'CUstream' };
export type CUevent = { readonly __cuda: 'CUevent' };
export type CUgraph = { readonly __cuda: 'CUgraph' };
export type CUgraphExec = { readonly __cuda: 'CUgraphExec' };
/** koffi writes 64-bit integers out as number when they fit in 2^53, else bigint. */
export type OutU64 = [number | bigint];
export type OutI32 = [number];
type Out<T> = [T | null];

// Named types, registered once per process (koffi's type registry is global).
koffi.pointer('CUcontext', koffi.opaque('CUctx_st'));
koffi.pointer('CUmodule', koffi.opaque('CUmod_st'));
koffi.pointer('CUfunction', koffi.opaque('CUfunc_st'));
koffi.pointer('CUstream', koffi.opaque('CUstream_st'));
koffi.pointer('CUevent', koffi.opaque('CUevent_st'));
koffi.pointer('CUgraph', koffi.opaque('CUgraph_st'));
koffi.pointer('CUgraphExec', koffi.opaque('CUgraphExec_st'));
koffi.alias('CUdeviceptr', 'unsigned long long');
koffi.alias('CUresult', 'int');
koffi.alias('CUdevice', 'int');

export const CUDA_SUCCESS = 0;

/** CUdevice_attribute values (cuda.h). */
export const CU_DEVICE_ATTRIBUTE = {
  MAX_THREADS_PER_BLOCK: 1,
  MAX_SHARED_MEMORY_PER_BLOCK: 8,
  WARP_SIZE: 10,
  MAX_REGISTERS_PER_BLOCK: 12,
  CLOCK_RATE: 13,
  MULTIPROCESSOR_COUNT: 16,
  MEMORY_CLOCK_RATE: 36,
  GLOBAL_MEMORY_BUS_WIDTH: 37,
  L2_CACHE_SIZE: 38,
  MAX_THREADS_PER_MULTIPROCESSOR: 39,
  COMPUTE_CAPABILITY_MAJOR: 75,
  COMPUTE_CAPABILITY_MINOR: 76,
  MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: 81,
  MAX_REGISTERS_PER_MULTIPROCESSOR: 82,
  MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: 97,
  MAX_BLOCKS_PER_MULTIPROCESSOR: 106,
} as const;

/** CUfunction_attribute values (cuda.h). */
export const CU_FUNC_ATTRIBUTE = {
  MAX_THREADS_PER_BLOCK: 0,
  SHARED_SIZE_BYTES: 1,
  CONST_SIZE_BYTES: 2,
  LOCAL_SIZE_BYTES: 3,
  NUM_REGS: 4,
  PTX_VERSION: 5,
  BINARY_VERSION: 6,
  MAX_DYNAMIC_SHARED_SIZE_BYTES: 8,
  /** A kernel's compile-time cluster width (__cluster_dims__; sm_90), 0 where it has none. */
  REQUIRED_CLUSTER_WIDTH: 11,
  /** Whether it may be launched with clusters above the portable 8 blocks (H100: 16). */
  NON_PORTABLE_CLUSTER_SIZE_ALLOWED: 14,
} as const;

export const CU_STREAM_NON_BLOCKING = 1;
export const CU_EVENT_DEFAULT = 0;
export const CU_EVENT_DISABLE_TIMING = 2;
/** cuMemHostRegister: pinned for every context of the process, not only the current one. */
export const CU_MEMHOSTREGISTER_PORTABLE = 1;
/** CUstreamCaptureMode: relaxed lets this thread call what a capture does not record (allocation). */
export const CU_STREAM_CAPTURE_MODE_RELAXED = 2;
export const CUDA_ERROR_NOT_READY = 600;
export const CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712;
export const CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED = 713;

export interface CudaDriverApi {
  readonly path: string;
  cuGetErrorName(result: number, out: Out<string>): number;
  cuGetErrorString(result: number, out: Out<string>): number;
  cuInit(flags: number): number;
  cuDriverGetVersion(out: OutI32): number;
  cuDeviceGetCount(out: OutI32): number;
  cuDeviceGet(out: OutI32, ordinal: number): number;
  cuDeviceGetName(name: Buffer, len: number, dev: number): number;
  cuDeviceGetAttribute(out: OutI32, attrib: number, dev: number): number;
  cuDeviceTotalMem_v2(out: OutU64, dev: number): number;
  cuDevicePrimaryCtxRetain(out: Out<CUcontext>, dev: number): number;
  cuDevicePrimaryCtxRelease_v2(dev: number): number;
  cuCtxSetCurrent(ctx: CUcontext | null): number;
  cuCtxSynchronize(): number;
  cuStreamCreate(out: Out<CUstream>, flags: number): number;
  /** Stream priorities: lower numbers are higher priority; least is usually 0, greatest -5 on sm_90. */
  cuCtxGetStreamPriorityRange(least: OutI32, greatest: OutI32): number;
  cuStreamCreateWithPriority(out: Out<CUstream>, flags: number, priority: number): number;
  cuStreamDestroy_v2(stream: CUstream): number;
  cuStreamSynchronize(stream: CUstream): number;
  /** Stream capture into CUDA graphs (CUDA 11.4+); undefined where the driver lacks them. */
  graphs?: CudaGraphApi;
  cuStreamWaitEvent(stream: CUstream, event: CUevent, flags: number): number;
  cuMemHostRegister_v2(host: ArrayBufferView, bytes: number, flags: number): number;
  cuMemHostUnregister(host: bigint): number;
  cuMemAlloc_v2(out: OutU64, bytes: number): number;
  cuMemFree_v2(ptr: bigint): number;
  cuMemGetInfo_v2(free: OutU64, total: OutU64): number;
  cuMemcpyHtoDAsync_v2(dst: bigint, src: ArrayBufferView, bytes: number, stream: CUstream): number;
  cuMemcpyDtoHAsync_v2(dst: ArrayBufferView, src: bigint, bytes: number, stream: CUstream): number;
  cuMemcpyDtoDAsync_v2(dst: bigint, src: bigint, bytes: number, stream: CUstream): number;
  cuMemsetD8Async(dst: bigint, value: number, bytes: number, stream: CUstream): number;
  cuEventCreate(out: Out<CUevent>, flags: number): number;
  cuEventRecord(event: CUevent, stream: CUstream): number;
  cuEventSynchronize(event: CUevent): number;
  /** CUDA_SUCCESS when the event's work is done, CUDA_ERROR_NOT_READY while it is pending. */
  cuEventQuery(event: CUevent): number;
  /** cuEventElapsedTime_v2 where the driver has it (CUDA 12.8+), else cuEventElapsedTime. */
  cuEventElapsedTime(out: [number], start: CUevent, end: CUevent): number;
  cuEventDestroy_v2(event: CUevent): number;
  cuModuleLoadData(out: Out<CUmodule>, image: Uint8Array): number;
  cuModuleUnload(mod: CUmodule): number;
  cuModuleGetFunction(out: Out<CUfunction>, mod: CUmodule, name: string): number;
  cuFuncGetAttribute(out: OutI32, attrib: number, fn: CUfunction): number;
  cuFuncSetAttribute(fn: CUfunction, attrib: number, value: number): number;
  /** CUDA 12.4+; absent (undefined) on older drivers. */
  cuFuncGetParamInfo: ((fn: CUfunction, index: number, offset: OutU64, size: OutU64) => number) | undefined;
  /**
   * CUDA 12.0+; absent (undefined) on older drivers. The tensor map is written through `tensorMap`
   * (64-byte aligned native memory); globalAddress is cuda.h's `void *`, a device address, passed as
   * the 64-bit integer the device pointers are here (the same register either way).
   */
  cuTensorMapEncodeTiled: ((
    tensorMap: Uint8Array, dataType: number, rank: number, globalAddress: bigint,
    globalDim: BigUint64Array, globalStrides: BigUint64Array, boxDim: Uint32Array, elementStrides: Uint32Array,
    interleave: number, swizzle: number, l2Promotion: number, oobFill: number,
  ) => number) | undefined;
  cuLaunchKernel(
    fn: CUfunction,
    gx: number, gy: number, gz: number,
    bx: number, by: number, bz: number,
    sharedBytes: number, stream: CUstream,
    params: ArrayBufferView[], extra: null,
  ): number;
  /** cuLaunchKernel with kernelParams as one native pointer (a koffi.alloc'ed void*[]): no per-call marshalling of an array. */
  cuLaunchKernelPacked(
    fn: CUfunction,
    gx: number, gy: number, gz: number,
    bx: number, by: number, bz: number,
    sharedBytes: number, stream: CUstream,
    params: unknown, extra: null,
  ): number;
}

export interface CudaGraphApi {
  cuStreamBeginCapture_v2(stream: CUstream, mode: number): number;
  cuStreamEndCapture(stream: CUstream, out: Out<CUgraph>): number;
  cuGraphInstantiateWithFlags(out: Out<CUgraphExec>, graph: CUgraph, flags: number | bigint): number;
  cuGraphLaunch(exec: CUgraphExec, stream: CUstream): number;
  cuGraphExecDestroy(exec: CUgraphExec): number;
  cuGraphDestroy(graph: CUgraph): number;
}

const GRAPH_PROTOTYPES: readonly string[] = [
  'CUresult cuStreamBeginCapture_v2(CUstream hStream, int mode)',
  'CUresult cuStreamEndCapture(CUstream hStream, _Out_ CUgraph *phGraph)',
  'CUresult cuGraphInstantiateWithFlags(_Out_ CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags)',
  'CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream)',
  'CUresult cuGraphExecDestroy(CUgraphExec hGraphExec)',
  'CUresult cuGraphDestroy(CUgraph hGraph)',
];

const PROTOTYPES: readonly string[] = [
  'CUresult cuGetErrorName(CUresult error, _Out_ const char **pStr)',
  'CUresult cuGetErrorString(CUresult error, _Out_ const char **pStr)',
  'CUresult cuInit(unsigned int Flags)',
  'CUresult cuDriverGetVersion(_Out_ int *driverVersion)',
  'CUresult cuDeviceGetCount(_Out_ int *count)',
  'CUresult cuDeviceGet(_Out_ CUdevice *device, int ordinal)',
  'CUresult cuDeviceGetName(char *name, int len, CUdevice dev)',
  'CUresult cuDeviceGetAttribute(_Out_ int *pi, int attrib, CUdevice dev)',
  'CUresult cuDeviceTotalMem_v2(_Out_ size_t *bytes, CUdevice dev)',
  'CUresult cuDevicePrimaryCtxRetain(_Out_ CUcontext *pctx, CUdevice dev)',
  'CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)',
  'CUresult cuCtxSetCurrent(CUcontext ctx)',
  'CUresult cuCtxSynchronize()',
  'CUresult cuStreamCreate(_Out_ CUstream *phStream, unsigned int Flags)',
  'CUresult cuCtxGetStreamPriorityRange(_Out_ int *leastPriority, _Out_ int *greatestPriority)',
  'CUresult cuStreamCreateWithPriority(_Out_ CUstream *phStream, unsigned int flags, int priority)',
  'CUresult cuStreamDestroy_v2(CUstream hStream)',
  'CUresult cuStreamSynchronize(CUstream hStream)',
  'CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)',
  'CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags)',
  'CUresult cuMemHostUnregister(CUdeviceptr p)',
  'CUresult cuMemAlloc_v2(_Out_ CUdeviceptr *dptr, size_t bytesize)',
  'CUresult cuMemFree_v2(CUdeviceptr dptr)',
  'CUresult cuMemGetInfo_v2(_Out_ size_t *free, _Out_ size_t *total)',
  'CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream)',
  'CUresult cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)',
  'CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)',
  'CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream)',
  'CUresult cuEventCreate(_Out_ CUevent *phEvent, unsigned int Flags)',
  'CUresult cuEventRecord(CUevent hEvent, CUstream hStream)',
  'CUresult cuEventSynchronize(CUevent hEvent)',
  'CUresult cuEventQuery(CUevent hEvent)',
  'CUresult cuEventDestroy_v2(CUevent hEvent)',
  'CUresult cuModuleLoadData(_Out_ CUmodule *module, const void *image)',
  'CUresult cuModuleUnload(CUmodule hmod)',
  'CUresult cuModuleGetFunction(_Out_ CUfunction *hfunc, CUmodule hmod, const char *name)',
  'CUresult cuFuncGetAttribute(_Out_ int *pi, int attrib, CUfunction hfunc)',
  'CUresult cuFuncSetAttribute(CUfunction hfunc, int attrib, int value)',
  'CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ, ' +
    'unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, ' +
    'CUstream hStream, void **kernelParams, void **extra)',
];

type NativeFunction = (...args: unknown[]) => unknown;

/** The function's name in a prototype string: the identifier before the '('. */
function nameOf(prototype: string): string {
  const m = /([A-Za-z_][A-Za-z0-9_]*)\s*\(/.exec(prototype);
  if (!m?.[1]) throw new Error(`bad prototype: ${prototype}`);
  return m[1];
}

/** A function declared only where the library exports it (koffi throws for a missing symbol). */
export function optionalFunc(lib: NativeLibrary, prototype: string): NativeFunction | undefined {
  try {
    return lib.func(prototype) as NativeFunction;
  } catch {
    return undefined;
  }
}

/** Binds those prototypes of `prototypes` the library has, keyed by function name (the rest are absent). */
export function bindOptional(lib: NativeLibrary, prototypes: readonly string[]): Record<string, NativeFunction> {
  const api: Record<string, NativeFunction> = {};
  for (const p of prototypes) {
    const f = optionalFunc(lib, p);
    if (f) api[nameOf(p)] = f;
  }
  return api;
}

/** Binds every prototype of `prototypes` into one object keyed by function name. */
export function bindAll(lib: NativeLibrary, prototypes: readonly string[]): Record<string, NativeFunction> {
  const api: Record<string, NativeFunction> = {};
  for (const p of prototypes) api[nameOf(p)] = lib.func(p) as NativeFunction;
  return api;
}

let cached: CudaDriverApi | undefined;

/** Loads libcuda once per process (throws BACKEND_UNAVAILABLE when it cannot be found). */
export function loadCudaDriver(env: Env = process.env): CudaDriverApi {
  if (cached) return cached;
  const { lib, path } = loadLibrary(LIBCUDA, env);
  const api = bindAll(lib, PROTOTYPES);
  api['cuEventElapsedTime'] =
    optionalFunc(lib, 'CUresult cuEventElapsedTime_v2(_Out_ float *pMilliseconds, CUevent hStart, CUevent hEnd)') ??
    (lib.func('CUresult cuEventElapsedTime(_Out_ float *pMilliseconds, CUevent hStart, CUevent hEnd)') as NativeFunction);
  api['cuLaunchKernelPacked'] = lib.func(
    'CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ, ' +
      'unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, ' +
      'CUstream hStream, void *kernelParams, void *extra)',
  ) as NativeFunction;
  const paramInfo = optionalFunc(
    lib,
    'CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, _Out_ size_t *paramOffset, _Out_ size_t *paramSize)',
  );
  const tensorMapEncode = optionalFunc(
    lib,
    'CUresult cuTensorMapEncodeTiled(void *tensorMap, int tensorDataType, uint32_t tensorRank, CUdeviceptr globalAddress, ' +
      'const uint64_t *globalDim, const uint64_t *globalStrides, const uint32_t *boxDim, const uint32_t *elementStrides, ' +
      'int interleave, int swizzle, int l2Promotion, int oobFill)',
  );
  let graphs: CudaGraphApi | undefined;
  try {
    graphs = bindAll(lib, GRAPH_PROTOTYPES) as unknown as CudaGraphApi;
  } catch {
    graphs = undefined; // a driver older than CUDA 11.4: ctx.capture says so
  }
  cached = { ...api, cuFuncGetParamInfo: paramInfo, cuTensorMapEncodeTiled: tensorMapEncode, graphs, path } as unknown as CudaDriverApi;
  return cached;
}
