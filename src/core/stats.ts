/** Small statistics of repeated timings, for the tuning sweeps, benchmarks and the multi-GPU split. */
/** Warm-up before timing: at least this many calls and this many milliseconds (compile, load, first touch, clocks). */
export const WARMUP = { calls: 3, ms: 20 } as const;
/**
 * The benchmarks' warm-up (`myriad bench`): longer than the tuning sweeps', so that a row times
 * the host code V8 has optimised, as a caller of many calls gets it, not its first tiers. A
 * large-path GPU call's planning costs 130-350 us on calls 2-10 and tens of us from a few hundred
 * calls on (H100, 2026-11-27, docs/host-path.md), and one-thread CPU rows timed by process CPU time
 * also count V8's background compiles of the first calls.
 */
export const BENCH_WARMUP = { calls: 3, ms: 200 } as const;

/** Median of repeated timings (robust to the odd slow run; MAGMA times once: don't). */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
