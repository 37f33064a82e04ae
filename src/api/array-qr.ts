/**
 * The array level of QR and least squares (numpy 2's conventions, see array.ts), on geqrf, orgqr
 * and gels. The stacks are copied into column-major work arrays (so the LAPACK-level calls need
 * no row-major copies of their own) and the results written out row-major.
 *
 * - qr(a, { mode }): numpy's linalg.qr: 'reduced' (default) q [..., m, k], r [..., k, n];
 *   'complete' q [..., m, m], r [..., m, n]; 'r' only r [..., k, n] (q absent). k = min(m, n).
 *   QR cannot fail (NaN in a matrix stays in that matrix's q and r).
 *   On a CUDA context, modes 'reduced' and 'r' of a few tall-and-skinny matrices (the tsqr
 *   tuning's rule: n <= 32, m >= 8192 and m >= 64 n, at most 16 matrices) run TSQR
 *   (CholeskyQR2, shifted CholeskyQR3 where A is ill-conditioned: src/cuda/kernels/tsqr/); R then
 *   has a positive diagonal, so it may differ from LAPACK's Householder R in the signs of its
 *   rows (and Q in the signs of the matching columns); Q R is the same. A matrix TSQR cannot
 *   factor (NaN or Inf, or numerically rank-deficient) is done again by Householder.
 * - lstsq(a, b): numpy's linalg.lstsq for matrices of full rank, over stacks: a [..., m, n], b
 *   [..., m, nrhs] whose batch dimensions broadcast against a's (as in solve and matmul), or b [m]
 *   (one vector for every matrix of a); x [..., n, nrhs] (or [..., n]); residuals [..., nrhs]
 *   (numpy's sums of squared residuals) where m > n, else [..., 0]. NaN/Inf in a matrix or its
 *   b fails it (info min(m, n) + 2). Least squares for m >= n, minimum norm for m < n (gels). A matrix whose R has an
 *   exactly zero diagonal entry (rank-deficient) fails: lstsq throws NUMERICAL, lstsqEx returns
 *   its info with x and residuals NaN. Unlike numpy (SVD), no rank or singular values are
 *   computed, and nearly rank-deficient matrices are solved as they come (no rcond).
 */
import { strided } from '../core/batch.js';
import { allocate, dtypeOfArray, type FloatArray } from '../core/dtype.js';
import { check, describeValue } from '../core/errors.js';
import { parseEnumValue } from '../core/enums.js';
import type { DeviceBackend } from '../core/device-backend.js';
import type { Context } from './context.js';
import {
  allocLike, checkOptions, markNonFinite, markZeroMatrices, numpyRhs, poisonFailed, sameDtype, sourceIndices, stackOf,
  type NDArray, type WithInfo,
} from './array.js';

export type QrMode = 'reduced' | 'complete' | 'r';
export interface QrOptions { mode?: QrMode }
/** q is absent in mode 'r'. */
export interface QrResult<T extends FloatArray = FloatArray> { q?: NDArray<T>; r: NDArray<T> }
/** x [..., n, nrhs] (or [..., n] for a 1-D b); residuals [..., nrhs] where m > n, else [..., 0]. */
export interface LstsqResult<T extends FloatArray = FloatArray> { x: NDArray<T>; residuals: NDArray<T> }

/** Column-major copies of the matrices of a row-major stack, `cols` columns each (the first n from a). */
function columnMajor(data: FloatArray, count: number, m: number, n: number, cols: number): FloatArray {
  const out = allocate(dtypeOfArray(data, 'a.data'), count * m * cols);
  for (let c = 0; c < count; c++) for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) out[c * m * cols + i + j * m] = data[c * m * n + i * n + j]!;
  return out;
}

export function qr<T extends FloatArray>(ctx: Context, a: NDArray<T>, options: QrOptions = {}): QrResult<T> {
  checkOptions(options, ['mode']);
  const mode = parseEnumValue(options.mode ?? 'reduced', ['reduced', 'complete', 'r'] as const, 'options.mode');
  const { count, rows: m, cols: n } = stackOf(a, 'a');
  const backend = ctx.deviceBackend;
  if (mode !== 'complete' && backend?.qrTallSkinny !== undefined && backend.takesQrTallSkinny?.(m, n, count) === true)
    return tsqrQr(ctx, backend, a, mode) as QrResult<T>;
  return householderQr(ctx, a, mode) as QrResult<T>;
}

/**
 * TSQR on the context's GPU for modes 'reduced' and 'r' (k = n: m >= n); the matrices TSQR reports
 * failed (info > 0) go through Householder, one stack of them.
 */
function tsqrQr(ctx: Context, backend: DeviceBackend, a: NDArray, mode: 'reduced' | 'r'): QrResult {
  const { batchShape, count, rows: m, cols: n } = stackOf(a, 'a');
  const dtype = dtypeOfArray(a.data, 'a.data');
  const { q: qcol, r: rcol, info } = backend.qrTallSkinny!(columnMajor(a.data, count, m, n, n), m, n, count, mode !== 'r');
  const r: NDArray = { data: allocate(dtype, count * n * n), shape: [...batchShape, n, n] };
  for (let c = 0; c < count; c++) for (let i = 0; i < n; i++) for (let j = i; j < n; j++) r.data[c * n * n + i * n + j] = rcol[c * n * n + i + j * n]!;
  const q: NDArray | undefined = mode === 'r' ? undefined : { data: allocate(dtype, count * m * n), shape: [...batchShape, m, n] };
  if (q) for (let c = 0; c < count; c++) for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) q.data[c * m * n + i * n + j] = qcol[c * m * n + i + j * m]!;
  const failed = [...info.keys()].filter((c) => info[c] !== 0);
  if (failed.length > 0) {
    const stack = allocate(dtype, failed.length * m * n);
    failed.forEach((c, f) => stack.set(a.data.subarray(c * m * n, (c + 1) * m * n), f * m * n));
    const redo = householderQr(ctx, { data: stack, shape: [failed.length, m, n] }, mode);
    failed.forEach((c, f) => {
      r.data.set(redo.r.data.subarray(f * n * n, (f + 1) * n * n), c * n * n);
      if (q && redo.q) q.data.set(redo.q.data.subarray(f * m * n, (f + 1) * m * n), c * m * n);
    });
  }
  return q ? { q, r } : { r };
}

function householderQr(ctx: Context, a: NDArray, mode: QrMode): QrResult {
  const { batchShape, count, rows: m, cols: n } = stackOf(a, 'a');
  const k = Math.min(m, n);
  const dtype = dtypeOfArray(a.data, 'a.data');
  const cols = mode === 'complete' ? Math.max(m, n) : n;
  const qc = mode === 'complete' ? m : k;
  const rr = mode === 'complete' ? m : k;
  const work = columnMajor(a.data, count, m, n, cols);
  const tau = allocate(dtype, count * k);
  const per = m * cols;
  if (count > 0 && k > 0) {
    ctx.geqrf({
      a: strided(work, { rows: m, cols: n, ld: m, stride: per, count }, 'a'),
      tau: strided(tau, { rows: k, cols: 1, ld: k, stride: k, count }, 'tau'),
    });
  }
  const r: NDArray = { data: allocate(dtype, count * rr * n), shape: [...batchShape, rr, n] };
  for (let c = 0; c < count; c++) for (let i = 0; i < k; i++) for (let j = i; j < n; j++) r.data[c * rr * n + i * n + j] = work[c * per + i + j * m]!;
  if (mode === 'r') return { r };
  if (count > 0 && qc > 0) {
    if (k === 0) for (let c = 0; c < count; c++) for (let j = 0; j < qc; j++) work[c * per + j + j * m] = 1;
    else ctx.orgqr({
      a: strided(work, { rows: m, cols: qc, ld: m, stride: per, count }, 'a'),
      tau: strided(tau, { rows: k, cols: 1, ld: k, stride: k, count }, 'tau'),
    });
  }
  const q: NDArray = { data: allocate(dtype, count * m * qc), shape: [...batchShape, m, qc] };
  for (let c = 0; c < count; c++) for (let i = 0; i < m; i++) for (let j = 0; j < qc; j++) q.data[c * m * qc + i * qc + j] = work[c * per + i + j * m]!;
  return { q, r };
}

export function lstsqEx<T extends FloatArray>(ctx: Context, a: NDArray<T>, b: NDArray<T>): WithInfo<LstsqResult<T>> {
  const sa = stackOf(a, 'a');
  const { rows: m, cols: n } = sa;
  sameDtype(a, b, 'b');
  check(typeof b === 'object' && b !== null && Array.isArray(b.shape), 'INVALID_ARGUMENT', 'b', `expected { data, shape }, got ${describeValue(b)}`);
  // The batch dimensions broadcast as in solve and matmul.
  const { sb, vector, batchShape, count } = numpyRhs(sa, a.shape, b, (rows) =>
    `b has ${rows} rows but a is [..., ${m}, ${n}]: b is [..., ${m}, nrhs] (numpy 2 reads b as one vector only when 1-D: give b [..., ${m}, 1] for a vector per matrix)`);
  const aIndex = sourceIndices(sa.batchShape, batchShape);
  const bIndex = sourceIndices(sb.batchShape, batchShape);
  const nrhs = sb.cols;
  const big = Math.max(m, n);
  const aw = allocLike(a.data, count * m * n);
  const bw = allocLike(a.data, count * big * nrhs);
  for (let c = 0; c < count; c++) {
    const ao = aIndex[c]! * m * n;
    const bo = bIndex[c]! * m * nrhs;
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < n; j++) aw[c * m * n + i + j * m] = a.data[ao + i * n + j]!;
      for (let j = 0; j < nrhs; j++) bw[c * big * nrhs + i + j * big] = b.data[bo + i * nrhs + j]!;
    }
  }
  const p = Math.min(m, n);
  const bad = new Int32Array(count);
  markNonFinite(bad, aw, m * n, p);
  markNonFinite(bad, bw, big * nrhs, p);
  let info: Int32Array = new Int32Array(count);
  if (count > 0 && m > 0 && n > 0 && nrhs > 0) {
    info = ctx.gels({
      a: strided(aw, { rows: m, cols: n, ld: m, stride: m * n, count }, 'a'),
      b: strided(bw, { rows: big, cols: nrhs, ld: big, stride: big * nrhs, count }, 'b'),
    }).info as Int32Array;
  }
  // gels leaves a zero A as it was (dgels returns at once there).
  markZeroMatrices(info, aw, m * n);
  bad.forEach((v, c) => { if (v !== 0) info[c] = v; });
  const x: NDArray<T> = { data: allocLike(a.data, count * n * nrhs), shape: vector ? [...batchShape, n] : [...batchShape, n, nrhs] };
  for (let c = 0; c < count; c++) for (let i = 0; i < (m > 0 ? n : 0); i++) for (let j = 0; j < nrhs; j++) x.data[c * n * nrhs + i * nrhs + j] = bw[c * big * nrhs + i + j * big]!;
  const rk = m > n ? nrhs : 0;
  const residuals: NDArray<T> = { data: allocLike(a.data, count * rk), shape: [...batchShape, rk] };
  for (let c = 0; c < count; c++) for (let j = 0; j < rk; j++) {
    let sum = 0;
    for (let i = n; i < m; i++) sum += bw[c * big * nrhs + i + j * big]! ** 2;
    residuals.data[c * rk + j] = sum;
  }
  poisonFailed(x, info, n * nrhs);
  poisonFailed(residuals, info, rk);
  return { x, residuals, info };
}

