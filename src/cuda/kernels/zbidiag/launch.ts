/**
 * complexGesvdBidiagCuda: complex gesvd (zgesvd, cgesvd) of min(m, n) = 33 ... 512 on the GPU, per
 * group of equal shapes and leading dimensions (strided and list batches): per workspace chunk, the
 * reduction to a real bidiagonal (generate-reduce.ts, a block per matrix), the tridiag family's values
 * and vectors kernels on the Golub-Kahan tridiagonal (its `steinOnSlices`), the bidiag family's vectors
 * kernel (U_B, V_B, sig), the vectors widened to pairs (generate-widen.ts), U = Q_B [U_B; 0] and
 * V = P_B V_B by the zqr family's unmqr on views of the complex slices (only the sides the job needs),
 * the store (generate-store.ts). No host read. A complex batch's device array holds the parts' dtype,
 * its rows, ld, stride and offset count pairs; S is a real batch of the parts' dtype.
 */
import { batchCount, type Batch } from '../../../core/batch.js';
import { MyriadError } from '../../../core/errors.js';
import type { GesvdRequest } from '../../../core/op-specs.js';
import { arg, type DeviceArray, type GpuDevice, type KernelArg } from '../../runtime/types.js';
import { bidiagVectorsSource } from '../bidiag/index.js';
import { perMatrixChunks, STEIN_CHUNK_BYTES } from '../common/block-launch.js';
import { complexBytes } from '../common/complex.js';
import { zeroInfo } from '../common/info-zero.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { deviceDtype, groupOperands, indexArgs, operandArgs, release, type OperandArgs } from '../common/operands.js';
import { elementBytes } from '../common/precision.js';
import { steinOnSlices } from '../tridiag/index.js';
import { complexOrmqrCuda } from '../zqr/index.js';
import { zbidiagReduceSource } from './generate-reduce.js';
import { zbidiagStoreSource } from './generate-store.js';
import { zbidiagWidenSource } from './generate-widen.js';
import type { ZbidiagForce, ZgesvdBidiagPlan } from './params.js';
import { planZgesvdBidiag, zbidiagServes, ZBIDIAG_LONG_MAX, ZBIDIAG_MAX } from './plan.js';
import { ZBIDIAG_COMPUTE, zbidiagSlice } from './snippets.js';

const NO_OPERAND: KernelArg[] = operandArgs({ pointer: 0n, offset: 0, stride: 0, ld: 1 });

/** Whether the router sends a request here: strided or list batches of the routed shapes (zbidiagServes). */
export function zgesvdBidiagCovers(r: GesvdRequest<DeviceArray, DeviceArray>): boolean {
  return [r.a, r.s, r.u, r.vt].every((b) => b === undefined || b.kind !== 'variable') && r.a.kind !== 'variable' && zbidiagServes(r.a.rows, r.a.cols);
}

export function complexGesvdBidiagCuda(dev: GpuDevice, r: GesvdRequest<DeviceArray, DeviceArray>, opts: { readonly force?: ZbidiagForce } = {}): void {
  const named = [['s', r.s], ['u', r.u], ['vt', r.vt]] as const;
  for (const [name, b] of named) if (b !== undefined && b.kind === 'variable') throw new MyriadError('UNSUPPORTED', 'the complex bidiagonalization gesvd takes strided and list batches', name);
  if (r.a.kind === 'variable') throw new MyriadError('UNSUPPORTED', 'the complex bidiagonalization gesvd takes strided and list batches', 'a');
  if (batchCount(r.a) === 0) return;
  if (Math.min(r.a.rows, r.a.cols) > ZBIDIAG_MAX || Math.max(r.a.rows, r.a.cols) > ZBIDIAG_LONG_MAX)
    throw new MyriadError('UNSUPPORTED', `the complex bidiagonalization gesvd takes min(m, n) <= ${ZBIDIAG_MAX} and max(m, n) <= ${ZBIDIAG_LONG_MAX}, got ${r.a.rows}x${r.a.cols}`, 'a.rows');
  const dtype = deviceDtype(r.a);
  const pair = complexBytes(dtype);
  const grouping = groupOperands(dev, [r.a, r.s, ...(r.u ? [r.u] : []), ...(r.vt ? [r.vt] : [])], [pair, undefined, pair, pair]);
  try {
    for (const g of grouping.groups) {
      const [a, s] = [g.operands[0]!, g.operands[1]!];
      const u = r.u ? g.operands[2] : undefined;
      const vt = r.vt ? g.operands[r.u ? 3 : 2] : undefined;
      if (Math.min(a.rows, a.cols) === 0) { zeroInfo(dev, r.info, g.index, g.count); continue; }
      const force = opts.force === undefined ? '' : JSON.stringify(opts.force);
      const p = plannedOnce(dev, `zgesvd-bidiag/${dtype}/${a.rows}x${a.cols}/${u !== undefined}/${vt !== undefined}/${a.kind}/${force}`,
        () => planZgesvdBidiag({ dtype, m: a.rows, n: a.cols, wantU: u !== undefined, wantVt: vt !== undefined, kind: a.kind }, opts));
      const outputs = [...operandArgs(s), ...(u ? operandArgs(u) : NO_OPERAND), ...(vt ? operandArgs(vt) : NO_OPERAND)];
      zbidiagGroup(dev, p, a, outputs, r.info, g.index, g.count, opts.force?.chunkBytes);
    }
  } finally {
    release(dev, grouping);
  }
}

/**
 * One group, chunk by chunk: a chunk's workspace holds its `blocks` complex slices (first, so that
 * their pairs start at even elements), then its `blocks` tridiag slices, then its `blocks` bidiag slices.
 */
function zbidiagGroup(dev: GpuDevice, p: ZgesvdBidiagPlan, a: OperandArgs, outputs: readonly KernelArg[], info: DeviceArray, index: DeviceArray | null, count: number, chunkBytes?: number): void {
  const reduce = kernelFor(dev, 'zgesvd-bidiag-reduce', p.reduce, () => zbidiagReduceSource(p.reduce));
  const vectors = kernelFor(dev, 'gesvd-bidiag-vectors', p.vectors, () => bidiagVectorsSource(p.vectors));
  const widen = p.widen === undefined ? undefined : kernelFor(dev, 'zgesvd-bidiag-widen', p.widen, () => zbidiagWidenSource(p.widen!));
  const store = kernelFor(dev, 'zgesvd-bidiag-store', p.store, () => zbidiagStoreSource(p.store));
  const { k, rows, left, right } = p.vectors;
  const c = zbidiagSlice(rows, k);
  const bytes = elementBytes(ZBIDIAG_COMPUTE);
  const what = "the complex bidiagonalization gesvd's slices (G and its reflectors, the Golub-Kahan vectors and factors, the vectors as pairs)";
  perMatrixChunks(dev, { work: p.cslice + p.slice + p.bslice, workDtype: ZBIDIAG_COMPUTE, what, maxChunk: 65535, maxBytes: chunkBytes, fallbackBytes: STEIN_CHUNK_BYTES }, count, (ws, first, blocks) => {
    if (ws === undefined) throw new Error('the complex bidiagonalization gesvd needs its slices');
    const cslices = ws.ptr, slices = ws.ptr + BigInt(blocks * p.cslice * bytes), bslices = slices + BigInt(blocks * p.slice * bytes);
    const ptrs = [arg.ptr(slices), arg.ptr(bslices), arg.ptr(cslices), arg.i64(first)];
    const grid = (threads: number) => ({ grid: [blocks, 1, 1] as [number, number, number], block: [threads, 1, 1] as [number, number, number], sharedBytes: 0 });
    reduce.launch(grid(p.reduce.threads), [...operandArgs(a), ...ptrs, arg.i32(count)]);
    steinOnSlices(dev, p.stein, slices, first, count, blocks);
    vectors.launch(grid(p.vectors.threads), [arg.ptr(slices), arg.ptr(bslices), arg.i64(first), arg.i32(count)]);
    if (widen !== undefined) widen.launch(grid(p.widen!.threads), [...ptrs, arg.i32(count)]);
    // complex128 views of the chunk's complex slices (pairs of ws's float64 elements; every part starts at an even element).
    const part = (r: number, cols: number, ld: number, offset: number): Batch<DeviceArray> =>
      ({ kind: 'strided', data: ws, rows: r, cols, count: blocks, ld, stride: p.cslice / 2, offset: offset / 2, order: 'col', dtype: 'complex128' });
    if (left) complexOrmqrCuda(dev, { side: 'left', trans: 'N', a: part(rows, k, rows, c.w), tau: part(k, 1, k, c.tauq), c: part(rows, k, rows, c.ub) });
    // P_B = G_0 ... G_{K-2} over rows 1 ... K-1 (G_{K-2}, of one element, makes that element real: not the identity).
    if (right && k >= 2) complexOrmqrCuda(dev, { side: 'left', trans: 'N', a: part(k - 1, k - 1, k, c.pm + 2), tau: part(k - 1, 1, k, c.taup), c: part(k - 1, k, k, c.vb + 2) });
    store.launch(grid(p.store.threads), [...outputs, ...ptrs, arg.ptr(info), ...indexArgs(index, count)]);
  });
}
