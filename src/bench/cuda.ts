/**
 * What `myriad bench` adds on a CUDA context: the machine's limits for the roofline column
 * (copy bandwidth measured here, peak rates from the device's attributes) and the vendor
 * routines run on the same device data: cuBLAS strided-batched gemm, cuSOLVER batched potrf/potrs,
 * cuBLAS batched getrf/getrs and trsm (the pointer-array forms those need are built once, untimed),
 * cuSOLVER's single-matrix potrf/getrf (+ potrs/getrs) looped for one matrix or up to 8 of n >= 1024;
 * for trmm, syrk and lauum, which cuBLAS has no batched form of, the strided-batched GEMM of the same
 * full product (A B, A A^T, L^T L: twice syrk's and lauum's flops, into a scratch output); for the
 * inverses (trtri, potri, poti) cuBLAS's general inverse of the same matrices: getrf + getri, or
 * matinv where n <= 32; syev (with vectors and values only) and gesvd: the fastest of the vendor's routines for the shape, each
 * timed in turn (parameters and workspace made once per routine, untimed; the vendor column names
 * the routine kept, the row's note the others' times): syevjBatched and gesvdjBatched (n <= 32),
 * cusolverDnXsyevBatched (where the library has it) and gesvdaStridedBatched to 512, syevd and gesvd one
 * matrix per call from 33 for small batches and alone above 512 (bench/eigen-vendor.ts); geqrf:
 * cublas?geqrfBatched; orgqr: cuSOLVER's single-matrix orgqr in a loop
 * (no batched form exists), only for batches of up to ORGQR_LOOP_MAX matrices (the row says so
 * otherwise: pass --batch); qr: both; ormqr: cusolverDn?ormqr once per matrix (no batched form);
 * gels, gels-tall, gels-many: cublas?gelsBatched (m >= n only: gels-wide has no vendor row).
 * The complex types' vendor column (gemm, potrf, getrf, posv, gesv, trsm, geqrf, heev, gesvd): bench/complex-vendor.ts.
 */
import type { Context } from '../api/context.js';
import { registerBenchExtras } from './extras.js';
import { formatTable } from './table.js';
import { vendorCandidate, type MachineLimits, type VendorBaseline, type VendorCall, type VendorChoice, type VendorRun } from './run.js';
import type { Column } from './table.js';
import { MyriadError } from '../core/errors.js';
import { BENCH_NRHS, gelsShape, manyRhs, type BenchOp } from './workloads.js';
import type { ElementType } from '../core/dtype.js';
import { isComplexDType } from '../core/dtype-table.js';
import { prepareComplexVendor } from './complex-vendor.js';
import type { Storage } from '../core/storage.js';
import { CudaBackend } from '../cuda/backend.js';
import { benchTsm2, defaultTsm2Cases, type Tsm2BenchRow } from '../cuda/tune/tsm2-bench.js';
import { measureCopyBandwidth } from '../cuda/tune/measure.js';
import { benchmarkPeakGflops } from '../cuda/model/roofline.js';
import type { DeviceArray, GpuDevice } from '../cuda/runtime/types.js';
import { VendorError } from '../cuda/runtime/errors.js';
import { Cublas, Cusolver, batchPointers, type BatchPointers } from '../cuda/baselines/index.js';
import { eigenVendorRoutines, type EigenVendorRoutine } from './eigen-vendor.js';
import { progress, progressDone } from './progress.js';
import { benchTsqr, TSQR_COLS, TSQR_COLUMNS } from './tsqr.js';
import { benchVbatched, parseVbatchedOp, parseVbatchedWays, parseVbatchedWorkload, VBATCHED_COLUMNS } from './vbatched.js';

function deviceOf(ctx: Context): GpuDevice | undefined {
  const backend = ctx.deviceBackend;
  return backend instanceof CudaBackend ? backend.device : undefined;
}

/**
 * One matrix, or few large ones: the vendor's best call is its single-matrix (whole-GPU) routine,
 * looped over the batch (cusolverDn?potrf/getrf, + potrs/getrs); its batched routines run a matrix
 * per block.
 */
function wholeGpuVendor(op: BenchOp, n: number, count: number): boolean {
  return (op === 'potrf' || op === 'getrf' || op === 'posv' || op === 'gesv') && (count === 1 || (n >= 1024 && count <= WHOLE_GPU_COUNT));
}
const WHOLE_GPU_COUNT = 8;

const limitsCache = new WeakMap<Context, MachineLimits>();

/** The largest batch the vendor's single-matrix orgqr is looped over (one cuSOLVER call per matrix). */
const ORGQR_LOOP_MAX = 2000;

class VendorOnDevice implements VendorBaseline {
  readonly name: string;
  private cublas?: Cublas;
  private cusolver?: Cusolver;
  constructor(private readonly dev: GpuDevice) {
    this.name = 'cuBLAS/cuSOLVER';
  }
  private blas(): Cublas { return (this.cublas ??= new Cublas(this.dev)); }
  private solver(): Cusolver { return (this.cusolver ??= new Cusolver(this.dev)); }

  prepare(op: BenchOp, dtype: ElementType, n: number, count: number, arrays: Record<string, Storage>): VendorRun | VendorChoice | undefined {
    const a = arrays.a as DeviceArray;
    const b = arrays.b as DeviceArray | undefined;
    // The complex types (interleaved pairs): their own table (bench/complex-vendor.ts).
    if (isComplexDType(dtype)) return prepareComplexVendor(this.dev, { blas: () => this.blas(), solver: () => this.solver() }, op, dtype, n, count, arrays);
    // Pointer arrays and info/pivots, made once per row (untimed) and freed by dispose().
    const owned: { dispose(): void }[] = [];
    const keep = <T extends { dispose(): void }>(x: T): T => { owned.push(x); return x; };
    const ptrs = (x: DeviceArray, rows: number, cols: number): BatchPointers => keep(batchPointers(this.dev, x, count, rows * cols));
    const ints = (length: number): DeviceArray => keep(this.dev.alloc('int32', length));
    const done = (run: () => void): VendorRun => ({ run, dispose: () => owned.forEach((x) => x.dispose()) });
    if (wholeGpuVendor(op, n, count)) {
      const factor = op === 'potrf' || op === 'posv' ? 'potrf' : 'getrf';
      const solve = op === 'posv' || op === 'gesv' ? { B: b!, nrhs: BENCH_NRHS } : undefined;
      const call = keep(this.solver().dense(dtype, factor, n, a, count, solve));
      return done(() => call.run());
    }
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
      case 'posv-many': {
        // cuSOLVER's potrsBatched takes one right-hand side: one call per column (what users do).
        const nrhs = manyRhs(n);
        const A = ptrs(a, n, n), info = ints(count), info1 = ints(1);
        const columns = Array.from({ length: nrhs }, (_, j) => keep(batchPointers(this.dev, b!, count, n * nrhs, j * n)));
        return done(() => {
          this.solver().potrfBatched(dtype, 'lower', n, A, n, info, count);
          for (const B of columns) this.solver().potrsBatched(dtype, 'lower', n, 1, A, n, B, n, info1, count);
        });
      }
      case 'gesv-many': {
        const nrhs = manyRhs(n);
        const A = ptrs(a, n, n), B = ptrs(b!, n, nrhs), info = ints(count), piv = ints(n * count);
        return done(() => {
          this.blas().getrfBatched(dtype, n, A, n, piv, info, count);
          this.blas().getrsBatched(dtype, 'N', n, nrhs, A, n, piv, B, n, count);
        });
      }
      case 'trsm': {
        // The workload: left, lower, no transpose, non-unit, B n x n (bench/workloads.ts).
        const A = ptrs(a, n, n), B = ptrs(b!, n, n);
        return done(() => this.blas().trsmBatched(dtype, 'left', 'lower', 'N', 'nonunit', n, n, 1, A, n, B, n, count));
      }
      case 'trmm': {
        // The workload: left, lower, no transpose, B n x n: the GEMM A B into a scratch C.
        const c = keep(this.dev.alloc(dtype, n * n * count));
        return done(() => this.blas().gemmStridedBatched(dtype, 'N', 'N', n, n, n, 1, a, n, n * n, b!, n, n * n, 0, c, n, n * n, count));
      }
      case 'syrk': {
        // The workload: lower, trans N, beta 0, A n x n: the GEMM A A^T into C (both triangles).
        const c = arrays.c as DeviceArray;
        return done(() => this.blas().gemmStridedBatched(dtype, 'N', 'T', n, n, n, 1, a, n, n * n, a, n, n * n, 0, c, n, n * n, count));
      }
      case 'lauum': {
        // The workload: lower: the GEMM L^T L (the whole of A as L) into a scratch C.
        const c = keep(this.dev.alloc(dtype, n * n * count));
        return done(() => this.blas().gemmStridedBatched(dtype, 'T', 'N', n, n, n, 1, a, n, n * n, a, n, n * n, 0, c, n, n * n, count));
      }
      case 'syev':
      case 'syev-values':
      case 'gesvd': {
        // Every routine of the vendor's for the shape (bench/eigen-vendor.ts), each timed in turn, the
        // fastest kept and named.
        const solver = this.solver();
        const w = arrays.w as DeviceArray;
        const [s, u, vt] = [arrays.s as DeviceArray, arrays.u as DeviceArray, arrays.vt as DeviceArray];
        const vectors = op !== 'syev-values';
        const calls: Record<EigenVendorRoutine, (info: DeviceArray) => VendorCall> = {
          syevjBatched: (info) => solver.syevjBatched(dtype, n, a, w, info, count, vectors),
          XsyevBatched: (info) => solver.syevBatched(dtype, n, a, w, info, count, vectors),
          syevd: (info) => solver.syevdLoop(dtype, n, a, w, info, count, vectors),
          gesvdjBatched: (info) => solver.gesvdjBatched(dtype, n, n, a, s, u, vt, info, count),
          gesvdaStridedBatched: (info) => solver.gesvdaStridedBatched(dtype, n, n, a, s, u, vt, info, count),
          gesvd: (info) => solver.gesvdLoop(dtype, n, n, a, s, u, vt, info, count),
        };
        const routines = eigenVendorRoutines(op === 'gesvd' ? 'gesvd' : 'syev', n, count, op !== 'gesvd' && solver.hasSyevBatched);
        return { candidates: routines.map((r) => vendorCandidate(r, () => this.dev.alloc('int32', count), calls[r])) } satisfies VendorChoice;
      }
      case 'ormqr': {
        // cuSOLVER has no batched ormqr: its single-matrix routine, called once per matrix.
        const call = keep(this.solver().ormqrLooped(dtype, 'left', 'T', n, n, n, a, arrays.tau as DeviceArray, arrays.c as DeviceArray, ints(1), count));
        return done(() => call.run());
      }
      case 'gels':
      case 'gels-tall':
      case 'gels-many': {
        // cuBLAS's gelsBatched (m >= n only: no minimum-norm row), on the same A and B.
        const { m } = gelsShape(op === 'gels-tall' ? 'tall' : 'square', n);
        const nrhs = op === 'gels-many' ? manyRhs(n) : BENCH_NRHS;
        const A = ptrs(a, m, n), C = ptrs(b!, m, nrhs), info = ints(count);
        return done(() => { this.blas().gelsBatched(dtype, m, n, nrhs, A, m, C, m, info, count); });
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
      case 'geqrf':
      case 'orgqr':
      case 'qr': {
        const tau = arrays.tau as DeviceArray;
        const geqrf = (): (() => void) => {
          const A = ptrs(a, n, n), T = keep(batchPointers(this.dev, tau, count, n));
          return () => { this.blas().geqrfBatched(dtype, n, n, A, n, T, count); };
        };
        const orgqr = (): (() => void) => {
          // Written in the row, not thrown: the rest of the sweep goes on (pass --batch to compare there).
          if (count > ORGQR_LOOP_MAX) throw new VendorError('NOT_RUN', 0, `cusolverDn orgqr looped one matrix at a time: run for batches up to ${ORGQR_LOOP_MAX} (--batch)`);
          const call = keep(this.solver().orgqrLooped(dtype, n, n, n, a, n * n, tau, n, count));
          return () => call.run();
        };
        if (op === 'geqrf') return done(geqrf());
        if (op === 'orgqr') return done(orgqr());
        const [f, o] = [geqrf(), orgqr()];
        return done(() => { f(); o(); });
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
  names: ['tsm2', 'tsqr'],
  async run(name, ctx, options) {
    const dev = deviceOf(ctx);
    if (!dev) throw new MyriadError('BACKEND_UNAVAILABLE', `the ${name} benchmark needs a CUDA context (--backend cuda)`, '--backend');
    if (name === 'tsqr') {
      const cols = options.sizes === undefined ? [...TSQR_COLS] : options.sizes.split(',').map(Number);
      for (const n of cols) if (!(Number.isInteger(n) && n >= 1 && n <= 32)) throw new MyriadError('INVALID_ARGUMENT', `tsqr takes n (columns) of 1..32, got '${options.sizes}'`, '--sizes');
      const rows = benchTsqr(dev, options.dtypes, cols, true);
      console.log(formatTable(rows, TSQR_COLUMNS, options.style));
      return rows as unknown as Record<string, unknown>[];
    }
    const rows = await benchTsm2(dev, { cases: defaultTsm2Cases(options.dtypes), vendor: true, onRow: (r) => progress(`tsm2 ${r.op} ${r.dtype} m=${r.m} n=${r.n} k=${r.k}: ${r.gbs.toFixed(0)} GB/s`) });
    progressDone();
    console.log(formatTable(rows, TSM2_COLUMNS, options.style));
    return rows as unknown as Record<string, unknown>[];
  },
  async vbatched(op, workload, ctx, options) {
    const which = parseVbatchedWorkload(workload);
    const family = parseVbatchedOp(op);
    const ways = parseVbatchedWays(options.ways);
    const dev = deviceOf(ctx);
    if (!dev) throw new MyriadError('BACKEND_UNAVAILABLE', '--vbatched needs a CUDA context (--backend cuda)', '--backend');
    const rows = benchVbatched(dev, family, which, options.dtypes, ctx, ways);
    console.log(formatTable(rows, VBATCHED_COLUMNS, options.style));
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
