/**
 * Generated WebAssembly triangular solves from a stored factor, several right-hand sides at once:
 * potrs (L L^T or U^T U), getrs 'T' (U^T, then unit L^T, then the row interchanges in
 * reverse) and trsm 'left' (see generateTriSolveWasm). One module per n, nrhs and op.
 *
 * B is packed transposed in groups of eight columns (triSolveGroups: a group's values of row i
 * side by side, its width rounded up to even, groups one after another), so each f64x2 holds one
 * row of two right-hand sides and
 * the solve runs the reference's scalar operations in every lane: up to four vectors (eight
 * columns of B) per pass, the factor read once per pass (each element loaded once, splat, for all
 * of them). The factor is read as the caller stores it (ld and matrix stride are parameters),
 * copied as float64 (a float32 factor is exact in float64).
 *
 * Bitwise the reference (src/cpu/lapack/solve.ts and triangular-solve.ts): each element of B
 * receives the same multiply-then-subtract updates, on the same float64 values, in the same
 * order, then its division (no fused multiply-add):
 * - potrs 'lower': L y = b in the axpy form (LOWER_N: element i gets b(i) - L(i, j) y(j) for
 *   j = 0, 1, ..., then / L(i, i)), then L^T x = y in the dot form down column k of L (LOWER_T:
 *   y(k) - L(i, k) x(i) for i = k+1, ... ascending, then / L(k, k)).
 * - potrs 'upper': U^T y = b in the dot form down column k of U (UPPER_T), then U x = y in the
 *   axpy form, columns from the last (UPPER_N). Every pass reads the factor down its stored
 *   columns, so the factor is copied as it lies.
 * - getrs 'T': U^T y = b (element k: i < k ascending, then / U(k, k)), L^T x = y (i > k
 *   ascending, unit), both dot forms down columns of the packed factor; then B's rows swapped
 *   back, j = n-1 ... 0 (dlaswp backward).
 * The dot forms carry each element's sum in one dependence chain (the order leaves no other
 * choice): with one right-hand side they run at the subtraction's latency.
 */
import { Code, encodeModule, type ValType } from '../wasm/emit.js';
import { OP, SIMD } from '../wasm/opcodes.js';

export type TriSolveOp = 'potrs-lower' | 'potrs-upper' | 'getrs-T' | TrsmLeftOp;
/** trsm 'left' (B := alpha op(A)^-1 B), by op(A)'s triangle and transA: the reference's four loops (src/cpu/trsm.ts). */
export type TrsmLeftOp = 'trsm-lower-N' | 'trsm-upper-N' | 'trsm-lower-T' | 'trsm-upper-T';

export interface TriSolveWasmParams {
  readonly op: TriSolveOp;
  readonly n: number;
  readonly nrhs: number;
  /** The factors' ld and the distance between consecutive matrices, in elements (the caller's own, where the chunk is copied as it lies). */
  readonly lda: number;
  readonly strideA: number;
  /**
   * Matrices solved together (1, 2 or 4): their loops fused, each with its own accumulators, so
   * that the dot forms' dependence chains (one per vector) overlap; the kernel's `count` is then
   * a count of such groups of matrices.
   */
  readonly mats: number;
  /**
   * trsm only: a unit diagonal (never read), and float32 data (every value the reference stores
   * into B rounded to float32 where it stores it: its B is the caller's Float32Array).
   */
  readonly unit?: boolean;
  readonly float32?: boolean;
}

/** Vectors of two right-hand sides per pass (eight columns of B: four accumulators, four values of x in registers). */
export const TRI_SOLVE_VECTORS = 4;

/** Matrices fused per trip: enough for four accumulators where B has fewer than four vectors (one right-hand side: four chains). */
export const triSolveMats = (nrhs: number): number => {
  const nv = triSolveLdb(nrhs) / 2;
  return nv >= 4 ? 1 : nv >= 2 ? 2 : 4;
};
/** trsm's axpy forms two steps at a time where the fused vectors number at most this (two x's each, in 15 xmm registers). */
const PAIR_REGISTERS = 4;

/** Elements of packed B^T per row of B, all groups together: nrhs rounded up to even (B^T of one matrix is n * triSolveLdb elements). */
export const triSolveLdb = (nrhs: number): number => nrhs + (nrhs & 1);

/**
 * The grouped layout of packed B^T: the columns of B in groups of 2 * TRI_SOLVE_VECTORS (the
 * last group the rest, its width rounded up to even), each group n rows of its width side by
 * side, groups one after another. One pass of the kernel reads one group, a contiguous block
 * (rows of all nrhs side by side put rows 2 KiB apart at nrhs = 256, and a pass's rows into a
 * few cache sets). Per group: its first column, width, and offset (elements) in a matrix's B^T.
 */
export function triSolveGroups(n: number, nrhs: number): { col: number; width: number; ld: number; offset: number }[] {
  const out: { col: number; width: number; ld: number; offset: number }[] = [];
  for (let col = 0; col < nrhs; col += 2 * TRI_SOLVE_VECTORS) {
    const width = Math.min(2 * TRI_SOLVE_VECTORS, nrhs - col);
    out.push({ col, width, ld: width + (width & 1), offset: col * n });
  }
  return out;
}

/**
 * Exported `solve(a, b, piv, count, alpha)`: byte addresses of the packed factors, packed B^T,
 * int32 pivots (getrs); alpha (trsm only).
 *
 * trsm 'left', as src/cpu/trsm.ts: transA 'N' scales B by alpha (unless alpha is 1), then runs
 * the axpy form (lower: k ascending, rows below; upper: k descending, rows above), skipping, lane
 * by lane, an element x(k) that is exactly zero (no division, no update: the reference's
 * shortcut, which keeps a zero's sign and an Inf in A from meeting it); the test for a zero is
 * one compare per vector and k, and the masked loop runs only where a lane holds one. transA
 * 'T' runs the dot form from alpha b(i) (upper: i ascending, the sum over k < i; lower: i
 * descending, over k > i, both k ascending). Padding lanes of B^T must not be zero in the axpy
 * forms (the caller fills them with ones) or every k takes the masked loop.
 */
export function generateTriSolveWasm(p: TriSolveWasmParams): Uint8Array<ArrayBuffer> {
  const { op, n, nrhs, mats: M, lda, strideA } = p;
  const unit = p.unit === true, r32 = p.float32 === true, trsm = op.startsWith('trsm');
  if (![1, 2, 4].includes(M)) throw new Error(`tri-solve: mats = ${M}`);
  if (n < 1 || nrhs < 1) throw new Error(`tri-solve: n = ${n}, nrhs = ${nrhs}`);
  const ldb = triSolveLdb(nrhs);
  const LDA = lda * 8, SA = strideA * 8, MB = n * ldb * 8;
  /** Bytes between rows of B^T within the group being generated (its vectors side by side: grouped layout, see triSolveGroups). */
  let LDB = 0;
  const nv = ldb / 2;
  const fullGroups = Math.floor(nv / TRI_SOLVE_VECTORS), tailVectors = nv % TRI_SOLVE_VECTORS;
  const params: ValType[] = ['i32', 'i32', 'i32', 'i32', 'f64'];
  const c = new Code(params);
  const [A, B, PIV, COUNT, ALPHA] = [0, 1, 2, 3, 4];
  const k = c.local('i32'), colk = c.local('i32'), rowk = c.local('i32'), tp = c.local('i32'), rowi = c.local('i32');
  const end = c.local('i32'), gb = c.local('i32'), pv = c.local('i32');
  const t = c.local('v128');
  const acc = Array.from({ length: TRI_SOLVE_VECTORS * M }, () => c.local('v128'));
  const xs = Array.from({ length: TRI_SOLVE_VECTORS * M }, () => c.local('v128'));
  const ts = Array.from({ length: M }, () => c.local('v128'));
  const alphas = c.local('v128');
  // trsm's axpy forms two steps at a time (axpyPairs): the second step's x, masks, splats, diagonal, row and column
  const xs2 = Array.from({ length: TRI_SOLVE_VECTORS * M }, () => c.local('v128'));
  const masks2 = Array.from({ length: TRI_SOLVE_VECTORS * M }, () => c.local('v128'));
  const ts2 = Array.from({ length: M }, () => c.local('v128'));
  const t2 = c.local('v128'), old = c.local('v128');
  const rowk2 = c.local('i32'), colk2 = c.local('i32');
  /** The value on the stack rounded to float32 and back, where the reference stores into float32 data (trsm). */
  const round = (): void => { if (r32) c.simd(SIMD.f32x4DemoteF64x2Zero).simd(SIMD.f64x2PromoteLowF32x4); };
  /** Byte offsets of matrix m of the fused group: its factor, its B. */
  const FA = (m: number): number => m * SA, FB = (m: number): number => m * MB;
  /** Register index of vector v of matrix m. */
  const R = (m: number, v: number): number => m * TRI_SOLVE_VECTORS + v;

  const addTo = (local: number, bytes: number): void => { c.get(local).i32(bytes).op(OP.i32Add).set(local); };
  /** `while (tp != end) { body; tp += tStep; rowi += rStep }` */
  const walk = (tStep: number, rStep: number, body: () => void): void => {
    c.op(OP.block, OP.void);
    c.get(tp).get(end).op(OP.i32Eq).op(OP.brIf, 0);
    c.loop_(() => {
      body();
      addTo(tp, tStep);
      addTo(rowi, rStep);
      c.get(tp).get(end).op(OP.i32Ne);
    });
    c.op(OP.end);
  };
  /** The factor's (k, k) splat onto the stack. */
  const diagonal = (m: number): void => { c.get(colk).get(k).i32(3).op(OP.i32Shl).op(OP.i32Add).simdMem(SIMD.load64Splat, 3, FA(m)); };
  /** rowk and colk for row/column k (k set): B^T's row k in this group, the factor's column k. */
  const pointers = (): void => {
    c.get(B).get(gb).op(OP.i32Add).get(k).i32(LDB).op(OP.i32Mul).op(OP.i32Add).set(rowk);
    c.get(A).get(k).i32(LDA).op(OP.i32Mul).op(OP.i32Add).set(colk);
  };
  /** For k = 0 .. n-1 (ascending) or n-1 .. 0: pointers set, then body. */
  const overK = (ascending: boolean, body: () => void): void => {
    c.i32(ascending ? 0 : n - 1).set(k);
    c.loop_(() => {
      pointers();
      body();
      if (ascending) c.get(k).i32(1).op(OP.i32Add).tee(k).i32(n).op(OP.i32LtS);
      else c.get(k).i32(1).op(OP.i32Sub).tee(k).i32(0).op(OP.i32GeS);
    });
  };

  /** The axpy forms' step head: x(k) = b(k) / T(k, k) (trsm 'unit': b(k)) for every fused matrix and vector, kept in xs and stored over b(k). */
  const divideByDiagonal = (V: number): void => {
    for (let m = 0; m < M; m++) {
      if (!unit) { diagonal(m); c.set(t); }
      for (let v = 0; v < V; v++) {
        const o = FB(m) + v * 16;
        if (unit) { c.get(rowk).simdMem(SIMD.load, 3, o).set(xs[R(m, v)]!); continue; }
        c.get(rowk).get(rowk).simdMem(SIMD.load, 3, o).get(t).simd(SIMD.f64x2Div).tee(xs[R(m, v)]!);
        round();
        c.simdMem(SIMD.store, 3, o);
      }
    }
  };

  /**
   * trsm's step head where a lane of x(k) is exactly zero: masks (in acc, unused by the axpy
   * forms) of the zero lanes, which keep b(k) as it is (the reference's shortcut).
   */
  const divideByDiagonalMasked = (V: number): void => {
    for (let m = 0; m < M; m++) {
      if (!unit) { diagonal(m); c.set(t); }
      for (let v = 0; v < V; v++) {
        const o = FB(m) + v * 16, x = xs[R(m, v)]!, mask = acc[R(m, v)]!;
        c.get(rowk).simdMem(SIMD.load, 3, o).tee(x).f64x2(0).simd(SIMD.f64x2Eq).set(mask);
        if (unit) continue;
        c.get(rowk).get(x).get(x).get(t).simd(SIMD.f64x2Div).get(mask).simd(SIMD.v128Bitselect).tee(x);
        round();
        c.simdMem(SIMD.store, 3, o);
      }
    }
  };

  /** Whether any lane of b(k) (every fused matrix and vector) is exactly zero, on the stack as i32. */
  const anyZero = (V: number): void => {
    c.i32(0);
    for (let m = 0; m < M; m++) for (let v = 0; v < V; v++) {
      c.get(rowk).simdMem(SIMD.load, 3, FB(m) + v * 16).f64x2(0).simd(SIMD.f64x2Eq).simd(SIMD.v128AnyTrue).op(OP.i32Or);
    }
  };

  /** The axpy forms' step body: b(i) -= T(i, k) x(k) for the rows the walk covers (tp at T(i, k), rowi at b(i)); masked: not in the zero lanes. */
  const axpyRows = (V: number, masked: boolean): void => {
    walk(8, LDB, () => {
      for (let m = 0; m < M; m++) {
        c.get(tp).simdMem(SIMD.load64Splat, 3, FA(m)).set(ts[m]!);
        for (let v = 0; v < V; v++) {
          const o = FB(m) + v * 16;
          c.get(rowi);
          if (masked) c.get(rowi).simdMem(SIMD.load, 3, o);
          c.get(rowi).simdMem(SIMD.load, 3, o).get(ts[m]!).get(xs[R(m, v)]!).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub);
          round();
          if (masked) c.get(acc[R(m, v)]!).simd(SIMD.v128Bitselect);
          c.simdMem(SIMD.store, 3, o);
        }
      }
    });
  };

  /** One step of an axpy form (`rows` sets tp, end and rowi): potrs plain; trsm with the zero test and, where it finds one, the masked step. */
  const axpyStep = (V: number, rows: () => void): void => {
    if (!trsm) {
      divideByDiagonal(V); rows(); axpyRows(V, false);
      return;
    }
    anyZero(V);
    c.if_(() => { divideByDiagonalMasked(V); rows(); axpyRows(V, true); }, () => { divideByDiagonal(V); rows(); axpyRows(V, false); });
  };

  /**
   * trsm's axpy forms two steps at a time, k and k2 = k + 1 (lower, k ascending) or k - 1 (upper,
   * descending), where every fused vector's x fits in registers twice (M V <= 4): the head solves
   * x(k), updates b(k2) with it and solves x(k2) (masks of zero lanes always computed there, a
   * few operations per step); then every other row gets b(i) -= T(i, k) x(k), then -= T(i, k2)
   * x(k2), each rounded where the reference stores: the reference's operations on every element
   * in its order, with half the loads and stores of B. A last single step where n is odd.
   */
  const axpyPairs = (V: number, lower: boolean): void => {
    const zeroMask = (x: number, mask: number): void => { c.get(x).f64x2(0).simd(SIMD.f64x2Eq).set(mask); };
    /** b := bitselect(old, round(old - s x), mask) (masked) or round(b - s x), `old` holding b, the result on the stack. */
    const update = (s: number, x: number, mask: number, masked: boolean): void => {
      if (masked) c.tee(old).get(old);
      c.get(s).get(x).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub);
      round();
      if (masked) c.get(mask).simd(SIMD.v128Bitselect);
    };
    /** The address of row k2 of the column at `col`. */
    const k2At = (col: number): void => { c.get(col).get(k).i32(3).op(OP.i32Shl).op(OP.i32Add).i32(lower ? 8 : -8).op(OP.i32Add); };
    const head = (): void => {
      for (let m = 0; m < M; m++) {
        if (!unit) {
          diagonal(m); c.set(t);
          k2At(colk2); c.simdMem(SIMD.load64Splat, 3, FA(m)).set(t2); // T(k2, k2)
        }
        // T(k2, k): row k2 of column k
        k2At(colk); c.simdMem(SIMD.load64Splat, 3, FA(m)).set(ts[m]!);
        for (let v = 0; v < V; v++) {
          const o = FB(m) + v * 16, x = xs[R(m, v)]!, mask = acc[R(m, v)]!, x2 = xs2[R(m, v)]!, mask2 = masks2[R(m, v)]!;
          c.get(rowk).simdMem(SIMD.load, 3, o).set(x);
          zeroMask(x, mask);
          if (!unit) {
            c.get(rowk).get(x).get(x).get(t).simd(SIMD.f64x2Div).get(mask).simd(SIMD.v128Bitselect).tee(x);
            round();
            c.simdMem(SIMD.store, 3, o);
          }
          c.get(rowk2).simdMem(SIMD.load, 3, o);
          update(ts[m]!, x, mask, true);
          c.set(x2);
          zeroMask(x2, mask2);
          c.get(rowk2);
          if (!unit) { c.get(x2).get(x2).get(t2).simd(SIMD.f64x2Div).get(mask2).simd(SIMD.v128Bitselect).tee(x2); round(); } else c.get(x2);
          c.simdMem(SIMD.store, 3, o);
        }
      }
    };
    /** The other rows (tp at T(i, k) for the first column's offset o1 and the second's o2, rowi at b(i)). */
    const rows = (o1: number, o2: number, masked: boolean): void => {
      walk(8, LDB, () => {
        for (let m = 0; m < M; m++) {
          c.get(tp).simdMem(SIMD.load64Splat, 3, FA(m) + o1).set(ts[m]!);
          c.get(tp).simdMem(SIMD.load64Splat, 3, FA(m) + o2).set(ts2[m]!);
          for (let v = 0; v < V; v++) {
            const o = FB(m) + v * 16, r = R(m, v);
            c.get(rowi).get(rowi).simdMem(SIMD.load, 3, o);
            update(ts[m]!, xs[r]!, acc[r]!, masked);
            update(ts2[m]!, xs2[r]!, masks2[r]!, masked);
            c.simdMem(SIMD.store, 3, o);
          }
        }
      });
    };
    const anyMask = (): void => {
      c.i32(0);
      for (let m = 0; m < M; m++) for (let v = 0; v < V; v++) {
        c.get(acc[R(m, v)]!).get(masks2[R(m, v)]!).simd(SIMD.v128Or).simd(SIMD.v128AnyTrue).op(OP.i32Or);
      }
    };
    const pairStep = (): void => {
      pointers();
      c.get(rowk).i32(lower ? LDB : -LDB).op(OP.i32Add).set(rowk2);
      c.get(colk).i32(lower ? LDA : -LDA).op(OP.i32Add).set(colk2);
      head();
      if (lower) {
        // rows k + 2 ... n - 1, columns k (tp) and k + 1 (tp + LDA)
        c.get(colk).get(k).i32(2).op(OP.i32Add).i32(3).op(OP.i32Shl).op(OP.i32Add).set(tp);
        c.get(colk).i32(n * 8).op(OP.i32Add).set(end);
        c.get(rowk2).i32(LDB).op(OP.i32Add).set(rowi);
      } else {
        // rows 0 ... k - 2, columns k (tp + LDA) and k - 1 (tp)
        c.get(colk2).set(tp);
        c.get(colk2).get(k).i32(1).op(OP.i32Sub).i32(3).op(OP.i32Shl).op(OP.i32Add).set(end);
        c.get(B).get(gb).op(OP.i32Add).set(rowi);
      }
      const [o1, o2] = lower ? [0, LDA] : [LDA, 0];
      anyMask();
      c.if_(() => rows(o1, o2, true), () => rows(o1, o2, false));
    };
    if (n >= 2) {
      c.i32(lower ? 0 : n - 1).set(k);
      c.loop_(() => {
        pairStep();
        if (lower) c.get(k).i32(2).op(OP.i32Add).tee(k).i32(n - 1).op(OP.i32LtS); // k < n - 1
        else c.get(k).i32(2).op(OP.i32Sub).tee(k).i32(1).op(OP.i32GeS); // k >= 1
      });
    }
    if (n % 2 === 1) {
      // the last element alone (lower: n - 1, upper: 0): no rows left to update
      c.i32(lower ? n - 1 : 0).set(k);
      pointers();
      axpyStep(V, () => { c.i32(0).tee(tp).set(end); });
    }
  };

  /** L y = b in the axpy form: y(k) = b(k) / L(k, k), then b(i) -= L(i, k) y(k) for i > k. */
  const axpyForward = (V: number): void => {
    overK(true, () => {
      axpyStep(V, () => {
        c.get(colk).get(k).i32(1).op(OP.i32Add).i32(3).op(OP.i32Shl).op(OP.i32Add).set(tp);
        c.get(colk).i32(n * 8).op(OP.i32Add).set(end);
        c.get(rowk).i32(LDB).op(OP.i32Add).set(rowi);
      });
    });
  };

  /** U x = y in the axpy form, as dtrsm (UPPER_N): x(k) = y(k) / U(k, k), then y(i) -= U(i, k) x(k) for i < k, k = n-1 ... 0. */
  const axpyBackward = (V: number): void => {
    overK(false, () => {
      axpyStep(V, () => {
        c.get(colk).set(tp);
        c.get(colk).get(k).i32(3).op(OP.i32Shl).op(OP.i32Add).set(end);
        c.get(B).get(gb).op(OP.i32Add).set(rowi);
      });
    });
  };

  /** trsm 'N': B := alpha B (rounded for float32), unless alpha is 1 (the reference's scaleColumn touches nothing then). */
  const scaleByAlpha = (V: number): void => {
    c.get(ALPHA).f64(1).op(OP.f64Ne).if_(() => {
      c.get(B).get(gb).op(OP.i32Add).set(rowi);
      c.get(rowi).i32(n * LDB).op(OP.i32Add).set(end);
      c.loop_(() => {
        for (let m = 0; m < M; m++) for (let v = 0; v < V; v++) {
          const o = FB(m) + v * 16;
          c.get(rowi).get(rowi).simdMem(SIMD.load, 3, o).get(alphas).simd(SIMD.f64x2Mul);
          round();
          c.simdMem(SIMD.store, 3, o);
        }
        addTo(rowi, LDB);
        c.get(rowi).get(end).op(OP.i32Ne);
      });
    });
  };

  /**
   * The dot form for every k (in `kAscending` order): x(k) = (b(k) - sum T(i, k) x(i)) [/ T(k, k)],
   * the sum over i < k ('below': false) or i > k ('below': true), i ascending or descending.
   */
  const dot = (V: number, kAscending: boolean, below: boolean, iAscending: boolean, unit: boolean): void => {
    overK(kAscending, () => {
      for (let m = 0; m < M; m++) for (let v = 0; v < V; v++) {
        if (trsm) c.get(alphas);
        c.get(rowk).simdMem(SIMD.load, 3, FB(m) + v * 16);
        if (trsm) c.simd(SIMD.f64x2Mul); // the reference's alpha * b(i), even for alpha 1 (exact)
        c.set(acc[R(m, v)]!);
      }
      if (!below) {
        // i = 0 .. k-1
        c.get(colk).set(tp);
        c.get(colk).get(k).i32(3).op(OP.i32Shl).op(OP.i32Add).set(end);
        c.get(B).get(gb).op(OP.i32Add).set(rowi);
        walk(8, LDB, () => step(V));
      } else if (iAscending) {
        // i = k+1 .. n-1
        c.get(colk).get(k).i32(1).op(OP.i32Add).i32(3).op(OP.i32Shl).op(OP.i32Add).set(tp);
        c.get(colk).i32(n * 8).op(OP.i32Add).set(end);
        c.get(rowk).i32(LDB).op(OP.i32Add).set(rowi);
        walk(8, LDB, () => step(V));
      } else {
        // i = n-1 .. k+1
        c.get(colk).i32((n - 1) * 8).op(OP.i32Add).set(tp);
        c.get(colk).get(k).i32(3).op(OP.i32Shl).op(OP.i32Add).set(end);
        c.get(B).get(gb).op(OP.i32Add).i32((n - 1) * LDB).op(OP.i32Add).set(rowi);
        walk(-8, -LDB, () => step(V));
      }
      for (let m = 0; m < M; m++) {
        if (!unit) { diagonal(m); c.set(t); }
        for (let v = 0; v < V; v++) {
          c.get(rowk).get(acc[R(m, v)]!);
          if (!unit) c.get(t).simd(SIMD.f64x2Div);
          round();
          c.simdMem(SIMD.store, 3, FB(m) + v * 16);
        }
      }
    });
  };
  const step = (V: number): void => {
    for (let m = 0; m < M; m++) {
      c.get(tp).simdMem(SIMD.load64Splat, 3, FA(m)).set(ts[m]!);
      for (let v = 0; v < V; v++) {
        c.get(acc[R(m, v)]!).get(ts[m]!).get(rowi).simdMem(SIMD.load, 3, FB(m) + v * 16).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub).set(acc[R(m, v)]!);
      }
    }
  };

  /** B's rows j and piv(j) swapped for j = n-1 .. 0 (this group's columns). */
  const swapsBackward = (V: number): void => {
    overK(false, () => {
      for (let m = 0; m < M; m++) {
        c.get(PIV).get(k).i32(2).op(OP.i32Shl).op(OP.i32Add).mem(OP.i32Load, 2, m * n * 4).tee(pv).get(k).op(OP.i32Ne).if_(() => {
          c.get(B).get(gb).op(OP.i32Add).get(pv).i32(LDB).op(OP.i32Mul).op(OP.i32Add).set(rowi);
          for (let v = 0; v < V; v++) {
            const o = FB(m) + v * 16;
            c.get(rowk).simdMem(SIMD.load, 3, o).set(acc[v]!);
            c.get(rowk).get(rowi).simdMem(SIMD.load, 3, o).simdMem(SIMD.store, 3, o);
            c.get(rowi).get(acc[v]!).simdMem(SIMD.store, 3, o);
          }
        });
      }
    });
  };

  const group = (V: number): void => {
    LDB = V * 16;
    if (op === 'getrs-T') {
      dot(V, true, false, true, false);
      dot(V, false, true, true, true);
      swapsBackward(V);
    } else if (op === 'trsm-lower-N') {
      scaleByAlpha(V);
      if (M * V <= PAIR_REGISTERS) axpyPairs(V, true); else axpyForward(V);
    } else if (op === 'trsm-upper-N') {
      scaleByAlpha(V);
      if (M * V <= PAIR_REGISTERS) axpyPairs(V, false); else axpyBackward(V);
    } else if (op === 'trsm-upper-T') {
      dot(V, true, false, true, unit);
    } else if (op === 'trsm-lower-T') {
      dot(V, false, true, true, unit);
    } else if (op === 'potrs-lower') {
      axpyForward(V);
      dot(V, false, true, true, false);
    } else {
      dot(V, true, false, true, false);
      axpyBackward(V);
    }
  };

  if (trsm) c.get(ALPHA).simd(SIMD.f64x2Splat).set(alphas);
  c.loop_(() => {
    c.i32(0).set(gb);
    if (fullGroups > 0) {
      c.loop_(() => {
        group(TRI_SOLVE_VECTORS);
        c.get(gb).i32(n * TRI_SOLVE_VECTORS * 16).op(OP.i32Add).tee(gb).i32(fullGroups * n * TRI_SOLVE_VECTORS * 16).op(OP.i32LtS);
      });
    }
    if (tailVectors > 0) group(tailVectors);
    addTo(A, M * SA);
    addTo(B, M * MB);
    if (op === 'getrs-T') addTo(PIV, M * n * 4);
    c.get(COUNT).i32(1).op(OP.i32Sub).tee(COUNT);
  });
  return encodeModule([{ name: 'solve', params, results: [], code: c }]);
}

export interface TriSolvePackParams {
  readonly n: number;
  readonly nrhs: number;
  /** The padding lane's value where nrhs is odd (see the solve's padding). */
  readonly pad: number;
}

/**
 * B's transposition into the grouped layout and back, in WebAssembly, for B stored densely
 * (ld = n, matrices back to back: the caller copies it in and out with one native copy each):
 * exports `pack(src, dst, count)` (column-major B at src to grouped B^T at dst) and `unpack(src,
 * dst, count)` (the reverse), byte addresses. A JavaScript packing loop cost 2-4 ns an element,
 * as much as the solve itself at n = 32. Exact (moves only).
 */
export function generateTriSolvePack(p: TriSolvePackParams): Uint8Array<ArrayBuffer> {
  const { n, nrhs, pad } = p;
  const ldb = triSolveLdb(nrhs);
  const groups = triSolveGroups(n, nrhs);
  const params: ValType[] = ['i32', 'i32', 'i32'];
  const fn = (out: boolean): Code => {
    const c = new Code(params);
    const [SRC, DST, COUNT] = [0, 1, 2];
    const col = c.local('i32'), row = c.local('i32'), end = c.local('i32');
    // col: the group's first column of B (column-major, row i), row: the group's row i of B^T
    const [cm, gm] = out ? [DST, SRC] : [SRC, DST];
    const oneGroup = (g: { col: number; width: number; ld: number; offset: number }): void => {
      c.get(cm).i32(g.col * n * 8).op(OP.i32Add).set(col);
      c.get(gm).i32(g.offset * 8).op(OP.i32Add).tee(row).i32(n * g.ld * 8).op(OP.i32Add).set(end);
      c.loop_(() => {
        for (let v = 0; 2 * v < g.width; v++) {
          const j = 2 * v, two = j + 1 < g.width;
          if (!out) {
            c.get(row);
            if (two) c.get(col).get(col).simdMem(SIMD.load64Zero, 3, j * n * 8).simdMemLane(SIMD.load64Lane, 3, (j + 1) * n * 8, 1);
            else c.get(col).f64x2(pad).simdMemLane(SIMD.load64Lane, 3, j * n * 8, 0);
            c.simdMem(SIMD.store, 3, v * 16);
          } else {
            c.get(col).get(row).simdMem(SIMD.load, 3, v * 16).tee(TMP).simdMemLane(SIMD.store64Lane, 3, j * n * 8, 0);
            if (two) c.get(col).get(TMP).simdMemLane(SIMD.store64Lane, 3, (j + 1) * n * 8, 1);
          }
        }
        c.get(col).i32(8).op(OP.i32Add).set(col);
        c.get(row).i32(g.ld * 8).op(OP.i32Add).tee(row).get(end).op(OP.i32Ne);
      });
    };
    const TMP = c.local('v128');
    c.loop_(() => {
      for (const g of groups) oneGroup(g);
      c.get(SRC).i32((out ? ldb : nrhs) * n * 8).op(OP.i32Add).set(SRC);
      c.get(DST).i32((out ? nrhs : ldb) * n * 8).op(OP.i32Add).set(DST);
      c.get(COUNT).i32(1).op(OP.i32Sub).tee(COUNT);
    });
    return c;
  };
  return encodeModule([{ name: 'pack', params, results: [], code: fn(false) }, { name: 'unpack', params, results: [], code: fn(true) }]);
}
