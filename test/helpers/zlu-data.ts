/**
 * Complex LU test data and checks (test/cuda/zgetrf-host-emulation.test.ts, test/gpu/zgetrf.test.ts),
 * computed here and not by the library: matrices of the kinds the tests mix in a batch (random;
 * singular, a zero column at k; a NaN entry; ties in the first column's pivot search), and the
 * residual ratios ||P A - L U|| / (||A|| n eps) and ||op(A) X - B|| / (||A|| ||X|| n eps).
 */
import type { ComplexOp } from '../../src/core/op-specs.js';
import { get, multiply, norm, op, random, ratio, set, subtract, zeros, type Z } from './complex.js';
import type { Rng } from './random.js';

export type LuKind = 'random' | 'singular' | 'nan' | 'tie';

/** The kind of matrix p of a mixed batch: mostly random, every fifth singular, every seventh NaN, every third (else) a tie. */
export function kindOf(p: number): LuKind {
  return p % 5 === 1 ? 'singular' : p % 7 === 3 ? 'nan' : p % 3 === 2 ? 'tie' : 'random';
}

/**
 * A rows x cols matrix of `kind`, entries in the unit square (exact in float32 where `round` rounds).
 * singular: column k (cycling with `seed`) zero, so the pivot of step k is exactly zero (info k + 1);
 * nan: one part of one entry NaN; tie: two entries of column 0 below the first share the largest
 * |re| + |im| (2, exactly), so the first of them must win.
 */
export function luMatrix(rng: Rng, rows: number, cols: number, kind: LuKind, seed: number, round: (x: number) => number): Z {
  const a = random(rng, rows, cols);
  for (let k = 0; k < a.d.length; k++) a.d[k] = round(a.d[k]!);
  const k = Math.min(rows, cols);
  if (kind === 'singular' && k > 0) {
    const c = seed % k;
    for (let i = 0; i < rows; i++) set(a, i, c, 0, 0);
  } else if (kind === 'nan') {
    a.d[2 * ((seed * 7) % (rows * cols)) + (seed % 2)] = Number.NaN;
  } else if (kind === 'tie' && rows >= 3) {
    const t1 = 1 + (seed % (rows - 2));
    const t2 = t1 + 1 + (seed % (rows - 1 - t1));
    set(a, t1, 0, 1.5, -0.5);
    set(a, t2, 0, -1, 1);
  }
  return a;
}

/** The rows x k unit lower L and k x cols upper U of a factored matrix. */
function factors(lu: Z): { l: Z; u: Z } {
  const k = Math.min(lu.rows, lu.cols);
  const l = zeros(lu.rows, k), u = zeros(k, lu.cols);
  for (let i = 0; i < lu.rows; i++) for (let j = 0; j < k; j++) {
    if (i === j) set(l, i, j, 1, 0);
    else if (i > j) set(l, i, j, ...get(lu, i, j));
  }
  for (let i = 0; i < k; i++) for (let j = i; j < lu.cols; j++) set(u, i, j, ...get(lu, i, j));
  return { l, u };
}

/** P A: the rows of A swapped as the 0-based pivots say, in order. */
function permuted(a: Z, piv: ArrayLike<number>, off: number): Z {
  const out: Z = { rows: a.rows, cols: a.cols, d: a.d.slice() };
  for (let j = 0; j < Math.min(a.rows, a.cols); j++) {
    const p = piv[off + j]!;
    if (p === j) continue;
    for (let c = 0; c < a.cols; c++) {
      const x = get(out, j, c), y = get(out, p, c);
      set(out, j, c, ...y);
      set(out, p, c, ...x);
    }
  }
  return out;
}

/** ||P A - L U||_F / (||A||_F max(m, n) eps). */
export function luResidual(a: Z, lu: Z, piv: ArrayLike<number>, off: number, eps: number): number {
  const { l, u } = factors(lu);
  return ratio(norm(subtract(permuted(a, piv, off), multiply(l, u))), Math.max(a.rows, a.cols), norm(a), eps);
}

/** ||op(A) X - B||_F / (||A||_F ||X||_F n eps). */
export function solveResidual(a: Z, trans: ComplexOp, x: Z, b: Z, eps: number): number {
  return ratio(norm(subtract(multiply(op(a, trans), x), b)), a.rows, norm(a) * norm(x), eps);
}

/** Whether any part of `a` is NaN. */
export const hasNaN = (a: Z): boolean => a.d.some((v) => Number.isNaN(v));
