/**
 * Register prefetch of one k-step of the op(A) and op(B) tiles, shared by the tiled and the
 * tensor-core GEMM kernels: `fetch(p0)` loads element e = t, t + THREADS, ... of each tile into
 * the registers ra / rb (zeros outside the matrices), so the next k-step's global loads are in
 * flight while the current one multiplies from shared memory.
 */

/** How element `e` of a tile is found: its row and column, bounds test, global read, shared slot. */
export interface TileFetch {
  readonly r: string;
  readonly c: string;
  readonly ok: string;
  readonly at: string;
  readonly s: string;
}

/** The `fetch` lambda (expects LA, LB, THREADS, t, ra, rb in scope). */
export function registerFetch(fetchA: TileFetch, fetchB: TileFetch): string {
  return `  auto fetch = [&](int p0) {
    #pragma unroll
    for (int l = 0; l < LA; ++l) {
      const int e = t + l * THREADS, r = ${fetchA.r}, c = ${fetchA.c};
      ra[l] = ${fetchA.ok} ? ${fetchA.at} : real(0);
    }
    #pragma unroll
    for (int l = 0; l < LB; ++l) {
      const int e = t + l * THREADS, r = ${fetchB.r}, c = ${fetchB.c};
      rb[l] = ${fetchB.ok} ? ${fetchB.at} : real(0);
    }
  };`;
}
