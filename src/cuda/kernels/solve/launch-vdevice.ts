/**
 * potrs and posv on variable batches whose sizes and addresses are on the device (common/vdevice.ts),
 * composed as on host sizes (launch-vbatched.ts) of the families' device forms, through their faces:
 * a check of both batches (generate-vdevice.ts) writes every member's code; potrs then classifies the
 * valid members once (trsm's classification, skipping a non-zero code) and runs trsm's two solves over
 * the same tables; posv's check also files the valid members into potrf's classes, potrf's class
 * kernels factor them (info through a scratch of count + 1 entries, as potrf's device form), and the
 * solves' classification skips every member whose info is not 0, so a failed member's B is never
 * touched (the host path copies it aside and back: the same B), and its A is what potrf leaves.
 * The factor goes through memory between potrf and the solves, as on host sizes. Nothing is read back.
 */
import type { DeviceVariableSolveRequest } from '../../../core/device-batch.js';
import type { Uplo } from '../../../core/enums.js';
import type { Op } from '../../../core/ops.js';
import type { DeviceStorage } from '../../../core/storage.js';
import { tuningFor, type GemmTuning, type GetrfTuning, type PotrfTuning, type TrsmTuning } from '../../model/tuning/index.js';
import { arg, type GpuDevice } from '../../runtime/types.js';
import { kernelFor } from '../common/kernel-cache.js';
import { batchArgs, deviceRegions, inDeviceFrame, launchPerMember, onDevice, takeDeviceTables, type DeviceTables } from '../common/vdevice.js';
import { POTRF_VBATCH_INTS, launchPotrfRegions, potrfDeviceDesigns } from '../potrf/index.js';
import { trsmDeviceClassify, trsmDeviceSolve, type TrsmDeviceMembers } from '../trsm/index.js';
import { generateSolveCheck } from './generate-vdevice.js';

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

/** Solves A X = B with the Cholesky factors in A; info 0, or a member's argument code. */
export function potrsDeviceVariableCuda(dev: GpuDevice, r: DeviceVariableSolveRequest, opts: SolveDeviceOptions = {}): void {
  const count = r.b.count;
  if (count === 0) return;
  const info = onDevice(r.info as DeviceStorage);
  const check = kernelFor(dev, 'solve-vcheck', CHECK_KEY, generateSolveCheck);
  launchPerMember(check, count, [...batchArgs(r.a), ...batchArgs(r.b), arg.i32(count), arg.i64(count), arg.ptr(0n), arg.ptr(0n), arg.ptr(0n), arg.ptr(info)]);
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
  const { launches, regions } = deviceRegions(Math.min(a.maxRows, a.maxCols, b.maxRows));
  const designs = potrfDeviceDesigns(dev, a.dtype, r.uplo, launches, opts.potrfTuning ?? tuningFor(dev.info.arch, 'potrf'));
  inDeviceFrame(dev, (frame) => {
    const tables = takeDeviceTables(dev, frame, regions, count, 1, POTRF_VBATCH_INTS, 'zeroed');
    const work = frame.take('int32', count + 1, 'the device form\'s info scratch');
    // Codes and potrf rows; the class kernels write info at each row's batch index i + 1.
    const codes = work.ptr + 4n;
    const check = kernelFor(dev, 'solve-vcheck', CHECK_KEY, generateSolveCheck);
    launchPerMember(check, count, [
      ...batchArgs(a), ...batchArgs(b), arg.i32(count), arg.i64(count), arg.ptr(tables.pointers), arg.ptr(tables.ints), arg.ptr(tables.counters), arg.ptr(codes),
    ]);
    launchPotrfRegions(dev, designs, launches, tables, work, count);
    const members = trsmDeviceClassify(dev, frame, 'left', a, b, 0n, codes);
    choleskySolves(dev, members, r.uplo, {}, opts);
    dev.copy(work, 1, onDevice(r.info as DeviceStorage), 0, count);
  });
}
