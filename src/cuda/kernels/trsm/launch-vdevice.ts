/**
 * trsm on variable batches whose sizes and addresses are on the device (common/vdevice.ts): zeroed
 * tables from the device workspace, the classification kernel (generate-vdevice.ts), then per region, largest class first,
 * the host-sized path's recursion over the class bound (plan-vbatched.ts's steps: recursionSteps with
 * the table's leafMax and split alignment): a leaf is one launch of the class leaf of
 * generate-vbatched.ts (unchanged) over the whole region, an update one launch that cuts every row's
 * blocks into GEMM tables (counters zeroed) and then gemm's class kernels over their regions (gemm's
 * launchGemmRegions): the host path's leaves and GEMM members, so its results bit for bit where the
 * host path runs the same classes (triangles up to 512, GEMM sizes up to 512). Nothing is read back.
 *
 * What the host does not know it bounds by the maxima: the leaves' walk over vectors runs to B's
 * largest other dimension the maxima allow (their launch shape, leafShape's for it, does not change
 * a vector's arithmetic); members beyond 512 take the large region, its bound the largest order
 * rounded up to LARGE_STEP, with the recursion over that bound (the host path sends them to the
 * per-size driver, whose recursion splits at their own points: the two agree within the solve's
 * rounding there); GEMM members beyond 512 (B's other dimension above 512) take gemm's large class
 * (the host path's per-size GEMM: within rounding too).
 *
 * `trsmDeviceClassify` and `trsmDeviceSolve` are also the solves of potrs and posv on device sizes
 * (solve/launch-vdevice.ts): one classification, two solves over the same tables.
 */
import type { DeviceVariableBatch, DeviceVariableTrsmRequest } from '../../../core/device-batch.js';
import type { DType } from '../../../core/dtype.js';
import type { Side } from '../../../core/enums.js';
import { tuningFor, type GemmTuning, type TrsmTuning } from '../../model/tuning/index.js';
import { arg, type GpuDevice } from '../../runtime/types.js';
import type { WorkspaceFrame } from '../../runtime/workspace.js';
import { kernelFor } from '../common/kernel-cache.js';
import { sharedLimit } from '../common/operands.js';
import { elementBytes } from '../common/precision.js';
import {
  batchArgs, deviceRegions, firstLaunchedRegion, inDeviceFrame, launchPerMember, onDevice, takeDeviceTables, type DeviceRegion, type DeviceTables,
} from '../common/vdevice.js';
import { driverSection } from '../common/driver-section.js';
import { GEMM_VBATCH_INTS, GEMM_VBATCH_POINTERS, launchGemmRegions } from '../gemm/index.js';
import { TRSM_VBATCH_INTS, TRSM_VBATCH_POINTERS, trsmVbatchedLeafSource } from './generate-vbatched.js';
import {
  ZERO_DEVICE_THREADS, generateTrsmClassify, generateTrsmUpdateRows, generateTrsmZeroDevice,
  type TrsmClassifyParams, type TrsmUpdateRowsParams, type TrsmZeroDeviceParams,
} from './generate-vdevice.js';
import { vbatchedTrsmLaunch } from './launch-vbatched.js';
import type { TrsmLeafShape, TrsmVariant, TrsmVbatchedLeafParams } from './params.js';
import { leafShape, recursionSteps, solvesForward } from './plan.js';

export interface TrsmDeviceOptions {
  readonly tuning?: TrsmTuning;
  /** The updates' GEMM classes' table (default: the device architecture's). */
  readonly gemmTuning?: GemmTuning;
}

/** Members classified on the device: their tables, the regions to launch, and the host's bounds. */
export interface TrsmDeviceMembers {
  readonly dtype: DType;
  readonly count: number;
  readonly tables: DeviceTables;
  /** The workspace frame the tables are views of (the updates' GEMM tables come from it too). */
  readonly frame: WorkspaceFrame;
  readonly launches: readonly DeviceRegion[];
  /** B's largest other dimension the maxima allow (the leaves' walk over vectors). */
  readonly nvecMax: number;
}

/** The largest triangle and the widest B a valid member can have (side left: B is t x nvec; right: nvec x t). */
function trsmDeviceBounds(side: Side, a: DeviceVariableBatch, b: DeviceVariableBatch): { readonly t: number; readonly nvec: number } {
  const left = side === 'left';
  return { t: Math.min(left ? b.maxRows : b.maxCols, a.maxRows, a.maxCols), nvec: left ? b.maxCols : b.maxRows };
}

/**
 * Zeroed tables from `frame` (the caller's workspace frame, the innermost open one until the
 * solves are enqueued) and the classification of `a` (triangles) and `b` on `side`: codes to
 * `info` (an address; 0: not written), members with skip[i] != 0 left out (`skip` an address; 0: none),
 * and those whose triangle's order is at most `taken` (posv's and gesv's fused classes solve them;
 * -1: none); the rows of the classes whose bound is at most `taken`, which no member reaches, are
 * not zeroed.
 */
export function trsmDeviceClassify(
  dev: GpuDevice, frame: WorkspaceFrame, side: Side, a: DeviceVariableBatch, b: DeviceVariableBatch, info: bigint, skip: bigint, taken = -1,
): TrsmDeviceMembers {
  const count = b.count;
  const bounds = trsmDeviceBounds(side, a, b);
  const { launches: all, regions } = deviceRegions(bounds.t);
  const launches = all.filter((l) => l.bound > taken);
  const tables = takeDeviceTables(dev, frame, regions, count, TRSM_VBATCH_POINTERS, TRSM_VBATCH_INTS, 'zeroed', firstLaunchedRegion(launches, regions));
  const cp: TrsmClassifyParams = { side };
  const classify = kernelFor(dev, 'trsm-vclassify', cp, () => generateTrsmClassify(cp));
  launchPerMember(classify, count, [
    ...batchArgs(a), ...batchArgs(b), arg.i32(count), arg.i64(count),
    arg.ptr(tables.pointers), arg.ptr(tables.ints), arg.ptr(tables.counters), arg.ptr(info), arg.ptr(skip), arg.i32(taken),
  ]);
  return { dtype: b.dtype, count, tables, frame, launches, nvecMax: bounds.nvec };
}

/**
 * One solve of variant `v` (side as classified) over classified members: the recursion of each
 * region's bound, leaves by the class leaf, updates by the variable-size GEMM on device-cut rows.
 * `gemm` holds the updates' tables once taken (from the members' frame; reused: the counters zeroed before each
 * update, gemm's device-count class kernels read no row past them).
 */
export function trsmDeviceSolve(
  dev: GpuDevice, m: TrsmDeviceMembers, v: TrsmVariant, alpha: number, gemm: { tables?: DeviceTables }, opts: TrsmDeviceOptions = {},
): void {
  const { dtype, count, nvecMax } = m;
  const tuning = opts.tuning ?? tuningFor(dev.info.arch, 'trsm');
  const leafMax = tuning.leafMax[dtype];
  const forward = solvesForward(v);
  const limit = sharedLimit(dev);
  const leaf: TrsmVbatchedLeafParams = { dtype, side: v.side, uplo: v.uplo, transA: v.transA, diag: v.diag };
  const kernel = kernelFor(dev, 'trsm-vleaf', leaf, () => trsmVbatchedLeafSource(leaf));
  const up: TrsmUpdateRowsParams = { side: v.side, transA: v.transA };
  const bytes = elementBytes(dtype);
  for (const { region, bound } of m.launches) {
    const at = m.tables.at(region);
    const shapes = new Map<number, TrsmLeafShape>();
    const steps = recursionSteps(bound, leafMax, tuning.splitAlign, forward, 'trsm');
    // A region of one leaf is one launch; a recursion of several steps is a blocked driver.
    const run = (): void => {
      for (const step of steps) {
        if (step.kind === 'leaf') {
          const size = step.span.size;
          let shape = shapes.get(size);
          if (shape === undefined) shapes.set(size, (shape = leafShape(dtype, size, nvecMax, count, tuning.vectorsMax, tuning, limit)));
          kernel.launch(vbatchedTrsmLaunch(shape, count, nvecMax), [
            arg.ptr(at.pointers), arg.ptr(at.ints), arg.i32(count), arg.i32(step.span.off), arg.i32(size),
            arg.i32(nvecMax), arg.i32(shape.ldx), arg.real(dtype, step.scaled ? alpha : 1),
          ]);
          continue;
        }
        // The update: blocks.ts updateOf's GEMM, C := beta C - op(A) B (left) or beta C - B op(A) (right).
        const beta = step.scaled ? alpha : 1;
        const size = Math.max(step.target.size, step.source.size, nvecMax);
        const gemmRegions = deviceRegions(size);
        let tables = gemm.tables;
        if (tables === undefined) {
          // Room for every update of the call: spans are at most the largest bound.
          const largest = Math.max(m.launches[0]!.bound, nvecMax);
          tables = gemm.tables = takeDeviceTables(dev, m.frame, deviceRegions(largest).regions, count, GEMM_VBATCH_POINTERS, GEMM_VBATCH_INTS, 'counted');
        } else {
          tables.zeroCounters();
        }
        const rows = kernelFor(dev, 'trsm-vupdate-rows', up, () => generateTrsmUpdateRows(up));
        launchPerMember(rows, count, [
          arg.ptr(at.pointers), arg.ptr(at.ints), arg.i32(count),
          arg.i32(step.target.off), arg.i32(step.target.size), arg.i32(step.source.off), arg.i32(step.source.size),
          arg.i32(beta === 1 ? 1 : 0), arg.i32(bytes), arg.i64(count),
          arg.ptr(tables.pointers), arg.ptr(tables.ints), arg.ptr(tables.counters),
        ]);
        const scalars = v.side === 'left'
          ? { dtype, transA: v.transA, transB: 'N' as const, alpha: -1, beta }
          : { dtype, transA: 'N' as const, transB: v.transA, alpha: -1, beta };
        launchGemmRegions(dev, scalars, gemmRegions.launches, tables, count, opts.gemmTuning ?? tuningFor(dev.info.arch, 'gemm'));
      }
    };
    if (steps.length > 1) driverSection(dev, run); else run();
  }
}

export function trsmDeviceVariableCuda(dev: GpuDevice, r: DeviceVariableTrsmRequest, opts: TrsmDeviceOptions = {}): void {
  const count = r.b.count;
  if (count === 0) return;
  const info = onDevice(r.info);
  inDeviceFrame(dev, (frame) => {
    const members = trsmDeviceClassify(dev, frame, r.side, r.a, r.b, info.ptr, 0n);
    if (r.alpha === 0) {
      // B := 0 without reading A or B (the per-size path's zero kernel on host sizes).
      const zp: TrsmZeroDeviceParams = { dtype: r.b.dtype };
      const zero = kernelFor(dev, 'trsm-vzero', zp, () => generateTrsmZeroDevice(zp));
      const b = r.b;
      zero.launch({ grid: [Math.min(count, 65535), 1, 1], block: [ZERO_DEVICE_THREADS, 1, 1] }, [
        arg.ptr(onDevice(b.rows)), arg.ptr(b.cols === undefined ? 0n : onDevice(b.cols).ptr), arg.ptr(onDevice(b.ld)), arg.ptr(onDevice(b.pointers)),
        arg.ptr(info), arg.i32(count),
      ]);
      return;
    }
    trsmDeviceSolve(dev, members, r, r.alpha, {}, opts);
  });
}
