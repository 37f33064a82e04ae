/**
 * Generated WebAssembly SIMD gemm for one (m, n, k, dtype): C := alpha A B + beta C on packed
 * matrices in the module's memory (A m_p x k and C m_p x n with m_p = m rounded up to whole
 * vectors, B k x n, all column-major, matrices back to back; the driver packs op(A), op(B), so
 * transposes cost nothing here).
 *
 * Register blocking as in the seed paper (section 4.1): a block of up to ROW_VECTORS vectors of
 * C's rows times NJ columns stays in registers over the whole k loop; each loaded vector of A is
 * used NJ times and each element of B, splatted, ROW_VECTORS times. The arithmetic per element
 * is reference dgemm's ('N': C := beta C, then C += (alpha B(l, j)) A(i, l) for l in order), so
 * float64 results equal the reference's; float32 rounds each product (SIMD) where the reference
 * rounds only the sums. beta = 0 never reads C.
 */
import type { DType } from '../../core/dtype.js';
import { Code, OP, SIMD, encodeModule, type ValType } from '../wasm/emit.js';

export interface GemmWasmParams {
  readonly m: number;
  readonly n: number;
  readonly k: number;
  readonly dtype: DType;
}

/** Vectors of C's rows in one register block, and the accumulator budget (V8 uses 16 xmm registers: 8 accumulators, 4 of A, B's splat, spare). */
export const ROW_VECTORS = 4;
const ACCUMULATORS = 8;

export const lanes = (dtype: DType): number => (dtype === 'float64' ? 2 : 4);
export const paddedRows = (m: number, dtype: DType): number => Math.ceil(m / lanes(dtype)) * lanes(dtype);

/** Exported `gemm(a, b, c, count, alpha, beta)`: byte addresses of the packed batches. */
export function generateGemmWasm(p: GemmWasmParams): Uint8Array<ArrayBuffer> {
  const { m, n, k, dtype } = p;
  const E = dtype === 'float64' ? 8 : 4;
  const VL = lanes(dtype);
  const mp = paddedRows(m, dtype);
  const RV = mp / VL;
  const f64 = dtype === 'float64';
  const params: ValType[] = ['i32', 'i32', 'i32', 'i32', 'f64', 'f64'];
  const c = new Code(params);
  const [A, B, C, COUNT, ALPHA, BETA] = [0, 1, 2, 3, 4, 5];
  const mode = c.local('i32'); // 0: beta = 0, 1: beta = 1, 2: other
  const vbeta = c.local('v128');
  const bj = c.local('i32');
  const cj = c.local('i32');
  const al = c.local('i32');
  const bl = c.local('i32');
  const jcount = c.local('i32');
  const lcount = c.local('i32');
  const t = c.local('v128');
  const av = Array.from({ length: ROW_VECTORS }, () => c.local('v128'));
  const acc = Array.from({ length: ACCUMULATORS }, () => c.local('v128'));

  const mul = f64 ? SIMD.f64x2Mul : SIMD.f32x4Mul;
  const add = f64 ? SIMD.f64x2Add : SIMD.f32x4Add;
  const splat = f64 ? SIMD.f64x2Splat : SIMD.f32x4Splat;

  // mode and beta splat, once per call
  c.get(BETA).f64(0).op(OP.f64Eq).if_(() => c.i32(0).set(mode), () => {
    c.get(BETA).f64(1).op(OP.f64Eq).if_(() => c.i32(1).set(mode), () => c.i32(2).set(mode));
  });
  c.get(BETA);
  if (!f64) c.op(OP.f32DemoteF64);
  c.simd(splat).set(vbeta);

  /** One register block: rows [v0, v0 + rv) vectors, nj columns from the pointers bj, cj. */
  const block = (v0: number, rv: number, nj: number): void => {
    const accOf = (v: number, jj: number): number => acc[jj * rv + v]!;
    // acc := beta C (dgemm's scaling of C's column, never reading C when beta = 0)
    c.get(mode).op(OP.i32Eqz).if_(() => {
      for (let jj = 0; jj < nj; jj++) for (let v = 0; v < rv; v++) c.simd(0x0c, ...new Array(16).fill(0)).set(accOf(v, jj));
    }, () => {
      for (let jj = 0; jj < nj; jj++) for (let v = 0; v < rv; v++) c.get(cj).simdMem(SIMD.load, 4, ((jj * mp) + (v0 + v) * VL) * E).set(accOf(v, jj));
      c.get(mode).i32(2).op(0x46).if_(() => {
        for (let jj = 0; jj < nj; jj++) for (let v = 0; v < rv; v++) c.get(accOf(v, jj)).get(vbeta).simd(mul).set(accOf(v, jj));
      });
    });
    // the k loop: A's vectors loaded once per l, B(l, j) splatted once per l
    c.get(A).i32((v0 * VL) * E).op(OP.i32Add).set(al);
    c.get(bj).set(bl);
    c.i32(k).set(lcount);
    c.loop_(() => {
      for (let v = 0; v < rv; v++) c.get(al).simdMem(SIMD.load, 4, v * VL * E).set(av[v]!);
      for (let jj = 0; jj < nj; jj++) {
        c.get(bl).mem(f64 ? OP.f64Load : OP.f32Load, f64 ? 3 : 2, jj * k * E);
        if (!f64) c.op(0xbb); // f64.promote_f32: t = alpha * B(l, j) in float64, as the reference
        c.get(ALPHA).op(OP.f64Mul);
        if (!f64) c.op(OP.f32DemoteF64);
        c.simd(splat).set(t);
        for (let v = 0; v < rv; v++) c.get(accOf(v, jj)).get(av[v]!).get(t).simd(mul).simd(add).set(accOf(v, jj));
      }
      c.get(al).i32(mp * E).op(OP.i32Add).set(al);
      c.get(bl).i32(E).op(OP.i32Add).set(bl);
      c.get(lcount).i32(1).op(OP.i32Sub).tee(lcount);
    });
    for (let jj = 0; jj < nj; jj++) for (let v = 0; v < rv; v++) c.get(cj).get(accOf(v, jj)).simdMem(SIMD.store, 4, ((jj * mp) + (v0 + v) * VL) * E);
  };

  // per matrix
  c.loop_(() => {
    for (let v0 = 0; v0 < RV; v0 += ROW_VECTORS) {
      const rv = Math.min(ROW_VECTORS, RV - v0);
      const nj = Math.max(1, Math.min(n, Math.floor(ACCUMULATORS / rv)));
      const full = Math.floor(n / nj);
      const rest = n - full * nj;
      c.get(B).set(bj);
      c.get(C).set(cj);
      c.i32(full).set(jcount);
      c.loop_(() => {
        block(v0, rv, nj);
        c.get(bj).i32(nj * k * E).op(OP.i32Add).set(bj);
        c.get(cj).i32(nj * mp * E).op(OP.i32Add).set(cj);
        c.get(jcount).i32(1).op(OP.i32Sub).tee(jcount);
      });
      if (rest > 0) block(v0, rv, rest);
    }
    c.get(A).i32(mp * k * E).op(OP.i32Add).set(A);
    c.get(B).i32(k * n * E).op(OP.i32Add).set(B);
    c.get(C).i32(mp * n * E).op(OP.i32Add).set(C);
    c.get(COUNT).i32(1).op(OP.i32Sub).tee(COUNT);
  });
  return encodeModule([{ name: 'gemm', params, results: [], code: c }]);
}
