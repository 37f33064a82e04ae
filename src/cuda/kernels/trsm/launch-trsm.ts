/**
 * trsmCuda: the triangular launches of launch.ts with trsm's path by inverted diagonal blocks,
 * which runs trtri (whose recursion runs trmmCuda of launch.ts: this file is the one of the family
 * that imports trtri, so no import leads back here). It imports trtri's per-size launcher, not its
 * face: trtri's variable-size launcher, on that face, runs this family's variable-size solves.
 */
import { strided } from '../../../core/batch.js';
import type { TrsmRequest } from '../../../core/ops.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { Workspace } from '../../runtime/workspace.js';
import { cachedKernel } from '../common/kernel-cache.js';
import { operandArgs, stridedArgs } from '../common/operands.js';
import { gemmCuda } from '../gemm/index.js';
import { trtriUnchecked } from '../trtri/launch.js';
import { invertedLeaf, updateRequest } from './blocks.js';
import { BLOCKS_THREADS, trsmCopySource, trsmDiagonalSource } from './generate-blocks.js';
import { triangularCuda, type TrsmGroup, type TrsmOptions } from './launch.js';
import type { TrsmInverted, TrsmPlan } from './params.js';
import { invertedElements } from './plan.js';

/** B := alpha op(A)^-1 B (side left) or alpha B op(A)^-1 (right) for every matrix of the batch. */
export function trsmCuda(dev: GpuDevice, r: TrsmRequest<DeviceArray>, opts: TrsmOptions = {}): void {
  triangularCuda(dev, 'trsm', r, opts, invertedSolve);
}

/**
 * TRSM by inverted diagonal blocks (plan.ts `inverted`; strided A and B): the diagonal blocks into
 * the workspace (generate-blocks.ts) and inverted there by one batched trtri (the trtri family's
 * face, no info: a singular block gives a meaningless solve, as any trsm with a singular A); then
 * the plan's steps in order, each leaf j as X := B_j (a copy into the workspace) and
 * B_j := alpha op(inv A_jj) X (left) or alpha X op(inv A_jj) (right), one GEMM each; the updates
 * are the recursion's GEMMs. Nothing waits: the workspace is reused in stream order.
 */
function invertedSolve(dev: GpuDevice, plan: TrsmPlan, inv: TrsmInverted, r: TrsmRequest<DeviceArray>, g: TrsmGroup): void {
  const { a, b } = g;
  if (a.kind !== 'strided' || b.kind !== 'strided') throw new Error('unreachable: the inverted trsm plans strided batches only');
  const p = plan.leaf;
  const left = p.side === 'left';
  const t = left ? g.m : g.n;
  const nvec = left ? g.n : g.m;
  const { nb, slots } = inv;
  const sizes = invertedElements(t, nvec, g.count, nb);
  const frame = Workspace.of(dev).frame();
  try {
    const w = frame.take(p.dtype, sizes.inverses, `trsm's inverted diagonal blocks (${g.count} x ${slots} of ${nb} x ${nb})`);
    const x = frame.take(p.dtype, sizes.block, `trsm's copy of a block of B (${g.count} x ${Math.min(nb, t)} x ${nvec})`);
    const diagonal = { dtype: p.dtype, uplo: p.uplo, diag: p.diag };
    const kd = cachedKernel(dev, `trsm-diagonal/${p.dtype}/${p.uplo}/${p.diag}`, () => trsmDiagonalSource(diagonal));
    kd.launch({ grid: [gridFor(sizes.inverses), 1, 1], block: [BLOCKS_THREADS, 1, 1] },
      [...operandArgs(g.argsA), arg.ptr(w), arg.i32(g.count), arg.i32(t), arg.i32(nb), arg.i32(slots)]);
    trtriUnchecked(dev, p.dtype, p.uplo, 'nonunit', strided(w, { rows: nb, cols: nb, ld: nb, stride: nb * nb, count: g.count * slots }, 'w'));
    const copy = cachedKernel(dev, `trsm-copy/${p.dtype}`, () => trsmCopySource({ dtype: p.dtype }));
    for (const step of plan.steps) {
      if (step.kind === 'update') {
        gemmCuda(dev, updateRequest('trsm', r, a, b, g.m, g.n, step));
        continue;
      }
      const leaf = invertedLeaf(r, b, w, x, inv, step, g.m, g.n);
      const bj = leaf.block;
      copy.launch({ grid: [gridFor(g.count * bj.rows * bj.cols), 1, 1], block: [BLOCKS_THREADS, 1, 1] },
        [...stridedArgs(bj), arg.ptr(x), arg.i32(g.count), arg.i32(bj.rows), arg.i32(bj.cols)]);
      gemmCuda(dev, leaf.gemm);
    }
  } finally {
    frame.end();
  }
}

/** Blocks of a grid-stride kernel over `elements`: enough to fill the device, at most 65535 x 32. */
function gridFor(elements: number): number {
  return Math.max(1, Math.min(Math.ceil(elements / BLOCKS_THREADS), 65535 * 32));
}
