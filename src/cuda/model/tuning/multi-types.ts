/**
 * The multi-GPU family's tuning values: when a call on host arrays is worth spreading over several
 * GPUs (multi/crossover.ts).
 * - `perExtraGpuMs`: host time each further GPU adds to a call on host arrays (one more staging
 *   call, one more set of copies and a wait), in ms. A call whose estimated one-GPU time T runs on
 *   the j GPUs that minimise T / j + perExtraGpuMs (j - 1): one GPU while T < 2 perExtraGpuMs, all
 *   of them for long calls;
 * - `bandwidthShare`, `flopShare`: the rates of the estimate, as shares of the card's attribute
 *   peaks (model/roofline.ts peakBandwidth, peakFlops): what a batched kernel on small matrices
 *   reaches at best, so that the estimate is a lower bound on the time and a call is spread only
 *   where it is surely long enough;
 * - `linkGBs`: page-locked host <-> device copies per GPU, GB/s each way.
 */
export interface MultiTuning {
  readonly perExtraGpuMs: number;
  readonly bandwidthShare: number;
  readonly flopShare: number;
  readonly linkGBs: number;
}
