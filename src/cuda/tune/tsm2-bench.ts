/**
 * `myriad bench tsm2`: TSM2R and TSM2L against cuBLAS gemm on the same device data, timed with
 * CUDA events (warm-up excluded, median of repeats). GB/s counts A and B read once and C written
 * once (beta = 0), the roofline's denominator; `pctCopy` is that over the copy bandwidth.
 */
import type { DType } from '../../core/dtype.js';
import { isDType } from '../../core/dtype-table.js';
import type { GemmRequest, Op } from '../../core/ops.js';
import { strided } from '../../core/batch.js';
import { arg, type DeviceArray, type GpuDevice, type KernelSource } from '../runtime/types.js';
import { Cublas } from '../baselines/cublas.js';
import { cType, precisionLetter } from '../kernels/common/precision.js';
import { minimumBytes } from '../kernels/tsm2/model.js';
import { setMeasuredBandwidth, tsm2Cuda, type Tsm2Options } from '../kernels/tsm2/launch.js';
import type { Tsm2Kind, Tsm2lPlan, Tsm2rPlan } from '../kernels/tsm2/plan.js';
import { measureCopyBandwidth, timeMs } from './measure.js';

export interface Tsm2BenchRow {
  op: Tsm2Kind;
  dtype: DType;
  m: number;
  n: number;
  k: number;
  ms: number;
  gflops: number;
  gbs: number;
  /** gbs over the copy bandwidth, percent. */
  pctCopy: number;
  vendorMs?: number;
  vendorGbs?: number;
  speedup?: number;
  /** max |C - C_cublas| / max |C_cublas|: a sanity check of the timed run. */
  relDiff?: number;
  plan?: string;
}

export interface Tsm2Case {
  readonly op: Tsm2Kind;
  readonly dtype: DType;
  readonly m: number;
  readonly n: number;
  readonly k: number;
}

export interface Tsm2BenchOptions {
  readonly dtypes?: readonly DType[];
  readonly cases?: readonly Tsm2Case[];
  /** Copy bandwidth in GB/s for pctCopy (default: measured now). */
  readonly copyGBs?: number;
  readonly repeats?: number;
  readonly vendor?: boolean;
  /** Parameters to force per case (e.g. a sweep's winners); default: the planner's choice. */
  readonly overrides?: (c: Tsm2Case) => Tsm2Options | undefined;
  /** Called with each row as it is measured (progress, partial results). */
  readonly onRow?: (row: Tsm2BenchRow) => void;
}

/** The paper's sizes: TSM2R m = k in {10240, 20480, 30720}, n in 1..32; TSM2L m in 1e4..1e7, k = n in {8, 16}. */
export function defaultTsm2Cases(dtypes: readonly DType[] = ['float64', 'float32']): Tsm2Case[] {
  const cases: Tsm2Case[] = [];
  for (const dtype of dtypes) {
    for (const m of [10240, 20480, 30720]) for (const n of [1, 2, 4, 8, 16, 32]) cases.push({ op: 'tsm2r', dtype, m, n, k: m });
    for (const m of [1e4, 1e5, 1e6, 1e7]) for (const kn of [8, 16]) cases.push({ op: 'tsm2l', dtype, m, n: kn, k: kn });
  }
  return cases;
}

/** Device-side uniform [-1, 1) fill (splitmix64 of the index): no host copy of gigabytes. */
function fillSource(dtype: DType): KernelSource {
  const t = cType(dtype);
  const name = `tsm2_bench_fill_${precisionLetter(dtype)}`;
  return {
    name: `${name}.cu`, entry: name,
    source: `extern "C" __global__ void ${name}(long long n, ${t}* x, unsigned long long seed) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    unsigned long long z = (unsigned long long)i + seed * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull; z = (z ^ (z >> 27)) * 0x94D049BB133111EBull; z ^= z >> 31;
    x[i] = (${t})((double)(z >> 11) * 0x1.0p-53 * 2.0 - 1.0);
  }
}
`,
  };
}

export function fillUniform(dev: GpuDevice, x: DeviceArray, seed: number): void {
  const dtype = isDType(x.dtype) ? x.dtype : 'float64';
  dev.kernel(fillSource(dtype)).launch({ grid: [dev.info.smCount * 8, 1, 1], block: [256, 1, 1] },
    [arg.i64(x.length), arg.ptr(x), arg.i64(BigInt(seed))]);
}

export { timeMs, measureCopyBandwidth };

export interface Tsm2Operands {
  a: DeviceArray; b: DeviceArray; c: DeviceArray;
  dispose(): void;
}

/** Random A (m x k) and B (k x n), column-major with ld = rows, and C (m x n), on the device. */
export function tsm2Operands(dev: GpuDevice, c: Tsm2Case, seed = 1): Tsm2Operands {
  const a = dev.alloc(c.dtype, c.m * c.k);
  const b = dev.alloc(c.dtype, c.k * c.n);
  const cc = dev.alloc(c.dtype, c.m * c.n);
  fillUniform(dev, a, seed);
  fillUniform(dev, b, seed + 1);
  dev.fill(cc, 0);
  return { a, b, c: cc, dispose: () => { a.dispose(); b.dispose(); cc.dispose(); } };
}

/** The request C = A B (beta = 0) over these operands. */
export function tsm2Request(c: Tsm2Case, ops: Tsm2Operands, transA: Op = 'N', transB: Op = 'N'): GemmRequest<DeviceArray> {
  return {
    transA, transB, alpha: 1, beta: 0,
    a: strided(ops.a, { rows: c.m, cols: c.k, count: 1 }),
    b: strided(ops.b, { rows: c.k, cols: c.n, count: 1 }),
    c: strided(ops.c, { rows: c.m, cols: c.n, count: 1 }),
  };
}

function describePlan(p: Tsm2rPlan | Tsm2lPlan): string {
  if (p.kind === 'tsm2r') {
    const q = p.params;
    return `${p.from} t1=${q.t1} t2=${q.t2} t3=${q.t3} tk=${q.tileK} vec=${q.vec} split=${q.split}`;
  }
  const q = p.params;
  return `${p.from} ${q.variant} t1=${q.t1} vec=${q.vec} tcf=${p.tcf} grid=${p.grid[0]}`;
}

function maxRelDiff(x: ArrayLike<number>, ref: ArrayLike<number>): number {
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < ref.length; i++) {
    diff = Math.max(diff, Math.abs(x[i]! - ref[i]!));
    scale = Math.max(scale, Math.abs(ref[i]!));
  }
  return Number.isFinite(diff) ? diff / (scale || 1) : Infinity;
}

/** Times one case with TSM2 (options as given) and, unless `vendor` is false, cuBLAS. */
export function benchTsm2Case(dev: GpuDevice, c: Tsm2Case, copyBytesPerS: number, options: {
  tsm2?: Tsm2Options; repeats?: number; cublas?: Cublas; operands?: Tsm2Operands;
} = {}): Tsm2BenchRow {
  const ops = options.operands ?? tsm2Operands(dev, c);
  try {
    const req = tsm2Request(c, ops);
    let plan = '';
    const opts: Tsm2Options = { ...options.tsm2, force: c.op, onPlan: (p) => { plan = describePlan(p); } };
    const bytes = minimumBytes(c.dtype, c.m, c.n, c.k, true);
    const flops = 2 * c.m * c.n * c.k;
    const reps = options.repeats ?? (bytes > 1e9 ? 5 : 15);
    const ms = timeMs(dev, () => { tsm2Cuda(dev, req, opts); }, reps);
    const row: Tsm2BenchRow = {
      op: c.op, dtype: c.dtype, m: c.m, n: c.n, k: c.k, ms,
      gflops: flops / (ms * 1e6), gbs: bytes / (ms * 1e6), pctCopy: (100 * bytes) / (ms * 1e-3) / copyBytesPerS, plan,
    };
    if (options.cublas) {
      const ours = dev.download(ops.c) as Float64Array | Float32Array;
      const blas = options.cublas;
      const vendorMs = timeMs(dev, () => blas.gemm(c.dtype, 'N', 'N', c.m, c.n, c.k, 1, ops.a, c.m, ops.b, c.k, 0, ops.c, c.m), reps);
      row.vendorMs = vendorMs;
      row.vendorGbs = bytes / (vendorMs * 1e6);
      row.speedup = vendorMs / ms;
      row.relDiff = maxRelDiff(ours, dev.download(ops.c) as Float64Array | Float32Array);
    }
    return row;
  } finally {
    if (!options.operands) ops.dispose();
  }
}

/** The benchmark the CLI's `myriad bench tsm2` runs: one row per case. */
export async function benchTsm2(dev: GpuDevice, options: Tsm2BenchOptions = {}): Promise<Tsm2BenchRow[]> {
  const copy = options.copyGBs !== undefined ? options.copyGBs * 1e9 : measureCopyBandwidth(dev);
  setMeasuredBandwidth(dev, copy);
  const cublas = options.vendor === false ? undefined : new Cublas(dev);
  const rows: Tsm2BenchRow[] = [];
  try {
    for (const c of options.cases ?? defaultTsm2Cases(options.dtypes)) {
      const row = benchTsm2Case(dev, c, copy, { cublas, repeats: options.repeats, tsm2: options.overrides?.(c) });
      rows.push(row);
      options.onRow?.(row);
      await new Promise((resolve) => setImmediate(resolve)); // let the event loop breathe (progress output)
    }
  } finally {
    cublas?.dispose();
  }
  return rows;
}
