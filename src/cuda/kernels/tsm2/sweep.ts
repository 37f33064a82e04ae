/**
 * The tuning sweep behind tuning.ts: for each benchmark case, time a grid of forced parameter
 * sets (the model's pick first) on the same data and report them all, fastest first. The winners
 * are copied by hand into the architecture's table (measured data, checked in).
 */
import type { GpuDevice } from '../../runtime/types.js';
import { benchTsm2Case, measureCopyBandwidth, tsm2Operands, type Tsm2BenchRow, type Tsm2Case } from './bench.js';
import { setMeasuredBandwidth } from './launcher.js';
import type { Tsm2lOverrides, Tsm2rOverrides } from './planner.js';

export function tsm2rGrid(c: Tsm2Case): Tsm2rOverrides[] {
  // vec (rows per thread) and t3 (loads in flight) matter most; t1 is tried once per case.
  const vecs = c.dtype === 'float64' ? [1, 2] : [2, 4];
  const t3s = c.n <= 4 ? [8, 16] : c.n <= 16 ? [4, 8] : [2, 4];
  const grid: Tsm2rOverrides[] = [];
  for (const vec of vecs) for (const t3 of t3s) grid.push({ t1: 256, vec, t3, tileK: 32, t2: c.n });
  grid.push({ t1: 128, vec: vecs[1], t3: t3s[0], tileK: 64, t2: c.n });
  return grid;
}

export function tsm2lGrid(c: Tsm2Case): Tsm2lOverrides[] {
  const grid: Tsm2lOverrides[] = [];
  const vecs = c.dtype === 'float64' ? [1, 2] : [1, 2, 4];
  // blocksPerSM only changes the grid: one compile per (variant, vec).
  for (const variant of ['opt1', 'opt2'] as const) for (const vec of vecs) for (const blocksPerSM of [2, 4, 8, 16])
    grid.push({ variant, vec, t1: 128, blocksPerSM });
  grid.push({ variant: 'opt1', vec: 1, t1: 128, tcf: 1 });
  return grid;
}

/** Every grid point of every case (errors, e.g. a kernel that does not fit, become rows with ms = NaN). */
export function sweepTsm2(dev: GpuDevice, cases: readonly Tsm2Case[], onRow?: (row: Tsm2BenchRow) => void): Tsm2BenchRow[] {
  const copy = measureCopyBandwidth(dev);
  setMeasuredBandwidth(dev, copy);
  const rows: Tsm2BenchRow[] = [];
  for (const c of cases) {
    const ops = tsm2Operands(dev, c);
    try {
      const grid: ({ r?: Tsm2rOverrides; l?: Tsm2lOverrides })[] = [{}, ...(c.op === 'tsm2r'
        ? tsm2rGrid(c).map((r) => ({ r })) : tsm2lGrid(c).map((l) => ({ l })))];
      for (const g of grid) {
        let row: Tsm2BenchRow;
        try {
          row = benchTsm2Case(dev, c, copy, { tsm2: g, operands: ops, repeats: 5 });
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
