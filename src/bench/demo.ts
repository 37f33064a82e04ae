/**
 * The main job (`npm start`, `myriad demo`): realistic batched workloads on the best backend —
 * 100,000 SPD 8x8 systems solved with posv and 10,000 general 64x64 systems with gesv — with the
 * time, GFLOP/s and the worst normalised residual ||A x - b|| / (||A|| ||x|| n eps) of each.
 * On a GPU the data is uploaded first and the timed call runs on device-resident batches.
 */
import { Context } from '../api/context.js';
import { planWarmCalls } from '../api/warm.js';
import { warmAhead } from '../api/warm-ahead.js';
import { strided } from '../core/batch.js';
import { counts } from '../core/counts.js';
import { isInt32Array, type DType, type FloatArray } from '../core/dtype.js';
import type { DeviceStorage, Storage } from '../core/storage.js';
import { Random, randomGeneral, randomMatrices, randomSpd } from './data.js';
import { maxSolveResidual } from './residual.js';
import type { Column } from './table.js';
import { progress, progressDone } from './progress.js';

export interface DemoRow {
  workload: string;
  dtype: DType;
  n: number;
  batch: number;
  backend: string;
  ms: number;
  gflops: number;
  residual: number;
  failed: number;
}

export interface DemoCase { name: 'posv' | 'gesv'; n: number; batch: number; nrhs: number }

export const DEMO_CASES: readonly DemoCase[] = [
  { name: 'posv', n: 8, batch: 100_000, nrhs: 1 },
  { name: 'gesv', n: 64, batch: 10_000, nrhs: 1 },
];

/**
 * On a GPU, the kernels of every case compiled up front, each case's on the compile workers at once
 * (api/warm.ts plans them from the cases' own calls), while this thread makes the data and runs the
 * cases whose kernels are ready: a first run with an empty cache waits for a case's slowest kernel
 * less the time the earlier cases took (data, run, residual check), not for the sum of the compiles
 * (`npm start`'s cold start), and each case's time is its kernels' alone.
 */
async function warmCases(ctx: Context, dtype: DType, cases: readonly DemoCase[]): Promise<void> {
  await ctx.deviceBackend?.warm?.((planning) => planCases(new Context(ctx.backend, planning, planning, () => {}), dtype, cases));
}

/** The cases' calls, made on a planning context. */
function planCases(planning: Context, dtype: DType, cases: readonly DemoCase[]): void {
  for (const c of cases) planWarmCalls(planning, c.name, dtype, [{ n: c.n, count: c.batch }], { sizes: [c.n], nrhs: c.nrhs });
}

/**
 * Where a GPU is usable, the cases' kernels start compiling before the context opens (a batch per
 * case, so each case waits for its own; api/warm-ahead.ts): `npm start` with an empty cache then
 * waits for the slowest kernel from the driver's start, not from the context's. runDemo's warm
 * waits for these builds; a failed one is compiled and reported by the case that needs it.
 */
export function warmDemoAhead(dtypes: readonly DType[], cases: readonly DemoCase[] = DEMO_CASES): void {
  for (const dtype of dtypes) for (const c of cases) warmAhead((planning) => planCases(planning, dtype, [c]))?.catch(() => {});
}

export async function runDemo(ctx: Context, dtype: DType = 'float64', cases: readonly DemoCase[] = DEMO_CASES): Promise<DemoRow[]> {
  const rng = new Random(7);
  const warming = cases.map((c) => warmCases(ctx, dtype, [c]));
  // Awaited case by case below; a later case's failure must not go unhandled while an earlier one runs.
  for (const w of warming) w.catch(() => {});
  const rows: DemoRow[] = [];
  for (const [i, c] of cases.entries()) {
    progress(`demo: making ${c.batch} ${c.name} ${c.n}x${c.n} ${dtype} ...`);
    const a = c.name === 'posv' ? randomSpd(dtype, c.n, c.batch, rng) : randomGeneral(dtype, c.n, c.batch, rng);
    const b = randomMatrices(dtype, c.n, c.nrhs, c.batch, rng);
    // Uploaded while the case's kernels may still compile: the copies are off a cold start's critical path.
    const onDevice = ctx.backend !== 'cpu';
    const place = (h: FloatArray): Storage => (onDevice ? ctx.upload(h) : h.slice() as FloatArray);
    const aWork = place(a);
    const bWork = place(b);
    await warming[i];
    progress(`demo: ${c.batch} ${c.name} ${c.n}x${c.n} ${dtype} on ${ctx.backend} ...`);
    const A = strided(aWork, { rows: c.n, count: c.batch });
    const B = strided(bWork, { rows: c.n, cols: c.nrhs, count: c.batch });
    let info: Int32Array | undefined;
    const ms = ctx.time(() => {
      const r = c.name === 'posv' ? ctx.posv({ a: A, b: B, uplo: 'lower' }) : ctx.gesv({ a: A, b: B });
      info = isInt32Array(r.info) ? r.info : (ctx.download(r.info as DeviceStorage) as Int32Array);
    });
    const x = onDevice ? (ctx.download(bWork as DeviceStorage) as FloatArray) : (bWork as FloatArray);
    if (onDevice) for (const d of [aWork, bWork]) (d as DeviceStorage & { dispose(): void }).dispose();
    const cost = c.name === 'posv' ? counts.posv(dtype, c.n, c.nrhs) : counts.gesv(dtype, c.n, c.nrhs);
    rows.push({
      workload: `${c.name} ${c.n}x${c.n}`, dtype, n: c.n, batch: c.batch, backend: ctx.backend, ms,
      gflops: (cost.flops * c.batch) / (ms * 1e6),
      residual: maxSolveResidual(dtype, a, x, b, c.n, c.nrhs, c.batch),
      failed: info ? info.reduce((s, v) => s + (v !== 0 ? 1 : 0), 0) : 0,
    });
  }
  progressDone();
  return rows;
}

export const DEMO_COLUMNS: readonly Column<DemoRow>[] = [
  { header: 'workload', value: (r) => r.workload },
  { header: 'dtype', value: (r) => r.dtype },
  { header: 'batch', value: (r) => r.batch },
  { header: 'backend', value: (r) => r.backend },
  { header: 'ms', value: (r) => r.ms, digits: 2 },
  { header: 'GFLOP/s', value: (r) => r.gflops, digits: 2 },
  // ||A x - b|| / (||A|| ||x|| n eps): O(1) is a backward-stable solve.
  { header: 'max residual (n eps)', value: (r) => r.residual, digits: 3 },
  { header: 'failed', value: (r) => r.failed },
];
