/**
 * What the complex bidiagonalization gesvd's kernels share: the prelude, the complex slice's layout
 * and the CUDA text that names the three slices' parts.
 *
 * Per matrix, three slices of float64 elements in the chunk's workspace (the chunk's complex slices
 * first, so that every complex part starts at an even element and the complex unmqr can view it as
 * complex128 pairs; then its tridiag slices; then its bidiag slices):
 * - the complex slice (`zbidiagSlice`), pairs (re, im):
 *   W      M x K, ld M   G, then zgebd2's left reflectors: H_i's tail below the diagonal of column i
 *   UB     M x K, ld M   U_B (real, from the bidiag slice) as pairs; Q_B [U_B; 0] after unmqr
 *   VB     K x K, ld K   V_B as pairs; P_B V_B after unmqr
 *   PM     K x K, ld K   G_i's vector u_i's tail as column i (rows i+2 ... K-1): unmqr's storage for rows 1 ... K-1
 *   tauq, taup  K each   the reflectors' scalars
 * - the tridiag family's `steinSlice(2K)`: the Golub-Kahan tridiagonal of the real bidiagonal B, hdr,
 *   lam and the eigenvectors, as the real bidiagonalization design has them;
 * - the bidiag family's `bidiagSlice(M, K)`: its vectors kernel's U_B, V_B and sig (its W, PM and
 *   scalars unused here).
 */
import type { DType } from '../../../core/dtype.js';
import { bidiagSlice } from '../bidiag/index.js';
import { pairWorkspacePrelude, PAIR_WORKSPACE_COMPUTE } from '../common/pair-workspace.js';
import { steinSlice } from '../tridiag/index.js';

/** The arithmetic of every kernel (and the workspace's element), whatever the data's dtype. */
export const ZBIDIAG_COMPUTE = PAIR_WORKSPACE_COMPUTE;

/** Offsets (float64 elements) of the complex slice's parts; every one even. */
export interface ZbidiagSlice {
  readonly w: number;
  readonly ub: number;
  readonly vb: number;
  readonly pm: number;
  readonly tauq: number;
  readonly taup: number;
  readonly slice: number;
}

export function zbidiagSlice(rows: number, k: number): ZbidiagSlice {
  const w = 0, ub = 2 * rows * k, vb = ub + 2 * rows * k, pm = vb + 2 * k * k, tauq = pm + 2 * k * k, taup = tauq + 2 * k;
  return { w, ub, vb, pm, tauq, taup, slice: taup + 2 * k };
}

/** The kernels' opening lines: float64 `real` and `real2`, the data's `io2` and `io`, the sizes and the three slices' strides. */
export function zbidiagPrelude(dtype: DType, rows: number, k: number, threads: number): string {
  return `${pairWorkspacePrelude(dtype)}
constexpr int M = ${rows};   // G's rows: max(m, n)
constexpr int K = ${k};   // G's columns, B's order: min(m, n)
constexpr int N2 = 2 * K;   // the Golub-Kahan tridiagonal's order
constexpr int T = ${threads};
constexpr long long SLICE = ${steinSlice(2 * k).slice};   // float64 elements of a tridiag slice (steinSlice(2K))
constexpr long long BSLICE = ${bidiagSlice(rows, k).slice};   // float64 elements of a bidiag slice (bidiagSlice(M, K))
constexpr long long CSLICE = ${zbidiagSlice(rows, k).slice};   // float64 elements of a complex slice`;
}

/** CUDA text: this block's slices (`Z` tridiag, `Bs` bidiag, `Cs` complex; matrix `blockIdx.x` of the chunk) and their parts. */
export function slicePointers(rows: number, k: number): string {
  const l = steinSlice(2 * k), b = bidiagSlice(rows, k), c = zbidiagSlice(rows, k);
  return `  real* Z = work + (long long)blockIdx.x * SLICE;     // the tridiag slice
  real* Bs = bwork + (long long)blockIdx.x * BSLICE;  // the bidiag slice
  real* Cs = cwork + (long long)blockIdx.x * CSLICE;  // the complex slice
  real* sd = Z + ${l.d};
  real* se = Z + ${l.e};
  int* hdr = (int*)(Z + ${l.hdr});   // [2] failed (NaN or Inf), [3] the scale, [9] an eigenvector not converged
  const real* UBr = Bs + ${b.ub};   // U_B, real, M x K
  const real* VBr = Bs + ${b.vb};   // V_B, real, K x K
  const real* sig = Bs + ${b.sig};
  real* W = Cs + ${c.w};     // pairs from here on
  real* UB = Cs + ${c.ub};
  real* VB = Cs + ${c.vb};
  real* PM = Cs + ${c.pm};
  real* tauq = Cs + ${c.tauq};
  real* taup = Cs + ${c.taup};
`;
}
