/**
 * syrk on variable batches whose sizes and addresses are on the device (common/vdevice.ts): zeroed
 * tables from the device workspace, the classification kernel (generate-vdevice.ts), then per
 * region, largest class first, the host-sized path's recursion over the class bound (plan.ts's
 * syrkSteps with the table's leafMax and split alignment, as plan-vbatched.ts): each leaf step one
 * launch of the class leaf of generate-vbatched.ts (unchanged) over the whole region; the
 * off-diagonal steps as variable-size GEMMs on device-cut rows: the j-th off-diagonal step of every
 * class in one GEMM (a member is in one class, so a region of `count` rows holds any step's rows:
 * one launch of the rows kernel per class with a j-th step, then gemm's class kernels over their
 * regions, gemm's launchGemmRegions). The host path gathers every step's blocks into one GEMM; a
 * member's block sees the same class kernel either way (its GEMM size class), so the two agree bit
 * for bit where the host path runs the same classes (C's order up to 512, GEMM sizes up to 512).
 * Nothing is read back.
 *
 * Members of order beyond 512 take the large region, its bound the largest order rounded up to
 * LARGE_STEP, with the recursion over that bound (the host path sends them to the per-size driver:
 * the two agree within rounding there); GEMM rows beyond 512 (k above 512) take gemm's large class
 * (the host path's per-size GEMM: within rounding too).
 */
import type { DeviceVariableSyrkRequest } from '../../../core/device-batch.js';
import { tuningFor, type GemmTuning, type SyrkTuning } from '../../model/tuning/index.js';
import { arg, type GpuDevice } from '../../runtime/types.js';
import { driverSection } from '../common/driver-section.js';
import { kernelFor } from '../common/kernel-cache.js';
import { sharedLimit } from '../common/operands.js';
import { elementBytes } from '../common/precision.js';
import { batchArgs, deviceRegions, inDeviceFrame, launchPerMember, onDevice, takeDeviceTables, type DeviceRegion, type DeviceTables } from '../common/vdevice.js';
import { GEMM_VBATCH_INTS, GEMM_VBATCH_POINTERS, launchGemmRegions } from '../gemm/index.js';
import { SYRK_VBATCH_INTS, SYRK_VBATCH_POINTERS, syrkVbatchedLeafSource } from './generate-vbatched.js';
import { generateSyrkClassify, generateSyrkOffdiagRows, type SyrkClassifyParams, type SyrkOffdiagRowsParams } from './generate-vdevice.js';
import { vbatchedSyrkLaunch } from './launch-vbatched.js';
import type { SyrkStep, SyrkVbatchedLeafParams } from './params.js';
import { leafTile, syrkLeafShape, syrkSteps } from './plan.js';
import { offdiagTransposes, type VbatchedSyrkForce } from './plan-vbatched.js';

export interface SyrkDeviceOptions {
  readonly tuning?: SyrkTuning;
  /** The off-diagonal GEMMs' classes' table (default: the device architecture's). */
  readonly gemmTuning?: GemmTuning;
  /** A leaf size or chunk instead of the table's (tests). */
  readonly force?: VbatchedSyrkForce;
}

type OffdiagStep = Extract<SyrkStep, { kind: 'offdiag' }>;

/** One region's recursion: its leaf steps and its off-diagonal steps in recursion order. */
export interface SyrkDeviceClass extends DeviceRegion {
  readonly leaves: readonly Extract<SyrkStep, { kind: 'leaf' }>[];
  readonly offdiag: readonly OffdiagStep[];
}

/**
 * The largest C order n and op(A) columns k a valid member can have: n bounded by c's maxima and
 * op(A)'s rows' bound, k by op(A)'s columns' bound (0 where alpha = 0, which runs k = 0).
 */
export function syrkDeviceBounds(r: Pick<DeviceVariableSyrkRequest, 'trans' | 'alpha' | 'a' | 'c'>): { readonly n: number; readonly k: number } {
  const [anMax, akMax] = r.trans === 'N' ? [r.a.maxRows, r.a.maxCols] : [r.a.maxCols, r.a.maxRows];
  return { n: Math.min(r.c.maxRows, r.c.maxCols, anMax), k: r.alpha === 0 ? 0 : akMax };
}

/** Pure: the recursion of each region a call with members up to order `maxN` launches (largest class first). */
export function syrkDeviceClasses(maxN: number, leafMax: number, splitAlign: number, uplo: DeviceVariableSyrkRequest['uplo']): { readonly classes: readonly SyrkDeviceClass[]; readonly regions: number } {
  const { launches, regions } = deviceRegions(maxN);
  const classes = launches.map((l): SyrkDeviceClass => {
    const steps = syrkSteps(l.bound, leafMax, splitAlign, uplo);
    return {
      ...l,
      leaves: steps.filter((s): s is Extract<SyrkStep, { kind: 'leaf' }> => s.kind === 'leaf'),
      offdiag: steps.filter((s): s is OffdiagStep => s.kind === 'offdiag'),
    };
  });
  return { classes, regions };
}

export function syrkDeviceVariableCuda(dev: GpuDevice, r: DeviceVariableSyrkRequest, opts: SyrkDeviceOptions = {}): void {
  const count = r.c.count;
  if (count === 0) return;
  const dtype = r.c.dtype;
  const tuning = opts.tuning ?? tuningFor(dev.info.arch, 'syrk');
  const gemmTuning = opts.gemmTuning ?? tuningFor(dev.info.arch, 'gemm');
  const leafMax = opts.force?.leafMax ?? tuning.leafMax[dtype];
  const chunk = opts.force?.chunk ?? tuning.chunk[dtype];
  const bounds = syrkDeviceBounds(r);
  const { classes, regions } = syrkDeviceClasses(bounds.n, leafMax, tuning.splitAlign, r.uplo);
  const limit = sharedLimit(dev);
  // The leaves' designs before anything is launched (a leaf that fits no block's shared memory is an error).
  const leaves = classes.map((c) => c.leaves.map((step) => {
    const params: SyrkVbatchedLeafParams = { dtype, uplo: r.uplo, trans: r.trans, ...leafTile(step.size), chunk };
    return { step, params, shape: syrkLeafShape(params, count, tuning, limit) };
  }));
  inDeviceFrame(dev, (frame) => {
    const tables = takeDeviceTables(dev, frame, regions, count, SYRK_VBATCH_POINTERS, SYRK_VBATCH_INTS, 'zeroed');
    const cp: SyrkClassifyParams = { trans: r.trans };
    const classify = kernelFor(dev, 'syrk-vclassify', cp, () => generateSyrkClassify(cp));
    launchPerMember(classify, count, [
      ...batchArgs(r.a), ...batchArgs(r.c), arg.i32(count), arg.i32(r.alpha === 0 ? 1 : 0), arg.i32(r.beta === 1 ? 1 : 0), arg.i64(count),
      arg.ptr(tables.pointers), arg.ptr(tables.ints), arg.ptr(tables.counters), arg.ptr(onDevice(r.info)),
    ]);
    // The diagonal blocks: a launch of the class leaf per leaf step, over the whole region (rows past the class's members are zero: n = 0, no block).
    classes.forEach((c, i) => {
      const at = tables.at(c.region);
      for (const { step, params, shape } of leaves[i]!) {
        const kernel = kernelFor(dev, 'syrk-vleaf', params, () => syrkVbatchedLeafSource(params));
        kernel.launch(vbatchedSyrkLaunch(shape, count, step.blocks), [
          arg.ptr(at.pointers), arg.ptr(at.ints), arg.i32(count), arg.i32(step.off), arg.i32(step.size),
          arg.real(dtype, r.alpha), arg.real(dtype, r.beta),
        ]);
      }
    });
    const steps = Math.max(0, ...classes.map((c) => c.offdiag.length));
    if (steps === 0) return;
    // Room for every GEMM row of the call: a block's sides are at most C's largest order, its k at most k's bound.
    const gemm = takeDeviceTables(dev, frame, deviceRegions(Math.max(bounds.n, bounds.k)).regions, count, GEMM_VBATCH_POINTERS, GEMM_VBATCH_INTS, 'counted');
    const run = (): void => {
      for (let j = 0; j < steps; j++) offdiagStep(dev, r, classes, j, tables, gemm, count, bounds.k, gemmTuning, j > 0);
    };
    // One GEMM is a class launch (the host path's); several are a blocked driver's.
    if (steps > 1) driverSection(dev, run); else run();
  });
}

/** The j-th off-diagonal step of every class that has one: its GEMM rows cut on the device, then gemm's class kernels over them. */
function offdiagStep(
  dev: GpuDevice, r: DeviceVariableSyrkRequest, classes: readonly SyrkDeviceClass[], j: number, tables: DeviceTables, gemm: DeviceTables,
  count: number, kMax: number, gemmTuning: GemmTuning, reused: boolean,
): void {
  if (reused) gemm.zeroCounters();
  const dtype = r.c.dtype;
  const up: SyrkOffdiagRowsParams = { trans: r.trans };
  const rows = kernelFor(dev, 'syrk-voffdiag-rows', up, () => generateSyrkOffdiagRows(up));
  let size = kMax;
  for (const c of classes) {
    const step = c.offdiag[j];
    if (step === undefined) continue;
    size = Math.max(size, step.rows.size, step.cols.size);
    const at = tables.at(c.region);
    launchPerMember(rows, count, [
      arg.ptr(at.pointers), arg.ptr(at.ints), arg.i32(count),
      arg.i32(step.rows.off), arg.i32(step.rows.size), arg.i32(step.cols.off), arg.i32(step.cols.size),
      arg.i32(r.beta === 1 ? 1 : 0), arg.i32(elementBytes(dtype)), arg.i64(count),
      arg.ptr(gemm.pointers), arg.ptr(gemm.ints), arg.ptr(gemm.counters),
    ]);
  }
  launchGemmRegions(dev, { dtype, ...offdiagTransposes(r.trans), alpha: r.alpha, beta: r.beta }, deviceRegions(size).launches, gemm, count, gemmTuning);
}
