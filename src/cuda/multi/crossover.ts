/**
 * How many GPUs a call on host arrays runs on. Each further GPU costs the host a fixed time per call
 * (one more staging call, its copies and its wait: `perExtraGpuMs`, tuning table 'multi'), so a call
 * whose one-GPU time is T runs on the j GPUs that minimise T / j + perExtraGpuMs (j - 1): one GPU
 * while T < 2 perExtraGpuMs, every GPU once T is long enough. T is the model's lower bound
 * (model/call-time.ts), so a call is spread only where it is surely long enough.
 * Device-resident data is not moved: a sharded batch runs where its matrices live.
 */
import { MyriadError } from '../../core/errors.js';

/**
 * What a multi-GPU context does with a host call: 'auto' (the crossover above), 'all' (every GPU
 * with a weight, as the weights split it), or a number of GPUs (the fastest by weight).
 */
export type Spread = 'auto' | 'all' | number;

export function checkSpread(spread: unknown, lanes: number): Spread {
  if (spread === 'auto' || spread === 'all') return spread;
  if (typeof spread !== 'number' || !Number.isSafeInteger(spread) || spread < 1 || spread > lanes)
    throw new MyriadError('INVALID_ARGUMENT', `expected 'auto', 'all' or a number of GPUs from 1 to ${lanes}, got ${String(spread)}`, 'spread');
  return spread;
}

/** The number of GPUs (1..lanes) that minimises oneGpuMs / j + perExtraGpuMs (j - 1); ties to fewer. */
export function gpusFor(oneGpuMs: number, lanes: number, perExtraGpuMs: number): number {
  let best = 1;
  let bestMs = oneGpuMs;
  for (let j = 2; j <= lanes; j++) {
    const ms = oneGpuMs / j + perExtraGpuMs * (j - 1);
    if (ms < bestMs) { best = j; bestMs = ms; }
  }
  return best;
}

/**
 * The weights restricted to the `gpus` heaviest lanes (ties to the lower index), the others 0: a
 * split by them leaves the other lanes without work.
 */
export function weightsOnFastest(weights: readonly number[], gpus: number): number[] {
  if (gpus >= weights.length) return [...weights];
  const keep = new Set(weights.map((w, i) => ({ w, i })).sort((x, y) => y.w - x.w || x.i - y.i).slice(0, gpus).map((x) => x.i));
  return weights.map((w, i) => (keep.has(i) ? w : 0));
}
