/**
 * Per-device memo of loaded kernels by generator parameters, so a hot launcher neither regenerates
 * source nor re-hashes it. The runtime's own cache (keyed by a hash of the source) stays the
 * authority; this only skips the work of asking it. Every family uses this one memo; its keys are
 * `<family design>/<JSON of the generator parameters>` (distinct per family, complete per kernel).
 */
import type { GpuDevice, Kernel, KernelSource } from '../../runtime/types.js';

const loaded = new WeakMap<GpuDevice, Map<string, Kernel>>();

export function cachedKernel(dev: GpuDevice, key: string, generate: () => KernelSource): Kernel {
  let perDevice = loaded.get(dev);
  if (perDevice === undefined) {
    perDevice = new Map();
    loaded.set(dev, perDevice);
  }
  let k = perDevice.get(key);
  if (k === undefined) {
    k = dev.kernel(generate());
    perDevice.set(key, k);
  }
  return k;
}
