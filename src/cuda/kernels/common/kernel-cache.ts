/**
 * Per-device memo of loaded kernels by generator parameters, so a hot launcher neither regenerates
 * source nor re-hashes it. The runtime's own cache (keyed by a hash of the source) stays the
 * authority; this only skips the work of asking it. Keys are the kernel entry names, which spell
 * out every generator parameter.
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
