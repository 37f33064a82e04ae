/**
 * syevCuda and gesvdCuda: batched Jacobi of device batches, one plan and one launch per group of
 * equal-size matrices; `jacobiCovers` tells the registry which requests these kernels take (the
 * rest run on the CPU reference).
 */
import { batchCount, shapeAt, uniformShape, type Batch } from '../../../core/batch.js';
import type { Storage } from '../../../core/storage.js';
import type { GesvdRequest, SyevRequest } from '../../../core/ops.js';
import { rowsOccupancyFor } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice, type Kernel, type KernelArg } from '../../runtime/types.js';
import { launchPerMatrix } from '../common/block-launch.js';
import { zeroInfo } from '../common/info-zero.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { densePacked, deviceDtype, groupOperands, indexArgs, operandArgs, release, sharedLimit } from '../common/operands.js';
import { BLOCK_COMPUTE, gesvdBlockLayout, gesvdBlockSource, syevBlockLayout, syevBlockSource } from './generate-block.js';
import { gesvdWarpSource, syevWarpSource } from './generate-warp.js';
import { GESVD_ROWS_WARPS, gesvdRowsShape, gesvdRowsSource } from './generate-gesvd-rows.js';
import type { JacobiForce } from './params.js';
import { THREAD_BLOCK, syevThreadSharedBytes, syevThreadSource } from './generate-thread.js';
import { ROWS_WARPS, rowsShape, syevRowsSource } from './generate-rows.js';
import { BLOCK_MAX, selectGesvd, selectSyev } from './plan.js';

export interface JacobiOptions {
  readonly force?: JacobiForce;
}

/**
 * Whether every matrix of `a` fits a GPU design: max(rows, cols) <= BLOCK_MAX, both ops and dtypes
 * (host batches are asked too). (Until the block designs computed float32 data in float64 and
 * reorthogonalised V, float32 syev at 256 and float64 gesvd at 512 x 512 failed the orthogonality
 * limit on an H100 and stayed on the CPU: see generate-block.ts.)
 */
export function jacobiCovers(a: Batch<Storage>): boolean {
  const fits = (s: { rows: number; cols: number }): boolean => Math.max(s.rows, s.cols) <= BLOCK_MAX;
  const uniform = uniformShape(a);
  if (uniform !== undefined) return fits(uniform);
  for (let i = 0; i < batchCount(a); i++) if (!fits(shapeAt(a, i))) return false;
  return true;
}

/** Launches a block design over `count` matrices (common/block-launch.ts), its workspace in BLOCK_COMPUTE. */
function launchBlocks(dev: GpuDevice, k: Kernel, threads: number, sharedBytes: number, work: number, count: number,
  head: readonly KernelArg[], tail: readonly KernelArg[]): void {
  launchPerMatrix(dev, k, { threads, sharedBytes, work, workDtype: BLOCK_COMPUTE, what: "the Jacobi block design's global slices" }, count, head, tail);
}

/** The part of a plan key a forced option adds (tests and sweeps only: the hot path has none). */
const forceKey = (opts: JacobiOptions): string => (opts.force === undefined ? '' : JSON.stringify(opts.force));

const NO_OPERAND: KernelArg[] = operandArgs({ pointer: 0n, offset: 0, stride: 0, ld: 1 });

export function syevCuda(dev: GpuDevice, r: SyevRequest<DeviceArray, DeviceArray>, opts: JacobiOptions = {}): void {
  if (batchCount(r.a) === 0) return;
  const dtype = deviceDtype(r.a);
  const grouping = groupOperands(dev, [r.a, r.w]);
  try {
    for (const g of grouping.groups) {
      const [a, w] = g.operands as [typeof g.operands[0], typeof g.operands[0]];
      if (a.rows === 0) { zeroInfo(dev, r.info, g.index, g.count); continue; }
      // A repeated problem gets the same plan object back, so its kernel is found by identity (no serialising per call).
      const denseA = densePacked(a, g.count), denseW = densePacked(w, g.count);
      const choice = plannedOnce(dev, `syev/${dtype}/${a.rows}/${r.uplo}/${r.jobz}/${a.kind}/${denseA ? 'd' : 'e'}${denseW ? 'd' : 'e'}/${forceKey(opts)}`,
        () => selectSyev({ dtype, n: a.rows, uplo: r.uplo, vectors: r.jobz === 'vectors', kind: a.kind, sharedLimit: sharedLimit(dev), denseA, denseW },
          { ...opts, rowsOccupancy: rowsOccupancyFor(dev.info.name) }));
      const args = [...operandArgs(a), ...operandArgs(w), arg.ptr(r.info), ...indexArgs(g.index, g.count)];
      if (choice.design === 'block') {
        const p = choice.params;
        const l = syevBlockLayout(p);
        const k = kernelFor(dev, 'syev-block', p, () => syevBlockSource(p));
        launchBlocks(dev, k, p.threads, l.sharedBytes, l.work, g.count,
          [...operandArgs(a), ...operandArgs(w)], [arg.ptr(r.info), ...indexArgs(g.index, g.count)]);
      } else if (choice.design === 'rows') {
        const p = choice.params;
        const k = kernelFor(dev, 'syev-rows', p, () => syevRowsSource(p));
        k.launch({ grid: [Math.ceil(g.count / rowsShape(p.n).perBlock), 1, 1], block: [32 * ROWS_WARPS, 1, 1] }, args);
      } else if (choice.design === 'thread') {
        const p = choice.params;
        const k = kernelFor(dev, 'syev-thread', p, () => syevThreadSource(p));
        k.launch({ grid: [Math.ceil(g.count / THREAD_BLOCK), 1, 1], block: [THREAD_BLOCK, 1, 1], sharedBytes: syevThreadSharedBytes(p) }, args);
      } else {
        const p = choice.params;
        const k = kernelFor(dev, 'syev-warp', p, () => syevWarpSource(p));
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
      const choice = plannedOnce(dev, `gesvd/${dtype}/${a.rows}x${a.cols}/${u !== undefined}/${vt !== undefined}/${a.kind}/${forceKey(opts)}`,
        () => selectGesvd({ dtype, m: a.rows, n: a.cols, wantU: u !== undefined, wantVt: vt !== undefined, kind: a.kind, sharedLimit: sharedLimit(dev) }, opts));
      const operands = [...operandArgs(a), ...operandArgs(s), ...(u ? operandArgs(u) : NO_OPERAND), ...(vt ? operandArgs(vt) : NO_OPERAND)];
      const tail = [arg.ptr(r.info), ...indexArgs(g.index, g.count)];
      if (choice.design === 'block') {
        const p = choice.params;
        const l = gesvdBlockLayout(p);
        const k = kernelFor(dev, 'gesvd-block', p, () => gesvdBlockSource(p));
        launchBlocks(dev, k, p.threads, l.sharedBytes, l.work, g.count, operands, tail);
      } else if (choice.design === 'rows') {
        const p = choice.params;
        const k = kernelFor(dev, 'gesvd-rows', p, () => gesvdRowsSource(p));
        k.launch({ grid: [Math.ceil(g.count / gesvdRowsShape(p.m, p.n).perBlock), 1, 1], block: [32 * GESVD_ROWS_WARPS, 1, 1] }, [...operands, ...tail]);
      } else {
        const p = choice.params;
        const k = kernelFor(dev, 'gesvd-warp', p, () => gesvdWarpSource(p));
        k.launch({ grid: [Math.ceil(g.count / p.perBlock), 1, 1], block: [p.threads * p.perBlock, 1, 1] }, [...operands, ...tail]);
      }
    }
  } finally {
    release(dev, grouping);
  }
}
