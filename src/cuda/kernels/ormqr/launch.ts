/**
 * ormqrCuda: the batched ormqr of device batches (C written in place; A and tau only read). Each
 * group of equal sizes takes one of two designs:
 * - the shared-memory kernel (generate-block.ts: reflectors packed in shared memory, one reflector
 *   at a time as dorm2r), where they fit and there are fewer than the qr table's ormqrBlockedFrom;
 * - the blocked driver (LAPACK's dormqr): blocks of nb reflectors in dormqr's order (Q^T C and C Q
 *   from the first block, Q C and C Q^T from the last), each block's V and Y = V op(T) by
 *   common/wy.ts and its application to C(i:m, :) (left) or C(:, i:n) (right) as two GEMMs by the
 *   qr family's `applyWy`; workspace and chunks by common/wy-launch.ts.
 * All strided: one group and one launch per step; list and variable batches are grouped by shape
 * and leading dimension (pointer arrays). `ormqrCovers` tells the registry which requests these
 * kernels take: every size (the blocked driver needs no shared memory beyond its static T).
 */
import { batchDtype } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import type { OrmqrRequest } from '../../../core/ops.js';
import type { Storage } from '../../../core/storage.js';
import { tuningFor, type QrTuning } from '../../model/tuning/index.js';
import type { DeviceArray, GpuDevice } from '../../runtime/types.js';
import { runHouseholderOrmqr, type HouseholderOrmqrKernel } from '../common/householder-launch.js';
import { PANEL_MAX, QR_FAMILY } from '../qr/index.js';
import { forwardOrder, ormqrBlockSource } from './generate-block.js';
import type { OrmqrForce, OrmqrParams } from './params.js';
import { ormqrFits, planOrmqr } from './plan.js';

export interface OrmqrOptions {
  readonly force?: OrmqrForce;
  /** Plan with this table instead of the device architecture's (tests, sweeps). */
  readonly tuning?: QrTuning;
}

/**
 * Whether the GPU takes the request: every size (the shared kernel where its reflectors fit, the
 * blocked driver elsewhere). The batch's dtype is checked as before; the backend asks before
 * staging, so the batches may still be host arrays.
 */
export function ormqrCovers(r: Pick<OrmqrRequest<Storage>, 'side' | 'tau' | 'c'>): boolean {
  batchDtype(r.c, 'c');
  return true;
}

/** Whether a group of this size takes the blocked driver. */
export function ormqrBlocked(dtype: DType, order: number, k: number, nvec: number, limit: number, tuning: QrTuning, force: OrmqrForce = {}): boolean {
  if (force.design !== undefined) return force.design === 'blocked';
  return k >= tuning.ormqrBlockedFrom[dtype] || !ormqrFits(dtype, order, k, nvec, limit);
}

/** dorm2r's kernel as common/householder-launch.ts launches it. */
const KERNEL: HouseholderOrmqrKernel<'T', OrmqrParams> = { name: 'ormqr', kernelName: 'ormqr-block', plan: (pr) => planOrmqr(pr), source: ormqrBlockSource };

export function ormqrCuda(dev: GpuDevice, r: OrmqrRequest<DeviceArray>, opts: OrmqrOptions = {}): void {
  const tuning = opts.tuning ?? tuningFor(dev.info.arch, 'qr');
  const force = opts.force;
  runHouseholderOrmqr(dev, QR_FAMILY, r, {
    kernel: force === undefined ? KERNEL : { ...KERNEL, plan: (pr) => planOrmqr(pr, { force }) },
    forced: force !== undefined,
    blocked: (dtype, order, k, nvec, limit) => ormqrBlocked(dtype, order, k, nvec, limit, tuning, force),
    forward: forwardOrder,
    nb: (dtype) => force?.panel ?? tuning.panel[dtype],
    nbMax: PANEL_MAX,
    label: 'ormqr',
  });
}
