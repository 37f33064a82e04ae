/**
 * The TMA-fed FP64 GEMM's variants that the sweep (scripts/probe/gemm-tma-sweep.mjs) times on
 * single products and the GPU test (test/gpu/gemm-tma.test.ts) checks: a variant the sweep may
 * name as a winner has been run against the CPU reference. Each differs from the table's
 * configuration (128 x 128, 8 mma warps of 64 x 32, 4 stages, groups of 16 tile rows) in one or
 * two parts of the design: stages, the warps' shape, the f64 mma shape, the producer warp, the
 * persistent grid, the block tile. Every one compiles for sm_90 without spills (the generator
 * test's compile check). The list is sized to the sweep's five minutes on one H200.
 */
import type { TmaConfig } from '../model/tuning/index.js';

export interface TmaVariant {
  /** A short name for tables: tile, warps, stages, then the parts that differ. */
  readonly name: string;
  readonly config: TmaConfig;
}

const variant = (config: TmaConfig): TmaVariant => ({
  name: `${config.bm}x${config.bn} w${config.wm}x${config.wn} s${config.stages}${config.tileGroup !== undefined ? ` g${config.tileGroup}` : ''}`
    + `${config.mmaK !== undefined && config.mmaK !== 8 ? ` k${config.mmaK}` : ''}${config.producerWarp === true ? ' p' : ''}${config.persistent === true ? ' P' : ''}${config.pipelined === true ? ' F' : ''}${config.refillLag === 2 ? ' L2' : ''}`,
  config,
});

const square = { bm: 128, bn: 128, wm: 2, wn: 4, tileGroup: 16 } as const;
const half = { bm: 128, bn: 64, wm: 2, wn: 2, tileGroup: 16 } as const;
const quarter = { bm: 64, bn: 64, wm: 2, wn: 2, tileGroup: 16 } as const;

export const TMA_SWEEP_VARIANTS: readonly TmaVariant[] = [
  // The table's configuration, and the measured best of NN 8192 (3 stages).
  variant({ ...square, stages: 4 }),
  variant({ ...square, stages: 3 }),
  // The f64 mma shapes: one m16n8k16 per two m16n8k8 (half the instructions), two m16n8k4.
  variant({ ...square, stages: 4, mmaK: 16 }),
  variant({ ...square, stages: 3, mmaK: 4 }),
  // Warps 4 x 2 (32 x 64 warp tiles).
  variant({ ...square, wm: 4, wn: 2, stages: 4 }),
  // The persistent grid, thread 0 producing (a ninth, producer warp caps 128 x 128's mma warps at
  // 168 registers: they spill): the next tile's copies overlap this one's epilogue.
  variant({ ...square, stages: 4, persistent: true }),
  variant({ ...square, stages: 5, persistent: true }),
  variant({ ...square, stages: 4, persistent: true, mmaK: 16 }),
  variant({ ...square, stages: 3, persistent: true }),
  // (16 mma warps of 32 x 32 spill at their 128 registers: not a variant.)
  // 128 x 64 (two blocks an SM): the best of the 4096 rows, persistent, and with a producer warp.
  variant({ ...half, stages: 4 }),
  variant({ ...half, stages: 4, persistent: true }),
  variant({ ...half, stages: 4, producerWarp: true, persistent: true }),
  // Register double-buffered fragments (m16n8k8) on 64 x 64 tiles (cuBLAS's at k = 512 and for
  // batched 256 on the H200): 32 x 32 warp tiles, three blocks an SM at 4 stages; the refill one or
  // two steps behind. (128 x 64 and 64 x 128 pipelined lost to these and spill in NT, TN and TT.)
  variant({ ...quarter, stages: 3, pipelined: true }),
  variant({ ...quarter, stages: 4, pipelined: true }),
  variant({ ...quarter, stages: 4, pipelined: true, refillLag: 2 }),
];
