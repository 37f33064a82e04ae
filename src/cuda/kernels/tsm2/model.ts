/**
 * The TSM2X performance model (paper 3.1.8 and 3.2.1), computed from the device's own attributes
 * (registers, shared memory, SM count, clock) and a measured copy bandwidth; the peaks and the
 * occupancy arithmetic are the project's one roofline and occupancy model (src/cuda/model/).
 *
 * - Occupancy: min(HW_MAX, R_SM / R_thread, S_SM / S_thread), with the hardware's allocation
 *   granularity (registers per warp in units of 256, whole blocks per SM).
 * - Memory utilisation (Little's law): bytes in flight per SM over latency x bandwidth per SM.
 * - Compute utilisation: independent FMAs in flight per SM over FMA latency x FMA rate.
 * - t2 threshold: Peak Perf. / Peak Band. x bytes per element; t2 above it is compute-bound.
 * - TSM2L adds the latency term the paper found (3.2.1): a thread that handles `tiles` row tiles
 *   one after the other pays the memory latency per tile (opt1) or about once (opt2).
 * The constants that the paper obtains by offline profiling are named in MODEL_CONSTANTS.
 */
import type { DType } from '../../../core/dtype.js';
import type { DeviceInfo } from '../../runtime/types.js';
import { blocksPerSM } from '../../model/occupancy.js';
import { fmaLanesPerSM, peakFlops } from '../../model/roofline.js';
import { elementBytes } from '../common/precision.js';
import type { Tsm2lParams, Tsm2rParams } from './params.js';
import { tsm2rSharedBytes } from './generate-r.js';

export const MODEL_CONSTANTS = {
  /** C of R_thread: registers for indices, pointers and loop state (from ptxas -v on sm_90). */
  registerOverhead: 48,
  /** Average global load latency under load, in core cycles (HBM3 on H100 near full bandwidth). */
  memoryLatencyCycles: 1400,
  /** Dependent FMA latency in cycles (DFMA/FFMA on sm_80/sm_90). */
  fmaLatencyCycles: 8,
  /** Fixed cost of one launch, seconds. */
  launchSeconds: 4e-6,
};

/** The t2 above which a TSM2R pass is compute-bound (paper 3.1.8: Peak Perf / Peak Band x bytes). */
export function t2Threshold(info: DeviceInfo, dtype: DType, bandwidth: number): number {
  return (peakFlops(info, dtype) / bandwidth) * elementBytes(dtype);
}

/** 32-bit registers per element. */
function words(dtype: DType): number {
  return elementBytes(dtype) / 4;
}

/**
 * R_thread for our TSM2R: vec x t2 accumulators, one row of the B tile (t2 values) that the
 * compiler keeps in registers, and two sets of t3 x vec values of A (current and prefetched).
 * The paper's (3 t2 + 2 t3) also holds t2 nextB registers; cp.async needs none.
 */
export function tsm2rRegisters(p: Tsm2rParams): number {
  if (p.stages > 0 && p.engine === 'dmma') {
    // 2 vec x ceil(t2 / 8) fragments of 4 accumulators, 4 B values per n8 tile, 8 A values.
    const nt = Math.ceil(p.t2 / 8);
    return words(p.dtype) * (8 * p.vec * nt + 4 * nt + 8) + MODEL_CONSTANTS.registerOverhead;
  }
  // Staged: A waits in shared memory, one k-step of it in registers at a time.
  const a = p.stages > 0 ? p.vec : 2 * p.t3 * p.vec;
  return words(p.dtype) * (p.vec * p.t2 + p.t2 + a) + MODEL_CONSTANTS.registerOverhead;
}

/** Bytes of A one thread has in flight: t3 steps in registers, or stages - 1 slots of the ring. */
function tsm2rBytesInFlight(p: Tsm2rParams): number {
  return (p.stages > 0 ? p.stages - 1 : 1) * p.t3 * p.vec * elementBytes(p.dtype);
}

/** R_thread for TSM2L: A's row set and the accumulators; opt2 holds a second A set and two C sets. */
export function tsm2lRegisters(p: Tsm2lParams): number {
  const a = p.k * p.vec;
  const c = p.n * p.vec;
  const sets = p.variant === 'opt1' ? a + 2 * c : 2 * a + 3 * c;
  return words(p.dtype) * sets + MODEL_CONSTANTS.registerOverhead;
}

export interface Occupancy {
  readonly blocksPerSM: number;
  readonly threadsPerSM: number;
}

/**
 * MaxOccup_SM = min(HW_MAX, R_SM / R_thread, S_SM / S_thread), in whole blocks (model/occupancy.ts);
 * R_thread is capped at 255, the most a thread gets (beyond it the compiler spills).
 */
export function occupancy(info: DeviceInfo, registers: number, sharedPerBlock: number, threadsPerBlock: number): Occupancy {
  const blocks = blocksPerSM(info, { threads: threadsPerBlock, registersPerThread: Math.min(registers, 255), sharedBytes: sharedPerBlock });
  return { blocksPerSM: blocks, threadsPerSM: blocks * threadsPerBlock };
}

/** Util_mem = Concurrent_mem / Concurrent_max_mem (Little's law, bytes per SM). */
function memoryUtilization(info: DeviceInfo, bandwidth: number, bytesInFlightPerSM: number): number {
  const perCycle = bandwidth / (info.smCount * info.clockKHz * 1e3);
  return bytesInFlightPerSM / (MODEL_CONSTANTS.memoryLatencyCycles * perCycle);
}

/** Util_comp = Concurrent_comp / Concurrent_max_comp (independent FMAs per SM). */
function computeUtilization(info: DeviceInfo, dtype: DType, fmasInFlightPerSM: number): number {
  return fmasInFlightPerSM / (MODEL_CONSTANTS.fmaLatencyCycles * fmaLanesPerSM(info, dtype));
}

export interface Estimate {
  readonly seconds: number;
  readonly bound: 'memory' | 'compute' | 'latency';
  readonly utilMem: number;
  readonly utilComp: number;
  readonly registers: number;
  readonly threadsPerSM: number;
}

/** Bytes the roofline counts: A and B read once, C written once (and read when beta != 0). */
export function minimumBytes(dtype: DType, m: number, n: number, k: number, betaZero: boolean): number {
  return elementBytes(dtype) * (m * k + k * n + m * n * (betaZero ? 1 : 2));
}

/** Predicted time of one TSM2R launch (Algorithm 5's objective, for one candidate). */
export function estimateTsm2r(info: DeviceInfo, bandwidth: number, m: number, n: number, k: number, p: Tsm2rParams, betaZero = true): Estimate {
  const bytes = elementBytes(p.dtype);
  const registers = tsm2rRegisters(p);
  const occ = occupancy(info, registers, tsm2rSharedBytes(p), p.t1);
  const blocks = Math.ceil(m / (p.t1 * p.vec)) * p.split;
  const launched = (blocks * p.t1) / info.smCount;
  const resident = Math.min(occ.threadsPerSM, launched);
  const utilMem = memoryUtilization(info, bandwidth, resident * tsm2rBytesInFlight(p));
  const utilComp = computeUtilization(info, p.dtype, resident * p.t3 * p.t2 * p.vec);
  // The tensor cores' float64 rate is twice the DFMA rate on sm_90 (67 vs 34 TFLOP/s on an H100).
  const peak = peakFlops(info, p.dtype) * (p.engine === 'dmma' ? 2 : 1);
  const passes = Math.ceil(n / p.t2);
  // A once per pass; B once per row block (from L2, counted at a quarter of DRAM cost); C once.
  const rowBlocks = Math.ceil(m / (p.t1 * p.vec));
  const traffic = bytes * (m * k * passes + 0.25 * rowBlocks * k * n) + minimumBytes(p.dtype, m, n, 0, betaZero);
  const timeMem = traffic / (bandwidth * Math.min(1, utilMem));
  const timeComp = (2 * m * n * k) / (peak * Math.min(1, utilComp));
  const waves = occ.blocksPerSM > 0 ? Math.ceil(blocks / (occ.blocksPerSM * info.smCount)) : Infinity;
  const seconds = (occ.blocksPerSM === 0 ? Infinity : Math.max(timeMem, timeComp)) + MODEL_CONSTANTS.launchSeconds * waves;
  const bound = p.t2 > t2Threshold(info, p.dtype, bandwidth) ? 'compute' : 'memory';
  return { seconds, bound, utilMem, utilComp, registers, threadsPerSM: resident };
}

/**
 * Predicted time of one TSM2L launch with thread-count factor `tcf` (m / tcf threads). Besides the
 * roofline terms, each thread walks its `tiles` row tiles one after the other: opt1 waits for
 * memory once per tile, opt2 overlaps tile r + 1's loads with tile r (3.2.2).
 */
export function estimateTsm2l(info: DeviceInfo, bandwidth: number, m: number, p: Tsm2lParams, tcf: number, betaZero = true): Estimate {
  const bytes = elementBytes(p.dtype);
  const registers = tsm2lRegisters(p);
  const occ = occupancy(info, registers, p.k * p.n * bytes, p.t1);
  const blocks = Math.max(1, Math.ceil(m / (p.t1 * p.vec * tcf)));
  const launched = (blocks * p.t1) / info.smCount;
  const resident = Math.min(occ.threadsPerSM, launched);
  const rowBytes = bytes * p.vec * (p.k + (betaZero ? 0 : p.n));
  const inFlight = resident * rowBytes * (p.variant === 'opt2' ? 2 : 1);
  const utilMem = memoryUtilization(info, bandwidth, inFlight);
  const utilComp = computeUtilization(info, p.dtype, resident * p.n * p.vec);
  const timeMem = minimumBytes(p.dtype, m, p.n, p.k, betaZero) / (bandwidth * Math.min(1, utilMem));
  const timeComp = (2 * m * p.n * p.k) / (peakFlops(info, p.dtype) * Math.min(1, utilComp));
  // The latency chain of one thread: tiles x (latency + its share of issue time).
  const tiles = Math.ceil(m / (blocks * p.t1 * p.vec));
  const cycle = 1 / (info.clockKHz * 1e3);
  const latency = MODEL_CONSTANTS.memoryLatencyCycles * cycle;
  const chain = p.variant === 'opt1' ? tiles * latency : latency + tiles * latency * 0.25;
  const waves = occ.blocksPerSM > 0 ? Math.ceil(blocks / (occ.blocksPerSM * info.smCount)) : Infinity;
  const seconds = occ.blocksPerSM === 0 ? Infinity
    : Math.max(timeMem, timeComp, chain * waves) + MODEL_CONSTANTS.launchSeconds * waves;
  const bound = chain * waves > Math.max(timeMem, timeComp) ? 'latency' : timeComp > timeMem ? 'compute' : 'memory';
  return { seconds, bound, utilMem, utilComp, registers, threadsPerSM: resident };
}
