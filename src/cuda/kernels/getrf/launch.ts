/**
 * getrfCuda: batched LU with partial pivoting of device batches. Both sizes <= 32: the warp
 * register kernel (small.ts); both <= getrfTuning.registerMax: the block register kernel
 * (register.ts); otherwise the blocked right-looking fallback (panel.ts).
 */
import { batchCount } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import { MyriadError } from '../../../core/errors.js';
import type { GetrfRequest } from '../../../core/ops.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import {
  chooseLuPanelWidth, GETRF_PANEL_THREADS, getrfPanelSharedBytes, getrfPanelSource, getrfUpdateSource,
  UPDATE_COLUMNS, UPDATE_THREADS, type GetrfPanelParams,
} from './generate-panel.js';
import { getrfRegisterSource, type GetrfRegisterParams } from './generate-register.js';
import type { RegisterConfig } from '../potrf/launch.js';
import { GETRF_SMALL_MAX, getrfSmallLayout, getrfSmallSource, type GetrfSmallParams } from './generate-small.js';
import { zeroInfo } from '../common/info-zero.js';
import { cachedKernel } from '../common/kernel-cache.js';
import { deviceDtype, groupOperands, indexArgs, type LaunchGroup, operandArgs, release } from '../common/operands.js';
import { SMALL_WARPS, smallGrid } from '../common/warp-slots.js';
import { REGISTER_DESIGN_MAX } from '../common/register-tile.js';

export type GetrfVariant = 'small' | 'register' | 'blocked';

/**
 * Variant selection data: the register design serves max(rows, cols) in (32, registerMax]
 * (f64 and f32 alike: RB <= 4 row registers). `force` picks a
 * variant for tests and benchmarks (null: by size); a forced variant must accept the size.
 */
export const getrfTuning: { registerMax: Record<DType, number>; force: GetrfVariant | null; register: RegisterConfig | null } = {
  registerMax: { float64: REGISTER_DESIGN_MAX, float32: REGISTER_DESIGN_MAX },
  force: null,
  register: null,
};

/**
 * The register design's shape for max(rows, cols) in 33..128, as potrfRegisterConfig: up to 64,
 * 4 warps, 8-column panels and a register cap for 4 (f64) or 6 (f32) blocks per SM; beyond, 16
 * warps and 4-column panels (the whole square matrix in registers leaves 1 or 2 blocks per SM).
 * The f32 65..128 shape spills 12 bytes under its cap of 64 registers, yet measured fastest of
 * those tried (H100, 2026-11-25).
 */
export function getrfRegisterConfig(dtype: DType, rows: number, cols: number): RegisterConfig {
  const forced = getrfTuning.register;
  if (forced !== null) return forced;
  if (Math.max(rows, cols) <= 64) return dtype === 'float64' ? { warps: 4, nb: 8, minBlocks: 4 } : { warps: 4, nb: 8, minBlocks: 6 };
  return dtype === 'float64' ? { warps: 16, nb: 4, minBlocks: 1 } : { warps: 16, nb: 4, minBlocks: 2 };
}

/** The variant for one group's size, from getrfTuning. */
export function selectGetrf(dtype: DType, rows: number, cols: number): GetrfVariant {
  const big = Math.max(rows, cols);
  const forced = getrfTuning.force;
  if (forced !== null) {
    const fits = forced === 'small' ? big <= GETRF_SMALL_MAX : forced === 'register' ? big <= REGISTER_DESIGN_MAX : true;
    if (!fits) throw new MyriadError('UNSUPPORTED', `getrf variant '${forced}' does not accept ${rows} x ${cols}`, 'a');
    return forced;
  }
  if (big <= GETRF_SMALL_MAX) return 'small';
  if (big <= Math.min(getrfTuning.registerMax[dtype], REGISTER_DESIGN_MAX)) return 'register';
  return 'blocked';
}

/**
 * The blocked fallback's widest panel: the trailing update reads and writes the trailing matrix
 * once per panel, so wider panels cut its memory traffic. H100, 2026-11-25, ~0.5 GB batches: f32
 * 32 vs 16 ran 1.13x (n = 256) and 1.31x (512) faster; f64 0.95x and 1.01x, so f64 keeps 16.
 */
export const getrfPanelTuning: { widest: Record<DType, number> } = { widest: { float64: 16, float32: 32 } };

export function getrfCuda(dev: GpuDevice, r: GetrfRequest<DeviceArray, DeviceArray>): void {
  if (batchCount(r.a) === 0) return;
  const dtype = deviceDtype(r.a);
  const grouping = groupOperands(dev, [r.a]);
  try {
    for (const g of grouping.groups) getrfGroup(dev, dtype, g, r.ipiv, r.pivotStride, r.info);
  } finally {
    release(dev, grouping);
  }
}

export function getrfGroup(
  dev: GpuDevice, dtype: DType, g: LaunchGroup, ipiv: DeviceArray, pivotStride: number, info: DeviceArray,
): void {
  const a = g.operands[0]!;
  const { rows, cols } = a;
  if (rows === 0 || cols === 0) {
    zeroInfo(dev, info, g.index, g.count);
    return;
  }
  const tail = [...indexArgs(g.index, g.count)];
  const variant = selectGetrf(dtype, rows, cols);
  if (variant === 'small') {
    const p: GetrfSmallParams = { dtype, rows, cols, kind: a.kind, warps: SMALL_WARPS };
    const k = cachedKernel(dev, `getrf-small/${JSON.stringify(p)}`, () => getrfSmallSource(p));
    k.launch({ grid: [smallGrid(getrfSmallLayout(dtype, rows, cols, SMALL_WARPS), g.count), 1, 1], block: [SMALL_WARPS * 32, 1, 1] },
      [...operandArgs(a), arg.ptr(ipiv), arg.i32(pivotStride), arg.ptr(info), ...tail]);
    return;
  }
  if (variant === 'register') {
    const c = getrfRegisterConfig(dtype, rows, cols);
    const p: GetrfRegisterParams = { dtype, rows, cols, kind: a.kind, warps: c.warps, nb: c.nb, minBlocks: c.minBlocks };
    const k = cachedKernel(dev, `getrf-register/${JSON.stringify(p)}`, () => getrfRegisterSource(p));
    k.launch({ grid: [g.count, 1, 1], block: [p.warps * 32, 1, 1] },
      [...operandArgs(a), arg.ptr(ipiv), arg.i32(pivotStride), arg.ptr(info), ...tail]);
    return;
  }
  const ib = chooseLuPanelWidth(dtype, rows, dev.info.sharedPerBlockOptin - 1024, getrfPanelTuning.widest[dtype]);
  if (ib === 0) throw new MyriadError('UNSUPPORTED', `${rows} rows are too many for the batched LU panel kernel on ${dev.info.name}`, 'a.rows');
  const p: GetrfPanelParams = { dtype, kind: a.kind, ib };
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
