/**
 * General matrix multiply on complex batches, the reference (BLAS zgemm / cgemm):
 * C := alpha op(A) op(B) + beta C, column-major, C m x n, op(A) m x k, op(B) k x n, op one of
 * 'N', 'T' (transpose) and 'C' (conjugate transpose). Element (i, j) of X is the pair
 * X[2 (xOff + i + j ldx)] (re), X[2 (xOff + i + j ldx) + 1] (im).
 */
import { batchCount, matrixAt } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import type { ComplexGemmRequest, ComplexOp, ComplexScalar } from '../../core/op-specs.js';

/** Runs `zgemm1` on every matrix of the batch (strided or list). */
export function cpuGemmComplex(r: ComplexGemmRequest<FloatArray>): void {
  const count = batchCount(r.c);
  for (let p = 0; p < count; p++) {
    const a = matrixAt(r.a, p);
    const b = matrixAt(r.b, p);
    const c = matrixAt(r.c, p);
    const k = r.transA === 'N' ? a.cols : a.rows;
    zgemm1(r.transA, r.transB, c.rows, c.cols, k, r.alpha,
      a.data, a.offset, a.ld, b.data, b.offset, b.ld, r.beta, c.data, c.offset, c.ld);
  }
}

/**
 * One complex gemm. beta = 0 never reads C (NaN there is overwritten); alpha = 0 (or k = 0) never
 * reads A or B; alpha = 0 and beta = 1 returns at once, as BLAS does.
 */
export function zgemm1(
  transA: ComplexOp, transB: ComplexOp, m: number, n: number, k: number, alpha: ComplexScalar,
  A: FloatArray, aOff: number, lda: number,
  B: FloatArray, bOff: number, ldb: number,
  beta: ComplexScalar, C: FloatArray, cOff: number, ldc: number,
): void {
  const [ar, ai] = alpha;
  const [br, bi] = beta;
  const alphaZero = ar === 0 && ai === 0;
  const betaZero = br === 0 && bi === 0;
  if (m === 0 || n === 0 || ((alphaZero || k === 0) && br === 1 && bi === 0)) return;
  // op(X)(r, s) at X[2 (off + r * rowStep + s * colStep)], conjugated where op is 'C'.
  const aRow = transA === 'N' ? 1 : lda;
  const aCol = transA === 'N' ? lda : 1;
  const bRow = transB === 'N' ? 1 : ldb;
  const bCol = transB === 'N' ? ldb : 1;
  const aSign = transA === 'C' ? -1 : 1;
  const bSign = transB === 'C' ? -1 : 1;
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < m; i++) {
      let tr = 0;
      let ti = 0;
      if (!alphaZero) {
        for (let l = 0; l < k; l++) {
          const x = 2 * (aOff + i * aRow + l * aCol);
          const y = 2 * (bOff + l * bRow + j * bCol);
          const xr = A[x]!;
          const xi = aSign * A[x + 1]!;
          const yr = B[y]!;
          const yi = bSign * B[y + 1]!;
          tr += xr * yr - xi * yi;
          ti += xr * yi + xi * yr;
        }
      }
      const z = 2 * (cOff + i + j * ldc);
      let zr = ar * tr - ai * ti;
      let zi = ar * ti + ai * tr;
      if (!betaZero) {
        const cr = C[z]!;
        const ci = C[z + 1]!;
        zr += br * cr - bi * ci;
        zi += br * ci + bi * cr;
      }
      C[z] = zr;
      C[z + 1] = zi;
    }
  }
}
