/**
 * How one batch is shared among several GPUs: contiguous ranges of matrices, one per device, in
 * proportion to each device's weight (KBLAS, section 7.3.2: "we distribute the data and
 * corresponding operations across devices equally" for identical GPUs). Contiguous ranges keep
 * a strided batch strided on every device and keep info/ipiv of each part one slice.
 */
import { MyriadError } from '../../core/errors.js';
import { peakBandwidth } from '../model/roofline.js';
import type { DeviceInfo } from '../runtime/types.js';

/** Matrices [start, end) of a batch, run on lane `lane` (an index into the backend's devices). */
export interface Part {
  readonly lane: number;
  readonly start: number;
  readonly end: number;
}

/** Checks weights (one per device, finite, >= 0, not all 0) and returns them as a fresh array. */
export function checkWeights(weights: readonly number[], devices: number): number[] {
  if (!Array.isArray(weights) || weights.length !== devices)
    throw new MyriadError('INVALID_ARGUMENT', `expected ${devices} weights (one per device), got ${Array.isArray(weights) ? weights.length : String(weights)}`, 'weights');
  for (const w of weights)
    if (typeof w !== 'number' || !Number.isFinite(w) || w < 0) throw new MyriadError('INVALID_ARGUMENT', `weights must be finite and >= 0, got ${String(w)}`, 'weights');
  if (!weights.some((w) => w > 0)) throw new MyriadError('INVALID_ARGUMENT', 'at least one weight must be > 0', 'weights');
  return [...weights];
}

/**
 * Matrices per device: proportional to the weights, rounded by largest remainder (ties to the
 * lower index), so the counts always sum to `count` and differ from the exact shares by < 1.
 */
export function splitCounts(count: number, weights: readonly number[]): number[] {
  if (!Number.isSafeInteger(count) || count < 0) throw new MyriadError('INVALID_ARGUMENT', `expected a non-negative batch count, got ${count}`, 'count');
  const w = checkWeights(weights, weights.length);
  const total = w.reduce((s, x) => s + x, 0);
  const exact = w.map((x) => (count * x) / total);
  const counts = exact.map(Math.floor);
  let left = count - counts.reduce((s, x) => s + x, 0);
  const order = exact.map((x, i) => ({ i, frac: x - Math.floor(x) })).filter(({ i }) => w[i]! > 0).sort((a, b) => b.frac - a.frac || a.i - b.i);
  for (let k = 0; left > 0; k = (k + 1) % order.length, left--) counts[order[k]!.i]!++;
  return counts;
}

/** The non-empty parts of a batch of `count` matrices split by `weights`, in device order. */
export function splitBatch(count: number, weights: readonly number[]): Part[] {
  const parts: Part[] = [];
  let start = 0;
  splitCounts(count, weights).forEach((n, lane) => {
    if (n > 0) parts.push({ lane, start, end: start + n });
    start += n;
  });
  return parts;
}

/**
 * Default weights from the devices' own attributes: equal for identical GPUs; otherwise
 * proportional to the peak memory bandwidth (memory clock x bus width), because batched kernels
 * on very small matrices are bound by memory traffic (papers 000 and 004, roofline sections).
 * `calibrate` on the context replaces them with measured speeds.
 */
export function modelWeights(infos: readonly DeviceInfo[]): number[] {
  const key = (i: DeviceInfo): string => [i.name, i.arch, i.smCount, i.clockKHz, i.memoryClockKHz, i.memoryBusWidthBits].join('/');
  if (infos.every((i) => key(i) === key(infos[0]!))) return infos.map(() => 1);
  const bw = infos.map(peakBandwidth);
  const max = Math.max(...bw);
  return max > 0 ? bw.map((b) => b / max) : infos.map(() => 1);
}

/** Weights from measured times of the same work on each device: speed = 1 / time. */
export function weightsFromTimes(ms: readonly number[]): number[] {
  if (ms.some((t) => !(t > 0) || !Number.isFinite(t))) throw new MyriadError('INVALID_ARGUMENT', `measured times must be finite and > 0, got ${ms.join(', ')}`, 'times');
  const fastest = Math.min(...ms);
  return ms.map((t) => fastest / t);
}
