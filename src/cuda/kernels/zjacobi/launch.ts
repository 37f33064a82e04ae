/**
 * The launcher of the complex heev kernel (generate-heev.ts): complexHeevCuda. A's device array
 * holds the parts' dtype and its rows, ld, stride and offset count pairs, as the kernel's `real2`
 * pointer does; W is a real batch of the parts' dtype, counted in its own elements. A list batch's
 * pointer arrays are built with each batch's element size (a pair's bytes for A, a part's for W).
 * A strided or list batch is one launch per group of equal leading dimensions.
 */
import { batchCount, type Batch } from '../../../core/batch.js';
import { MyriadError } from '../../../core/errors.js';
import type { SyevRequest } from '../../../core/op-specs.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { complexBytes } from '../common/complex.js';
import { zeroInfo } from '../common/info-zero.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { deviceDtype, groupOperands, indexArgs, operandArgs, release } from '../common/operands.js';
import { heevWarpSource } from './generate-heev.js';
import type { ZjacobiForce } from './params.js';
import { planHeev, zheevServes, ZHEEV_MAX } from './plan.js';

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
      const p = plannedOnce(dev, `zheev/${dtype}/${a.rows}/${r.uplo}/${r.jobz}/${a.kind}/${force}`,
        () => planHeev({ dtype, n: a.rows, uplo: r.uplo, vectors: r.jobz === 'vectors', kind: a.kind }, opts));
      const k = kernelFor(dev, 'zheev-warp', p, () => heevWarpSource(p));
      k.launch({ grid: [Math.ceil(g.count / p.perBlock), 1, 1], block: [p.threads * p.perBlock, 1, 1] },
        [...operandArgs(a), ...operandArgs(w), arg.ptr(r.info), ...indexArgs(g.index, g.count)]);
    }
  } finally {
    release(dev, grouping);
  }
}
