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
import { batchCount, batchDtype, matrixAt } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import { MyriadError } from '../../../core/errors.js';
import type { OrmqrRequest } from '../../../core/ops.js';
import type { Storage } from '../../../core/storage.js';
import { tuningFor, type QrTuning } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { deviceDtype, groupOperands, operandArgs, release, sharedLimit } from '../common/operands.js';
import { eachWyChunk, workBatch, wyFactor, wyView, type WyChunk } from '../common/wy-launch.js';
import { applyWy, wyTransT, PANEL_MAX } from '../qr/index.js';
import { forwardOrder, ormqrBlockSource } from './generate-block.js';
import type { OrmqrForce, OrmqrPlan } from './params.js';
import { blockMatrices, ormqrFits, planOrmqr } from './plan.js';

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

/** Order of Q and the vectors it acts on (C's rows and columns on the left, columns and rows on the right). */
const orderOf = (side: OrmqrRequest['side'], rows: number, cols: number): [number, number] => (side === 'left' ? [rows, cols] : [cols, rows]);

/** Whether a group of this size takes the blocked driver. */
export function ormqrBlocked(dtype: DType, order: number, k: number, nvec: number, limit: number, tuning: QrTuning, force: OrmqrForce = {}): boolean {
  if (force.design !== undefined) return force.design === 'blocked';
  return k >= tuning.ormqrBlockedFrom[dtype] || !ormqrFits(dtype, order, k, nvec, limit);
}

export function ormqrCuda(dev: GpuDevice, r: OrmqrRequest<DeviceArray>, opts: OrmqrOptions = {}): void {
  const count = batchCount(r.c);
  if (count === 0) return;
  const dtype = deviceDtype(r.c);
  const tuning = opts.tuning ?? tuningFor(dev.info.arch, 'qr');
  const limit = sharedLimit(dev);
  const blockedAt = (i: number): boolean => {
    const c = matrixAt(r.c, i);
    const k = matrixAt(r.tau, i).rows;
    const [order, nvec] = orderOf(r.side, c.rows, c.cols);
    return k > 0 && nvec > 0 && ormqrBlocked(dtype, order, k, nvec, limit, tuning, opts.force);
  };
  const strided = r.a.kind === 'strided' && r.tau.kind === 'strided' && r.c.kind === 'strided';
  const allBlocked = strided && blockedAt(0);
  if (!allBlocked) sharedGroups(dev, r, dtype, opts, tuning, limit);
  if (strided && !allBlocked) return;
  const nb = opts.force?.panel ?? tuning.panel[dtype];
  if (!Number.isInteger(nb) || nb < 1 || nb > PANEL_MAX) throw new MyriadError('UNSUPPORTED', `ormqr's block must be 1..${PANEL_MAX} reflectors, got ${nb}`, 'force.panel');
  const perMatrix = (i: number): number => {
    const c = matrixAt(r.c, i);
    const [order, nvec] = orderOf(r.side, c.rows, c.cols);
    return 2 * order * nb + nb * nvec;
  };
  eachWyChunk(dev, dtype, [r.a, r.tau, r.c], perMatrix, (c) => blocked(dev, r, dtype, nb, c), blockedAt);
}

/** The groups the shared-memory kernel serves (the blocked ones skipped). */
function sharedGroups(dev: GpuDevice, r: OrmqrRequest<DeviceArray>, dtype: DType, opts: OrmqrOptions, tuning: QrTuning, limit: number): void {
  const grouping = groupOperands(dev, [r.a, r.tau, r.c]);
  try {
    for (const g of grouping.groups) {
      const [a, tau, c] = g.operands as [typeof g.operands[0], typeof g.operands[0], typeof g.operands[0]];
      const k = tau.rows;
      const [order, nvec] = orderOf(r.side, c.rows, c.cols);
      if (k === 0 || nvec === 0 || ormqrBlocked(dtype, order, k, nvec, limit, tuning, opts.force)) continue;
      const problem = { dtype, side: r.side, trans: r.trans, kind: a.kind, r: order, k, nvec, sharedLimit: limit };
      const planNow = (): OrmqrPlan => planOrmqr(problem, { force: opts.force });
      const plan = opts.force === undefined
        ? plannedOnce(dev, `ormqr/${dtype}/${r.side}/${r.trans}/${a.kind}/${order}/${k}/${nvec}`, planNow)
        : planNow();
      const p = plan.params;
      const kernel = kernelFor(dev, 'ormqr-block', p, () => ormqrBlockSource(p));
      const matrices = blockMatrices(plan.shape, g.count);
      kernel.launch(
        { grid: [Math.ceil(g.count / matrices), 1, 1], block: [plan.shape.threads, matrices, 1], sharedBytes: matrices * plan.shape.bytesPerMatrix },
        [...operandArgs(a), ...operandArgs(tau), ...operandArgs(c), arg.i32(g.count), arg.i32(order), arg.i32(k), arg.i32(nvec), arg.i32(plan.shape.ldt)],
      );
    }
  } finally {
    release(dev, grouping);
  }
}

/** dormqr on one chunk: blocks of nb reflectors in dorm2r's order, each applied by two GEMMs. */
function blocked(dev: GpuDevice, r: OrmqrRequest<DeviceArray>, dtype: DType, nb: number, ch: WyChunk): void {
  const [a, tau, c] = ch.operands as [WyChunk['operands'][0], WyChunk['operands'][0], WyChunk['operands'][0]];
  const left = r.side === 'left';
  const k = tau.rows;
  const [order, nvec] = orderOf(r.side, c.rows, c.cols);
  const vy = ch.count * order * nb;
  const v = dev.view(ch.work, 0, vy), y = dev.view(ch.work, vy, vy), w = dev.view(ch.work, 2 * vy, ch.count * nb * nvec);
  const starts: number[] = [];
  for (let i = 0; i < k; i += nb) starts.push(i);
  if (!forwardOrder(r)) starts.reverse();
  const transT = wyTransT(r.side, r.trans);
  for (const i of starts) {
    const ib = Math.min(nb, k - i);
    const rr = order - i;
    wyFactor(dev, dtype, nb, transT, ch.count, wyView(a, i, i, rr, ib).args, wyView(tau, i, 0, ib, 1).args, v, y, order * nb, rr, ib);
    applyWy(dev, {
      side: r.side, trans: r.trans,
      v: workBatch(v, rr, ib, ch.count, order * nb), y: workBatch(y, rr, ib, ch.count, order * nb),
      w: left ? workBatch(w, ib, nvec, ch.count, nb * nvec) : workBatch(w, nvec, ib, ch.count, nb * nvec),
      c: left ? wyView(c, i, 0, rr, nvec).batch : wyView(c, 0, i, nvec, rr).batch,
    });
  }
}
