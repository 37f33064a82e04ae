/**
 * The launchers of the complex Jacobi kernels: complexHeevCuda (generate-heev.ts, generate-heev-rows.ts) and
 * complexGesvdCuda (generate-gesvd.ts). A complex batch's device array holds the parts' dtype and
 * its rows, ld, stride and offset count pairs, as the kernels' `real2` pointers do; W and S are
 * real batches of the parts' dtype, counted in their own elements. A list batch's pointer arrays are
 * built with each batch's element size (a pair's bytes for A, U, VT, a part's for W, S). A strided
 * or list batch is one launch per group of equal shapes and leading dimensions.
 */
import { batchCount, type Batch } from '../../../core/batch.js';
import { MyriadError } from '../../../core/errors.js';
import type { GesvdRequest, SyevRequest } from '../../../core/op-specs.js';
import { arg, type DeviceArray, type GpuDevice, type KernelArg } from '../../runtime/types.js';
import { complexBytes } from '../common/complex.js';
import { zeroInfo } from '../common/info-zero.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { deviceDtype, groupOperands, indexArgs, operandArgs, release } from '../common/operands.js';
import { gesvdWarpSource } from './generate-gesvd.js';
import { heevRowsShape, heevRowsSource } from './generate-heev-rows.js';
import { heevWarpSource } from './generate-heev.js';
import type { ZjacobiForce } from './params.js';
import { planGesvd, selectHeev, zgesvdServes, zheevServes, ZGESVD_MAX, ZHEEV_MAX } from './plan.js';

/** Whether the complex heev kernel takes a request: strided or list batches of order at most ZHEEV_MAX. */
export function heevCovers(a: Batch<DeviceArray>, w: Batch<DeviceArray>): boolean {
  return a.kind !== 'variable' && w.kind !== 'variable' && zheevServes(a.rows);
}

/** zheev / cheev: the eigenvalues ascending into W, with 'vectors' the eigenvectors over A; info per matrix. */
export function complexHeevCuda(dev: GpuDevice, r: SyevRequest<DeviceArray, DeviceArray>, opts: { readonly force?: ZjacobiForce } = {}): void {
  if (r.a.kind === 'variable') throw new MyriadError('UNSUPPORTED', 'the complex heev kernel takes strided and list batches', 'a');
  if (r.w.kind === 'variable') throw new MyriadError('UNSUPPORTED', 'the complex heev kernel takes strided and list batches', 'w');
  if (batchCount(r.a) === 0) return;
  if (!zheevServes(r.a.rows)) throw new MyriadError('UNSUPPORTED', `the complex heev kernel takes n <= ${ZHEEV_MAX}, got ${r.a.rows}`, 'a.rows');
  const dtype = deviceDtype(r.a);
  const grouping = groupOperands(dev, [r.a, r.w], [complexBytes(dtype), undefined]);
  try {
    for (const g of grouping.groups) {
      const [a, w] = [g.operands[0]!, g.operands[1]!];
      if (a.rows === 0) { zeroInfo(dev, r.info, g.index, g.count); continue; }
      const force = opts.force === undefined ? '' : JSON.stringify(opts.force);
      const plan = plannedOnce(dev, `zheev/${dtype}/${a.rows}/${r.uplo}/${r.jobz}/${a.kind}/${force}`,
        () => selectHeev({ dtype, n: a.rows, uplo: r.uplo, vectors: r.jobz === 'vectors', kind: a.kind }, opts));
      const args = [...operandArgs(a), ...operandArgs(w), arg.ptr(r.info), ...indexArgs(g.index, g.count)];
      if (plan.design === 'rows') {
        const p = plan.params;
        const k = kernelFor(dev, 'zheev-rows', p, () => heevRowsSource(p));
        k.launch({ grid: [Math.ceil(g.count / heevRowsShape(p).perBlock), 1, 1], block: [32 * p.warps, 1, 1] }, args);
      } else {
        const p = plan.params;
        const k = kernelFor(dev, 'zheev-warp', p, () => heevWarpSource(p));
        k.launch({ grid: [Math.ceil(g.count / p.perBlock), 1, 1], block: [p.threads * p.perBlock, 1, 1] }, args);
      }
    }
  } finally {
    release(dev, grouping);
  }
}

/** Whether the complex gesvd kernel takes a request: strided or list batches with max(m, n) at most ZGESVD_MAX. */
export function zgesvdCovers(r: GesvdRequest<DeviceArray, DeviceArray>): boolean {
  return [r.a, r.s, r.u, r.vt].every((b) => b === undefined || b.kind !== 'variable') && r.a.kind !== 'variable' && zgesvdServes(r.a.rows, r.a.cols);
}

const NO_OPERAND: KernelArg[] = operandArgs({ pointer: 0n, offset: 0, stride: 0, ld: 1 });

/** zgesvd / cgesvd: the singular values descending into S, U (m x k) and VT = V^H (k x n) where asked; A only read; info per matrix. */
export function complexGesvdCuda(dev: GpuDevice, r: GesvdRequest<DeviceArray, DeviceArray>, opts: { readonly force?: ZjacobiForce } = {}): void {
  const named = [['s', r.s], ['u', r.u], ['vt', r.vt]] as const;
  for (const [name, b] of named) if (b !== undefined && b.kind === 'variable') throw new MyriadError('UNSUPPORTED', 'the complex gesvd kernel takes strided and list batches', name);
  if (r.a.kind === 'variable') throw new MyriadError('UNSUPPORTED', 'the complex gesvd kernel takes strided and list batches', 'a');
  if (batchCount(r.a) === 0) return;
  if (!zgesvdServes(r.a.rows, r.a.cols)) throw new MyriadError('UNSUPPORTED', `the complex gesvd kernel takes max(m, n) <= ${ZGESVD_MAX}, got ${r.a.rows}x${r.a.cols}`, 'a.rows');
  const dtype = deviceDtype(r.a);
  const pair = complexBytes(dtype);
  const batches = [r.a, r.s, ...(r.u ? [r.u] : []), ...(r.vt ? [r.vt] : [])];
  const grouping = groupOperands(dev, batches, [pair, undefined, pair, pair]);
  try {
    for (const g of grouping.groups) {
      const [a, s] = [g.operands[0]!, g.operands[1]!];
      const u = r.u ? g.operands[2] : undefined;
      const vt = r.vt ? g.operands[r.u ? 3 : 2] : undefined;
      if (Math.min(a.rows, a.cols) === 0) { zeroInfo(dev, r.info, g.index, g.count); continue; }
      const force = opts.force === undefined ? '' : JSON.stringify(opts.force);
      const p = plannedOnce(dev, `zgesvd/${dtype}/${a.rows}x${a.cols}/${u !== undefined}/${vt !== undefined}/${a.kind}/${force}`,
        () => planGesvd({ dtype, m: a.rows, n: a.cols, wantU: u !== undefined, wantVt: vt !== undefined, kind: a.kind }, opts));
      const k = kernelFor(dev, 'zgesvd-warp', p, () => gesvdWarpSource(p));
      k.launch({ grid: [Math.ceil(g.count / p.perBlock), 1, 1], block: [p.threads * p.perBlock, 1, 1] }, [
        ...operandArgs(a), ...operandArgs(s), ...(u ? operandArgs(u) : NO_OPERAND), ...(vt ? operandArgs(vt) : NO_OPERAND),
        arg.ptr(r.info), ...indexArgs(g.index, g.count),
      ]);
    }
  } finally {
    release(dev, grouping);
  }
}
