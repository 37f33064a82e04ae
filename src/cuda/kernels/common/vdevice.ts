/**
 * Variable-size batches whose sizes and addresses are on the device (core/device-batch.ts), shared
 * by the gemm, potrf and getrf families: a classification kernel (one per family, generate-vdevice.ts)
 * reads each member's sizes, checks them, and appends the member's row to its size class's region
 * of the same two tables the host-sized path uploads (common/vbatch.ts: the same rows, so the same
 * class kernels run, unchanged); then each class kernel is launched over its region.
 *
 * The host knows only the count and the maxima, so:
 * - every region has room for `count` rows (any class may take every member), and the regions are
 *   those of the classes up to the class of the largest size the maxima allow;
 * - the tables are zeroed first, and a class launch covers its whole region: a row past the
 *   class's device-side count is all zeros, a member with nothing to do (gemm: m = n = 0; potrf:
 *   n = 0, getrf: m = n = 0, batch index 0, which the launchers point at a sink), so its blocks
 *   leave at once;
 * - members larger than VBATCH_MAX (possible where the maxima exceed it) go to one more region,
 *   the large class, whose bound is the largest size rounded up to LARGE_STEP (gemm's tiled class
 *   kernel, potrf's panel class kernel and getrf's blocked class take any bound; the host path sends these members to the
 *   per-size drivers instead, so their results agree with it within rounding, not bit for bit).
 * Inside a class the members are in the order their atomic increments came, not by size: their
 * results do not depend on it (a member is computed by its own blocks alone).
 */
import { MyriadError } from '../../../core/errors.js';
import type { DeviceStorage } from '../../../core/storage.js';
import type { DeviceArray, GpuDevice } from '../../runtime/types.js';
import { VBATCH_CLASSES, VBATCH_MAX, sizeClass } from './vbatch.js';

/** The large class's bound is the largest size rounded up to a multiple of this (a kernel per step, not per size). */
export const LARGE_STEP = 128;

/** Region index of the large class (after the VBATCH_CLASSES). */
export const LARGE_REGION = VBATCH_CLASSES.length;

/** One class launch: its region in the tables and its bound. */
export interface DeviceRegion {
  readonly region: number;
  readonly bound: number;
}

/**
 * Pure: the regions a call with members up to `maxSize` needs, largest first (the launch order):
 * every class up to the class of maxSize, and the large class where maxSize exceeds VBATCH_MAX.
 * `regions` is how many the tables hold (the region indices run below it).
 */
export function deviceRegions(maxSize: number): { readonly launches: readonly DeviceRegion[]; readonly regions: number } {
  if (!Number.isSafeInteger(maxSize) || maxSize < 0) throw new MyriadError('INVALID_ARGUMENT', `the largest size must be a non-negative integer, got ${maxSize}`, 'maxRows');
  const launches: DeviceRegion[] = [];
  const top = sizeClass(Math.min(maxSize, VBATCH_MAX))!;
  VBATCH_CLASSES.forEach((bound, region) => { if (bound <= top) launches.push({ region, bound }); });
  if (maxSize > VBATCH_MAX) launches.push({ region: LARGE_REGION, bound: Math.ceil(maxSize / LARGE_STEP) * LARGE_STEP });
  const regions = launches[launches.length - 1]!.region + 1;
  return { launches: launches.reverse(), regions };
}

/**
 * CUDA text: `vclassOf(d)`, the region of a member of size d >= 0 (common/vbatch.ts's classes;
 * LARGE_REGION above VBATCH_MAX), generated from VBATCH_CLASSES so the two cannot drift.
 */
export function classOfSource(): string {
  const tests = VBATCH_CLASSES.map((bound, i) => `  if (d <= ${bound}) return ${i};`).join('\n');
  return `// The size class (region) of a member of size d >= 0: common/vbatch.ts's classes, then the large class.
static __device__ __forceinline__ int vclassOf(int d) {
${tests}
  return ${LARGE_REGION};
}`;
}

/** Threads per block of the classification kernels (one thread a member). */
export const CLASSIFY_THREADS = 256;

/** The tables of one call: regions of `count` rows each, zeroed, and the classes' counters after the ints. */
export interface DeviceTables {
  readonly pointers: DeviceArray;
  readonly ints: DeviceArray;
  /** Address of the per-region counters (int32, one per region). */
  readonly counters: bigint;
  /** Addresses of region r's first rows. */
  at(region: number): { readonly pointers: bigint; readonly ints: bigint };
  dispose(): void;
}

/** Allocates and zeroes the tables (the counters, and the rows no member fills, must read 0). */
export function allocDeviceTables(dev: GpuDevice, regions: number, count: number, pointerStride: number, intStride: number): DeviceTables {
  const rows = regions * count;
  const p = dev.alloc('int64', Math.max(1, rows * pointerStride));
  let i: DeviceArray;
  try {
    i = dev.alloc('int32', rows * intStride + regions);
  } catch (e) {
    p.dispose();
    throw e;
  }
  dev.fill(p, 0);
  dev.fill(i, 0);
  return {
    pointers: p, ints: i,
    counters: i.ptr + BigInt(rows * intStride * 4),
    at: (r) => ({ pointers: p.ptr + BigInt(r * count * pointerStride * 8), ints: i.ptr + BigInt(r * count * intStride * 4) }),
    dispose: () => { p.dispose(); i.dispose(); },
  };
}

/** Waits for the launches that read the tables, then frees them (scratch too). */
export function releaseDeviceTables(dev: GpuDevice, t: DeviceTables, ...scratch: DeviceArray[]): void {
  dev.synchronize();
  t.dispose();
  for (const s of scratch) s.dispose();
}

/** A checked storage of the request as this device's array (the backend checked that it is). */
export const onDevice = (s: DeviceStorage): DeviceArray => s as DeviceArray;

/** The address of an optional array (0: absent, which the classification kernels read as "square"). */
export const optionalPtr = (s: DeviceStorage | undefined): bigint => (s === undefined ? 0n : onDevice(s).ptr);
