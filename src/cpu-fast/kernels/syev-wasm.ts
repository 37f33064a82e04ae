/**
 * The WebAssembly SIMD kernels of the fast real syev (ops/syev.ts), for one order n: `rotate`, the QL
 * sweep's rotations on Z (zheev-wasm.ts's, the same function), and the reduction:
 *
 * `reduce(a, tau, d, e, w) -> ok`: LAPACK's dsytd2 'L' on the lower triangle of A (float64,
 * column-major, ld = n): A = Q T Q^T with T symmetric tridiagonal (d and e float64 at d and e) and
 * Q = H(0) H(1) ... H(n-2), H(i) = I - tau_i v_i v_i^T, v_i zero above row i + 1, 1 at row i + 1
 * (implied: A(i + 1, i) is left holding e_i), the rest in A's column i below it; tau float64 at tau;
 * w a scratch of n float64. Step i is dlarfg on alpha = A(i+1, i), x = A(i+2:n, i): beta =
 * -sign(alpha) ||(alpha, x)||, tau = (beta - alpha) / beta, x := x / (alpha - beta), e_i = beta; tau = 0
 * where x is zero (e_i = alpha); then on the trailing block A22, w = tau A22 v, w -= (tau / 2)(w^T v) v,
 * A22 -= v w^T + w v^T (dsymv, ddot, daxpy, dsyr2; 4/3 n^3 flops). The norm is the square root of the
 * plain sum of squares: where that sum is below SSQ_MIN (and x not zero) it returns 0 and the caller
 * hands the matrix back (the caller scales A so that its largest entry is near 1), else 1.
 *
 * One f64x2 holds two consecutive rows of a column (unaligned where the range starts at an odd row);
 * a range of odd length ends with one row in lane 0 (load64_zero, store64_lane), through the same
 * code. dsymv's column pass makes both of its products at once: y(k) += a_kj v_j by splat(v_j) a,
 * and y(j) += sum a_kj v_k lane-wise, summed across lanes after the column. Addresses are byte
 * addresses in the thread's memory (wasm/runtime.ts); loops run at run time.
 */
import { Code, encodeModule, type FunctionDef, type ValType } from '../wasm/emit.js';
import { OP, SIMD } from '../wasm/opcodes.js';
import { rotateFunction, SSQ_MIN } from './zheev-wasm.js';

export interface SyevWasmParams { readonly n: number }

export function generateSyevWasm(p: SyevWasmParams): Uint8Array<ArrayBuffer> {
  if (!(Number.isInteger(p.n) && p.n >= 1)) throw new Error(`syev-wasm: n must be a positive integer, got ${p.n}`);
  return encodeModule([rotateFunction(p.n), reduceFunction(p.n)]);
}

/** How a row range's body reads and writes: two rows a vector, or the odd last row in lane 0. */
interface Rows {
  /** Pushes the vector at the address in local `ptr`. */
  load(ptr: number): void;
  /** Stores the vector `value` pushes at the address in local `ptr`. */
  store(ptr: number, value: () => void): void;
}

function pairRows(c: Code): Rows {
  return {
    load: (ptr) => { c.get(ptr).simdMem(SIMD.load, 3, 0); },
    store: (ptr, value) => { c.get(ptr); value(); c.simdMem(SIMD.store, 3, 0); },
  };
}

function laneRows(c: Code): Rows {
  return {
    load: (ptr) => { c.get(ptr).simdMem(SIMD.load64Zero, 3, 0); },
    store: (ptr, value) => { c.get(ptr); value(); c.simdMemLane(SIMD.store64Lane, 3, 0, 0); },
  };
}

/**
 * Rows `first` (pushes an i32 row index; pushed several times) to n - 1 of each pointer's column: the
 * pointers (locals) set to base + 8 first, then `body` a pair of rows at a time (the pointers
 * stepping by 16), then the odd last row alone. `cnt` is a scratch i32 local.
 */
function overRows(c: Code, n: number, cnt: number, first: () => void, ptrs: readonly (readonly [number, () => void])[], body: (rows: Rows) => void): void {
  for (const [ptr, base] of ptrs) { base(); first(); c.i32(8).op(OP.i32Mul).op(OP.i32Add).set(ptr); }
  c.i32(n); first(); c.op(OP.i32Sub).i32(1).op(OP.i32ShrU).set(cnt);
  c.op(OP.block, OP.void);
  c.get(cnt).op(OP.i32Eqz).op(OP.brIf, 0);
  c.loop_(() => {
    body(pairRows(c));
    for (const [ptr] of ptrs) c.get(ptr).i32(16).op(OP.i32Add).set(ptr);
    c.get(cnt).i32(1).op(OP.i32Sub).tee(cnt);
  });
  c.op(OP.end);
  c.i32(n); first(); c.op(OP.i32Sub).i32(1).op(OP.i32And);
  c.if_(() => body(laneRows(c)));
}

function reduceFunction(n: number): FunctionDef {
  const params: ValType[] = ['i32', 'i32', 'i32', 'i32', 'i32'];
  const c = new Code(params);
  const [A, TAU, D, E, W] = [0, 1, 2, 3, 4];
  const colBytes = n * 8;
  const i32 = (): number => c.local('i32'), f64 = (): number => c.local('f64'), v128 = (): number => c.local('v128');
  const i = i32(), j = i32(), cnt = i32(), col = i32(), cj = i32(), ap = i32(), vp = i32(), wp = i32(), ok = i32();
  const alpha = f64(), x2 = f64(), ssq = f64(), beta = f64(), t = f64(), s = f64();
  const acc = v128(), x = v128(), vj = v128(), wj = v128(), sv = v128();
  const sum = (v: number): void => { c.get(v).simd(SIMD.f64x2ExtractLane, 0).get(v).simd(SIMD.f64x2ExtractLane, 1).op(OP.f64Add); };
  const address = (base: number, index: number, bytes: number): void => { c.get(base).get(index).i32(bytes).op(OP.i32Mul).op(OP.i32Add); };
  const row = (k: number, plus: number) => (): void => { c.get(k).i32(plus).op(OP.i32Add); };
  /** Pushes a local (a column's or W's base address, a row index). */
  const local = (k: number) => (): void => { c.get(k); };

  c.i32(0).set(ok);
  c.op(OP.block, OP.void); // left with ok = 0
  c.i32(0).set(i);
  c.op(OP.block, OP.void).op(OP.loop, OP.void);
  c.get(i).i32(n - 1).op(OP.i32GeS).op(OP.brIf, 1);
  address(A, i, colBytes); c.set(col);
  // d[i] = a(i, i); alpha = a(i + 1, i)
  address(D, i, 8); address(col, i, 8); c.mem(OP.f64Load, 3, 0).mem(OP.f64Store, 3, 0);
  address(col, i, 8); c.mem(OP.f64Load, 3, 8).set(alpha);
  // x2 = ||x||^2 over rows i + 2 ..
  c.f64x2(0).set(acc);
  overRows(c, n, cnt, row(i, 2), [[ap, local(col)]], (r) => {
    r.load(ap); c.tee(x).get(x).simd(SIMD.f64x2Mul).get(acc).simd(SIMD.f64x2Add).set(acc);
  });
  sum(acc); c.set(x2);
  c.get(x2).f64(0).op(OP.f64Eq);
  c.if_(() => {
    address(E, i, 8); c.get(alpha).mem(OP.f64Store, 3, 0);
    address(TAU, i, 8); c.f64(0).mem(OP.f64Store, 3, 0);
  }, () => {
    c.get(alpha).get(alpha).op(OP.f64Mul).get(x2).op(OP.f64Add).tee(ssq);
    c.f64(SSQ_MIN).op(OP.f64Lt).op(OP.brIf, 3);
    // beta = -sign(alpha) sqrt(ssq); tau = (beta - alpha) / beta; x := x / (alpha - beta)
    c.f64(0).get(ssq).op(OP.f64Sqrt).op(OP.f64Sub).get(ssq).op(OP.f64Sqrt).get(alpha).f64(0).op(OP.f64Ge).op(OP.select).set(beta);
    address(TAU, i, 8); c.get(beta).get(alpha).op(OP.f64Sub).get(beta).op(OP.f64Div).mem(OP.f64Store, 3, 0);
    address(E, i, 8); c.get(beta).mem(OP.f64Store, 3, 0);
    c.f64(1).get(alpha).get(beta).op(OP.f64Sub).op(OP.f64Div).simd(SIMD.f64x2Splat).set(sv);
    overRows(c, n, cnt, row(i, 2), [[ap, local(col)]], (r) => {
      r.store(ap, () => { r.load(ap); c.get(sv).simd(SIMD.f64x2Mul); });
    });
  });
  // the trailing block only where tau is not zero
  address(TAU, i, 8); c.mem(OP.f64Load, 3, 0).tee(t).f64(0).op(OP.f64Ne);
  c.if_(() => {
    // v_{i+1} = 1 while the block is updated (e_i back after)
    address(col, i, 8); c.f64(1).mem(OP.f64Store, 3, 8);
    // y = 0 on rows i + 1 ..
    overRows(c, n, cnt, row(i, 1), [[wp, local(W)]], (r) => { r.store(wp, () => { c.f64x2(0); }); });
    // y = A22 v, column j = i + 1 .. n - 1
    c.get(i).i32(1).op(OP.i32Add).set(j);
    c.op(OP.block, OP.void).op(OP.loop, OP.void);
    c.get(j).i32(n).op(OP.i32GeS).op(OP.brIf, 1);
    address(A, j, colBytes); c.set(cj);
    address(col, j, 8); c.mem(OP.f64Load, 3, 0).set(s); // v_j
    c.get(s).simd(SIMD.f64x2Splat).set(vj);
    // y(j) += a_jj v_j
    address(W, j, 8); address(W, j, 8); c.mem(OP.f64Load, 3, 0); address(cj, j, 8); c.mem(OP.f64Load, 3, 0).get(s).op(OP.f64Mul).op(OP.f64Add).mem(OP.f64Store, 3, 0);
    c.f64x2(0).set(acc);
    overRows(c, n, cnt, row(j, 1), [[ap, local(cj)], [vp, local(col)], [wp, local(W)]], (r) => {
      r.load(ap); c.set(x);
      // y(k) += a_kj v_j
      r.store(wp, () => { r.load(wp); c.get(x).get(vj).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add); });
      // sum a_kj v_k, lane-wise
      c.get(acc).get(x); r.load(vp); c.simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add).set(acc);
    });
    address(W, j, 8); address(W, j, 8); c.mem(OP.f64Load, 3, 0); sum(acc); c.op(OP.f64Add).mem(OP.f64Store, 3, 0);
    c.get(j).i32(1).op(OP.i32Add).set(j);
    c.op(OP.br, 0).op(OP.end).op(OP.end);
    // w = tau y, dot = w^T v
    c.get(t).simd(SIMD.f64x2Splat).set(sv);
    c.f64x2(0).set(acc);
    overRows(c, n, cnt, row(i, 1), [[wp, local(W)], [vp, local(col)]], (r) => {
      r.load(wp); c.get(sv).simd(SIMD.f64x2Mul).set(x);
      r.store(wp, () => { c.get(x); });
      c.get(acc).get(x); r.load(vp); c.simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add).set(acc);
    });
    // w += -(tau / 2) dot v
    c.f64(-0.5).get(t).op(OP.f64Mul); sum(acc); c.op(OP.f64Mul).simd(SIMD.f64x2Splat).set(sv);
    overRows(c, n, cnt, row(i, 1), [[wp, local(W)], [vp, local(col)]], (r) => {
      r.store(wp, () => { r.load(wp); r.load(vp); c.get(sv).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Add); });
    });
    // A22 -= v w^T + w v^T, column j = i + 1 .. n - 1 (rows j ..)
    c.get(i).i32(1).op(OP.i32Add).set(j);
    c.op(OP.block, OP.void).op(OP.loop, OP.void);
    c.get(j).i32(n).op(OP.i32GeS).op(OP.brIf, 1);
    address(A, j, colBytes); c.set(cj);
    address(col, j, 8); c.simdMem(SIMD.load64Splat, 3, 0).set(vj);
    address(W, j, 8); c.simdMem(SIMD.load64Splat, 3, 0).set(wj);
    overRows(c, n, cnt, local(j), [[ap, local(cj)], [vp, local(col)], [wp, local(W)]], (r) => {
      r.store(ap, () => {
        r.load(ap);
        r.load(vp); c.get(wj).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub);
        r.load(wp); c.get(vj).simd(SIMD.f64x2Mul).simd(SIMD.f64x2Sub);
      });
    });
    c.get(j).i32(1).op(OP.i32Add).set(j);
    c.op(OP.br, 0).op(OP.end).op(OP.end);
    // A(i + 1, i) = e_i (T's subdiagonal, as dsytd2 leaves it)
    address(col, i, 8); address(E, i, 8); c.mem(OP.f64Load, 3, 0).mem(OP.f64Store, 3, 8);
  });
  c.get(i).i32(1).op(OP.i32Add).set(i);
  c.op(OP.br, 0).op(OP.end).op(OP.end);
  // d[n - 1]
  c.get(D).get(A).i32((n - 1) * (colBytes + 8)).op(OP.i32Add).mem(OP.f64Load, 3, 0).mem(OP.f64Store, 3, (n - 1) * 8);
  c.i32(1).set(ok);
  c.op(OP.end);
  c.get(ok);
  return { name: 'reduce', params, results: ['i32'], code: c };
}
