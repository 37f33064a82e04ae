/**
 * Rank-k updates of one triangle of C on complex batches, the reference:
 * - zsyrk (`cpuSyrkComplex`): C := alpha A A^T + beta C (trans 'N', A n x k) or alpha A^T A + beta C
 *   ('T', A k x n), complex alpha and beta, no conjugation (C complex symmetric);
 * - zherk (`cpuHerkComplex`): C := alpha A A^H + beta C ('N') or alpha A^H A + beta C ('C'), real
 *   alpha and beta, C Hermitian: as LAPACK's zherk, the imaginary parts of C's diagonal are set to
 *   zero (and only the real parts of the diagonal are read).
 * Only the `uplo` triangle of C is read or written. beta = 0 never reads C; alpha = 0 (or k = 0)
 * never reads A; with beta = 1 as well, C is left as it is (zherk's early return).
 */
import { batchCount, matrixAt, type MatrixView } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import type { ComplexHerkRequest, ComplexSyrkRequest } from '../../core/op-specs.js';

export function cpuSyrkComplex(r: ComplexSyrkRequest<FloatArray>): void {
  each(r.a, r.c, (a, c) => rankK(r.uplo === 'upper', r.trans !== 'N', false, r.alpha, r.beta, a, c));
}

export function cpuHerkComplex(r: ComplexHerkRequest<FloatArray>): void {
  each(r.a, r.c, (a, c) => rankK(r.uplo === 'upper', r.trans !== 'N', true, [r.alpha, 0], [r.beta, 0], a, c));
}

function each(a: ComplexSyrkRequest<FloatArray>['a'], c: ComplexSyrkRequest<FloatArray>['c'], f: (a: MatrixView<FloatArray>, c: MatrixView<FloatArray>) => void): void {
  const count = batchCount(c);
  for (let p = 0; p < count; p++) f(matrixAt(a, p), matrixAt(c, p));
}

/**
 * One update. With `transposed` the products are of A's columns (A^T A, A^H A), else of its rows;
 * `hermitian` conjugates the second factor ('N': A(i, l) conj(A(j, l))) or the first ('C':
 * conj(A(l, i)) A(l, j)) and makes the diagonal real.
 */
function rankK(
  upper: boolean, transposed: boolean, hermitian: boolean, alpha: readonly [number, number], beta: readonly [number, number],
  a: MatrixView<FloatArray>, c: MatrixView<FloatArray>,
): void {
  const n = c.rows;
  const k = transposed ? a.rows : a.cols;
  const [ar, ai] = alpha;
  const [br, bi] = beta;
  const alphaZero = (ar === 0 && ai === 0) || k === 0;
  const betaZero = br === 0 && bi === 0;
  if (n === 0 || (alphaZero && br === 1 && bi === 0)) return;
  // Element l of row/column i of op(A): A[2 (aOff + i is + l ls)].
  const [is, ls] = transposed ? [a.ld, 1] : [1, a.ld];
  const [s1, s2] = !hermitian ? [1, 1] : transposed ? [-1, 1] : [1, -1];
  const A = a.data;
  const C = c.data;
  for (let j = 0; j < n; j++) {
    const [i0, i1] = upper ? [0, j + 1] : [j, n];
    for (let i = i0; i < i1; i++) {
      let tr = 0;
      let ti = 0;
      if (!alphaZero) {
        for (let l = 0; l < k; l++) {
          const x = 2 * (a.offset + i * is + l * ls);
          const y = 2 * (a.offset + j * is + l * ls);
          const xr = A[x]!;
          const xi = s1 * A[x + 1]!;
          const yr = A[y]!;
          const yi = s2 * A[y + 1]!;
          tr += xr * yr - xi * yi;
          ti += xr * yi + xi * yr;
        }
      }
      const z = 2 * (c.offset + i + j * c.ld);
      const diagonal = hermitian && i === j;
      if (diagonal) ti = 0;
      let zr = ar * tr - ai * ti;
      let zi = ar * ti + ai * tr;
      if (!betaZero) {
        const cr = C[z]!;
        const ci = diagonal ? 0 : C[z + 1]!;
        zr += br * cr - bi * ci;
        zi += br * ci + bi * cr;
      }
      C[z] = zr;
      C[z + 1] = diagonal ? 0 : zi;
    }
  }
}
