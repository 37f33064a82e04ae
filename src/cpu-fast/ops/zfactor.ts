/**
 * potrf, posv, potrs, getrf, gesv and getrs on complex batches: the generated JavaScript kernels
 * (kernels/zpotrf-js.ts, zgetrf-js.ts) or the WebAssembly ones (ops/zpotrf-wasm.ts for potrf, posv
 * and potrs; ops/zgetrf-wasm.ts for the LU ops) where plan/complex.ts says so, the complex reference
 * (src/cpu/complex/) for the rest. Strided runs go to a kernel in one call; list batches one
 * matrix at a time (ops/run-batch.ts). The kernels take offsets in floats: twice the complex counts.
 */
import type { Batch } from '../../core/batch.js';
import type { ComplexDType, FloatArray } from '../../core/dtype.js';
import type { ComplexGetrsRequest, GeqrfRequest, GesvdRequest, GetriRequest, OrgqrRequest, GesvRequest, GetrfRequest, PosvRequest, PotrfRequest, PotrsRequest } from '../../core/op-specs.js';
import { complexReference } from '../../cpu/complex/backend.js';
import { cpuScratch, cpuTuning } from '../context.js';
import { kernelFactory } from '../jit/compile.js';
import { generateZgetrfJs, type ZgetrfJsKernel, type ZgetrfJsParams } from '../kernels/zgetrf-js.js';
import { generateZpotrfJs, type ZpotrfJsKernel, type ZpotrfJsParams } from '../kernels/zpotrf-js.js';
import { planComplexCholesky, planComplexLu, planComplexPairs, type ComplexCholeskyForce, type ComplexFactorOp, type ComplexForce, type ComplexLuForce, type ComplexPairForce } from '../plan/complex.js';
import { fastGemmComplex } from './zgemm.js';
import { fastTrsmComplex } from './ztrsm.js';
import type { OpOptions } from '../tuning.js';
import { runBatch, stridedView } from './run-batch.js';
import { zpotrfWasm } from './zpotrf-wasm.js';
import { sliceRequest } from '../split.js';
import { zgetrfWasm } from './zgetrf-wasm.js';
import { zgeqrfWasm } from './zgeqrf-wasm.js';
import { zgetriWasm } from './zgetri-wasm.js';
import { fastHeevComplex } from './zheev.js';
import { zgesvdWasm } from './zgesvd-wasm.js';

const choleskyFor = kernelFactory<ZpotrfJsParams, ZpotrfJsKernel>(generateZpotrfJs);
const luFor = kernelFactory<ZgetrfJsParams, ZgetrfJsKernel>(generateZgetrfJs);

export type ComplexOptions = OpOptions<ComplexForce>;
export type ComplexCholeskyOptions = OpOptions<ComplexCholeskyForce>;
export type ComplexLuOptions = OpOptions<ComplexLuForce>;
export type ComplexPairOptions = OpOptions<ComplexPairForce>;

type CholeskyReq = PotrsRequest<FloatArray, Int32Array>;
type LuReq = ComplexGetrsRequest<FloatArray, Int32Array>;

/** The element type of a complex request. */
function dtypeOf(r: { a: Batch<FloatArray> }): ComplexDType {
  return r.a.dtype ?? 'complex128';
}

function runCholesky(op: 'potrf' | 'posv' | 'potrs', r: CholeskyReq, fallback: (r: CholeskyReq) => void, options: ComplexCholeskyOptions = {}): void {
  const dtype = dtypeOf(r);
  runBatch(r, {
    shapeOf: r.a,
    kernel(m, p0, count): boolean {
      const tuning = options.tuning ?? cpuTuning();
      const variant = planComplexCholesky({ op, m: m.rows, n: m.cols, dtype }, tuning, options.force);
      if (variant === 'reference') return false;
      if (variant === 'wasm') {
        const { rows, pairs: range, pairRows } = tuning.complexCholeskyWasm;
        zpotrfWasm(op, r, m, p0, count, { rows, pairRows, pairs: m.rows >= range.min && m.rows <= range.max });
        return true;
      }
      const k = choleskyFor({ op, n: m.rows, uplo: r.uplo, dtype });
      const aStride = r.a.kind === 'strided' ? 2 * r.a.stride : 0;
      if (op === 'potrf') {
        k(m.data, 2 * m.offset, 2 * m.ld, aStride, null, 0, 2, 0, 0, r.info, p0, count);
        return true;
      }
      const b = stridedView(r.b, p0);
      k(m.data, 2 * m.offset, 2 * m.ld, aStride, b.data, 2 * b.offset, 2 * b.ld, 2 * b.stride, b.cols, r.info, p0, count);
      return true;
    },
    fallback,
  });
}

function runLu(op: 'getrf' | 'gesv' | 'getrs', r: LuReq, fallback: (r: LuReq) => void, options: ComplexLuOptions = {}): void {
  const dtype = dtypeOf(r);
  runBatch(r, {
    shapeOf: r.a,
    kernel(m, p0, count): boolean {
      const tuning = options.tuning ?? cpuTuning();
      const variant = planComplexLu({ op, m: m.rows, n: m.cols, trans: r.trans }, tuning, options.force);
      if (variant === 'reference') return false;
      const n = m.rows;
      if (variant === 'wasm') {
        zgetrfWasm(op, r, n, p0, count, tuning, (p) => fallback(sliceRequest(r, p, p + 1)));
        return true;
      }
      const k = luFor({ op, n, dtype, trans: op === 'getrs' ? r.trans : 'N' });
      const aStride = r.a.kind === 'strided' ? 2 * r.a.stride : 0;
      const b = op === 'getrf' ? null : stridedView(r.b, p0);
      k(m.data, 2 * m.offset, 2 * m.ld, aStride, b ? b.data : null, b ? 2 * b.offset : 0, b ? 2 * b.ld : 2, b ? 2 * b.stride : 0, b ? b.cols : 0,
        r.info, p0, r.ipiv, p0 * r.pivotStride, r.pivotStride, count, cpuScratch().f64('zgetrfJs', 2 * n * n), cpuScratch().f64('zgetrfJsRhs', 2 * n));
      return true;
    },
    fallback,
  });
}

/** geqrf: the two-matrix kernel (ops/zgeqrf-wasm.ts) where plan/complex.ts says so, else the reference. */
export function fastGeqrfComplex(r: GeqrfRequest<FloatArray, Int32Array>, options: ComplexPairOptions = {}): void {
  const fallback = (s: GeqrfRequest<FloatArray, Int32Array>): void => complexReference.geqrf(s);
  runBatch(r, {
    shapeOf: r.a,
    kernel(m, p0, count): boolean {
      const tuning = options.tuning ?? cpuTuning();
      if (planComplexPairs({ op: 'geqrf', m: m.rows, n: m.cols }, tuning, options.force) === 'reference') return false;
      zgeqrfWasm({ op: 'geqrf', r }, m.rows, m.cols, p0, count, (p) => fallback(sliceRequest(r, p, p + 1)));
      return true;
    },
    fallback,
  });
}

/** orgqr: the two-matrix kernel (ops/zgeqrf-wasm.ts) where plan/complex.ts says so, else the reference. */
export function fastOrgqrComplex(r: OrgqrRequest<FloatArray>, options: ComplexPairOptions = {}): void {
  const fallback = (s: OrgqrRequest<FloatArray>): void => complexReference.orgqr(s);
  runBatch(r, {
    shapeOf: r.a,
    kernel(m, p0, count): boolean {
      const tuning = options.tuning ?? cpuTuning();
      const k = stridedView(r.tau, p0).rows;
      if (planComplexPairs({ op: 'orgqr', m: m.rows, n: m.cols, k }, tuning, options.force) === 'reference') return false;
      zgeqrfWasm({ op: 'orgqr', r }, m.rows, m.cols, p0, count, (p) => fallback(sliceRequest(r, p, p + 1)));
      return true;
    },
    fallback,
  });
}

/** getri: the two-matrix kernel (ops/zgetri-wasm.ts) where plan/complex.ts says so, else the reference. */
export function fastGetriComplex(r: GetriRequest<FloatArray, Int32Array>, options: ComplexPairOptions = {}): void {
  const fallback = (s: GetriRequest<FloatArray, Int32Array>): void => complexReference.getri(s);
  runBatch(r, {
    shapeOf: r.a,
    kernel(m, p0, count): boolean {
      const tuning = options.tuning ?? cpuTuning();
      if (planComplexPairs({ op: 'getri', m: m.rows, n: m.cols }, tuning, options.force) === 'reference') return false;
      zgetriWasm(r, m.rows, p0, count, (p) => fallback(sliceRequest(r, p, p + 1)));
      return true;
    },
    fallback,
  });
}

/** gesvd: the two-matrix Jacobi sweeps (ops/zgesvd-wasm.ts) where plan/complex.ts says so, else the reference. */
export function fastGesvdComplex(r: GesvdRequest<FloatArray, Int32Array>, options: ComplexPairOptions = {}): void {
  const fallback = (s: GesvdRequest<FloatArray, Int32Array>): void => complexReference.gesvd(s);
  runBatch(r, {
    shapeOf: r.a,
    kernel(m, p0, count): boolean {
      const tuning = options.tuning ?? cpuTuning();
      if (planComplexPairs({ op: 'gesvd', m: m.rows, n: m.cols }, tuning, options.force) === 'reference') return false;
      zgesvdWasm(r, m.rows, m.cols, p0, count, (p) => fallback(sliceRequest(r, p, p + 1)));
      return true;
    },
    fallback,
  });
}

const ref = complexReference;

export const fastPotrfComplex = (r: PotrfRequest<FloatArray, Int32Array>, options?: ComplexCholeskyOptions): void =>
  runCholesky('potrf', { ...r, b: r.a }, (s) => ref.potrf({ uplo: s.uplo, a: s.a, info: s.info }), options);
export const fastPosvComplex = (r: PosvRequest<FloatArray, Int32Array>, options?: ComplexCholeskyOptions): void =>
  runCholesky('posv', r, ref.posv, options);
export const fastPotrsComplex = (r: PotrsRequest<FloatArray, Int32Array>, options?: ComplexCholeskyOptions): void =>
  runCholesky('potrs', r, ref.potrs, options);
export const fastGetrfComplex = (r: GetrfRequest<FloatArray, Int32Array>, options?: ComplexLuOptions): void =>
  runLu('getrf', { ...r, trans: 'N', b: r.a }, (s) => ref.getrf({ a: s.a, ipiv: s.ipiv, pivotStride: s.pivotStride, info: s.info }), options);
export const fastGesvComplex = (r: GesvRequest<FloatArray, Int32Array>, options?: ComplexLuOptions): void =>
  runLu('gesv', { ...r, trans: 'N' }, (s) => ref.gesv({ a: s.a, b: s.b, ipiv: s.ipiv, pivotStride: s.pivotStride, info: s.info }), options);
export const fastGetrsComplex = (r: ComplexGetrsRequest<FloatArray, Int32Array>, options?: ComplexLuOptions): void =>
  runLu('getrs', r, ref.getrs, options);

/** The complex ops with fast kernels. */
export type ComplexFastOp = ComplexFactorOp | 'gemm' | 'trsm' | 'geqrf' | 'orgqr' | 'getri' | 'heev' | 'gesvd';

/** The complex ops with fast kernels, by name. */
export const FAST_COMPLEX: { readonly [K in ComplexFastOp]: (r: never) => void } = Object.freeze({
  potrf: fastPotrfComplex, posv: fastPosvComplex, potrs: fastPotrsComplex,
  getrf: fastGetrfComplex, gesv: fastGesvComplex, getrs: fastGetrsComplex,
  gemm: fastGemmComplex, trsm: fastTrsmComplex,
  geqrf: fastGeqrfComplex, orgqr: fastOrgqrComplex, getri: fastGetriComplex,
  heev: fastHeevComplex,
  gesvd: fastGesvdComplex,
});
