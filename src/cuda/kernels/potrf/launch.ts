/**
 * potrfCuda: batched Cholesky of device batches. n <= 32: the warp register kernel (small.ts), one
 * launch per group; n <= potrfTuning.registerMax: the block register kernel (register.ts), one
 * launch; larger n: the left-looking fused panel kernel (panel.ts), one launch per panel.
 */
import { batchCount } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import { MyriadError } from '../../../core/errors.js';
import type { Uplo } from '../../../core/enums.js';
import type { PotrfRequest } from '../../../core/ops.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { choosePanelWidth, PANEL_MAX_THREADS, potrfPanelSharedBytes, potrfPanelSource, type PotrfPanelParams } from './generate-panel.js';
import { potrfRegisterSource, type PotrfRegisterParams } from './generate-register.js';
import { potrfSmallSource, type PotrfSmallParams } from './generate-small.js';
import { zeroInfo } from '../common/info-zero.js';
import { cachedKernel } from '../common/kernel-cache.js';
import { deviceDtype, groupOperands, indexArgs, type LaunchGroup, operandArgs, release } from '../common/operands.js';
import { REGISTER_DESIGN_MAX } from '../common/register-tile.js';
import { SMALL_MAX_N, smallGrid, smallWarps } from '../common/warp-slots.js';

export type PotrfVariant = 'small' | 'register' | 'panel';

/** Shape of a register-design launch: warps (column groups), panel width, blocks per SM asked. */
export interface RegisterConfig {
  readonly warps: number;
  readonly nb: number;
  readonly minBlocks: number;
}

/**
 * Variant selection data: the register design serves 32 < n <= registerMax: f32 to 128; f64 to
 * 96, since at 128 the panel kernel measured faster (H100, 2026-11-25: 0.87-0.99 ms against
 * 1.04-1.36 ms for the register shapes tried).
 * `force` picks a variant for tests and benchmarks (null: by size); it must accept the size.
 * `register`: a register-design shape for every n (null: potrfRegisterConfig), for sweeps.
 */
export const potrfTuning: { registerMax: Record<DType, number>; force: PotrfVariant | null; register: RegisterConfig | null } = {
  registerMax: { float64: 96, float32: REGISTER_DESIGN_MAX },
  force: null,
  register: null,
};

/**
 * The register design's shape for n (33..128). These sizes are latency-bound (one serial chain
 * of n pivots per matrix), so the shapes favour matrices in flight per SM (few warps per matrix,
 * a register cap that fits several blocks, checked spill-free with ptxas) and panels of 8 columns
 * per barrier.
 */
export function potrfRegisterConfig(dtype: DType, n: number): RegisterConfig {
  const forced = potrfTuning.register;
  if (forced !== null) return forced;
  if (n <= 64) return dtype === 'float64' ? { warps: 4, nb: 8, minBlocks: 5 } : { warps: 4, nb: 8, minBlocks: 6 };
  return { warps: 4, nb: 8, minBlocks: 2 };
}

/** The variant for one group's n, from potrfTuning. */
export function selectPotrf(dtype: DType, n: number): PotrfVariant {
  const forced = potrfTuning.force;
  if (forced !== null) {
    const fits = forced === 'small' ? n <= SMALL_MAX_N : forced === 'register' ? n <= REGISTER_DESIGN_MAX : true;
    if (!fits) throw new MyriadError('UNSUPPORTED', `potrf variant '${forced}' does not accept n = ${n}`, 'a');
    return forced;
  }
  if (n <= SMALL_MAX_N) return 'small';
  if (n <= Math.min(potrfTuning.registerMax[dtype], REGISTER_DESIGN_MAX)) return 'register';
  return 'panel';
}

/** Left-part columns staged per step of the panel kernel. */
export const PANEL_KB = 16;
/**
 * Tuning of the panel design: the widest panel tried. The paper picks 8 on a P100; on an H100
 * (2026-11-25, f64, ~0.5 GB batches) 16 measured faster at every n from 64 to 512 (1.08-1.29x),
 * so 16 is the default; the benchmark switches it to compare. Not a user option.
 */
export const potrfPanelTuning: { widest: number; loop: boolean } = { widest: 16, loop: false };
// loop: the loop-inclusive variant (one launch runs every panel) against loop-exclusive
// (one launch per panel, each with shared memory sized to its panel). H100, 2026-11-25, ~0.5 GB:
// inclusive was slower in f64 (n = 128, 256, 512: 1.17x, 1.29x, 1.28x the time) and mixed in f32
// (1.00x, 0.94x, 0.88x), so exclusive stays the default.

export function potrfCuda(dev: GpuDevice, r: PotrfRequest<DeviceArray, DeviceArray>): void {
  if (batchCount(r.a) === 0) return;
  const dtype = deviceDtype(r.a);
  const grouping = groupOperands(dev, [r.a]);
  try {
    for (const g of grouping.groups) potrfGroup(dev, dtype, r.uplo, g, r.info);
  } finally {
    release(dev, grouping);
  }
}

/** Factors one group of equal-size matrices (also used by posv for n > 32). */
export function potrfGroup(dev: GpuDevice, dtype: DType, uplo: Uplo, g: LaunchGroup, info: DeviceArray): void {
  const a = g.operands[0]!;
  const n = a.rows;
  if (n === 0) {
    zeroInfo(dev, info, g.index, g.count);
    return;
  }
  const args = [...operandArgs(a), arg.ptr(info), ...indexArgs(g.index, g.count)];
  const variant = selectPotrf(dtype, n);
  if (variant === 'small') {
    const p: PotrfSmallParams = { dtype, n, uplo, kind: a.kind, warps: smallWarps(n) };
    const k = cachedKernel(dev, `potrf-small/${JSON.stringify(p)}`, () => potrfSmallSource(p));
    k.launch({ grid: [smallGrid({ dtype, n, warps: p.warps, tile: uplo === 'upper', lanes: n }, g.count), 1, 1], block: [p.warps * 32, 1, 1] }, args);
    return;
  }
  if (variant === 'register') {
    const c = potrfRegisterConfig(dtype, n);
    const p: PotrfRegisterParams = { dtype, n, uplo, kind: a.kind, warps: c.warps, nb: c.nb, minBlocks: c.minBlocks };
    const k = cachedKernel(dev, `potrf-register/${JSON.stringify(p)}`, () => potrfRegisterSource(p));
    k.launch({ grid: [g.count, 1, 1], block: [p.warps * 32, 1, 1] }, args);
    return;
  }
  const limit = dev.info.sharedPerBlockOptin - 1024;
  // f32 at n >= 512: 8-column panels ran 1.23x faster than 16 (H100, 2026-11-25; f64 0.79x).
  const widest = dtype === 'float32' && n >= 512 ? Math.min(8, potrfPanelTuning.widest) : potrfPanelTuning.widest;
  const ib = choosePanelWidth(dtype, n, PANEL_KB, limit, widest);
  if (ib === 0) throw new MyriadError('UNSUPPORTED', `n = ${n} is too large for the batched Cholesky panel kernel on ${dev.info.name}`, 'a.rows');
  const loop = potrfPanelTuning.loop;
  const p: PotrfPanelParams = { dtype, uplo, kind: a.kind, ib, kb: PANEL_KB, loop };
  const k = cachedKernel(dev, `potrf-panel/${JSON.stringify(p)}`, () => potrfPanelSource(p));
  // loop-exclusive (default): one launch per panel, each sized to its panel; loop-inclusive: one.
  for (let i0 = 0; i0 < n; i0 += loop ? n : ib) {
    const m = n - i0;
    const threads = Math.min(PANEL_MAX_THREADS, Math.ceil(m / 32) * 32);
    k.launch({ grid: [g.count, 1, 1], block: [threads, 1, 1], sharedBytes: potrfPanelSharedBytes(p, m) },
      [...args, arg.i32(n), arg.i32(i0)]);
  }
}
