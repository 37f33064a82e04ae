/**
 * Generated WebAssembly SIMD one-sided Jacobi sweeps of the complex SVD for one shape, two
 * matrices at a time (wasm/pair.ts: one f64x2 the real parts of the same element of both, another
 * their imaginary parts). G (m x n, m >= n: A, or A^H for a wide A) lies as float64 pairs (ld = m,
 * back to back), V (n x n, ld = n) likewise after them where it is accumulated, one int32 a pair.
 *
 * The sweeps are the reference's (src/cpu/complex/zgesvd.ts gesvdMatrixComplex), operation for
 * operation: pairs (p, q) in the same order; the Gram entries alpha = ||g_p||^2, beta = ||g_q||^2,
 * g_p^H g_q summed in the same order; |g_p^H g_q| as V8's Math.hypot computes it (the larger part
 * times the square root of the sum of the squared quotients); the convergence test
 * |g_p^H g_q| > sqrt(m) eps sqrt(alpha) sqrt(beta); the Hermitian rotation of zrotation.ts and
 * its column update; the sweep limit MAX_SWEEPS. Each lane rotates only where its own test
 * passes (c = 1, s = 0, e = 0 elsewhere: the identity, the same values); a pair is skipped where
 * neither lane rotates. A lane whose sweep rotates nothing has converged: every later sweep finds
 * the same columns and rotates nothing either, so running on until the other lane converges (or
 * the limit) leaves it as the reference leaves it. The data must be finite (the driver checks)
 * and scaled as the reference scales it.
 *
 * The pair's result: bit 0 set where the first matrix converged, bit 1 where the second did.
 * The norms, the sort and the normalisation of U are the driver's (ops/zgesvd-wasm.ts).
 *
 * Loops: sweeps, p and q at run time; the rows of a column unrolled (offsets constant), so the
 * module grows with m + n (the plan keeps them small).
 */
import { MAX_SWEEPS } from '../../core/algorithms.js';
import { Code, encodeModule, type FunctionDef, type ValType } from '../wasm/emit.js';
import { OP, SIMD } from '../wasm/opcodes.js';
import { PAIR_E, PAIR_SLOT, pairBatchFunction, pairEmitters } from '../wasm/pair.js';

export interface ZgesvdInterleavedParams {
  /** G's rows (max(m, n) of A). */
  readonly m: number;
  /** G's columns (min(m, n) of A), at most m. */
  readonly n: number;
  /** Whether V is accumulated (and stored after G's pair). */
  readonly vectors: boolean;
}

const EPS = 2 ** -52;

/** Bytes of the kernel's scratch: G's pair split, and V's where accumulated. */
export const zgesvdInterleavedScratch = (p: ZgesvdInterleavedParams): number => (p.m * p.n + (p.vectors ? p.n * p.n : 0)) * PAIR_SLOT;

/**
 * Exported `zgesvd2(g, v, ok, pairs, scratch)`: byte addresses of the first G, the first V and the
 * int32 results, the number of pairs (matrices 2t and 2t + 1), a scratch of
 * zgesvdInterleavedScratch(p) bytes (16-byte aligned); and `pair(g0, g1, v0, v1, scratch) -> bits`
 * for two matrices anywhere (g0 = g1 and v0 = v1 work on one matrix). G is overwritten with the
 * rotated columns, V with the product of the rotations (p.vectors; else v is not touched).
 */
export function generateZgesvdInterleaved(p: ZgesvdInterleavedParams): Uint8Array<ArrayBuffer> {
  if (!(p.n >= 1 && p.m >= p.n)) throw new Error(`zgesvd-interleaved: needs m >= n >= 1, got ${p.m} x ${p.n}`);
  return encodeModule([mainFunction(p), pairFunction(p)]);
}
const PAIR = 1;

function mainFunction(p: ZgesvdInterleavedParams): FunctionDef {
  return pairBatchFunction('zgesvd2', p.m * p.n * PAIR_E, p.vectors ? p.n * p.n * PAIR_E : 0, PAIR);
}

function pairFunction(p: ZgesvdInterleavedParams): FunctionDef {
  const { m, n, vectors } = p;
  const params: ValType[] = ['i32', 'i32', 'i32', 'i32', 'i32'];
  const c = new Code(params);
  const [G0, G1, V0, V1, SCR] = [0, 1, 2, 3, 4];
  const { load, store, loop, select, copyPair } = pairEmitters(c);
  const v = (): number => c.local('v128');
  const i32 = (): number => c.local('i32');
  const vBase = i32(), pp = i32(), qp = i32(), vp = i32(), vq = i32(), pLeft = i32(), qLeft = i32(), sweeps = i32();
  const alpha = v(), beta = v(), gr = v(), gi = v(), gamma = v(), rot = v(), conv = v();
  const xr = v(), xi = v(), yr = v(), yi = v(), t = v(), cs = v(), sn = v(), er = v(), ei = v(), zeta = v(), az = v(), sign = v();
  const mul = (a: number, b: number): void => { c.get(a).get(b).simd(SIMD.f64x2Mul); };
  const colG = m * PAIR_SLOT, colV = n * PAIR_SLOT;

  /** [x y] := [x y] J over `rows` split elements from pointers px, py (zrotation.ts rotateComplexColumns). */
  const rotate = (px: number, py: number, rows: number): void => {
    for (let i = 0; i < rows; i++) {
      const o = i * PAIR_SLOT;
      load(px, o); c.set(xr);
      load(px, o + 16); c.set(xi);
      load(py, o); c.set(yr);
      load(py, o + 16); c.set(yi);
      // x := c x - s conj(e) y, y := s e x + c y; (a, b) = s e in (er, ei)
      store(px, o, () => { mul(cs, xr); mul(er, yr); mul(ei, yi); c.simd(SIMD.f64x2Add).simd(SIMD.f64x2Sub); });
      store(px, o + 16, () => { mul(cs, xi); mul(er, yi); mul(ei, yr); c.simd(SIMD.f64x2Sub).simd(SIMD.f64x2Sub); });
      store(py, o, () => { mul(cs, yr); mul(er, xr); mul(ei, xi); c.simd(SIMD.f64x2Sub).simd(SIMD.f64x2Add); });
      store(py, o + 16, () => { mul(cs, yi); mul(er, xi); mul(ei, xr); c.simd(SIMD.f64x2Add).simd(SIMD.f64x2Add); });
    }
  };

  /** Pair (p, q) at pp, qp (G) and vp, vq (V). */
  const pairStep = (): void => {
    for (const l of [alpha, beta, gr, gi]) c.f64x2(0).set(l);
    for (let i = 0; i < m; i++) {
      const o = i * PAIR_SLOT;
      load(pp, o); c.set(xr);
      load(pp, o + 16); c.set(xi);
      load(qp, o); c.set(yr);
      load(qp, o + 16); c.set(yi);
      c.get(alpha); mul(xr, xr); mul(xi, xi); c.simd(SIMD.f64x2Add).simd(SIMD.f64x2Add).set(alpha);
      c.get(beta); mul(yr, yr); mul(yi, yi); c.simd(SIMD.f64x2Add).simd(SIMD.f64x2Add).set(beta);
      c.get(gr); mul(xr, yr); mul(xi, yi); c.simd(SIMD.f64x2Add).simd(SIMD.f64x2Add).set(gr);
      c.get(gi); mul(xr, yi); mul(xi, yr); c.simd(SIMD.f64x2Sub).simd(SIMD.f64x2Add).set(gi);
    }
    // gamma = Math.hypot(gr, gi) as V8 computes it: mx sqrt((|gr| / mx)^2 + (|gi| / mx)^2)
    c.get(gr).simd(SIMD.f64x2Abs).set(xr);
    c.get(gi).simd(SIMD.f64x2Abs).set(xi);
    c.get(xr).get(xi).simd(SIMD.f64x2Pmax).set(t);
    c.get(xr).get(t).simd(SIMD.f64x2Div).set(xr);
    c.get(xi).get(t).simd(SIMD.f64x2Div).set(xi);
    mul(xr, xr); mul(xi, xi); c.simd(SIMD.f64x2Add).simd(SIMD.f64x2Sqrt).get(t).simd(SIMD.f64x2Mul).set(gamma);
    // rotate where gamma > tol sqrt(alpha) sqrt(beta) (false where gamma is 0 / 0 = NaN: mx = 0)
    c.get(gamma).f64x2(Math.sqrt(m) * EPS).get(alpha).simd(SIMD.f64x2Sqrt).simd(SIMD.f64x2Mul).get(beta).simd(SIMD.f64x2Sqrt).simd(SIMD.f64x2Mul)
      .simd(SIMD.f64x2Gt).tee(rot);
    c.simd(SIMD.v128AnyTrue).if_(() => {
      c.get(conv).get(rot).simd(SIMD.v128AndNot).set(conv);
      // zeta = (beta - alpha) / (2 gamma); t = sign / (|zeta| + sqrt(1 + zeta^2)), or sign / (2 |zeta|) above 1e150
      c.get(beta).get(alpha).simd(SIMD.f64x2Sub).f64x2(2).get(gamma).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Div).set(zeta);
      c.get(zeta).f64x2(0).simd(SIMD.f64x2Ge).set(t);
      select(() => c.f64x2(1), () => c.f64x2(-1), t); c.set(sign);
      c.get(zeta).simd(SIMD.f64x2Abs).set(az);
      c.get(az).f64x2(1e150).simd(SIMD.f64x2Gt).set(t);
      select(
        () => { c.get(sign).f64x2(2).get(az).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Div); },
        () => { c.get(sign).get(az).f64x2(1); mul(az, az); c.simd(SIMD.f64x2Add).simd(SIMD.f64x2Sqrt).simd(SIMD.f64x2Add).simd(SIMD.f64x2Div); },
        t);
      c.set(t);
      // c = 1 / sqrt(1 + t^2), s = t c, e = g / |g|; the identity in a lane that does not rotate
      c.f64x2(1).f64x2(1); mul(t, t); c.simd(SIMD.f64x2Add).simd(SIMD.f64x2Sqrt).simd(SIMD.f64x2Div).set(cs);
      mul(t, cs); c.set(sn);
      select(() => c.get(cs), () => c.f64x2(1), rot); c.set(cs);
      select(() => c.get(sn), () => c.f64x2(0), rot); c.set(sn);
      // s e = (s / gamma) g
      c.get(sn).get(gamma).simd(SIMD.f64x2Div).set(t);
      select(() => mul(t, gr), () => c.f64x2(0), rot); c.set(er);
      select(() => mul(t, gi), () => c.f64x2(0), rot); c.set(ei);
      rotate(pp, qp, m);
      if (vectors) rotate(vp, vq, n);
    });
  };

  c.get(SCR).i32(m * n * PAIR_SLOT).op(OP.i32Add).set(vBase);
  copyPair(true, G0, G1, SCR, m, n);
  if (vectors) {
    // V := I
    loop(n, [[vp, () => c.get(vBase), colV]], () => { for (let i = 0; i < 2 * n; i++) store(vp, i * 16, () => c.f64x2(0)); });
    loop(n, [[vp, () => c.get(vBase), colV + PAIR_SLOT]], () => store(vp, 0, () => c.f64x2(1)));
  }
  c.i64x2(-1).set(conv);
  if (n > 1) {
    c.i32(0).set(sweeps);
    c.loop_(() => {
      c.i64x2(-1).set(conv);
      loop(n - 1, [[pp, () => c.get(SCR), colG], [vp, () => c.get(vBase), colV]], () => {
        c.get(pp).i32(colG).op(OP.i32Add).set(qp);
        c.get(vp).i32(colV).op(OP.i32Add).set(vq);
        c.get(pLeft).set(qLeft);
        c.loop_(() => {
          pairStep();
          c.get(qp).i32(colG).op(OP.i32Add).set(qp);
          c.get(vq).i32(colV).op(OP.i32Add).set(vq);
          c.get(qLeft).i32(1).op(OP.i32Sub).tee(qLeft);
        });
      }, pLeft);
      // again while a lane rotated and the limit is not reached
      c.get(sweeps).i32(1).op(OP.i32Add).tee(sweeps).i32(MAX_SWEEPS).op(OP.i32LtS);
      c.get(conv).simd(SIMD.i64x2AllTrue).op(OP.i32Eqz).op(OP.i32And);
    });
  }
  copyPair(false, G0, G1, SCR, m, n);
  if (vectors) copyPair(false, V0, V1, vBase, n, n);
  c.get(conv).simd(SIMD.i32x4ExtractLane, 0).i32(1).op(OP.i32And);
  c.get(conv).simd(SIMD.i32x4ExtractLane, 2).i32(2).op(OP.i32And).op(OP.i32Or);
  return { name: 'pair', params, results: ['i32'], code: c };
}
