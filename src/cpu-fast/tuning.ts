/**
 * Where one kernel family hands over to the next, as named data (measured on a 2-core AMD EPYC,
 * Node 20; see BENCHMARKS.md). V8 stops optimising generated functions of tens of kilobytes, so
 * fully unrolled code stops at about n = 12 (issue 16's prototypes).
 */
export const UNROLL_MAX = Object.freeze({
  /** potrf/posv/potrs: the triangle in locals. */
  cholesky: 12,
  /** getrf/gesv/getrs: m * n scratch with constant indices. */
  lu: 12,
  /** gemm: C in locals, one column of op(B) at a time. */
  gemm: 8,
});

/** Packed A, B and C of one wasm gemm chunk: about half of a 512 KiB L2. */
export const GEMM_WASM_CHUNK_BYTES = 256 << 10;
