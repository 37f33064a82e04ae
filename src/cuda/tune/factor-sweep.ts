/**
 * The factorisations' tuning sweep: for each (precision, size) case, the register design's shapes
 * and the panel designs' widths, each forced through the family's plan (`force`) and timed on the
 * same data; the fastest point per case becomes a row of the architecture's table
 * (model/tuning/factor-<arch>.ts). The grid and the table are pure (dry-run and unit-testable);
 * only `timeFactorPoint` needs a GPU.
 */
import { strided } from '../../core/batch.js';
import { allocate, DTYPE_BYTES, type DType } from '../../core/dtype.js';
import { getrfCuda, type GetrfForce } from '../kernels/getrf/index.js';
import { potrfCuda, type PotrfForce } from '../kernels/potrf/index.js';
import { REGISTER_DESIGN_MAX } from '../kernels/common/register-tile.js';
import type { GetrfTuning, PanelBand, PotrfTuning, RegisterBand, RegisterShape } from '../model/tuning/index.js';
import type { DeviceArray, GpuDevice } from '../runtime/types.js';
import { timeMs } from './measure.js';

export type FactorFamily = 'potrf' | 'getrf';

export interface FactorCase {
  readonly family: FactorFamily;
  readonly dtype: DType;
  readonly n: number;
}

/** One forced configuration ('panel': potrf's panel design, getrf's blocked one) and its label. */
export interface FactorPoint {
  readonly label: string;
  readonly design: 'register' | 'panel';
  readonly register?: RegisterShape;
  readonly panelWidest?: number;
}

export interface FactorRow extends FactorCase, FactorPoint {
  readonly ms: number;
}

/** What the family's plan is told for a point. */
export function potrfForce(p: FactorPoint): PotrfForce {
  return { variant: p.design, register: p.register, panelWidest: p.panelWidest };
}
export function getrfForce(p: FactorPoint): GetrfForce {
  return { variant: p.design === 'panel' ? 'blocked' : 'register', register: p.register, panelWidest: p.panelWidest };
}

const REGISTER_SIZES = [40, 48, 64, 80, 96, 112, 128];
const PANEL_SIZES = [128, 192, 256, 384, 512];

export function factorCases(family: FactorFamily, dtypes: readonly DType[] = ['float64', 'float32']): FactorCase[] {
  return dtypes.flatMap((dtype) => [...new Set([...REGISTER_SIZES, ...PANEL_SIZES])].map((n) => ({ family, dtype, n })));
}

/** The points tried for one case: register shapes up to REGISTER_DESIGN_MAX, panel widths for every n. */
export function factorGrid(c: FactorCase): FactorPoint[] {
  const points: FactorPoint[] = [];
  if (c.n <= REGISTER_DESIGN_MAX) {
    for (const warps of [4, 8, 16]) for (const nb of [4, 8]) for (const minBlocks of [1, 2, 3, 4, 5, 6]) {
      if (warps * 32 * minBlocks > 2048) continue; // more threads than an SM holds
      points.push({ label: `register w${warps} nb${nb} b${minBlocks}`, design: 'register', register: { warps, nb, minBlocks } });
    }
  }
  for (const widest of [8, 16, 32]) points.push({ label: `panel ib${widest}`, design: 'panel', panelWidest: widest });
  return points;
}

/** Matrices per timing: about 0.5 GB, as the measurements in the tables. */
const factorBatchCount = (c: FactorCase): number => Math.max(64, Math.floor(0.5e9 / (c.n * c.n * DTYPE_BYTES[c.dtype])));

/** One case's device data: diagonally dominant symmetric matrices, kept pristine for every run. */
export interface FactorData {
  readonly count: number;
  readonly pristine: DeviceArray;
  readonly work: DeviceArray;
  readonly info: DeviceArray;
  readonly ipiv: DeviceArray;
  dispose(): void;
}

export function factorData(dev: GpuDevice, c: FactorCase): FactorData {
  const count = factorBatchCount(c);
  const n = c.n;
  const host = allocate(c.dtype, count * n * n);
  for (let i = 0; i < n * n; i++) host[i] = Math.random() - 0.5;
  for (let j = 0; j < n; j++) for (let i = 0; i < j; i++) host[j + i * n] = host[i + j * n]!; // symmetric
  for (let j = 0; j < n; j++) host[j + j * n] = n;
  for (let m = 1; m < count; m++) host.copyWithin(m * n * n, 0, n * n);
  const arrays = { pristine: dev.upload(host), work: dev.alloc(c.dtype, host.length), info: dev.alloc('int32', count), ipiv: dev.alloc('int32', count * n) };
  return { count, ...arrays, dispose: () => { for (const d of Object.values(arrays)) d.dispose(); } };
}

/** Times one point on the case's data (restored before every run). */
export function timeFactorPoint(dev: GpuDevice, c: FactorCase, p: FactorPoint, d: FactorData, repeats = 7): number {
  const n = c.n;
  const a = strided(d.work, { rows: n, count: d.count });
  const run = c.family === 'potrf'
    ? (): void => potrfCuda(dev, { uplo: 'lower', a, info: d.info }, { force: potrfForce(p) })
    : (): void => getrfCuda(dev, { a, ipiv: d.ipiv, pivotStride: n, info: d.info }, { force: getrfForce(p) });
  return timeMs(dev, run, repeats, () => dev.copy(d.pristine, 0, d.work, 0, d.count * n * n));
}

/** The fastest row of every case. */
export function factorWinners(rows: readonly FactorRow[]): FactorRow[] {
  const best = new Map<string, FactorRow>();
  for (const r of rows) {
    const key = `${r.family}:${r.dtype}:${r.n}`;
    const b = best.get(key);
    if (Number.isFinite(r.ms) && (b === undefined || r.ms < b.ms)) best.set(key, r);
  }
  return [...best.values()].sort((x, y) => x.dtype.localeCompare(y.dtype) || x.n - y.n);
}

/** Consecutive sizes with the same shape merged into bands; the last band reaches Infinity. */
function bands<T>(sized: readonly { n: number; value: T }[], same: (a: T, b: T) => boolean): { maxN: number; value: T }[] {
  const out: { maxN: number; value: T }[] = [];
  for (const s of sized) {
    const last = out[out.length - 1];
    if (last !== undefined && same(last.value, s.value)) last.maxN = s.n;
    else out.push({ maxN: s.n, value: s.value });
  }
  if (out.length > 0) out[out.length - 1]!.maxN = Infinity;
  return out;
}

/**
 * The table entries a sweep's rows imply, as model/tuning's types: the register design serves up
 * to the largest n where it won, with the winning shapes as bands; the panel design's width by n
 * is the fastest panel point of each case (it serves every n beyond registerMax).
 */
export function factorTable(family: FactorFamily, rows: readonly FactorRow[]): Partial<PotrfTuning> | Partial<GetrfTuning> {
  const overall = factorWinners(rows);
  const panels = factorWinners(rows.filter((r) => r.design === 'panel'));
  const of = (dtype: DType, from = overall): FactorRow[] => from.filter((w) => w.dtype === dtype);
  const registerMax = (dtype: DType): number => Math.max(32, ...of(dtype).filter((r) => r.design === 'register').map((r) => r.n));
  const registerShapes = (dtype: DType): RegisterBand[] => bands(
    of(dtype).filter((r) => r.register !== undefined).map((r) => ({ n: r.n, value: r.register! })),
    (a, b) => a.warps === b.warps && a.nb === b.nb && a.minBlocks === b.minBlocks,
  ).map((b) => ({ maxN: b.maxN, shape: b.value }));
  const widths = (dtype: DType): PanelBand[] => bands(
    of(dtype, panels).map((r) => ({ n: r.n, value: r.panelWidest! })), (a, b) => a === b,
  ).map((b) => ({ maxN: b.maxN, widest: b.value }));
  const common = {
    registerMax: { float64: registerMax('float64'), float32: registerMax('float32') },
    registerShapes: { float64: registerShapes('float64'), float32: registerShapes('float32') },
  };
  if (family === 'potrf') return { ...common, panelWidest: { float64: widths('float64'), float32: widths('float32') } };
  // getrf keeps one width per precision: the one that won at the largest size.
  const widest = (dtype: DType): number => widths(dtype).at(-1)?.widest ?? 16;
  return { ...common, panelWidest: { float64: widest('float64'), float32: widest('float32') } };
}
