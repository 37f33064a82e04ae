/**
 * gels's plan for one group of m x n systems with nrhs right-hand sides: pure arithmetic on the
 * sizes (the pieces plan themselves: geqrf, ormqr and trsm each run their own planner).
 *
 * - m >= n: A = Q R (geqrf in place), B := Q^T B (ormqr 'T'), R X = B(0:n) (trsm, upper, 'N').
 * - m < n (minimum norm): A^T = Q R in a workspace (LAPACK factors A = L Q; A^T's Q R is its
 *   transpose), R^T Y = B(0:m) (trsm, upper, 'T'), B(m:n) := 0, X = Q [Y; 0] (ormqr 'N').
 */
import type { GelsPlan } from './params.js';

export interface GelsProblem {
  readonly m: number;
  readonly n: number;
  readonly nrhs: number;
}

export function planGels({ m, n, nrhs }: GelsProblem): GelsPlan {
  const tall = m >= n;
  const k = Math.min(m, n);
  return {
    tall, k,
    factorRows: tall ? m : n,
    factorCols: tall ? n : m,
    rowsB: Math.max(m, n),
    ormqrTrans: tall ? 'T' : 'N',
    trsmTrans: tall ? 'N' : 'T',
    tauElements: k,
    guardElements: tall ? n * nrhs : 0,
    workElements: tall ? 0 : n * m,
  };
}
