/**
 * `myriad bench <op> --devices all|0,1`: the same workloads as `myriad bench`, with the data
 * spread over the devices (scattered once, untimed) and each call timed with events on every
 * device; first on one device, then on all the listed ones, so every multi-device row carries its
 * scaling efficiency against one device measured in the same run:
 *   efficiency = GFLOP/s on k devices / (k x GFLOP/s on one device).
 * Per device: its share of the batch, its own event time and GFLOP/s.
 *
 * One more row per device set starts from host memory: upload + compute + download of host
 * batches (the wall clock of the synchronous call; on several GPUs spread over all of them), with
 * the bytes that crossed the host link per millisecond (`link GB/s`, counted by the backend), the
 * pinned link bandwidth measured in the same run (`pinned GB/s`, per GPU), the one-direction-at-a-time
 * roofline (those bytes at that bandwidth on every GPU's link, as a percentage of the measured
 * time), and the machine's aggregate pinned roofline (link.ts aggregateLinkBandwidth: every GPU at
 * once, up, down and both ways: max(up / up rate, down / down rate, both / both rate) over the
 * measured time). On several GPUs a `host-auto` row runs the same call as the context decides by
 * default (the crossover: `GPUs used`).
 *
 * `callMs`: instead of a batch of about 512 MiB, batches sized so that the device-resident call
 * takes about that many milliseconds on one GPU (measured on a trial batch, scaled), one set of
 * rows per length: the scaling of short and long calls.
 */
import type { Context } from '../api/context.js';
import { Random, randomGeneral, randomMatrices, randomSpd } from './data.js';
import { defaultBatch, runBench, type BenchRow } from './run.js';
import { median } from '../core/stats.js';
import type { Column } from './table.js';
import { workloadFor, BENCH_NRHS, type BenchOp } from './workloads.js';
import { strided } from '../core/batch.js';
import type { DType, FloatArray } from '../core/dtype.js';
import { MultiDeviceContext } from '../api/multi-context.js';
import type { DeviceSelection } from '../cuda/multi/open.js';
import { openMultiDevice } from '../api/multi-open.js';
import { splitCounts } from '../cuda/multi/split.js';
import { progress, progressDone } from './progress.js';
import { aggregateLinkBandwidth, aggregateRooflineMs, linkBandwidth, type AggregateBandwidth } from '../cuda/host/link.js';
import type { Spread } from '../cuda/multi/crossover.js';
import type { HostOutputs } from '../cuda/host/staging.js';

export interface DeviceShare {
  ordinal: number;
  name: string;
  batch: number;
  ms: number;
  gflops: number;
}

export interface MultiBenchRow extends BenchRow {
  /** The GPU ordinals, e.g. '0,1'. */
  devices: string;
  /**
   * 'resident': data on the devices; 'captured': the same call recorded once by ctx.capture and
   * replayed (one graph launch a GPU); 'host-start': host batches, upload + compute + download, on
   * every GPU; 'host-auto': the same as the crossover spreads it.
   */
  mode: 'resident' | 'captured' | 'host-start' | 'host-auto';
  perDevice?: DeviceShare[];
  /** GFLOP/s / (devices x the one-device GFLOP/s of the same mode), in percent. */
  efficiency?: number;
  /** host-start: bytes host <-> device per millisecond of the call, GB/s. */
  linkGBs?: number;
  /** host-start: the pinned link measured in the same run (per GPU, mean of both directions), GB/s. */
  pinnedGBs?: number;
  /** host-start: the host-path roofline (bytes up + bytes down over every GPU's pinned link) over the measured time, percent. */
  linkRoofline?: number;
  /** host-start: the machine's aggregate pinned bandwidth, both directions at once on every GPU of the row, GB/s. */
  aggregateGBs?: number;
  /** host-start: the aggregate roofline (aggregateRooflineMs of the call's bytes) over the measured time, percent. */
  aggregateRoofline?: number;
  /** host-auto: the GPUs the context's crossover chose. */
  gpusUsed?: number;
  /** The one-GPU call length the batch was sized for (callMs), ms. */
  targetMs?: number;
}

export interface MultiBenchOptions {
  op: BenchOp;
  dtypes: readonly DType[];
  sizes: readonly number[];
  batch?: number;
  repeats?: number;
  /** Bytes of matrices per call when `batch` is not given (default 512 MiB). */
  targetBytes?: number;
  /** Bytes of the copy that measures each GPU's pinned link (default 256 MiB). */
  linkBytes?: number;
  /** One-GPU call lengths (ms) to size the batches for, instead of `batch` / `targetBytes`. */
  callMs?: readonly number[];
  /** How host-start calls' outputs come back (default: the context's, 'duplex'). */
  hostOutputs?: HostOutputs;
}

/** A view that keeps every device's time of each timed call. */
class RecordingContext extends MultiDeviceContext {
  readonly samples: number[][] = [];
  override time(fn: () => void): number {
    const ms = super.time(fn);
    this.samples.push([...this.lastDeviceTimes]);
    return ms;
  }
}

/** `open` gives the context of a device set (the real GPUs by default; tests pass fakes). */
export function runMultiBench(selection: DeviceSelection, options: MultiBenchOptions, open: (set: DeviceSelection) => MultiDeviceContext = openMultiDevice): MultiBenchRow[] {
  const all = open(selection);
  console.error(`backend: ${all.describe()}`);
  const sets = all.devices.length > 1 ? [[all.devices[0]!], all.devices] : [all.devices];
  const rows: MultiBenchRow[] = [];
  for (const dtype of options.dtypes) {
    for (const n of options.sizes) {
      const batches = options.callMs
        ? options.callMs.map((ms) => ({ batch: batchForMs(open(sets[0]!), options, dtype, n, ms), targetMs: ms }))
        : [{ batch: options.batch ?? defaultBatch(options.op, dtype, n, options.targetBytes ?? 512 << 20), targetMs: undefined }];
      for (const { batch, targetMs } of batches) {
        const base: Partial<Record<MultiBenchRow['mode'], number>> = {};
        for (const set of sets) {
          const ctx = open(set);
          const host = set.length > 1 ? [hostStart(ctx, options, dtype, n, batch, 'all'), hostStart(ctx, options, dtype, n, batch, 'auto')] : [hostStart(ctx, options, dtype, n, batch, 'all')];
          const onDevice = resident(ctx, options, dtype, n, batch);
          for (const row of [onDevice, captured(ctx, options, dtype, n, batch, onDevice), ...host]) {
            if (!row) continue;
            if (targetMs !== undefined) row.targetMs = targetMs;
            if (set.length === 1) base[row.mode] = row.gflops;
            const one = base[row.mode === 'host-auto' ? 'host-start' : row.mode];
            if (one !== undefined && one > 0) row.efficiency = (100 * row.gflops) / (set.length * one);
            rows.push(row);
          }
        }
      }
    }
  }
  progressDone();
  return rows;
}

/** A batch whose device-resident call takes about `ms` on the one-GPU context `ctx` (a trial of about 64 MiB, scaled linearly). */
function batchForMs(ctx: MultiDeviceContext, options: MultiBenchOptions, dtype: DType, n: number, ms: number): number {
  const trial = Math.max(1, defaultBatch(options.op, dtype, n, 64 << 20));
  const row = resident(ctx, { ...options, repeats: 3 }, dtype, n, trial);
  return Math.max(1, Math.round((trial * ms) / row.ms));
}

function resident(ctx: MultiDeviceContext, options: MultiBenchOptions, dtype: DType, n: number, batch: number): MultiBenchRow {
  const view = new RecordingContext(ctx.multi, batch, false);
  const [row] = runBench(view, { op: options.op, dtype, sizes: [n], batch, ...(options.repeats ? { repeats: options.repeats } : {}), seed: 2026 + n });
  const cost = workloadFor(options.op).cost(dtype, n);
  const shares = splitCounts(batch, ctx.weights);
  const perDevice = ctx.multi.lanes.map((lane, i): DeviceShare => {
    const ms = median(view.samples.map((s) => s[i]!));
    return { ordinal: lane.device.info.ordinal, name: lane.device.info.name, batch: shares[i]!, ms, gflops: (cost.flops * shares[i]!) / (ms * 1e6) };
  });
  return { ...row!, backend: `cuda x${ctx.devices.length}`, devices: ctx.devices.join(','), mode: 'resident', perDevice };
}

/**
 * The resident call of `row` (same op, sizes and batch) recorded by ctx.capture and replayed: each
 * replay timed with events on every device, its in-place inputs restored before it (untimed).
 * Undefined where the devices cannot record or the op has no captured form here (gemm, potrf and
 * getrf do).
 */
function captured(ctx: MultiDeviceContext, options: MultiBenchOptions, dtype: DType, n: number, batch: number, row: MultiBenchRow): MultiBenchRow | undefined {
  if (ctx.multi.capture === undefined) return undefined;
  const work = residentWork(ctx, options.op, dtype, n, batch, new Random(7331 + n));
  if (!work) return undefined;
  progress(`bench ${options.op} ${dtype} n=${n} batch=${batch} captured on GPUs ${ctx.devices.join(',')} ...`);
  try {
    const recording = ctx.capture(work.run);
    try {
      const times: number[] = [];
      for (let r = 0; r < 2 + (options.repeats ?? 5); r++) {
        work.reset();
        const ms = ctx.time(() => recording.replay());
        if (r >= 2) times.push(ms);
      }
      const ms = median(times);
      // The same work as the resident row's: its rates scale with the time.
      return { ...row, mode: 'captured', ms, gflops: (row.gflops * row.ms) / ms, gbs: (row.gbs * row.ms) / ms, perDevice: undefined, efficiency: undefined };
    } finally {
      recording.dispose();
    }
  } finally {
    work.dispose();
  }
}

/** Scattered operands of a resident call: the call, a restore of its in-place inputs, and the arrays' release. */
function residentWork(ctx: MultiDeviceContext, op: BenchOp, dtype: DType, n: number, count: number, rng: Random): { run: () => void; reset: () => void; dispose: () => void } | undefined {
  const layout = { rows: n, count };
  const sq = (x: ReturnType<MultiDeviceContext['scatter']>) => strided(x, layout);
  const inPlace = (host: FloatArray, call: (a: ReturnType<MultiDeviceContext['scatter']>) => void, ints: ReturnType<MultiDeviceContext['scatter']>[]) => {
    const [a0, a] = [ctx.scatter(host, layout), ctx.scatter(host, layout)];
    return { run: () => call(a), reset: () => ctx.multi.copy(a0, a), dispose: () => { for (const x of [a0, a, ...ints]) x.dispose(); } };
  };
  switch (op) {
    case 'gemm': {
      const [a, b, c] = [0, 1, 2].map(() => ctx.scatter(randomMatrices(dtype, n, n, count, rng), layout));
      return { run: () => { ctx.gemm({ a: sq(a!), b: sq(b!), c: sq(c!), beta: 0 }); }, reset: () => {}, dispose: () => { for (const x of [a!, b!, c!]) x.dispose(); } };
    }
    case 'potrf': {
      const info = ctx.allocSharded('int32', count, { count });
      return inPlace(randomSpd(dtype, n, count, rng), (a) => { ctx.potrf({ a: sq(a), uplo: 'lower', info }); }, [info]);
    }
    case 'getrf': {
      const [info, ipiv] = [ctx.allocSharded('int32', count, { count }), ctx.allocSharded('int32', count * n, { count })];
      return inPlace(randomGeneral(dtype, n, count, rng), (a) => { ctx.getrf({ a: sq(a), ipiv, info }); }, [info, ipiv]);
    }
    default: return undefined;
  }
}

/** Host batches for a host-start call (info and pivots in reused arrays): the call and a reset of its in-place inputs (untimed). */
function hostWork(ctx: Context, op: BenchOp, dtype: DType, n: number, count: number, rng: Random): { run: () => void; reset: () => void } | undefined {
  const sq = (x: FloatArray) => strided(x, { rows: n, count });
  const inPlace = (a0: FloatArray, call: (a: FloatArray, b: FloatArray) => void, b0?: FloatArray) => {
    const a = a0.slice(), b = b0 ? b0.slice() : new Float64Array(0);
    return { run: () => call(a, b), reset: () => { a.set(a0); if (b0) (b as FloatArray).set(b0); } };
  };
  const rhs = () => randomMatrices(dtype, n, BENCH_NRHS, count, rng);
  // info and pivots in arrays of the caller's, reused from call to call as a loop would.
  const info = new Int32Array(count), ipiv = new Int32Array(count * n);
  const B = (b: FloatArray) => strided(b, { rows: n, cols: BENCH_NRHS, count });
  switch (op) {
    case 'gemm': {
      const [a, b, c] = [0, 1, 2].map(() => randomMatrices(dtype, n, n, count, rng));
      return { run: () => ctx.gemm({ a: sq(a!), b: sq(b!), c: sq(c!), beta: 0 }), reset: () => {} };
    }
    case 'potrf': return inPlace(randomSpd(dtype, n, count, rng), (a) => { ctx.potrf({ a: sq(a), uplo: 'lower', info }); });
    case 'getrf': return inPlace(randomGeneral(dtype, n, count, rng), (a) => { ctx.getrf({ a: sq(a), ipiv, info }); });
    case 'posv': return inPlace(randomSpd(dtype, n, count, rng), (a, b) => { ctx.posv({ a: sq(a), b: B(b), uplo: 'lower', info }); }, rhs());
    case 'gesv': return inPlace(randomGeneral(dtype, n, count, rng), (a, b) => { ctx.gesv({ a: sq(a), b: B(b), ipiv, info }); }, rhs());
    default: return undefined;
  }
}

/** The aggregate links of each device set, measured once per process. */
const aggregates = new Map<string, AggregateBandwidth>();

function hostStart(ctx: MultiDeviceContext, options: MultiBenchOptions, dtype: DType, n: number, batch: number, spread: Spread): MultiBenchRow | undefined {
  const mode = spread === 'auto' ? 'host-auto' : 'host-start';
  progress(`bench ${options.op} ${dtype} n=${n} batch=${batch} ${mode} on GPUs ${ctx.devices.join(',')} ...`);
  const work = hostWork(ctx, options.op, dtype, n, batch, new Random(4049 + n));
  if (!work) return undefined;
  const before = { spread: ctx.spread, outputs: ctx.hostOutputs };
  ctx.spread = spread;
  if (options.hostOutputs) ctx.hostOutputs = options.hostOutputs;
  try {
    return timeHost(ctx, options, dtype, n, batch, work, mode);
  } finally {
    ctx.spread = before.spread;
    ctx.hostOutputs = before.outputs;
  }
}

function timeHost(ctx: MultiDeviceContext, options: MultiBenchOptions, dtype: DType, n: number, batch: number, work: { run: () => void; reset: () => void }, mode: 'host-start' | 'host-auto'): MultiBenchRow {
  const t = ctx.multi.transfers;
  // Warm-up: two calls, as a program that calls again with the same arrays would have made (the
  // host path page-locks a buffer on its second call; scripts/probe-pinned.mjs times that).
  for (let w = 0; w < 2; w++) {
    work.reset();
    work.run();
  }
  const times: number[] = [];
  const bytes: number[] = [];
  const ups: number[] = [];
  const downs: number[] = [];
  for (let r = 0; r < (options.repeats ?? 5); r++) {
    work.reset();
    const [up0, down0] = [t.hostToDevice, t.deviceToHost];
    const t0 = performance.now();
    work.run();
    times.push(performance.now() - t0);
    ups.push(t.hostToDevice - up0);
    downs.push(t.deviceToHost - down0);
    bytes.push(ups.at(-1)! + downs.at(-1)!);
  }
  const ms = median(times);
  const gpusUsed = ctx.multi.lastSpread ?? ctx.devices.length;
  const cost = workloadFor(options.op).cost(dtype, n);
  // Each GPU has its own link: the roofline moves each GPU's share of the bytes at its pinned rate.
  const links = ctx.multi.lanes.map((lane) => linkBandwidth(lane.device, options.linkBytes));
  const pinnedGBs = median(links.map((l) => (l.upGBs + l.downGBs) / 2));
  const rooflineMs = median(bytes) / (pinnedGBs * links.length * 1e6);
  const key = ctx.devices.join(',');
  let aggregate = aggregates.get(key);
  if (aggregate === undefined) aggregates.set(key, (aggregate = aggregateLinkBandwidth(ctx.multi.lanes.map((l) => l.device), options.linkBytes)));
  return {
    op: options.op, dtype, n, batch, backend: `cuda x${ctx.devices.length}`, ms,
    gflops: (cost.flops * batch) / (ms * 1e6), gbs: (cost.bytes * batch) / (ms * 1e6),
    devices: key, mode, linkGBs: median(bytes) / (ms * 1e6),
    pinnedGBs, linkRoofline: (100 * rooflineMs) / ms,
    aggregateGBs: aggregate.bothGBs, aggregateRoofline: (100 * aggregateRooflineMs(median(ups), median(downs), aggregate)) / ms,
    ...(mode === 'host-auto' ? { gpusUsed } : {}),
  };
}

export const MULTI_COLUMNS: readonly Column<MultiBenchRow>[] = [
  { header: 'op', value: (r) => r.op },
  { header: 'dtype', value: (r) => r.dtype },
  { header: 'n', value: (r) => r.n },
  { header: 'batch', value: (r) => r.batch },
  { header: 'GPUs', value: (r) => r.devices },
  { header: 'mode', value: (r) => r.mode },
  { header: 'ms', value: (r) => r.ms, digits: 3 },
  { header: 'GFLOP/s', value: (r) => r.gflops, digits: 1 },
  { header: 'GB/s', value: (r) => r.gbs, digits: 1 },
  { header: 'per GPU GFLOP/s', value: (r) => r.perDevice?.map((d) => `${d.ordinal}:${d.gflops.toFixed(0)}`).join(' ') },
  { header: 'efficiency %', value: (r) => r.efficiency, digits: 1 },
  { header: 'link GB/s', value: (r) => r.linkGBs, digits: 1 },
  { header: 'pinned GB/s', value: (r) => r.pinnedGBs, digits: 1 },
  { header: '% link roofline', value: (r) => r.linkRoofline, digits: 1 },
  { header: 'aggregate GB/s', value: (r) => r.aggregateGBs, digits: 1 },
  { header: '% aggregate roofline', value: (r) => r.aggregateRoofline, digits: 1 },
  { header: 'GPUs used', value: (r) => r.gpusUsed },
  { header: 'target ms', value: (r) => r.targetMs, digits: 2 },
];
