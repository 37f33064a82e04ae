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
 * The zero pivot test is the reference's for the data's type (`zeroMax`: a float32 pivot that
 * stores as zero is zero, and takes no interchange).
 *
 * Bitwise the reference (src/cpu/lapack/getrf.ts): every element still receives the updates
 * A(i, c) -= L(i, j) U(j, c) of steps j = 0, 1, ... in order, each a multiply then a subtract on
 * the same float64 values (the tile subtracts step by step from the loaded element; no fused
 * multiply-add unless `fma`). The swaps commute with the delayed updates: both rows of a swap have received
 * the same steps in every column, and the L entries that later update them move with them.
 *
 * With `pairs`, matrices go two at a time (a last odd one alone): the panels' steps of both emitted in turn in
 * one loop (the same counters, each its own pivots, branches and values), the rest of each panel
 * one matrix after the other. Each matrix gets exactly the operations it gets alone; the two
 * chains of dependent operations (pivot search, division, scaling, update, next pivot; in the
 * solve, the substitutions' multiplies, subtractions and divisions) overlap: at n = 16 one
 * matrix alone leaves the core waiting on them.
 *
 * With nrhs > 0 (gesv, square), each matrix that factored (info 0) is then solved in place from
 * its factor while it is in cache (two together where both of a pair factored): B's rows swapped, L y = b, U x = y, each element's updates
 * in the reference's dgetrs order (src/cpu/lapack/solve.ts: axpy form, column by column), four
 * columns of the factor per pass over B (the updates of a vector of B in registers across the
 * four; the same operations on each element, so bitwise the same); `roundFactor` rounds each factor
 * element to float32 first, as float32 callers' stored factor is (the reference solves with it).
 *
 * Layout: matrices packed as float64 with ld = m rounded up to even, back to back; B n x nrhs
 * with the same ld, back to back. Padding rows compute garbage that is never read back.
 */
import { Code, encodeModule, type FunctionDef, type ValType } from '../wasm/emit.js';
import { OP, SIMD } from '../wasm/opcodes.js';
import { addr, constant, storesNonzero, whileLess as loopLess } from '../wasm/structured.js';
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
  /**
   * A pivot of magnitude <= zeroMax is zero (info; no interchange, no scaling): the data's
   * DTypeInfo.zeroMax (dtype-table.ts), 0 for float64 (exactly zero: the code as without it),
   * 2^-150 for float32, whose U(k, k) then stores as zero. Not read by a solve-only kernel.
   */
  readonly zeroMax: number;
  /**
   * Factor two matrices at a time, their panels' steps interleaved (getrf/gesv; tuning.ts
   * luWasmPairsMax): more code for V8 to optimise on a first call. Otherwise one at a time.
   */
  readonly pairs?: boolean;
  /**
   * The trailing update's multiply-subtracts fused (f64x2.relaxed_nmadd: A22 -= L21 U12 rounded
   * once per step where the hardware fuses): no longer bitwise the reference, within rounding of
   * it; only where wasm/features.ts validates relaxed SIMD (context.ts fmaFor). Absent: false.
   */
  readonly fma?: boolean;
}

const SAFE_MIN = 2.2250738585072014e-308;
/** Trailing-update tile: RV vectors of two rows by NR columns (8 accumulators: V8 keeps 15 xmm registers). */
const RV = 2, NR = 4;
/** Function indices of the module: the kernel, then (nrhs > 0) the solves of two matrices and of one (solveFunctions), then (pairs) the one-at-a-time kernel. */
const SOLVE_PAIR = 1, SOLVE_ONE = 2;

/** Exported `getrf(a, ipiv, info, count, b)`: byte addresses of the packed matrices, int32 pivots (min(m, n) per matrix), int32 infos, packed B. */
export function generateGetrfBlockWasm(p: GetrfBlockWasmParams): Uint8Array<ArrayBuffer> {
  const { m, n, nb, nrhs } = p;
  if (nb % (2 * RV) !== 0 || nb % NR !== 0 || nb < 4) throw new Error(`getrf-block: nb = ${nb} is not a multiple of 4`);
  if (nrhs > 0 && m !== n) throw new Error('getrf-block: a solve needs a square matrix');
  if (p.solveOnly && nrhs === 0) throw new Error('getrf-block: a solve-only kernel needs right-hand sides');
  const solves = nrhs > 0 ? solveFunctions(p) : [];
  const pairs = p.pairs === true && !p.solveOnly;
  // with pairs, a batch's last odd matrix goes to the one-at-a-time kernel, a function of its own
  // (called once a chunk: V8 leaves it in its baseline code, and optimises the pairs' kernel sooner)
  const one = pairs ? [{ name: 'getrfOne', params: KERNEL_PARAMS, results: [], code: kernelCode(p, false, -1) }] : [];
  return encodeModule([{ name: 'getrf', params: KERNEL_PARAMS, results: [], code: kernelCode(p, pairs, 1 + solves.length) }, ...solves, ...one]);
}

const KERNEL_PARAMS: readonly ValType[] = ['i32', 'i32', 'i32', 'i32', 'i32'];

/** The kernel `(a, ipiv, info, count, b)`: one matrix at a time, or with `pairs` two (a last odd one by a call of function `oneFn`). */
function kernelCode(p: GetrfBlockWasmParams, pairs: boolean, oneFn: number): Code {
  const { m, n, nb, nrhs } = p;
  const ld = ldOf(m), LD = ld * 8;
  const rowsEnd = ld;
  const steps = Math.min(m, n);
  // bytes from one matrix to the next, and from one B to the next
  const MAT = ld * n * 8, BMAT = ld * nrhs * 8;
  const fullBlocks = Math.floor(steps / nb), tail = steps - fullBlocks * nb;
  const c = new Code(KERNEL_PARAMS);
  const [A, PIV, INFO, COUNT, B] = [0, 1, 2, 3, 4];
  const k0 = c.local('i32'), colk = c.local('i32'), j = c.local('i32'), colj = c.local('i32');
  const i = c.local('i32'), col = c.local('i32'), cc = c.local('i32');
  const end = c.local('i32'), uc = c.local('i32'), lp = c.local('i32'), cp = c.local('i32'), l = c.local('i32');
  const lp0 = c.local('i32'), uc0 = c.local('i32'), pend = c.local('i32'), pend1 = c.local('i32'), i0 = c.local('i32');
  const mt = c.local('i32');
  const v = c.local('f64'), s = c.local('f64'), sv = c.local('v128');
  const rows2 = c.local('v128'), vabs = c.local('v128'), gt = c.local('v128');
  const acc = Array.from({ length: RV * NR }, () => c.local('v128'));
  const lvs = Array.from({ length: RV }, () => c.local('v128'));
  const u = Array.from({ length: nb }, () => c.local('f64'));
  const piv = Array.from({ length: nb }, () => c.local('i32'));
  const uv = Array.from({ length: nb }, () => c.local('v128'));
  /**
   * A matrix factored in a pass: its byte offsets from A (factor) and PIV (pivots), its pivot
   * row and magnitude, its info, the panel update's elements of U (and their splats) and L.
   */
  const slot = (t: number): Slot => ({
    o: t * MAT, po: t * steps * 4, pv: c.local('i32'), pm: c.local('f64'), info: c.local('i32'),
    t0: c.local('f64'), t1: c.local('f64'), tv0: c.local('v128'), tv1: c.local('v128'), lv: c.local('v128'),
    vmax: c.local('v128'), vidx: c.local('v128'),
  });
  const first = slot(0), second = pairs ? slot(1) : first;

  const { add, whileLess, whileBelow } = loops(c);
  const load = (ptr: number, off: number): void => { c.get(ptr).mem(OP.f64Load, 3, off); };

  /**
   * Each matrix's pivot in column j (colj), rows j .. m-1: the first entry of largest magnitude
   * (idamax: a later entry wins only if strictly larger, so a NaN never does, and a NaN on the
   * diagonal keeps j). A scalar row to reach an even row, then two rows a vector: each lane keeps
   * its own largest magnitude and first row (f64x2.pmax(a, b) is a < b ? b : a, the scalar
   * test's choice), the lanes merged by larger, then earlier on a tie; a last scalar row where
   * m is odd. The scalar scan (a compare and branch a row, two matrices side by side) was about
   * a quarter of the kernel at n = 16; without `pairs`, the scalar scan alone (less code to
   * compile; a single-matrix vector scan measured 5-7% slower at n = 64, docs/cpu-backend.md).
   */
  const pivotSearch = (ms: readonly Slot[]): void => {
    const row = (x: Slot): void => {
      addr(c, colj, i); c.mem(OP.f64Load, 3, x.o).op(OP.f64Abs).tee(v).get(x.pm).op(OP.f64Gt).if_(() => { c.get(v).set(x.pm); c.get(i).set(x.pv); });
    };
    for (const x of ms) {
      c.get(j).set(x.pv);
      addr(c, colj, j); c.mem(OP.f64Load, 3, x.o).op(OP.f64Abs).set(x.pm);
    }
    c.get(j).i32(1).op(OP.i32Add).tee(i).i32(1).op(OP.i32And).get(i).i32(m).op(OP.i32LtS).op(OP.i32And).if_(() => {
      for (const x of ms) row(x);
      c.get(i).i32(1).op(OP.i32Add).set(i);
    });
    if (!pairs) {
      // one matrix: the scalar scan (smaller code; its compare and branch is predicted)
      whileLess(i, m, 1, () => row(ms[0]!));
      return;
    }
    const mEven = m & ~1;
    c.get(i).i32(mEven).op(OP.i32LtS).if_(() => {
      for (const x of ms) {
        c.get(x.pm).simd(SIMD.f64x2Splat).set(x.vmax);
        c.get(x.pv).op(OP.i64ExtendI32U).simd(SIMD.i64x2Splat).set(x.vidx);
      }
      c.get(i).op(OP.i64ExtendI32U).simd(SIMD.i64x2Splat).i64x2(0, 1).simd(SIMD.i64x2Add).set(rows2);
      whileLess(i, mEven, 2, () => {
        for (const x of ms) {
          addr(c, colj, i); c.simdMem(SIMD.load, 3, x.o).simd(SIMD.f64x2Abs).tee(vabs).get(x.vmax).simd(SIMD.f64x2Gt).set(gt);
          c.get(rows2).get(x.vidx).get(gt).simd(SIMD.v128Bitselect).set(x.vidx);
          c.get(x.vmax).get(vabs).simd(SIMD.f64x2Pmax).set(x.vmax);
        }
        c.get(rows2).i64x2(2).simd(SIMD.i64x2Add).set(rows2);
      });
      // lane 1 wins if larger, or as large and earlier
      for (const x of ms) {
        c.get(x.vmax).simd(SIMD.f64x2ExtractLane, 0).set(x.pm);
        c.get(x.vidx).simd(SIMD.i64x2ExtractLane, 0).op(OP.i32WrapI64).set(x.pv);
        c.get(x.vmax).simd(SIMD.f64x2ExtractLane, 1).tee(v).get(x.pm).op(OP.f64Gt)
          .get(v).get(x.pm).op(OP.f64Eq).get(x.vidx).simd(SIMD.i64x2ExtractLane, 1).op(OP.i32WrapI64).tee(cc).get(x.pv).op(OP.i32LtS).op(OP.i32And)
          .op(OP.i32Or).if_(() => { c.get(v).set(x.pm); c.get(cc).set(x.pv); });
      }
    });
    if (m % 2 === 1) c.get(i).i32(m).op(OP.i32LtS).if_(() => { for (const x of ms) row(x); });
  };

  /**
   * The panel of width w at column k0 of each matrix of `ms` (one, or two side by side): for
   * j = k0 .. k0+w-1 (a loop, so the kernel stays small and quick to compile: a first call runs
   * while V8 still compiles it), pivot, swap, scale, and the rank-1 update of the panel's columns
   * right of j. With two matrices every step is emitted for the first and then the second (the
   * same loop counters, their own values and branches): each gets exactly the operations it gets
   * alone, and the chain of dependent operations from one pivot to the next (a search, a
   * division, a scaling, an update) of one overlaps the other's.
   */
  const panel = (w: number, ms: readonly Slot[]): void => {
    c.get(k0).set(j);
    c.get(colk).set(colj);
    c.get(k0).i32(w).op(OP.i32Add).set(pend);
    c.get(k0).i32(w - 1).op(OP.i32Add).set(pend1);
    c.loop_(() => {
      pivotSearch(ms);
      for (const x of ms) {
        c.get(PIV).get(j).i32(2).op(OP.i32Shl).op(OP.i32Add).get(x.pv).mem(OP.i32Store, 2, x.po);
        storesNonzero(c, p.zeroMax, () => { addr(c, colj, x.pv); c.mem(OP.f64Load, 3, x.o); });
        c.if_(() => {
          // swap rows j and pv across the panel's columns (the others after the panel: laswp)
          c.get(x.pv).get(j).op(OP.i32Ne).if_(() => {
            c.get(colk).set(col);
            c.get(k0).set(cc);
            whileBelow(cc, pend, 1, () => {
              addr(c, col, j); c.mem(OP.f64Load, 3, x.o).set(s);
              addr(c, col, j); addr(c, col, x.pv); c.mem(OP.f64Load, 3, x.o).mem(OP.f64Store, 3, x.o);
              addr(c, col, x.pv); c.get(s).mem(OP.f64Store, 3, x.o);
              add(col, LD);
            });
          });
          // scale the column below the diagonal by 1 / pivot (or divide, below the safe minimum)
          addr(c, colj, j); c.mem(OP.f64Load, 3, x.o).set(s);
          c.get(j).i32(1).op(OP.i32Add).set(i);
          c.get(s).op(OP.f64Abs).f64(SAFE_MIN).op(OP.f64Ge).if_(() => {
            c.f64(1).get(s).op(OP.f64Div).tee(s).simd(SIMD.f64x2Splat).set(sv);
            // a scalar first row when j + 1 is odd, then two rows per multiply (the padding row's garbage is never read)
            c.get(i).i32(1).op(OP.i32And).if_(() => {
              addr(c, colj, i); addr(c, colj, i); c.mem(OP.f64Load, 3, x.o).get(s).op(OP.f64Mul).mem(OP.f64Store, 3, x.o);
              c.get(i).i32(1).op(OP.i32Add).set(i);
            });
            whileLess(i, rowsEnd, 2, () => { addr(c, colj, i); addr(c, colj, i); c.simdMem(SIMD.load, 3, x.o).get(sv).simd(SIMD.f64x2Mul).simdMem(SIMD.store, 3, x.o); });
          }, () => {
            whileLess(i, m, 1, () => { addr(c, colj, i); addr(c, colj, i); c.mem(OP.f64Load, 3, x.o).get(s).op(OP.f64Div).mem(OP.f64Store, 3, x.o); });
          });
        }, () => {
          // a tiny zero pivot may lie below j (the whole column is tiny): no interchange, ipiv[j] = j
          if (p.zeroMax > 0) c.get(PIV).get(j).i32(2).op(OP.i32Shl).op(OP.i32Add).get(j).mem(OP.i32Store, 2, x.po);
          c.get(x.info).op(OP.i32Eqz).if_(() => { c.get(j).i32(1).op(OP.i32Add).set(x.info); });
        });
      }
      // rank-1 update of the panel's columns j+1 .. k0+w-1, rows j+1 .. : two columns per pass
      c.get(j).i32(1).op(OP.i32Add).set(i0);
      c.get(i0).set(cc);
      c.get(colj).i32(LD).op(OP.i32Add).set(col);
      const columns = (pair: boolean): void => {
        const cols = (x: Slot) => (pair ? [[x.t0, x.tv0, x.o], [x.t1, x.tv1, x.o + LD]] as const : [[x.t0, x.tv0, x.o]] as const);
        for (const x of ms) for (const [t, tv, o] of cols(x)) { addr(c, col, j); c.mem(OP.f64Load, 3, o).tee(t).simd(SIMD.f64x2Splat).set(tv); }
        // a scalar first row when j + 1 is odd, so that the vectors start on an even row
        c.get(i0).i32(1).op(OP.i32And).if_(() => {
          for (const x of ms) for (const [t, , o] of cols(x)) {
            addr(c, col, i0); addr(c, col, i0); c.mem(OP.f64Load, 3, o); addr(c, colj, i0); c.mem(OP.f64Load, 3, x.o).get(t).op(OP.f64Mul).op(OP.f64Sub).mem(OP.f64Store, 3, o);
          }
        });
        c.get(i0).i32(1).op(OP.i32Add).i32(-2).op(OP.i32And).set(i);
        whileLess(i, rowsEnd, 2, () => {
          for (const x of ms) {
            addr(c, colj, i); c.simdMem(SIMD.load, 3, x.o).set(x.lv);
            for (const [, tv, o] of cols(x)) {
              addr(c, col, i); addr(c, col, i); c.simdMem(SIMD.load, 3, o).get(x.lv).get(tv).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub).simdMem(SIMD.store, 3, o);
            }
          }
        });
      };
      whileBelow(cc, pend1, 2, () => { columns(true); add(col, 2 * LD); });
      c.get(cc).get(pend).op(OP.i32LtS).if_(() => columns(false));
      add(colj, LD);
      c.get(j).i32(1).op(OP.i32Add).tee(j).get(pend).op(OP.i32LtS);
    });
  };

  /**
   * The panel's row interchanges applied to the columns left and right of it (dlaswp), column by
   * column: swapping each row across all n columns at its step instead strode 8 * ld bytes per
   * column and ran at about a third of the rate (stores and later loads 4 KiB apart alias).
   * Of the matrix x (its offsets from A and PIV).
   */
  const laswp = (w: number, x: Slot): void => {
    // the pivots in locals, and whether any is an interchange (none: nothing to do, no pass over the columns)
    c.i32(0).set(cc);
    for (let q = 0; q < w; q++) {
      c.get(PIV).get(k0).i32(2).op(OP.i32Shl).op(OP.i32Add).mem(OP.i32Load, 2, x.po + q * 4).tee(piv[q]!);
      c.get(k0).i32(q).op(OP.i32Add).op(OP.i32Ne).get(cc).op(OP.i32Or).set(cc);
    }
    const columns = (): void => {
      for (let q = 0; q < w; q++) {
        c.get(piv[q]!).get(k0).i32(q).op(OP.i32Add).tee(i).op(OP.i32Ne).if_(() => {
          addr(c, col, i); c.mem(OP.f64Load, 3, x.o).set(s);
          addr(c, col, i); addr(c, col, piv[q]!); c.mem(OP.f64Load, 3, x.o).mem(OP.f64Store, 3, x.o);
          addr(c, col, piv[q]!); c.get(s).mem(OP.f64Store, 3, x.o);
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
   * Of the matrix `o` bytes from A.
   */
  const solveU12 = (w: number, o: number): void => {
    if (w < 2) return;
    // col: column c's element k0; lp: the panel's (k0, k0)
    c.get(colk).i32(w * LD).op(OP.i32Add).get(k0).i32(3).op(OP.i32Shl).op(OP.i32Add).set(col);
    c.get(colk).get(k0).i32(3).op(OP.i32Shl).op(OP.i32Add).set(lp);
    c.get(k0).i32(w).op(OP.i32Add).set(cc);
    whileLess(cc, n - 1, 2, () => {
      for (let ii = 0; ii < w; ii++) {
        // lane 0 from column c, lane 1 from column c + 1
        c.get(col).simdMem(SIMD.load64Zero, 3, o + ii * 8).set(sv);
        c.get(col).get(sv).simdMemLane(SIMD.load64Lane, 3, o + LD + ii * 8, 1);
        for (let jj = 0; jj < ii; jj++) { c.get(lp).simdMem(SIMD.load64Splat, 3, o + jj * LD + ii * 8).get(uv[jj]!).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub); }
        c.set(uv[ii]!);
        if (ii > 0) {
          c.get(col).get(uv[ii]!).simdMemLane(SIMD.store64Lane, 3, o + ii * 8, 0);
          c.get(col).get(uv[ii]!).simdMemLane(SIMD.store64Lane, 3, o + LD + ii * 8, 1);
        }
      }
      add(col, 2 * LD);
    });
    c.get(cc).i32(n).op(OP.i32LtS).if_(() => {
      load(col, o); c.set(u[0]!);
      for (let ii = 1; ii < w; ii++) {
        c.get(col);
        load(col, o + ii * 8);
        for (let jj = 0; jj < ii; jj++) { load(lp, o + jj * LD + ii * 8); c.get(u[jj]!).op(OP.f64Mul).op(OP.f64Sub); }
        c.tee(u[ii]!).mem(OP.f64Store, 3, o + ii * 8);
      }
    });
  };

  /** A tile of rv vectors x nc columns: C at cp, L(., k0 ..) at lp, U(k0 .., c) at uc, each `o` bytes on (the matrix's offset from A). */
  const tile = (rv: number, nc: number, o: number): void => {
    const a = (vv: number, q: number): number => acc[vv * NR + q]!;
    for (let q = 0; q < nc; q++) for (let vv = 0; vv < rv; vv++) c.get(cp).simdMem(SIMD.load, 3, o + q * LD + vv * 16).set(a(vv, q));
    const stepAt = (lOff: number, uOff: number): void => {
      for (let vv = 0; vv < rv; vv++) c.get(lp).simdMem(SIMD.load, 3, o + lOff + vv * 16).set(lvs[vv]!);
      for (let q = 0; q < nc; q++) {
        c.get(uc).simdMem(SIMD.load64Splat, 3, o + uOff + q * LD).set(sv);
        for (let vv = 0; vv < rv; vv++) {
          if (p.fma) c.get(lvs[vv]!).get(sv).get(a(vv, q)).simd(SIMD.f64x2RelaxedNmadd).set(a(vv, q));
          else c.get(a(vv, q)).get(lvs[vv]!).get(sv).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub).set(a(vv, q));
        }
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
    for (let q = 0; q < nc; q++) for (let vv = 0; vv < rv; vv++) c.get(cp).get(a(vv, q)).simdMem(SIMD.store, 3, o + q * LD + vv * 16);
  };

  /** A22 -= L21 U12 for a full panel of the matrix `o` bytes from A: rows k0+nb .. rowsEnd, columns k0+nb .. n-1, in tiles. */
  const trailing = (o: number): void => {
    const restRows = rowsEnd % (2 * RV), restCols = n % NR;
    // col: column c's first element; end: the last full column block's end
    c.get(colk).i32(nb * LD).op(OP.i32Add).set(col);
    c.get(A).i32((n - restCols) * LD).op(OP.i32Add).set(end);
    const columnBlock = (nc: number): void => {
      c.get(col).get(k0).i32(3).op(OP.i32Shl).op(OP.i32Add).set(uc);
      c.get(k0).i32(nb).op(OP.i32Add).i32(3).op(OP.i32Shl).set(cc);
      c.get(colk).get(cc).op(OP.i32Add).set(lp);
      c.get(col).get(cc).op(OP.i32Add).set(cp);
      // rows in tiles of 2 RV up to rowsEnd - restRows
      c.get(col).i32((rowsEnd - restRows) * 8).op(OP.i32Add).set(j);
      whileBelow(cp, j, 2 * RV * 8, () => {
        tile(RV, nc, o);
        add(lp, 2 * RV * 8);
      });
      if (restRows > 0) tile(restRows / 2, nc, o);
    };
    whileBelow(col, end, NR * LD, () => columnBlock(NR));
    if (restCols > 0) columnBlock(restCols);
  };

  // the solves are functions of their own (solveCode): `call` one or two matrices at (A, B, PIV) plus `t` matrices
  const callSolve = (fn: number, t = 0): void => {
    c.get(A).i32(t * MAT).op(OP.i32Add).get(B).i32(t * BMAT).op(OP.i32Add).get(PIV).i32(t * steps * 4).op(OP.i32Add).op(OP.call, fn);
  };
  const advance = (t: number): void => {
    add(A, t * MAT);
    if (nrhs > 0) add(B, t * BMAT);
    add(PIV, t * steps * 4);
  };

  if (p.solveOnly) {
    // two matrices a call while two are left, then the last one alone
    c.op(OP.block, OP.void);
    c.get(COUNT).i32(2).op(OP.i32LtS).op(OP.brIf, 0);
    c.loop_(() => {
      callSolve(SOLVE_PAIR);
      advance(2);
      c.get(COUNT).i32(2).op(OP.i32Sub).tee(COUNT).i32(1).op(OP.i32GtS);
    });
    c.op(OP.end);
    c.get(COUNT).if_(() => callSolve(SOLVE_ONE));
    return c;
  }

  /** Factors the matrices of `ms` (one, or two side by side: the panels' steps interleaved), infos stored. */
  const factor = (ms: readonly Slot[]): void => {
    for (const x of ms) c.i32(0).set(x.info);
    c.i32(0).set(k0);
    c.get(A).set(colk);
    const afterPanel = (w: number, trails: boolean): void => {
      const one = (): void => {
        laswp(w, first);
        solveU12(w, 0);
        if (trails) trailing(0);
      };
      if (ms.length === 1) return one();
      // a pair: the same code twice round, A, colk and PIV moved to the second matrix and back
      // (emitted once: half the code for V8 to optimise on a first call)
      c.i32(ms.length).set(mt);
      c.loop_(() => {
        one();
        add(A, MAT);
        add(colk, MAT);
        add(PIV, steps * 4);
        c.get(mt).i32(1).op(OP.i32Sub).tee(mt);
      });
      add(A, -ms.length * MAT);
      add(colk, -ms.length * MAT);
      add(PIV, -ms.length * steps * 4);
    };
    if (fullBlocks > 0) {
      c.loop_(() => {
        panel(nb, ms);
        afterPanel(nb, true);
        c.get(k0).i32(nb).op(OP.i32Add).set(k0);
        add(colk, nb * LD);
        c.get(k0).i32(fullBlocks * nb).op(OP.i32LtS);
      });
    }
    if (tail > 0) {
      // the last, narrower panel: nothing trails it (its columns end the matrix, or its rows do)
      panel(tail, ms);
      afterPanel(tail, false);
    }
    ms.forEach((x, t) => { c.get(INFO).get(x.info).mem(OP.i32Store, 2, 4 * t); });
  };

  if (!pairs) {
    // one matrix at a time (gesv: solved alone where it factored; B stays untouched where info > 0)
    c.loop_(() => {
      factor([first]);
      if (nrhs > 0) c.get(first.info).op(OP.i32Eqz).if_(() => callSolve(SOLVE_ONE));
      advance(1);
      add(INFO, 4);
      c.get(COUNT).i32(1).op(OP.i32Sub).tee(COUNT);
    });
    return c;
  }
  // two matrices at a time while two are left (gesv: both solved together where both factored,
  // else each that did alone; B stays untouched where info > 0), then the last one alone
  c.op(OP.block, OP.void);
  c.get(COUNT).i32(2).op(OP.i32LtS).op(OP.brIf, 0);
  c.loop_(() => {
    factor([first, second]);
    if (nrhs > 0) {
      c.get(first.info).get(second.info).op(OP.i32Or).op(OP.i32Eqz).if_(() => callSolve(SOLVE_PAIR), () => {
        c.get(first.info).op(OP.i32Eqz).if_(() => callSolve(SOLVE_ONE));
        c.get(second.info).op(OP.i32Eqz).if_(() => callSolve(SOLVE_ONE, 1));
      });
    }
    advance(2);
    add(INFO, 8);
    c.get(COUNT).i32(2).op(OP.i32Sub).tee(COUNT).i32(1).op(OP.i32GtS);
  });
  c.op(OP.end);
  c.get(COUNT).if_(() => { c.get(A).get(PIV).get(INFO).i32(1).get(B).op(OP.call, oneFn); });
  return c;
}

/** The generators' loop and pointer steps on `c`: add bytes to a local; loop while an i32 local is below a constant (whileLess) or another local (whileBelow). */
function loops(c: Code) {
  return {
    add: (local: number, bytes: number): void => { c.get(local).i32(bytes).op(OP.i32Add).set(local); },
    whileLess: (iv: number, bound: number, step: number, body: () => void): void => loopLess(c, iv, constant(c, bound), step, body),
    whileBelow: (iv: number, bound: number, step: number, body: () => void): void => loopLess(c, iv, () => { c.get(bound); }, step, body),
  };
}

interface Slot {
  readonly o: number; readonly po: number;
  readonly pv: number; readonly pm: number; readonly info: number;
  readonly t0: number; readonly t1: number; readonly tv0: number; readonly tv1: number; readonly lv: number;
  /** The pivot search's lanes: largest magnitudes, their rows (i64x2). */
  readonly vmax: number; readonly vidx: number;
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
  const { add, whileLess, whileBelow } = loops(c);
  // a factor element (or two) from the address on the stack plus `off`, rounded as the caller's stored factor
  const factorAt = (off: number): void => {
    c.mem(OP.f64Load, 3, off);
    if (p.roundFactor) c.op(OP.f32DemoteF64).op(OP.f64PromoteF32);
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
        addr(c, cp, j); addr(c, cp, j); c.mem(OP.f64Load, 3, b + r * 8);
        for (let q = 0; q < r; q++) { c.get(ys[q]!); addr(c, colj, j); factorAt(a + q * LD + r * 8); c.op(OP.f64Mul).op(OP.f64Sub); }
        c.tee(ys[r]!).mem(OP.f64Store, 3, b + r * 8);
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
        addr(c, cp, j); addr(c, cp, j); c.mem(OP.f64Load, 3, b + r * 8);
        for (let q = w - 1; q > r; q--) { c.get(ys[q]!); addr(c, colj, j); factorAt(a + q * LD + r * 8); c.op(OP.f64Mul).op(OP.f64Sub); }
        addr(c, colj, j); factorAt(a + r * LD + r * 8);
        c.op(OP.f64Div).tee(ys[r]!).mem(OP.f64Store, 3, b + r * 8);
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
        c.get(PIV).get(j).i32(2).op(OP.i32Shl).op(OP.i32Add).mem(OP.i32Load, 2, piv).tee(pv).get(j).op(OP.i32Ne).if_(() => {
          addr(c, cp, j); c.mem(OP.f64Load, 3, b).set(s);
          addr(c, cp, j); addr(c, cp, pv); c.mem(OP.f64Load, 3, b).mem(OP.f64Store, 3, b);
          addr(c, cp, pv); c.get(s).mem(OP.f64Store, 3, b);
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
        c.get(j).i32(0).op(OP.i32GtS);
      });
    }
    add(cp, LD);
    c.get(l).i32(1).op(OP.i32Sub).tee(l);
  });
  return c;
}
