/**
 * gemm on variable batches whose sizes and addresses are on the device (common/vdevice.ts): zeroed
 * tables, the classification kernel, then each class kernel of the host-sized path
 * (generate-vbatched.ts, unchanged) over its region, largest class first. Nothing is read back.
 */
import type { DeviceVariableGemmRequest } from '../../../core/device-batch.js';
import { tuningFor, type GemmTuning } from '../../model/tuning/index.js';
import { arg, type GpuDevice } from '../../runtime/types.js';
import { kernelFor } from '../common/kernel-cache.js';
import { allocDeviceTables, batchArgs, deviceRegions, launchPerMember, onDevice, releaseDeviceTables, type DeviceRegion, type DeviceTables } from '../common/vdevice.js';
import { GEMM_VBATCH_INTS, GEMM_VBATCH_POINTERS } from './generate-vbatched.js';
import { generateGemmClassify, type GemmClassifyParams } from './generate-vdevice.js';
import { vbatchedGemmLaunch, vbatchedGemmSource, type VbatchedGemmScalars } from './launch-vbatched.js';
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
 * The class kernels over the regions of device-filled tables (`count` rows a region), largest
 * class first: each over its whole region, rows past the class's members zero (m = n = 0), whose
 * blocks leave at once. gemm's device form, and trsm's updates on device sizes, run their GEMMs here.
 */
export function launchGemmRegions(dev: GpuDevice, s: VbatchedGemmScalars, launches: readonly DeviceRegion[], tables: DeviceTables, count: number, tuning: GemmTuning): void {
  for (const { region, bound } of launches) {
    const p = gemmClassParams({ dtype: s.dtype, transA: s.transA, transB: s.transB, beta: s.beta }, bound, tuning);
    const kernel = kernelFor(dev, `gemm-${p.variant}`, p, () => vbatchedGemmSource(p));
    const at = tables.at(region);
    kernel.launch(vbatchedGemmLaunch(p, count), [arg.ptr(at.pointers), arg.ptr(at.ints), arg.i32(count), arg.real(s.dtype, s.alpha), arg.real(s.dtype, s.beta)]);
  }
}

export function gemmDeviceVariableCuda(dev: GpuDevice, r: DeviceVariableGemmRequest, opts: GemmDeviceOptions = {}): void {
  const count = r.c.count;
  if (count === 0) return;
  const dtype = r.c.dtype;
  const { launches, regions } = deviceRegions(gemmDeviceMaxSize(r));
  const tuning = opts.tuning ?? tuningFor(dev.info.arch, 'gemm');
  const tables = allocDeviceTables(dev, regions, count, GEMM_VBATCH_POINTERS, GEMM_VBATCH_INTS);
  try {
    const cp: GemmClassifyParams = { transA: r.transA, transB: r.transB };
    const classify = kernelFor(dev, 'gemm-vclassify', cp, () => generateGemmClassify(cp));
    launchPerMember(classify, count, [
      ...batchArgs(r.a), ...batchArgs(r.b), ...batchArgs(r.c),
      arg.i32(count), arg.i32(r.alpha === 0 ? 1 : 0), arg.i32(r.beta === 1 ? 1 : 0), arg.i64(count),
      arg.ptr(tables.pointers), arg.ptr(tables.ints), arg.ptr(tables.counters), arg.ptr(onDevice(r.info)),
    ]);
    launchGemmRegions(dev, { dtype, transA: r.transA, transB: r.transB, alpha: r.alpha, beta: r.beta }, launches, tables, count, tuning);
  } finally {
    releaseDeviceTables(dev, tables);
  }
}
