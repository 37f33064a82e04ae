/** DeviceInfo of real cards as cuDeviceGetAttribute reports them, for planner/model tests without a GPU. */
import type { DeviceInfo } from '../../src/cuda/runtime/types.js';

/** An H100 SXM (80 GB HBM3). Variants: `{ ...H100, field: value }`. */
export const H100: DeviceInfo = {
  ordinal: 0, name: 'NVIDIA H100 80GB HBM3', arch: 'sm_90', major: 9, minor: 0, smCount: 132, warpSize: 32,
  maxThreadsPerBlock: 1024, maxThreadsPerSM: 2048, maxBlocksPerSM: 32, regsPerBlock: 65536, regsPerSM: 65536,
  sharedPerBlock: 49152, sharedPerBlockOptin: 232448, sharedPerSM: 233472, clockKHz: 1980000,
  memoryClockKHz: 2619000, memoryBusWidthBits: 5120, l2Bytes: 52428800, totalMemoryBytes: 85e9,
};
