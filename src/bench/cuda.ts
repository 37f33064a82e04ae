/**
 * What `myriad bench` adds on a CUDA context: the machine's limits for the roofline column
 * (copy bandwidth measured here, peak rates from the device's attributes) and the vendor
 * routines run on the same device data: cuBLAS strided-batched gemm, cuSOLVER batched potrf/potrs,
 * cuBLAS batched getrf/getrs and trsm, and for the inverses (trtri, potri, poti) cuBLAS's general
 * inverse of the same matrices: getrf + getri, or matinv where n <= 32 (the pointer-array forms
 * those need are built once, untimed).
 */
import type { Context } from '../api/context.js';
import { registerBenchExtras } from './extras.js';
import { formatTable } from './table.js';
import type { MachineLimits, VendorBaseline, VendorRun } from './run.js';
import type { Column } from './table.js';
import { MyriadError } from '../core/errors.js';
import type { BenchOp } from './workloads.js';
import type { DType } from '../core/dtype.js';
import type { Storage } from '../core/storage.js';
import { CudaBackend } from '../cuda/backend.js';
import { benchTsm2, defaultTsm2Cases, type Tsm2BenchRow } from '../cuda/tune/tsm2-bench.js';
import { measureCopyBandwidth } from '../cuda/tune/measure.js';
import { benchmarkPeakGflops } from '../cuda/model/roofline.js';
import type { DeviceArray, GpuDevice } from '../cuda/runtime/types.js';
import { Cublas, Cusolver, batchPointers, type BatchPointers } from '../cuda/baselines/index.js';
import { progress, progressDone } from './progress.js';

function deviceOf(ctx: Context): GpuDevice | undefined {
  const backend = ctx.deviceBackend;
  return backend instanceof CudaBackend ? backend.device : undefined;
}

const limitsCache = new WeakMap<Context, MachineLimits>();

class VendorOnDevice implements VendorBaseline {
  readonly name: string;
  private cublas?: Cublas;
  private cusolver?: Cusolver;
  constructor(private readonly dev: GpuDevice) {
    this.name = 'cuBLAS/cuSOLVER';
  }
  private blas(): Cublas { return (this.cublas ??= new Cublas(this.dev)); }
  private solver(): Cusolver { return (this.cusolver ??= new Cusolver(this.dev)); }

  prepare(op: BenchOp, dtype: DType, n: number, count: number, arrays: Record<string, Storage>): VendorRun | undefined {
    const a = arrays.a as DeviceArray;
    const b = arrays.b as DeviceArray | undefined;
    // Pointer arrays and info/pivots, made once per row (untimed) and freed by dispose().
    const owned: { dispose(): void }[] = [];
    const keep = <T extends { dispose(): void }>(x: T): T => { owned.push(x); return x; };
    const ptrs = (x: DeviceArray, rows: number, cols: number): BatchPointers => keep(batchPointers(this.dev, x, count, rows * cols));
    const ints = (length: number): DeviceArray => keep(this.dev.alloc('int32', length));
    const done = (run: () => void): VendorRun => ({ run, dispose: () => owned.forEach((x) => x.dispose()) });
    switch (op) {
      case 'gemm': {
        const c = arrays.c as DeviceArray;
        return done(() => this.blas().gemmStridedBatched(dtype, 'N', 'N', n, n, n, 1, a, n, n * n, b!, n, n * n, 0, c, n, n * n, count));
      }
      case 'potrf': {
        const A = ptrs(a, n, n), info = ints(count);
        return done(() => this.solver().potrfBatched(dtype, 'lower', n, A, n, info, count));
      }
      case 'getrf': {
        const A = ptrs(a, n, n), info = ints(count), piv = ints(n * count);
        return done(() => this.blas().getrfBatched(dtype, n, A, n, piv, info, count));
      }
      case 'posv': {
        const A = ptrs(a, n, n), B = ptrs(b!, n, 1), info = ints(count), info1 = ints(1);
        return done(() => {
          this.solver().potrfBatched(dtype, 'lower', n, A, n, info, count);
          this.solver().potrsBatched(dtype, 'lower', n, 1, A, n, B, n, info1, count);
        });
      }
      case 'gesv': {
        const A = ptrs(a, n, n), B = ptrs(b!, n, 1), info = ints(count), piv = ints(n * count);
        return done(() => {
          this.blas().getrfBatched(dtype, n, A, n, piv, info, count);
          this.blas().getrsBatched(dtype, 'N', n, 1, A, n, piv, B, n, count);
        });
      }
      case 'trsm': {
        // The workload: left, lower, no transpose, non-unit, B n x n (bench/workloads.ts).
        const A = ptrs(a, n, n), B = ptrs(b!, n, n);
        return done(() => this.blas().trsmBatched(dtype, 'left', 'lower', 'N', 'nonunit', n, n, 1, A, n, B, n, count));
      }
      case 'trtri':
      case 'potri':
      case 'poti': {
        // The full inverse of the same (SPD) matrices, out of place: matinv for n <= 32, else getrf + getri.
        const inverse = keep(this.dev.alloc(dtype, a.length));
        const A = ptrs(a, n, n), C = ptrs(inverse, n, n), info = ints(count);
        if (n <= 32) return done(() => this.blas().matinvBatched(dtype, n, A, n, C, n, info, count));
        const piv = ints(n * count);
        return done(() => {
          this.blas().getrfBatched(dtype, n, A, n, piv, info, count);
          this.blas().getriBatched(dtype, n, A, n, piv, C, n, info, count);
        });
      }
      default:
        return undefined;
    }
  }
}

registerBenchExtras({
  limits(ctx) {
    const dev = deviceOf(ctx);
    if (!dev) return undefined;
    let l = limitsCache.get(ctx);
    if (!l) {
      l = { bandwidthGBs: measureCopyBandwidth(dev) / 1e9, peakGflops: benchmarkPeakGflops(dev.info) };
      limitsCache.set(ctx, l);
      console.error(`copy bandwidth ${l.bandwidthGBs.toFixed(0)} GB/s (1 GiB device-to-device, read + write); peak FP64 ${l.peakGflops!.float64!.toFixed(0)}, FP32 ${l.peakGflops!.float32!.toFixed(0)} GFLOP/s`);
    }
    return l;
  },
  vendor(ctx) {
    const dev = deviceOf(ctx);
    return dev ? new VendorOnDevice(dev) : undefined;
  },
  names: ['tsm2'],
  async run(_name, ctx, options) {
    const dev = deviceOf(ctx);
    if (!dev) throw new MyriadError('BACKEND_UNAVAILABLE', 'the tsm2 benchmark needs a CUDA context (--backend cuda)', '--backend');
    const rows = await benchTsm2(dev, { cases: defaultTsm2Cases(options.dtypes), vendor: true, onRow: (r) => progress(`tsm2 ${r.op} ${r.dtype} m=${r.m} n=${r.n} k=${r.k}: ${r.gbs.toFixed(0)} GB/s`) });
    progressDone();
    console.log(formatTable(rows, TSM2_COLUMNS, options.style));
    return rows as unknown as Record<string, unknown>[];
  },
});

const TSM2_COLUMNS: readonly Column<Tsm2BenchRow>[] = [
  { header: 'kernel', value: (r) => r.op },
  { header: 'dtype', value: (r) => r.dtype },
  { header: 'm', value: (r) => r.m },
  { header: 'n', value: (r) => r.n },
  { header: 'k', value: (r) => r.k },
  { header: 'ms', value: (r) => r.ms, digits: 3 },
  { header: 'GB/s', value: (r) => r.gbs, digits: 0 },
  { header: '%copy', value: (r) => r.pctCopy, digits: 1 },
  { header: 'cuBLAS GB/s', value: (r) => r.vendorGbs, digits: 0 },
  { header: 'speed-up', value: (r) => r.speedup, digits: 2 },
  { header: 'plan', value: (r) => r.plan },
];
