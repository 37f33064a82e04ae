/**
 * Occupancy from the device's own limits (threads, blocks, registers, shared memory per SM),
 * the same arithmetic as CUDA's occupancy calculator: a planner uses it to prune parameters
 * before anything is compiled (papers 000 and 004 prune their search space the same way).
 */
import type { DeviceInfo } from '../runtime/types.js';

export interface BlockResources {
  readonly threads: number;
  /** Registers per thread; an estimate before compiling, `Kernel.registers` after. */
  readonly registersPerThread: number;
  /** Static plus dynamic shared memory per block. */
  readonly sharedBytes: number;
}

/** Registers are allocated per warp in units of 256; shared memory in 128-byte units plus 1 KiB per block (sm_80+). */
const REGISTER_UNIT = 256;
const SHARED_UNIT = 128;
const SHARED_RESERVED_PER_BLOCK = 1024;

const roundUp = (x: number, unit: number): number => Math.ceil(x / unit) * unit;

/** How many blocks of this shape one SM holds at once (0: the block does not fit at all). */
export function blocksPerSM(info: DeviceInfo, r: BlockResources): number {
  if (r.threads < 1 || r.threads > info.maxThreadsPerBlock) return 0;
  const warps = Math.ceil(r.threads / info.warpSize);
  const byThreads = Math.floor(info.maxThreadsPerSM / (warps * info.warpSize));
  const regsPerBlock = warps * roundUp(Math.max(1, r.registersPerThread) * info.warpSize, REGISTER_UNIT);
  const byRegisters = regsPerBlock > info.regsPerBlock ? 0 : Math.floor(info.regsPerSM / regsPerBlock);
  const shared = roundUp(r.sharedBytes, SHARED_UNIT) + (info.major >= 8 ? SHARED_RESERVED_PER_BLOCK : 0);
  const bySharedMemory = r.sharedBytes > info.sharedPerBlockOptin ? 0 : Math.floor(info.sharedPerSM / shared);
  return Math.max(0, Math.min(info.maxBlocksPerSM, byThreads, byRegisters, bySharedMemory));
}

/** Resident warps over the SM's maximum, in [0, 1]. */
export function occupancy(info: DeviceInfo, r: BlockResources): number {
  const warps = Math.ceil(r.threads / info.warpSize);
  return (blocksPerSM(info, r) * warps * info.warpSize) / info.maxThreadsPerSM;
}
