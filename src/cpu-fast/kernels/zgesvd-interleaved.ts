/**
 * Generated WebAssembly SIMD one-sided Jacobi sweeps of the complex SVD for one shape, two pairs of
 * matrices side by side (wasm/pair.ts: one f64x2 the real parts of the same element of a pair,
 * another their imaginary parts; the second pair's arithmetic fills the first's division and
 * square-root latencies). G (m x n, m >= n: A, or A^H for a wide A) lies as float64 pairs (ld = m,
 * back to back), V (n x n, ld = n) likewise after them where it is accumulated, one int32 a quad.
 *
 * The reference's algorithm (src/cpu/complex/zgesvd.ts gesvdMatrixComplex), within rounding: its
 * order of pairs (p, q), its test |g_p^H g_q| > sqrt(m) eps sqrt(alpha) sqrt(beta) (alpha, beta
 * the columns' squared norms; |.| scaled by the larger part, as Math.hypot), its Hermitian rotation
 * (zrotation.ts: t from cot(2 theta) = (beta - alpha) / (2 |g|), c = 1 / sqrt(1 + t^2)), its
 * sweep limit jacobiSweeps(n). What differs, for the multiplies (the kernel is bound by them):
 * - the rotation is applied scaled (Rutishauser's and LAPACK dgsvj0's fast rotations): a column is
 *   held as its scale times the stored one, x = dp x', y = dq y', and the rotation
 *   x := c (x - t conj(e) y), y := c (y + t e x) becomes x' := x' - A y', y' := y' + B x' with
 *   A = t (dq / dp) conj(e), B = t (dp / dq) e and dp, dq := c dp, c dq: 8 multiplies a row of G
 *   and of V where the plain form takes 12. The scales are held squared (A and B need only dp^2
 *   and dq^2, and c^2 = 1 / (1 + t^2) takes no square root); a column is multiplied by its scale
 *   and the scale reset to 1 where its square falls below RESCALE_BELOW at a sweep's start (c >=
 *   1 / sqrt(2): a scale falls by at most 2^(-n / 2) a sweep), and every column after the last;
 * - alpha and beta are not summed for each pair but tracked: summed at each sweep's start (the
 *   reference's order), then alpha - t |g| and beta + t |g| after a rotation (the rotated block's
 *   diagonal), and summed again where an update falls below NORM_REFRESH of its value (cancelling).
 *   A sweep that rotates nothing (the one that ends it) tests on freshly summed norms, as the
 *   reference does; only g_p^H g_q is summed for each pair;
 * - the test and the rotation on |g|^2 where the lanes' squared norms allow (SQUARES_MIN ...
 *   SQUARES_MAX): |g|^2 > tol^2 alpha beta, and t / |g| = sign(e) / (|e| + sqrt(e^2 + |g|^2)) with
 *   e = (beta - alpha) / 2, the same t: the chain from the Gram sums to the rotation, which nothing
 *   else hides (the next pair's sums need the rotated columns), takes one square root and one
 *   division where the reference's form takes four of each (that chain was about 35% of the
 *   sweeps' time at 16). A pair with a lane outside that range calls `mixed`, which computes both
 *   forms and keeps each lane's own (the reference's form there by quotients, as the reference
 *   computes it: |g| may lie below 2^-1024, where a reciprocal overflows).
 * Where only one of the two pairs rotates (late sweeps), only its rows are rotated.
 * Each lane rotates only where its own test passes (A = B = 0 and its scales unchanged elsewhere);
 * a pair is skipped where no lane rotates. A lane whose sweep rotates nothing has converged: every
 * later sweep finds the same columns and rotates nothing either, so sweeping on until the other
 * lanes converge (or the limit) leaves it as it was. The data must be finite (the driver checks)
 * and scaled as the reference scales it.
 *
 * The result: bit 2g + l set where lane l of pair g converged. The norms, the sort and the
 * normalisation of U are the driver's (ops/zgesvd-wasm.ts).
 *
 * Loops: sweeps, p and q at run time, the rows of a column too (two a trip): unrolled whole, the
 * Gram sums spilled (TurboFan hoists every load above them) and the module grows with m + n.
 */
import { jacobiSweeps, REORTHOGONALIZE_ABOVE } from '../../core/algorithms.js';
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

/** G's columns (min(m, n) of A) at most: above, the reference reorthogonalizes V, which these sweeps do not. */
export const ZGESVD_INTERLEAVED_MAX_COLUMNS = REORTHOGONALIZE_ABOVE;

const EPS = 2 ** -52;
/** Rows of the Gram sums a loop trip. */
const GRAM_ROWS = 2;
/** Rows of the rotations a loop trip. */
const ROT_ROWS = 2;

/**
 * A column's tracked squared norm may fall to this fraction of its value before the update
 * (alpha - t |g| cancelling) before it is recomputed from the column: its relative error stays
 * within about 1 / NORM_REFRESH ulps an update.
 */
const NORM_REFRESH = 2 ** -6;

/**
 * Where a lane's squared column norms lie in [SQUARES_MIN, SQUARES_MAX], its test and its
 * rotation work on |g|^2 (fastTest, fastRotation): then tol^2 alpha beta >= 2^-904 m and |g|^2,
 * where it passes, is normal; the stored columns' |g'|^2 <= alpha beta / (Dp Dq) stays below
 * 2^902 (the squared scales D >= RESCALE_BELOW 2^(1 - n) >= 2^-151) and e^2 + |g|^2 below 2^601. Elsewhere
 * (strongly graded columns, a zero column, columns near 2^-500 or 2^500, which the driver does not
 * scale) the scaled hypot of the reference's form, by quotients (rotationEmitters' rotation).
 */
const SQUARES_MIN = 2 ** -400;
const SQUARES_MAX = 2 ** 300;

/**
 * A column is multiplied by its scale at a sweep's start only where its squared scale D has fallen
 * below this (D falls by at most 2^(1 - n) a sweep: c^2 >= 1/2), and after the last sweep: the
 * squared norms at a sweep's start are D times the stored column's, and the pass over G and V that
 * multiplied every column each sweep is left out (1-2% of the kernel at 16 x 16).
 */
const RESCALE_BELOW = 2 ** -120;

/**
 * Bytes of one pair's scratch: G's pair split, V's where accumulated, then the columns' squared
 * norms and their scales (a v128 each).
 */
const groupScratch = (p: ZgesvdInterleavedParams): number => (p.m * p.n + (p.vectors ? p.n * p.n : 0)) * PAIR_SLOT + 2 * p.n * 16;

/** Bytes of the kernel's scratch (16-byte aligned): two pairs'. */
export const zgesvdInterleavedScratch = (p: ZgesvdInterleavedParams): number => 2 * groupScratch(p);

/**
 * Exported `zgesvd4(g, v, ok, quads, scratch)`: byte addresses of the first G, the first V and the
 * int32 results, the number of quads (matrices 4t ... 4t + 3: two pairs swept side by side, so
 * that one pair's rotation arithmetic overlaps the other's), a scratch of
 * zgesvdInterleavedScratch(p) bytes (16-byte aligned); `quad(g0, g1, g2, g3, v0, v1, v2, v3,
 * scratch) -> bits` for four matrices anywhere (bits 0 ... 3), and `pair(g0, g1, v0, v1, scratch) ->
 * bits` for two (g0 = g1 and v0 = v1 work on one matrix). G is overwritten with the rotated
 * columns, V with the product of the rotations (p.vectors; else v is not touched).
 */
export function generateZgesvdInterleaved(p: ZgesvdInterleavedParams): Uint8Array<ArrayBuffer> {
  if (!(p.n >= 1 && p.m >= p.n)) throw new Error(`zgesvd-interleaved: needs m >= n >= 1, got ${p.m} x ${p.n}`);
  return encodeModule([mainFunction(p), sweepFunction(p, 2, 'quad'), sweepFunction(p, 1, 'pair'), mixedFunction(p)]);
}
const QUAD = 1, MIXED = 3;

/** The batch loop over quads: quad(g, g + G, g + 2G, g + 3G, v, ..., scratch) stored at ok, one int32 a quad. */
function mainFunction(p: ZgesvdInterleavedParams): FunctionDef {
  return pairBatchFunction('zgesvd4', p.m * p.n * PAIR_E, p.vectors ? p.n * p.n * PAIR_E : 0, QUAD, 4);
}

/** One pair's values in a function's v128 locals (or parameters). */
interface Lanes {
  readonly alpha: number; readonly beta: number; readonly gr: number; readonly gi: number; readonly gamma: number; readonly rot: number;
  readonly conv: number; readonly t: number; readonly cs: number; readonly ar: number; readonly ai: number; readonly br: number;
  readonly bi: number; readonly zeta: number; readonly az: number; readonly sign: number; readonly dp: number; readonly dq: number;
  readonly gs: number; readonly squares: number;
}

/**
 * A pair's test and rotation parameters, emitted on c for G's m rows: the reference's forms (test,
 * rotation: dp, dq the plain scales) and the squared ones (fastTest, fastRotation: dp, dq the
 * squared scales). Each reads and writes only the given Lanes' locals.
 */
function rotationEmitters(c: Code, m: number) {
  const mul = (a: number, b: number): void => { c.get(a).get(b).simd(SIMD.f64x2Mul); };
  const select = (a: () => void, b: () => void, mask: number): void => { a(); b(); c.get(mask).simd(SIMD.v128Bitselect); };
  /**
   * The rotation of pair g's lanes, scaled: with columns x = dp x', y = dq y' (x', y' stored), the
   * rotation x := c (x - t conj(e) y), y := c (y + t e x) is x' := x' - A y', y' := y' + B x' with
   * A = t (dq / dp) conj(e), B = t (dp / dq) e, and the scales dp, dq := c dp, c dq: 8 multiplies a
   * row where the plain rotation takes 12. Zero A, B and unchanged scales in a lane that does not rotate.
   *
   * Quotients throughout (as the reference's zrotation.ts), never a reciprocal of |g| or of the
   * larger part of g': `mixed` runs this form exactly where a lane's squared norms leave
   * [SQUARES_MIN, SQUARES_MAX], and there |g| can lie below 2^-1024, where a reciprocal overflows.
   * The test passes down to |g| > tol sqrt(alpha) sqrt(beta): near 2^-1050 for columns near 2^-500
   * (the driver, like the reference, scales a matrix only where its largest part leaves
   * [2^-500, 2^500]: squared norms near 2^-1000, and rounding leaves g' about eps of them), and
   * down to |g| > 0 beside a column whose squared norm underflows to 0. There 1 / |g| was Infinity
   * and t |g| Infinity or NaN: NaN values and vectors with info 0, or no convergence. Here
   * zeta = Infinity gives t = 0 (the lane's columns unchanged), and A and B are products of
   * bounded factors.
   */
  const rotation = (l: Lanes): void => {
    const { alpha, beta, gr, gi, gamma, rot, conv, t, cs, ar, ai, br, bi, zeta, az, sign, dp, dq, gs } = l;
    c.get(conv).get(rot).simd(SIMD.v128AndNot).set(conv);
    // zeta = (beta - alpha) / (2 |g|); t = sign / (|zeta| + sqrt(1 + zeta^2)), or sign / (2 |zeta|) above 1e150
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
    // the diagonal's change t |g| (the columns' squared norms become alpha - t |g| and beta + t |g|)
    mul(t, gamma); c.set(zeta);
    // c = 1 / sqrt(1 + t^2); with e = g' / |g'| (g' the stored columns' product, gs = |g'| from
    // test): B = t (dp / dq) e, A = t (dq / dp) conj(e), every factor bounded (|e| = 1 to rounding,
    // t <= 1, the scales' ratio within 2^(+-76): their squares within [2^-151, 1])
    c.f64x2(1).f64x2(1); mul(t, t); c.simd(SIMD.f64x2Add).simd(SIMD.f64x2Sqrt).simd(SIMD.f64x2Div).set(cs);
    c.get(gr).get(gs).simd(SIMD.f64x2Div).set(ar);
    c.get(gi).get(gs).simd(SIMD.f64x2Div).set(ai);
    mul(t, dp); c.get(dq).simd(SIMD.f64x2Div).set(az);
    select(() => mul(az, ar), () => c.f64x2(0), rot); c.set(br);
    select(() => mul(az, ai), () => c.f64x2(0), rot); c.set(bi);
    mul(t, dq); c.get(dp).simd(SIMD.f64x2Div).set(az);
    select(() => mul(az, ar), () => c.f64x2(0), rot); c.set(ar);
    select(() => { mul(az, ai); c.simd(SIMD.f64x2Neg); }, () => c.f64x2(0), rot); c.set(ai);
    select(() => mul(cs, dp), () => c.get(dp), rot); c.set(dp);
    select(() => mul(cs, dq), () => c.get(dq), rot); c.set(dq);
  };

  /** A pair's test, any squared norms: gamma = |g| by the scaled hypot, rot where gamma > tol sqrt(alpha) sqrt(beta). */
  const test = (l: Lanes): void => {
    const { alpha, beta, gr, gi, gamma, rot, t, ar, ai, dp, dq, gs } = l;
    // |g'| = mx sqrt((|gr| / mx)^2 + (|gi| / mx)^2) (no overflow or underflow in the squares;
    // NaN where mx = 0), by quotients (mx may lie below 2^-1024: see rotation); |g| = dp dq |g'|
    c.get(gr).simd(SIMD.f64x2Abs).set(ar);
    c.get(gi).simd(SIMD.f64x2Abs).set(ai);
    c.get(ar).get(ai).simd(SIMD.f64x2Pmax).set(t);
    c.get(ar).get(t).simd(SIMD.f64x2Div).set(ar);
    c.get(ai).get(t).simd(SIMD.f64x2Div).set(ai);
    mul(ar, ar); mul(ai, ai); c.simd(SIMD.f64x2Add).simd(SIMD.f64x2Sqrt).get(t).simd(SIMD.f64x2Mul).set(gs);
    mul(dp, dq); c.get(gs).simd(SIMD.f64x2Mul).set(gamma);
    // rotate where gamma > tol sqrt(alpha) sqrt(beta) (false where gamma is 0 / 0 = NaN: mx = 0)
    c.get(gamma).f64x2(Math.sqrt(m) * EPS).get(alpha).simd(SIMD.f64x2Sqrt).simd(SIMD.f64x2Mul).get(beta).simd(SIMD.f64x2Sqrt).simd(SIMD.f64x2Mul)
      .simd(SIMD.f64x2Gt).set(rot);
  };

  /**
   * A pair's test where its squared norms lie in [SQUARES_MIN, SQUARES_MAX], squared: gamma :=
   * |g|^2 = (gr^2 + gi^2) (dp dq)^2, rot where |g|^2 > tol^2 alpha beta (no square root, no
   * division: the start of the chain from the Gram sums to the rotation, which no other work hides).
   */
  const fastTest = (l: Lanes): void => {
    const { alpha, beta, gr, gi, gamma, rot, dp, dq } = l;
    mul(gr, gr); mul(gi, gi); c.simd(SIMD.f64x2Add); mul(dp, dq); c.simd(SIMD.f64x2Mul).set(gamma);
    c.get(gamma).f64x2(m * EPS * EPS).get(alpha).simd(SIMD.f64x2Mul).get(beta).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Gt).set(rot);
  };

  /**
   * rotation's results from fastTest's gamma = |g|^2, with no |g|: with e = (beta - alpha) / 2,
   * t = sign(e) |g| / (|e| + sqrt(e^2 + |g|^2)) (the same t), so h = t / |g| =
   * sign(e) / (|e| + sqrt(e^2 + |g|^2)), t |g| = h |g|^2 and t^2 = h (h |g|^2): one square root and
   * one division from the Gram sums to A and B, where the plain form takes two of each after |g|.
   */
  const fastRotation = (l: Lanes): void => {
    const { alpha, beta, gr, gi, gamma, rot, conv, t, cs, ar, ai, br, bi, zeta, az, dp, dq } = l;
    c.get(conv).get(rot).simd(SIMD.v128AndNot).set(conv);
    c.get(beta).get(alpha).simd(SIMD.f64x2Sub).f64x2(0.5).simd(SIMD.f64x2Mul).set(zeta);
    // h: 1 / (|e| + sqrt(e^2 + |g|^2)) with e's sign (e = +0 gives +1, as the reference's zeta >= 0)
    c.f64x2(1).get(zeta).simd(SIMD.f64x2Abs); mul(zeta, zeta); c.get(gamma).simd(SIMD.f64x2Add).simd(SIMD.f64x2Sqrt).simd(SIMD.f64x2Add)
      .simd(SIMD.f64x2Div).get(zeta).f64x2(-0).simd(SIMD.v128And).simd(SIMD.v128Or).set(t);
    // B = h dp^2 g', A = h dq^2 conj(g'); zero where the lane does not rotate (rot's bits)
    c.get(t).get(dp).simd(SIMD.f64x2Mul).get(rot).simd(SIMD.v128And).set(az);
    mul(az, gr); c.set(br);
    mul(az, gi); c.set(bi);
    c.get(t).get(dq).simd(SIMD.f64x2Mul).get(rot).simd(SIMD.v128And).set(az);
    mul(az, gr); c.set(ar);
    mul(az, gi); c.simd(SIMD.f64x2Neg).set(ai);
    // the diagonal's change t |g| = h |g|^2; the squared scales times c^2 = 1 / (1 + t^2)
    mul(t, gamma); c.set(zeta);
    c.f64x2(1).f64x2(1); mul(t, zeta); c.simd(SIMD.f64x2Add).simd(SIMD.f64x2Div).set(cs);
    select(() => mul(cs, dp), () => c.get(dp), rot); c.set(dp);
    select(() => mul(cs, dq), () => c.get(dq), rot); c.set(dq);
  };

  return { rotation, test, fastTest, fastRotation };
}

/**
 * Exported `mixed(alpha, beta, gr, gi, dp, dq, squares) -> (rot, ar, ai, br, bi, zeta, dp, dq)`
 * (v128 each; dp, dq the squared scales): one pair's test and rotation where some lane's squared
 * norms lie outside [SQUARES_MIN, SQUARES_MAX] (`squares` clear there): both forms, each lane keeping
 * its own (a lane's results never depend on the other's). A function of its own, rarely called: its
 * locals stay out of the sweeps' register allocation.
 */
function mixedFunction(p: ZgesvdInterleavedParams): FunctionDef {
  const params: ValType[] = Array.from({ length: 7 }, () => 'v128');
  const c = new Code(params);
  const v = (): number => c.local('v128');
  const { rotation, test, fastTest, fastRotation } = rotationEmitters(c, p.m);
  const l: Lanes = {
    alpha: 0, beta: 1, gr: 2, gi: 3, dp: 4, dq: 5, squares: 6,
    gamma: v(), rot: v(), conv: v(), t: v(), cs: v(), ar: v(), ai: v(), br: v(), bi: v(), zeta: v(), az: v(), sign: v(), gs: v(),
  };
  const sl: Lanes = {
    ...l, gamma: v(), rot: v(), conv: v(), t: v(), cs: v(), ar: v(), ai: v(), br: v(), bi: v(), zeta: v(), az: v(), sign: v(), dp: v(), dq: v(), gs: v(),
  };
  /** l's k := l's k where its squares are in range, else sl's. */
  const merge = (keys: readonly (keyof Lanes)[]): void => {
    for (const k of keys) { c.get(l[k]).get(sl[k]).get(l.squares).simd(SIMD.v128Bitselect).set(l[k]); }
  };
  c.get(l.dp).simd(SIMD.f64x2Sqrt).set(sl.dp);
  c.get(l.dq).simd(SIMD.f64x2Sqrt).set(sl.dq);
  test(sl);
  fastTest(l);
  merge(['rot']);
  c.get(l.rot).set(sl.rot);
  rotation(sl);
  c.get(sl.dp).get(sl.dp).simd(SIMD.f64x2Mul).set(sl.dp);
  c.get(sl.dq).get(sl.dq).simd(SIMD.f64x2Mul).set(sl.dq);
  fastRotation(l);
  merge(['ar', 'ai', 'br', 'bi', 'zeta', 'dp', 'dq']);
  for (const k of MIXED_RESULTS) c.get(l[k]);
  return { name: 'mixed', params, results: MIXED_RESULTS.map(() => 'v128'), code: c };
}
const MIXED_RESULTS = ['rot', 'ar', 'ai', 'br', 'bi', 'zeta', 'dp', 'dq'] as const;

/** The sweeps of `groups` pairs side by side: (g..., v..., scratch) -> bits. */
function sweepFunction(p: ZgesvdInterleavedParams, groups: 1 | 2, name: string): FunctionDef {
  const { m, n, vectors } = p;
  const count = 2 * groups;
  const params: ValType[] = Array.from({ length: 2 * count + 1 }, () => 'i32');
  const c = new Code(params);
  const Gs = Array.from({ length: count }, (_, q) => q), Vs = Array.from({ length: count }, (_, q) => count + q), SCR = 2 * count;
  const { load, store, loop, select, copyPair } = pairEmitters(c);
  const v = (): number => c.local('v128');
  const i32 = (): number => c.local('i32');
  const pp = i32(), qp = i32(), rp = i32(), rq = i32(), np = i32(), nq = i32(), nBase = i32(), vp = i32(), vq = i32(), pLeft = i32(), qLeft = i32(), sweeps = i32(), base = i32(), vBase = i32(), squared = i32();
  /** Each pair's own values; the pointers are shared, a pair's data `groupBytes` after the last one's. */
  const L: Lanes[] = Array.from({ length: groups }, () => ({
    alpha: v(), beta: v(), gr: v(), gi: v(), gamma: v(), rot: v(), conv: v(),
    t: v(), cs: v(), ar: v(), ai: v(), br: v(), bi: v(), zeta: v(), az: v(), sign: v(), dp: v(), dq: v(), gs: v(), squares: v(),
  }));
  const { fastTest, fastRotation } = rotationEmitters(c, m);
  const xr = v(), xi = v(), yr = v(), yi = v();
  const mul = (a: number, b: number): void => { c.get(a).get(b).simd(SIMD.f64x2Mul); };
  // the norms at nOffset, the scales DOFF after them
  const groupBytes = groupScratch(p), vOffset = m * n * PAIR_SLOT, nOffset = groupBytes - 2 * n * 16, DOFF = n * 16;
  const colG = m * PAIR_SLOT, colV = n * PAIR_SLOT;

  /** [x y] := [x - A y, y + B x] over `rows` split elements from pointers px, py, for every pair (the scaled rotation). */
  const rotate = (px0: number, py0: number, rows: number, gs: readonly number[]): void => {
    const trips = Math.floor(rows / ROT_ROWS);
    if (trips > 0) loop(trips, [[rp, () => c.get(px0), ROT_ROWS * PAIR_SLOT], [rq, () => c.get(py0), ROT_ROWS * PAIR_SLOT]], () => {
      for (let i = 0; i < ROT_ROWS; i++) rotateRow(rp, rq, i, gs);
    });
    else { c.get(px0).set(rp); c.get(py0).set(rq); }
    for (let i = 0; i < rows % ROT_ROWS; i++) rotateRow(rp, rq, i, gs);
  };
  const rotateRow = (px: number, py: number, i: number, gs: readonly number[]): void => {
    for (const g of gs) {
      const { ar, ai, br, bi } = L[g]!;
      const o = i * PAIR_SLOT + g * groupBytes;
      load(px, o); c.set(xr);
      load(px, o + 16); c.set(xi);
      load(py, o); c.set(yr);
      load(py, o + 16); c.set(yi);
      store(px, o, () => { c.get(xr); mul(ar, yr); mul(ai, yi); c.simd(SIMD.f64x2Sub).simd(SIMD.f64x2Sub); });
      store(px, o + 16, () => { c.get(xi); mul(ar, yi); mul(ai, yr); c.simd(SIMD.f64x2Add).simd(SIMD.f64x2Sub); });
      store(py, o, () => { c.get(yr); mul(br, xr); mul(bi, xi); c.simd(SIMD.f64x2Sub).simd(SIMD.f64x2Add); });
      store(py, o + 16, () => { c.get(yi); mul(br, xi); mul(bi, xr); c.simd(SIMD.f64x2Add).simd(SIMD.f64x2Add); });
    }
  };

  /** Row i (from pointers px, py) of pair g into its Gram sums. */
  const gramRow = (px: number, py: number, i: number, g: number): void => {
    {
      const { gr, gi } = L[g]!;
      const o = i * PAIR_SLOT + g * groupBytes;
      load(px, o); c.set(xr);
      load(px, o + 16); c.set(xi);
      load(py, o); c.set(yr);
      load(py, o + 16); c.set(yi);
      c.get(gr); mul(xr, yr); mul(xi, yi); c.simd(SIMD.f64x2Add).simd(SIMD.f64x2Add).set(gr);
      c.get(gi); mul(xr, yi); mul(xi, yr); c.simd(SIMD.f64x2Sub).simd(SIMD.f64x2Add).set(gi);
    }
  };

  /** Pushes the squared norm of pair g's column at pointer col (the reference's order: row by row, re^2 + im^2). */
  const columnNorm = (col: number, g: number): void => {
    const { t } = L[g]!;
    c.f64x2(0).set(t);
    const row = (i: number): void => {
      const o = i * PAIR_SLOT + g * groupBytes;
      load(rp, o); c.set(xr);
      load(rp, o + 16); c.set(xi);
      c.get(t); mul(xr, xr); mul(xi, xi); c.simd(SIMD.f64x2Add).simd(SIMD.f64x2Add).set(t);
    };
    const trips = Math.floor(m / GRAM_ROWS);
    if (trips > 0) loop(trips, [[rp, () => c.get(col), GRAM_ROWS * PAIR_SLOT]], () => { for (let i = 0; i < GRAM_ROWS; i++) row(i); });
    else c.get(col).set(rp);
    for (let i = 0; i < m % GRAM_ROWS; i++) row(i);
    c.get(t);
  };

  /**
   * Pair g's scales, and its tracked squared norms after its rotation: alpha - t |g| and beta + t |g|
   * where it rotated; both recomputed from the columns (dp^2 ||x'||^2, dq^2 ||y'||^2) where either
   * fell below NORM_REFRESH of its value.
   */
  const updateNorms = (g: number): void => {
    const { alpha, beta, rot, zeta, t, dp, dq } = L[g]!;
    store(np, g * groupBytes + DOFF, () => c.get(dp));
    store(nq, g * groupBytes + DOFF, () => c.get(dq));
    select(() => c.get(alpha).get(zeta).simd(SIMD.f64x2Sub), () => c.get(alpha), rot); c.set(xr);
    select(() => c.get(beta).get(zeta).simd(SIMD.f64x2Add), () => c.get(beta), rot); c.set(xi);
    store(np, g * groupBytes, () => c.get(xr));
    store(nq, g * groupBytes, () => c.get(xi));
    c.get(alpha).f64x2(NORM_REFRESH).simd(SIMD.f64x2Mul).get(xr).simd(SIMD.f64x2Gt);
    c.get(beta).f64x2(NORM_REFRESH).simd(SIMD.f64x2Mul).get(xi).simd(SIMD.f64x2Gt).simd(SIMD.v128Or);
    c.simd(SIMD.v128AnyTrue).if_(() => {
      columnNorm(pp, g); c.get(dp).simd(SIMD.f64x2Mul).set(t);
      store(np, g * groupBytes, () => c.get(t));
      columnNorm(qp, g); c.get(dq).simd(SIMD.f64x2Mul).set(t);
      store(nq, g * groupBytes, () => c.get(t));
    });
  };

  /** Multiplies `rows` split elements from pointer col of pair g by its local d. */
  const scaleColumn = (col: number, rows: number, g: number, d: number): void => {
    loop(rows, [[rp, () => c.get(col), PAIR_SLOT]], () => {
      for (const off of [0, 16]) store(rp, g * groupBytes + off, () => { load(rp, g * groupBytes + off); c.get(d).simd(SIMD.f64x2Mul); });
    });
  };

  /**
   * At a sweep's start: the squared norms afresh (D ||x'||^2), and the columns (G's and V's) whose
   * squared scale D fell below RESCALE_BELOW multiplied by their scale sqrt(D) (D then 1). After the
   * last sweep (`last`): every column with D != 1 so multiplied, no norms.
   */
  const rescale = (last: boolean): void => {
    loop(n, [[pp, () => c.get(SCR), colG], [vp, () => c.get(vBase), colV], [np, () => c.get(nBase), 16]], () => {
      for (let g = 0; g < groups; g++) {
        const { dp, alpha } = L[g]!;
        load(np, g * groupBytes + DOFF); c.set(dp);
        if (last) c.get(dp).f64x2(1).simd(SIMD.f64x2Ne);
        else c.f64x2(RESCALE_BELOW).get(dp).simd(SIMD.f64x2Gt);
        c.simd(SIMD.v128AnyTrue).if_(() => {
          c.get(dp).simd(SIMD.f64x2Sqrt).set(alpha);
          scaleColumn(pp, m, g, alpha);
          if (vectors) scaleColumn(vp, n, g, alpha);
          store(np, g * groupBytes + DOFF, () => c.f64x2(1));
          c.f64x2(1).set(dp);
        });
        if (!last) {
          columnNorm(pp, g); c.get(dp).simd(SIMD.f64x2Mul).set(alpha);
          store(np, g * groupBytes, () => c.get(alpha));
        }
      }
    }, pLeft);
  };

  /** Pair (p, q) at pp, qp (G) and vp, vq (V), in every pair of matrices. */
  const pairStep = (): void => {
    L.forEach(({ alpha, beta, gr, gi, dp, dq }, g) => {
      load(np, g * groupBytes); c.set(alpha);
      load(nq, g * groupBytes); c.set(beta);
      load(np, g * groupBytes + DOFF); c.set(dp);
      load(nq, g * groupBytes + DOFF); c.set(dq);
      c.f64x2(0).set(gr);
      c.f64x2(0).set(gi);
    });
    // The Gram sums, a pair at a time, in a runtime loop of GRAM_ROWS rows a trip: unrolled whole,
    // TurboFan hoists every load above the sums (no store between them) and spills them; both
    // pairs in one loop spill their eight sums.
    const trips = Math.floor(m / GRAM_ROWS);
    for (let g = 0; g < groups; g++) {
      if (trips > 0) loop(trips, [[rp, () => c.get(pp), GRAM_ROWS * PAIR_SLOT], [rq, () => c.get(qp), GRAM_ROWS * PAIR_SLOT]], () => {
        for (let i = 0; i < GRAM_ROWS; i++) gramRow(rp, rq, i, g);
      });
      else { c.get(pp).set(rp); c.get(qp).set(rq); }
      for (let i = 0; i < m % GRAM_ROWS; i++) gramRow(rp, rq, i, g);
    }
    // the lanes whose squared norms lie within [SQUARES_MIN, SQUARES_MAX] take the squared forms
    // (fastTest, fastRotation); where some do not, every lane computes both and keeps its own (a
    // lane's results never depend on the other lanes')
    for (let g = 0; g < groups; g++) {
      const { alpha, beta, squares } = L[g]!;
      c.get(alpha).f64x2(SQUARES_MIN).simd(SIMD.f64x2Ge).f64x2(SQUARES_MAX).get(alpha).simd(SIMD.f64x2Ge).simd(SIMD.v128And);
      c.get(beta).f64x2(SQUARES_MIN).simd(SIMD.f64x2Ge).simd(SIMD.v128And).f64x2(SQUARES_MAX).get(beta).simd(SIMD.f64x2Ge).simd(SIMD.v128And);
      c.tee(squares);
      if (g > 0) c.simd(SIMD.v128And);
    }
    c.simd(SIMD.i64x2AllTrue).set(squared);
    c.get(squared).if_(() => { for (const l of L) fastTest(l); }, () => {
      for (const l of L) {
        c.get(l.alpha).get(l.beta).get(l.gr).get(l.gi).get(l.dp).get(l.dq).get(l.squares).op(OP.call, MIXED);
        for (const k of [...MIXED_RESULTS].reverse()) c.set(l[k]);
        c.get(l.conv).get(l.rot).simd(SIMD.v128AndNot).set(l.conv);
      }
    });
    c.get(L[0]!.rot);
    for (let g = 1; g < groups; g++) c.get(L[g]!.rot).simd(SIMD.v128Or);
    c.simd(SIMD.v128AnyTrue).if_(() => {
      c.get(squared).if_(() => { for (const l of L) fastRotation(l); });
      // G's and V's rows, of both pairs where both rotate, else of the one that does (late sweeps)
      const rotateAll = (gs: readonly number[]): void => { rotate(pp, qp, m, gs); if (vectors) rotate(vp, vq, n, gs); };
      if (groups === 1) rotateAll([0]);
      else {
        c.get(L[0]!.rot).simd(SIMD.v128AnyTrue).get(L[1]!.rot).simd(SIMD.v128AnyTrue).op(OP.i32And).if_(() => rotateAll([0, 1]), () => {
          c.get(L[0]!.rot).simd(SIMD.v128AnyTrue).if_(() => rotateAll([0]), () => rotateAll([1]));
        });
      }
      for (let g = 0; g < groups; g++) updateNorms(g);
    });
  };

  for (let g = 0; g < groups; g++) {
    c.get(SCR).i32(g * groupBytes).op(OP.i32Add).set(base);
    copyPair(true, Gs[2 * g]!, Gs[2 * g + 1]!, base, m, n);
  }
  c.get(SCR).i32(vOffset).op(OP.i32Add).set(vBase);
  c.get(SCR).i32(nOffset).op(OP.i32Add).set(nBase);
  if (vectors) {
    // V := I
    loop(n, [[vp, () => c.get(vBase), colV]], () => {
      for (let g = 0; g < groups; g++) for (let i = 0; i < 2 * n; i++) store(vp, g * groupBytes + i * 16, () => c.f64x2(0));
    });
    loop(n, [[vp, () => c.get(vBase), colV + PAIR_SLOT]], () => { for (let g = 0; g < groups; g++) store(vp, g * groupBytes, () => c.f64x2(1)); });
  }
  for (const { conv } of L) c.i64x2(-1).set(conv);
  if (n > 1) {
    // the scales 1
    loop(n, [[np, () => c.get(nBase), 16]], () => { for (let g = 0; g < groups; g++) store(np, g * groupBytes + DOFF, () => c.f64x2(1)); });
    c.i32(0).set(sweeps);
    c.loop_(() => {
      for (const { conv } of L) c.i64x2(-1).set(conv);
      // the scales into the columns and the squared norms afresh each sweep (a sweep that rotates
      // nothing decides on exact ones)
      rescale(false);
      loop(n - 1, [[pp, () => c.get(SCR), colG], [vp, () => c.get(vBase), colV], [np, () => c.get(nBase), 16]], () => {
        c.get(pp).i32(colG).op(OP.i32Add).set(qp);
        c.get(vp).i32(colV).op(OP.i32Add).set(vq);
        c.get(np).i32(16).op(OP.i32Add).set(nq);
        c.get(pLeft).set(qLeft);
        c.loop_(() => {
          pairStep();
          c.get(qp).i32(colG).op(OP.i32Add).set(qp);
          c.get(vq).i32(colV).op(OP.i32Add).set(vq);
          c.get(nq).i32(16).op(OP.i32Add).set(nq);
          c.get(qLeft).i32(1).op(OP.i32Sub).tee(qLeft);
        });
      }, pLeft);
      // again while a lane rotated and the limit is not reached
      c.get(sweeps).i32(1).op(OP.i32Add).tee(sweeps).i32(jacobiSweeps(n)).op(OP.i32LtS);
      c.get(L[0]!.conv);
      for (let g = 1; g < groups; g++) c.get(L[g]!.conv).simd(SIMD.v128And);
      c.simd(SIMD.i64x2AllTrue).op(OP.i32Eqz).op(OP.i32And);
    });
    // the scales into the columns (after the sweep limit a sweep may have rotated)
    rescale(true);
  }
  for (let g = 0; g < groups; g++) {
    c.get(SCR).i32(g * groupBytes).op(OP.i32Add).set(base);
    copyPair(false, Gs[2 * g]!, Gs[2 * g + 1]!, base, m, n);
    if (vectors) {
      c.get(base).i32(vOffset).op(OP.i32Add).set(vBase);
      copyPair(false, Vs[2 * g]!, Vs[2 * g + 1]!, vBase, n, n);
    }
  }
  // bit 2g + lane: that matrix converged
  c.i32(0);
  for (let g = 0; g < groups; g++) {
    c.get(L[g]!.conv).simd(SIMD.i32x4ExtractLane, 0).i32(1 << (2 * g)).op(OP.i32And).op(OP.i32Or);
    c.get(L[g]!.conv).simd(SIMD.i32x4ExtractLane, 2).i32(2 << (2 * g)).op(OP.i32And).op(OP.i32Or);
  }
  return { name, params, results: ['i32'], code: c };
}
