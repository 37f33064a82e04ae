/**
 * The vector work of the fast complex heev (ops/zheev.ts) in WebAssembly SIMD, for one order n:
 *
 * `rotate(z, cs, l, m)`: one implicit QL sweep's rotations (kernels/tridiagonal-ql.ts), i = m - 1
 * down to l, each on columns i and i + 1 of the real Z (column-major, ld = zLd(n): n rounded up to
 * even, the padding row zero), (c_i, s_i) at cs + 16 i. Two rows a vector; rows in blocks of up to
 * ROW_PAIRS vectors held in locals across the whole sweep (LAPACK's dlasr order: each row's running
 * element stays in a register, so a rotation costs one load and one store a vector).
 *
 * `back(a, tau, v)`: V := Q V = H(0) H(1) ... H(n-2) V (zunmtr's 'L', 'N' on all n columns), the
 * reflectors as kernels/zhetrd-lower.ts leaves them in a (complex interleaved, ld = n, v_i from row
 * i + 1 with 1 there), tau complex at tau + 16 i, V complex (ld = n). One f64x2 a complex number;
 * two columns a trip (one load of the reflector for both): s = v^H x as two lane-wise dot products
 * ([hr xr, hi xi] and [hr xi, hi xr]) summed across lanes at the end, then x -= (tau s) v with
 * (ur + i ui) h = splat(ur) [hr, hi] + splat(ui) [-hi, hr]. A zero tau leaves x as it is (u = 0).
 *
 * Addresses are byte addresses in the thread's memory (wasm/runtime.ts). Loops run at run time;
 * only the row blocks of `rotate` are unrolled, so the module's size grows with n / 16 only.
 */
import { swapNeg } from '../wasm/complex.js';
import { Code, encodeModule, type FunctionDef, type ValType } from '../wasm/emit.js';
import { OP, SIMD } from '../wasm/opcodes.js';

export interface ZheevWasmParams { readonly n: number }

/** Vectors of two rows held in locals per pass of `rotate`. */
const ROW_PAIRS = 8;
/** i8x16.shuffle lanes: the two float64 lanes swapped. */
const SWAP = [8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7];

/** Z's leading dimension: n rounded up to even (whole vectors of two rows). */
export const zLd = (n: number): number => n + (n & 1);

export function generateZheevWasm(p: ZheevWasmParams): Uint8Array<ArrayBuffer> {
  if (!(Number.isInteger(p.n) && p.n >= 1)) throw new Error(`zheev-wasm: n must be a positive integer, got ${p.n}`);
  return encodeModule([rotateFunction(p.n), backFunction(p.n)]);
}

function rotateFunction(n: number): FunctionDef {
  const params: ValType[] = ['i32', 'i32', 'i32', 'i32'];
  const c = new Code(params);
  const [Z, CS, L, M] = [0, 1, 2, 3];
  const colBytes = zLd(n) * 8;
  const pairs = zLd(n) / 2;
  const col = c.local('i32'), csp = c.local('i32'), cnt = c.local('i32');
  const cv = c.local('v128'), sv = c.local('v128'), u = c.local('v128');
  const x = Array.from({ length: Math.min(ROW_PAIRS, pairs) }, () => c.local('v128'));
  /** Pushes z + k colBytes for the i32 local k. */
  const column = (k: number): void => { c.get(Z).get(k).i32(colBytes).op(OP.i32Mul).op(OP.i32Add); };
  for (let p0 = 0; p0 < pairs; p0 += ROW_PAIRS) {
    const block = Math.min(ROW_PAIRS, pairs - p0);
    const off = (r: number): number => (p0 + r) * 16;
    column(M); c.set(col);
    for (let r = 0; r < block; r++) c.get(col).simdMem(SIMD.load, 3, off(r)).set(x[r]!);
    c.get(col).i32(colBytes).op(OP.i32Sub).set(col);
    c.get(CS).get(M).i32(16).op(OP.i32Mul).op(OP.i32Add).i32(16).op(OP.i32Sub).set(csp);
    c.get(M).get(L).op(OP.i32Sub).set(cnt);
    c.loop_(() => {
      c.get(csp).simdMem(SIMD.load64Splat, 3, 0).set(cv);
      c.get(csp).simdMem(SIMD.load64Splat, 3, 8).set(sv);
      for (let r = 0; r < block; r++) {
        const xr = x[r]!;
        c.get(col).simdMem(SIMD.load, 3, off(r)).set(u);
        // Z(:, i + 1) = s u + c x; x = c u - s x
        c.get(col);
        c.get(sv).get(u).simd(SIMD.f64x2Mul).get(cv).get(xr).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add);
        c.simdMem(SIMD.store, 3, off(r) + colBytes);
        c.get(cv).get(u).simd(SIMD.f64x2Mul).get(sv).get(xr).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub).set(xr);
      }
      c.get(col).i32(colBytes).op(OP.i32Sub).set(col);
      c.get(csp).i32(16).op(OP.i32Sub).set(csp);
      c.get(cnt).i32(1).op(OP.i32Sub).tee(cnt);
    });
    column(L); c.set(col);
    for (let r = 0; r < block; r++) { c.get(col).get(x[r]!).simdMem(SIMD.store, 3, off(r)); }
  }
  return { name: 'rotate', params, results: [], code: c };
}

function backFunction(n: number): FunctionDef {
  const params: ValType[] = ['i32', 'i32', 'i32'];
  const c = new Code(params);
  const [A, TAU, V] = [0, 1, 2];
  const colBytes = n * 16;
  const j = c.local('i32'), i = c.local('i32'), rows = c.local('i32');
  const hp = c.local('i32'), x0 = c.local('i32'), x1 = c.local('i32'), cnt = c.local('i32');
  const t = c.local('v128'), h = c.local('v128'), hs = c.local('v128'), y = c.local('v128');
  const acc = [c.local('v128'), c.local('v128'), c.local('v128'), c.local('v128')];
  const ur = [c.local('v128'), c.local('v128')], ui = [c.local('v128'), c.local('v128')];
  const sr = c.local('f64'), si = c.local('f64'), tr = c.local('f64'), ti = c.local('f64');
  const ptrs = [x0, x1];

  /** A run-time loop over the rows i + 1 .. n - 1 (`rows` of them, at least one): hp, x0, x1 step a row. */
  const overRows = (cols: 1 | 2, body: () => void): void => {
    c.get(A).get(i).i32(colBytes + 16).op(OP.i32Mul).op(OP.i32Add).i32(16).op(OP.i32Add).set(hp);
    for (let q = 0; q < cols; q++) c.get(V).get(j).i32(q).op(OP.i32Add).i32(colBytes).op(OP.i32Mul).op(OP.i32Add).get(i).i32(16).op(OP.i32Mul).op(OP.i32Add).i32(16).op(OP.i32Add).set(ptrs[q]!);
    c.get(rows).set(cnt);
    c.loop_(() => {
      body();
      c.get(hp).i32(16).op(OP.i32Add).set(hp);
      for (let q = 0; q < cols; q++) c.get(ptrs[q]!).i32(16).op(OP.i32Add).set(ptrs[q]!);
      c.get(cnt).i32(1).op(OP.i32Sub).tee(cnt);
    });
  };

  /** The reflectors on `cols` columns from column j. */
  const reflectAll = (cols: 1 | 2): void => {
    c.i32(n - 2).set(i);
    c.op(OP.block, OP.void).op(OP.loop, OP.void);
    c.get(i).i32(0).op(OP.i32LtS).op(OP.brIf, 1);
    c.i32(n - 1).get(i).op(OP.i32Sub).set(rows);
    c.get(TAU).get(i).i32(16).op(OP.i32Mul).op(OP.i32Add).simdMem(SIMD.load, 3, 0).set(t);
    for (const a of acc) c.f64x2(0).set(a);
    // s = v^H x: [sum hr xr, sum hi xi] and [sum hr xi, sum hi xr]
    overRows(cols, () => {
      c.get(hp).simdMem(SIMD.load, 3, 0).set(h);
      for (let q = 0; q < cols; q++) {
        c.get(ptrs[q]!).simdMem(SIMD.load, 3, 0).set(y);
        c.get(acc[2 * q]!).get(h).get(y).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add).set(acc[2 * q]!);
        c.get(acc[2 * q + 1]!).get(h).get(y).get(y).simd(SIMD.i8x16Shuffle, SWAP).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add).set(acc[2 * q + 1]!);
      }
    });
    c.get(t).simd(SIMD.f64x2ExtractLane, 0).set(tr);
    c.get(t).simd(SIMD.f64x2ExtractLane, 1).set(ti);
    for (let q = 0; q < cols; q++) {
      const a0 = acc[2 * q]!, a1 = acc[2 * q + 1]!;
      c.get(a0).simd(SIMD.f64x2ExtractLane, 0).get(a0).simd(SIMD.f64x2ExtractLane, 1).op(OP.f64Add).set(sr);
      c.get(a1).simd(SIMD.f64x2ExtractLane, 0).get(a1).simd(SIMD.f64x2ExtractLane, 1).op(OP.f64Sub).set(si);
      // u = tau s
      c.get(tr).get(sr).op(OP.f64Mul).get(ti).get(si).op(OP.f64Mul).op(OP.f64Sub).simd(SIMD.f64x2Splat).set(ur[q]!);
      c.get(tr).get(si).op(OP.f64Mul).get(ti).get(sr).op(OP.f64Mul).op(OP.f64Add).simd(SIMD.f64x2Splat).set(ui[q]!);
    }
    // x -= u h
    overRows(cols, () => {
      c.get(hp).simdMem(SIMD.load, 3, 0).set(h);
      swapNeg(c, h); c.set(hs);
      for (let q = 0; q < cols; q++) {
        c.get(ptrs[q]!);
        c.get(ptrs[q]!).simdMem(SIMD.load, 3, 0);
        c.get(ur[q]!).get(h).simd(SIMD.f64x2Mul).get(ui[q]!).get(hs).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add);
        c.simd(SIMD.f64x2Sub).simdMem(SIMD.store, 3, 0);
      }
    });
    c.get(i).i32(1).op(OP.i32Sub).set(i);
    c.op(OP.br, 0).op(OP.end).op(OP.end);
  };

  if (n >= 2) {
    const pairCount = n >> 1;
    c.i32(0).set(j);
    c.op(OP.block, OP.void).op(OP.loop, OP.void);
    c.get(j).i32(2 * pairCount).op(OP.i32GeS).op(OP.brIf, 1);
    reflectAll(2);
    c.get(j).i32(2).op(OP.i32Add).set(j);
    c.op(OP.br, 0).op(OP.end).op(OP.end);
    if (n & 1) {
      c.i32(n - 1).set(j);
      reflectAll(1);
    }
  }
  return { name: 'back', params, results: [], code: c };
}
