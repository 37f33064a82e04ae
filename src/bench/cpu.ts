/**
 * The CPU's benchmark extras: the memory-bandwidth roofline from a measured host copy, and
 * numpy as the baseline (numpy.ts). Registered once, like the CUDA ones (src/cuda/bench.ts).
 */
import { cpuThreads } from '../cpu-fast/threads/pool.js';
import { registerBenchExtras } from './extras.js';
import { numpyBaseline } from './numpy.js';
import type { MachineLimits } from './run.js';
import { median } from '../core/stats.js';

let limits: MachineLimits | undefined;

/** Copy bandwidth (read + write) of one large TypedArray.set, median of 5, in GB/s. */
export function measureHostBandwidth(bytes = 64 << 20): number {
  const src = new Float64Array(bytes / 8).fill(1);
  const dst = new Float64Array(bytes / 8);
  dst.set(src);
  const times: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    dst.set(src);
    times.push(performance.now() - t0);
  }
  return (2 * bytes) / (median(times) * 1e6);
}

registerBenchExtras({
  limits(ctx) {
    if (ctx.backend !== 'cpu') return undefined;
    if (!limits) {
      limits = { bandwidthGBs: measureHostBandwidth() };
      console.error(`host copy bandwidth: ${limits.bandwidthGBs.toFixed(1)} GB/s (read + write, one thread); numpy and myriad on ${cpuThreads()} thread(s)`);
    }
    return limits;
  },
  vendor(ctx) {
    return ctx.backend === 'cpu' ? numpyBaseline(cpuThreads()) : undefined;
  },
});
