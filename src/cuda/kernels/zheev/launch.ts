/**
 * complexHeevTridiagCuda: complex heev (zheev, cheev) of orders 33 ... 512 on the GPU, per group of
 * equal shapes and leading dimensions (strided and list batches): per workspace chunk, the reduction
 * to a real tridiagonal (generate-reduce.ts, a block per matrix), the tridiag family's values and
 * vectors kernels on the chunk's real slices (its `steinOnSlices`), the store with V = Q Z
 * (generate-store.ts, blocks of columns). No host read. A complex batch's device array holds the
 * parts' dtype, its rows, ld, stride and offset count pairs; W is a real batch of the parts' dtype.
 */
import { batchCount, type Batch } from '../../../core/batch.js';
import { MyriadError } from '../../../core/errors.js';
import type { SyevRequest } from '../../../core/op-specs.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { perMatrixChunks, STEIN_CHUNK_BYTES } from '../common/block-launch.js';
import { complexBytes } from '../common/complex.js';
import { zeroInfo } from '../common/info-zero.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { deviceDtype, groupOperands, indexArgs, operandArgs, release, type OperandArgs } from '../common/operands.js';
import { elementBytes } from '../common/precision.js';
import { steinOnSlices } from '../tridiag/index.js';
import { zheevReduceSource } from './generate-reduce.js';
import { storeParts, zheevStoreSource } from './generate-store.js';
import type { ZheevForce, ZheevTridiagPlan } from './params.js';
import { planZheevTridiag, zheevTridiagServes, ZHEEV_TRIDIAG_FROM, ZHEEV_TRIDIAG_MAX } from './plan.js';
import { ZHEEV_COMPUTE } from './snippets.js';

/** Whether the design takes a request: strided or list batches of order 33 ... 512. */
export function heevTridiagCovers(a: Batch<DeviceArray>, w: Batch<DeviceArray>): boolean {
  return a.kind !== 'variable' && w.kind !== 'variable' && zheevTridiagServes(a.rows);
}

export function complexHeevTridiagCuda(dev: GpuDevice, r: SyevRequest<DeviceArray, DeviceArray>, opts: { readonly force?: ZheevForce } = {}): void {
  if (r.a.kind === 'variable') throw new MyriadError('UNSUPPORTED', 'the complex tridiagonal heev takes strided and list batches', 'a');
  if (r.w.kind === 'variable') throw new MyriadError('UNSUPPORTED', 'the complex tridiagonal heev takes strided and list batches', 'w');
  if (batchCount(r.a) === 0) return;
  if (r.a.rows > ZHEEV_TRIDIAG_MAX) throw new MyriadError('UNSUPPORTED', `the complex tridiagonal heev takes n <= ${ZHEEV_TRIDIAG_MAX} (the router from ${ZHEEV_TRIDIAG_FROM}), got ${r.a.rows}`, 'a.rows');
  const dtype = deviceDtype(r.a);
  const grouping = groupOperands(dev, [r.a, r.w], [complexBytes(dtype), undefined]);
  try {
    for (const g of grouping.groups) {
      const [a, w] = [g.operands[0]!, g.operands[1]!];
      if (a.rows === 0) { zeroInfo(dev, r.info, g.index, g.count); continue; }
      const force = opts.force === undefined ? '' : JSON.stringify(opts.force);
      const p = plannedOnce(dev, `zheev-tridiag/${dtype}/${a.rows}/${r.uplo}/${r.jobz}/${a.kind}/${force}`,
        () => planZheevTridiag({ dtype, n: a.rows, uplo: r.uplo, vectors: r.jobz === 'vectors', kind: a.kind }, opts));
      heevTridiagGroup(dev, p, a, w, r.info, g.index, g.count, opts.force?.chunkBytes);
    }
  } finally {
    release(dev, grouping);
  }
}

/**
 * One group, chunk by chunk: a chunk's workspace holds its `blocks` real slices, then its `blocks`
 * complex slices (the tridiag family's kernels step through real slices only).
 */
function heevTridiagGroup(dev: GpuDevice, p: ZheevTridiagPlan, a: OperandArgs, w: OperandArgs, info: DeviceArray, index: DeviceArray | null, count: number, chunkBytes?: number): void {
  const reduce = kernelFor(dev, 'zheev-tridiag-reduce', p.reduce, () => zheevReduceSource(p.reduce));
  const store = kernelFor(dev, 'zheev-tridiag-store', p.store, () => zheevStoreSource(p.store));
  const threads = p.reduce.threads;
  const what = "the complex tridiagonal heev's slices (the reflectors, the tridiagonal's vectors and factors)";
  const work = p.slice + p.cslice;
  perMatrixChunks(dev, { work, workDtype: ZHEEV_COMPUTE, what, maxChunk: 65535, maxBytes: chunkBytes, fallbackBytes: STEIN_CHUNK_BYTES }, count, (ws, first, blocks) => {
    if (ws === undefined) throw new Error('the complex tridiagonal heev needs its slices');
    const slices = ws.ptr, complexSlices = ws.ptr + BigInt(blocks * p.slice * elementBytes(ZHEEV_COMPUTE));
    reduce.launch({ grid: [blocks, 1, 1], block: [threads, 1, 1], sharedBytes: 0 }, [...operandArgs(a), arg.ptr(slices), arg.ptr(complexSlices), arg.i64(first), arg.i32(count)]);
    steinOnSlices(dev, p.stein, slices, first, count, blocks);
    store.launch({ grid: [blocks, storeParts(p.store), 1], block: [p.store.threads, 1, 1], sharedBytes: 0 }, [...operandArgs(a), ...operandArgs(w), arg.ptr(slices), arg.ptr(complexSlices), arg.i64(first), arg.ptr(info), ...indexArgs(index, count)]);
  });
}
