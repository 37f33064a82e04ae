/**
 * potrfCuda: batched Cholesky of device batches, one plan (plan.ts) and one launch per group of
 * equal-size matrices; the panel design launches once per panel.
 */
import { batchCount } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import { MyriadError } from '../../../core/errors.js';
import type { Uplo } from '../../../core/enums.js';
import type { PotrfRequest } from '../../../core/ops.js';
import { tuningFor, type PotrfTuning } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { zeroInfo } from '../common/info-zero.js';
import type { FamilyOptions } from '../common/family-options.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { deviceDtype, groupOperands, indexArgs, operandArgs, release, sharedLimit, type LaunchGroup } from '../common/operands.js';
import { smallGrid } from '../common/warp-slots.js';
import { PANEL_MAX_THREADS, potrfPanelSharedBytes, potrfPanelSource } from './generate-panel.js';
import { potrfRegisterSource } from './generate-register.js';
import { potrfSmallSource } from './generate-small.js';
import type { PotrfForce, PotrfPlan } from './params.js';
import { planPotrf } from './plan.js';

export type PotrfOptions = FamilyOptions<PotrfForce, PotrfTuning>;

export function potrfCuda(dev: GpuDevice, r: PotrfRequest<DeviceArray, DeviceArray>, opts: PotrfOptions = {}): void {
  if (batchCount(r.a) === 0) return;
  const dtype = deviceDtype(r.a);
  const grouping = groupOperands(dev, [r.a]);
  try {
    for (const g of grouping.groups) potrfGroup(dev, dtype, r.uplo, g, r.info, opts);
  } finally {
    release(dev, grouping);
  }
}

/** Factors one group of equal-size matrices (also used by posv beyond its fused sizes). */
export function potrfGroup(dev: GpuDevice, dtype: DType, uplo: Uplo, g: LaunchGroup, info: DeviceArray, opts: PotrfOptions = {}): void {
  const a = g.operands[0]!;
  const n = a.rows;
  if (n === 0) {
    zeroInfo(dev, info, g.index, g.count);
    return;
  }
  const args = [...operandArgs(a), arg.ptr(info), ...indexArgs(g.index, g.count)];
  const planNow = (): PotrfPlan =>
    planPotrf({ dtype, uplo, n, kind: a.kind, sharedLimit: sharedLimit(dev) }, opts.tuning ?? tuningFor(dev.info.arch, 'potrf'), { force: opts.force });
  const plan = opts.tuning === undefined && opts.force === undefined ? plannedOnce(dev, `potrf/${dtype}/${uplo}/${n}/${a.kind}`, planNow) : planNow();
  if (plan.variant === 'small') {
    const p = plan.params;
    const k = kernelFor(dev, 'potrf-small', p, () => potrfSmallSource(p));
    k.launch({ grid: [smallGrid({ dtype, n, warps: p.warps, tile: uplo === 'upper', lanes: n }, g.count), 1, 1], block: [p.warps * 32, 1, 1] }, args);
    return;
  }
  if (plan.variant === 'register') {
    const p = plan.params;
    const k = kernelFor(dev, 'potrf-register', p, () => potrfRegisterSource(p));
    k.launch({ grid: [g.count, 1, 1], block: [p.warps * 32, 1, 1] }, args);
    return;
  }
  const p = plan.params;
  if (p.ib === 0) throw new MyriadError('UNSUPPORTED', `n = ${n} is too large for the batched Cholesky panel kernel on ${dev.info.name}`, 'a.rows');
  const k = kernelFor(dev, 'potrf-panel', p, () => potrfPanelSource(p));
  // loop-exclusive (the default): one launch per panel, each sized to its panel; loop-inclusive: one.
  for (let i0 = 0; i0 < n; i0 += p.loop === true ? n : p.ib) {
    const m = n - i0;
    const threads = Math.min(PANEL_MAX_THREADS, Math.ceil(m / 32) * 32);
    k.launch({ grid: [g.count, 1, 1], block: [threads, 1, 1], sharedBytes: potrfPanelSharedBytes(p, m) },
      [...args, arg.i32(n), arg.i32(i0)]);
  }
}
