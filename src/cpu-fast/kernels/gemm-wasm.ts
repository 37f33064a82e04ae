/**
 * Generated WebAssembly SIMD gemm for one (m, n, k, dtype, transB): C := alpha A op(B) + beta C on
 * matrices back to back in the module's memory, every one with its leading dimension equal to its
 * row count (A m x k, C m x n, B k x n or, for transB = 'T', n x k), so that operands the caller
 * already holds contiguously arrive by one block copy; only a large A may have a longer `lda`.
 * op(A) = A^T is packed by the driver.
 *
 * Register blocking as in the seed paper (section 4.1): an mr x nr micro-tile of C (rv vectors of
 * rows times nr columns) stays in v128 locals over the whole k loop; each loaded vector of A is
 * used nr times and each element of op(B), loaded as a splat, rv times. Tiles run column block by
 * column block (op(B)'s k x nr panel stays in L1) over row blocks of at most `rowBlock` rows (A's
 * block stays in L2). Columns whose length is not a whole number of vectors end in a partial
 * vector: its load reads the next column's first elements (lanes that are never stored: the
 * driver leaves a vector of slack after the operands), its store writes only the live lanes.
 *
 * Arithmetic: C(i, j) = alpha * (sum over l in order of A(i, l) op(B)(l, j)) [+ beta C(i, j)],
 * with a fused multiply-add when `fma` (relaxed SIMD, where the engine validates it), else a
 * multiply then an add. This is not the reference's order (it scales each term by alpha), so
 * results agree to rounding, not bitwise. beta = 0 never reads C.
 */
import type { DType } from '../../core/dtype.js';
import { byPrecision, dtypeInfo } from '../../core/dtype-table.js';
import type { Op } from '../../core/ops.js';
import { Code, encodeModule, type ValType } from '../wasm/emit.js';
import { OP, SIMD } from '../wasm/opcodes.js';

export interface GemmWasmParams {
  readonly m: number;
  readonly n: number;
  readonly k: number;
  readonly dtype: DType;
  readonly transB: Op;
  /** Vectors of rows (rv) and columns (nr) of the micro-tile: rv * nr accumulators. */
  readonly tile: { readonly rv: number; readonly nr: number };
  /** A's leading dimension in the kernel's memory (>= m; more than m only to break cache-set aliasing of a large A, ops/gemm.ts). */
  readonly lda: number;
  /** Rows of A kept in cache across the column blocks (a multiple of the tile's rows). */
  readonly rowBlock: number;
  /** k steps per trip of the k loop (k - 1 <= unroll runs fully unrolled); 1 is best on V8 (tuning.ts). */
  readonly unroll: number;
  /** f64x2/f32x4.relaxed_madd for the updates (only where WebAssembly.validate accepts it). */
  readonly fma: boolean;
  /**
   * Operands in place inside larger packed matrices (the blocked LU's trailing update,
   * ops/getrf-blocked.ts): B's and C's leading dimensions (default k, or n for transB 'T', and m)
   * and the elements from one matrix to the next (default lda k, k n, m n).
   */
  readonly ldb?: number;
  readonly ldc?: number;
  readonly strides?: { readonly a: number; readonly b: number; readonly c: number };
}

export const lanes = (dtype: DType): number => dtypeInfo(dtype).vectorLanes;

/** Exported `gemm(a, b, c, count, alpha, beta)`: byte addresses of the first A, B, C; alpha, beta as float64. */
export function generateGemmWasm(p: GemmWasmParams): Uint8Array<ArrayBuffer> {
  const { m, n, k, dtype, lda } = p;
  const E = dtypeInfo(dtype).bytes;
  const VL = lanes(dtype);
  const { rv: RV, nr: NR } = p.tile;
  const MR = RV * VL;
  // op(B)(l, j) at byte l * bRow + j * bCol
  const bRow = p.transB === 'N' ? E : (p.ldb ?? n) * E;
  const bCol = p.transB === 'N' ? (p.ldb ?? k) * E : E;
  const ldc = p.ldc ?? m;
  // demote: the opcode that takes a float64 scalar (alpha, beta) to the element type, if any
  const V = byPrecision(dtype, {
    double: { mul: SIMD.f64x2Mul, add: SIMD.f64x2Add, splat: SIMD.f64x2Splat, loadSplat: SIMD.load64Splat, madd: SIMD.f64x2RelaxedMadd, demote: undefined },
    single: { mul: SIMD.f32x4Mul, add: SIMD.f32x4Add, splat: SIMD.f32x4Splat, loadSplat: SIMD.load32Splat, madd: SIMD.f32x4RelaxedMadd, demote: OP.f32DemoteF64 },
  });

  const params: ValType[] = ['i32', 'i32', 'i32', 'i32', 'f64', 'f64'];
  const c = new Code(params);
  const [A, B, C, COUNT, ALPHA, BETA] = [0, 1, 2, 3, 4, 5];
  const beta0 = c.local('i32');
  const [valpha, vbeta] = [c.local('v128'), c.local('v128')];
  const a0 = c.local('i32'), c0 = c.local('i32'); // the row block's first row in A and C
  const bj = c.local('i32'), cj = c.local('i32'); // the column block's first column in op(B) and C
  const ai = c.local('i32'), ci = c.local('i32'); // the tile's first row in A and C
  const ap = c.local('i32'), bp = c.local('i32'); // the k loop's place in A and op(B)
  const blocks = c.local('i32'), jcount = c.local('i32'), icount = c.local('i32'), lcount = c.local('i32');
  const av = Array.from({ length: RV }, () => c.local('v128'));
  const bs = c.local('v128');
  const acc = Array.from({ length: RV * NR }, () => c.local('v128'));
  const accOf = (v: number, jj: number): number => acc[jj * RV + v]!;

  const addTo = (local: number, bytes: number): void => { c.get(local).i32(bytes).op(OP.i32Add).set(local); };
  const splatScalar = (local: number): void => {
    c.get(local);
    if (V.demote !== undefined) c.op(V.demote);
    c.simd(V.splat);
  };
  /** A counted loop (count > 0 known at generation time). */
  const repeat = (counter: number, count: number, body: () => void): void => {
    if (count === 1) return body();
    c.i32(count).set(counter);
    c.loop_(() => {
      body();
      c.get(counter).i32(1).op(OP.i32Sub).tee(counter);
    });
  };

  c.get(BETA).f64(0).op(OP.f64Eq).set(beta0);
  splatScalar(ALPHA); c.set(valpha);
  splatScalar(BETA); c.set(vbeta);

  /** One k step of a tile of rv vectors x nc columns: A at ap + aOff, op(B) at bp + bOff. */
  const step = (rv: number, nc: number, aOff: number, bOff: number, first: boolean): void => {
    for (let v = 0; v < rv; v++) c.get(ap).simdMem(SIMD.load, 0, aOff + v * VL * E).set(av[v]!);
    for (let jj = 0; jj < nc; jj++) {
      c.get(bp).simdMem(V.loadSplat, 0, bOff + jj * bCol).set(bs);
      for (let v = 0; v < rv; v++) {
        const t = accOf(v, jj);
        if (first) c.get(av[v]!).get(bs).simd(V.mul).set(t);
        else if (p.fma) c.get(av[v]!).get(bs).get(t).simd(V.madd).set(t);
        else c.get(t).get(av[v]!).get(bs).simd(V.mul).simd(V.add).set(t);
      }
    }
  };

  /** Stores the value on the stack (a v128) to C at ci + off, `live` lanes of it. */
  const storeC = (off: number, live: number): void => {
    const tmp = bs; // free after the k loop
    if (live === VL) return void c.set(tmp).get(ci).get(tmp).simdMem(SIMD.store, 0, off);
    c.set(tmp);
    const bytes = live * E;
    if (bytes >= 8) c.get(ci).get(tmp).simdMemLane(SIMD.store64Lane, 0, off, 0);
    if (bytes === 4) c.get(ci).get(tmp).simdMemLane(SIMD.store32Lane, 0, off, 0);
    if (bytes === 12) c.get(ci).get(tmp).simdMemLane(SIMD.store32Lane, 0, off + 8, 2);
  };

  /** One micro-tile: `rows` rows (rv vectors, the last maybe partial) x nc columns at ai / bj / ci. */
  const tile = (rows: number, nc: number): void => {
    const rv = Math.ceil(rows / VL);
    c.get(ai).set(ap);
    c.get(bj).set(bp);
    step(rv, nc, 0, 0, true);
    const rest = k - 1;
    if (rest > 0) {
      if (rest <= p.unroll) {
        for (let u = 0; u < rest; u++) step(rv, nc, (u + 1) * lda * E, (u + 1) * bRow, false);
      } else {
        addTo(ap, lda * E);
        addTo(bp, bRow);
        const trips = Math.floor(rest / p.unroll);
        repeat(lcount, trips, () => {
          for (let u = 0; u < p.unroll; u++) step(rv, nc, u * lda * E, u * bRow, false);
          addTo(ap, p.unroll * lda * E);
          addTo(bp, p.unroll * bRow);
        });
        for (let u = 0; u < rest - trips * p.unroll; u++) step(rv, nc, u * lda * E, u * bRow, false);
      }
    }
    // C := alpha acc (+ beta C)
    const epilogue = (withC: boolean): void => {
      for (let jj = 0; jj < nc; jj++) for (let v = 0; v < rv; v++) {
        const off = (jj * ldc + v * VL) * E;
        const live = Math.min(VL, rows - v * VL);
        if (!withC) c.get(accOf(v, jj)).get(valpha).simd(V.mul);
        else if (p.fma) c.get(ci).simdMem(SIMD.load, 0, off).get(vbeta).get(accOf(v, jj)).get(valpha).simd(V.mul).simd(V.madd);
        else c.get(accOf(v, jj)).get(valpha).simd(V.mul).get(ci).simdMem(SIMD.load, 0, off).get(vbeta).simd(V.mul).simd(V.add);
        storeC(off, live);
      }
    };
    c.get(beta0).if_(() => epilogue(false), () => epilogue(true));
  };

  /** A column block of nc columns over a row block of `rows` rows at a0 / c0, bj / cj set. */
  const columnBlock = (rows: number, nc: number): void => {
    const full = Math.floor(rows / MR);
    const restRows = rows - full * MR;
    c.get(a0).set(ai);
    c.get(cj).set(ci);
    if (full > 0) repeat(icount, full, () => {
      tile(MR, nc);
      addTo(ai, MR * E);
      addTo(ci, MR * E);
    });
    if (restRows > 0) tile(restRows, nc);
  };

  /** A row block of `rows` rows at a0 / c0: every column block. */
  const rowBlock = (rows: number): void => {
    const nb = Math.max(1, Math.min(NR, n));
    const full = Math.floor(n / nb);
    const restCols = n - full * nb;
    c.get(B).set(bj);
    c.get(c0).set(cj);
    repeat(jcount, full, () => {
      columnBlock(rows, nb);
      addTo(bj, nb * bCol);
      addTo(cj, nb * ldc * E);
    });
    if (restCols > 0) columnBlock(rows, restCols);
  };

  // per matrix: full row blocks in a loop, then the rest
  const MB = Math.max(MR, Math.floor(p.rowBlock / MR) * MR);
  const fullBlocks = Math.floor(m / MB);
  const restRows = m - fullBlocks * MB;
  c.loop_(() => {
    c.get(A).set(a0);
    c.get(C).set(c0);
    if (fullBlocks > 0) repeat(blocks, fullBlocks, () => {
      rowBlock(MB);
      addTo(a0, MB * E);
      addTo(c0, MB * E);
    });
    if (restRows > 0) rowBlock(restRows);
    addTo(A, (p.strides?.a ?? lda * k) * E);
    addTo(B, (p.strides?.b ?? k * n) * E);
    addTo(C, (p.strides?.c ?? m * n) * E);
    c.get(COUNT).i32(1).op(OP.i32Sub).tee(COUNT);
  });
  return encodeModule([{ name: 'gemm', params, results: [], code: c }]);
}
