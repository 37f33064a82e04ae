/**
 * Generated WebAssembly SIMD complex gemm for one shape m x n x k and pair of operations:
 * C := alpha op(A) op(B) + beta C on complex matrices back to back in the module's memory as
 * float64 pairs (complex64 is widened by the driver's copy in and rounded once by its copy out,
 * as the reference computes in float64 and rounds on store). Every operand is packed with its
 * leading dimension equal to its row count: A is m x k ('N') or k x m, B k x n ('N') or n x k,
 * C m x n; op() is applied here, by addressing and signs.
 *
 * One f64x2 holds one complex number (re, im). The arithmetic is the complex reference's
 * (src/cpu/complex/zgemm.ts) lane by lane, so results are bitwise the reference's: its
 *   tr += xr yr - xi yi;  ti += xr yi + xi yr
 * is acc + (splat(xr) [yr, yi] + splat(xi) [-yi, yr]), as x - y is x + (-y) exactly and
 * -(u v) = u (-v) exactly; a conjugated A's xi = -A.im is folded into the second vector
 * (splat(A.im) [yi, -yr]), a conjugated B's into both. Each dot starts at +0 and adds its k
 * products in ascending l; then z = splat(ar) t + splat(ai) [-ti, tr] and, unless beta is
 * zero (C never read), z + (splat(br) c + splat(bi) [-ci, cr]). No fused multiply-add.
 * alpha = 0 and k = 0 are the caller's (the reference's quick paths).
 *
 * Per matrix and step of `cols` columns of C, those columns of op(B) sit in 2k v128 locals each
 * ([yr, yi] and the multiplier of the imaginary splat); C is computed in blocks of `rows` x
 * `cols` elements, each element's own accumulator adding its k products before the next block
 * (tuning.ts complexGemmWasmBlock: 1 x 1 measured best). Each element of op(A) is loaded as two
 * splats (re, im) per use.
 */
import type { ComplexOp } from '../../core/op-specs.js';
import { Code, encodeModule, type ValType } from '../wasm/emit.js';
import { OP, SIMD } from '../wasm/opcodes.js';
import { swapNeg, swapNegHi } from './zarith-wasm.js';

export interface ZgemmWasmParams {
  readonly m: number;
  readonly n: number;
  readonly k: number;
  readonly transA: ComplexOp;
  readonly transB: ComplexOp;
  readonly betaZero: boolean;
  /** Columns of C per step: each splat of op(A) serves this many columns. */
  readonly cols: number;
  /** Rows of C per block (each with `cols` accumulators, independent chains of adds). */
  readonly rows: number;
}

const E = 16; // bytes of one complex128

/** Exported `zgemm(a, b, c, count, ar, ai, br, bi)`: byte addresses of the first A, B, C. */
export function generateZgemmWasm(p: ZgemmWasmParams): Uint8Array<ArrayBuffer> {
  const { m, n, k, transA, transB } = p;
  const params: ValType[] = ['i32', 'i32', 'i32', 'i32', 'f64', 'f64', 'f64', 'f64'];
  const c = new Code(params);
  const [A, B, C, COUNT, AR, AI, BR, BI] = [0, 1, 2, 3, 4, 5, 6, 7];
  const [var_, vai, vbr, vbi] = [c.local('v128'), c.local('v128'), c.local('v128'), c.local('v128')];
  const bp = c.local('i32'), cp = c.local('i32'), jcount = c.local('i32');
  const W = Math.max(1, Math.min(p.cols, n));
  // y[t][l] = [yr, yi] of op(B)(l, j + t); s[t][l] the vector that multiplies splat(A.im)
  const y = Array.from({ length: W }, () => Array.from({ length: k }, () => c.local('v128')));
  const s = Array.from({ length: W }, () => Array.from({ length: k }, () => c.local('v128')));
  const R = Math.max(1, Math.min(p.rows, m));
  const xr = Array.from({ length: R }, () => c.local('v128')), xi = Array.from({ length: R }, () => c.local('v128'));
  const tmp = c.local('v128');
  const acc = Array.from({ length: R }, () => Array.from({ length: W }, () => c.local('v128')));

  // op(A)(i, l) at byte (i aRow + l aCol) E from the matrix's A; op(B)(l, j) at l bRow + j bCol
  const aRows = transA === 'N' ? m : k;
  const bRows = transB === 'N' ? k : n;
  const [aRow, aCol] = transA === 'N' ? [1, m] : [k, 1];
  const [bRow, bCol] = transB === 'N' ? [1, k] : [bRows, 1];
  const aStride = aRows * (transA === 'N' ? k : m) * E;
  const bStride = k * n * E;
  const cStride = m * n * E;

  c.get(AR).simd(SIMD.f64x2Splat).set(var_);
  c.get(AI).simd(SIMD.f64x2Splat).set(vai);
  c.get(BR).simd(SIMD.f64x2Splat).set(vbr);
  c.get(BI).simd(SIMD.f64x2Splat).set(vbi);

  /** Columns j .. j + w - 1 of C at bp (op(B)'s column j) and cp (C's column j). */
  const step = (w: number): void => {
    for (let t = 0; t < w; t++) for (let l = 0; l < k; l++) {
      const yl = y[t]![l]!, sl = s[t]![l]!;
      c.get(bp).simdMem(SIMD.load, 0, (l * bRow + t * bCol) * E);
      // a conjugated B: yi = -B.im
      if (transB === 'C') c.f64x2(1, -1).simd(SIMD.f64x2Mul);
      c.set(yl);
      // the multiplier of splat(xi): [-yi, yr], or of splat(A.im) for a conjugated A: [yi, -yr]
      if (transA === 'C') swapNegHi(c, yl);
      else swapNeg(c, yl);
      c.set(sl);
    }
    for (let i0 = 0; i0 < m; i0 += R) {
      const h = Math.min(R, m - i0);
      for (let u = 0; u < h; u++) for (let t = 0; t < w; t++) c.f64x2(0).set(acc[u]![t]!);
      for (let l = 0; l < k; l++) {
        for (let u = 0; u < h; u++) {
          const off = ((i0 + u) * aRow + l * aCol) * E;
          c.get(A).simdMem(SIMD.load64Splat, 0, off).set(xr[u]!);
          c.get(A).simdMem(SIMD.load64Splat, 0, off + 8).set(xi[u]!);
        }
        for (let u = 0; u < h; u++) for (let t = 0; t < w; t++) {
          const a = acc[u]![t]!;
          c.get(a);
          c.get(xr[u]!).get(y[t]![l]!).simd(SIMD.f64x2Mul);
          c.get(xi[u]!).get(s[t]![l]!).simd(SIMD.f64x2Mul);
          c.simd(SIMD.f64x2Add).simd(SIMD.f64x2Add).set(a);
        }
      }
      for (let u = 0; u < h; u++) for (let t = 0; t < w; t++) {
        const a = acc[u]![t]!;
        const off = (t * m + i0 + u) * E;
        c.get(cp);
        c.get(var_).get(a).simd(SIMD.f64x2Mul);
        c.get(vai); swapNeg(c, a); c.simd(SIMD.f64x2Mul);
        c.simd(SIMD.f64x2Add);
        if (!p.betaZero) {
          c.get(cp).simdMem(SIMD.load, 0, off).set(tmp);
          c.get(vbr).get(tmp).simd(SIMD.f64x2Mul);
          c.get(vbi); swapNeg(c, tmp); c.simd(SIMD.f64x2Mul);
          c.simd(SIMD.f64x2Add).simd(SIMD.f64x2Add);
        }
        c.simdMem(SIMD.store, 0, off);
      }
    }
  };

  const full = Math.floor(n / W);
  const rest = n - full * W;
  c.loop_(() => {
    c.get(B).set(bp);
    c.get(C).set(cp);
    const body = (): void => {
      step(W);
      c.get(bp).i32(W * bCol * E).op(OP.i32Add).set(bp);
      c.get(cp).i32(W * m * E).op(OP.i32Add).set(cp);
    };
    if (full === 1) body();
    else {
      c.i32(full).set(jcount);
      c.loop_(() => {
        body();
        c.get(jcount).i32(1).op(OP.i32Sub).tee(jcount);
      });
    }
    if (rest > 0) step(rest);
    c.get(A).i32(aStride).op(OP.i32Add).set(A);
    c.get(B).i32(bStride).op(OP.i32Add).set(B);
    c.get(C).i32(cStride).op(OP.i32Add).set(C);
    c.get(COUNT).i32(1).op(OP.i32Sub).tee(COUNT);
  });
  return encodeModule([{ name: 'zgemm', params, results: [], code: c }]);
}
