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

// NVIDIA H200 (sm_90, 132 SMs): none until the sweep has measured where the design wins.
const H200: TmaRouteTable = { card: 'NVIDIA H200', routes: [] };

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
