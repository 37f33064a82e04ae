/**
 * The roofline of a GPU from its attributes: the memory bandwidth and the arithmetic peaks that
 * bound a kernel (paper section 4: P_max = F / T_min with T_min the time to move the data once).
 * Attribute-derived peaks are theoretical; `copyEfficiency` scales them to what a copy reaches.
 */
import type { DType } from '../../core/dtype.js';
import type { Cost } from '../../core/counts.js';
import type { DeviceInfo } from '../runtime/types.js';

/** DRAM bytes per second from the memory clock and bus width (double data rate). */
export function peakBandwidth(info: DeviceInfo): number {
  return info.memoryClockKHz * 1e3 * 2 * (info.memoryBusWidthBits / 8);
}

/**
 * FMA lanes per SM (CUDA C programming guide, arithmetic throughput table): FP32 is 128 lanes,
 * except 64 on sm_60, sm_7x and sm_80; FP64 is half the FP32 rate on the data-centre parts (x.0 from
 * sm_60) and 2 lanes elsewhere.
 */
export function fmaLanesPerSM(info: DeviceInfo, dtype: DType): number {
  const fp32 = info.major === 7 || (info.minor === 0 && (info.major === 6 || info.major === 8)) ? 64 : 128;
  if (dtype === 'float32') return fp32;
  return info.minor === 0 && info.major >= 6 ? fp32 / 2 : 2;
}

/** Flops per second of fused multiply-adds on the CUDA cores (no tensor cores). */
export function peakFlops(info: DeviceInfo, dtype: DType): number {
  return info.smCount * fmaLanesPerSM(info, dtype) * 2 * info.clockKHz * 1e3;
}

export interface RooflineEstimate {
  /** Seconds: the larger of the memory time and the compute time. */
  readonly seconds: number;
  readonly memoryBound: boolean;
}

/** Time for `count` problems of one cost at the given fractions of the peaks. */
export function rooflineTime(
  info: DeviceInfo, dtype: DType, cost: Cost, count: number, copyEfficiency = 0.9, computeEfficiency = 0.8,
): RooflineEstimate {
  const memory = (cost.bytes * count) / (peakBandwidth(info) * copyEfficiency);
  const compute = (cost.flops * count) / (peakFlops(info, dtype) * computeEfficiency);
  return { seconds: Math.max(memory, compute), memoryBound: memory >= compute };
}
