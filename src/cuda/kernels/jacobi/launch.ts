/**
 * syevCuda and gesvdCuda: batched Jacobi of device batches, one plan and one launch per group of
 * equal-size matrices; `jacobiCovers` tells the registry which requests these kernels take (the
 * rest run on the CPU reference).
 */
import { batchCount, matrixAt, type Batch } from '../../../core/batch.js';
import type { GesvdRequest, SyevRequest } from '../../../core/ops.js';
import { arg, type DeviceArray, type GpuDevice, type KernelArg } from '../../runtime/types.js';
import { zeroInfo } from '../common/info-zero.js';
import { cachedKernel } from '../common/kernel-cache.js';
import { deviceDtype, groupOperands, indexArgs, operandArgs, release } from '../common/operands.js';
import { gesvdWarpSource, syevWarpSource } from './generate-warp.js';
import type { JacobiForce } from './params.js';
import { THREAD_BLOCK, syevThreadSource } from './generate-thread.js';
import { WARP_MAX, planGesvd, selectSyev } from './plan.js';

export interface JacobiOptions { readonly force?: JacobiForce }

/** Whether every matrix of `a` fits the warp design (max(rows, cols) <= 32). */
export function jacobiCovers(a: Batch<unknown>): boolean {
  if (a.kind !== 'variable') return Math.max(a.rows, a.cols) <= WARP_MAX;
  for (let i = 0; i < a.matrices.length; i++) {
    const m = matrixAt(a, i);
    if (Math.max(m.rows, m.cols) > WARP_MAX) return false;
  }
  return true;
}

const NO_OPERAND: KernelArg[] = operandArgs({ pointer: 0n, offset: 0, stride: 0, ld: 1 });

export function syevCuda(dev: GpuDevice, r: SyevRequest<DeviceArray, DeviceArray>, opts: JacobiOptions = {}): void {
  if (batchCount(r.a) === 0) return;
  const dtype = deviceDtype(r.a);
  const grouping = groupOperands(dev, [r.a, r.w]);
  try {
    for (const g of grouping.groups) {
      const [a, w] = g.operands as [typeof g.operands[0], typeof g.operands[0]];
      if (a.rows === 0) { zeroInfo(dev, r.info, g.index, g.count); continue; }
      const choice = selectSyev({ dtype, n: a.rows, uplo: r.uplo, vectors: r.jobz === 'vectors', kind: a.kind }, opts);
      const args = [...operandArgs(a), ...operandArgs(w), arg.ptr(r.info), ...indexArgs(g.index, g.count)];
      if (choice.design === 'thread') {
        const p = choice.params;
        const k = cachedKernel(dev, `syev-thread/${JSON.stringify(p)}`, () => syevThreadSource(p));
        k.launch({ grid: [Math.ceil(g.count / THREAD_BLOCK), 1, 1], block: [THREAD_BLOCK, 1, 1] }, args);
      } else {
        const p = choice.params;
        const k = cachedKernel(dev, `syev-warp/${JSON.stringify(p)}`, () => syevWarpSource(p));
        k.launch({ grid: [Math.ceil(g.count / p.perBlock), 1, 1], block: [p.threads * p.perBlock, 1, 1] }, args);
      }
    }
  } finally {
    release(dev, grouping);
  }
}

export function gesvdCuda(dev: GpuDevice, r: GesvdRequest<DeviceArray, DeviceArray>, opts: JacobiOptions = {}): void {
  if (batchCount(r.a) === 0) return;
  const dtype = deviceDtype(r.a);
  const batches = [r.a, r.s, ...(r.u ? [r.u] : []), ...(r.vt ? [r.vt] : [])];
  const grouping = groupOperands(dev, batches);
  try {
    for (const g of grouping.groups) {
      const [a, s] = g.operands as [typeof g.operands[0], typeof g.operands[0]];
      const u = r.u ? g.operands[2] : undefined;
      const vt = r.vt ? g.operands[r.u ? 3 : 2] : undefined;
      if (Math.min(a.rows, a.cols) === 0) { zeroInfo(dev, r.info, g.index, g.count); continue; }
      const p = planGesvd({ dtype, m: a.rows, n: a.cols, wantU: u !== undefined, wantVt: vt !== undefined, kind: a.kind }, opts);
      const k = cachedKernel(dev, `gesvd-warp/${JSON.stringify(p)}`, () => gesvdWarpSource(p));
      k.launch({ grid: [Math.ceil(g.count / p.perBlock), 1, 1], block: [p.threads * p.perBlock, 1, 1] }, [
        ...operandArgs(a), ...operandArgs(s), ...(u ? operandArgs(u) : NO_OPERAND), ...(vt ? operandArgs(vt) : NO_OPERAND),
        arg.ptr(r.info), ...indexArgs(g.index, g.count),
      ]);
    }
  } finally {
    release(dev, grouping);
  }
}
