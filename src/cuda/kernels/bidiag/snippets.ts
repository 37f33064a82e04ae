/**
 * What the bidiagonalization gesvd's kernels share: the prelude, the layout of this family's slice
 * and the CUDA text that names both slices' parts.
 *
 * Per matrix, two slices of float64 elements in the chunk's workspace (the chunk's tridiag slices
 * first, one after another, then its bidiag slices):
 * - the tridiag family's `steinSlice(2K)`: the Golub-Kahan tridiagonal (d zero, e = (d_0, e_0, d_1,
 *   e_1, ..., d_{K-1}); d_{2K-1} also in Z's last element), hdr ([2] failed, [3] the scale, [9] an
 *   eigenvector not converged), lam and the eigenvectors (Y here) as its values and vectors kernels leave them;
 * - the bidiag slice (`bidiagSlice`):
 *   W      M x K, ld M   G, then dgebd2's reflectors: H_i's tail below the diagonal of column i, G_i's
 *                        tail right of the superdiagonal of row i
 *   UB     M x K, ld M   U_B over rows 0 ... K-1, zero below; Q_B U_B after ormqr
 *   VB     K x K, ld K   V_B; P_B V_B after ormqr
 *   PM     K x K, ld K   G_i's tail as column i (rows i+2 ... K-1): ormqr's storage for rows 1 ... K-1
 *   tauq, taup  K each   the reflectors' scalars
 *   sig    K             the singular values of the scaled B, descending
 */
import type { DType } from '../../../core/dtype.js';
import { cType, mathHelpers, precisionPrelude } from '../common/precision.js';
import { steinSlice } from '../tridiag/index.js';

/** The arithmetic of every kernel (and the workspace's element), whatever the data's dtype. */
export const BIDIAG_COMPUTE = 'float64' as const;

/** Power-of-two scaling range: G's largest magnitude is brought into [2^-RANGE, 2^RANGE]. */
export const BIDIAG_RANGE = 250;

export interface BidiagSlice {
  readonly w: number;
  readonly ub: number;
  readonly vb: number;
  readonly pm: number;
  readonly tauq: number;
  readonly taup: number;
  readonly sig: number;
  readonly slice: number;
}

export function bidiagSlice(rows: number, k: number): BidiagSlice {
  const w = 0, ub = rows * k, vb = ub + rows * k, pm = vb + k * k, tauq = pm + k * k, taup = tauq + k, sig = taup + k;
  return { w, ub, vb, pm, tauq, taup, sig, slice: sig + k };
}

/** The kernels' opening lines: float64 `real`, the data's `io`, NaN, the sizes and both slices' strides. */
export function bidiagPrelude(dtype: DType, rows: number, k: number, threads: number): string {
  return `${precisionPrelude(BIDIAG_COMPUTE)}
${mathHelpers(BIDIAG_COMPUTE)}
typedef ${cType(dtype)} io;   // the data's element (computed in float64 whatever it is)
static __device__ __forceinline__ real nanReal() { return __longlong_as_double(0x7ff8000000000000LL); }
constexpr int M = ${rows};   // G's rows: max(m, n)
constexpr int K = ${k};   // G's columns, B's order: min(m, n)
constexpr int N2 = 2 * K;   // the Golub-Kahan tridiagonal's order
constexpr int T = ${threads};
constexpr long long SLICE = ${steinSlice(2 * k).slice};   // float64 elements of a tridiag slice (steinSlice(2K))
constexpr long long BSLICE = ${bidiagSlice(rows, k).slice};   // float64 elements of a bidiag slice`;
}

/** CUDA text: this block's slices (`Z` tridiag, `Bs` bidiag; matrix `blockIdx.x` of the chunk) and their parts. */
export function slicePointers(rows: number, k: number): string {
  const l = steinSlice(2 * k), b = bidiagSlice(rows, k);
  return `  real* Z = work + (long long)blockIdx.x * SLICE;     // the tridiag slice
  real* Bs = bwork + (long long)blockIdx.x * BSLICE;  // the bidiag slice
  real* sd = Z + ${l.d};
  real* se = Z + ${l.e};
  int* hdr = (int*)(Z + ${l.hdr});   // [2] failed (NaN or Inf), [3] the scale, [9] an eigenvector not converged
  real* lam = Z + ${l.lam};
  real* Y = Z + ${l.v};   // the Golub-Kahan eigenvectors, ld N2
  real* W = Bs + ${b.w};
  real* UB = Bs + ${b.ub};
  real* VB = Bs + ${b.vb};
  real* PM = Bs + ${b.pm};
  real* tauq = Bs + ${b.tauq};
  real* taup = Bs + ${b.taup};
  real* sig = Bs + ${b.sig};
`;
}
