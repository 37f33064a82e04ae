/**
 * Batched Cholesky for medium n (up to 128): one thread block per matrix, the whole factor in
 * registers (the KBLAS paper's register design, batched-triangular-kblas, for sizes up to 256),
 * right-looking by panels of NB columns, one read of A, one write, one barrier per panel.
 *
 * Layout (common/register-tile.ts, shared with getrf/generate-register.ts): lane l of every warp holds rows l, l + 32, ... of L;
 * columns go to warps in blocks of NB, cyclically (block c to warp c mod TC: the shrinking
 * trailing triangle stays balanced). Register elements wholly above the diagonal for every warp
 * are never allocated (`live`), so n = 128 keeps about the lower triangle in registers.
 *
 * Panel p (columns k0 = NB p ...), owned by warp p mod TC:
 * - the owner factors it alone, warp-synchronously: per column the diagonal d by shuffle, if d > 0
 *   the column scaled by rsqrt(d) (one special-function step on the serial chain instead of a
 *   square root and a division; the diagonal itself is sqrt(d)), published to shared memory
 *   (double buffered by the parity of p), and the panel's later columns updated from it
 *   (L(j,k) read back from shared memory after a warp barrier);
 * - one block barrier; every warp applies the panel's rank-NB update to its columns right of it,
 *   A(i,j) -= sum_k L(i,k) L(j,k) (L(i,k) one per lane, L(j,k) a broadcast).
 * NB = 1 is the column-by-column design (one barrier per column); blocking cuts the block-wide
 * waits on the owner's serial sqrt/scale chain by NB (the paper's fused panel, section 4.3,
 * applied inside the register design).
 *
 * On failure at step k (d not > 0, or NaN; the owner publishes it, every thread reads the same
 * value, so the whole block stops at the same panel) only columns < k of the factor and
 * A(k,k) = d are written; everything else keeps its input value: what LAPACK's potf2 leaves (the
 * rules of generate-small.ts). Elements above the diagonal take garbage updates in registers and are never
 * stored.
 *
 * 'lower' loads and stores are column-major-coalesced. 'upper' factors L = U^T, reading element
 * (i, j) of L at A[j + i * ld]: lanes then touch 32 different columns (each sector is shared by
 * the neighbouring warps, so L1 catches most of it); a staged transpose would make it coalesced.
 */
import { cudaMath } from '../../../core/dtype-table.js';
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { precisionLetter } from '../common/precision.js';
import type { PotrfRegisterParams } from './params.js';
import { forEachTileElement, registerPrelude } from '../common/register-tile.js';

export function potrfRegisterSource(p: PotrfRegisterParams): KernelSource {
  return registerSource(p, {
    tag: 'reg',
    parameters: `${operandParameters('A', p.kind, true)},
    int* __restrict__ info, const int* __restrict__ index, int count`,
    opening: `const long long id = index ? (long long)index[mid] : mid;
  real* a = ${matrixPointer('A', p.kind, 'mid')};`,
    limit: 'N',
  });
}

/**
 * A size class of a variable batch (common/vbatch.ts): members of order nm <= N, each matrix's
 * pointer, nm, ld and batch index from device tables (ints: nm, ld, index per member). The tile is
 * loaded with zeros outside the member's matrix and the column loops stop at nm, so the member's
 * elements see the operations of the uniform kernel of order nm, in the same order.
 */
export function potrfRegisterVbatchedSource(p: PotrfRegisterParams): KernelSource {
  return registerSource(p, {
    tag: 'vreg',
    parameters: 'real* const* __restrict__ A, const int* __restrict__ dims, int* __restrict__ info, int count',
    opening: `const int nm = dims[3 * mid], ldA = dims[3 * mid + 1];
  const long long id = dims[3 * mid + 2];
  real* a = A[mid];`,
    limit: 'nm',
  });
}

/** What the uniform and the class kernels differ in: parameters, the block's matrix, and the order the loops stop at. */
interface RegisterFrame {
  readonly tag: string;
  readonly parameters: string;
  readonly opening: string;
  /** The matrix order as the kernel sees it ('N', or the member's 'nm'). */
  readonly limit: string;
}

function registerSource(p: PotrfRegisterParams, f: RegisterFrame): KernelSource {
  const nb = p.nb ?? 1;
  const lim = f.limit;
  const entry = `potrf_${f.tag}_${precisionLetter(p.dtype)}_${p.uplo === 'lower' ? 'l' : 'u'}_n${p.n}_${kindTag(p.kind)}_w${p.warps}${nb === 1 ? '' : `_nb${nb}`}${(p.minBlocks ?? 1) === 1 ? '' : `_b${p.minBlocks}`}`;
  // Element (i, j) of L at leading dimension `ld`: A itself ('lower') or A^T ('upper').
  const at = (ld: string): string => (p.uplo === 'lower' ? `(i) + (long long)(j) * ${ld}` : `(j) + (long long)(i) * ${ld}`);
  const source = `${registerPrelude(p.dtype, p.n, p.n, p.warps, nb)}
// Element (i, j) of the lower factor's storage: A itself ('lower') or A^T ('upper').
#define AT(i, j) a[${at('ldA')}]
#define ST(i, j) a[${at('ldStore')}]
// Whether register v[r][b] can be on or below the diagonal for some warp (else never allocated).
static __device__ __forceinline__ constexpr bool live(int r, int b) { return colOf(b, 0) <= 32 * r + 31; }
static __device__ __forceinline__ real rsqrtReal(real x) { return ${cudaMath(p.dtype, 'rsqrt')}(x); }

extern "C" __global__ void __launch_bounds__(TC * 32, ${p.minBlocks ?? 1}) ${entry}(
    ${f.parameters}) {
  __shared__ real sL[2][NB][RB * 32];         // L(i, k) of the panel's columns, by row
  __shared__ int sFail[2];                    // 0, or k + 1 for a failing pivot in the panel
  const long long mid = blockIdx.x;
  if (mid >= count) return;
  ${f.opening}
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

  real v[RB][CB];
${forEachTileElement(`if (live(r, b)) v[r][b] = (i < ${lim} && j <= i) ? AT(i, j) : real(0);`)}

  int fail = 0;
  // Panel p = TC bk + w: bk (the owner's register block) is a compile-time index (see getrf/register.ts).
#pragma unroll
  for (int bk = 0; bk < CB / NB; ++bk) {
#pragma unroll 1
  for (int w = 0; w < TC; ++w) {
    const int k0 = (TC * bk + w) * NB;
    if (k0 >= ${lim} || fail) break;               // block-uniform
    const int par = (TC * bk + w) & 1;
    if (warp == w) {
      int f = 0;
#pragma unroll
      for (int kk = 0; kk < NB; ++kk) {
        const int k = k0 + kk;
        if (k >= ${lim}) break;                     // warp-uniform
        const int c = bk * NB + kk;
        // (a select keyed by the lane's own row: keyed by k >> 5 alone, NVVM makes v a local array)
        real t = real(0);
#pragma unroll
        for (int r = 0; r < RB; ++r) if (live(r, c) && lane + 32 * r == k) t = v[r][c];
        const real dk = __shfl_sync(FULL, t, k & 31);
        if (!(dk > real(0))) { f = k + 1; break; }   // warp-uniform; A(k,k) keeps d
        const real rs = rsqrtReal(dk);
        real l[RB];
#pragma unroll
        for (int r = 0; r < RB; ++r) {
          if (!live(r, c)) continue;
          const int i = lane + 32 * r;
          l[r] = i == k ? sqrtReal(dk) : v[r][c] * rs;
          if (i >= k) {
            v[r][c] = l[r];
            sL[par][kk][i] = l[r];
          }
        }
        __syncwarp();
#pragma unroll
        for (int jj = kk + 1; jj < NB; ++jj) {
          const real lj = sL[par][kk][k0 + jj];
#pragma unroll
          for (int r = 0; r < RB; ++r) if (live(r, bk * NB + jj)) v[r][bk * NB + jj] = fmaReal(-l[r], lj, v[r][bk * NB + jj]);
        }
      }
      if (lane == 0) sFail[par] = f;
    }
    __syncthreads();
    if (sFail[par]) { fail = sFail[par]; break; }   // block-uniform
    // (kk unrolled: measured 1.3-1.45x faster on the H100 than a rolled kk loop with one copy of
    // the update masked by column)
#pragma unroll
    for (int kk = 0; kk < NB; ++kk) {
      if (k0 + kk >= ${lim}) break;                 // block-uniform
      real li[RB];
#pragma unroll
      for (int r = 0; r < RB; ++r) li[r] = sL[par][kk][lane + 32 * r];
#pragma unroll
      for (int b = bk * NB; b < CB; ++b) {
        if (b < (bk + 1) * NB && warp <= w) continue;   // the panel itself, or columns left of it
        const int j = colOf(b, warp);
        if (j >= N) continue;                           // warp-uniform
        const real lj = sL[par][kk][j];
#pragma unroll
        for (int r = 0; r < RB; ++r) if (live(r, b)) v[r][b] = fmaReal(-li[r], lj, v[r][b]);
      }
    }
  }
  }

  const int kf = fail ? fail - 1 : ${lim};
  // ld through a volatile move, so the load addresses are not kept live through the loop (see
  // getrf/register.ts).
  int ldStore;
  asm volatile("mov.b32 %0, %1;" : "=r"(ldStore) : "r"(ldA));
${forEachTileElement(`if (live(r, b) && i < ${lim} && j <= i && (j < kf || (j == kf && i == kf))) ST(i, j) = v[r][b];`)}
  if (threadIdx.x == 0) info[id] = fail;
}
`;
  return { name: `${entry}.cu`, source, entry };
}
