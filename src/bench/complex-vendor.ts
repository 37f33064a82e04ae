/**
 * The vendor column of the complex benchmarks (bench/complex-workloads.ts), on the same device
 * data in the same run: cuBLAS z/cgemmStridedBatched (gemm), cuSOLVER z/cpotrfBatched (potrf,
 * lower), cuSOLVER z/cpotrfBatched + z/cpotrsBatched (posv: the vendor factors its own; its
 * potrsBatched takes one right-hand side only), cuBLAS z/cgetrfBatched (getrf), cuBLAS
 * z/cgetrfBatched + z/cgetrsBatched (gesv), cuBLAS z/ctrsmBatched (trsm: left, lower, N, non-unit,
 * alpha 1, B n x n), cuBLAS z/cgeqrfBatched (geqrf), cuSOLVER z/cheevjBatched to n = 32 and
 * cusolverDnXsyevBatched on the complex type above (heev: vectors, lower), and z/cgesvdjBatched
 * (gesvd: U and V) for n <= 32 only (the vendor's batched Jacobi routines stop there: above, the row
 * says so in its vendor column). Pointer arrays, pivots, info, the Jacobi routines' parameters and
 * workspace made once per row, untimed. The batched routines at every n and count (the complex types
 * have no single-matrix loop here).
 *
 * getrf and gesv: the vendor's LU is checked once per row, untimed, after its timed runs
 * (bench/lu-check.ts, on a sample of the batch, beside the own factors of the same data): a row
 * whose vendor factors are wrong says so in its note instead of timing garbage silently. heev and
 * gesvd: the vendor's eigenvalues or singular values likewise, against the CPU reference on a few
 * of the pristine matrices (bench/values-check.ts).
 */
import type { ComplexDType, FloatArray } from '../core/dtype.js';
import { DTYPE_EPS } from '../core/dtype.js';
import { complexInfo } from '../core/dtype-table.js';
import type { Storage } from '../core/storage.js';
import { batchPointers, type BatchPointers, type Cublas, type Cusolver } from '../cuda/baselines/index.js';
import { VENDOR_JACOBI_MAX } from '../cuda/baselines/cusolver.js';
import { vendorBlas } from '../cuda/vendor/native.js';
import type { DeviceArray, GpuDevice } from '../cuda/runtime/types.js';
import { VendorError } from '../cuda/runtime/errors.js';
import { COMPLEX_NRHS } from './complex-workloads.js';
import { checkSample, complexLuResidual, LU_RESIDUAL_LIMIT } from './lu-check.js';
import { complexSingularValues, hermitianEigenvalues, VALUES_LIMIT, VALUES_SAMPLE, valuesDeviation } from './values-check.js';
import { vendorCandidate, type VendorChoice, type VendorRun } from './run.js';
import type { BenchOp } from './workloads.js';

/** The vendor handles, made on first use by the caller (bench/cuda.ts). */
export interface VendorHandles { blas(): Cublas; solver(): Cusolver }

/** The vendor run of complex `op` on `arrays` (pairs in arrays of the parts' dtype), or undefined where the vendor has none. */
export function prepareComplexVendor(
  dev: GpuDevice, vendor: VendorHandles, op: BenchOp, dtype: ComplexDType, n: number, count: number, arrays: Record<string, Storage>,
): VendorRun | VendorChoice | undefined {
  const a = arrays.a as DeviceArray;
  const b = arrays.b as DeviceArray | undefined;
  const owned: { dispose(): void }[] = [];
  const keep = <T extends { dispose(): void }>(x: T): T => { owned.push(x); return x; };
  // Matrix i of a batch of rows x cols pairs starts 2 rows cols floats after matrix i - 1.
  const ptrs = (x: DeviceArray, rows: number, cols: number): BatchPointers => keep(batchPointers(dev, x, count, 2 * rows * cols));
  const ints = (length: number): DeviceArray => keep(dev.alloc('int32', length));
  const dispose = (): void => owned.forEach((x) => x.dispose());
  try {
    switch (op) {
      case 'gemm': {
        // cublas{Z,C}gemmStridedBatched on the same pairs (ld and strides in pairs).
        const blas = vendorBlas(dev);
        const c = arrays.c as DeviceArray;
        if (blas === undefined) return undefined;
        const real = complexInfo(dtype).real;
        return { run: () => blas.complexGemmAt('strided', real, 'N', 'N', n, n, n, [1, 0], a.ptr, n, n * n, b!.ptr, n, n * n, [0, 0], c.ptr, n, n * n, count), dispose };
      }
      case 'potrf': {
        const A = ptrs(a, n, n), info = ints(count);
        return { run: () => vendor.solver().complexPotrfBatched(dtype, 'lower', n, A, n, info, count), dispose };
      }
      case 'posv': {
        const A = ptrs(a, n, n), B = ptrs(b!, n, COMPLEX_NRHS), info = ints(count), info1 = ints(1);
        return {
          run: () => {
            vendor.solver().complexPotrfBatched(dtype, 'lower', n, A, n, info, count);
            vendor.solver().complexPotrsBatched(dtype, 'lower', n, COMPLEX_NRHS, A, n, B, n, info1, count);
          },
          dispose,
        };
      }
      case 'getrf': {
        const A = ptrs(a, n, n), info = ints(count), piv = ints(n * count);
        const check = luCheck(dev, dtype, n, count, arrays, piv);
        return { run: () => vendor.blas().complexGetrfBatched(dtype, n, A, n, piv, info, count), dispose, check };
      }
      case 'gesv': {
        const A = ptrs(a, n, n), B = ptrs(b!, n, COMPLEX_NRHS), info = ints(count), piv = ints(n * count);
        const check = luCheck(dev, dtype, n, count, arrays, piv);
        return {
          run: () => {
            vendor.blas().complexGetrfBatched(dtype, n, A, n, piv, info, count);
            const status = vendor.blas().complexGetrsBatched(dtype, 'N', n, COMPLEX_NRHS, A, n, piv, B, n, count);
            if (status !== 0) throw new VendorError('CUBLAS_STATUS_INVALID_VALUE', status, `cublas getrsBatched (argument ${-status})`);
          },
          dispose,
          check,
        };
      }
      case 'trsm': {
        const A = ptrs(a, n, n), B = ptrs(b!, n, n);
        return { run: () => vendor.blas().complexTrsmBatched(dtype, 'left', 'lower', 'N', 'nonunit', n, n, [1, 0], A, n, B, n, count), dispose };
      }
      case 'heev': {
        // cusolverDn{Z,C}heevjBatched (to 32) and cusolverDnXsyevBatched on the complex type (where the
        // library has it), each timed in turn, the fastest kept: vectors, lower; A overwritten by the
        // vectors, W real. One values check, made before either runs (it reads the own values then),
        // judges whichever ran last.
        const solver = vendor.solver();
        const w = arrays.w as DeviceArray;
        const check = valuesCheck(dev, 'heev', dtype, n, count, arrays);
        const info = (): DeviceArray => dev.alloc('int32', count);
        const candidates = [
          ...(n <= VENDOR_JACOBI_MAX ? [vendorCandidate(`${complexInfo(dtype).letter.toUpperCase()}heevjBatched`, info, (i) => solver.complexHeevjBatched(dtype, n, a, w, i, count), check)] : []),
          ...(n > VENDOR_JACOBI_MAX || solver.hasSyevBatched ? [vendorCandidate('XsyevBatched', info, (i) => solver.complexSyevBatched(dtype, n, a, w, i, count), check)] : []),
        ];
        dispose();
        return { candidates } satisfies VendorChoice;
      }
      case 'geqrf': {
        // cublas{Z,C}geqrfBatched: R and the reflectors over A, n scalars of tau per matrix.
        const A = ptrs(a, n, n), T = keep(batchPointers(dev, arrays.tau as DeviceArray, count, 2 * n));
        return { run: () => { vendor.blas().complexGeqrfBatched(dtype, n, n, A, n, T, count); }, dispose };
      }
      case 'gesvd': {
        // cusolverDn{Z,C}gesvdjBatched: U (n x n) into u, V (n x n, not V^H) into vt; A destroyed (restored before each run).
        const order = jacobiOrder('gesvdj', dtype, n);
        const call = keep(vendor.solver().complexGesvdjBatched(dtype, order, order, a, arrays.s as DeviceArray, arrays.u as DeviceArray, arrays.vt as DeviceArray, ints(count), count));
        return { run: () => call.run(), dispose, check: valuesCheck(dev, 'gesvd', dtype, n, count, arrays) };
      }
      default:
        dispose();
        return undefined;
    }
  } catch (e) {
    dispose();
    throw e;
  }
}

/** The matrices of a batch of n x n pairs at `indices`, downloaded one by one (views: nothing copied on the device). */
function download(dev: GpuDevice, x: DeviceArray, n: number, indices: readonly number[]): FloatArray[] {
  return indices.map((i) => dev.download(dev.view(x, 2 * n * n * i, 2 * n * n)) as FloatArray);
}

function downloadPivots(dev: GpuDevice, piv: DeviceArray, n: number, indices: readonly number[]): Int32Array[] {
  return indices.map((i) => dev.download(dev.view(piv, n * i, n)) as Int32Array);
}

/**
 * The check of the vendor's LU (getrf, gesv): made when the vendor run is prepared, that is after the
 * own timed runs, so `a` then holds the own factors of fresh data and `ipiv` the own (0-based)
 * pivots, read here; run after the vendor's timed runs, when `a` and `piv` hold the vendor's
 * (1-based). A note where the vendor's residual is above LU_RESIDUAL_LIMIT (or NaN).
 */
function luCheck(dev: GpuDevice, dtype: ComplexDType, n: number, count: number, arrays: Record<string, Storage>, piv: DeviceArray): () => string | undefined {
  const a = arrays.a as DeviceArray, a0 = arrays.a0 as DeviceArray | undefined, ipiv = arrays.ipiv as DeviceArray | undefined;
  const sample = checkSample(n, count);
  const eps = DTYPE_EPS[complexInfo(dtype).real];
  const pristine = a0 === undefined ? undefined : download(dev, a0, n, sample);
  const worst = (factors: FloatArray[], pivots: Int32Array[], base: 0 | 1): number =>
    factors.reduce((w, f, j) => { const r = complexLuResidual(pristine![j]!, f, pivots[j]!, n, base, eps); return Number.isNaN(r) || Number.isNaN(w) ? NaN : Math.max(w, r); }, 0);
  const own = pristine === undefined || ipiv === undefined ? undefined : worst(download(dev, a, n, sample), downloadPivots(dev, ipiv, n, sample), 0);
  return () => {
    if (pristine === undefined) return 'vendor LU not checked (no pristine copy)';
    const vendor = worst(download(dev, a, n, sample), downloadPivots(dev, piv, n, sample), 1);
    if (vendor <= LU_RESIDUAL_LIMIT) return undefined;
    const fmt = (r: number | undefined): string => (r === undefined ? '-' : r.toPrecision(2));
    return `vendor LU wrong: ||PA-LU||/(n eps ||A||) ${fmt(vendor)} (ours ${fmt(own)}) on ${sample.length} of ${count} matrices`;
  };
}

/** n, where the vendor's batched Jacobi routine takes it; above VENDOR_JACOBI_MAX the row's vendor column says why it is empty. */
function jacobiOrder(routine: 'gesvdj', dtype: ComplexDType, n: number): number {
  if (n <= VENDOR_JACOBI_MAX) return n;
  const name = `cusolverDn${complexInfo(dtype).letter.toUpperCase()}${routine}Batched`;
  throw new VendorError('NOT_RUN', 0, `${name}: n <= ${VENDOR_JACOBI_MAX} only, no vendor row above`);
}

/**
 * The check of the vendor's eigenvalues (heev: w) or singular values (gesvd: s): made when the
 * vendor run is prepared, after the own timed runs, so `w` / `s` then hold the own values of the
 * pristine matrices `a0`, read here, and the CPU reference's values of a few of those matrices are
 * computed (untimed); run after the vendor's timed runs, when they hold the vendor's. A note where
 * the vendor's are more than VALUES_LIMIT n eps ||A||_F off the reference's (or NaN).
 */
function valuesCheck(dev: GpuDevice, op: 'heev' | 'gesvd', dtype: ComplexDType, n: number, count: number, arrays: Record<string, Storage>): () => string | undefined {
  const what = op === 'heev' ? 'eigenvalues' : 'singular values';
  const a0 = arrays.a0 as DeviceArray | undefined;
  const out = (op === 'heev' ? arrays.w : arrays.s) as DeviceArray;
  if (a0 === undefined) return () => `vendor ${what} not checked (no pristine copy)`;
  const sample = checkSample(n, count, VALUES_SAMPLE);
  const eps = DTYPE_EPS[complexInfo(dtype).real];
  const pristine = download(dev, a0, n, sample);
  const reference = pristine.map((m) => (op === 'heev' ? hermitianEigenvalues(m, n) : complexSingularValues(m, n)));
  const worst = (): number => sample.reduce((w, i, j) => {
    const d = valuesDeviation(pristine[j]!, reference[j]!, dev.download(dev.view(out, n * i, n)) as FloatArray, n, eps);
    return Number.isNaN(d) || Number.isNaN(w) ? NaN : Math.max(w, d);
  }, 0);
  const own = worst();
  return () => {
    const vendor = worst();
    if (vendor <= VALUES_LIMIT) return undefined;
    return `vendor ${what} wrong: max |x - x_ref|/(n eps ||A||_F) ${vendor.toPrecision(2)} (ours ${own.toPrecision(2)}) on ${sample.length} of ${count} matrices`;
  };
}
