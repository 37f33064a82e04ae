/**
 * gemm on variable batches whose sizes and addresses are on the device (common/vdevice.ts): tables
 * from the device workspace with their counters zeroed, the classification kernel, then each
 * class's kernel (generate-vbatched.ts, the host-sized path's tile, in its device-count form) over
 * its region, largest class first. Per call: one memset, one classification launch, one launch a
 * class; no allocation in steady state, no wait, nothing read back.
 */
import type { DeviceVariableGemmRequest } from '../../../core/device-batch.js';
import { tuningFor, type GemmTuning } from '../../model/tuning/index.js';
import { blocksPerSM } from '../../model/occupancy.js';
import { arg, type GpuDevice, type Kernel } from '../../runtime/types.js';
import { kernelFor } from '../common/kernel-cache.js';
import { batchArgs, deviceRegions, inDeviceFrame, launchPerMember, onDevice, takeDeviceTables, type DeviceRegion, type DeviceTables } from '../common/vdevice.js';
import { GEMM_VBATCH_INTS, GEMM_VBATCH_POINTERS, classTiles } from './generate-vbatched.js';
import { generateGemmClassify, type GemmClassifyParams } from './generate-vdevice.js';
import { vbatchedGemmLaunch, vbatchedGemmSource, type VbatchedGemmScalars } from './launch-vbatched.js';
import type { VbatchedGemmParams } from './params.js';
import { gemmClassParams } from './plan-vbatched.js';

/**
 * The largest size (max(m, n, k)) a valid member can have: each of m, n, k is bounded by both
 * batches it is read from (k by none where alpha = 0, which runs k = 0).
 */
export function gemmDeviceMaxSize(r: Pick<DeviceVariableGemmRequest, 'transA' | 'transB' | 'alpha' | 'a' | 'b' | 'c'>): number {
  const [amMax, akMax] = r.transA === 'N' ? [r.a.maxRows, r.a.maxCols] : [r.a.maxCols, r.a.maxRows];
  const [bkMax, bnMax] = r.transB === 'N' ? [r.b.maxRows, r.b.maxCols] : [r.b.maxCols, r.b.maxRows];
  const m = Math.min(r.c.maxRows, amMax), n = Math.min(r.c.maxCols, bnMax), k = r.alpha === 0 ? 0 : Math.min(akMax, bkMax);
  return Math.max(m, n, k);
}

export interface GemmDeviceOptions {
  readonly tuning?: GemmTuning;
}

/**
 * Grids of the device-count class kernels: blocks enough for this many times what the GPU holds
 * at once (the kernel as compiled: registers, shared memory), at most the blocks of one per row.
 * More than one wave lets blocks that drew short members start others' work as they finish.
 */
export const DEVICE_CLASS_WAVES = 2;

/**
 * The most tiles of C a class's members may span for its blocks to loop over members. A block
 * takes one tile of each member it visits, in a fixed turn: where a class spans many tiles (a
 * member of 257-512 on 64 x 64 tiles: up to 64), few members fit the grid at once and most of a
 * smaller member's tile blocks idle, so such classes get a slot a row instead (a block a tile and
 * row, as the host-table kernels, rows past the class's count leaving at once). On an H200 the
 * loop over all classes took workload b's float64 device form from 14.3 to 18.9 ms.
 */
export const DEVICE_LOOP_MAX_TILES = 4;

/** Member slots of a device-count class launch (params.ts VbatchedCounting) over a region of `count` rows. */
export function deviceClassSlots(dev: GpuDevice, p: VbatchedGemmParams, kernel: Pick<Kernel, 'registers' | 'staticSharedBytes'>, count: number, waves = DEVICE_CLASS_WAVES): number {
  if (p.variant !== 'vstaged' && p.variant !== 'vsmall' && classTiles(p) > DEVICE_LOOP_MAX_TILES) return count;
  const plain = vbatchedGemmLaunch(p, 1);
  const threads = plain.block[0] * plain.block[1] * plain.block[2];
  const perSM = blocksPerSM(dev.info, { threads, registersPerThread: kernel.registers, sharedBytes: kernel.staticSharedBytes + (plain.sharedBytes ?? 0) });
  const blocks = Math.max(1, perSM) * dev.info.smCount * waves;
  // Members a block takes at once: the staged and team designs several, the tiled ones one per tile row of the grid.
  const perBlock = p.variant === 'vstaged' ? p.members : p.variant === 'vsmall' ? p.tbc : 1 / classTiles(p);
  return Math.max(1, Math.min(count, Math.floor(blocks * perBlock)));
}

/**
 * The class kernels over the regions of device-filled tables (`count` rows a region), largest
 * class first: each its device-count kernel, which reads its class's counter and takes the
 * members in turn on a grid of deviceClassSlots. gemm's device form, and trsm's updates on device
 * sizes, run their GEMMs here (tables whose counters the classification filled; rows past them are
 * never read).
 */
export function launchGemmRegions(dev: GpuDevice, s: VbatchedGemmScalars, launches: readonly DeviceRegion[], tables: DeviceTables, count: number, tuning: GemmTuning): void {
  for (const { region, bound } of launches) {
    const p: VbatchedGemmParams = { ...gemmClassParams({ dtype: s.dtype, transA: s.transA, transB: s.transB, beta: s.beta }, bound, tuning), deviceCount: true };
    const kernel = kernelFor(dev, `gemm-${p.variant}`, p, () => vbatchedGemmSource(p));
    const at = tables.at(region);
    kernel.launch(vbatchedGemmLaunch(p, deviceClassSlots(dev, p, kernel, count, tuning.vdeviceWaves)), [
      arg.ptr(at.pointers), arg.ptr(at.ints), arg.i32(count), arg.real(s.dtype, s.alpha), arg.real(s.dtype, s.beta), arg.ptr(tables.counter(region)),
    ]);
  }
}

export function gemmDeviceVariableCuda(dev: GpuDevice, r: DeviceVariableGemmRequest, opts: GemmDeviceOptions = {}): void {
  const count = r.c.count;
  if (count === 0) return;
  const dtype = r.c.dtype;
  const { launches, regions } = deviceRegions(gemmDeviceMaxSize(r));
  const tuning = opts.tuning ?? tuningFor(dev.info.arch, 'gemm');
  inDeviceFrame(dev, (frame) => {
    const tables = takeDeviceTables(dev, frame, regions, count, GEMM_VBATCH_POINTERS, GEMM_VBATCH_INTS, 'counted');
    const cp: GemmClassifyParams = { transA: r.transA, transB: r.transB };
    const classify = kernelFor(dev, 'gemm-vclassify', cp, () => generateGemmClassify(cp));
    launchPerMember(classify, count, [
      ...batchArgs(r.a), ...batchArgs(r.b), ...batchArgs(r.c),
      arg.i32(count), arg.i32(r.alpha === 0 ? 1 : 0), arg.i32(r.beta === 1 ? 1 : 0), arg.i64(count),
      arg.ptr(tables.pointers), arg.ptr(tables.ints), arg.ptr(tables.counters), arg.ptr(onDevice(r.info)),
    ]);
    launchGemmRegions(dev, { dtype, transA: r.transA, transB: r.transB, alpha: r.alpha, beta: r.beta }, launches, tables, count, tuning);
  });
}
