/**
 * geqrfCuda and orgqrCuda: batched Householder QR of device batches. Each group of equally sized
 * matrices gets a design from `planQrDesign` (the family's tuning table): one shared-memory kernel
 * per matrix (grouped as the other families group: common/operands.ts, strided A and tau in one
 * launch; list and variable batches by size and leading dimension, pointer arrays uploaded), or the
 * blocked compact-WY driver (launch-blocked.ts; chunks and workspace by common/wy-launch.ts).
 * `qrCovers` tells the registry which requests these kernels take: every matrix must fit the shared
 * kernel or the blocked driver's narrowest panel (the rest run on the CPU reference).
 */
import { batchCount, batchDtype, shapeAt, uniformShape, type Batch } from '../../../core/batch.js';
import type { Storage } from '../../../core/storage.js';
import type { GeqrfRequest, OrgqrRequest } from '../../../core/ops.js';
import { tuningFor, type QrTuning } from '../../model/tuning/index.js';
import type { DeviceArray, GpuDevice } from '../../runtime/types.js';
import { zeroInfo } from '../common/info-zero.js';
import { plannedOnce } from '../common/kernel-cache.js';
import { runHouseholder } from '../common/householder-launch.js';
import { sharedLimit, type LaunchGroup, type OperandArgs } from '../common/operands.js';
import type { QrDesign, QrForce, QrShape } from './params.js';
import { QR_FAMILY } from './launch-blocked.js';
import { planQrDesign, qrBlockedFits, qrFits, type QrProblem } from './plan.js';

export interface QrOptions {
  readonly force?: QrForce;
  /** Plan with this table instead of the device architecture's (tests, sweeps). */
  readonly tuning?: QrTuning;
}

/**
 * Whether the GPU kernels take every matrix of `a` on `dev` (geqrf: the m x n tile in shared
 * memory or the blocked driver's narrowest panel; orgqr: the same with k = n reflectors at most, so
 * one check serves both).
 */
export function qrCovers(a: Batch<Storage>, dev: GpuDevice): boolean {
  // The backend asks before it stages host arrays, so host batches come here too.
  const dtype = batchDtype(a, 'a');
  const limit = sharedLimit(dev);
  const fits = ({ rows: m, cols: n }: { rows: number; cols: number }): boolean => {
    const pr: QrProblem = { op: 'geqrf', dtype, m, n, k: Math.min(m, n), kind: 'strided', sharedLimit: limit };
    return qrFits(pr) || qrBlockedFits(pr);
  };
  const uniform = uniformShape(a);
  if (uniform !== undefined) return fits(uniform);
  for (let i = 0; i < batchCount(a); i++) if (!fits(shapeAt(a, i))) return false;
  return true;
}

/** The design of a group (memoised per device unless forced or given a table). */
function design(dev: GpuDevice, shape: QrShape, opts: QrOptions): QrDesign {
  const pr: QrProblem = { ...shape, sharedLimit: sharedLimit(dev) };
  const planNow = (): QrDesign => planQrDesign(pr, opts.tuning ?? tuningFor(dev.info.arch, 'qr'), { force: opts.force });
  return opts.force === undefined && opts.tuning === undefined
    ? plannedOnce(dev, `qr-design/${shape.op}/${shape.dtype}/${shape.m}x${shape.n}k${shape.k}/${shape.kind}`, planNow)
    : planNow();
}

/** The shared-kernel groups of a request, then its blocked matrices through the blocked driver (common/householder-launch.ts). */
function run(dev: GpuDevice, r: OrgqrRequest<DeviceArray>, op: QrShape['op'], opts: QrOptions, info: DeviceArray | null,
  trivial: (g: LaunchGroup, a: OperandArgs) => boolean): void {
  runHouseholder(dev, QR_FAMILY, r, { op, design: (shape) => design(dev, shape, opts), info, trivial });
}

export function geqrfCuda(dev: GpuDevice, r: GeqrfRequest<DeviceArray, DeviceArray>, opts: QrOptions = {}): void {
  run(dev, r, 'geqrf', opts, r.info, (g, a) => {
    if (Math.min(a.rows, a.cols) > 0) return false;
    zeroInfo(dev, r.info, g.index, g.count);
    return true;
  });
}

export function orgqrCuda(dev: GpuDevice, r: OrgqrRequest<DeviceArray>, opts: QrOptions = {}): void {
  run(dev, r, 'orgqr', opts, null, (_g, a) => a.rows === 0 || a.cols === 0);
}
