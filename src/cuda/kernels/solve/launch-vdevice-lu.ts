/**
 * getrs and gesv on variable batches whose sizes and addresses are on the device (common/vdevice.ts),
 * composed as on host sizes (launch-vbatched-lu.ts) of the families' device forms, through their
 * faces, as potrs and posv are (launch-vdevice.ts):
 * - a check of both batches (generate-vdevice-lu.ts) writes every member's code and its row of the
 *   row interchanges' table (`count` rows from the device workspace, every one written);
 * - getrs: trsm's classification of the valid members once (skipping a non-zero code), then op N:
 *   B := P B (the host path's permutation kernel, generate-permute-vbatched.ts, over that table;
 *   member i's pivots at ipiv[i * pivotStride]), unit lower L and non-unit upper U by trsm's device
 *   form; op T: U^T, L^T, then B := P^T B. info is the check's code (0 where valid);
 * - gesv: the check also files the valid members of order up to 32 into the fused classes
 *   (generate-vsmall.ts, the host path's kernels and rows: its results bit for bit; their rows of the
 *   interchanges empty) and the others into getrf's classes, the class kernels factor them
 *   (launchGetrfRegions: info through a scratch of count + 1 entries, pivots at ipiv[i *
 *   pivotStride], as getrf's device form), and the solves' classification and the permutation skip
 *   the fused members and every member whose info is not 0, so a singular member's B is never touched
 *   (the host path copies every B aside and back where info > 0: the same B), its A and pivots
 *   what getrf leaves.
 * The factors go through memory between getrf and the solves, as on host sizes. Nothing is read back.
 * The pivots on the device are not checked (the host cannot see them); a pivot outside [j, n), none
 * of getrf's, is not applied, as on host sizes.
 */
import type { DeviceVariableBatch, DeviceVariableLuSolveRequest } from '../../../core/device-batch.js';
import type { Diag, Uplo } from '../../../core/enums.js';
import type { Op } from '../../../core/ops.js';
import type { DeviceStorage } from '../../../core/storage.js';
import { tuningFor } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice, type KernelArg, type LaunchConfig } from '../../runtime/types.js';
import type { WorkspaceFrame } from '../../runtime/workspace.js';
import { kernelFor } from '../common/kernel-cache.js';
import { sharedLimit } from '../common/operands.js';
import { batchArgs, deviceRegions, firstLaunchedRegion, inDeviceFrame, launchPerMember, onDevice, takeDeviceTables, type DeviceTables } from '../common/vdevice.js';
import { GETRF_VBATCH_INTS, getrfDeviceDesigns, launchGetrfRegions } from '../getrf/index.js';
import { trsmDeviceClassify, trsmDeviceSolve, type TrsmDeviceMembers } from '../trsm/index.js';
import { COPY_VBATCH_INTS } from './generate-copy-vbatched.js';
import { permuteVbatchedCap } from './generate-permute-vbatched.js';
import { generateLuSolveCheck, type LuSolveCheckParams } from './generate-vdevice-lu.js';
import { permuteConfig, permuteKernel } from './launch-vbatched-lu.js';
import { fusedDeviceClasses, launchFusedRegions, type FusedDeviceClasses, type SolveDeviceOptions } from './launch-vdevice.js';
import { gesvLayout } from './generate-small.js';
import { gesvSmallVbatchedSource } from './generate-vsmall.js';
import { SMALL_MAX_N } from '../common/warp-slots.js';

const GETRS_CHECK: LuSolveCheckParams = Object.freeze({ op: 'getrs' });
const GESV_CHECK: LuSolveCheckParams = Object.freeze({ op: 'gesv' });

/** The largest order a valid member can have: A n x n within a's maxima, B's rows n within b's. */
export const luOrderMax = (a: DeviceVariableBatch, b: DeviceVariableBatch): number => Math.min(a.maxRows, a.maxCols, b.maxRows);

/** The row interchanges of one call: the launch over the table's `count` rows (none where no member can have rows and columns). */
interface Interchanges {
  readonly config: LaunchConfig | undefined;
  readonly nMax: number;
}

/** Planned before anything is enqueued: an order the permutation's shared memory cannot hold is UNSUPPORTED naming b.maxRows. */
function planInterchanges(dev: GpuDevice, r: DeviceVariableLuSolveRequest): Interchanges {
  const nMax = luOrderMax(r.a, r.b);
  if (nMax === 0 || r.b.maxCols === 0) return { config: undefined, nMax };
  return { config: permuteConfig(r.b.count, nMax, r.b.maxCols, r.b.dtype, sharedLimit(dev), 'b.maxRows', `members up to order ${nMax} (the maxima) are`), nMax };
}

/** The interchanges' table (B's address; n, nrhs, ldB, batch index a member), which the check fills, every row. */
interface SwapTable { readonly pointers: DeviceArray; readonly ints: DeviceArray }

function takeSwapTable(frame: WorkspaceFrame, count: number): SwapTable {
  return {
    pointers: frame.take('int64', count, 'the device form\'s row interchanges (B)'),
    ints: frame.take('int32', count * COPY_VBATCH_INTS, 'the device form\'s row interchanges (sizes)'),
  };
}

/** B := P B, or P^T B (`inverse`), over the table; members with skip[i] != 0 left out (`skip` an address; 0: none). */
function interchange(dev: GpuDevice, r: DeviceVariableLuSolveRequest, plan: Interchanges, table: SwapTable, skip: bigint, inverse: boolean): void {
  if (plan.config === undefined) return;
  permuteKernel(dev, r.b.dtype, inverse).launch(plan.config, [
    arg.ptr(table.pointers), arg.i32(1), arg.ptr(table.ints), arg.ptr(onDevice(r.ipiv as DeviceStorage)), arg.i32(r.pivotStride),
    arg.ptr(skip), arg.i32(r.b.count), arg.i32(plan.nMax), arg.i32(permuteVbatchedCap(plan.nMax)),
  ]);
}

/** Both triangular solves with LU factors over classified members around the interchanges: op N after P B, op T before P^T B. */
function luSolves(dev: GpuDevice, m: TrsmDeviceMembers, trans: Op, opts: SolveDeviceOptions, swap: (inverse: boolean) => void): void {
  const gemm: { tables?: DeviceTables } = {};
  const solve = (uplo: Uplo, diag: Diag): void =>
    trsmDeviceSolve(dev, m, { side: 'left', uplo, transA: trans, diag }, 1, gemm, { tuning: opts.trsmTuning, gemmTuning: opts.gemmTuning });
  if (trans === 'N') {
    swap(false);
    solve('lower', 'unit');
    solve('upper', 'nonunit');
  } else {
    solve('upper', 'nonunit');
    solve('lower', 'unit');
    swap(true);
  }
}

/** The check's arguments: both batches, the count, gesv's getrf tables and fused classes, the interchanges' table, the codes. */
function checkArgs(r: DeviceVariableLuSolveRequest, getrf: DeviceTables | undefined, fused: FusedDeviceClasses | undefined, table: SwapTable, codes: bigint): KernelArg[] {
  const count = r.b.count;
  const tables = getrf === undefined ? [] : [arg.i64(count), arg.ptr(getrf.pointers), arg.ptr(getrf.ints), arg.ptr(getrf.counters), ...fused!.checkArgs];
  return [...batchArgs(r.a), ...batchArgs(r.b), arg.i32(count), ...tables, arg.ptr(table.pointers), arg.ptr(table.ints), arg.ptr(codes)];
}

/** Solves op(A) X = B with the LU factors and pivots of A (getrf's device form); info 0, or a member's argument code. */
export function getrsDeviceVariableCuda(dev: GpuDevice, r: DeviceVariableLuSolveRequest, opts: SolveDeviceOptions = {}): void {
  const count = r.b.count;
  if (count === 0) return;
  const plan = planInterchanges(dev, r);
  const info = onDevice(r.info as DeviceStorage);
  inDeviceFrame(dev, (frame) => {
    const table = takeSwapTable(frame, count);
    const check = kernelFor(dev, 'getrs-vcheck', GETRS_CHECK, () => generateLuSolveCheck(GETRS_CHECK));
    launchPerMember(check, count, checkArgs(r, undefined, undefined, table, info.ptr));
    const members = trsmDeviceClassify(dev, frame, 'left', r.a, r.b, 0n, info.ptr);
    luSolves(dev, members, r.trans, opts, (inverse) => interchange(dev, r, plan, table, 0n, inverse));
  });
}

/** LU factorisation with partial pivoting and solve; B is left unchanged where info != 0 (LAPACK's gesv). */
export function gesvDeviceVariableCuda(dev: GpuDevice, r: DeviceVariableLuSolveRequest, opts: SolveDeviceOptions = {}): void {
  const count = r.b.count;
  if (count === 0) return;
  const { a } = r;
  const nMax = luOrderMax(a, r.b);
  const { launches: all, regions } = deviceRegions(nMax);
  const launches = all.filter((l) => l.bound > SMALL_MAX_N);
  const designs = getrfDeviceDesigns(dev, a.dtype, launches, opts.getrfTuning ?? tuningFor(dev.info.arch, 'getrf'));
  const plan = planInterchanges(dev, r);
  inDeviceFrame(dev, (frame) => {
    const tables = takeDeviceTables(dev, frame, regions, count, 1, GETRF_VBATCH_INTS, 'zeroed', firstLaunchedRegion(launches, regions));
    const work = frame.take('int32', count + 1, 'the device form\'s info scratch');
    const table = takeSwapTable(frame, count);
    const fused = fusedDeviceClasses(dev, frame, all, count);
    // Codes, the fused classes' and getrf's rows and the interchanges' rows; the class kernels write info at each row's batch index i + 1.
    const codes = work.ptr + 4n;
    const check = kernelFor(dev, 'gesv-vcheck', GESV_CHECK, () => generateLuSolveCheck(GESV_CHECK));
    launchPerMember(check, count, checkArgs(r, tables, fused, table, codes));
    // Row q's pivots land at ipiv + index * pivotStride, index = i + 1 for member i: the address less one stride (as getrf's).
    const ipiv = BigInt.asIntN(64, onDevice(r.ipiv as DeviceStorage).ptr - BigInt(r.pivotStride * 4));
    launchFusedRegions(dev, fused, a.dtype, count, r.b.maxCols, (p) => ({ kernel: kernelFor(dev, 'gesv-vsmall', p, () => gesvSmallVbatchedSource(p)), layout: gesvLayout(p) }),
      [arg.ptr(ipiv), arg.i32(r.pivotStride), arg.ptr(work), arg.i32(count)]);
    launchGetrfRegions(dev, designs, launches, tables, { ipiv: onDevice(r.ipiv as DeviceStorage), pivotStride: r.pivotStride, work }, count, nMax, nMax);
    const members = trsmDeviceClassify(dev, frame, 'left', a, r.b, 0n, codes, fused.taken);
    luSolves(dev, members, 'N', opts, (inverse) => interchange(dev, r, plan, table, codes, inverse));
    dev.copy(work, 1, onDevice(r.info as DeviceStorage), 0, count);
  });
}
