/**
 * The process-wide part of the CUDA backend: the driver (loaded and cuInit'ed once), NVRTC
 * (loaded on the first compile) and the module cache shared by every device of the process.
 */
import { MyriadError } from '../../core/errors.js';
import { openNvrtc, type NvrtcCompiler } from './compiler.js';
import { checkCuda, CudaError } from './errors.js';
import { loadCudaDriver, type CudaDriverApi } from './ffi-cuda.js';
import { BackgroundBuilds } from './background-builds.js';
import { CompilePool, compileThreads, prestartWorkers } from './compile-pool.js';
import { ModuleCache } from './module-cache.js';
import { quickFirst } from './tiered.js';
import { PinnedRegistry } from './pinned.js';

export interface CudaRuntime {
  readonly api: CudaDriverApi;
  /** 'major.minor' of the CUDA version the driver supports (cuDriverGetVersion). */
  readonly driverVersion: string;
  readonly deviceCount: number;
  /** NVRTC, loaded on first use (throws BACKEND_UNAVAILABLE when absent). */
  compiler(): NvrtcCompiler;
  /** The module cache, created with the first compiler. */
  cache(): ModuleCache;
  /** The compile workers of the process (started on first use). */
  compilePool(): CompilePool;
  /** The optimised builds behind quick builds (runtime/tiered.ts), on background workers of their own (half the compile threads). */
  backgroundBuilds(): BackgroundBuilds;
  /** Whether first calls run quick builds: MYRIAD_QUICK_FIRST, and false once this NVRTC refused a quick build's option. */
  quickBuilds: boolean;
  /** Page-locked host buffers of the process (registrations are PORTABLE: every GPU sees them). */
  pinned(): PinnedRegistry;
}

let runtime: CudaRuntime | undefined;

/** 13000 -> '13.0', 12080 -> '12.8' */
export function formatCudaVersion(v: number): string {
  return `${Math.floor(v / 1000)}.${Math.floor((v % 1000) / 10)}`;
}

/**
 * The driver, initialised. Throws MyriadError('BACKEND_UNAVAILABLE') when libcuda is absent,
 * CudaError when cuInit fails (e.g. CUDA_ERROR_NO_DEVICE).
 */
export function cudaRuntime(): CudaRuntime {
  if (runtime) return runtime;
  const api = loadCudaDriver();
  checkCuda(api, api.cuInit(0), 'cuInit');
  const version: [number] = [0];
  checkCuda(api, api.cuDriverGetVersion(version), 'cuDriverGetVersion');
  const count: [number] = [0];
  checkCuda(api, api.cuDeviceGetCount(count), 'cuDeviceGetCount');
  const driverVersion = formatCudaVersion(version[0]);
  let compiler: NvrtcCompiler | undefined;
  let cache: ModuleCache | undefined;
  let pinned: PinnedRegistry | undefined;
  let pool: CompilePool | undefined;
  let background: CompilePool | undefined;
  let builds: BackgroundBuilds | undefined;
  const rt: CudaRuntime = {
    api,
    driverVersion,
    deviceCount: count[0],
    compiler: () => (compiler ??= openNvrtc()),
    cache: () => {
      if (!cache) {
        const c = rt.compiler();
        cache = new ModuleCache({ compile: c.compile, nvrtcVersion: c.version, driverVersion });
      }
      return cache;
    },
    pinned: () => (pinned ??= new PinnedRegistry(api)),
    compilePool: () => (pool ??= new CompilePool()),
    backgroundBuilds: () => (builds ??= new BackgroundBuilds(() => (background ??= new CompilePool(Math.max(1, Math.floor(compileThreads() / 2)))), () => rt.cache())),
    quickBuilds: quickFirst(),
  };
  runtime = rt;
  return rt;
}

/** Starts the process's compile workers (a context opening), unless MYRIAD_COMPILE_PRESTART=0. */
export function prestartCompiles(): void {
  if (prestartWorkers()) cudaRuntime().compilePool().prestart();
}

/**
 * As prestartCompiles, as soon as cuInit has found a device and before anything else a context's
 * opening does (the device's attributes, NVRTC's load on this thread, the context itself): the
 * workers load NVRTC meanwhile, so a first call's compiles start on ready workers. Never throws:
 * a driver that is missing or fails is the probe's to report.
 */
export function prestartCompilesIfGpu(): void {
  try {
    if (cudaRuntime().deviceCount > 0) prestartCompiles();
  } catch {
    // probeCuda says why the backend is unusable.
  }
}

/** The one-line reason the CUDA backend is unusable, from what `cudaRuntime` or NVRTC threw. */
export function unusableReason(e: unknown): string {
  if (e instanceof CudaError) return `${e.call} failed: ${e.status}`;
  if (e instanceof MyriadError) return e.message;
  return `CUDA initialisation failed: ${e instanceof Error ? e.message : String(e)}`;
}
