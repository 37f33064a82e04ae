/**
 * getri, the CPU reference: LAPACK's dgetri (unblocked) on getrf's output. inv(A) = inv(U) inv(L) P:
 * inv(U) in place of U (trtri, non-unit: an exactly zero U(k,k) gives info = k and leaves the
 * matrix untouched), then X inv(L) ... solved for X column by column from the last (X L = inv(U)),
 * then the column interchanges of the pivots in reverse order. Pivots are 0-based, as getrf's.
 */
import { batchCount, matrixAt } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import type { GetriRequest } from '../../core/ops.js';
import { trtriMatrix } from './inverse.js';
import { WHOLE, Workspace, load, store } from './workspace.js';

const workspace = new Workspace();
const column = new Workspace();

export function cpuGetri(r: GetriRequest<FloatArray, Int32Array>): void {
  const count = batchCount(r.a);
  for (let i = 0; i < count; i++) {
    const m = matrixAt(r.a, i);
    const n = m.rows;
    const w = workspace.get(n * n);
    load(m, WHOLE, w);
    const info = getriMatrix(w, n, r.ipiv, i * r.pivotStride);
    if (info === 0) store(w, WHOLE, m);
    r.info[i] = info;
  }
}

/** inv(A) in place of its LU factors (ld = n); returns info. */
export function getriMatrix(a: Float64Array, n: number, ipiv: Int32Array, pivOff: number): number {
  const info = trtriMatrix(a, 0, Math.max(1, n), n, true, false);
  if (info !== 0) return info;
  const l = column.get(n);
  // Solve X L = inv(U) for X, from the last column: X(:, j) = inv(U)(:, j) - X(:, j+1:n) L(j+1:n, j).
  for (let j = n - 1; j >= 0; j--) {
    const cj = j * n;
    for (let i = j + 1; i < n; i++) {
      l[i] = a[cj + i]!;
      a[cj + i] = 0;
    }
    for (let k = j + 1; k < n; k++) {
      const t = l[k]!;
      if (t === 0) continue;
      const ck = k * n;
      for (let i = 0; i < n; i++) a[cj + i] -= t * a[ck + i]!;
    }
  }
  // inv(A) = X P: the interchanges of the factorization applied to the columns, last first.
  for (let j = n - 2; j >= 0; j--) {
    const p = ipiv[pivOff + j]!;
    if (p === j) continue;
    const cj = j * n;
    const cp = p * n;
    for (let i = 0; i < n; i++) {
      const t = a[cj + i]!;
      a[cj + i] = a[cp + i]!;
      a[cp + i] = t;
    }
  }
  return 0;
}
