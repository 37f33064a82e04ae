/**
 * Where one kernel family hands over to the next, as named data (measured on a 2-core AMD EPYC,
 * Node 20; see BENCHMARKS.md). V8 stops optimising generated functions of tens of kilobytes:
 * unrolled Cholesky holds up to n = 16, unrolled LU (its swaps a switch) to about 10; above,
 * the WebAssembly LU (kernels/getrf-wasm.ts) takes over up to LU_WASM_MAX.
 */
export const UNROLL_MAX = Object.freeze({
  /** potrf/posv: the triangle in locals. */
  cholesky: 16,
  /** potrs alone (its solve is O(n^2): above 12 the unrolled loads cost more than they save, measured 0.7x the reference at 16). */
  potrs: 12,
  /** getrf/gesv/getrs: the matrix in locals. */
  lu: 10,
  /**
   * gemm: A in locals, one column of C at a time; WebAssembly above (measured: float64 JS wins to
   * n = 6 and loses 5x at 8; float32 JS pays a Math.fround per update and wins only to 3).
   */
  gemm: Object.freeze({ float64: 6, float32: 3 }),
  /** trsm/trmm: A's triangle in locals, one vector of B at a time (the triangle's order). */
  triangular: 16,
  /** syrk: C's triangle in locals. */
  syrk: 16,
  /** trtri/lauum/potri: the triangle in locals. */
  inverse: 16,
});

/** Packed A, B and C of one wasm gemm chunk: about half of a 512 KiB L2. */
export const GEMM_WASM_CHUNK_BYTES = 256 << 10;

/** getrf/gesv in WebAssembly (float64 working copy) up to this size; the reference above. */
export const LU_WASM_MAX = 512;

/** potrf/posv ('lower') in WebAssembly (float64 working copy) up to this size; the reference above and for 'upper'. */
export const CHOLESKY_WASM_MAX = 512;

/** trsm/trmm blocked over the fast gemm (recursive halving down to UNROLL_MAX.triangular) up to this order; the reference above. */
export const TRIANGULAR_BLOCKED_MAX = 1024;

/** syrk blocked over the fast gemm (recursive halving down to UNROLL_MAX.syrk) up to this order; the reference above. */
export const SYRK_BLOCKED_MAX = 1024;

/** trtri/lauum/potri blocked over the fast trmm, trsm and syrk down to UNROLL_MAX.inverse, up to this order; the reference above. */
export const INVERSE_BLOCKED_MAX = 1024;
