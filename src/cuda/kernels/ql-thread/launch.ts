/**
 * syevQlThreadCuda: the per-thread QL syev of device batches, one plan and one launch per group of
 * equal-size matrices (a thread per matrix, QL_THREAD_BLOCK a block).
 */
import { batchCount } from '../../../core/batch.js';
import type { SyevRequest } from '../../../core/ops.js';
import { tuningFor } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { zeroInfo } from '../common/info-zero.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { densePacked, deviceDtype, groupOperands, indexArgs, operandArgs, release, type OperandArgs } from '../common/operands.js';
import { QL_THREAD_BLOCK, qlThreadSharedBytes, qlThreadSource } from './generate.js';
import type { QlThreadForce } from './params.js';
import { planQlThread } from './plan.js';

export interface QlThreadOptions {
  /** Tests, benchmarks and probes: the arithmetic of float32 data regardless of the table. */
  readonly force?: QlThreadForce;
}

export function syevQlThreadCuda(dev: GpuDevice, r: SyevRequest<DeviceArray, DeviceArray>, opts: QlThreadOptions = {}): void {
  if (batchCount(r.a) === 0) return;
  const dtype = deviceDtype(r.a);
  const forced = opts.force === undefined ? '' : JSON.stringify(opts.force);
  const grouping = groupOperands(dev, [r.a, r.w]);
  try {
    for (const g of grouping.groups) {
      const [a, w] = g.operands as [OperandArgs, OperandArgs];
      if (a.rows === 0) { zeroInfo(dev, r.info, g.index, g.count); continue; }
      const denseA = densePacked(a, g.count), denseW = densePacked(w, g.count);
      const p = plannedOnce(dev, `syev-qlthread/${dtype}/${a.rows}/${r.uplo}/${r.jobz}/${a.kind}/${denseA ? 'd' : 'e'}${denseW ? 'd' : 'e'}/${forced}`,
        () => planQlThread({ dtype, n: a.rows, uplo: r.uplo, vectors: r.jobz === 'vectors', kind: a.kind, denseA, denseW }, tuningFor(dev.info.arch, 'qlThread'), opts));
      const k = kernelFor(dev, 'syev-qlthread', p, () => qlThreadSource(p));
      k.launch({ grid: [Math.ceil(g.count / QL_THREAD_BLOCK), 1, 1], block: [QL_THREAD_BLOCK, 1, 1], sharedBytes: qlThreadSharedBytes(p) },
        [...operandArgs(a), ...operandArgs(w), arg.ptr(r.info), ...indexArgs(g.index, g.count)]);
    }
  } finally {
    release(dev, grouping);
  }
}
