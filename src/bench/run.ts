/**
 * `myriad bench`: one row per size. Timing: warm-up calls (compiles, loads, first touch, V8's
 * optimised host code: BENCH_WARMUP, at least 3 calls and 200 ms), a wait for background compiles, then
 * `repeats` timed calls on fresh data (in-place inputs restored, untimed, before each), median.
 * On CUDA the data stays on the device and each call is timed with CUDA events; the vendor
 * routine, where one exists, runs on the same data in the same process.
 *
 * Bytes count each input read once and each output written once (core/counts.ts). The roofline
 * is min(peak flops, arithmetic intensity x measured copy bandwidth), the copy bandwidth measured
 * at start-up as (bytes read + bytes written) / time of one large device-to-device copy.
 */
import type { Context } from '../api/context.js';
import type { ElementType } from '../core/dtype.js';
import { elementInfo } from '../core/dtype-table.js';
import type { Storage } from '../core/storage.js';
import type { ModuleStats } from '../core/device-backend.js';
import { Random } from './data.js';
import { BENCH_WARMUP, median } from '../core/stats.js';
import type { Column } from './table.js';
import { benchWorkload, type BenchOp } from './workloads.js';
import { progress, progressDone } from './progress.js';
import { VendorError } from '../cuda/runtime/errors.js';

export interface BenchRow {
  op: string;
  dtype: ElementType;
  n: number;
  batch: number;
  backend: string;
  /** The route the router took on a device (router.ts candidate names); 'cpu (fallback)' where a GPU context ran the CPU reference. */
  route?: string;
  ms: number;
  /**
   * The row's first call (wall clock, waited for): compile or load of its kernels included. Each
   * row's first call finds the kernels of earlier rows in memory; `firstFrom` says what it did.
   */
  firstMs?: number;
  /** 'N compiled', 'N from disk', both, or 'memory' (every kernel already loaded). */
  firstFrom?: string;
  gflops: number;
  gbs: number;
  /** Percent of the roofline, where the machine's limits are known. */
  roofline?: number;
  vendor?: string;
  vendorMs?: number;
  vendorGflops?: number;
  speedup?: number;
  /** What the numbers do not say: the own call ran on the CPU reference, the vendor's result was wrong. */
  note?: string;
}

/**
 * A vendor run; `measuredMs` where the vendor timed itself (numpy, in its own process); `check`,
 * where the vendor's result is checked: called once after its timed runs (the arrays then hold its
 * result of fresh data), untimed, it gives the row's note where that result is wrong.
 */
export interface VendorRun {
  run(): void; dispose(): void; measuredMs?: number; check?(): string | undefined;
  /** What ran where it is not the baseline's own routine (the vendor column names it after the baseline). */
  readonly routine?: string;
}

/**
 * Several routines of the vendor's for one row (its batched Jacobi, its batched syev, a stream of
 * dense calls): each prepared, timed and disposed in turn, so that one holds its workspace at a
 * time; the row keeps the fastest and names it, and notes the others' times (or failures).
 */
export interface VendorChoice {
  readonly candidates: readonly { readonly routine: string; prepare(): VendorRun }[];
}

/** A vendor library's routine for an op (cuBLAS, cuSOLVER), run on the same device data. */
export interface VendorBaseline {
  readonly name: string;
  /**
   * The vendor routine on these arrays and a dispose of what it allocated (or a choice of routines,
   * each prepared when it is timed), or undefined where it has none. Called after the own timed
   * runs: the arrays hold the own result of fresh data.
   */
  prepare(op: BenchOp, dtype: ElementType, n: number, count: number, arrays: Record<string, Storage>): VendorRun | VendorChoice | undefined;
}

const isVendorChoice = (v: VendorRun | VendorChoice): v is VendorChoice => 'candidates' in v;

/** A vendor library call made ready (its parameters and workspace), freed by dispose. */
export interface VendorCall { run(): void; dispose(): void }

/**
 * One routine of a choice: its info array (`info()`) and its call (`make`) made when it is timed,
 * both freed after; `check`, where given, judges its result after its timed runs.
 */
export function vendorCandidate<I extends { dispose(): void }>(
  routine: string, info: () => I, make: (info: I) => VendorCall, check?: () => string | undefined,
): VendorChoice['candidates'][number] {
  return {
    routine,
    prepare: (): VendorRun => {
      const ints = info();
      let call: VendorCall;
      try { call = make(ints); } catch (e) { ints.dispose(); throw e; }
      return { run: () => call.run(), dispose: () => { call.dispose(); ints.dispose(); }, ...(check ? { check } : {}) };
    },
  };
}

export interface MachineLimits {
  /** Copy bandwidth in GB/s (read + write). */
  bandwidthGBs: number;
  /** Peak GFLOP/s per dtype, where known (a complex type's is its parts'). */
  peakGflops?: Partial<Record<ElementType, number>>;
}

export interface BenchOptions {
  op: BenchOp;
  /** A real dtype, or complex128 / complex64 (interleaved pairs; gemm). */
  dtype: ElementType;
  sizes: readonly number[];
  /** Matrices per call; default: enough for `targetBytes` of matrices. */
  batch?: number;
  targetBytes?: number;
  repeats?: number;
  seed?: number;
  limits?: MachineLimits;
  vendor?: VendorBaseline;
}

import { defaultBatch } from '../core/bench-batch.js';

export { defaultBatch, gpuBenchBatch } from '../core/bench-batch.js';

/**
 * MYRIAD_BENCH_CLOCK=cpu times CPU backend calls by the process's CPU time instead of the wall
 * clock: for one-thread comparisons on a machine that other jobs share (numpy does the same).
 */
function timed(ctx: Context, run: () => void): number {
  if (process.env.MYRIAD_BENCH_CLOCK !== 'cpu' || ctx.backend !== 'cpu') return ctx.time(run);
  const t0 = process.cpuUsage();
  ctx.time(run);
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / 1000;
}

function timeRepeats(ctx: Context, run: () => void, reset: () => void, repeats: number): number {
  const start = performance.now();
  for (let w = 0; w < BENCH_WARMUP.calls || performance.now() - start < BENCH_WARMUP.ms; w++) {
    reset();
    timed(ctx, run);
  }
  // Background compiles of optimised builds (for this row's quick builds, or an earlier row's) take
  // the host's cores; a launch they delay between a call's CUDA events is counted in its time.
  ctx.deviceBackend?.settleBuilds?.();
  const times: number[] = [];
  for (let r = 0; r < repeats; r++) {
    reset();
    times.push(timed(ctx, run));
  }
  return median(times);
}

/** The first call's wall time (waited for: ctx.time) and, on a device, what its kernels came from. */
function firstCall(ctx: Context, run: () => void): { ms: number; from?: string } {
  const stats = (): ModuleStats | undefined => ctx.deviceBackend?.moduleStats?.();
  const before = stats();
  const t0 = performance.now();
  ctx.time(run);
  const ms = performance.now() - t0;
  const after = stats();
  if (!before || !after) return { ms };
  const compiled = after.compiles - before.compiles, disk = after.diskHits - before.diskHits;
  const parts = [...(compiled > 0 ? [`${compiled} compiled`] : []), ...(disk > 0 ? [`${disk} from disk`] : [])];
  return { ms, from: parts.length > 0 ? parts.join(', ') : 'memory' };
}

/** What a row's vendor column says: the routine named, its time where it ran, the notes. */
interface VendorOutcome {
  readonly vendor: string;
  readonly ms?: number;
  readonly notes: readonly string[];
}

/**
 * A vendor library's own failure (a cuSOLVER status, its workspace out of memory) as the row writes
 * it: the benchmark goes on (the vendor's batched eigensolvers fail on shapes where ours run).
 * Anything else is rethrown.
 */
function vendorFailure(e: unknown): string {
  if (!(e instanceof VendorError || (e instanceof Error && /OUT_OF_MEMORY/.test(e.message)))) throw e;
  return e.message.replace(/\s+/g, ' ');
}

/** One vendor run: timed (or its own time), checked once, disposed. */
function timeVendorRun(ctx: Context, run: VendorRun, reset: () => void, repeats: number): { ms: number; wrong?: string } {
  try {
    const ms = run.measuredMs ?? timeRepeats(ctx, run.run, reset, repeats);
    const wrong = run.check?.();
    return wrong === undefined ? { ms } : { ms, wrong };
  } finally {
    run.dispose();
  }
}

/**
 * The vendor's column of a row: its routine timed on the row's arrays; of a choice of routines,
 * the fastest, with the others' times (or failures) in the notes. Undefined where it has none.
 */
function timeVendor(ctx: Context, baseline: VendorBaseline, prepare: () => VendorRun | VendorChoice | undefined, reset: () => void, repeats: number): VendorOutcome | undefined {
  let prepared: VendorRun | VendorChoice | undefined;
  try {
    prepared = prepare();
  } catch (e) {
    return { vendor: `${baseline.name}: ${vendorFailure(e)}`, notes: [] };
  }
  if (prepared === undefined) return undefined;
  if (!isVendorChoice(prepared)) {
    try {
      const { ms, wrong } = timeVendorRun(ctx, prepared, reset, repeats);
      return { vendor: prepared.routine === undefined ? baseline.name : `${baseline.name} ${prepared.routine}`, ms, notes: wrong === undefined ? [] : [wrong] };
    } catch (e) {
      return { vendor: `${baseline.name}: ${vendorFailure(e)}`, notes: [] };
    }
  }
  const timed: { routine: string; ms: number; wrong?: string }[] = [];
  const failed: string[] = [];
  for (const c of prepared.candidates) {
    try {
      timed.push({ routine: c.routine, ...timeVendorRun(ctx, c.prepare(), reset, repeats) });
    } catch (e) {
      failed.push(`${c.routine} failed (${vendorFailure(e)})`);
    }
  }
  if (timed.length === 0) return { vendor: `${baseline.name}: ${failed.join('; ')}`, notes: [] };
  const best = timed.reduce((x, y) => (y.ms < x.ms ? y : x));
  const others = [...timed.filter((t) => t !== best).map((t) => `${t.routine} ${t.ms.toFixed(3)} ms`), ...failed];
  const notes = [...(best.wrong === undefined ? [] : [best.wrong]), ...(others.length > 0 ? [`the vendor's other routines: ${others.join(', ')}`] : [])];
  return { vendor: `${baseline.name} ${best.routine}`, ms: best.ms, notes };
}

export function runBench(ctx: Context, options: BenchOptions): BenchRow[] {
  const { op, dtype } = options;
  const workload = benchWorkload(op, dtype);
  const repeats = options.repeats ?? 5;
  const rows: BenchRow[] = [];
  const rng = new Random(options.seed ?? 2026);
  for (const n of options.sizes) {
    const batch = options.batch ?? defaultBatch(op, dtype, n, options.targetBytes ?? 64 << 20);
    progress(`bench ${op} ${dtype} n=${n} batch=${batch} on ${ctx.backend} ...`);
    const cost = workload.cost(n);
    const prepared = workload.prepare(ctx, n, batch, rng);
    try {
      const first = firstCall(ctx, prepared.run);
      const ms = timeRepeats(ctx, prepared.run, prepared.reset, repeats);
      const gflops = (cost.flops * batch) / (ms * 1e6);
      const row: BenchRow = { op, dtype, n, batch, backend: ctx.backend, ms, firstMs: first.ms, ...(first.from ? { firstFrom: first.from } : {}), gflops, gbs: (cost.bytes * batch) / (ms * 1e6) };
      const taken = ctx.lastRoute;
      if (taken !== undefined) row.route = `${taken.op === op ? '' : `${taken.op}: `}${taken.gpu ? taken.route : 'cpu (fallback)'}`;
      const notes: string[] = [];
      if (taken !== undefined && !taken.gpu) notes.push('ours ran on the CPU reference (copies of device data)');
      if (options.limits) {
        const peak = options.limits.peakGflops?.[elementInfo(dtype).real] ?? Infinity;
        row.roofline = (100 * gflops) / Math.min(peak, (cost.flops / cost.bytes) * options.limits.bandwidthGBs);
      }
      if (options.vendor) {
        const outcome = timeVendor(ctx, options.vendor, () => options.vendor!.prepare(op, dtype, n, batch, prepared.arrays), prepared.reset, repeats);
        if (outcome !== undefined) {
          row.vendor = outcome.vendor;
          if (outcome.ms !== undefined) {
            row.vendorMs = outcome.ms;
            row.vendorGflops = (cost.flops * batch) / (outcome.ms * 1e6);
            row.speedup = outcome.ms / ms;
          }
          notes.push(...outcome.notes);
        }
      }
      if (notes.length > 0) row.note = notes.join('; ');
      rows.push(row);
    } finally {
      prepared.dispose();
    }
  }
  progressDone();
  return rows;
}

export const BENCH_COLUMNS: readonly Column<BenchRow>[] = [
  { header: 'op', value: (r) => r.op },
  { header: 'dtype', value: (r) => r.dtype },
  { header: 'n', value: (r) => r.n },
  { header: 'batch', value: (r) => r.batch },
  { header: 'backend', value: (r) => r.backend },
  { header: 'route', value: (r) => r.route, optional: true },
  { header: 'ms', value: (r) => r.ms, digits: 3 },
  { header: 'first ms', value: (r) => r.firstMs, digits: 1, optional: true },
  { header: 'first from', value: (r) => r.firstFrom, optional: true },
  { header: 'GFLOP/s', value: (r) => r.gflops, digits: 1 },
  { header: 'GB/s', value: (r) => r.gbs, digits: 1 },
  { header: '%roof', value: (r) => r.roofline, digits: 1, optional: true },
  { header: 'vendor', value: (r) => r.vendor, optional: true },
  { header: 'vendor ms', value: (r) => r.vendorMs, digits: 3, optional: true },
  { header: 'vendor GFLOP/s', value: (r) => r.vendorGflops, digits: 1, optional: true },
  { header: 'speed-up', value: (r) => r.speedup, digits: 2, optional: true },
  { header: 'note', value: (r) => r.note, optional: true },
];
