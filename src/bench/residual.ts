/**
 * Normalised residuals as LAPACK's tests compute them, for the demo and the benchmarks:
 * ||A X - B||_inf / (||A||_inf ||X||_inf n eps) for each matrix of a packed batch; the worst one.
 * Independent of how X was computed.
 */
import { DTYPE_EPS, type DType, type FloatArray } from '../core/dtype.js';

export function maxSolveResidual(dtype: DType, a: FloatArray, x: FloatArray, b: FloatArray, n: number, nrhs: number, count: number): number {
  let worst = 0;
  const eps = DTYPE_EPS[dtype];
  const row = new Float64Array(nrhs);
  for (let m = 0; m < count; m++) {
    const A = m * n * n;
    const X = m * n * nrhs;
    let normA = 0, normX = 0, normR = 0;
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0; j < n; j++) s += Math.abs(a[A + i + j * n]!);
      normA = Math.max(normA, s);
      let sx = 0;
      for (let k = 0; k < nrhs; k++) sx += Math.abs(x[X + i + k * n]!);
      normX = Math.max(normX, sx);
      row.fill(0);
      for (let j = 0; j < n; j++) {
        const aij = a[A + i + j * n]!;
        for (let k = 0; k < nrhs; k++) row[k]! += aij * x[X + j + k * n]!;
      }
      let sr = 0;
      for (let k = 0; k < nrhs; k++) sr += Math.abs(row[k]! - b[X + i + k * n]!);
      normR = Math.max(normR, sr);
    }
    const r = normR / (Math.max(normA * normX, Number.MIN_VALUE) * n * eps);
    worst = Number.isNaN(r) ? NaN : Math.max(worst, r);
    if (Number.isNaN(worst)) return NaN;
  }
  return worst;
}
