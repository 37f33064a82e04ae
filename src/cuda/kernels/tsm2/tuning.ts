/**
 * Measured winners per GPU architecture (data, not code): where an entry exists it replaces the
 * model's pick for the code parameters; the model still sizes what depends on the problem (the
 * k-split, the grid). Architectures inherit: sm_90 -> sm_80 -> default, as in BLIS's registry.
 *
 * The routing thresholds of `isTallSkinny` are tuning entries too.
 */
import type { DType } from '../../../core/dtype.js';

export interface RoutingThresholds {
  /** Widest C (n) the TSM2 kernels take. */
  readonly maxN: number;
  /** TSM2L: k at most this, and m at least `minRowsL`. */
  readonly maxKL: number;
  readonly minRowsL: number;
  /** TSM2R: m at least `minRowsR` and m * k at least `minWorkR` elements of A. */
  readonly minRowsR: number;
  readonly minWorkR: number;
}

/** TSM2R winner for n up to `maxN` (op(A) = N; op(A) = T takes vec 1). */
export interface Tsm2rTuning {
  readonly maxN: number;
  readonly t1: number;
  readonly t3: number;
  readonly tileK: number;
  readonly vec: number;
  /** L2 prefetch distance in tiles (0: off). */
  readonly prefetch: number;
  /** A staged through shared memory in this many slots (0 or absent: register prefetch). */
  readonly stages?: number;
  /** 'dmma': float64 on the tensor cores (staged only); absent: 'fma'. */
  readonly engine?: 'fma' | 'dmma';
}

/** TSM2L winner for k and n up to `maxK`, `maxN`; the grid is `blocksPerSM` x SM count blocks (0: one row tile per thread, tcf = 1). */
export interface Tsm2lTuning {
  readonly maxK: number;
  readonly maxN: number;
  readonly t1: number;
  readonly vec: number;
  readonly variant: 'opt1' | 'opt2';
  readonly blocksPerSM: number;
}

export interface Tsm2Tuning {
  readonly routing?: RoutingThresholds;
  readonly tsm2r?: Readonly<Partial<Record<DType, readonly Tsm2rTuning[]>>>;
  readonly tsm2l?: Readonly<Partial<Record<DType, readonly Tsm2lTuning[]>>>;
}

const DEFAULT: Tsm2Tuning = {
  routing: { maxN: 32, maxKL: 32, minRowsL: 8192, minRowsR: 512, minWorkR: 1 << 20 },
};

/**
 * sm_90: winners of the sweep on an H100 80GB HBM3 (2026-11-25), TSM2R at m = k = 20480, TSM2L at
 * m = 1e7; then (H100 80GB HBM3, sweep.ts's staged grid, best mean GB/s over m = k = 10240 and
 * 30720) the rows with `stages`: A staged through shared memory won float64 n = 4, 16, 32 (32 on
 * the tensor cores) and float32 n = 4 ... 32; float64 n = 1, 2, 8 and float32 n = 1, 2 were not
 * re-swept or kept the register path. A sweep on an H200 preferred tileK 64 / t1 128 nearly
 * everywhere for the register path; not adopted. Shapes outside these rows: the model.
 */
const SM90: Tsm2Tuning = {
  tsm2r: {
    float64: [
      { maxN: 1, t1: 256, t3: 8, tileK: 32, vec: 1, prefetch: 0 },
      { maxN: 2, t1: 256, t3: 8, tileK: 32, vec: 1, prefetch: 0 },
      { maxN: 4, t1: 128, t3: 4, tileK: 64, vec: 2, prefetch: 0, stages: 4 },
      { maxN: 8, t1: 128, t3: 4, tileK: 64, vec: 2, prefetch: 0 },
      { maxN: 16, t1: 128, t3: 8, tileK: 64, vec: 2, prefetch: 0, stages: 5 },
      { maxN: 32, t1: 128, t3: 16, tileK: 32, vec: 1, prefetch: 0, stages: 3, engine: 'dmma' },
    ],
    float32: [
      { maxN: 1, t1: 256, t3: 8, tileK: 32, vec: 4, prefetch: 0 },
      { maxN: 2, t1: 256, t3: 8, tileK: 32, vec: 4, prefetch: 0 },
      { maxN: 4, t1: 128, t3: 4, tileK: 32, vec: 4, prefetch: 0, stages: 4 },
      { maxN: 8, t1: 128, t3: 4, tileK: 32, vec: 4, prefetch: 0, stages: 4 },
      { maxN: 16, t1: 128, t3: 8, tileK: 32, vec: 4, prefetch: 0, stages: 3 },
      { maxN: 32, t1: 128, t3: 8, tileK: 32, vec: 4, prefetch: 0, stages: 3 },
    ],
  },
  tsm2l: {
    float64: [
      { maxK: 8, maxN: 8, t1: 128, vec: 1, variant: 'opt1', blocksPerSM: 0 },
      { maxK: 16, maxN: 16, t1: 128, vec: 1, variant: 'opt2', blocksPerSM: 8 },
    ],
    float32: [
      { maxK: 8, maxN: 8, t1: 128, vec: 1, variant: 'opt1', blocksPerSM: 0 },
      { maxK: 16, maxN: 16, t1: 128, vec: 1, variant: 'opt1', blocksPerSM: 0 },
    ],
  },
};

const TABLES: Readonly<Record<string, Tsm2Tuning>> = { sm_90: SM90, default: DEFAULT };
const PARENT: Readonly<Record<string, string>> = { sm_90: 'sm_80', sm_80: 'default' };

/** The first table along the inheritance chain that has `pick`'s entry. */
function inherited<T>(arch: string, pick: (t: Tsm2Tuning) => T | undefined): T | undefined {
  for (let a: string | undefined = arch; a !== undefined; a = PARENT[a] ?? (a === 'default' ? undefined : 'default')) {
    const table = TABLES[a];
    const v = table ? pick(table) : undefined;
    if (v !== undefined) return v;
  }
  return undefined;
}

export function routingFor(arch: string): RoutingThresholds {
  return inherited(arch, (t) => t.routing) ?? DEFAULT.routing!;
}

export function tsm2rTuning(arch: string, dtype: DType, n: number): Tsm2rTuning | undefined {
  return inherited(arch, (t) => t.tsm2r?.[dtype]?.find((e) => n <= e.maxN));
}

export function tsm2lTuning(arch: string, dtype: DType, k: number, n: number): Tsm2lTuning | undefined {
  return inherited(arch, (t) => t.tsm2l?.[dtype]?.find((e) => k <= e.maxK && n <= e.maxN));
}
