/**
 * getrfCuda: batched LU with partial pivoting of device batches, one plan (plan.ts) per group of
 * equal-size matrices; the blocked design launches a panel and a trailing update per panel.
 */
import { batchCount, type Batch, type StridedBatch } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import { MyriadError } from '../../../core/errors.js';
import type { GetrfRequest } from '../../../core/ops.js';
import { tuningFor, type GetrfTuning } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice, type KernelArg } from '../../runtime/types.js';
import { zeroInfo } from '../common/info-zero.js';
import { recursionForced, type FamilyOptions } from '../common/family-options.js';
import { cachedKernel, kernelFor } from '../common/kernel-cache.js';
import { deviceDtype, groupOperands, indexArgs, operandArgs, release, sharedLimit, type LaunchGroup } from '../common/operands.js';
import { block } from '../common/sub-blocks.js';
import { smallGrid } from '../common/warp-slots.js';
import { gemmRouted } from '../gemm/index.js';
import { trsmCuda } from '../trsm/index.js';
import { GETRF_PANEL_THREADS, getrfPanelSharedBytes, getrfPanelSource, getrfUpdateSource, UPDATE_COLUMNS, UPDATE_THREADS } from './generate-panel.js';
import { getrfLaswpSource, LASWP_THREADS } from './generate-laswp.js';
import { getrfRegisterSource } from './generate-register.js';
import { getrfSmallLayout, getrfSmallSource } from './generate-small.js';
import { getrfTallSource } from './generate-tall.js';
import type { GetrfForce, GetrfTallParams } from './params.js';
import { getrfRecursionSteps, getrfRecursive, planGetrf, tallShape, type TallShape } from './plan.js';

export type GetrfOptions = FamilyOptions<GetrfForce, GetrfTuning>;

/**
 * Whether getrfCuda takes a batch to its large path (the recursion over the whole GPU: strided,
 * large or few matrices, from the tuning table); the solves ask it too, to factor through it.
 */
export function getrfLargePath(dev: GpuDevice, a: Batch<DeviceArray>, opts: GetrfOptions = {}): boolean {
  if (a.kind !== 'strided' || a.count === 0) return false;
  const tuning = opts.tuning ?? tuningFor(dev.info.arch, 'getrf');
  return getrfRecursive(deviceDtype(a), a.rows, a.cols, a.count, dev.info.smCount, tuning.recursion, recursionForced(opts.force));
}

export function getrfCuda(dev: GpuDevice, r: GetrfRequest<DeviceArray, DeviceArray>, opts: GetrfOptions = {}): void {
  const count = batchCount(r.a);
  if (count === 0) return;
  const dtype = deviceDtype(r.a);
  if (r.a.kind === 'strided' && getrfLargePath(dev, r.a, opts)) {
    getrfRecursion(dev, dtype, r.a, r.ipiv, r.pivotStride, r.info, count, opts.tuning ?? tuningFor(dev.info.arch, 'getrf'), opts.force?.tallWidest);
    return;
  }
  const grouping = groupOperands(dev, [r.a]);
  try {
    for (const g of grouping.groups) getrfGroup(dev, dtype, g, r.ipiv, r.pivotStride, r.info, opts);
  } finally {
    release(dev, grouping);
  }
}

export function getrfGroup(
  dev: GpuDevice, dtype: DType, g: LaunchGroup, ipiv: DeviceArray, pivotStride: number, info: DeviceArray, opts: GetrfOptions = {},
): void {
  const a = g.operands[0]!;
  const { rows, cols } = a;
  if (rows === 0 || cols === 0) {
    zeroInfo(dev, info, g.index, g.count);
    return;
  }
  const tail = [...indexArgs(g.index, g.count)];
  const tuning = opts.tuning ?? tuningFor(dev.info.arch, 'getrf');
  const plan = planGetrf({ dtype, rows, cols, kind: a.kind, sharedLimit: sharedLimit(dev) }, tuning, { force: opts.force });
  if (plan.variant === 'small') {
    const p = plan.params;
    const k = cachedKernel(dev, `getrf-small/${JSON.stringify(p)}`, () => getrfSmallSource(p));
    k.launch({ grid: [smallGrid(getrfSmallLayout(dtype, rows, cols, p.warps), g.count), 1, 1], block: [p.warps * 32, 1, 1] },
      [...operandArgs(a), arg.ptr(ipiv), arg.i32(pivotStride), arg.ptr(info), ...tail]);
    return;
  }
  if (plan.variant === 'register') {
    const p = plan.params;
    const k = cachedKernel(dev, `getrf-register/${JSON.stringify(p)}`, () => getrfRegisterSource(p));
    k.launch({ grid: [g.count, 1, 1], block: [p.warps * 32, 1, 1] },
      [...operandArgs(a), arg.ptr(ipiv), arg.i32(pivotStride), arg.ptr(info), ...tail]);
    return;
  }
  const p = plan.params;
  const ib = p.ib;
  if (ib === 0) throw new MyriadError('UNSUPPORTED', `${rows} rows are too many for the batched LU panel kernel on ${dev.info.name}`, 'a.rows');
  const panel = cachedKernel(dev, `getrf-panel/${JSON.stringify(p)}`, () => getrfPanelSource(p));
  const update = cachedKernel(dev, `getrf-update/${JSON.stringify(p)}`, () => getrfUpdateSource(p));
  const steps = Math.min(rows, cols);
  for (let i0 = 0; i0 < steps; i0 += ib) {
    const m = rows - i0;
    const w = Math.min(ib, steps - i0);
    panel.launch({ grid: [g.count, 1, 1], block: [Math.min(GETRF_PANEL_THREADS, Math.ceil(m / 32) * 32), 1, 1], sharedBytes: getrfPanelSharedBytes(p, m) },
      [...operandArgs(a), arg.ptr(ipiv), arg.i32(pivotStride), arg.ptr(info), ...tail, arg.i32(rows), arg.i32(cols), arg.i32(i0)]);
    const tiles = Math.ceil(i0 / UPDATE_COLUMNS) + Math.ceil((cols - i0 - w) / UPDATE_COLUMNS);
    if (tiles > 0) {
      update.launch({ grid: [g.count, tiles, 1], block: [UPDATE_THREADS, 1, 1] },
        [...operandArgs(a), arg.ptr(ipiv), arg.i32(pivotStride), ...tail, arg.i32(rows), arg.i32(cols), arg.i32(i0), arg.i32(w)]);
    }
  }
}

/**
 * The recursion of plan.ts over a strided batch: leaves by the tall panel kernel (pivots and info
 * on the device: info zeroed here, then the first zero pivot of each matrix kept by the leaves,
 * which run in column order), row interchanges by the laswp kernel, U12 := L11^-1 A12 by the trsm
 * family and A22 -= A21 U12 by the gemm family, on sub-blocks of every matrix. A singular matrix
 * goes on being factored as LAPACK's dgetrf does (its zero pivot neither swaps nor scales).
 */
function getrfRecursion(
  dev: GpuDevice, dtype: DType, a: StridedBatch<DeviceArray>, ipiv: DeviceArray, pivotStride: number, info: DeviceArray,
  count: number, tuning: GetrfTuning, widest: number | undefined,
): void {
  const m = a.rows;
  zeroInfo(dev, info, null, count);
  const shape = (rows: number): TallShape => tallShape(dtype, rows, tuning.recursion, widest ?? tuning.recursion.widest[dtype]);
  const laswp = kernelFor(dev, 'getrf-laswp', { dtype, kind: 'strided' }, () => getrfLaswpSource({ dtype, kind: 'strided' }));
  const sub = (r0: number, c0: number, rows: number, cols: number): StridedBatch<DeviceArray> =>
    block(a, r0, c0, rows, cols) as StridedBatch<DeviceArray>;
  const args = (b: StridedBatch<DeviceArray>): KernelArg[] => operandArgs({ pointer: b.data.ptr, offset: b.offset, stride: b.stride, ld: b.ld });
  for (const step of getrfRecursionSteps(m, a.cols, (rows) => shape(rows).nb)) {
    switch (step.kind) {
      case 'panel': {
        const s = shape(m - step.off);
        const p: GetrfTallParams = { dtype, kind: 'strided', nb: s.nb, threads: s.threads, rowsPerThread: s.rowsPerThread };
        const k = kernelFor(dev, 'getrf-tall', p, () => getrfTallSource(p));
        k.launch({ grid: [count, 1, 1], block: [s.threads, 1, 1] }, [
          ...args(sub(step.off, step.off, m - step.off, step.width)), arg.ptr(ipiv), arg.i32(pivotStride), arg.ptr(info), ...indexArgs(null, count),
          arg.i32(m - step.off), arg.i32(step.width), arg.i32(step.off)]);
        break;
      }
      case 'swap':
        laswp.launch({ grid: [count, Math.ceil(step.cols / LASWP_THREADS), 1], block: [LASWP_THREADS, 1, 1] }, [
          ...args(sub(0, step.col, m, step.cols)), arg.ptr(ipiv), arg.i32(pivotStride), ...indexArgs(null, count),
          arg.i32(step.from), arg.i32(step.to), arg.i32(step.cols)]);
        break;
      case 'solve':
        trsmCuda(dev, { side: 'left', uplo: 'lower', transA: 'N', diag: 'unit', alpha: 1,
          a: sub(step.off, step.off, step.top, step.top), b: sub(step.off, step.col, step.top, step.cols) });
        break;
      case 'update': {
        const below = m - step.off - step.top;
        if (below > 0) {
          gemmRouted(dev, { transA: 'N', transB: 'N', alpha: -1, beta: 1,
            a: sub(step.off + step.top, step.off, below, step.top), b: sub(step.off, step.col, step.top, step.cols),
            c: sub(step.off + step.top, step.col, below, step.cols) });
        }
        break;
      }
    }
  }
}
