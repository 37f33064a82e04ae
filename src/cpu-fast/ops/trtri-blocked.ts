/**
 * trtri, lauum and potri above the unrolled sizes: recursive halving over a strided run of
 * matrices, the off-diagonal work on the fast trmm, trsm and syrk (each itself blocked over the
 * fast gemm), the diagonal blocks down to the unrolled kernels (kernels/trtri-js.ts).
 *
 * trtri, lower: inv(A11), then A21 := -A21 inv(A11) (trmm), A21 := inv(A22) A21 (trsm with the
 * original A22), then inv(A22); upper the mirror image. lauum, upper: lauum(U11), U11 +=
 * U12 U12^T (syrk), U12 := U12 U22^T (trmm), lauum(U22); lower the mirror image. potri is trtri
 * then lauum. As the reference, a non-unit matrix with an exactly zero diagonal element is left
 * untouched with info = its first such column + 1; that scan is done first, and the rest of the
 * run goes on in runs of good matrices. Not bitwise the reference (blocked order of additions,
 * and float32 blocks are rounded to float32 between steps where the reference keeps float64).
 */
import type { StridedBatch } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import type { Uplo } from '../../core/enums.js';
import { fastSyrk } from './syrk.js';
import { fastTrmm, fastTrsm } from './trsm.js';
import type { Run } from './trsm-blocked.js';

export type InverseOp = 'trtri' | 'lauum' | 'potri';
/** The unrolled kernel on a run of count matrices of order n (infos to a scratch array: they are all 0 here). */
export type InverseLeaf = (op: InverseOp, A: Run, n: number, count: number) => void;

const view = (x: Run, rows: number, cols: number, count: number): StridedBatch<FloatArray> =>
  ({ kind: 'strided', data: x.data, offset: x.offset, ld: x.ld, stride: x.stride, rows, cols, count, order: 'col' });
const at = (x: Run, i: number, j: number): Run => ({ ...x, offset: x.offset + i + j * x.ld });

/** Runs op on the run; info[infoOff + p] for every matrix. */
export function inverseBlocked(
  op: InverseOp, uplo: Uplo, unit: boolean, A: Run, n: number, count: number, info: Int32Array, infoOff: number, leafMax: number, leaf: InverseLeaf,
): void {
  let start = 0;
  const flush = (end: number): void => {
    if (end > start) recurse(op, uplo, unit, { ...A, offset: A.offset + start * A.stride }, n, end - start, leafMax, leaf);
  };
  for (let p = 0; p < count; p++) {
    let bad = 0;
    if (op !== 'lauum' && !unit) {
      const o = A.offset + p * A.stride;
      for (let j = 0; j < n && bad === 0; j++) if (A.data[o + j * (A.ld + 1)] === 0) bad = j + 1;
    }
    info[infoOff + p] = bad;
    if (bad > 0) {
      flush(p);
      start = p + 1;
    }
  }
  flush(count);
}

function recurse(op: InverseOp, uplo: Uplo, unit: boolean, A: Run, n: number, count: number, leafMax: number, leaf: InverseLeaf): void {
  if (n <= leafMax) return leaf(op, A, n, count);
  if (op === 'potri') {
    recurse('trtri', uplo, false, A, n, count, leafMax, leaf);
    recurse('lauum', uplo, false, A, n, count, leafMax, leaf);
    return;
  }
  const n1 = n >> 1, n2 = n - n1;
  const lower = uplo === 'lower';
  const A11 = A, A22 = at(A, n1, n1);
  // The off-diagonal block: A21 (n2 x n1) or A12 (n1 x n2).
  const off = lower ? view(at(A, n1, 0), n2, n1, count) : view(at(A, 0, n1), n1, n2, count);
  const tri = (x: Run, size: number): StridedBatch<FloatArray> => view(x, size, size, count);
  const diag = unit ? 'unit' : 'nonunit';
  if (op === 'trtri') {
    recurse('trtri', uplo, unit, A11, n1, count, leafMax, leaf);
    // lower: A21 := -A21 inv(A11), then inv(A22) A21; upper: A12 := -inv(A11) A12, then A12 inv(A22).
    fastTrmm({ side: lower ? 'right' : 'left', uplo, transA: 'N', diag, alpha: -1, a: tri(A11, n1), b: off });
    fastTrsm({ side: lower ? 'left' : 'right', uplo, transA: 'N', diag, alpha: 1, a: tri(A22, n2), b: off });
    recurse('trtri', uplo, unit, A22, n2, count, leafMax, leaf);
    return;
  }
  recurse('lauum', uplo, false, A11, n1, count, leafMax, leaf);
  // upper: U11 += U12 U12^T, U12 := U12 U22^T; lower: L11 += L21^T L21, L21 := L22^T L21.
  fastSyrk({ uplo, trans: lower ? 'T' : 'N', alpha: 1, a: off, beta: 1, c: tri(A11, n1) });
  fastTrmm({ side: lower ? 'left' : 'right', uplo, transA: 'T', diag: 'nonunit', alpha: 1, a: tri(A22, n2), b: off });
  recurse('lauum', uplo, false, A22, n2, count, leafMax, leaf);
}
