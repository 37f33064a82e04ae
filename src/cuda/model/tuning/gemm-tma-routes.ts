/**
 * Where the planner takes the TMA-fed FP64 GEMM (generate-tma.ts) without being asked: per card
 * (DeviceInfo.name: an H100 and an H200 are both sm_90 and need not cross over alike), the single
 * products (a batch of one) by op pair and inclusive m, n, k ranges, each with the configuration
 * that won there. A table is measured data (scripts/probe/gemm-tma-sweep.mjs prints the winners);
 * a card without routes, or a shape outside every route, keeps the plan's own choice (the mma
 * kernel). The cards' vendor tables (vendor-tables.ts) still decide first whether a product goes
 * to cuBLAS at all.
 */
import type { Op } from '../../../core/ops.js';
import type { TmaConfig } from './gemm-types.js';

/** Inclusive bounds. */
export type Range = readonly [number, number];

/** One region of single float64 products that the TMA design takes, with its configuration. */
export interface TmaRoute {
  readonly transA: Op;
  readonly transB: Op;
  readonly m: Range;
  readonly n: Range;
  readonly k: Range;
  readonly config: TmaConfig;
  /** What was measured there (the sweep's rows: TF/s of the variant and of cuBLAS). */
  readonly measured?: string;
}

export interface TmaRouteTable {
  /** The card, as cuDeviceGetName spells it. */
  readonly card: string;
  readonly routes: readonly TmaRoute[];
}

// NVIDIA H200 (sm_90, 132 SMs), `MYRIAD_QUICK_FIRST=0 node scripts/probe/gemm-tma-sweep.mjs 4096,8192
// NN,NT,TN` (C -= op(A) op(B), median of 5; TF/s of the route's variant / the mma kernel / cuBLAS, two
// runs of 2026-11-30 where given as a-b). From 4096 up to 8191 every op pair measured takes the
// pipelined 64 x 64 kernel (register double-buffered fragments, three blocks an SM); from 8192 NN and
// TN keep the 2026-11-29 sweep's winners (128 x 128 kernels, ahead there in both runs), NT takes the
// pipelined kernel. At k = 512 the pipelined kernel beat the mma kernel at 8192 (NN 44.1-44.4 / 34.7-36.5,
// TN 39.2-39.5 / 25.9) but not at 4096 (NN 30.8 / 31.6, `scripts/probe/gemm-tma.mjs`): the k-routes start
// at m = n = 8192; depths 513 ... 4095 were not measured. TT was not measured.
const FROM_4096: Range = [4096, Infinity];
const BELOW_8192: Range = [4096, 8191];
const FROM_8192: Range = [8192, Infinity];
const SHALLOW: Range = [512, 4095];
const PIPELINED_64: TmaConfig = { bm: 64, bn: 64, wm: 2, wn: 2, tileGroup: 16, stages: 4, pipelined: true };
const H200: TmaRouteTable = {
  card: 'NVIDIA H200',
  routes: [
    {
      transA: 'N', transB: 'N', m: BELOW_8192, n: BELOW_8192, k: FROM_4096, config: PIPELINED_64,
      measured: '4096: 53.7-55.7 / 48.5-49.9 / 59.6-61.1',
    },
    {
      transA: 'N', transB: 'N', m: FROM_4096, n: FROM_4096, k: FROM_4096,
      config: { bm: 128, bn: 128, wm: 2, wn: 4, tileGroup: 16, stages: 4, mmaK: 16 },
      measured: '4096: 50.4 / 44.8 / 61.4; 8192: 55.1 / 44.3 / 63.3; 16384: 52.1 / 39.2 / 59.7 (2026-11-29); 8192: 54.7-55.5 against the pipelined 45.1-52.2',
    },
    {
      transA: 'T', transB: 'N', m: BELOW_8192, n: BELOW_8192, k: FROM_4096, config: PIPELINED_64,
      measured: '4096: 49.7-50.3 / 46.3-46.4 / 58.5-58.8',
    },
    {
      transA: 'T', transB: 'N', m: FROM_4096, n: FROM_4096, k: FROM_4096,
      config: { bm: 128, bn: 128, wm: 4, wn: 2, tileGroup: 16, stages: 4 },
      measured: '4096: 48.6 / 37.9 / 60.2; 8192: 50.9 / 36.6 / 57.4; 16384: 49.8 / 36.8 / 57.2 (2026-11-29)',
    },
    {
      transA: 'N', transB: 'T', m: FROM_4096, n: FROM_4096, k: FROM_4096, config: PIPELINED_64,
      measured: '4096: 47.3-47.9 / 43.6-45.2 / 57.8-59.8; 8192: 50.0-50.2 / 46.5-47.4 / 56.5-57.3',
    },
    {
      transA: 'N', transB: 'N', m: FROM_8192, n: FROM_8192, k: SHALLOW, config: PIPELINED_64,
      measured: '8192 k 512: 44.1-44.4 / 34.7-36.5 / 48.8-50.9',
    },
    {
      transA: 'T', transB: 'N', m: FROM_8192, n: FROM_8192, k: SHALLOW, config: PIPELINED_64,
      measured: '8192 k 512: 39.2-39.5 / 25.9 / 54.5',
    },
  ],
};

const TABLES: readonly TmaRouteTable[] = [H200];

/** The routes measured on the card named `name`; none for a card without a table. */
export function tmaRoutesFor(name: string): readonly TmaRoute[] {
  return TABLES.find((t) => t.card === name)?.routes ?? [];
}

const within = (x: number, [lo, hi]: Range): boolean => lo <= x && x <= hi;

/** The first route that holds the product's op pair and sizes, or undefined. */
export function tmaRouteFor(routes: readonly TmaRoute[], transA: Op, transB: Op, m: number, n: number, k: number): TmaRoute | undefined {
  return routes.find((r) => r.transA === transA && r.transB === transB && within(m, r.m) && within(n, r.n) && within(k, r.k));
}
