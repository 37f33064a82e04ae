/**
 * getrfCuda: batched LU with partial pivoting of device batches, one plan (plan.ts) per group of
 * equal-size matrices; the blocked design launches a panel and a trailing update per panel.
 */
import { batchCount } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import { MyriadError } from '../../../core/errors.js';
import type { GetrfRequest } from '../../../core/ops.js';
import { tuningFor, type GetrfTuning } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { zeroInfo } from '../common/info-zero.js';
import type { FamilyOptions } from '../common/family-options.js';
import { cachedKernel } from '../common/kernel-cache.js';
import { deviceDtype, groupOperands, indexArgs, operandArgs, release, sharedLimit, type LaunchGroup } from '../common/operands.js';
import { smallGrid } from '../common/warp-slots.js';
import { GETRF_PANEL_THREADS, getrfPanelSharedBytes, getrfPanelSource, getrfUpdateSource, UPDATE_COLUMNS, UPDATE_THREADS } from './generate-panel.js';
import { getrfRegisterSource } from './generate-register.js';
import { getrfSmallLayout, getrfSmallSource } from './generate-small.js';
import type { GetrfForce } from './params.js';
import { planGetrf } from './plan.js';

export type GetrfOptions = FamilyOptions<GetrfForce, GetrfTuning>;

export function getrfCuda(dev: GpuDevice, r: GetrfRequest<DeviceArray, DeviceArray>, opts: GetrfOptions = {}): void {
  if (batchCount(r.a) === 0) return;
  const dtype = deviceDtype(r.a);
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
