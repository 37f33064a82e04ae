/** Reads a DeviceInfo from the driver's device attributes (cuDeviceGetAttribute). */
import type { DeviceInfo } from './types.js';
import { CU_DEVICE_ATTRIBUTE as A, type CudaDriverApi } from './ffi-cuda.js';
import { checkCuda } from './errors.js';

export function readDeviceInfo(api: CudaDriverApi, ordinal: number): DeviceInfo {
  const dev: [number] = [0];
  checkCuda(api, api.cuDeviceGet(dev, ordinal), 'cuDeviceGet', `ordinal ${ordinal}`);
  const device = dev[0];
  const attr = (attrib: number, what: string): number => {
    const out: [number] = [0];
    checkCuda(api, api.cuDeviceGetAttribute(out, attrib, device), 'cuDeviceGetAttribute', what);
    return out[0];
  };
  // Clocks are informational (the model measures bandwidth); a driver that no longer reports them gives 0.
  const attrOrZero = (attrib: number): number => {
    const out: [number] = [0];
    return api.cuDeviceGetAttribute(out, attrib, device) === 0 ? out[0] : 0;
  };
  const nameBuf = Buffer.alloc(256);
  checkCuda(api, api.cuDeviceGetName(nameBuf, nameBuf.length, device), 'cuDeviceGetName');
  const nul = nameBuf.indexOf(0);
  const total: [number | bigint] = [0];
  checkCuda(api, api.cuDeviceTotalMem_v2(total, device), 'cuDeviceTotalMem_v2');
  const major = attr(A.COMPUTE_CAPABILITY_MAJOR, 'compute capability major');
  const minor = attr(A.COMPUTE_CAPABILITY_MINOR, 'compute capability minor');
  return {
    ordinal,
    name: nameBuf.toString('utf8', 0, nul < 0 ? nameBuf.length : nul),
    arch: `sm_${major}${minor}`,
    major,
    minor,
    smCount: attr(A.MULTIPROCESSOR_COUNT, 'SM count'),
    warpSize: attr(A.WARP_SIZE, 'warp size'),
    maxThreadsPerBlock: attr(A.MAX_THREADS_PER_BLOCK, 'max threads per block'),
    maxThreadsPerSM: attr(A.MAX_THREADS_PER_MULTIPROCESSOR, 'max threads per SM'),
    maxBlocksPerSM: attr(A.MAX_BLOCKS_PER_MULTIPROCESSOR, 'max blocks per SM'),
    regsPerBlock: attr(A.MAX_REGISTERS_PER_BLOCK, 'registers per block'),
    regsPerSM: attr(A.MAX_REGISTERS_PER_MULTIPROCESSOR, 'registers per SM'),
    sharedPerBlock: attr(A.MAX_SHARED_MEMORY_PER_BLOCK, 'shared per block'),
    sharedPerBlockOptin: attr(A.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 'shared per block (opt-in)'),
    sharedPerSM: attr(A.MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, 'shared per SM'),
    clockKHz: attrOrZero(A.CLOCK_RATE),
    memoryClockKHz: attrOrZero(A.MEMORY_CLOCK_RATE),
    memoryBusWidthBits: attr(A.GLOBAL_MEMORY_BUS_WIDTH, 'memory bus width'),
    l2Bytes: attr(A.L2_CACHE_SIZE, 'L2 size'),
    totalMemoryBytes: Number(total[0]),
  };
}
