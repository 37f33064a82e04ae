/**
 * Test cases for trsm, trmm, syrk, trtri, lauum and potri of the fast CPU backend: builders of
 * requests for conform(). Every batch has a matrix with the data the kernels must treat as the
 * reference does: an exact zero in A's triangle (the reference skips it) and an exact zero in B
 * (trsm/trmm) or an exactly singular triangle (trsm: Inf/NaN; trtri/potri: info > 0).
 */
import type { DType } from '../../../src/core/dtype.js';
import type { Diag, Side, Uplo } from '../../../src/core/enums.js';
import type { Op } from '../../../src/core/ops.js';
import type { Rng } from '../../helpers/random.js';
import { cpuTuning } from '../../../src/cpu-fast/context.js';
import { info, makeBatch, type Fill, type Kind, type Shape } from './harness.js';

const countFor = (n: number): number => (n <= 16 ? 5 : n <= 64 ? 2 : 1);

/** Rows of matrix p: all n, or for variable batches sizes around n. */
const sizeOf = (kind: Kind, n: number, p: number): number => (kind === 'variable' ? Math.max(0, n - (p % 3) * (p % 2 === 0 ? 1 : -1) * 2) : n);

const poison: Fill = (_rng, v) => {
  for (let j = 0; j < v.cols; j++) for (let i = 0; i < v.rows; i++) v.data[v.offset + i + j * v.ld] = NaN;
};

/**
 * A triangle whose diagonal is about its order (so solves stay finite), except: matrix 1 has an
 * exact zero below and above the diagonal and, for `singular`, a zero diagonal element (Inf and
 * NaN then meet the zeros the reference skips); matrix 2, for `singular`, a zero diagonal element;
 * matrix 3 an Inf at the places of matrix 1's zeros (it meets B's zeros, see rhsFill).
 */
export const triangleFill = (singular: boolean): Fill => (_rng, v, p) => {
  const n = v.rows;
  for (let i = 0; i < n; i++) v.data[v.offset + i + i * v.ld] = (n + 1) * (i % 2 === 0 ? 1 : -1) + 0.25 * i;
  if ((p === 1 || p === 3) && n >= 2) {
    v.data[v.offset + (n - 1)] = p === 1 ? 0 : Infinity;
    v.data[v.offset + (n - 1) * v.ld] = p === 1 ? 0 : Infinity;
  }
  if (singular && (p === 1 || p === 2) && n >= 1) v.data[v.offset + Math.floor(n / 2) * (v.ld + 1)] = 0;
};

/** Well conditioned with either diagonal: off-diagonal elements within 1 / n, the diagonal about n. */
const diagonalFill: Fill = (_rng, v) => {
  const n = v.rows;
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) v.data[v.offset + i + j * v.ld] *= i === j ? 0 : 1 / n;
  for (let i = 0; i < n; i++) v.data[v.offset + i + i * v.ld] = (n + 1) * (i % 2 === 0 ? 1 : -1) + 0.25 * i;
};

/** Matrix 3 of B has exact zeros at both ends of its first column and row (the left kernels' shortcut). */
export const rhsFill: Fill = (_rng, v, p) => {
  if (p !== 3 || v.rows === 0 || v.cols === 0) return;
  for (const [i, j] of [[0, 0], [v.rows - 1, 0], [0, v.cols - 1]] as const) v.data[v.offset + i + j * v.ld] = 0;
};

export interface TriangularVariant { side: Side; uplo: Uplo; transA: Op; diag: Diag }

export const TRIANGULAR_VARIANTS: readonly TriangularVariant[] = (['left', 'right'] as const).flatMap((side) =>
  (['lower', 'upper'] as const).flatMap((uplo) => (['N', 'T'] as const).flatMap((transA) =>
    (['nonunit', 'unit'] as const).map((diag) => ({ side, uplo, transA, diag })))));

/** trsm/trmm with the triangle of order s and B s x other ('left') or other x s ('right'). */
export function triangularCase(op: 'trsm' | 'trmm', kind: Kind, dtype: DType, s: number, other: number, v: TriangularVariant, alpha: number) {
  // Above the unrolled sizes (and for variable batches, whose sizes reach above) the blocked
  // kernels add in another order: B's elements within a tolerance (|X| <= about 3 |alpha| for
  // these triangles' solves, |alpha| (s + 3) for their products), on finite data only.
  const blocked = s + 2 > cpuTuning().unrollMax.triangular;
  const tolerance = blocked ? { keys: ['b'], eps: 4 * (s + 4), scale: Math.max(1, Math.abs(alpha)) * (op === 'trsm' ? 3 : s + 3) } : undefined;
  return {
    op, label: `${op} ${kind} ${dtype} s=${s} other=${other} ${v.side} ${v.uplo} ${v.transA} ${v.diag} alpha=${alpha}`, tolerance,
    build(rng: Rng): object {
      const count = countFor(s);
      const order = Array.from({ length: count }, (_, p) => sizeOf(kind, s, p));
      const a = makeBatch(rng, dtype, kind, order.map((n) => ({ rows: n, cols: n })), blocked ? diagonalFill : triangleFill(op === 'trsm'));
      const shapesB: Shape[] = order.map((n) => (v.side === 'left' ? { rows: n, cols: other } : { rows: other, cols: n }));
      const b = makeBatch(rng, dtype, kind, shapesB, alpha === 0 ? poison : blocked ? undefined : rhsFill);
      return { ...v, alpha, a, b };
    },
  };
}

/** syrk with C n x n and A n x k ('N') or k x n ('T'); beta = 0 poisons C. */
export function syrkCase(kind: Kind, dtype: DType, n: number, k: number, uplo: Uplo, trans: Op, alpha: number, beta: number) {
  // Above the unrolled sizes (variable batches reach 2 above n) the blocked syrk adds in gemm's order: C within a tolerance, finite data.
  const blocked = n + 2 > cpuTuning().unrollMax.syrk;
  const tolerance = blocked ? { keys: ['c'], eps: 4 * (k + 2), scale: Math.max(1, Math.abs(alpha)) * k + Math.abs(beta) } : undefined;
  return {
    op: 'syrk' as const, label: `syrk ${kind} ${dtype} n=${n} k=${k} ${uplo} ${trans} alpha=${alpha} beta=${beta}`, tolerance,
    build(rng: Rng): object {
      const count = countFor(n);
      const order = Array.from({ length: count }, (_, p) => sizeOf(kind, n, p));
      // matrix 1 of A: exact zeros (dsyrk's shortcut for 'N') in the columns of A that hold an Inf
      const zero: Fill = (_rng, v, p) => {
        if (blocked || p !== 1 || v.rows < 2) return;
        for (let l = 0; l < Math.min(2, v.cols); l++) {
          v.data[v.offset + (l === 0 ? v.rows - 1 : 0) + l * v.ld] = 0;
          v.data[v.offset + (l === 0 ? 0 : v.rows - 1) + l * v.ld] = Infinity;
        }
      };
      const a = makeBatch(rng, dtype, kind, order.map((m) => (trans === 'N' ? { rows: m, cols: k } : { rows: k, cols: m })), zero);
      const c = makeBatch(rng, dtype, kind, order.map((m) => ({ rows: m, cols: m })), beta === 0 ? poison : undefined);
      return { uplo, trans, alpha, a, beta, c };
    },
  };
}

/** trtri, lauum, potri on triangles with a dominant diagonal; matrix 2 singular (trtri non-unit, potri). */
export function inverseCase(op: 'trtri' | 'lauum' | 'potri', kind: Kind, dtype: DType, n: number, uplo: Uplo, diag: Diag = 'nonunit') {
  // Above the unrolled sizes the blocked kernels: A within a tolerance of its magnitude for these
  // triangles (inverse about 1 / n, unit 1; U U^T about (n + 1)^2; potri about 1 / n^2), info
  // exact, failing matrices untouched.
  const blocked = n + 2 > cpuTuning().unrollMax.inverse;
  const scale = op === 'lauum' ? (n + 2) * (n + 2) : op === 'potri' ? 4 / ((n + 1) * (n + 1)) : diag === 'unit' ? 2 : 2 / (n + 1);
  const tolerance = blocked ? { keys: ['a'], eps: 8 * (n + 4), scale } : undefined;
  const fill: Fill = blocked ? (rng, v, p) => {
    diagonalFill(rng, v, p);
    if (op !== 'lauum' && p === 2 && v.rows > 0) v.data[v.offset + Math.floor(v.rows / 2) * (v.ld + 1)] = 0;
  } : triangleFill(op !== 'lauum');
  return {
    op, label: `${op} ${kind} ${dtype} n=${n} ${uplo} ${diag}`, tolerance,
    build(rng: Rng): object {
      const count = countFor(n);
      const a = makeBatch(rng, dtype, kind, Array.from({ length: count }, (_, p) => {
        const m = sizeOf(kind, n, p);
        return { rows: m, cols: m };
      }), fill);
      const r = { uplo, a, info: info(count) };
      return op === 'trtri' ? { ...r, diag } : r;
    },
  };
}
