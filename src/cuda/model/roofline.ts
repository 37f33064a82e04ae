/**
 * The roofline of a GPU from its attributes: the memory bandwidth and the arithmetic peaks that
 * bound a kernel (paper section 4: P_max = F / T_min with T_min the time to move the data once).
 * Attribute-derived peaks are theoretical; `copyEfficiency` scales them to what a copy reaches.
 */
import type { DType } from '../../core/dtype.js';
import { byPrecision } from '../../core/dtype-table.js';
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
  return byPrecision(dtype, { single: fp32, double: info.minor === 0 && info.major >= 6 ? fp32 / 2 : 2 });
}

/** Flops per second of fused multiply-adds on the CUDA cores (no tensor cores). */
export function peakFlops(info: DeviceInfo, dtype: DType): number {
  return info.smCount * fmaLanesPerSM(info, dtype) * 2 * info.clockKHz * 1e3;
}

/**
 * The benchmarks' roofline ceiling in GFLOP/s, tensor cores included, per SM and clock: sm_90 FP64 256 flops on the tensor
 * cores (DMMA; cuBLAS DGEMM uses them: 57 TFLOP/s measured on an H100, above the 34 of the FP64
 * pipes), FP32 256 (FFMA). Earlier archs: FP64 half of FP32, an upper bound.
 */
export function benchmarkPeakGflops(info: DeviceInfo): Partial<Record<DType, number>> {
  const { smCount, clockKHz, major } = info;
  const ghz = clockKHz / 1e6;
  const fp32 = smCount * 256 * ghz;
  return { float32: fp32, float64: major >= 9 ? smCount * 256 * ghz : fp32 / 2 };
}
