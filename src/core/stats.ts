/** Small statistics of repeated timings, for the tuning sweeps, benchmarks and the multi-GPU split. */
/** Warm-up before timing: at least this many calls and this many milliseconds (compile, load, first touch, clocks). */
export const WARMUP = { calls: 3, ms: 20 } as const;

/** Median of repeated timings (robust to the odd slow run; MAGMA times once: don't). */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
