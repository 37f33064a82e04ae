/**
 * Generated WebAssembly triangular solves from a stored factor, several right-hand sides at once:
 * potrs (L L^T or U^T U) and getrs 'T' (U^T, then unit L^T, then the row interchanges in
 * reverse). One module per n, nrhs and op.
 *
 * B is packed transposed (nrhs x n, row-major in effect: the nrhs values of row i of B side by
 * side, ld = nrhs rounded up to even), so each f64x2 holds one row of two right-hand sides and
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
import { Code, OP, SIMD, encodeModule, type ValType } from '../wasm/emit.js';

export type TriSolveOp = 'potrs-lower' | 'potrs-upper' | 'getrs-T';

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
}

/** Vectors of two right-hand sides per pass (eight columns of B: four accumulators, four values of x in registers). */
export const TRI_SOLVE_VECTORS = 4;

/** Matrices fused per trip: enough for four accumulators where B has fewer than four vectors (one right-hand side: four chains). */
export const triSolveMats = (nrhs: number): number => {
  const nv = triSolveLdb(nrhs) / 2;
  return nv >= 4 ? 1 : nv >= 2 ? 2 : 4;
};
const I32_LOAD = 0x28, I32_EQ = 0x46;

/** ld of packed B^T (in elements): nrhs rounded up to even. */
export const triSolveLdb = (nrhs: number): number => nrhs + (nrhs & 1);

/** Exported `solve(a, b, piv, count)`: byte addresses of the packed factors, packed B^T, int32 pivots (getrs). */
export function generateTriSolveWasm(p: TriSolveWasmParams): Uint8Array<ArrayBuffer> {
  const { op, n, nrhs, mats: M, lda, strideA } = p;
  if (![1, 2, 4].includes(M)) throw new Error(`tri-solve: mats = ${M}`);
  if (n < 1 || nrhs < 1) throw new Error(`tri-solve: n = ${n}, nrhs = ${nrhs}`);
  const ldb = triSolveLdb(nrhs);
  const LDA = lda * 8, LDB = ldb * 8, SA = strideA * 8;
  const nv = ldb / 2;
  const fullGroups = Math.floor(nv / TRI_SOLVE_VECTORS), tailVectors = nv % TRI_SOLVE_VECTORS;
  const params: ValType[] = ['i32', 'i32', 'i32', 'i32'];
  const c = new Code(params);
  const [A, B, PIV, COUNT] = [0, 1, 2, 3];
  const k = c.local('i32'), colk = c.local('i32'), rowk = c.local('i32'), tp = c.local('i32'), rowi = c.local('i32');
  const end = c.local('i32'), gb = c.local('i32'), pv = c.local('i32');
  const t = c.local('v128');
  const acc = Array.from({ length: TRI_SOLVE_VECTORS * M }, () => c.local('v128'));
  const xs = Array.from({ length: TRI_SOLVE_VECTORS * M }, () => c.local('v128'));
  const ts = Array.from({ length: M }, () => c.local('v128'));
  /** Byte offsets of matrix m of the fused group: its factor, its B. */
  const FA = (m: number): number => m * SA, FB = (m: number): number => m * n * LDB;
  /** Register index of vector v of matrix m. */
  const R = (m: number, v: number): number => m * TRI_SOLVE_VECTORS + v;

  const addTo = (local: number, bytes: number): void => { c.get(local).i32(bytes).op(OP.i32Add).set(local); };
  /** `while (tp != end) { body; tp += tStep; rowi += rStep }` */
  const walk = (tStep: number, rStep: number, body: () => void): void => {
    c.op(OP.block, OP.void);
    c.get(tp).get(end).op(I32_EQ).op(OP.brIf, 0);
    c.loop_(() => {
      body();
      addTo(tp, tStep);
      addTo(rowi, rStep);
      c.get(tp).get(end).op(OP.i32Ne);
    });
    c.op(OP.end);
  };
  /** The factor's (k, k) splat onto the stack. */
  const diagonal = (m: number): void => { c.get(colk).get(k).i32(3).op(0x74).op(OP.i32Add).simdMem(SIMD.load64Splat, 3, FA(m)); };
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
      if (ascending) c.get(k).i32(1).op(OP.i32Add).tee(k).i32(n).op(0x48);
      else c.get(k).i32(1).op(OP.i32Sub).tee(k).i32(0).op(0x4e);
    });
  };

  /** The axpy forms' step head: x(k) = b(k) / T(k, k) for every fused matrix and vector, kept in xs and stored over b(k). */
  const divideByDiagonal = (V: number): void => {
    for (let m = 0; m < M; m++) {
      diagonal(m); c.set(t);
      for (let v = 0; v < V; v++) {
        const o = FB(m) + v * 16;
        c.get(rowk).get(rowk).simdMem(SIMD.load, 3, o).get(t).simd(SIMD.f64x2Div).tee(xs[R(m, v)]!).simdMem(SIMD.store, 3, o);
      }
    }
  };

  /** The axpy forms' step body: b(i) -= T(i, k) x(k) for the rows the walk covers (tp at T(i, k), rowi at b(i)). */
  const axpyRows = (V: number): void => {
    walk(8, LDB, () => {
      for (let m = 0; m < M; m++) {
        c.get(tp).simdMem(SIMD.load64Splat, 3, FA(m)).set(ts[m]!);
        for (let v = 0; v < V; v++) {
          const o = FB(m) + v * 16;
          c.get(rowi).get(rowi).simdMem(SIMD.load, 3, o).get(ts[m]!).get(xs[R(m, v)]!).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub).simdMem(SIMD.store, 3, o);
        }
      }
    });
  };

  /** L y = b in the axpy form: y(k) = b(k) / L(k, k), then b(i) -= L(i, k) y(k) for i > k. */
  const axpyForward = (V: number): void => {
    overK(true, () => {
      divideByDiagonal(V);
      c.get(colk).get(k).i32(1).op(OP.i32Add).i32(3).op(0x74).op(OP.i32Add).set(tp);
      c.get(colk).i32(n * 8).op(OP.i32Add).set(end);
      c.get(rowk).i32(LDB).op(OP.i32Add).set(rowi);
      axpyRows(V);
    });
  };

  /** U x = y in the axpy form, as dtrsm (UPPER_N): x(k) = y(k) / U(k, k), then y(i) -= U(i, k) x(k) for i < k, k = n-1 ... 0. */
  const axpyBackward = (V: number): void => {
    overK(false, () => {
      divideByDiagonal(V);
      c.get(colk).set(tp);
      c.get(colk).get(k).i32(3).op(0x74).op(OP.i32Add).set(end);
      c.get(B).get(gb).op(OP.i32Add).set(rowi);
      axpyRows(V);
    });
  };

  /**
   * The dot form for every k (in `kAscending` order): x(k) = (b(k) - sum T(i, k) x(i)) [/ T(k, k)],
   * the sum over i < k ('below': false) or i > k ('below': true), i ascending or descending.
   */
  const dot = (V: number, kAscending: boolean, below: boolean, iAscending: boolean, unit: boolean): void => {
    overK(kAscending, () => {
      for (let m = 0; m < M; m++) for (let v = 0; v < V; v++) c.get(rowk).simdMem(SIMD.load, 3, FB(m) + v * 16).set(acc[R(m, v)]!);
      if (!below) {
        // i = 0 .. k-1
        c.get(colk).set(tp);
        c.get(colk).get(k).i32(3).op(0x74).op(OP.i32Add).set(end);
        c.get(B).get(gb).op(OP.i32Add).set(rowi);
        walk(8, LDB, () => step(V));
      } else if (iAscending) {
        // i = k+1 .. n-1
        c.get(colk).get(k).i32(1).op(OP.i32Add).i32(3).op(0x74).op(OP.i32Add).set(tp);
        c.get(colk).i32(n * 8).op(OP.i32Add).set(end);
        c.get(rowk).i32(LDB).op(OP.i32Add).set(rowi);
        walk(8, LDB, () => step(V));
      } else {
        // i = n-1 .. k+1
        c.get(colk).i32((n - 1) * 8).op(OP.i32Add).set(tp);
        c.get(colk).get(k).i32(3).op(0x74).op(OP.i32Add).set(end);
        c.get(B).get(gb).op(OP.i32Add).i32((n - 1) * LDB).op(OP.i32Add).set(rowi);
        walk(-8, -LDB, () => step(V));
      }
      for (let m = 0; m < M; m++) {
        if (!unit) { diagonal(m); c.set(t); }
        for (let v = 0; v < V; v++) {
          c.get(rowk).get(acc[R(m, v)]!);
          if (!unit) c.get(t).simd(SIMD.f64x2Div);
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
        c.get(PIV).get(k).i32(2).op(0x74).op(OP.i32Add).mem(I32_LOAD, 2, m * n * 4).tee(pv).get(k).op(OP.i32Ne).if_(() => {
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
    if (op === 'getrs-T') {
      dot(V, true, false, true, false);
      dot(V, false, true, true, true);
      swapsBackward(V);
    } else if (op === 'potrs-lower') {
      axpyForward(V);
      dot(V, false, true, true, false);
    } else {
      dot(V, true, false, true, false);
      axpyBackward(V);
    }
  };

  c.loop_(() => {
    c.i32(0).set(gb);
    if (fullGroups > 0) {
      c.loop_(() => {
        group(TRI_SOLVE_VECTORS);
        c.get(gb).i32(TRI_SOLVE_VECTORS * 16).op(OP.i32Add).tee(gb).i32(fullGroups * TRI_SOLVE_VECTORS * 16).op(0x48);
      });
    }
    if (tailVectors > 0) group(tailVectors);
    addTo(A, M * SA);
    addTo(B, M * n * LDB);
    if (op === 'getrs-T') addTo(PIV, M * n * 4);
    c.get(COUNT).i32(1).op(OP.i32Sub).tee(COUNT);
  });
  return encodeModule([{ name: 'solve', params, results: [], code: c }]);
}
