/**
 * potrs and posv on variable batches whose sizes and addresses are on the device (common/vdevice.ts),
 * composed as on host sizes (launch-vbatched.ts) of the families' device forms, through their faces:
 * a check of both batches (generate-vdevice.ts) writes every member's code; potrs then classifies the
 * valid members once (trsm's classification, skipping a non-zero code) and runs trsm's two solves over
 * the same tables; posv's check also files the valid members of order up to 32 into the fused
 * classes (generate-vsmall.ts, the host path's kernels and rows: its results bit for bit) and the
 * others into potrf's classes, the class kernels factor them (info through a scratch of count + 1
 * entries, as potrf's device form), and the solves' classification skips the fused members and
 * every member whose info is not 0, so a failed member's B is never touched (the host path copies
 * it aside and back: the same B), and its A is what potrf leaves.
 * The factor goes through memory between potrf and the solves, as on host sizes. Nothing is read back.
 */
import type { DeviceVariableSolveRequest } from '../../../core/device-batch.js';
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { Op } from '../../../core/ops.js';
import type { DeviceStorage } from '../../../core/storage.js';
import { tuningFor, type GemmTuning, type GetrfTuning, type PotrfTuning, type TrsmTuning } from '../../model/tuning/index.js';
import { arg, type GpuDevice, type KernelArg } from '../../runtime/types.js';
import type { WorkspaceFrame } from '../../runtime/workspace.js';
import { SMALL_MAX_N } from '../common/warp-slots.js';
import { kernelFor } from '../common/kernel-cache.js';
import { batchArgs, deviceRegions, firstLaunchedRegion, inDeviceFrame, launchPerMember, onDevice, takeDeviceTables, type DeviceRegion, type DeviceTables } from '../common/vdevice.js';
import { POTRF_VBATCH_INTS, launchPotrfRegions, potrfDeviceDesigns } from '../potrf/index.js';
import { trsmDeviceClassify, trsmDeviceSolve, type TrsmDeviceMembers } from '../trsm/index.js';
import { generateSolveCheck } from './generate-vdevice.js';
import { gesvLayout, posvLayout } from './generate-small.js';
import { FUSED_VBATCH_INTS, FUSED_VBATCH_POINTERS, posvSmallVbatchedSource } from './generate-vsmall.js';
import { vbatchedFusedLaunch } from './launch-vbatched.js';
import type { FusedVbatchedParams } from './params.js';
import { fusedParams } from './plan-vbatched.js';

export interface SolveDeviceOptions {
  readonly potrfTuning?: PotrfTuning;
  /** gesv's factorisation (launch-vdevice-lu.ts). */
  readonly getrfTuning?: GetrfTuning;
  readonly trsmTuning?: TrsmTuning;
  readonly gemmTuning?: GemmTuning;
}

/** The check kernel has no parameters: one memo key object. */
const CHECK_KEY = Object.freeze({});

/** Both triangular solves with a Cholesky factor over classified members: L L^T X = B (lower) or U^T U X = B (upper). */
function choleskySolves(dev: GpuDevice, m: TrsmDeviceMembers, uplo: Uplo, gemm: { tables?: DeviceTables }, opts: SolveDeviceOptions): void {
  const solve = (transA: Op): void => trsmDeviceSolve(dev, m, { side: 'left', uplo, transA, diag: 'nonunit' }, 1, gemm, { tuning: opts.trsmTuning, gemmTuning: opts.gemmTuning });
  if (uplo === 'lower') { solve('N'); solve('T'); } else { solve('T'); solve('N'); }
}

/** The check's arguments where no member is fused (potrs). */
const NO_FUSED: readonly KernelArg[] = [arg.ptr(0n), arg.ptr(0n), arg.ptr(0n), arg.i32(-1)];

/**
 * The fused classes of a device-sized posv or gesv: the regions of classes up to 32 among
 * `launches` (the others left to the factorisation), their tables from `frame` (zeroed: the class
 * kernels run over whole regions, a zero row is a member of order 0 at batch index 0, the sink),
 * the check's arguments that file the members of order up to `taken` there, and `taken` (32, or -1
 * where no class is fused), the largest order the solves' classification leaves out.
 */
export interface FusedDeviceClasses {
  readonly launches: readonly DeviceRegion[];
  readonly tables: DeviceTables | undefined;
  readonly checkArgs: readonly KernelArg[];
  readonly taken: number;
}

export function fusedDeviceClasses(dev: GpuDevice, frame: WorkspaceFrame, launches: readonly DeviceRegion[], count: number): FusedDeviceClasses {
  const fused = launches.filter((l) => l.bound <= SMALL_MAX_N);
  if (fused.length === 0) return { launches: fused, tables: undefined, checkArgs: NO_FUSED, taken: -1 };
  const regions = Math.max(...fused.map((l) => l.region)) + 1;
  const tables = takeDeviceTables(dev, frame, regions, count, FUSED_VBATCH_POINTERS, FUSED_VBATCH_INTS, 'zeroed');
  return { launches: fused, tables, checkArgs: [arg.ptr(tables.pointers), arg.ptr(tables.ints), arg.ptr(tables.counters), arg.i32(SMALL_MAX_N)], taken: SMALL_MAX_N };
}

/**
 * Each fused class's kernel (`source` of its parameters, `tail` its arguments after the tables)
 * over its whole region of `count` rows; `nrhsMax` (b.maxCols) decides whether it has further passes.
 */
export function launchFusedRegions(
  dev: GpuDevice, f: FusedDeviceClasses, dtype: DType, count: number, nrhsMax: number,
  kernelOf: (p: FusedVbatchedParams) => { readonly kernel: ReturnType<typeof kernelFor>; readonly layout: ReturnType<typeof posvLayout | typeof gesvLayout> },
  tail: readonly KernelArg[],
): void {
  for (const { region, bound } of f.launches) {
    const p = fusedParams(dtype, bound, nrhsMax);
    const { kernel, layout } = kernelOf(p);
    const at = f.tables!.at(region);
    kernel.launch(vbatchedFusedLaunch(layout, p, count), [arg.ptr(at.pointers), arg.ptr(at.ints), ...tail]);
  }
}

/** Solves A X = B with the Cholesky factors in A; info 0, or a member's argument code. */
export function potrsDeviceVariableCuda(dev: GpuDevice, r: DeviceVariableSolveRequest, opts: SolveDeviceOptions = {}): void {
  const count = r.b.count;
  if (count === 0) return;
  const info = onDevice(r.info as DeviceStorage);
  const check = kernelFor(dev, 'solve-vcheck', CHECK_KEY, generateSolveCheck);
  launchPerMember(check, count, [...batchArgs(r.a), ...batchArgs(r.b), arg.i32(count), arg.i64(count), arg.ptr(0n), arg.ptr(0n), arg.ptr(0n), ...NO_FUSED, arg.ptr(info)]);
  inDeviceFrame(dev, (frame) => {
    const members = trsmDeviceClassify(dev, frame, 'left', r.a, r.b, 0n, info.ptr);
    choleskySolves(dev, members, r.uplo, {}, opts);
  });
}

/** Cholesky factorisation and solve; B is left unchanged where info != 0 (LAPACK's posv). */
export function posvDeviceVariableCuda(dev: GpuDevice, r: DeviceVariableSolveRequest, opts: SolveDeviceOptions = {}): void {
  const count = r.b.count;
  if (count === 0) return;
  const { a, b } = r;
  const { launches: all, regions } = deviceRegions(Math.min(a.maxRows, a.maxCols, b.maxRows));
  const launches = all.filter((l) => l.bound > SMALL_MAX_N);
  const designs = potrfDeviceDesigns(dev, a.dtype, r.uplo, launches, opts.potrfTuning ?? tuningFor(dev.info.arch, 'potrf'));
  inDeviceFrame(dev, (frame) => {
    const tables = takeDeviceTables(dev, frame, regions, count, 1, POTRF_VBATCH_INTS, 'zeroed', firstLaunchedRegion(launches, regions));
    const work = frame.take('int32', count + 1, 'the device form\'s info scratch');
    const fused = fusedDeviceClasses(dev, frame, all, count);
    // Codes, the fused classes' and potrf's rows; the class kernels write info at each row's batch index i + 1.
    const codes = work.ptr + 4n;
    const check = kernelFor(dev, 'solve-vcheck', CHECK_KEY, generateSolveCheck);
    launchPerMember(check, count, [
      ...batchArgs(a), ...batchArgs(b), arg.i32(count), arg.i64(count), arg.ptr(tables.pointers), arg.ptr(tables.ints), arg.ptr(tables.counters),
      ...fused.checkArgs, arg.ptr(codes),
    ]);
    launchFusedRegions(dev, fused, a.dtype, count, b.maxCols, (params) => {
      const p = { ...params, uplo: r.uplo };
      return { kernel: kernelFor(dev, 'posv-vsmall', p, () => posvSmallVbatchedSource(p)), layout: posvLayout(p) };
    }, [arg.ptr(work), arg.i32(count)]);
    launchPotrfRegions(dev, designs, launches, tables, work, count);
    const members = trsmDeviceClassify(dev, frame, 'left', a, b, 0n, codes, fused.taken);
    choleskySolves(dev, members, r.uplo, {}, opts);
    dev.copy(work, 1, onDevice(r.info as DeviceStorage), 0, count);
  });
}
