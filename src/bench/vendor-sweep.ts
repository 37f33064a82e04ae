/**
 * The vendor crossover sweep: on the card it runs on, each vendor route (cuda/vendor/) against the
 * own route the router takes where there is no vendor (what a capture runs), over a grid of
 * (operation, dtype, order, count), timed on the same device-resident data (the bench's workloads:
 * CUDA events, warm-up excluded, the median of repeats, four times as many for calls under 1 ms; two
 * rounds alternating the routes, each route's better median kept); then the card's crossover table
 * (model/tuning/vendor-<card>.ts) in its source form. The grid, the rules and the source are pure;
 * only `measureCase` needs a GPU.
 *
 * A rule spans consecutive orders of one series where the vendor took less than VENDOR_RATIO_MAX
 * of the own time, from the smallest to the largest (to Infinity where the run reaches the series'
 * largest order), counts from the smallest measured in it up (single-matrix series: one matrix).
 * The grid stays where the own routes are GPU kernels (syev up to 512): a rule that reaches the
 * largest order measured goes on to Infinity, beyond which no own design runs syev (the router's
 * capability route, cusolverDn?syevd one matrix per call, or the CPU reference where libcusolver
 * does not load).
 *
 * The complex types (complex128, complex64) are swept in gemm's series and trsm's (cuBLAS's z/cgemm
 * and z/ctrsmBatched against the own kernels over pairs) and in a batched potrf series of their own
 * (cuSOLVER's z/cpotrfBatched, 64 to 512, 512 MiB of matrices a call as the bench measured it); the
 * other operations in the real types only.
 *
 * The solves (trsm, getrs, gesv) are measured with each of SOLVE_NRHS right-hand sides (trsm: left
 * side only): a rule from the series of v columns takes nrhs from v to the next series' less one (the
 * last, SOLVE_MANY, and more), and a trsm rule its side alone.
 *
 * The solves are measured at two counts where they differ enough: the base count (SOLVE_BYTES of A)
 * and the large one (SOLVE_LARGE_PER_SM matrices an SM of the card swept), because their own routes
 * change with the count (trsm's chained substitution takes batches of at most `chainMaxPerSm` matrices
 * an SM). An order's verdict is then a pair: the vendor ahead at both counts gives counts from the
 * base up; at the base count only, counts below the large one; at the large count only, counts from
 * it up. Consecutive orders with the same pair make one rule.
 */
import type { Context } from '../api/context.js';
import type { CudaBackend } from '../cuda/backend.js';
import { VENDOR_RATIO_MAX, type VendorOp, type VendorRoute, type VendorRule } from '../cuda/model/tuning/vendor-tables.js';
import { timeMs } from '../cuda/tune/measure.js';
import type { GpuDevice } from '../cuda/runtime/types.js';
import type { ElementType } from '../core/dtype.js';
import { elementInfo, isComplexDType } from '../core/dtype-table.js';
import { COMPLEX_WORKLOADS, complexTrsmWorkload } from './complex-workloads.js';
import { Random } from './data.js';
import { gemmWorkload, solveWorkload, WORKLOADS, type Prepared, type SolveOp, type Workload } from './workloads.js';

/** One timed point. `series`: 'single' (one matrix) or 'batched'. */
export interface SweepCase {
  readonly op: VendorOp;
  readonly route: VendorRoute;
  readonly dtype: ElementType;
  readonly series: 'single' | 'batched';
  readonly n: number;
  readonly count: number;
  readonly jobz?: 'vectors';
  /** The solves: right-hand sides per matrix. */
  readonly nrhs?: number;
  /** trsm: the side measured. */
  readonly side?: 'left';
  /** The solves' second count (SOLVE_LARGE_PER_SM matrices an SM); absent: the base count. */
  readonly level?: 'large';
  /** gemm: C = alpha A B (true) or C = alpha A B + C (false). */
  readonly betaZero?: boolean;
}

export interface SweepRow extends SweepCase {
  /** The own route it was timed against ('cpu': not timed). */
  readonly own: string;
  readonly ownMs: number;
  readonly vendorMs: number;
  /** vendor ms / own ms (0 where the own route is the CPU reference); NaN where the case failed. */
  readonly ratio: number;
  readonly error?: string;
}

/** About this many bytes of matrices per batched call. */
const BATCH_BYTES = 256 * 2 ** 20;
const batchCount = (dtype: ElementType, n: number, matrices = 1): number => Math.max(1, Math.min(200000, Math.floor(BATCH_BYTES / (matrices * n * n * elementInfo(dtype).bytes))));
/** syev's counts: the published vendor tables' (BENCHMARKS.md). */
const SYEV_COUNTS: Readonly<Record<number, number>> = { 32: 10000, 40: 8000, 48: 5000, 56: 3000, 64: 2000, 96: 1000, 128: 500, 192: 200, 256: 100, 384: 40, 512: 20 };

interface Series {
  readonly op: VendorOp;
  readonly route: VendorRoute;
  readonly series: 'single' | 'batched';
  readonly sizes: readonly number[];
  readonly count: (dtype: ElementType, n: number) => number;
  /** Whether the series is swept in the complex types too (true), in them alone ('only'), or in the real ones only (absent). */
  readonly complex?: true | 'only';
  readonly jobz?: 'vectors';
  readonly nrhs?: number;
  readonly side?: 'left';
  /** Measured at the large count too (the solves). */
  readonly large?: true;
  /** gemm: C = alpha A B (true) or C = alpha A B + C (false). */
  readonly betaZero?: boolean;
}

/** One-matrix orders: dense where the crossovers fell (512-2048), sparse above. */
const SINGLE_SIZES = [128, 256, 384, 512, 768, 1024, 1536, 2048, 4096, 8192, 12288];

/** The solves' orders (the powers of two and the orders halfway between, where rules spanned unmeasured orders), and their right-hand sides beside one. */
const SOLVE_SIZES = [8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512];
export const SOLVE_MANY = 16;
/** The solves' series of right-hand sides: every range of nrhs has a measured series (the powers of two to SOLVE_MANY). */
export const SOLVE_NRHS: readonly number[] = [1, 2, 4, 8, SOLVE_MANY];

/** The right-hand sides a rule from the series of `nrhs` columns covers: to the next series' less one, the last to Infinity. */
export function solveNrhsRange(nrhs: number): [number, number] {
  const i = SOLVE_NRHS.indexOf(nrhs);
  if (i < 0) throw new Error(`no solve series of ${nrhs} right-hand sides (${SOLVE_NRHS.join(', ')})`);
  return [nrhs, i + 1 < SOLVE_NRHS.length ? SOLVE_NRHS[i + 1]! - 1 : Infinity];
}
/** About this many bytes of A per batched solve (a quarter of gemm's: 360 cases to time, each in a fraction of a second). */
const SOLVE_BYTES = 64 * 2 ** 20;
const solveCount = (dtype: ElementType, n: number): number => Math.max(1, Math.min(200000, Math.floor(SOLVE_BYTES / (n * n * elementInfo(dtype).bytes))));
const solves = (op: Extract<SolveOp, VendorOp>, route: VendorRoute): Series[] => SOLVE_NRHS.map((nrhs) =>
  ({ op, route, series: 'batched', sizes: SOLVE_SIZES, count: solveCount, nrhs, large: true, ...(op === 'trsm' ? { side: 'left' as const, complex: true as const } : {}) }));

/**
 * The solves' large count, in matrices an SM: twice trsm's `chainMaxPerSm`, where the own routes
 * have left the chained substitution (model/tuning/trsm-default.ts), and measured at the orders whose
 * base count is at most half of it (on an H200, float64 from 96, float32 from 128).
 */
export const SOLVE_LARGE_PER_SM = 16;

/**
 * Batched gemm's orders: every few orders to 96, where the kernels' tiles (16, 32, 64) leave the most
 * padding just past their edges (33, 65), then every 16 to 192 and every 32 to 512: a rule covers
 * only the orders between measured ones, so a sparse grid left the vendor faster unseen at, say, 40.
 */
const GEMM_BATCHED_SIZES = [16, 20, 24, 28, 32, 33, 36, 40, 44, 48, 52, 56, 60, 63, 64, 65, 72, 80, 88, 96,
  112, 128, 144, 160, 176, 192, 224, 256, 288, 320, 384, 448, 512];

const GEMM_SINGLE_SIZES = [256, 512, 768, 1024, 1536, 2048, 4096, 8192];

const SERIES: readonly Series[] = [
  // gemm both ways: C = A B (C not read) and, in the real types, C = A B + C (the kernels' epilogues differ).
  { op: 'gemm', route: 'cublas', series: 'batched', sizes: GEMM_BATCHED_SIZES, count: (d, n) => batchCount(d, n, 3), complex: true, betaZero: true },
  { op: 'gemm', route: 'cublas', series: 'single', sizes: GEMM_SINGLE_SIZES, count: () => 1, complex: true, betaZero: true },
  { op: 'gemm', route: 'cublas', series: 'batched', sizes: GEMM_BATCHED_SIZES, count: (d, n) => batchCount(d, n, 3), betaZero: false },
  { op: 'gemm', route: 'cublas', series: 'single', sizes: GEMM_SINGLE_SIZES, count: () => 1, betaZero: false },
  { op: 'potrf', route: 'cusolver', series: 'batched', sizes: [256, 512, 1024], count: (d, n) => batchCount(d, n) },
  { op: 'potrf', route: 'cusolver', series: 'batched', sizes: [64, 128, 256, 512], count: (d, n) => batchCount(d, n, 0.5), complex: 'only' },
  { op: 'potrf', route: 'cusolver', series: 'single', sizes: SINGLE_SIZES, count: () => 1 },
  { op: 'getrf', route: 'cusolver', series: 'single', sizes: SINGLE_SIZES, count: () => 1 },
  { op: 'syev', route: 'cusolver', series: 'batched', jobz: 'vectors', sizes: [32, 40, 48, 56, 64, 96, 128, 192, 256, 384, 512], count: (_d, n) => SYEV_COUNTS[n] ?? 1 },
  ...solves('trsm', 'cublas'),
  ...solves('getrs', 'cublas'),
  ...solves('gesv', 'cublas'),
];

/**
 * The sweep's cases for `ops` and `dtypes`, in order (complex types: the series that take them); with
 * `sms` (the card's SMs), the solves' large counts after their base ones.
 */
export function vendorGrid(ops: readonly VendorOp[], dtypes: readonly ElementType[], sms?: number): SweepCase[] {
  const out: SweepCase[] = [];
  for (const s of SERIES) {
    if (!ops.includes(s.op)) continue;
    for (const dtype of dtypes) for (const n of s.sizes) {
      if (isComplexDType(dtype) ? s.complex === undefined : s.complex === 'only') continue;
      const c: SweepCase = {
        op: s.op, route: s.route, dtype, series: s.series, n, count: s.count(dtype, n),
        ...(s.jobz ? { jobz: s.jobz } : {}), ...(s.nrhs !== undefined ? { nrhs: s.nrhs } : {}), ...(s.side ? { side: s.side } : {}),
        ...(s.betaZero !== undefined ? { betaZero: s.betaZero } : {}),
      };
      out.push(c);
      const large = sms === undefined ? 0 : SOLVE_LARGE_PER_SM * sms;
      if (s.large && large >= 2 * c.count) out.push({ ...c, count: large, level: 'large' });
    }
  }
  return out;
}

const SOLVES: readonly VendorOp[] = ['trsm', 'getrs', 'gesv'];

/** A case's prepared data: the bench's workload, with B of the case's right-hand sides for the solves. */
function prepareCase(ctx: Context, c: SweepCase, rng: Random): Prepared {
  if (isComplexDType(c.dtype)) {
    const w = c.op === 'trsm' ? complexTrsmWorkload(() => c.nrhs ?? 1) : COMPLEX_WORKLOADS[c.op as 'gemm' | 'potrf'];
    if (w === undefined) throw new Error(`no complex workload for ${c.op}`);
    return w.prepare(ctx, c.dtype, c.n, c.count, rng);
  }
  const w: Workload = SOLVES.includes(c.op) ? solveWorkload(c.op as SolveOp, c.nrhs ?? 1)
    : c.op === 'gemm' ? gemmWorkload(c.betaZero === false ? 1 : 0) : WORKLOADS[c.op as 'potrf' | 'getrf' | 'syev'];
  return w.prepare(ctx, c.dtype, c.n, c.count, rng);
}

/** Times one case: the own route (found as a capture would take it) and the vendor route, each forced. */
export function measureCase(ctx: Context, backend: CudaBackend, dev: GpuDevice, c: SweepCase, repeats: number, seed = 1): SweepRow {
  const prepared = prepareCase(ctx, c, new Random(seed));
  try {
    backend.force = {};
    prepared.reset();
    backend.captureScope(() => prepared.run());
    const own = ctx.lastRoute?.route ?? '?';
    const time = (route: string, times: number): number => {
      backend.force = { [c.op]: route };
      return timeMs(dev, () => prepared.run(), times, () => prepared.reset());
    };
    // Short calls vary by 10-20% from one timing to the next (clocks, L2): more repeats, and the two
    // routes timed in two alternating rounds, each route's best median kept.
    const probe = time(c.route, 1);
    const times = probe < 1 ? repeats * 4 : repeats;
    if (own === 'cpu') return { ...c, own, ownMs: NaN, vendorMs: Math.min(time(c.route, times), time(c.route, times)), ratio: 0 };
    let vendorMs = Infinity, ownMs = Infinity;
    for (let round = 0; round < 2; round++) {
      vendorMs = Math.min(vendorMs, time(c.route, times));
      ownMs = Math.min(ownMs, time(own, times));
    }
    return { ...c, own, ownMs, vendorMs, ratio: vendorMs / ownMs };
  } catch (e) {
    return { ...c, own: '?', ownMs: NaN, vendorMs: NaN, ratio: NaN, error: (e as Error).message };
  } finally {
    backend.force = {};
    prepared.dispose();
  }
}

/** The rules the rows imply (see the header). */
export function rulesFromRows(rows: readonly SweepRow[]): VendorRule[] {
  const key = (r: SweepRow): string => `${r.op}|${r.route}|${r.dtype}|${r.series}|${r.jobz ?? ''}|${r.nrhs ?? ''}|${r.side ?? ''}|${r.betaZero ?? ''}`;
  const series = new Map<string, Map<number, Order>>();
  for (const r of rows) {
    const orders = series.get(key(r)) ?? new Map<number, Order>();
    series.set(key(r), orders);
    const o = orders.get(r.n) ?? {};
    orders.set(r.n, r.level === 'large' ? { ...o, large: r } : { ...o, base: r });
  }
  const rules: VendorRule[] = [];
  for (const orders of series.values()) {
    const sorted = [...orders.entries()].sort(([x], [y]) => x - y).map(([n, o]) => ({ n, ...o }));
    const largest = sorted[sorted.length - 1]!.n;
    let run: (Order & { n: number })[] = [];
    let verdict = '';
    const close = (): void => {
      if (run.length === 0) return;
      const first = run[0]!, last = run[run.length - 1]!;
      const sample = (first.base ?? first.large)!;
      const base = run.flatMap((o) => (o.base ? [o.base] : [])), large = run.flatMap((o) => (o.large ? [o.large] : []));
      const lowest = (list: readonly SweepRow[]): number => Math.min(...list.map((r) => r.count));
      // Which counts the rule holds: both counts' verdicts, or the base count's where there is no large one.
      const [count, points]: [[number, number], SweepRow[]] = sample.series === 'single' ? [[1, 1], base]
        : verdict === 'both' ? [[lowest(base), Infinity], [...base, ...large]]
        : verdict === 'base' ? [[lowest(base), lowest(large) - 1], base]
        : [[lowest(large), Infinity], large];
      rules.push({
        op: sample.op, route: sample.route, dtype: sample.dtype, ...(sample.jobz ? { jobz: sample.jobz } : {}), ...(sample.side ? { side: sample.side } : {}),
        n: [first.n, last.n === largest ? Infinity : last.n],
        ...(sample.nrhs !== undefined ? { nrhs: solveNrhsRange(sample.nrhs) } : {}),
        ...(sample.betaZero !== undefined ? { betaZero: sample.betaZero } : {}),
        count, measured: points.map((r) => ({ n: r.n, count: r.count, ratio: round(r.ratio) })),
      });
      run = [];
    };
    // The bounded rules ([base, large - 1] and [large, Infinity]) hold each order's counts as measured
    // because a sweep has one large count (SOLVE_LARGE_PER_SM x the SMs), at least twice every base
    // count it stands beside.
    for (const o of sorted) {
      const v = orderVerdict(o);
      if (v !== verdict) { close(); verdict = v; }
      if (v !== 'none') run.push(o);
    }
    close();
  }
  return rules;
}

/** One order of a series: its row at the base count, and at the large count where measured. */
interface Order { readonly base?: SweepRow; readonly large?: SweepRow }

const vendorWins = (r: SweepRow | undefined): boolean => r !== undefined && Number.isFinite(r.ratio) && r.ratio < VENDOR_RATIO_MAX;

/** Where the vendor won at an order: at both counts (or at the base count where no large one was measured), the base count only, the large only, or none. */
function orderVerdict(o: Order): 'both' | 'base' | 'large' | 'none' {
  const base = vendorWins(o.base);
  const large = o.large === undefined ? base : vendorWins(o.large);
  return base && large ? 'both' : base ? 'base' : large ? 'large' : 'none';
}

/** A ratio as the table writes it: three decimals, cut (not rounded) so a point never reads above the bound it passed. */
const round = (x: number): number => Math.floor(x * 1000) / 1000;

/** The export's name and the file's for a card: 'NVIDIA H200' -> h200VendorTable in vendor-h200.ts. */
export function tableNames(card: string): { constant: string; file: string } {
  const words = card.replace(/^NVIDIA\s+/i, '').split(/[^A-Za-z0-9]+/).filter((w) => w.length > 0).map((w) => w.toLowerCase());
  const camel = words.map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join('');
  return { constant: `${camel || 'card'}VendorTable`, file: `vendor-${words.join('-') || 'card'}.ts` };
}

/** The table as the source of model/tuning/vendor-<card>.ts. */
export function tableSource(card: string, provenance: string, command: string, rules: readonly VendorRule[]): string {
  const num = (x: number): string => (x === Infinity ? 'Infinity' : String(x));
  const lines = rules.map((r) => {
    const points = r.measured.map((p) => `{ n: ${p.n}, count: ${p.count}, ratio: ${p.ratio} }`).join(', ');
    return `    { op: '${r.op}', route: '${r.route}', dtype: '${r.dtype}', ${r.jobz ? `jobz: '${r.jobz}', ` : ''}${r.side ? `side: '${r.side}', ` : ''}` +
      `n: [${num(r.n[0])}, ${num(r.n[1])}], ${r.nrhs ? `nrhs: [${num(r.nrhs[0])}, ${num(r.nrhs[1])}], ` : ''}${r.betaZero !== undefined ? `betaZero: ${r.betaZero}, ` : ''}` +
      `count: [${num(r.count[0])}, ${num(r.count[1])}],\n      measured: [${points}] },`;
  });
  return `import type { VendorTable } from './vendor-types.js';

/**
 * ${provenance}. Measured with \`${command}\`: each vendor route against the own route on the same
 * device-resident data (CUDA events, the median after a warm-up). A rule spans the measured orders
 * of one series where the vendor took less than ${VENDOR_RATIO_MAX} of the own time (to Infinity where
 * it won at the largest order measured), counts from the smallest measured up; single-matrix rules
 * take one matrix; a solve's rule spans the right-hand sides from its series' count to the next
 * series' (${SOLVE_NRHS.join(', ')} and more; trsm: the side measured) and, where the solves were
 * measured at two counts, the counts where the vendor won (from the base count up, below the large
 * count, or from it up). Elsewhere the own routes run.
 */
export const ${tableNames(card).constant}: VendorTable = {
  card: ${JSON.stringify(card)},
  provenance: ${JSON.stringify(`${provenance}; ${command}`)},
  rules: [
${lines.join('\n')}
  ],
};
`;
}

/** The rows as a markdown table (for BENCHMARKS.md). */
export function rowsMarkdown(rows: readonly SweepRow[]): string {
  const head = '| op | route | dtype | n | count | own route | own ms | vendor ms | vendor / own |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |';
  const f = (x: number): string => (Number.isFinite(x) ? x.toFixed(3) : '-');
  const label = (r: SweepRow): string => `${r.op}${r.jobz ? ` (${r.jobz})` : ''}${r.nrhs !== undefined ? ` (nrhs ${r.nrhs}${r.side ? `, ${r.side}` : ''})` : ''}${r.betaZero === false ? ' (+ C)' : ''}`;
  return [head, ...rows.map((r) => `| ${label(r)} | ${r.route} | ${r.dtype} | ${r.n} | ${r.count} | ${r.own} | ${f(r.ownMs)} | ${f(r.vendorMs)} | ${r.error ? `failed: ${r.error}` : r.own === 'cpu' ? 'own is the CPU reference' : r.ratio.toFixed(2)} |`)].join('\n');
}
