/**
 * Blocks an SM that the syev rows design (kernels/jacobi/generate-rows.ts, n = 9 ... 32) asks of
 * ptxas through `__launch_bounds__`, per card (DeviceInfo.name: an H100 and an H200 are both sm_90
 * and need not agree) and per dtype, job and n. The rows design's rounds wait on each pair's angle,
 * a dependent chain that more resident warps hide, and a request for more blocks caps the registers
 * a thread (ptxas may then spill): it paid at some sizes and lost at others (docs/eigen.md, "9 ...
 * 32, rows"). A table is measured data: `node scripts/probe/syev-rows-occupancy.mjs`
 * sweeps n and the requests and prints the entries to paste. A card without a table, or a size
 * without an entry, makes no request (ptxas's own choice).
 */
import type { DType } from '../../../core/dtype.js';

/** One measured size: the request that won there. */
export interface RowsOccupancy {
  readonly dtype: DType;
  /** syev's job: eigenvectors too, or values only. */
  readonly vectors: boolean;
  readonly n: number;
  readonly minBlocks: number;
  /** What was measured (ms of the request / of none, the batch count). */
  readonly measured?: string;
}

export interface RowsOccupancyTable {
  /** The card, as cuDeviceGetName spells it. */
  readonly card: string;
  readonly entries: readonly RowsOccupancy[];
}

// NVIDIA H200, 2026-11-30, `MYRIAD_QUICK_FIRST=0 SIZES=9,12,16,20,24,28,32 MIN=3,4,5 node
// scripts/probe/syev-rows-occupancy.mjs` (vectors, both dtypes): the half-angle rotation with no request
// against the fastest request, a request kept where it took under 0.97 of the time of none; ms of the
// request / of none (batch count). float32 gained at no order measured; orders between those measured
// make no request.
const NVIDIA_H200: RowsOccupancyTable = {
  card: 'NVIDIA H200',
  entries: [
    { dtype: 'float64', vectors: true, n: 20, minBlocks: 4, measured: '2.140 / 2.213 ms (20,000)' },
    { dtype: 'float64', vectors: true, n: 28, minBlocks: 3, measured: '2.136 / 2.388 ms (10,000)' },
    { dtype: 'float64', vectors: true, n: 32, minBlocks: 3, measured: '2.622 / 2.846 ms (10,000)' },
  ],
};

const TABLES: readonly RowsOccupancyTable[] = [NVIDIA_H200];

/** The entries measured on the card named `name`; none for a card without a table. */
export function rowsOccupancyFor(name: string, tables: readonly RowsOccupancyTable[] = TABLES): readonly RowsOccupancy[] {
  return tables.find((t) => t.card === name)?.entries ?? [];
}

/** The request of the entry for (dtype, vectors, n), or undefined (no request). */
export function rowsMinBlocks(entries: readonly RowsOccupancy[], dtype: DType, vectors: boolean, n: number): number | undefined {
  return entries.find((e) => e.dtype === dtype && e.vectors === vectors && e.n === n)?.minBlocks;
}
