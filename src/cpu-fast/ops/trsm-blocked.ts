/**
 * trsm and trmm above the unrolled sizes: recursive halving of the triangle over a strided run
 * of matrices (every block of every matrix of the run is itself a strided batch: same ld and
 * stride, shifted offset), with the off-diagonal block as one batched gemm on the fast gemm
 * (ops/gemm.ts) and the diagonal blocks down to the unrolled kernels (kernels/trsm-js.ts).
 *
 * With op(A) = [T11 0; T21 T22] (or its upper mirror), 'left' trsm solves the block that needs
 * nothing first, then B_other := alpha B_other - T_off X_first (gemm, beta = alpha), then the
 * other block with alpha 1; trmm runs in the opposite order: B_other := alpha T B_other, then
 * B_other += alpha T_off B_first (gemm, beta 1) while B_first is still unchanged, then B_first.
 * 'right' is the transpose of the same. Not bitwise the reference (the order of additions is
 * the blocked one); tests compare with a tolerance.
 */
import type { StridedBatch } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import type { Diag, Side, Uplo } from '../../core/enums.js';
import type { Op } from '../../core/ops.js';
import { fastGemm } from './gemm.js';

/** A strided run of count matrices: element (i, j) of matrix p at data[offset + p * stride + i + j * ld]. */
export interface Run { readonly data: FloatArray; readonly offset: number; readonly ld: number; readonly stride: number }

export interface TriangularShape { op: 'trsm' | 'trmm'; side: Side; uplo: Uplo; transA: Op; diag: Diag }

/** The unrolled kernel on a run: B m x n, alpha. */
export type Leaf = (A: Run, B: Run, m: number, n: number, alpha: number, count: number) => void;

const block = (r: Run, i: number, j: number): Run => ({ ...r, offset: r.offset + i + j * r.ld });
const batch = (r: Run, rows: number, cols: number, count: number): StridedBatch<FloatArray> =>
  ({ kind: 'strided', data: r.data, offset: r.offset, ld: r.ld, stride: r.stride, rows, cols, count, order: 'col' });

/** op(A)'s triangle order is B's rows ('left') or columns ('right'); at most `leafMax` goes to `leaf`. */
export function triangularBlocked(
  t: TriangularShape, A: Run, B: Run, m: number, n: number, alpha: number, count: number, leafMax: number, leaf: Leaf,
): void {
  const left = t.side === 'left';
  const s = left ? m : n;
  if (s <= leafMax) return leaf(A, B, m, n, alpha, count);
  const s1 = s >> 1, s2 = s - s1;
  const lowerEff = (t.uplo === 'lower') === (t.transA === 'N');
  // The stored off-diagonal block: A21 (s2 x s1) or A12 (s1 x s2); op() of it is transA.
  const off = t.uplo === 'lower' ? { run: block(A, s1, 0), rows: s2, cols: s1 } : { run: block(A, 0, s1), rows: s1, cols: s2 };
  const diag = [{ a: A, size: s1 }, { a: block(A, s1, s1), size: s2 }] as const;
  const part = [B, left ? block(B, s1, 0) : block(B, 0, s1)] as const;
  const dims = (q: 0 | 1): [number, number] => (left ? [diag[q].size, n] : [m, diag[q].size]);
  // trsm's first block needs nothing from the other: the top ('left', lower) or the left ('right', upper) one.
  const first: 0 | 1 = left === lowerEff ? 0 : 1;
  const second: 0 | 1 = first === 0 ? 1 : 0;
  const recurse = (q: 0 | 1, a: number): void =>
    triangularBlocked(t, diag[q].a, part[q], ...dims(q), a, count, leafMax, leaf);
  /** B[target] := ga (B[source] times op(A)'s off-diagonal block, in the side's order) + gb B[target]. */
  const update = (target: 0 | 1, source: 0 | 1, ga: number, gb: number): void => {
    const [tm, tn] = dims(target);
    const [sm, sn] = dims(source);
    const offBatch = batch(off.run, off.rows, off.cols, count);
    const src = batch(part[source], sm, sn, count);
    fastGemm(left
      ? { transA: t.transA, transB: 'N', alpha: ga, a: offBatch, b: src, beta: gb, c: batch(part[target], tm, tn, count) }
      : { transA: 'N', transB: t.transA, alpha: ga, a: src, b: offBatch, beta: gb, c: batch(part[target], tm, tn, count) });
  };
  if (t.op === 'trsm') {
    recurse(first, alpha);
    update(second, first, -1, alpha);
    recurse(second, 1);
  } else {
    recurse(second, alpha);
    update(second, first, alpha, 1);
    recurse(first, alpha);
  }
}
