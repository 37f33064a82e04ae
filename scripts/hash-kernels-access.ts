/**
 * How scripts/hash-kernels.ts forces a factorisation variant and fills in planned parameters:
 * the one part of the enumeration that follows the code's way of doing it (it asks for the same
 * variants and kernels whatever that way is).
 */
import type { GetrfRequest, PotrfRequest } from '../src/core/ops.js';
import type { DeviceArray, GpuDevice, KernelSource } from '../src/cuda/runtime/types.js';
import { tuningFor } from '../src/cuda/model/tuning/index.js';
import { getrfCuda, type GetrfVariant } from '../src/cuda/kernels/getrf/index.js';
import { potrfCuda, potrfSmallSource, type PotrfSmallParams, type PotrfVariant } from '../src/cuda/kernels/potrf/index.js';

export interface PotrfForce {
  /** null: chosen by size. */
  readonly variant: PotrfVariant | null;
  /** The panel design's widest panel (16: the table's choice) and loop-inclusive switch. */
  readonly widest: number;
  readonly loop: boolean;
}
export type GetrfForce = GetrfVariant | null;

export function potrfForced(dev: GpuDevice, r: PotrfRequest<DeviceArray, DeviceArray>, f: PotrfForce): void {
  potrfCuda(dev, r, { force: { variant: f.variant ?? undefined, panelWidest: f.widest === 16 ? undefined : f.widest, panelLoop: f.loop || undefined } });
}

export function getrfForced(dev: GpuDevice, r: GetrfRequest<DeviceArray, DeviceArray>, force: GetrfForce): void {
  getrfCuda(dev, r, { force: { variant: force ?? undefined } });
}

/** The warp Cholesky kernel with the step the sm_90 table picks for its size. */
export function potrfSmall(p: Omit<PotrfSmallParams, 'classic'>): KernelSource {
  return potrfSmallSource({ ...p, classic: p.n <= tuningFor('sm_90', 'potrf').classicMax[p.dtype] });
}
