/**
 * getri on complex batches, the reference: LAPACK's zgetri (unblocked) on getrf's output.
 * inv(A) = inv(U) inv(L) P: inv(U) in place of U (trtri, non-unit: an exactly zero U(k, k) gives
 * info = k and leaves the matrix untouched), then X L = inv(U) solved for X column by column from
 * the last, then the pivots' column interchanges in reverse order. Pivots are 0-based, as getrf's.
 */
import { batchCount, matrixAt } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import type { GetriRequest } from '../../core/op-specs.js';
import { trtriMatrixComplex } from './zinverse.js';
import { WHOLE, Workspace, zload, zstore } from './workspace.js';

const workspace = new Workspace();
const column = new Workspace();

export function cpuGetriComplex(r: GetriRequest<FloatArray, Int32Array>): void {
  const count = batchCount(r.a);
  for (let p = 0; p < count; p++) {
    const m = matrixAt(r.a, p);
    const w = workspace.get(2 * m.rows * m.rows);
    zload(m, WHOLE, w);
    const info = getriMatrixComplex(w, m.rows, r.ipiv, p * r.pivotStride);
    if (info === 0) zstore(w, WHOLE, m);
    r.info[p] = info;
  }
}

/** inv(A) in place of its LU factors on a workspace (ld = n, interleaved); returns info. */
export function getriMatrixComplex(a: Float64Array, n: number, ipiv: Int32Array, pivOff: number): number {
  const info = trtriMatrixComplex(a, n, true, false);
  if (info !== 0) return info;
  const l = column.get(2 * n);
  // X(:, j) = inv(U)(:, j) - X(:, j+1:n) L(j+1:n, j), from the last column.
  for (let j = n - 1; j >= 0; j--) {
    const cj = 2 * j * n;
    for (let i = 2 * (j + 1); i < 2 * n; i++) {
      l[i] = a[cj + i]!;
      a[cj + i] = 0;
    }
    for (let k = j + 1; k < n; k++) {
      const tr = l[2 * k]!;
      const ti = l[2 * k + 1]!;
      if (tr === 0 && ti === 0) continue;
      const ck = 2 * k * n;
      for (let i = 0; i < 2 * n; i += 2) {
        const xr = a[ck + i]!;
        const xi = a[ck + i + 1]!;
        a[cj + i] -= xr * tr - xi * ti;
        a[cj + i + 1] -= xr * ti + xi * tr;
      }
    }
  }
  // inv(A) = X P: the factorization's interchanges applied to the columns, last first.
  for (let j = n - 2; j >= 0; j--) {
    const p = ipiv[pivOff + j]!;
    if (p === j) continue;
    const cj = 2 * j * n;
    const cp = 2 * p * n;
    for (let i = 0; i < 2 * n; i++) [a[cj + i], a[cp + i]] = [a[cp + i]!, a[cj + i]!];
  }
  return 0;
}
