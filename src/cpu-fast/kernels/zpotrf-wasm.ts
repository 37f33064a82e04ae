/**
 * Generated WebAssembly SIMD complex Cholesky (potrf, posv, potrs on Hermitian positive definite
 * matrices, 'lower' or 'upper') for one order n, on float64 working copies of the matrices packed
 * back to back in the module's memory (ld = n, interleaved re, im: complex64 is widened by the
 * driver's copy in and rounded by its copy out, as the reference computes in float64 and rounds on
 * store). B (posv, potrs) follows in the same layout, nrhs columns a matrix. The whole
 * factorisation and solve of one matrix is unrolled, with constant offsets.
 *
 * One f64x2 holds one complex number. The arithmetic is the complex reference's (src/cpu/complex/
 * zpotrf.ts, zsolve.ts, ztrsm.ts solveVector, scalar.ts divideInto) operation for operation, so
 * results are bitwise its own (no fused multiply-add). Its update of F(i, j) by x = F(i, k) and
 * y = conj(F(j, k)), re -= xr yr - xi yi; im -= xr yi + xi yr, is
 * acc - (splat(xr) [yr, yi] + splat(xi) [-yi, yr]), as in kernels/zgemm-wasm.ts; the conjugation
 * that 'upper' reads the factor through (F = U^H) is folded into the second vector's signs.
 * Each element's products are subtracted in ascending k as the reference does; the factor's
 * columns are computed left-looking (column j from the final columns 0..j-1) with `rows` elements
 * of a column at a time, so that many independent chains interleave. The forward solve runs
 * right-looking (each element still takes its terms in ascending k; posv's step j right after the
 * factor's column j), the backward one as the reference (its order leaves no independent chains).
 * Smith's division is the reference's.
 *
 * A matrix that is not positive definite at step j stores A(j, j) = (d, 0), sets info = j + 1 and
 * skips its remaining columns and its solve, as the reference.
 */
import type { Uplo } from '../../core/enums.js';
import { splatLane, swapNeg, swapNegHi } from '../wasm/complex.js';
import { Code, encodeModule, type ValType } from '../wasm/emit.js';
import { OP, SIMD } from '../wasm/opcodes.js';
import type { CholeskyOp } from './potrf-js.js';

export interface ZpotrfWasmParams {
  readonly op: CholeskyOp;
  readonly n: number;
  readonly uplo: Uplo;
  /** posv on complex64: the solve reads the factor rounded to float32 (as stored, as the reference). */
  readonly roundFactor: boolean;
  /** Elements of a factor column updated together (independent chains of subtractions). */
  readonly rows: number;
}

const E = 16; // bytes of one complex128

/** Bytes of the kernel's scratch (reused by every matrix): `zpotrfWasmScratch(n)`. */
export const zpotrfWasmScratch = (n: number): number => n * n * 40;

/**
 * Exported `zpotrf(a, b, info, count, nrhs, scratch)`: byte addresses of the first A, B and int32
 * info, and of a scratch of zpotrfWasmScratch(n) bytes (16-byte aligned).
 */
export function generateZpotrfWasm(p: ZpotrfWasmParams): Uint8Array<ArrayBuffer> {
  const { n, op } = p;
  const upper = p.uplo === 'upper';
  const params: ValType[] = ['i32', 'i32', 'i32', 'i32', 'i32', 'i32'];
  const c = new Code(params);
  const [A, B, INFO, COUNT, NRHS, SCR] = [0, 1, 2, 3, 4, 5];
  const info = c.local('i32'), bp = c.local('i32'), rhs = c.local('i32'), bStride = c.local('i32');
  const d = c.local('f64'), s = c.local('f64'), sNext = c.local('f64');
  const dr = c.local('f64'), di = c.local('f64'), r = c.local('f64'), den = c.local('f64');
  const dv = c.local('v128'), w = c.local('v128'), fv = c.local('v128'), sq = c.local('v128');
  const R = Math.max(1, Math.min(p.rows, n));
  /** posv runs the forward solve inside the factorisation (forwardStep); solveColumn then only the backward one. */
  const fused = op === 'posv';
  const sigmaF: 1 | -1 = upper ? -1 : 1;
  const acc = Array.from({ length: R }, () => c.local('v128'));
  // y[k] = conj(F(j, k)) and sv[k] the vector that multiplies splat(A.im) of F(i, k), for column j
  const y = Array.from({ length: n }, () => c.local('v128'));
  const sv = Array.from({ length: n }, () => c.local('v128'));
  // the right-hand side's elements (forward: running values, then y; backward: x) and, backward, their multipliers
  const x = Array.from({ length: n }, () => c.local('v128'));
  const xs = Array.from({ length: n }, () => c.local('v128'));

  /** Byte offset from A of the stored value of F(i, k) (i >= k): A(i, k) (lower) or A(k, i) (upper, F = conj of it). */
  const fAt = (i: number, k: number): number => (upper ? k + i * n : i + k * n) * E;
  /** [v.re, -v.im] of the vector on the stack. */
  const conj = (): void => { c.f64x2(1, -1).simd(SIMD.f64x2Mul); };
  /** The multiplier of splat(stored im) for a term whose imaginary part is sigma times the stored one. */
  const multiplier = (v: number, sigma: 1 | -1): void => { if (sigma === 1) swapNeg(c, v); else swapNegHi(c, v); };
  /**
   * The scratch: each finished F(i, k), i > k, as its stored value's [re, re], [im, im] at
   * splatAt(i, k) and re^2 + im^2 at normAt(i, k). Later columns read these whole: a load of
   * one lane of a vector just stored (F(i, k) itself) waits for the store to retire where the
   * CPU does not forward a store to a narrower load at another offset, which cost about half
   * the time at n = 16 (2-core EPYC).
   */
  const splatAt = (i: number, k: number): number => (i + k * n) * 32;
  const normAt = (i: number, k: number): number => n * n * 32 + (i + k * n) * 8;
  /** acc -= splat(T.re) v + splat(T.im) m: T stored at byte `off` from A, or its splats at `off` from the scratch. */
  const subtractTerm = (a: number, off: number, v: number, m: number, fromScratch = false, round = false): void => {
    /** The splats as the factor is stored: rounded to float32 where `round`. */
    const rounded = (): void => { if (round) c.simd(SIMD.f32x4DemoteF64x2Zero).simd(SIMD.f64x2PromoteLowF32x4); };
    c.get(a);
    if (fromScratch) c.get(SCR).simdMem(SIMD.load, 0, off);
    else c.get(A).simdMem(SIMD.load64Splat, 3, off);
    rounded();
    c.get(v).simd(SIMD.f64x2Mul);
    if (fromScratch) c.get(SCR).simdMem(SIMD.load, 0, off + 16);
    else c.get(A).simdMem(SIMD.load64Splat, 3, off + 8);
    rounded();
    c.get(m).simd(SIMD.f64x2Mul);
    c.simd(SIMD.f64x2Add).simd(SIMD.f64x2Sub).set(a);
  };

  const factorColumn = (j: number): void => {
    const dd = fAt(j, j);
    // d = A(j, j).re - (0 + |F(j, 0)|^2 + ... + |F(j, j-1)|^2): all but the last term were summed
    // (into sNext) at the start of column j - 1, off the critical path; then column j + 1's the same way
    if (j === 0) c.f64(0).set(s);
    else c.get(sNext).get(SCR).mem(OP.f64Load, 3, normAt(j, j - 1)).op(OP.f64Add).set(s);
    if (j + 1 < n) {
      c.f64(0).set(sNext);
      for (let k = 0; k < j; k++) c.get(sNext).get(SCR).mem(OP.f64Load, 3, normAt(j + 1, k)).op(OP.f64Add).set(sNext);
    }
    c.get(A).mem(OP.f64Load, 3, dd).get(s).op(OP.f64Sub).set(d);
    c.get(A).f64(0).mem(OP.f64Store, 3, dd + 8);
    c.get(d).f64(0).op(OP.f64Gt).op(OP.i32Eqz).if_(() => {
      c.get(A).get(d).mem(OP.f64Store, 3, dd);
      c.i32(j + 1).set(info);
      c.op(OP.br, 1); // out of the matrix's block
    });
    c.get(A).get(d).op(OP.f64Sqrt).tee(d).mem(OP.f64Store, 3, dd);
    // posv on complex64: the diagonal as stored, for the fused forward solve (nothing else reads it back)
    if (fused && p.roundFactor) c.get(A).get(d).op(OP.f32DemoteF64).op(OP.f64PromoteF32).mem(OP.f64Store, 3, dd);
    if (j === n - 1) {
      if (fused) forwardStep(j);
      return;
    }
    c.get(d).simd(SIMD.f64x2Splat).set(dv);
    for (let k = 0; k < j; k++) {
      // y = conj(F(j, k)): conj(A(j, k)) lower, A(k, j) upper; F(i, k)'s imaginary part is sigma A.im
      c.get(A).simdMem(SIMD.load, 0, fAt(j, k));
      if (!upper) conj();
      c.set(y[k]!);
      multiplier(y[k]!, upper ? -1 : 1);
      c.set(sv[k]!);
    }
    for (let i0 = j + 1; i0 < n; i0 += R) {
      const h = Math.min(R, n - i0);
      for (let u = 0; u < h; u++) {
        c.get(A).simdMem(SIMD.load, 0, fAt(i0 + u, j));
        if (upper) conj();
        c.set(acc[u]!);
      }
      for (let k = 0; k < j; k++) for (let u = 0; u < h; u++) subtractTerm(acc[u]!, splatAt(i0 + u, k), y[k]!, sv[k]!, true);
      // F(i, j) = acc / ljj, stored conjugated for 'upper'; its splats and squared modulus to the scratch
      for (let u = 0; u < h; u++) {
        const i = i0 + u;
        c.get(acc[u]!);
        if (upper) conj();
        c.get(dv).simd(SIMD.f64x2Div).set(fv);
        c.get(A).get(fv).simdMem(SIMD.store, 0, fAt(i, j));
        c.get(SCR); splatLane(c, fv, 0); c.simdMem(SIMD.store, 0, splatAt(i, j));
        c.get(SCR); splatLane(c, fv, 1); c.simdMem(SIMD.store, 0, splatAt(i, j) + 16);
        c.get(fv).get(fv).simd(SIMD.f64x2Mul).set(sq);
        c.get(SCR).get(sq).simd(SIMD.f64x2ExtractLane, 0).get(sq).simd(SIMD.f64x2ExtractLane, 1).op(OP.f64Add).mem(OP.f64Store, 3, normAt(i, j));
      }
    }
    if (fused) forwardStep(j);
  };

  /**
   * posv: step j of the forward solve (T = F) on every right-hand side in B's working copy, as
   * soon as column j is final, so that its serial chain overlaps the next columns' work: x_j =
   * b_j / F(j, j), then b_i -= F(i, j) x_j for i > j, each b_i still taking its terms in ascending
   * k as the reference. A matrix that fails later leaves this copy unused (B is copied back only
   * where info = 0).
   */
  function forwardStep(j: number): void {
    c.get(NRHS).if_(() => {
      c.get(B).set(bp);
      c.get(NRHS).set(rhs);
      c.loop_(() => {
        c.get(bp).simdMem(SIMD.load, 0, j * E).set(x[0]!);
        divide(x[0]!, j, sigmaF);
        c.get(bp).get(x[0]!).simdMem(SIMD.store, 0, j * E);
        if (j < n - 1) {
          multiplier(x[0]!, sigmaF);
          c.set(xs[0]!);
          for (let i = j + 1; i < n; i++) {
            c.get(bp).simdMem(SIMD.load, 0, i * E).set(x[1]!);
            subtractTerm(x[1]!, splatAt(i, j), x[0]!, xs[0]!, true, p.roundFactor);
            c.get(bp).get(x[1]!).simdMem(SIMD.store, 0, i * E);
          }
        }
        c.get(bp).i32(n * E).op(OP.i32Add).set(bp);
        c.get(rhs).i32(1).op(OP.i32Sub).tee(rhs);
      });
    });
  }

  /**
   * v := v / T(i, i) by Smith's algorithm, T(i, i) = (A.re, sigma A.im) of F(i, i)'s stored value:
   * each branch leaves its numerator in w (a void if holds no value), divided by den after.
   */
  const divide = (v: number, i: number, sigma: 1 | -1): void => {
    const off = fAt(i, i);
    c.get(A).mem(OP.f64Load, 3, off).set(dr);
    c.get(A).mem(OP.f64Load, 3, off + 8);
    if (sigma === -1) c.f64(-1).op(OP.f64Mul);
    c.set(di);
    c.get(dr).op(OP.f64Abs).get(di).op(OP.f64Abs).op(OP.f64Ge).if_(() => {
      // r = di / dr, den = dr + di r: [nr + ni r, ni - nr r] / den
      c.get(di).get(dr).op(OP.f64Div).set(r);
      c.get(dr).get(di).get(r).op(OP.f64Mul).op(OP.f64Add).set(den);
      c.get(v).get(r).simd(SIMD.f64x2Splat);
      swapNegHi(c, v);
      c.simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add).set(w);
    }, () => {
      // r = dr / di, den = di + dr r: [nr r + ni, ni r - nr] / den
      c.get(dr).get(di).op(OP.f64Div).set(r);
      c.get(di).get(dr).get(r).op(OP.f64Mul).op(OP.f64Add).set(den);
      c.get(r).simd(SIMD.f64x2Splat).get(v).simd(SIMD.f64x2Mul);
      swapNegHi(c, v);
      c.simd(SIMD.f64x2Add).set(w);
    });
    c.get(w).get(den).simd(SIMD.f64x2Splat).simd(SIMD.f64x2Div).set(v);
  };

  /**
   * One right-hand side at bp: forward with T = F (T(i, k) stored at F(i, k), imaginary sign
   * sigmaF; potrs only, posv's ran in forwardStep), then backward with T = F^H (T(i, k) =
   * conj(F(k, i)), sign -sigmaF).
   */
  const solveColumn = (): void => {
    const sigmaB: 1 | -1 = upper ? 1 : -1;
    for (let i = 0; i < n; i++) c.get(bp).simdMem(SIMD.load, 0, i * E).set(x[i]!);
    for (let k = 0; k < n && !fused; k++) {
      divide(x[k]!, k, sigmaF);
      if (k === n - 1) break;
      multiplier(x[k]!, sigmaF);
      c.set(w);
      for (let i = k + 1; i < n; i++) subtractTerm(x[i]!, fAt(i, k), x[k]!, w);
    }
    for (let i = n - 1; i >= 0; i--) {
      for (let k = i + 1; k < n; k++) subtractTerm(x[i]!, fAt(k, i), x[k]!, xs[k]!);
      divide(x[i]!, i, sigmaB);
      if (i > 0) {
        multiplier(x[i]!, sigmaB);
        c.set(xs[i]!);
      }
      c.get(bp).get(x[i]!).simdMem(SIMD.store, 0, i * E);
    }
  };

  if (op !== 'potrf') c.get(NRHS).i32(n * E).op(OP.i32Mul).set(bStride);
  c.loop_(() => {
    c.i32(0).set(info);
    c.op(OP.block, OP.void); // left early by a failing step
    if (op !== 'potrs') for (let j = 0; j < n; j++) factorColumn(j);
    if (op === 'posv' && p.roundFactor) {
      // the backward solve reads the factor as stored: rounded to float32 in place (what the copy out writes anyway)
      for (let j = 0; j < n; j++) for (let i = j; i < n; i++) {
        c.get(A).get(A).simdMem(SIMD.load, 0, fAt(i, j));
        c.simd(SIMD.f32x4DemoteF64x2Zero).simd(SIMD.f64x2PromoteLowF32x4).simdMem(SIMD.store, 0, fAt(i, j));
      }
    }
    if (op !== 'potrf') {
      c.get(NRHS).if_(() => {
        c.get(B).set(bp);
        c.get(NRHS).set(rhs);
        c.loop_(() => {
          solveColumn();
          c.get(bp).i32(n * E).op(OP.i32Add).set(bp);
          c.get(rhs).i32(1).op(OP.i32Sub).tee(rhs);
        });
      });
    }
    c.op(OP.end);
    c.get(INFO).get(info).mem(OP.i32Store, 2, 0);
    c.get(A).i32(n * n * E).op(OP.i32Add).set(A);
    if (op !== 'potrf') c.get(B).get(bStride).op(OP.i32Add).set(B);
    c.get(INFO).i32(4).op(OP.i32Add).set(INFO);
    c.get(COUNT).i32(1).op(OP.i32Sub).tee(COUNT);
  });
  return encodeModule([{ name: 'zpotrf', params, results: [], code: c }]);
}
