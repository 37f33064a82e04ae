/**
 * Normalised residuals as LAPACK's tests compute them, for the demo and the benchmarks:
 * ||A X - B||_inf / (||A||_inf ||X||_inf n eps) for each matrix of a packed batch; the worst one.
 * Independent of how X was computed.
 */
import { DTYPE_EPS, type DType, type FloatArray } from '../core/dtype.js';

export function maxSolveResidual(dtype: DType, a: FloatArray, x: FloatArray, b: FloatArray, n: number, nrhs: number, count: number): number {
  let worst = 0;
  const eps = DTYPE_EPS[dtype];
  // By columns (the storage order), each sum in the same order as by rows: j ascending.
  const rowSum = new Float64Array(n);
  const ax = new Float64Array(n * nrhs);
  for (let m = 0; m < count; m++) {
    const A = m * n * n;
    const X = m * n * nrhs;
    rowSum.fill(0);
    ax.fill(0);
    for (let j = 0; j < n; j++) {
      const col = A + j * n;
      for (let i = 0; i < n; i++) rowSum[i]! += Math.abs(a[col + i]!);
      for (let k = 0; k < nrhs; k++) {
        const xj = x[X + j + k * n]!;
        const out = k * n;
        for (let i = 0; i < n; i++) ax[out + i]! += a[col + i]! * xj;
      }
    }
    let normA = 0, normX = 0, normR = 0;
    for (let i = 0; i < n; i++) {
      normA = Math.max(normA, rowSum[i]!);
      let sx = 0, sr = 0;
      for (let k = 0; k < nrhs; k++) {
        sx += Math.abs(x[X + i + k * n]!);
        sr += Math.abs(ax[i + k * n]! - b[X + i + k * n]!);
      }
      normX = Math.max(normX, sx);
      normR = Math.max(normR, sr);
    }
    const r = normR / (Math.max(normA * normX, Number.MIN_VALUE) * n * eps);
    worst = Number.isNaN(r) ? NaN : Math.max(worst, r);
    if (Number.isNaN(worst)) return NaN;
  }
  return worst;
}
