/**
 * Measuring on a GPU, in one place: CUDA-event timing (warm-up excluded, median of repeats)
 * and the device-to-device copy bandwidth that every roofline in the benchmarks divides by.
 */
import { WARMUP, median } from '../../core/stats.js';
import type { GpuDevice } from '../runtime/types.js';

/**
 * Median milliseconds of `repeats` runs, each timed with CUDA events, after the warm-up.
 * `reset` (optional, untimed) runs before every call: restores inputs an in-place call overwrote.
 * `repeats` as a function: how many, given the last warm-up call's milliseconds (fewer for slow calls).
 */
export function timeMs(dev: GpuDevice, run: () => void, repeats: number | ((warmMs: number) => number), reset?: () => void): number {
  const start = dev.event();
  const stop = dev.event();
  const once = (): number => {
    reset?.();
    // Each run is a call as the API makes one: a kernel that ran its quick build (runtime/tiered.ts)
    // in an earlier run switches to its optimised build, so the warm-up, not the timing, pays the wait.
    dev.beginCall?.();
    start.record();
    run();
    stop.record();
    stop.synchronize();
    return stop.elapsedSince(start);
  };
  try {
    let last = 0;
    for (let calls = 0, warm = 0; calls < WARMUP.calls || warm < WARMUP.ms; calls++) warm += (last = once());
    return median(Array.from({ length: typeof repeats === 'number' ? repeats : repeats(last) }, once));
  } finally {
    start.dispose();
    stop.dispose();
  }
}

/** Device-to-device copy bandwidth (bytes read + bytes written), bytes per second, of a 1 GiB copy. */
export function measureCopyBandwidth(dev: GpuDevice): number {
  const elements = 2 ** 27; // 1 GiB of float64
  const src = dev.alloc('float64', elements);
  const dst = dev.alloc('float64', elements);
  try {
    dev.fill(src, 0x3f);
    const ms = timeMs(dev, () => dev.copy(src, 0, dst, 0, elements), 10);
    return (2 * elements * 8) / (ms * 1e-3);
  } finally {
    src.dispose();
    dst.dispose();
  }
}
