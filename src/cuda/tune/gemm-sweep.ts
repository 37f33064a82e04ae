/**
 * The batched GEMM tuning sweep (model/tuning/gemm-sm_90.ts came from it): for each precision and
 * square size, the planned kernel, the small kernel's thread shapes, and the tiled (float32) and
 * tensor-core (float64) block sizes, timed on the same dense strided data of about 1 GB with
 * beta = 0, beside cuBLAS; then the planned kernel on every transpose and on non-square shapes of
 * about the same bytes. The candidates are pure (dry run); only `sweepGemm` needs a GPU.
 */
import { counts } from '../../core/counts.js';
import type { Batch } from '../../core/batch.js';
import { DTYPE_BYTES, type DType } from '../../core/dtype.js';
import type { GemmRequest, Op } from '../../core/ops.js';
import { Cublas } from '../baselines/cublas.js';
import { gemmCuda, MMA_DTYPE, planGemm, type GemmParams, type GemmProblem } from '../kernels/gemm/index.js';
import { tuningFor, type MmaConfig, type TiledConfig } from '../model/tuning/index.js';
import type { DeviceArray, DeviceInfo, GpuDevice } from '../runtime/types.js';
import { timeMs } from './measure.js';

const mma = (bm: number, bn: number, bk: number, wm: number, wn: number, stages: number, mmaK: 4 | 8 | 16 = 8): MmaConfig => ({ bm, bn, bk, wm, wn, stages, mmaK });
/** FP64 tensor-core configurations timed. */
export const MMA_CONFIGS: readonly MmaConfig[] = [
  mma(32, 32, 16, 2, 2, 3), mma(32, 32, 32, 2, 2, 2), mma(32, 32, 32, 2, 2, 2, 16), mma(32, 32, 32, 1, 1, 1),
  mma(64, 64, 16, 2, 2, 3), mma(64, 64, 16, 2, 2, 3, 16), mma(64, 64, 16, 2, 2, 4), mma(64, 64, 32, 2, 2, 2, 16),
  mma(64, 64, 16, 4, 2, 3), mma(64, 64, 16, 4, 2, 3, 16), mma(64, 64, 8, 2, 2, 4), mma(128, 64, 16, 2, 2, 3),
  mma(128, 128, 16, 2, 4, 3), mma(128, 128, 16, 4, 2, 3), mma(128, 128, 16, 2, 4, 4), mma(128, 128, 8, 2, 4, 4),
  mma(64, 128, 16, 2, 4, 3), mma(128, 128, 16, 2, 4, 3, 4), mma(64, 64, 16, 2, 2, 3, 4),
];
const tiled = (bm: number, bn: number, bk: number, tm: number, tn: number): TiledConfig => ({ bm, bn, bk, tm, tn });
/** Tiled configurations (float32 vectors of 4: tm, tn, bk multiples of 4) timed. */
export const TILED_CONFIGS: readonly TiledConfig[] = [
  tiled(32, 32, 16, 4, 4), tiled(32, 32, 32, 4, 4), tiled(64, 64, 16, 4, 4), tiled(64, 64, 16, 8, 4), tiled(64, 64, 8, 4, 4),
  tiled(64, 64, 32, 4, 4), tiled(64, 64, 16, 8, 8), tiled(128, 64, 8, 8, 4), tiled(128, 64, 16, 8, 4), tiled(128, 128, 8, 8, 8),
  tiled(128, 128, 16, 8, 8), tiled(64, 128, 8, 4, 8),
];

export const gemmLabel = (p: GemmParams): string => p.variant === 'small'
  ? `small tbc${p.tbc} rn${p.rn} t${p.threads}${p.stageC ? ' sc' : ''}`
  : p.variant === 'tiled' ? `tiled ${p.bm}x${p.bn}x${p.bk} t${p.tm}x${p.tn}${p.prefetchC === false ? ' npc' : ''}`
  : p.variant === 'tma' ? `tma ${p.bm}x${p.bn} w${p.wm}x${p.wn} s${p.stages}${p.producerWarp === true ? 'p' : ''}${p.tileGroup !== undefined ? ` g${p.tileGroup}` : ''}` : `mma ${p.bm}x${p.bn}x${p.bk} w${p.wm}x${p.wn} s${p.stages}${p.doubleBuffer === true ? 'd' : ''}${p.minBlocks !== undefined ? `b${p.minBlocks}` : ''}${p.prefetchC === false ? ' npc' : ''} k${p.mmaK ?? 8}`;

/** Matrices of n x n per call: about 1 GB of A, B and C. */
const squareCount = (dtype: DType, n: number): number => Math.floor(1e9 / (3 * n * n * DTYPE_BYTES[dtype]));

/** The parameter sets timed for a square size: the planned one first, then the grid (distinct). */
export function gemmCandidates(info: DeviceInfo, dtype: DType, n: number): GemmParams[] {
  const problem: GemmProblem = { dtype, transA: 'N', transB: 'N', m: n, n, k: n, count: squareCount(dtype, n), batchKind: 'strided', betaZero: true };
  const candidates: GemmParams[] = [planGemm(info, problem)];
  const add = (p: GemmParams): void => { if (!candidates.some((q) => JSON.stringify(q) === JSON.stringify(p))) candidates.push(p); };
  if (n <= 32) {
    const tuning = tuningFor(info.arch, 'gemm');
    for (const smallThreadsPerBlock of [64, 128, 256]) for (const smallItemsPerThread of [1, 2, 4]) {
      add(planGemm(info, problem, { variant: 'small', tuning: { ...tuning, smallThreadsPerBlock, smallItemsPerThread } }));
    }
  }
  const plain = { kind: 'strided' as const, dense: false };
  const common = { dtype, transA: 'N' as const, transB: 'N' as const, betaZero: true, layouts: { a: plain, b: plain, c: plain } };
  const fits = (bm: number, bn: number): boolean => bm <= 2 * n && bn <= 2 * n && (n < 128 || bm * bn >= 64 * 64);
  if (n >= 32) {
    if (dtype !== MMA_DTYPE) for (const cfg of TILED_CONFIGS) if (fits(cfg.bm, cfg.bn)) add({ variant: 'tiled', ...common, ...cfg });
    if (dtype === MMA_DTYPE) for (const cfg of MMA_CONFIGS) if (fits(cfg.bm, cfg.bn)) add({ variant: 'mma', ...common, ...cfg });
  }
  return candidates;
}

export interface GemmSweepOptions {
  readonly dtypes: readonly DType[];
  readonly sizes: readonly number[];
  /** Sizes of the transpose and non-square pass. */
  readonly shapeSizes: readonly number[];
  /** Called with the markdown rows so far, after every size (partial results). */
  readonly onRows?: (rows: readonly string[]) => void;
}

const stridedOf = (data: DeviceArray, rows: number, cols: number, count: number): Batch<DeviceArray> =>
  ({ kind: 'strided', data, rows, cols, count, ld: rows, stride: rows * cols, offset: 0, order: 'col' });

/** Runs the sweep; returns markdown rows (one table of square sizes, one of shapes). */
export function sweepGemm(dev: GpuDevice, o: GemmSweepOptions): string[] {
  const time = (call: () => void): number => timeMs(dev, call, 5);
  const cublas = new Cublas(dev);
  const rows: string[] = [`card: ${dev.info.name}`, '| dtype | n | params | ms | GFLOP/s | GB/s |', '|---|---|---|---|---|---|'];
  try {
    for (const dtype of o.dtypes) for (const n of o.sizes) {
      const count = squareCount(dtype, n);
      const arrays = [0, 1, 2].map(() => dev.alloc(dtype, count * n * n));
      for (const x of arrays) dev.fill(x, 0x3f);
      const [A, B, C] = [arrays[0]!, arrays[1]!, arrays[2]!];
      const req: GemmRequest<DeviceArray> = { transA: 'N', transB: 'N', alpha: 1, beta: 0, a: stridedOf(A, n, n, count), b: stridedOf(B, n, n, count), c: stridedOf(C, n, n, count) };
      const cost = counts.gemm(dtype, n, n, n, true);
      const row = (what: string, ms: number): string =>
        `| ${dtype} | ${n} | ${what} | ${ms.toFixed(3)} | ${((cost.flops * count) / (ms * 1e6)).toFixed(0)} | ${((cost.bytes * count) / (ms * 1e6)).toFixed(0)} |`;
      rows.push(row('cuBLAS', time(() => cublas.gemmStridedBatched(dtype, 'N', 'N', n, n, n, 1, A, n, n * n, B, n, n * n, 0, C, n, n * n, count))));
      gemmCandidates(dev.info, dtype, n).forEach((p, i) => rows.push(row(`${i === 0 ? 'PLANNED ' : ''}${gemmLabel(p)}`, time(() => gemmCuda(dev, req, { variant: p })))));
      for (const x of arrays) x.dispose();
      o.onRows?.(rows);
    }
    rows.push('', '| dtype | op | m x n x k | count | params | ms | GFLOP/s | GB/s |', '|---|---|---|---|---|---|---|---|');
    for (const dtype of o.dtypes) for (const n of o.shapeSizes) {
      const bytes = DTYPE_BYTES[dtype];
      const shapes: [Op, Op, number, number, number][] = [
        ['N', 'N', n, n, n], ['N', 'T', n, n, n], ['T', 'N', n, n, n], ['T', 'T', n, n, n],
        ['N', 'N', 2 * n, n / 2, n], ['N', 'N', n / 2, n / 2, 2 * n], ['T', 'N', n, n / 2, 2 * n], ['N', 'N', n - 1, n - 1, n - 1],
      ];
      for (const [transA, transB, m, nn, k] of shapes) {
        const count = Math.floor(1e9 / ((m * k + k * nn + m * nn) * bytes));
        const dims: [number, number][] = [transA === 'N' ? [m, k] : [k, m], transB === 'N' ? [k, nn] : [nn, k], [m, nn]];
        const arrays = dims.map(([r, c]) => dev.alloc(dtype, count * r * c));
        for (const x of arrays) dev.fill(x, 0x3f);
        const [a, b, c] = arrays.map((x, i) => stridedOf(x, dims[i]![0], dims[i]![1], count));
        const req: GemmRequest<DeviceArray> = { transA, transB, alpha: 1, beta: 0, a: a!, b: b!, c: c! };
        const p = planGemm(dev.info, { dtype, transA, transB, m, n: nn, k, count, batchKind: 'strided', betaZero: true });
        const ms = time(() => gemmCuda(dev, req));
        const cost = counts.gemm(dtype, m, nn, k, true);
        rows.push(`| ${dtype} | ${transA}${transB} | ${m}x${nn}x${k} | ${count} | ${gemmLabel(p)} | ${ms.toFixed(3)} | ${((cost.flops * count) / (ms * 1e6)).toFixed(0)} | ${((cost.bytes * count) / (ms * 1e6)).toFixed(0)} |`);
        for (const x of arrays) x.dispose();
        o.onRows?.(rows);
      }
    }
  } finally {
    cublas.dispose();
  }
  return rows;
}
