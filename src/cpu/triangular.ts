/** The batch loop shared by trsm and trmm: one per-matrix kernel of the same signature. */
import { batchCount, matrixAt } from '../core/batch.js';
import type { FloatArray } from '../core/dtype.js';
import type { Diag, Side, Uplo } from '../core/enums.js';
import type { Op, TrsmRequest } from '../core/ops.js';

/** One triangular operation on B (m x n) with A, element (i, j) of X at `X[xOff + i + j * ldx]`. */
export type TriangularKernel = (
  side: Side, uplo: Uplo, transA: Op, diag: Diag, m: number, n: number, alpha: number,
  A: FloatArray, aOff: number, lda: number,
  B: FloatArray, bOff: number, ldb: number,
) => void;

/** Runs `kernel` on every matrix of the batch (m, n from each B). */
export function eachTriangular(r: TrsmRequest<FloatArray>, kernel: TriangularKernel): void {
  const count = batchCount(r.b);
  for (let p = 0; p < count; p++) {
    const a = matrixAt(r.a, p);
    const b = matrixAt(r.b, p);
    kernel(r.side, r.uplo, r.transA, r.diag, b.rows, b.cols, r.alpha, a.data, a.offset, a.ld, b.data, b.offset, b.ld);
  }
}
