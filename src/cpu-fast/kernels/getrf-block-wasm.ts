/**
 * Generated WebAssembly LU with delayed updates (dgetrf's right-looking blocking, one kernel per
 * m x n): panels of `nb` columns are factored as dgetf2 does (pivot search, the row swap within
 * the panel, scaling, rank-1 updates confined to the panel), the panel's interchanges applied to
 * the other columns (dlaswp), then the panel's rows
 * of the columns to its right are solved with its unit lower triangle (U12) and the trailing
 * matrix gets all nb updates at once, A22 -= L21 U12, from register tiles: a 4 x 4 block of the
 * trailing matrix stays in eight f64x2 locals over the nb steps, each vector of L loaded once for
 * four columns and each element of U once (splat) for four rows. The unblocked kernel
 * (getrf-wasm.ts) loads and stores every element of the trailing matrix at every step: it is
 * bound by its stores (one per two multiply-subtracts); this one by its arithmetic.
 *
 * Bitwise the reference (src/cpu/lapack/getrf.ts): every element still receives the updates
 * A(i, c) -= L(i, j) U(j, c) of steps j = 0, 1, ... in order, each a multiply then a subtract on
 * the same float64 values (the tile subtracts step by step from the loaded element; no fused
 * multiply-add). The swaps commute with the delayed updates: both rows of a swap have received
 * the same steps in every column, and the L entries that later update them move with them.
 *
 * With nrhs > 0 (gesv, square), each matrix that factored (info 0) is then solved in place from
 * its factor while it is in cache: B's rows swapped, L y = b, U x = y, each element's updates
 * in the reference's dgetrs order (src/cpu/lapack/solve.ts: axpy form, column by column), four
 * columns of the factor per pass over B (the updates of a vector of B in registers across the
 * four; the same operations on each element, so bitwise the same); `roundFactor` rounds each factor
 * element to float32 first, as float32 callers' stored factor is (the reference solves with it).
 *
 * Layout: matrices packed as float64 with ld = m rounded up to even, back to back; B n x nrhs
 * with the same ld, back to back. Padding rows compute garbage that is never read back.
 */
import { Code, OP, SIMD, encodeModule, type FunctionDef, type ValType } from '../wasm/emit.js';
import { F64, I32, addr, constant, whileLess as loopLess } from '../wasm/structured.js';
import { ldOf } from './getrf-wasm.js';

export interface GetrfBlockWasmParams {
  readonly m: number;
  readonly n: number;
  /** Panel width: a multiple of 4 (the tile's rows and columns divide it, so every edge is known when generating). */
  readonly nb: number;
  /** Right-hand sides solved after factoring (gesv; m = n), 0 for getrf. */
  readonly nrhs: number;
  /** Round factor elements to float32 in the solve (float32 callers). */
  readonly roundFactor: boolean;
  /**
   * getrs ('N'): A already holds the factor and PIV its pivots; only the solve runs (nrhs > 0),
   * on every matrix, and infos are not written. Absent for getrf/gesv.
   */
  readonly solveOnly?: boolean;
}

const SAFE_MIN = 2.2250738585072014e-308;
/** Trailing-update tile: RV vectors of two rows by NR columns (8 accumulators: V8 keeps 15 xmm registers). */
const RV = 2, NR = 4;
const I32_LOAD = 0x28;
const CALL = 0x10;
/** Function indices of the module: the kernel, then the solves of two matrices and of one (solveFunctions). */
const SOLVE_PAIR = 1, SOLVE_ONE = 2;

/** Exported `getrf(a, ipiv, info, count, b)`: byte addresses of the packed matrices, int32 pivots (min(m, n) per matrix), int32 infos, packed B. */
export function generateGetrfBlockWasm(p: GetrfBlockWasmParams): Uint8Array<ArrayBuffer> {
  const { m, n, nb, nrhs } = p;
  if (nb % (2 * RV) !== 0 || nb % NR !== 0 || nb < 4) throw new Error(`getrf-block: nb = ${nb} is not a multiple of 4`);
  if (nrhs > 0 && m !== n) throw new Error('getrf-block: a solve needs a square matrix');
  const ld = ldOf(m), LD = ld * 8;
  const rowsEnd = ld;
  const steps = Math.min(m, n);
  // bytes from one matrix to the next, and from one B to the next
  const MAT = ld * n * 8, BMAT = ld * nrhs * 8;
  const fullBlocks = Math.floor(steps / nb), tail = steps - fullBlocks * nb;
  const params: ValType[] = ['i32', 'i32', 'i32', 'i32', 'i32'];
  const c = new Code(params);
  const [A, PIV, INFO, COUNT, B] = [0, 1, 2, 3, 4];
  const k0 = c.local('i32'), colk = c.local('i32'), j = c.local('i32'), colj = c.local('i32');
  const i = c.local('i32'), pv = c.local('i32'), col = c.local('i32'), cc = c.local('i32'), info = c.local('i32');
  const end = c.local('i32'), uc = c.local('i32'), lp = c.local('i32'), cp = c.local('i32'), l = c.local('i32');
  const lp0 = c.local('i32'), uc0 = c.local('i32'), pend = c.local('i32'), pend1 = c.local('i32'), i0 = c.local('i32');
  const pending = c.local('i32');
  const pm = c.local('f64'), v = c.local('f64'), s = c.local('f64'), t0 = c.local('f64'), t1 = c.local('f64');
  const tv0 = c.local('v128'), tv1 = c.local('v128'), lv = c.local('v128'), sv = c.local('v128');
  const acc = Array.from({ length: RV * NR }, () => c.local('v128'));
  const lvs = Array.from({ length: RV }, () => c.local('v128'));
  const u = Array.from({ length: nb }, () => c.local('f64'));
  const piv = Array.from({ length: nb }, () => c.local('i32'));
  const uv = Array.from({ length: nb }, () => c.local('v128'));

  const add = (local: number, bytes: number): void => { c.get(local).i32(bytes).op(OP.i32Add).set(local); };
  const whileLess = (iv: number, bound: number, step: number, body: () => void): void => loopLess(c, iv, constant(c, bound), step, body);
  const whileBelow = (iv: number, bound: number, step: number, body: () => void): void => loopLess(c, iv, () => { c.get(bound); }, step, body);
  const load = (ptr: number, off: number): void => { c.get(ptr).mem(F64.load, 3, off); };

  /**
   * The panel of width w at column k0: for j = k0 .. k0+w-1 (a loop, so the kernel stays small
   * and quick to compile: a first call runs while V8 still compiles it), pivot, swap, scale, and
   * the rank-1 update of the panel's columns right of j.
   */
  const panel = (w: number): void => {
    c.get(k0).set(j);
    c.get(colk).set(colj);
    c.get(k0).i32(w).op(OP.i32Add).set(pend);
    c.get(k0).i32(w - 1).op(OP.i32Add).set(pend1);
    c.loop_(() => {
      // pivot search: first entry of largest magnitude (idamax)
      c.get(j).set(pv);
      addr(c, colj, j); c.mem(F64.load, 3, 0).op(F64.abs).set(pm);
      c.get(j).i32(1).op(OP.i32Add).set(i);
      whileLess(i, m, 1, () => {
        addr(c, colj, i); c.mem(F64.load, 3, 0).op(F64.abs).tee(v).get(pm).op(F64.gt).if_(() => { c.get(v).set(pm); c.get(i).set(pv); });
      });
      c.get(PIV).get(j).i32(2).op(I32.shl).op(OP.i32Add).get(pv).mem(I32.store, 2, 0);
      addr(c, colj, pv); c.mem(F64.load, 3, 0).f64(0).op(F64.ne).if_(() => {
        // swap rows j and pv across the panel's columns (the others after the panel: laswp)
        c.get(pv).get(j).op(OP.i32Ne).if_(() => {
          c.get(colk).set(col);
          c.get(k0).set(cc);
          whileBelow(cc, pend, 1, () => {
            addr(c, col, j); c.mem(F64.load, 3, 0).set(s);
            addr(c, col, j); addr(c, col, pv); c.mem(F64.load, 3, 0).mem(F64.store, 3, 0);
            addr(c, col, pv); c.get(s).mem(F64.store, 3, 0);
            add(col, LD);
          });
        });
        // scale the column below the diagonal by 1 / pivot (or divide, below the safe minimum)
        addr(c, colj, j); c.mem(F64.load, 3, 0).set(s);
        c.get(j).i32(1).op(OP.i32Add).set(i);
        c.get(s).op(F64.abs).f64(SAFE_MIN).op(F64.ge).if_(() => {
          c.f64(1).get(s).op(F64.div).tee(s).simd(SIMD.f64x2Splat).set(sv);
          // a scalar first row when j + 1 is odd, then two rows per multiply (the padding row's garbage is never read)
          c.get(i).i32(1).op(I32.and).if_(() => {
            addr(c, colj, i); addr(c, colj, i); c.mem(F64.load, 3, 0).get(s).op(F64.mul).mem(F64.store, 3, 0);
            c.get(i).i32(1).op(OP.i32Add).set(i);
          });
          whileLess(i, rowsEnd, 2, () => { addr(c, colj, i); addr(c, colj, i); c.simdMem(SIMD.load, 3, 0).get(sv).simd(SIMD.f64x2Mul).simdMem(SIMD.store, 3, 0); });
        }, () => {
          whileLess(i, m, 1, () => { addr(c, colj, i); addr(c, colj, i); c.mem(F64.load, 3, 0).get(s).op(F64.div).mem(F64.store, 3, 0); });
        });
      }, () => {
        c.get(info).op(OP.i32Eqz).if_(() => { c.get(j).i32(1).op(OP.i32Add).set(info); });
      });
      // rank-1 update of the panel's columns j+1 .. k0+w-1, rows j+1 .. : two columns per pass
      c.get(j).i32(1).op(OP.i32Add).set(i0);
      c.get(i0).set(cc);
      c.get(colj).i32(LD).op(OP.i32Add).set(col);
      const columns = (pair: boolean): void => {
        const cols = pair ? [[t0, tv0, 0], [t1, tv1, LD]] as const : [[t0, tv0, 0]] as const;
        for (const [t, tv, o] of cols) { addr(c, col, j); c.mem(F64.load, 3, o).tee(t).simd(SIMD.f64x2Splat).set(tv); }
        // a scalar first row when j + 1 is odd, so that the vectors start on an even row
        c.get(i0).i32(1).op(I32.and).if_(() => {
          for (const [t, , o] of cols) {
            addr(c, col, i0); addr(c, col, i0); c.mem(F64.load, 3, o); addr(c, colj, i0); c.mem(F64.load, 3, 0).get(t).op(F64.mul).op(F64.sub).mem(F64.store, 3, o);
          }
        });
        c.get(i0).i32(1).op(OP.i32Add).i32(-2).op(I32.and).set(i);
        whileLess(i, rowsEnd, 2, () => {
          addr(c, colj, i); c.simdMem(SIMD.load, 3, 0).set(lv);
          for (const [, tv, o] of cols) {
            addr(c, col, i); addr(c, col, i); c.simdMem(SIMD.load, 3, o).get(lv).get(tv).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub).simdMem(SIMD.store, 3, o);
          }
        });
      };
      whileBelow(cc, pend1, 2, () => { columns(true); add(col, 2 * LD); });
      c.get(cc).get(pend).op(I32.ltS).if_(() => columns(false));
      add(colj, LD);
      c.get(j).i32(1).op(OP.i32Add).tee(j).get(pend).op(I32.ltS);
    });
  };

  /**
   * The panel's row interchanges applied to the columns left and right of it (dlaswp), column by
   * column: swapping each row across all n columns at its step instead strode 8 * ld bytes per
   * column and ran at about a third of the rate (stores and later loads 4 KiB apart alias).
   */
  const laswp = (w: number): void => {
    // the pivots in locals, and whether any is an interchange (none: nothing to do, no pass over the columns)
    c.i32(0).set(cc);
    for (let q = 0; q < w; q++) {
      c.get(PIV).get(k0).i32(2).op(I32.shl).op(OP.i32Add).mem(I32_LOAD, 2, q * 4).tee(piv[q]!);
      c.get(k0).i32(q).op(OP.i32Add).op(OP.i32Ne).get(cc).op(I32.or).set(cc);
    }
    const columns = (): void => {
      for (let q = 0; q < w; q++) {
        c.get(piv[q]!).get(k0).i32(q).op(OP.i32Add).tee(i).op(OP.i32Ne).if_(() => {
          addr(c, col, i); c.mem(F64.load, 3, 0).set(s);
          addr(c, col, i); addr(c, col, piv[q]!); c.mem(F64.load, 3, 0).mem(F64.store, 3, 0);
          addr(c, col, piv[q]!); c.get(s).mem(F64.store, 3, 0);
        });
      }
    };
    c.get(cc).if_(() => {
      c.get(A).set(col);
      whileBelow(col, colk, LD, columns);
      c.get(colk).i32(w * LD).op(OP.i32Add).set(col);
      c.get(A).i32(n * LD).op(OP.i32Add).set(end);
      whileBelow(col, end, LD, columns);
    });
  };

  /**
   * U12 of a panel of width w: rows k0 .. k0+w-1 of columns k0+w .. n-1 := L11^-1 (unit) times
   * themselves, in the reference's order: each element gets A(k0+ii, c) -= L(ii, jj) U(jj, c) for
   * jj = 0, 1, ... in turn. Two columns per pass, one per f64x2 lane (each lane the scalar
   * operations of its column: bitwise the same), U's rows of the pair kept in w vectors; a last
   * odd column alone. Scalar, one column at a time, this was 10-12% of the kernel at n = 64.
   */
  const solveU12 = (w: number): void => {
    if (w < 2) return;
    // col: column c's element k0; lp: the panel's (k0, k0)
    c.get(colk).i32(w * LD).op(OP.i32Add).get(k0).i32(3).op(I32.shl).op(OP.i32Add).set(col);
    c.get(colk).get(k0).i32(3).op(I32.shl).op(OP.i32Add).set(lp);
    c.get(k0).i32(w).op(OP.i32Add).set(cc);
    whileLess(cc, n - 1, 2, () => {
      for (let ii = 0; ii < w; ii++) {
        // lane 0 from column c, lane 1 from column c + 1
        c.get(col).simdMem(SIMD.load64Zero, 3, ii * 8).set(sv);
        c.get(col).get(sv).simdMem(SIMD.load64Lane, 3, LD + ii * 8).op(1);
        for (let jj = 0; jj < ii; jj++) { c.get(lp).simdMem(SIMD.load64Splat, 3, jj * LD + ii * 8).get(uv[jj]!).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub); }
        c.set(uv[ii]!);
        if (ii > 0) {
          c.get(col).get(uv[ii]!).simdMem(SIMD.store64Lane, 3, ii * 8).op(0);
          c.get(col).get(uv[ii]!).simdMem(SIMD.store64Lane, 3, LD + ii * 8).op(1);
        }
      }
      add(col, 2 * LD);
    });
    c.get(cc).i32(n).op(I32.ltS).if_(() => {
      load(col, 0); c.set(u[0]!);
      for (let ii = 1; ii < w; ii++) {
        c.get(col);
        load(col, ii * 8);
        for (let jj = 0; jj < ii; jj++) { load(lp, jj * LD + ii * 8); c.get(u[jj]!).op(F64.mul).op(F64.sub); }
        c.tee(u[ii]!).mem(F64.store, 3, ii * 8);
      }
    });
  };

  /** A tile of rv vectors x nc columns: C at cp, L(., k0 ..) at lp, U(k0 .., c) at uc. */
  const tile = (rv: number, nc: number): void => {
    const a = (vv: number, q: number): number => acc[vv * NR + q]!;
    for (let q = 0; q < nc; q++) for (let vv = 0; vv < rv; vv++) c.get(cp).simdMem(SIMD.load, 3, q * LD + vv * 16).set(a(vv, q));
    const stepAt = (lOff: number, uOff: number): void => {
      for (let vv = 0; vv < rv; vv++) c.get(lp).simdMem(SIMD.load, 3, lOff + vv * 16).set(lvs[vv]!);
      for (let q = 0; q < nc; q++) {
        c.get(uc).simdMem(SIMD.load64Splat, 3, uOff + q * LD).set(sv);
        for (let vv = 0; vv < rv; vv++) c.get(a(vv, q)).get(lvs[vv]!).get(sv).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub).set(a(vv, q));
      }
    };
    // one step per loop trip, the pointers walking along L's columns and U's rows (tuning.ts: TurboFan spills unrolled k loops)
    c.get(lp).set(lp0);
    c.get(uc).set(uc0);
    c.i32(nb).set(l);
    c.loop_(() => {
      stepAt(0, 0);
      add(lp, LD);
      add(uc, 8);
      c.get(l).i32(1).op(OP.i32Sub).tee(l);
    });
    c.get(lp0).set(lp);
    c.get(uc0).set(uc);
    for (let q = 0; q < nc; q++) for (let vv = 0; vv < rv; vv++) c.get(cp).get(a(vv, q)).simdMem(SIMD.store, 3, q * LD + vv * 16);
  };

  /** A22 -= L21 U12 for a full panel: rows k0+nb .. rowsEnd, columns k0+nb .. n-1, in tiles. */
  const trailing = (): void => {
    const restRows = rowsEnd % (2 * RV), restCols = n % NR;
    // col: column c's first element; end: the last full column block's end
    c.get(colk).i32(nb * LD).op(OP.i32Add).set(col);
    c.get(A).i32((n - restCols) * LD).op(OP.i32Add).set(end);
    const columnBlock = (nc: number): void => {
      c.get(col).get(k0).i32(3).op(I32.shl).op(OP.i32Add).set(uc);
      c.get(k0).i32(nb).op(OP.i32Add).i32(3).op(I32.shl).set(cc);
      c.get(colk).get(cc).op(OP.i32Add).set(lp);
      c.get(col).get(cc).op(OP.i32Add).set(cp);
      // rows in tiles of 2 RV up to rowsEnd - restRows
      c.get(col).i32((rowsEnd - restRows) * 8).op(OP.i32Add).set(j);
      whileBelow(cp, j, 2 * RV * 8, () => {
        tile(RV, nc);
        add(lp, 2 * RV * 8);
      });
      if (restRows > 0) tile(restRows / 2, nc);
    };
    whileBelow(col, end, NR * LD, () => columnBlock(NR));
    if (restCols > 0) columnBlock(restCols);
  };

  // the solves are functions of their own (solveCode): `call` one or two matrices at (a, b, piv)
  const callSolve = (fn: number, back: boolean): void => {
    if (back) {
      c.get(A).i32(MAT).op(OP.i32Sub).get(B).i32(BMAT).op(OP.i32Sub).get(PIV).i32(steps * 4).op(OP.i32Sub);
    } else c.get(A).get(B).get(PIV);
    c.op(CALL, fn);
  };
  const advance = (): void => {
    add(A, MAT);
    add(B, BMAT);
    add(PIV, steps * 4);
  };

  if (p.solveOnly) {
    if (nrhs === 0) throw new Error('getrf-block: a solve-only kernel needs right-hand sides');
    // two matrices a call while two are left, then the last one alone
    c.op(OP.block, OP.void);
    c.get(COUNT).i32(2).op(I32.ltS).op(OP.brIf, 0);
    c.loop_(() => {
      callSolve(SOLVE_PAIR, false);
      advance();
      advance();
      c.get(COUNT).i32(2).op(OP.i32Sub).tee(COUNT).i32(1).op(I32.gtS);
    });
    c.op(OP.end);
    c.get(COUNT).if_(() => callSolve(SOLVE_ONE, false));
    return encodeModule([{ name: 'getrf', params, results: [], code: c }, ...solveFunctions(p)]);
  }

  // gesv: a matrix that factored waits for the next one that does, and the two are solved
  // together (their chains of dependent operations overlap: one alone is latency-bound); one
  // that fails sends a waiting one to be solved alone, as does the end of the batch
  c.i32(0).set(pending);
  c.loop_(() => {
    c.i32(0).set(info);
    c.i32(0).set(k0);
    c.get(A).set(colk);
    if (fullBlocks > 0) {
      c.loop_(() => {
        panel(nb);
        laswp(nb);
        solveU12(nb);
        trailing();
        c.get(k0).i32(nb).op(OP.i32Add).set(k0);
        add(colk, nb * LD);
        c.get(k0).i32(fullBlocks * nb).op(I32.ltS);
      });
    }
    if (tail > 0) {
      // the last, narrower panel: nothing trails it (its columns end the matrix, or its rows do)
      panel(tail);
      laswp(tail);
      solveU12(tail);
    }
    c.get(INFO).get(info).mem(I32.store, 2, 0);
    add(A, MAT);
    add(PIV, steps * 4);
    add(INFO, 4);
    if (nrhs > 0) {
      add(B, BMAT);
      c.get(info).op(OP.i32Eqz).if_(() => {
        c.get(pending).if_(() => {
          c.get(A).i32(2 * MAT).op(OP.i32Sub).get(B).i32(2 * BMAT).op(OP.i32Sub).get(PIV).i32(2 * steps * 4).op(OP.i32Sub).op(CALL, SOLVE_PAIR);
          c.i32(0).set(pending);
        }, () => { c.i32(1).set(pending); });
      }, () => {
        c.get(pending).if_(() => {
          c.get(A).i32(2 * MAT).op(OP.i32Sub).get(B).i32(2 * BMAT).op(OP.i32Sub).get(PIV).i32(2 * steps * 4).op(OP.i32Sub).op(CALL, SOLVE_ONE);
          c.i32(0).set(pending);
        });
      });
    }
    c.get(COUNT).i32(1).op(OP.i32Sub).tee(COUNT);
  });
  if (nrhs > 0) c.get(pending).if_(() => callSolve(SOLVE_ONE, true));
  return encodeModule([{ name: 'getrf', params, results: [], code: c }, ...(nrhs > 0 ? solveFunctions(p) : [])]);
}

/** The two solve functions, `solve(a, b, piv)`: two matrices side by side (a + MAT, b + BMAT, piv + steps), then one. */
function solveFunctions(p: GetrfBlockWasmParams): FunctionDef[] {
  const params: ValType[] = ['i32', 'i32', 'i32'];
  return [
    { name: 'solvePair', params, results: [], code: solveCode(p, 2) },
    { name: 'solveOne', params, results: [], code: solveCode(p, 1) },
  ];
}

/**
 * The solve of `count` factored matrices (1 or 2) at a, b (nrhs columns each) and piv: B's rows
 * swapped, L y = b, U x = y, each element's updates in the reference's dgetrs order. With two,
 * every step is emitted for the first matrix and then for the second (the same loop counters,
 * their own values): each matrix's operations are exactly those it gets alone, and the two
 * chains of dependent multiplies, subtractions and divisions (the backward substitution's 16
 * divisions at n = 16) overlap.
 */
function solveCode(p: GetrfBlockWasmParams, count: 1 | 2): Code {
  const { n, nrhs } = p;
  const ld = ldOf(n), LD = ld * 8;
  const rowsEnd = ld;
  const c = new Code(['i32', 'i32', 'i32']);
  const [A, B, PIV] = [0, 1, 2];
  const j = c.local('i32'), colj = c.local('i32'), i = c.local('i32'), pv = c.local('i32'), cp = c.local('i32'), l = c.local('i32');
  const s = c.local('f64');
  // each matrix's byte offsets from the first one's (factor, B, pivots) and its own values
  const mats = Array.from({ length: count }, (_, t) => ({
    a: t * ld * n * 8, b: t * ld * nrhs * 8, piv: t * n * 4,
    ys: Array.from({ length: 4 }, () => c.local('f64')),
    ss: Array.from({ length: 4 }, () => c.local('v128')),
  }));
  const add = (local: number, bytes: number): void => { c.get(local).i32(bytes).op(OP.i32Add).set(local); };
  const whileLess = (iv: number, bound: number, step: number, body: () => void): void => loopLess(c, iv, constant(c, bound), step, body);
  const whileBelow = (iv: number, bound: number, step: number, body: () => void): void => loopLess(c, iv, () => { c.get(bound); }, step, body);
  // a factor element (or two) from the address on the stack plus `off`, rounded as the caller's stored factor
  const factorAt = (off: number): void => {
    c.mem(F64.load, 3, off);
    if (p.roundFactor) c.op(OP.f32DemoteF64).op(F64.promoteF32);
  };
  const factorVecAt = (off: number): void => {
    c.simdMem(SIMD.load, 3, off);
    if (p.roundFactor) c.simd(SIMD.f32x4DemoteF64x2Zero).simd(SIMD.f64x2PromoteLowF32x4);
  };
  /**
   * Columns j .. j+w-1 of L (colj: column j) applied to B's column at cp, in the reference's
   * order (each element's updates by column, ascending; each b(i) - y(q) L(i, q)): the
   * triangle element by element, then the rows below from the padded row j + 4 (even) on.
   */
  const forwardBlock = (w: number): void => {
    for (let r = 0; r < w; r++) {
      for (const { a, b, ys } of mats) {
        addr(c, cp, j); addr(c, cp, j); c.mem(F64.load, 3, b + r * 8);
        for (let q = 0; q < r; q++) { c.get(ys[q]!); addr(c, colj, j); factorAt(a + q * LD + r * 8); c.op(F64.mul).op(F64.sub); }
        c.tee(ys[r]!).mem(F64.store, 3, b + r * 8);
      }
    }
    if (w < 4) return; // the last columns: only the padding row lies below
    for (const { ys, ss } of mats) for (let q = 0; q < w; q++) c.get(ys[q]!).simd(SIMD.f64x2Splat).set(ss[q]!);
    c.get(j).i32(w).op(OP.i32Add).set(i);
    whileLess(i, rowsEnd, 2, () => {
      for (const { a, b, ss } of mats) {
        addr(c, cp, i); addr(c, cp, i); c.simdMem(SIMD.load, 3, b);
        for (let q = 0; q < w; q++) { c.get(ss[q]!); addr(c, colj, i); factorVecAt(a + q * LD); c.simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub); }
        c.simdMem(SIMD.store, 3, b);
      }
    });
  };
  /**
   * Columns j+w-1 down to j of U (colj: column j) applied to B's column at cp, in the
   * reference's order (each element's updates by column, descending, then its division): the
   * triangle element by element, then the rows above, 0 .. j-1 (j is a multiple of 4).
   */
  const backwardBlock = (w: number): void => {
    for (let r = w - 1; r >= 0; r--) {
      for (const { a, b, ys } of mats) {
        addr(c, cp, j); addr(c, cp, j); c.mem(F64.load, 3, b + r * 8);
        for (let q = w - 1; q > r; q--) { c.get(ys[q]!); addr(c, colj, j); factorAt(a + q * LD + r * 8); c.op(F64.mul).op(F64.sub); }
        addr(c, colj, j); factorAt(a + r * LD + r * 8);
        c.op(F64.div).tee(ys[r]!).mem(F64.store, 3, b + r * 8);
      }
    }
    for (const { ys, ss } of mats) for (let q = 0; q < w; q++) c.get(ys[q]!).simd(SIMD.f64x2Splat).set(ss[q]!);
    c.i32(0).set(i);
    whileBelow(i, j, 2, () => {
      for (const { a, b, ss } of mats) {
        addr(c, cp, i); addr(c, cp, i); c.simdMem(SIMD.load, 3, b);
        for (let q = w - 1; q >= 0; q--) { c.get(ss[q]!); addr(c, colj, i); factorVecAt(a + q * LD); c.simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub); }
        c.simdMem(SIMD.store, 3, b);
      }
    });
  };
  c.get(B).set(cp);
  c.i32(nrhs).set(l);
  c.loop_(() => {
    // B's rows swapped in pivot order
    c.i32(0).set(j);
    whileLess(j, n, 1, () => {
      for (const { b, piv } of mats) {
        c.get(PIV).get(j).i32(2).op(I32.shl).op(OP.i32Add).mem(I32_LOAD, 2, piv).tee(pv).get(j).op(OP.i32Ne).if_(() => {
          addr(c, cp, j); c.mem(F64.load, 3, b).set(s);
          addr(c, cp, j); addr(c, cp, pv); c.mem(F64.load, 3, b).mem(F64.store, 3, b);
          addr(c, cp, pv); c.get(s).mem(F64.store, 3, b);
        });
      }
    });
    // L y = b, then U x = y: four columns of the factor at a time (y's four values splat in
    // registers), so each vector of B is loaded and stored once per four columns, not per column
    const fullBlocks4 = Math.floor(n / 4), tail4 = n % 4;
    c.i32(0).set(j);
    c.get(A).set(colj);
    if (fullBlocks4 > 0) whileLess(j, 4 * fullBlocks4, 4, () => { forwardBlock(4); add(colj, 4 * LD); });
    if (tail4 > 0) forwardBlock(tail4);
    c.i32(4 * fullBlocks4).set(j);
    c.get(A).i32(4 * fullBlocks4 * LD).op(OP.i32Add).set(colj);
    if (tail4 > 0) backwardBlock(tail4);
    if (fullBlocks4 > 0) {
      c.loop_(() => {
        c.get(j).i32(4).op(OP.i32Sub).set(j);
        c.get(colj).i32(4 * LD).op(OP.i32Sub).set(colj);
        backwardBlock(4);
        c.get(j).i32(0).op(I32.gtS);
      });
    }
    add(cp, LD);
    c.get(l).i32(1).op(OP.i32Sub).tee(l);
  });
  return c;
}
