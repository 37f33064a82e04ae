/** The CUDA runtime: what the CUDA backend, kernel launchers, tests and benchmarks import. */
export * from './types.js';
export { CudaError, NvrtcError, VendorError } from './errors.js';
export { CudaDevice, compileAhead, openDevice } from './device.js';
export { CudaDeviceArray, ELEMENT_BYTES } from './memory.js';
export { CudaKernel } from './kernel.js';
export { Workspace, WorkspaceFrame } from './workspace.js';
export { probeCuda, type CudaProbe } from './probe.js';
export { prestartCompiles, prestartCompilesIfGpu } from './runtime.js';
export { ModuleCache, cacheKey, defaultCacheDir, cacheFormatVersion, type ModuleRequest, type ModuleCacheStats } from './module-cache.js';
export { compileOptions, targetOption, BASE_OPTIONS, type CompileFn, type CompileRequest } from './compiler.js';
export { candidates as libraryCandidates, LIBCUDA, LIBNVRTC, LIBCUBLAS, LIBCUSOLVER, type LibrarySpec } from './libraries.js';
