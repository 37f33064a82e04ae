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

// NVIDIA H200 (sm_90, 132 SMs), 2026-11-29, `MYRIAD_QUICK_FIRST=0 node scripts/probe/gemm-tma-sweep.mjs`
// (C -= op(A) op(B), square m = n = k, median of 5; TF/s of the route's variant / the mma kernel /
// cuBLAS). Each op pair takes the variant with the best worst ratio over the k = n rows, where it
// beat the mma kernel at every measured size; at k = 512 (8192 x 8192) the mma kernel stayed ahead
// for NN and NT, and the depths between 512 and 4096 were not measured, so the routes start at 4096.
// NT at 4096 stayed on the mma kernel (45.7 against 44.2). TT was not measured.
const FROM_4096: Range = [4096, Infinity];
const FROM_8192: Range = [8192, Infinity];
const H200: TmaRouteTable = {
  card: 'NVIDIA H200',
  routes: [
    {
      transA: 'N', transB: 'N', m: FROM_4096, n: FROM_4096, k: FROM_4096,
      config: { bm: 128, bn: 128, wm: 2, wn: 4, tileGroup: 16, stages: 4, mmaK: 16 },
      measured: '4096: 50.4 / 44.8 / 61.4; 8192: 55.1 / 44.3 / 63.3; 16384: 52.1 / 39.2 / 59.7',
    },
    {
      transA: 'T', transB: 'N', m: FROM_4096, n: FROM_4096, k: FROM_4096,
      config: { bm: 128, bn: 128, wm: 4, wn: 2, tileGroup: 16, stages: 4 },
      measured: '4096: 48.6 / 37.9 / 60.2; 8192: 50.9 / 36.6 / 57.4; 16384: 49.8 / 36.8 / 57.2',
    },
    {
      transA: 'N', transB: 'T', m: FROM_8192, n: FROM_8192, k: FROM_8192,
      config: { bm: 128, bn: 64, wm: 2, wn: 2, tileGroup: 16, stages: 4 },
      measured: '8192: 46.7 / 42.5 / 51.3; 16384: 42.7 / 39.1 / 61.6',
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
