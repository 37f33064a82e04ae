/**
 * What the complex heev's two kernels (generate-reduce.ts, generate-store.ts) share: the prelude
 * (float64 arithmetic, the data's element types), the complex slice's layout and the CUDA text that
 * names both slices' parts.
 *
 * Per matrix, two slices of float64 elements in the chunk's workspace (the chunk's real slices
 * first, one after another, then its complex slices):
 * - the real slice, the tridiag family's `steinSlice(n)`: d, e (and d_{n-1} in Z's last element),
 *   hdr, lam, V, Wt and the factors, as its values and vectors kernels read and write them; Z's
 *   other elements unused; Wt and the first factor (2 n^2 elements, free once the vectors kernel
 *   has run) hold the complex eigenvectors during the back-transformation;
 * - the complex slice (`complexSlice`): C, n x n pairs (re, im) with ld n, the working matrix of
 *   the reduction, then the reflectors' tails below the subdiagonal; then tau, n pairs.
 * Pairs in the workspace are read and written as two reals: a slice may start at an odd element.
 */
import type { DType } from '../../../core/dtype.js';
import { pairWorkspacePrelude, PAIR_WORKSPACE_COMPUTE } from '../common/pair-workspace.js';
import { steinSlice } from '../tridiag/index.js';

/** The arithmetic of both kernels (and the workspace's element), whatever the data's dtype. */
export const ZHEEV_COMPUTE = PAIR_WORKSPACE_COMPUTE;

/** The complex slice: C (2 n^2 reals) then tau (2 n reals). */
export interface ComplexSlice {
  readonly tau: number;
  readonly slice: number;
}

export function complexSlice(n: number): ComplexSlice {
  return { tau: 2 * n * n, slice: 2 * n * n + 2 * n };
}

/** Power-of-two scaling range: C's largest part is brought into [2^-RANGE, 2^RANGE] (the real design's). */
export const ZHEEV_RANGE = 250;

/**
 * The kernels' opening lines: float64 `real` and `real2`, the data's pair `io2` and part `io` (for
 * complex64 data a float pair), NaN, the pair helpers on workspace reals, N and T, the slices' sizes.
 */
export function zheevPrelude(dtype: DType, n: number, threads: number): string {
  return `${pairWorkspacePrelude(dtype)}
constexpr int N = ${n};
constexpr int T = ${threads};
constexpr long long SLICE = ${steinSlice(n).slice};    // float64 elements of a real slice (tridiag's steinSlice)
constexpr long long CSLICE = ${complexSlice(n).slice};   // float64 elements of a complex slice`;
}

/** CUDA text: this block's slices (`Z` real, `C` complex) and their parts, matrix `blockIdx.x` of the chunk. */
export function slicePointers(n: number): string {
  const l = steinSlice(n);
  return `  real* Z = work + (long long)blockIdx.x * SLICE;     // the real slice (tridiag's layout)
  real* C = cwork + (long long)blockIdx.x * CSLICE;   // the complex slice: C (pairs, ld N), then tau
  real* ctau = C + ${complexSlice(n).tau};
  real* sd = Z + ${l.d};
  real* se = Z + ${l.e};
  int* hdr = (int*)(Z + ${l.hdr});   // [2] failed (NaN or Inf), [3] the scale, [9] an eigenvector not converged
  real* lam = Z + ${l.lam};
  const real* V = Z + ${l.v};
  real* Vc = Z + ${l.wt};   // the complex eigenvectors, 2 N^2 reals over Wt and the first factor
`;
}
