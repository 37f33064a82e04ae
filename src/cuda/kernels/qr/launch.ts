/**
 * geqrfCuda and orgqrCuda: batched Householder QR of device batches. The batch is grouped as the
 * other families group it (common/operands.ts: strided A and tau in one launch; list and variable
 * batches by size and leading dimension, pointer arrays uploaded), one plan and one launch per group.
 * `qrCovers` tells the registry which requests these kernels take: every matrix's tile must fit the
 * device's shared memory (larger ones run on the CPU reference).
 */
import { batchCount, batchDtype, shapeAt, uniformShape, type Batch } from '../../../core/batch.js';
import type { Storage } from '../../../core/storage.js';
import type { DType } from '../../../core/dtype.js';
import type { GeqrfRequest, OrgqrRequest } from '../../../core/ops.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { zeroInfo } from '../common/info-zero.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { deviceDtype, groupOperands, indexArgs, operandArgs, release, sharedLimit, type LaunchGroup, type OperandArgs } from '../common/operands.js';
import { geqrfSharedSource, orgqrSharedSource } from './generate-shared.js';
import type { QrForce, QrPlan } from './params.js';
import { planQr, qrFits, type QrProblem } from './plan.js';

export interface QrOptions { readonly force?: QrForce }

/**
 * Whether the GPU kernels take every matrix of `a` on `dev` (geqrf: the m x n tile; orgqr: the same
 * tile with k = n reflectors at most, so one check serves both).
 */
export function qrCovers(a: Batch<Storage>, dev: GpuDevice): boolean {
  // The backend asks before it stages host arrays, so host batches come here too.
  const dtype = batchDtype(a, 'a');
  const limit = sharedLimit(dev);
  const fits = ({ rows: m, cols: n }: { rows: number; cols: number }): boolean =>
    qrFits({ op: 'geqrf', dtype, m, n, k: Math.min(m, n), kind: 'strided', sharedLimit: limit });
  const uniform = uniformShape(a);
  if (uniform !== undefined) return fits(uniform);
  for (let i = 0; i < batchCount(a); i++) if (!fits(shapeAt(a, i))) return false;
  return true;
}

function plan(dev: GpuDevice, pr: Omit<QrProblem, 'sharedLimit'>, opts: QrOptions): QrPlan {
  const planNow = (): QrPlan => planQr({ ...pr, sharedLimit: sharedLimit(dev) }, { force: opts.force });
  return opts.force === undefined ? plannedOnce(dev, `qr/${pr.op}/${pr.dtype}/${pr.m}x${pr.n}k${pr.k}/${pr.kind}`, planNow) : planNow();
}

function launch(dev: GpuDevice, p: QrPlan, count: number, a: OperandArgs, tau: OperandArgs, info: DeviceArray | null, index: DeviceArray | null): void {
  const params = p.params;
  const k = params.op === 'geqrf'
    ? kernelFor(dev, 'qr-geqrf', params, () => geqrfSharedSource(params))
    : kernelFor(dev, 'qr-orgqr', params, () => orgqrSharedSource(params));
  k.launch({ grid: [Math.ceil(count / params.perBlock), 1, 1], block: [p.blockThreads, 1, 1], sharedBytes: p.sharedBytes }, [
    ...operandArgs(a), ...operandArgs(tau), ...(info === null ? [] : [arg.ptr(info)]), ...indexArgs(index, count),
  ]);
}

/** `body` for each launch group of (A, tau) of one size, with the batch's dtype; the grouping's uploads released after. */
function eachGroup(dev: GpuDevice, r: OrgqrRequest<DeviceArray>, body: (a: OperandArgs, tau: OperandArgs, g: LaunchGroup, dtype: DType) => void): void {
  if (batchCount(r.a) === 0) return;
  const dtype = deviceDtype(r.a);
  const grouping = groupOperands(dev, [r.a, r.tau]);
  try {
    for (const g of grouping.groups) {
      const [a, tau] = g.operands as [OperandArgs, OperandArgs];
      body(a, tau, g, dtype);
    }
  } finally {
    release(dev, grouping);
  }
}

export function geqrfCuda(dev: GpuDevice, r: GeqrfRequest<DeviceArray, DeviceArray>, opts: QrOptions = {}): void {
  eachGroup(dev, r, (a, tau, g, dtype) => {
    const k = Math.min(a.rows, a.cols);
    if (k === 0) { zeroInfo(dev, r.info, g.index, g.count); return; }
    const p = plan(dev, { op: 'geqrf', dtype, m: a.rows, n: a.cols, k, kind: a.kind }, opts);
    launch(dev, p, g.count, a, tau, r.info, g.index);
  });
}

export function orgqrCuda(dev: GpuDevice, r: OrgqrRequest<DeviceArray>, opts: QrOptions = {}): void {
  eachGroup(dev, r, (a, tau, g, dtype) => {
    if (a.rows === 0 || a.cols === 0) return;
    const p = plan(dev, { op: 'orgqr', dtype, m: a.rows, n: a.cols, k: tau.rows, kind: a.kind }, opts);
    launch(dev, p, g.count, a, tau, null, g.index);
  });
}
