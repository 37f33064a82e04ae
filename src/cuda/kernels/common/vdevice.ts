/**
 * Variable-size batches whose sizes and addresses are on the device (core/device-batch.ts), shared
 * by the gemm, potrf, getrf, trsm, syrk and trtri families and the solves composed of them: a
 * classification kernel (one per family, generate-vdevice.ts)
 * reads each member's sizes, checks them, and appends the member's row to its size class's region
 * of the same two tables the host-sized path uploads (common/vbatch.ts: the same rows, so the same
 * class kernels run, unchanged); then each class kernel is launched over its region.
 *
 * The host knows only the count and the maxima, so:
 * - every region has room for `count` rows (any class may take every member), and the regions are
 *   those of the classes up to the class of the largest size the maxima allow;
 * - the tables are views of the device's workspace (no allocation and no wait per call: a call
 *   is the zeroing, the classification kernel and the class kernels, nothing read back);
 * - gemm's class kernels read their class's count from its counter and loop over the members on
 *   a grid the GPU holds at once (gemm/params.ts VbatchedCounting), so only the counters are
 *   zeroed; the other families' class kernels launch over the whole region and the tables are
 *   zeroed first: a row past the class's device-side count is all zeros, a member with nothing to
 *   do (potrf: n = 0, getrf: m = n = 0, batch index 0, which the launchers point at a sink), so
 *   its blocks leave at once;
 * - members larger than VBATCH_MAX (possible where the maxima exceed it) go to one more region,
 *   the large class, whose bound is the largest size rounded up to LARGE_STEP (gemm's tiled class
 *   kernel, potrf's panel class kernel and getrf's blocked class take any bound; the host path sends these members to the
 *   per-size drivers instead, so their results agree with it within rounding, not bit for bit).
 * Inside a class the members are in the order their atomic increments came, not by size: their
 * results do not depend on it (a member is computed by its own blocks alone).
 */
import { MyriadError } from '../../../core/errors.js';
import type { DeviceStorage } from '../../../core/storage.js';
import type { DeviceVariableBatch } from '../../../core/device-batch.js';
import { arg, type DeviceArray, type GpuDevice, type Kernel, type KernelArg, type KernelSource } from '../../runtime/types.js';
import { Workspace, type WorkspaceFrame } from '../../runtime/workspace.js';
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

/**
 * A factorisation's classification kernel (potrf's, getrf's): one thread a member, over the
 * members' device rows, cols (optional), ld and addresses; `body` checks member i, writes an
 * invalid one's code to work[i + 1] and returns, else appends it to its class's region (ptrs, dims,
 * counters) with `regionRows` rows a region.
 */
export function factorClassifySource(entry: string, title: string, generator: string, body: string): KernelSource {
  const source = `// ${title}: the members' classification.
// Generated by ${generator}.
${classOfSource()}

extern "C" __global__ void __launch_bounds__(${CLASSIFY_THREADS}) ${entry}(
    const int* __restrict__ rows, const int* __restrict__ cols, const int* __restrict__ ld, const long long* __restrict__ ptr,
    int maxRows, int maxCols, int count, long long regionRows,
    long long* __restrict__ ptrs, int* __restrict__ dims, int* __restrict__ counters, int* __restrict__ work)
{
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
${body}}
`;
  return { name: `${entry}.cu`, source, entry };
}

/**
 * The tables of one call: regions of `count` rows each and the classes' counters after the ints,
 * views of the device's workspace (runtime/workspace.ts), valid until the caller's frame ends.
 */
export interface DeviceTables {
  readonly pointers: DeviceArray;
  readonly ints: DeviceArray;
  /** Address of the per-region counters (int32, one per region). */
  readonly counters: bigint;
  /** Address of region r's counter. */
  counter(region: number): bigint;
  /** Addresses of region r's first rows. */
  at(region: number): { readonly pointers: bigint; readonly ints: bigint };
  /**
   * Zeroes the rows of regions [first, regions) (`first` the tables' first launched region) and
   * every counter: for class kernels that launch over whole regions (a row past the class's
   * members must read zero), and tables reused by a later step whose classes are those regions
   * (the regions above keep their rows: that step does not launch them).
   */
  zero(regions: number): void;
  /** Zeroes the counters only: for class kernels that read their class's count (gemm's device-count kernels). */
  zeroCounters(): void;
}

/**
 * The first region `launches` run (`regions` where they are none): the regions below it are
 * reached by no member (their classes are another step's), so their rows need no zeroing.
 */
export const firstLaunchedRegion = (launches: readonly DeviceRegion[], regions: number): number =>
  launches.reduce((first, l) => Math.min(first, l.region), regions);

/**
 * Takes a call's tables from `frame` (the device workspace: no allocation once the workspace has
 * grown to the call's size, and nothing waits: the frame ends once the work is enqueued, and the
 * next call's kernels run after this one's on the stream) and zeroes them, the rows of regions
 * [first, regions) and the counters where `rows` is 'zeroed' (class kernels that launch over whole
 * regions; `first` the first region launched, firstLaunchedRegion), the counters only where it is
 * 'counted'.
 */
export function takeDeviceTables(
  dev: GpuDevice, frame: WorkspaceFrame, regions: number, count: number, pointerStride: number, intStride: number, rows: 'zeroed' | 'counted', first = 0,
): DeviceTables {
  const rowCount = regions * count;
  const p = frame.take('int64', Math.max(1, rowCount * pointerStride), 'the device form\'s member pointers');
  const i = frame.take('int32', rowCount * intStride + regions, 'the device form\'s member sizes and class counters');
  const countersAt = rowCount * intStride;
  const t: DeviceTables = {
    pointers: p, ints: i,
    counters: i.ptr + BigInt(countersAt * 4),
    counter: (r) => i.ptr + BigInt((countersAt + r) * 4),
    at: (r) => ({ pointers: p.ptr + BigInt(r * count * pointerStride * 8), ints: i.ptr + BigInt(r * count * intStride * 4) }),
    zero: (upTo) => {
      const from = Math.min(Math.max(0, first), regions) * count;
      const rows = Math.min(Math.max(0, upTo), regions) * count - from;
      if (rows * pointerStride > 0) dev.fill(dev.view(p, from * pointerStride, rows * pointerStride), 0);
      if (rows * intStride > 0) dev.fill(dev.view(i, from * intStride, rows * intStride), 0);
      dev.fill(dev.view(i, countersAt, regions), 0);
    },
    zeroCounters: () => dev.fill(dev.view(i, countersAt, regions), 0),
  };
  if (rows === 'zeroed') t.zero(regions);
  else t.zeroCounters();
  return t;
}

/**
 * Runs `body` in a frame of the device's workspace (its tables and scratch), ending the frame once
 * `body` has enqueued its work (thrown or not): no wait, no allocation in steady state.
 */
export function inDeviceFrame<T>(dev: GpuDevice, body: (frame: WorkspaceFrame) => T): T {
  const frame = Workspace.of(dev).frame();
  try {
    return body(frame);
  } finally {
    frame.end();
  }
}

/** A checked storage of the request as this device's array (the backend checked that it is). */
export const onDevice = (s: DeviceStorage): DeviceArray => s as DeviceArray;

/** The address of an optional array (0: absent, which the classification kernels read as "square"). */
export const optionalPtr = (s: DeviceStorage | undefined): bigint => (s === undefined ? 0n : onDevice(s).ptr);

/**
 * Launches a factorisation's classification kernel (factorClassifySource) over batch `a`'s
 * members: one thread a member, regions of `count` rows in `tables`, codes to `work`.
 */
export function launchFactorClassify(classify: Kernel, a: DeviceVariableBatch, tables: DeviceTables, work: DeviceArray): void {
  const count = a.count;
  classify.launch({ grid: [Math.ceil(count / CLASSIFY_THREADS), 1, 1], block: [CLASSIFY_THREADS, 1, 1] }, [
    arg.ptr(onDevice(a.rows)), arg.ptr(optionalPtr(a.cols)), arg.ptr(onDevice(a.ld)), arg.ptr(onDevice(a.pointers)),
    arg.i32(a.maxRows), arg.i32(a.maxCols), arg.i32(count), arg.i64(count),
    arg.ptr(tables.pointers), arg.ptr(tables.ints), arg.ptr(tables.counters), arg.ptr(work),
  ]);
}

/**
 * CUDA parameters of one device-sized batch `x` as a classification kernel reads it: xRows, xCols
 * (null: square members), xLd, xPtr (addresses) and the host's maxima xMaxRows, xMaxCols.
 */
export const batchParameters = (x: string): string =>
  `const int* __restrict__ ${x}Rows, const int* __restrict__ ${x}Cols, const int* __restrict__ ${x}Ld, const long long* __restrict__ ${x}Ptr, int ${x}MaxRows, int ${x}MaxCols`;

/** The kernel arguments of batchParameters for batch `b`. */
export function batchArgs(b: DeviceVariableBatch): KernelArg[] {
  return [arg.ptr(onDevice(b.rows)), arg.ptr(optionalPtr(b.cols)), arg.ptr(onDevice(b.ld)), arg.ptr(onDevice(b.pointers)), arg.i32(b.maxRows), arg.i32(b.maxCols)];
}

/** CUDA text: `within(v, max)`, v in [0, max] (a member's size against the host's bound). */
export const WITHIN_SOURCE = 'static __device__ __forceinline__ bool within(int v, int max) { return v >= 0 && v <= max; }';

/** Launches a kernel of one thread a member over `count` members (CLASSIFY_THREADS a block). */
export function launchPerMember(kernel: Kernel, count: number, args: KernelArg[]): void {
  kernel.launch({ grid: [Math.ceil(count / CLASSIFY_THREADS), 1, 1], block: [CLASSIFY_THREADS, 1, 1] }, args);
}
