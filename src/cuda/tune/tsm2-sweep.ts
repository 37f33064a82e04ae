/**
 * The TSM2 tuning sweep behind model/tuning/tsm2-sm_90.ts: for each benchmark case, time a grid of forced parameter
 * sets (the model's pick first) on the same data and report them all, fastest first. The winners
 * are copied by hand into the architecture's table (measured data, checked in).
 */
import { dtypeInfo } from '../../core/dtype-table.js';
import { DMMA_DTYPE } from '../kernels/tsm2/index.js';
import type { GpuDevice } from '../runtime/types.js';
import { benchTsm2Case, measureCopyBandwidth, tsm2Operands, type Tsm2BenchRow, type Tsm2Case } from './tsm2-bench.js';
import { setMeasuredBandwidth } from '../kernels/tsm2/launch.js';
import type { Tsm2lOverrides, Tsm2rOverrides } from '../kernels/tsm2/plan.js';

export function tsm2rGrid(c: Tsm2Case): Tsm2rOverrides[] {
  // First the table's pick as it stands ({} forces nothing), then staged kernels: the ring depth,
  // the slot size t3 and (float64) the tensor-core engine matter most.
  const grid: Tsm2rOverrides[] = [{}];
  if (c.dtype === DMMA_DTYPE) {
    for (const [t1, vec, t3, stages, tileK] of [[128, 1, 16, 3, 32], [128, 1, 16, 4, 64], [256, 1, 16, 3, 32], [128, 2, 16, 3, 32], [128, 1, 32, 2, 32]] as const)
      if (c.n >= 4) grid.push({ engine: 'dmma', t1, vec, t3, stages, tileK });
    if (c.n <= 16) for (const [t3, stages] of [[4, 4], [8, 3], [8, 5]] as const) grid.push({ engine: 'fma', t1: 128, vec: 2, t3, stages, tileK: 64 });
  } else {
    for (const [t1, vec, t3, stages] of [[128, 4, 4, 4], [128, 4, 4, 8], [128, 4, 8, 3], [256, 2, 8, 4], [128, 2, 8, 5]] as const)
      grid.push({ engine: 'fma', t1, vec, t3, stages, tileK: 32 });
  }
  return grid;
}

export function tsm2lGrid(c: Tsm2Case): Tsm2lOverrides[] {
  const grid: Tsm2lOverrides[] = [];
  const vecs = [1, 2, 4].filter((v) => v <= dtypeInfo(c.dtype).vectorLanes);
  // blocksPerSM only changes the grid (0: tcf = 1): one compile per (variant, vec).
  for (const variant of ['opt1', 'opt2'] as const) for (const vec of vecs) for (const blocksPerSM of [0, 8])
    grid.push({ variant, vec, t1: 128, blocksPerSM });
  return grid;
}

/** A measured winner: the grid point with the best mean GB/s over the cases of one key. */
export interface SweepWinner { key: string; overrides: { r?: Tsm2rOverrides; l?: Tsm2lOverrides }; meanGbs: number }

/** Winners per (op, dtype, n) for TSM2R and (op, dtype, k = n) for TSM2L, over all swept m. */
export function sweepWinners(rows: readonly (Tsm2BenchRow & { grid?: string })[]): Map<string, SweepWinner> {
  const sums = new Map<string, Map<string, { total: number; count: number }>>();
  for (const r of rows) {
    if (!r.grid || !Number.isFinite(r.gbs)) continue;
    const key = `${r.op}:${r.dtype}:${r.n}`;
    const perGrid = sums.get(key) ?? new Map<string, { total: number; count: number }>();
    const s = perGrid.get(r.grid) ?? { total: 0, count: 0 };
    s.total += r.gbs;
    s.count += 1;
    perGrid.set(r.grid, s);
    sums.set(key, perGrid);
  }
  const out = new Map<string, SweepWinner>();
  for (const [key, perGrid] of sums) {
    const counts = Math.max(...[...perGrid.values()].map((s) => s.count));
    let best: SweepWinner | undefined;
    for (const [grid, s] of perGrid) {
      if (s.count < counts) continue; // only points measured on every m
      const mean = s.total / s.count;
      if (!best || mean > best.meanGbs) best = { key, overrides: JSON.parse(grid) as SweepWinner['overrides'], meanGbs: mean };
    }
    if (best) out.set(key, best);
  }
  return out;
}

/** Every grid point of every case (errors, e.g. a kernel that does not fit, become rows with ms = NaN). */
export function sweepTsm2(dev: GpuDevice, cases: readonly Tsm2Case[], onRow?: (row: Tsm2BenchRow & { grid?: string }) => void,
  deadline = Infinity): (Tsm2BenchRow & { grid?: string })[] {
  const copy = measureCopyBandwidth(dev);
  setMeasuredBandwidth(dev, copy);
  const rows: (Tsm2BenchRow & { grid?: string })[] = [];
  for (const c of cases) {
    if (Date.now() > deadline) break; // a lease is short: what was measured comes back
    const ops = tsm2Operands(dev, c);
    try {
      const grid: ({ r?: Tsm2rOverrides; l?: Tsm2lOverrides })[] = [...(c.op === 'tsm2r'
        ? tsm2rGrid(c).map((r) => ({ r })) : tsm2lGrid(c).map((l) => ({ l })))];
      for (const g of grid) {
        let row: Tsm2BenchRow & { grid?: string };
        try {
          row = { ...benchTsm2Case(dev, c, copy, { tsm2: g, operands: ops, repeats: 5 }), grid: JSON.stringify(g) };
        } catch (e) {
          row = { ...c, ms: NaN, gflops: NaN, gbs: NaN, pctCopy: NaN, plan: `${JSON.stringify(g)} failed: ${(e as Error).message.slice(0, 200)}` };
        }
        rows.push(row);
        onRow?.(row);
      }
    } finally {
      ops.dispose();
    }
  }
  return rows;
}
