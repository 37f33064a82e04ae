/**
 * qr and lstsq on complex arrays (numpy 2's conventions, as the real ones in array-qr.ts): geqrf
 * and orgqr (zgeqrf, zungqr) for Q with orthonormal columns (Q^H Q = I) and R upper triangular;
 * gels (zgels) for x, and the residuals as real sums of |b - a x|^2. Column-major work copies in
 * and row-major results out, as array-complex.ts explains; the GPU's TSQR route is real only.
 */
import type { FloatArray } from '../core/dtype.js';
import { check, describeValue } from '../core/errors.js';
import { parseEnumValue } from '../core/enums.js';
import type { Context } from './context.js';
import type { LstsqResult, QrOptions, QrResult } from './array-qr.js';
import { allocLike, checkOptions, markNonFinite, markZeroMatrices, numpyRhs, poisonFailed, sameDtype, sourceIndices, stackOf, type NDArray, type WithInfo } from './array.js';
import { own, toCol, toRow, zbatch } from './array-complex.js';

export function qr<T extends FloatArray>(ctx: Context, a: NDArray<T>, options: QrOptions = {}): QrResult<T> {
  checkOptions(options, ['mode']);
  const mode = parseEnumValue(options.mode ?? 'reduced', ['reduced', 'complete', 'r'] as const, 'options.mode');
  const st = stackOf(a, 'a', 2, true);
  const { batchShape, count, rows: m, cols: n } = st;
  const z = st.complex!;
  const k = Math.min(m, n);
  const ld = Math.max(1, m);
  const cols = mode === 'complete' ? Math.max(m, n) : n;
  const qc = mode === 'complete' ? m : k;
  const rr = mode === 'complete' ? m : k;
  const per = ld * cols;
  const work = toCol(a.data, own(count), m, n, ld, cols);
  const tau = allocLike(a.data, 2 * count * k);
  if (count > 0 && k > 0) ctx.geqrf({ a: zbatch(work, z, m, n, count, 'a', ld, per), tau: zbatch(tau, z, k, 1, count, 'tau') });
  const r = allocLike(a.data, 2 * count * rr * n);
  for (let c = 0; c < count; c++) for (let i = 0; i < k; i++) for (let j = i; j < n; j++) {
    const f = 2 * (c * per + i + j * ld);
    const t = 2 * (c * rr * n + i * n + j);
    r[t] = work[f]!;
    r[t + 1] = work[f + 1]!;
  }
  const rOut: NDArray<T> = { data: r, shape: [...batchShape, rr, n], dtype: z };
  if (mode === 'r') return { r: rOut };
  if (count > 0 && qc > 0) {
    if (k === 0) for (let c = 0; c < count; c++) for (let j = 0; j < qc; j++) work.fill(0, 2 * (c * per + j * ld), 2 * (c * per + j * ld + m)).fill(1, 2 * (c * per + j + j * ld), 2 * (c * per + j + j * ld) + 1);
    else ctx.orgqr({ a: zbatch(work, z, m, qc, count, 'a', ld, per), tau: zbatch(tau, z, k, 1, count, 'tau') });
  }
  return { q: { data: toRow(work, count, m, qc, ld, per), shape: [...batchShape, m, qc], dtype: z }, r: rOut };
}

export function lstsqEx<T extends FloatArray>(ctx: Context, a: NDArray<T>, b: NDArray<T>): WithInfo<LstsqResult<T>> {
  const sa = stackOf(a, 'a', 2, true);
  const { rows: m, cols: n } = sa;
  const z = sa.complex!;
  sameDtype(a, b, 'b');
  check(typeof b === 'object' && b !== null && Array.isArray(b.shape), 'INVALID_ARGUMENT', 'b', `expected { data, shape }, got ${describeValue(b)}`);
  const { sb, vector, batchShape, count } = numpyRhs(sa, a.shape, b, (rows) =>
    `b has ${rows} rows but a is [..., ${m}, ${n}]: b is [..., ${m}, nrhs] (numpy 2 reads b as one vector only when 1-D: give b [..., ${m}, 1] for a vector per matrix)`);
  const nrhs = sb.cols;
  const big = Math.max(1, m, n);
  const aw = toCol(a.data, sourceIndices(sa.batchShape, batchShape), m, n);
  const bw = toCol(b.data, sourceIndices(sb.batchShape, batchShape), m, nrhs, big, nrhs);
  const p = Math.min(m, n);
  const bad = new Int32Array(count);
  markNonFinite(bad, aw, 2 * m * n, p);
  markNonFinite(bad, bw, 2 * big * nrhs, p);
  let info: Int32Array = new Int32Array(count);
  if (count > 0 && m > 0 && n > 0 && nrhs > 0)
    info = ctx.gels({ a: zbatch(aw, z, m, n, count, 'a'), b: zbatch(bw, z, big, nrhs, count, 'b') }).info as Int32Array;
  // gels leaves a zero A as it was (zgels returns at once there).
  markZeroMatrices(info, aw, 2 * m * n);
  bad.forEach((v, c) => { if (v !== 0) info[c] = v; });
  const x: NDArray<T> = { data: toRow(bw, count, n, nrhs, big, big * nrhs), shape: vector ? [...batchShape, n] : [...batchShape, n, nrhs], dtype: z };
  const rk = m > n ? nrhs : 0;
  const residuals: NDArray<T> = { data: allocLike(a.data, count * rk), shape: [...batchShape, rk] };
  for (let c = 0; c < count; c++) for (let j = 0; j < rk; j++) {
    let sum = 0;
    for (let i = n; i < m; i++) {
      const f = 2 * (c * big * nrhs + i + j * big);
      sum += bw[f]! ** 2 + bw[f + 1]! ** 2;
    }
    residuals.data[c * rk + j] = sum;
  }
  poisonFailed(x, info, 2 * n * nrhs);
  poisonFailed(residuals, info, rk);
  return { x, residuals, info };
}

