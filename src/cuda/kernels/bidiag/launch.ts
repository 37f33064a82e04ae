/**
 * gesvdBidiagCuda: gesvd of device batches by bidiagonalization, per group of equal shapes: per
 * workspace chunk, reduce (a block per matrix: G to B, the Golub-Kahan tridiagonal handed to the
 * tridiag family's slices; or, where the plan blocks it, the load stage, dgebrd's panels each followed
 * by two GEMMs through gemm's public face, and the tail stage), the tridiag family's values and vectors kernels on the upper half of the
 * tridiagonal (its `steinOnSlices`), the vectors kernel (U_B, V_B), U := Q_B U_B and V := P_B V_B by the
 * project's ormqr over the chunk's slices (never Q formed), store. No host read.
 */
import { batchCount } from '../../../core/batch.js';
import type { GesvdRequest } from '../../../core/ops.js';
import { tuningFor, type BidiagTuning } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice, type KernelArg } from '../../runtime/types.js';
import { perMatrixChunks, STEIN_CHUNK_BYTES } from '../common/block-launch.js';
import type { FamilyOptions } from '../common/family-options.js';
import { zeroInfo } from '../common/info-zero.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { deviceDtype, groupOperands, indexArgs, operandArgs, release, type OperandArgs } from '../common/operands.js';
import { elementBytes } from '../common/precision.js';
import { gemmCuda } from '../gemm/index.js';
import { ormqrCuda } from '../ormqr/index.js';
import { steinOnSlices } from '../tridiag/index.js';
import { bidiagPanelSource } from './generate-panel.js';
import { bidiagReduceSource } from './generate-reduce.js';
import { bidiagStoreSource } from './generate-store.js';
import { bidiagVectorsSource } from './generate-vectors.js';
import type { BidiagForce, GesvdBidiagPlan } from './params.js';
import { planGesvdBidiag } from './plan.js';
import { BIDIAG_COMPUTE, bidiagSlice } from './snippets.js';

export type BidiagOptions = FamilyOptions<BidiagForce, BidiagTuning>;

const NO_OPERAND: KernelArg[] = operandArgs({ pointer: 0n, offset: 0, stride: 0, ld: 1 });

/** The part of a plan key the options add (tests and sweeps only). */
const optionsKey = (opts: BidiagOptions): string =>
  (opts.force === undefined ? '' : JSON.stringify(opts.force)) + (opts.tuning === undefined ? '' : `/${JSON.stringify(opts.tuning)}`);

export function gesvdBidiagCuda(dev: GpuDevice, r: GesvdRequest<DeviceArray, DeviceArray>, opts: BidiagOptions = {}): void {
  if (batchCount(r.a) === 0) return;
  const dtype = deviceDtype(r.a);
  const grouping = groupOperands(dev, [r.a, r.s, ...(r.u ? [r.u] : []), ...(r.vt ? [r.vt] : [])]);
  try {
    for (const g of grouping.groups) {
      const [a, s] = g.operands as [OperandArgs, OperandArgs];
      const u = r.u ? g.operands[2] : undefined;
      const vt = r.vt ? g.operands[r.u ? 3 : 2] : undefined;
      if (Math.min(a.rows, a.cols) === 0) { zeroInfo(dev, r.info, g.index, g.count); continue; }
      const p = plannedOnce(dev, `gesvd-bidiag/${dtype}/${a.rows}x${a.cols}/${u !== undefined}/${vt !== undefined}/${a.kind}/${optionsKey(opts)}`, () =>
        planGesvdBidiag({ dtype, m: a.rows, n: a.cols, wantU: u !== undefined, wantVt: vt !== undefined, kind: a.kind }, opts.tuning ?? tuningFor(dev.info.arch, 'bidiag'), { force: opts.force }));
      const outputs = [...operandArgs(s), ...(u ? operandArgs(u) : NO_OPERAND), ...(vt ? operandArgs(vt) : NO_OPERAND)];
      bidiagGroup(dev, p, a, outputs, r.info, g.index, g.count, opts.force?.chunkBytes);
    }
  } finally {
    release(dev, grouping);
  }
}

/** One group, chunk by chunk: a chunk's workspace holds its `blocks` tridiag slices, then its `blocks` bidiag slices. */
function bidiagGroup(dev: GpuDevice, p: GesvdBidiagPlan, a: OperandArgs, outputs: readonly KernelArg[], info: DeviceArray, index: DeviceArray | null, count: number, chunkBytes?: number): void {
  const reduce = kernelFor(dev, 'gesvd-bidiag-reduce', p.reduce, () => bidiagReduceSource(p.reduce));
  const vectors = kernelFor(dev, 'gesvd-bidiag-vectors', p.vectors, () => bidiagVectorsSource(p.vectors));
  const store = kernelFor(dev, 'gesvd-bidiag-store', p.store, () => bidiagStoreSource(p.store));
  const blocked = p.blocked === undefined ? undefined : {
    params: p.blocked,
    panel: kernelFor(dev, 'gesvd-bidiag-panel', p.blocked.panel, () => bidiagPanelSource(p.blocked!.panel)),
    tail: kernelFor(dev, 'gesvd-bidiag-reduce', p.blocked.tail, () => bidiagReduceSource(p.blocked!.tail)),
  };
  const { k, rows, left, right } = p.vectors;
  const b = bidiagSlice(rows, k);
  const what = "the bidiagonalization gesvd's slices (G and its reflectors, the Golub-Kahan vectors and factors)";
  const work = p.slice + p.bslice;
  perMatrixChunks(dev, { work, workDtype: BIDIAG_COMPUTE, what, maxChunk: 65535, maxBytes: chunkBytes, fallbackBytes: STEIN_CHUNK_BYTES }, count, (ws, first, blocks) => {
    if (ws === undefined) throw new Error('the bidiagonalization gesvd needs its slices');
    const slices = ws.ptr, bstart = blocks * p.slice, bslices = ws.ptr + BigInt(bstart * elementBytes(BIDIAG_COMPUTE));
    const ptrs = [arg.ptr(slices), arg.ptr(bslices), arg.i64(first)];
    // Views of the chunk's bidiag slices (float64 elements of ws).
    const part = (r: number, c: number, ld: number, offset: number) =>
      ({ kind: 'strided', data: ws, rows: r, cols: c, count: blocks, ld, stride: p.bslice, offset: bstart + offset, order: 'col' } as const);
    const reduceArgs = [...operandArgs(a), ...ptrs, arg.i32(count)];
    reduce.launch({ grid: [blocks, 1, 1], block: [p.reduce.threads, 1, 1], sharedBytes: 0 }, reduceArgs);
    if (blocked !== undefined) {
      // dgebrd: a panel of nb columns (dlabrd: V, U and X, Y), then W(p1:M, p1:K) -= V Y^T + X U by two GEMMs.
      const { nb } = blocked.params.panel;
      for (let p0 = 0; p0 < blocked.params.tail.from!; p0 += nb) {
        const p1 = p0 + nb;
        blocked.panel.launch({ grid: [blocks, 1, 1], block: [blocked.params.panel.threads, 1, 1], sharedBytes: 0 }, [...ptrs, arg.i32(count), arg.i32(p0)]);
        const c = part(rows - p1, k - p1, rows, b.w + p1 + p1 * rows);
        gemmCuda(dev, { transA: 'N', transB: 'T', alpha: -1, a: part(rows - p1, nb, rows, b.w + p1 + p0 * rows), b: part(k - p1, nb, k, b.vb + p1), beta: 1, c });
        gemmCuda(dev, { transA: 'N', transB: 'N', alpha: -1, a: part(rows - p1, nb, rows, b.ub + p1), b: part(nb, k - p1, rows, b.w + p0 + p1 * rows), beta: 1, c });
      }
      blocked.tail.launch({ grid: [blocks, 1, 1], block: [blocked.params.tail.threads, 1, 1], sharedBytes: 0 }, reduceArgs);
    }
    steinOnSlices(dev, p.stein, slices, first, count, blocks);
    vectors.launch({ grid: [blocks, 1, 1], block: [p.vectors.threads, 1, 1], sharedBytes: 0 }, [...ptrs, arg.i32(count)]);
    if (left) ormqrCuda(dev, { side: 'left', trans: 'N', a: part(rows, k, rows, b.w), tau: part(k, 1, k, b.tauq), c: part(rows, k, rows, b.ub) });
    // P_B = G_0 ... G_{K-3} over rows 1 ... K-1 (G_{K-2} is the identity: dlarfg of one element).
    if (right && k >= 3) ormqrCuda(dev, { side: 'left', trans: 'N', a: part(k - 1, k - 2, k, b.pm + 1), tau: part(k - 2, 1, k, b.taup), c: part(k - 1, k, k, b.vb + 1) });
    store.launch({ grid: [blocks, 1, 1], block: [p.store.threads, 1, 1], sharedBytes: 0 }, [...outputs, ...ptrs, arg.ptr(info), ...indexArgs(index, count)]);
  });
}
