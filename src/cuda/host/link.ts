/**
 * The host link as the host path sees it: page-locked copies of one large buffer each way,
 * timed on the host clock around the copy and a wait (the roofline of `bench --devices ... host-start`).
 */
import { median } from '../../core/stats.js';
import type { GpuDevice } from '../runtime/types.js';

export interface LinkBandwidth {
  /** Host -> device and device -> host, GB/s (10^9 bytes per second), median of the repeats. */
  readonly upGBs: number;
  readonly downGBs: number;
  /** Whether the buffer was page-locked (false: these are pageable figures). */
  readonly pinned: boolean;
}

const measured = new WeakMap<GpuDevice, LinkBandwidth>();

/** Measures (once per device) copies of `bytes` (default 256 MiB) each way, median of `repeats`. */
export function linkBandwidth(device: GpuDevice, bytes = 256 * 2 ** 20, repeats = 5): LinkBandwidth {
  const known = measured.get(device);
  if (known) return known;
  const elements = Math.floor(bytes / 8);
  const host = new Float64Array(elements).fill(1.5);
  const array = device.alloc('float64', elements);
  try {
    const pinned = device.pin(host, true);
    const time = (copy: () => void): number => {
      const t0 = performance.now();
      copy();
      device.synchronize();
      return performance.now() - t0;
    };
    const up = () => { device.uploadRange(host, 0, elements, array, 0); device.awaitUploads(); };
    const down = () => device.downloadRange(array, 0, host, 0, elements);
    time(up); time(down); // warm-up
    const ups: number[] = [], downs: number[] = [];
    for (let r = 0; r < repeats; r++) { ups.push(time(up)); downs.push(time(down)); }
    const result = { upGBs: (elements * 8) / (median(ups) * 1e6), downGBs: (elements * 8) / (median(downs) * 1e6), pinned };
    measured.set(device, result);
    return result;
  } finally {
    array.dispose();
  }
}
