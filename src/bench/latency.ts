/**
 * `myriad bench latency --backend cuda [--sizes 8] [--format markdown]`: the cost of one call on
 * small device-resident batches (float64, n = 8 by default; 1 ... 10,000 matrices), two ways:
 * - in a row: R calls enqueued back to back, then one wait, divided by R (the host's cost per
 *   call where it exceeds the GPU's, the GPU's otherwise);
 * - call + sync: one call then a wait for the stream, median of many (what a solver stepping
 *   once per time step sees).
 * Forms: plain calls, prepared calls (ctx.prepare), a captured pipeline (ctx.capture) of the
 * 4 calls of a filter step (gemm, potrf, trsm, gemm; its rows are per call, a quarter of a
 * replay), and the vendor routines (cuBLAS gemmStridedBatched, cuSOLVER potrfBatched) timed the
 * same way on the same data in the same process. potrf factors identity matrices (their factor
 * is themselves, so every repeat sees the same data) and gets an info array, as the vendor does.
 */
import type { Context } from '../api/context.js';
import { strided } from '../core/batch.js';
import { MyriadError } from '../core/errors.js';
import type { DeviceStorage } from '../core/storage.js';
import { CudaBackend } from '../cuda/backend.js';
import { Cublas, Cusolver, batchPointers } from '../cuda/baselines/index.js';
import type { DeviceArray, GpuDevice } from '../cuda/runtime/types.js';
import { randomMatrices, Random } from './data.js';
import { registerBenchExtras } from './extras.js';
import { progress, progressDone } from './progress.js';
import { formatTable, type Column } from './table.js';

export const LATENCY_COUNTS: readonly number[] = [1, 10, 100, 1000, 10000];

export interface LatencyRow {
  op: 'gemm' | 'potrf' | 'pipeline';
  form: 'plain' | 'prepared' | 'captured' | 'vendor';
  n: number;
  count: number;
  /** Microseconds per call, many calls in a row then one wait. */
  rowUs: number;
  /** Microseconds of one call and a wait (median). */
  syncUs: number;
}

export const LATENCY_COLUMNS: readonly Column<LatencyRow>[] = [
  { header: 'op', value: (r) => r.op },
  { header: 'form', value: (r) => r.form },
  { header: 'n', value: (r) => r.n },
  { header: 'count', value: (r) => r.count },
  { header: 'us/call in a row', value: (r) => r.rowUs, digits: 1 },
  { header: 'us call + sync', value: (r) => r.syncUs, digits: 1 },
];

/** Calls per in-a-row measurement: enough to hide the final wait, bounded for the large batches. */
const inARow = (count: number): number => (count <= 100 ? 3000 : count <= 1000 ? 1000 : 300);
const SYNC_REPEATS = 300;

/** [us per call in a row, median us of call + sync], after a warm-up; `calls` is the calls one `run` makes. */
function measure(run: () => void, sync: () => void, count: number, calls = 1): [number, number] {
  const r = inARow(count);
  // A warm-up long enough for V8 to optimise the call path (20 calls left the first row measured,
  // count = 1, paying for it: 13.5 us against 6.8 at count = 10 on an H100).
  for (let i = 0; i < Math.max(100, r >> 2); i++) run();
  sync();
  const t0 = performance.now();
  for (let i = 0; i < r; i++) run();
  sync();
  const rowUs = ((performance.now() - t0) * 1000) / r / calls;
  const times: number[] = [];
  for (let i = 0; i < SYNC_REPEATS; i++) {
    const t = performance.now();
    run();
    sync();
    times.push((performance.now() - t) * 1000);
  }
  times.sort((x, y) => x - y);
  return [rowUs, times[times.length >> 1]! / calls];
}

function identities(n: number, count: number): Float64Array {
  const a = new Float64Array(n * n * count);
  for (let m = 0; m < count; m++) for (let j = 0; j < n; j++) a[m * n * n + j * n + j] = 1;
  return a;
}

export function benchLatency(ctx: Context, dev: GpuDevice, n = 8, counts: readonly number[] = LATENCY_COUNTS): LatencyRow[] {
  const rows: LatencyRow[] = [];
  const sync = (): void => dev.synchronize();
  const blas = new Cublas(dev);
  const solver = new Cusolver(dev);
  const owned: DeviceStorage[] = [];
  const up = (h: Float64Array): DeviceStorage => { const d = ctx.upload(h); owned.push(d); return d; };
  const row = (op: LatencyRow['op'], form: LatencyRow['form'], count: number, run: () => void, calls = 1): void => {
    progress(`latency ${op} ${form} n=${n} count=${count}`);
    const [rowUs, syncUs] = measure(run, sync, count, calls);
    rows.push({ op, form, n, count, rowUs, syncUs });
  };
  try {
    for (const count of counts) {
      const rng = new Random(count);
      const len = n * n * count;
      const batch = (d: DeviceStorage) => strided(d, { rows: n, count });
      const [a, b, c] = [up(randomMatrices('float64', n, n, count, rng) as Float64Array), up(randomMatrices('float64', n, n, count, rng) as Float64Array), up(new Float64Array(len))];
      const gemmArgs = { a: batch(a), b: batch(b), c: batch(c) };
      row('gemm', 'plain', count, () => ctx.gemm(gemmArgs));
      const g = ctx.prepare.gemm(gemmArgs);
      row('gemm', 'prepared', count, () => g());
      const [da, db, dc] = [a, b, c] as DeviceArray[];
      row('gemm', 'vendor', count, () => blas.gemmStridedBatched('float64', 'N', 'N', n, n, n, 1, da!, n, n * n, db!, n, n * n, 0, dc!, n, n * n, count));

      const eye = up(identities(n, count));
      const info = ctx.alloc('int32', count);
      owned.push(info);
      const potrfArgs = { a: batch(eye), info };
      row('potrf', 'plain', count, () => ctx.potrf(potrfArgs));
      const p = ctx.prepare.potrf(potrfArgs);
      row('potrf', 'prepared', count, () => p());
      const pointers = batchPointers(dev, eye as DeviceArray, count, n * n);
      try {
        row('potrf', 'vendor', count, () => solver.potrfBatched('float64', 'lower', n, pointers, n, info as DeviceArray, count));
      } finally {
        pointers.dispose();
      }

      // A filter step: S := H H^T; S = L L^T; X := L^-1 X; X := H I (X back to H for the next step).
      const h = a;
      const s = up(new Float64Array(len));
      const x = up(randomMatrices('float64', n, n, count, rng) as Float64Array);
      const steps = [
        { op: 'gemm', args: { transB: 'T' as const, a: batch(h), b: batch(h), c: batch(s) } },
        { op: 'potrf', args: { a: batch(s), info } },
        { op: 'trsm', args: { side: 'left' as const, uplo: 'lower' as const, a: batch(s), b: batch(x) } },
        { op: 'gemm', args: { a: batch(h), b: batch(eye), c: batch(x) } },
      ] as const;
      const plainStep = (): void => {
        ctx.gemm(steps[0].args);
        ctx.potrf(steps[1].args);
        ctx.trsm(steps[2].args);
        ctx.gemm(steps[3].args);
      };
      ctx.copy(h, x);
      row('pipeline', 'plain', count, plainStep, 4);
      const prepared = [ctx.prepare.gemm(steps[0].args), ctx.prepare.potrf(steps[1].args), ctx.prepare.trsm(steps[2].args), ctx.prepare.gemm(steps[3].args)];
      row('pipeline', 'prepared', count, () => { for (const f of prepared) f(); }, 4);
      const captured = ctx.capture(plainStep);
      try {
        row('pipeline', 'captured', count, () => captured.replay(), 4);
      } finally {
        captured.dispose();
      }
      sync();
      for (const d of owned.splice(0)) (d as DeviceArray).dispose();
    }
  } finally {
    progressDone();
    sync();
    for (const d of owned) (d as DeviceArray).dispose();
    blas.dispose();
    solver.dispose();
  }
  return rows;
}

registerBenchExtras({
  names: ['latency'],
  async run(_name, ctx, options) {
    const backend = ctx.deviceBackend;
    if (!(backend instanceof CudaBackend)) throw new MyriadError('BACKEND_UNAVAILABLE', 'the latency benchmark needs a CUDA context (--backend cuda)', '--backend');
    const sizes = options.sizes === undefined ? [8] : options.sizes.split(',').map(Number);
    const rows: LatencyRow[] = [];
    for (const n of sizes) {
      if (!Number.isInteger(n) || n < 1 || n > 32) throw new MyriadError('INVALID_ARGUMENT', `sizes from 1 to 32, got ${n}`, '--sizes');
      rows.push(...benchLatency(ctx, backend.device, n));
    }
    console.log(formatTable(rows, LATENCY_COLUMNS, options.style));
    return rows as unknown as Record<string, unknown>[];
  },
});
