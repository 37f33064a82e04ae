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

/** The links of several GPUs used at once: GB/s summed over the GPUs, page-locked buffers. */
export interface AggregateBandwidth {
  /** Host -> device on every GPU at once. */
  readonly upGBs: number;
  /** Device -> host on every GPU at once. */
  readonly downGBs: number;
  /** Both directions on every GPU at once (bytes of both directions over the time). */
  readonly bothGBs: number;
  readonly devices: number;
  /** Whether every buffer was page-locked. */
  readonly pinned: boolean;
}

/**
 * The machine's aggregate pinned bandwidth: copies of `bytes` (default 256 MiB) each way per GPU,
 * enqueued on every GPU before any wait (uploads on each copy stream, downloads on each main
 * stream, so "both" runs the two directions at once), timed on the host clock, median of `repeats`.
 * This is the roofline of host-data calls over those GPUs: max(up / upGBs, down / downGBs,
 * (up + down) / bothGBs).
 */
export function aggregateLinkBandwidth(devices: readonly GpuDevice[], bytes = 256 * 2 ** 20, repeats = 5): AggregateBandwidth {
  const elements = Math.floor(bytes / 8);
  const bufs = devices.map((device) => ({ device, up: new Float64Array(elements).fill(1.5), down: new Float64Array(elements), a: device.alloc('float64', elements), b: device.alloc('float64', elements) }));
  try {
    let pinned = true;
    for (const x of bufs) pinned = x.device.pin(x.up, true) && x.device.pin(x.down, true) && pinned;
    const ups = () => { for (const x of bufs) x.device.uploadRange(x.up, 0, elements, x.a, 0); };
    const downs = () => { for (const x of bufs) x.device.downloadRange(x.b, 0, x.down, 0, elements); };
    const time = (enqueue: () => void): number => {
      const t0 = performance.now();
      enqueue();
      for (const x of bufs) x.device.awaitUploads();
      for (const x of bufs) x.device.synchronize();
      return performance.now() - t0;
    };
    const both = () => { ups(); downs(); };
    for (const f of [ups, downs, both]) time(f); // warm-up
    const t: Record<'up' | 'down' | 'both', number[]> = { up: [], down: [], both: [] };
    for (let r = 0; r < repeats; r++) { t.up.push(time(ups)); t.down.push(time(downs)); t.both.push(time(both)); }
    const total = elements * 8 * devices.length;
    return { upGBs: total / (median(t.up) * 1e6), downGBs: total / (median(t.down) * 1e6), bothGBs: (2 * total) / (median(t.both) * 1e6), devices: devices.length, pinned };
  } finally {
    for (const x of bufs) { x.a.dispose(); x.b.dispose(); }
  }
}

/** Milliseconds the aggregate links need for `up` and `down` bytes (the host path's roofline over those GPUs). */
export function aggregateRooflineMs(up: number, down: number, bw: AggregateBandwidth): number {
  return Math.max(up / (bw.upGBs * 1e6), down / (bw.downGBs * 1e6), (up + down) / (bw.bothGBs * 1e6));
}
