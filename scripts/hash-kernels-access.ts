/**
 * How scripts/hash-kernels.ts forces a factorisation variant: the one part of the enumeration
 * that follows the code's way of forcing (it asks for the same variants whatever that way is).
 */
import type { GetrfRequest, PotrfRequest } from '../src/core/ops.js';
import type { DeviceArray, GpuDevice } from '../src/cuda/runtime/types.js';
import { getrfCuda, getrfTuning, type GetrfVariant } from '../src/cuda/kernels/getrf/launch.js';
import { potrfCuda, potrfPanelTuning, potrfTuning, type PotrfVariant } from '../src/cuda/kernels/potrf/launch.js';

export interface PotrfForce {
  /** null: chosen by size. */
  readonly variant: PotrfVariant | null;
  /** The panel design's widest panel and loop-inclusive switch. */
  readonly widest: number;
  readonly loop: boolean;
}
export type GetrfForce = GetrfVariant | null;

export function potrfForced(dev: GpuDevice, r: PotrfRequest<DeviceArray, DeviceArray>, f: PotrfForce): void {
  potrfTuning.force = f.variant;
  potrfPanelTuning.widest = f.widest;
  potrfPanelTuning.loop = f.loop;
  try {
    potrfCuda(dev, r);
  } finally {
    potrfTuning.force = null;
    potrfPanelTuning.widest = 16;
    potrfPanelTuning.loop = false;
  }
}

export function getrfForced(dev: GpuDevice, r: GetrfRequest<DeviceArray, DeviceArray>, force: GetrfForce): void {
  getrfTuning.force = force;
  try {
    getrfCuda(dev, r);
  } finally {
    getrfTuning.force = null;
  }
}
