/**
 * Batched Cholesky for medium n (up to 128): one thread block per matrix, the whole factor in
 * registers (the KBLAS paper's register design, batched-triangular-kblas, for sizes up to 256),
 * right-looking, one read of A, one write, one barrier per column.
 *
 * Layout (shared with getrf/register.ts): lane l of every warp holds rows l, l + 32, ... of L;
 * warp w holds columns w, w + TC, ... (cyclic: the shrinking trailing triangle stays balanced).
 * Step k: the warp owning column k takes the diagonal d by shuffle, and if d > 0 stores
 * L(k,k) = sqrt(d) and L(i,k) = A(i,k) / L(k,k) in its registers and publishes the multipliers to
 * shared memory (double buffered by the parity of k) together with d; barrier; every warp updates
 * A(i,j) -= L(i,k) L(j,k) for k < j <= i, reading L(i,k) (one per lane) and L(j,k) (a broadcast).
 *
 * On failure at step k (d not > 0, or NaN; every thread reads the same d, so the whole block stops
 * at the same step) only columns < k of the factor and A(k,k) = d are written; everything else
 * keeps its input value: what LAPACK's potf2 leaves (the rules of small.ts).
 *
 * 'lower' loads and stores are column-major-coalesced. 'upper' factors L = U^T, reading element
 * (i, j) of L at A[j + i * ld]: lanes then touch 32 different columns (each sector is shared by
 * the neighbouring warps, so L1 catches most of it); a staged transpose would make it coalesced.
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { KernelSource } from '../../runtime/types.js';
import { matrixPointer, operandParameters, type OperandKind } from '../common/batch-pointer.js';
import { precisionLetter } from '../common/precision.js';
import { registerPrelude } from '../getrf/register.js';
import { kindTag } from './operands.js';
import { forEachTileElement } from '../common/register-tile.js';

export interface PotrfRegisterParams {
  readonly dtype: DType;
  readonly n: number;
  readonly uplo: Uplo;
  readonly kind: OperandKind;
  /** Warps per block = column groups (TC). */
  readonly warps: number;
}

export function potrfRegisterSource(p: PotrfRegisterParams): KernelSource {
  const entry = `potrf_reg_${precisionLetter(p.dtype)}_${p.uplo === 'lower' ? 'l' : 'u'}_n${p.n}_${kindTag(p.kind)}_w${p.warps}`;
  const at = p.uplo === 'lower' ? '(i) + (long long)(j) * ldA' : '(j) + (long long)(i) * ldA';
  const source = `${registerPrelude(p.dtype, p.n, p.n, p.warps)}
// Element (i, j) of the lower factor's storage: A itself ('lower') or A^T ('upper').
#define AT(i, j) a[${at}]
#define ST(i, j) a[${at.replace(/ldA/, 'ldStore')}]

extern "C" __global__ void __launch_bounds__(TC * 32, 1) ${entry}(
    ${operandParameters('A', p.kind, true)},
    int* __restrict__ info, const int* __restrict__ index, int count) {
  __shared__ real sL[2][RB * 32];             // L(i, k) of step k, by row
  __shared__ real sD[2];                      // the pivot d of step k
  const long long mid = blockIdx.x;
  if (mid >= count) return;
  const long long id = index ? (long long)index[mid] : mid;
  real* a = ${matrixPointer('A', p.kind, 'mid')};
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

  real v[RB][CB];
${forEachTileElement('v[r][b] = (i < N && j <= i) ? AT(i, j) : real(0);')}

  int fail = 0;
  // k = TC bk + w: bk (the owner's register column) is a compile-time index (see getrf/register.ts).
#pragma unroll
  for (int bk = 0; bk < CB; ++bk) {
#pragma unroll 1
  for (int w = 0; w < TC; ++w) {
    const int k = TC * bk + w;
    if (k >= N || fail) break;                // block-uniform
    const int par = k & 1;
    if (warp == w) {
      real x[RB];
#pragma unroll
      for (int r = 0; r < RB; ++r) x[r] = v[r][bk];
      // (a select keyed by the lane's own row: keyed by k >> 5 alone, NVVM makes x a local array)
      real t = real(0);
#pragma unroll
      for (int r = 0; r < RB; ++r) if (lane + 32 * r == k) t = x[r];
      const real d = __shfl_sync(FULL, t, k & 31);
      if (d > real(0)) {
        const real piv = sqrtReal(d);
        const real rcp = real(1) / piv;
#pragma unroll
        for (int r = 0; r < RB; ++r) {
          const int i = lane + 32 * r;
          if (i >= k && i < N) {
            const real l = i == k ? piv : x[r] * rcp;
            sL[par][i] = l;
            v[r][bk] = l;
          }
        }
      }
      if (lane == 0) sD[par] = d;
    }
    __syncthreads();
    if (!(sD[par] > real(0))) { fail = k + 1; break; }   // block-uniform
    real lj[CB];
#pragma unroll
    for (int b = bk; b < CB; ++b) {
      const int j = warp + TC * b;
      lj[b] = ((b > bk || warp > w) && j < N) ? sL[par][j] : real(0);
    }
#pragma unroll
    for (int r = 0; r < RB; ++r) {
      const int i = lane + 32 * r;
      if (i <= k || i >= N) continue;
      const real li = sL[par][i];
#pragma unroll
      for (int b = bk; b < CB; ++b) {
        const int j = warp + TC * b;
        if ((b > bk || warp > w) && j <= i) v[r][b] = fmaReal(-li, lj[b], v[r][b]);
      }
    }
  }
  }

  const int kf = fail ? fail - 1 : N;
  // ld through a volatile move, so the load addresses are not kept live through the loop (see
  // getrf/register.ts).
  int ldStore;
  asm volatile("mov.b32 %0, %1;" : "=r"(ldStore) : "r"(ldA));
${forEachTileElement('if (i < N && j <= i && (j < kf || (j == kf && i == kf))) ST(i, j) = v[r][b];')}
  if (threadIdx.x == 0) info[id] = fail;
}
`;
  return { name: `${entry}.cu`, source, entry };
}
