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
