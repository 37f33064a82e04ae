/**
 * The large Cholesky's diagonal block, factored AND inverted by one thread block (issue 13;
 * gpu-only-cholesky.txt: the panel is the serial path, so it must be one short kernel, and its
 * triangular solve becomes a GEMM with the inverse, as in batched-triangular-kblas.txt's TRSM by
 * inverted diagonal blocks). The blocked driver (launch.ts) then needs per panel only
 * A21 := A21 W^T (one tensor-core GEMM, W = L11^-1) and the trailing SYRK.
 *
 * Algorithm: symmetric Gauss-Jordan on [A11 | I] by rows. Step j scales row j by s = 1/sqrt(d),
 * d the current pivot, and subtracts l_ij times it from every row i > j. On the lower triangle of
 * the Schur complement that is the right-looking Cholesky (a_ik -= l_ij l_kj for i >= k > j, column
 * j final as l_ij = a_ij s); on the identity it builds W = L^-1 row by row
 * (w_ic -= l_ij w_jc s for i > j, c <= j; row j final as w_jc s). One barrier per column.
 *
 * Layout: NB x NB in 4 x 4 tiles; thread t owns tile (bi, bk), bi >= bk, of BOTH triangles (the
 * Schur complement's in x[4][4], W's in v[4][4]), so NB = 128 is 528 threads holding 32 values
 * each. Step j reads column j of the Schur complement and row j of W from shared memory
 * (published raw by their owners at the end of step j - 1, double buffered by the parity of j),
 * with 1/sqrt(d) computed once by the owner of the diagonal element. Register indices are
 * compile-time (unrolled loops with predicates), so nothing goes to local memory.
 *
 * A block of `size` < NB (the last panel) is padded with the identity, which is its own factor and
 * inverse and leaves the leading block unchanged. 'upper' factors L = U^T, reading element (i, k)
 * of L at A[k + i * ld].
 *
 * Failure at column j (d not > 0, or NaN; every thread reads the same d, so the block stops
 * together): info = column + j + 1 if it is still 0; columns < j of the factor and rows < j of W
 * are final (so the GEMM with W leaves the panel's columns < j correct); the rest is unspecified,
 * as for every large-path factor. Elements above the diagonal of A are never written; W is written
 * whole (zeros above its diagonal): the GEMM reads it as a full matrix.
 */
import type { KernelSource } from '../../runtime/types.js';
import { operandParameters } from '../common/batch-pointer.js';
import { precisionLetter, precisionPrelude } from '../common/precision.js';
import type { PotrfDiagonalParams } from './params.js';

/** Tile edge: every thread holds one TILE x TILE block of each triangle. */
const TILE = 4;

/** Threads of the launch for a block of nb: one per tile of the lower triangle, rounded to warps. */
export function potrfDiagonalThreads(nb: number): number {
  const tiles = (nb / TILE) * (nb / TILE + 1) / 2;
  return Math.ceil(tiles / 32) * 32;
}

/** The block sizes the kernel accepts (a multiple of TILE up to 128: 544 threads of 32 values each). */
export function potrfDiagonalFits(nb: number): boolean {
  return Number.isInteger(nb) && nb >= TILE && nb <= 128 && nb % TILE === 0;
}

export function potrfDiagonalSource(p: PotrfDiagonalParams): KernelSource {
  const d = p.dtype === 'float64';
  const entry = `potrf_diag_${precisionLetter(p.dtype)}_${p.uplo === 'lower' ? 'l' : 'u'}_nb${p.nb}`;
  const at = p.uplo === 'lower' ? 'a[(i) + (long long)(k) * ldA]' : 'a[(k) + (long long)(i) * ldA]';
  const source = `${precisionPrelude(p.dtype)}
#define NB ${p.nb}
#define TB (NB / ${TILE})
#define TILES (TB * (TB + 1) / 2)
#define THREADS ${potrfDiagonalThreads(p.nb)}
// Element (i, k) of the lower factor's storage: A itself ('lower') or A^T ('upper').
#define AT(i, k) ${at}
static __device__ __forceinline__ real invSqrt(real x) { return real(1) / ${d ? 'sqrt' : 'sqrtf'}(x); }

// A: the diagonal block of each matrix (offset at its first element); W: count inverses of NB x NB
// (ld NB); column: the block's first column in the whole matrix (for info).
extern "C" __global__ void __launch_bounds__(THREADS) ${entry}(
    ${operandParameters('A', 'strided', true)}, real* __restrict__ W,
    int* __restrict__ info, int count, int size, int column) {
  __shared__ real sCol[2][NB];    // column j of the Schur complement (raw)
  __shared__ real sRow[2][NB];    // row j of W (raw)
  __shared__ real sPivot[2], sScale[2];
  const int q = blockIdx.x;
  if (q >= count) return;
  real* a = A + offsetA + (long long)q * strideA;
  real* w = W + (long long)q * NB * NB;
  const int t = threadIdx.x;
  const bool owner = t < TILES;
  // Tile (bi, bk) of the lower triangle, t = bi (bi + 1) / 2 + bk.
  int bi = (int)((sqrtf(8.0f * t + 1.0f) - 1.0f) * 0.5f);
  while (bi * (bi + 1) / 2 > t) --bi;
  while ((bi + 1) * (bi + 2) / 2 <= t) ++bi;
  const int bk = t - bi * (bi + 1) / 2;
  const int i0 = ${TILE} * bi, k0 = ${TILE} * bk;

  real x[${TILE}][${TILE}], v[${TILE}][${TILE}];
#pragma unroll
  for (int r = 0; r < ${TILE}; ++r)
#pragma unroll
    for (int c = 0; c < ${TILE}; ++c) {
      const int i = i0 + r, k = k0 + c;
      x[r][c] = !owner ? real(0) : (i < size && k < size) ? (i >= k ? AT(i, k) : real(0)) : real(i == k);
      v[r][c] = real(i == k);
    }
  // Step 0's column, row and pivot.
  if (owner && bk == 0) {
#pragma unroll
    for (int r = 0; r < ${TILE}; ++r) sCol[0][i0 + r] = x[r][0];
  }
  if (owner && bi == 0) {
#pragma unroll
    for (int c = 0; c < ${TILE}; ++c) sRow[0][k0 + c] = v[0][c];
    sPivot[0] = x[0][0];
    sScale[0] = invSqrt(x[0][0]);
  }
  __syncthreads();

  for (int j = 0; j < size; ++j) {
    const int par = j & 1;
    const real dj = sPivot[par];
    if (!(dj > real(0))) {              // block-uniform: every thread read the same pivot
      if (t == 0 && info[q] == 0) info[q] = column + j + 1;
      break;
    }
    if (owner) {
      const real s = sScale[par];
      const int jt = j >> 2, jr = j & 3;
      real ci[${TILE}];
#pragma unroll
      for (int r = 0; r < ${TILE}; ++r) ci[r] = sCol[par][i0 + r] * s;
      // Schur complement: a_ik -= l_ij l_kj for k > j (above the diagonal: garbage, never stored).
      if (k0 + ${TILE - 1} > j) {
        real ck[${TILE}];
#pragma unroll
        for (int c = 0; c < ${TILE}; ++c) ck[c] = k0 + c > j ? sCol[par][k0 + c] * s : real(0);
#pragma unroll
        for (int r = 0; r < ${TILE}; ++r)
#pragma unroll
          for (int c = 0; c < ${TILE}; ++c) x[r][c] = fmaReal(-ci[r], ck[c], x[r][c]);
      }
      if (bk == jt) {                   // column j of L is final
#pragma unroll
        for (int r = 0; r < ${TILE}; ++r)
#pragma unroll
          for (int c = 0; c < ${TILE}; ++c) if (c == jr) x[r][c] *= s;
      }
      // W: w_ic -= l_ij (w_jc s) for i > j, c <= j (row j's entries beyond j are zeros).
      if (i0 + ${TILE - 1} > j && k0 <= j) {
        real rw[${TILE}];
#pragma unroll
        for (int c = 0; c < ${TILE}; ++c) rw[c] = sRow[par][k0 + c] * s;
#pragma unroll
        for (int r = 0; r < ${TILE}; ++r) {
          const real li = i0 + r > j ? ci[r] : real(0);
#pragma unroll
          for (int c = 0; c < ${TILE}; ++c) v[r][c] = fmaReal(-li, rw[c], v[r][c]);
        }
      }
      if (bi == jt) {                   // row j of W is final
#pragma unroll
        for (int r = 0; r < ${TILE}; ++r)
#pragma unroll
          for (int c = 0; c < ${TILE}; ++c) if (r == jr) v[r][c] *= s;
      }
      // Publish step j + 1: its column, its row of W, its pivot and scale.
      const int n1 = j + 1, nt = n1 >> 2, nr = n1 & 3;
      if (n1 < size) {
        if (bk == nt) {
#pragma unroll
          for (int r = 0; r < ${TILE}; ++r)
#pragma unroll
            for (int c = 0; c < ${TILE}; ++c) if (c == nr) sCol[par ^ 1][i0 + r] = x[r][c];
        }
        if (bi == nt) {
#pragma unroll
          for (int r = 0; r < ${TILE}; ++r)
#pragma unroll
            for (int c = 0; c < ${TILE}; ++c) if (r == nr) sRow[par ^ 1][k0 + c] = v[r][c];
          if (bk == nt) {
#pragma unroll
            for (int r = 0; r < ${TILE}; ++r)
              if (r == nr) {
#pragma unroll
                for (int c = 0; c < ${TILE}; ++c)
                  if (c == nr) { sPivot[par ^ 1] = x[r][c]; sScale[par ^ 1] = invSqrt(x[r][c]); }
              }
          }
        }
      }
    }
    __syncthreads();
  }

  if (!owner) return;
#pragma unroll
  for (int r = 0; r < ${TILE}; ++r)
#pragma unroll
    for (int c = 0; c < ${TILE}; ++c) {
      const int i = i0 + r, k = k0 + c;
      if (i < size && k < size && i >= k) AT(i, k) = x[r][c];
      w[i + k * NB] = i >= k ? v[r][c] : real(0);
      if (bi != bk) w[k + i * NB] = real(0);   // the mirrored tile, above the diagonal
    }
}
`;
  return { name: `${entry}.cu`, source, entry };
}
