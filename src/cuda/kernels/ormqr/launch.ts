/**
 * ormqrCuda: the batched ormqr of device batches (C written in place; A and tau only read). All
 * strided: one group and one launch; list and variable batches are grouped by shape and leading
 * dimension (pointer arrays). `ormqrCovers` tells the registry which requests these kernels take
 * (the rest run on the CPU reference).
 */
import { batchCount, batchDtype, matrixAt } from '../../../core/batch.js';
import type { OrmqrRequest } from '../../../core/ops.js';
import type { Storage } from '../../../core/storage.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { deviceDtype, groupOperands, operandArgs, release, sharedLimit } from '../common/operands.js';
import { ormqrBlockSource } from './generate-block.js';
import type { OrmqrForce, OrmqrPlan } from './params.js';
import { blockMatrices, ormqrFits, planOrmqr } from './plan.js';

export interface OrmqrOptions { readonly force?: OrmqrForce }

/**
 * Whether every matrix's reflectors fit the shared-memory budget of plan.ts (ORMQR_COVER_SHARED).
 * The backend asks before staging, so the batches may still be host arrays.
 */
export function ormqrCovers(r: Pick<OrmqrRequest<Storage>, 'side' | 'tau' | 'c'>): boolean {
  const dtype = batchDtype(r.c, 'c');
  const fits = (i: number): boolean => {
    const c = matrixAt(r.c, i);
    const [order, nvec] = r.side === 'left' ? [c.rows, c.cols] : [c.cols, c.rows];
    return ormqrFits(dtype, order, matrixAt(r.tau, i).rows, nvec);
  };
  const count = batchCount(r.c);
  if (r.c.kind !== 'variable' && r.tau.kind !== 'variable') return count === 0 || fits(0);
  for (let i = 0; i < count; i++) if (!fits(i)) return false;
  return true;
}

export function ormqrCuda(dev: GpuDevice, r: OrmqrRequest<DeviceArray>, opts: OrmqrOptions = {}): void {
  if (batchCount(r.c) === 0) return;
  const dtype = deviceDtype(r.c);
  const grouping = groupOperands(dev, [r.a, r.tau, r.c]);
  try {
    for (const g of grouping.groups) {
      const [a, tau, c] = g.operands as [typeof g.operands[0], typeof g.operands[0], typeof g.operands[0]];
      const k = tau.rows;
      const [order, nvec] = r.side === 'left' ? [c.rows, c.cols] : [c.cols, c.rows];
      if (k === 0 || nvec === 0) continue;
      const problem = { dtype, side: r.side, trans: r.trans, kind: a.kind, r: order, k, nvec, sharedLimit: sharedLimit(dev) };
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
