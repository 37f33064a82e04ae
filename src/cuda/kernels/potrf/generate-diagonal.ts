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

/** Largest block whose two triangles' tiles go to separate threads (2 x tiles <= 1024). */
const SPLIT_MAX = 96;

/**
 * Threads of the launch for a block of nb: one per tile of each triangle up to SPLIT_MAX (more
 * warps to hide the step's latency chain), else one per tile pair; rounded to warps.
 */
export function potrfDiagonalThreads(nb: number): number {
  const tiles = (nb / TILE) * (nb / TILE + 1) / 2;
  return Math.ceil((nb <= SPLIT_MAX ? 2 * tiles : tiles) / 32) * 32;
}

/** The block sizes the kernel accepts (a multiple of TILE up to 128: at most 544 threads of 32 values each). */
export function potrfDiagonalFits(nb: number): boolean {
  return Number.isInteger(nb) && nb >= TILE && nb <= 128 && nb % TILE === 0;
}

export function potrfDiagonalSource(p: PotrfDiagonalParams): KernelSource {
  const d = p.dtype === 'float64';
  const split = p.nb <= SPLIT_MAX;
  const entry = `potrf_diag_${precisionLetter(p.dtype)}_${p.uplo === 'lower' ? 'l' : 'u'}_nb${p.nb}`;
  const at = p.uplo === 'lower' ? 'a[(i) + (long long)(k) * ldA]' : 'a[(k) + (long long)(i) * ldA]';
  // Unrolled loops over a tile's rows r and columns c (compile-time register indices).
  const rows = (body: string): string => `#pragma unroll
    for (int r = 0; r < ${TILE}; ++r) {
      ${body}
    }`;
  const cols = (body: string): string => `#pragma unroll
    for (int c = 0; c < ${TILE}; ++c) {
      ${body}
    }`;
  const source = `${precisionPrelude(p.dtype)}
#define NB ${p.nb}
#define TB (NB / ${TILE})
#define TILES (TB * (TB + 1) / 2)
#define THREADS ${potrfDiagonalThreads(p.nb)}
// Element (i, k) of the lower factor's storage: A itself ('lower') or A^T ('upper').
#define AT(i, k) ${at}
static __device__ __forceinline__ real rsqrtReal(real x) { return ${d ? 'rsqrt' : 'rsqrtf'}(x); }

// A: the diagonal block of each matrix (offset at its first element); W: count inverses of NB x NB
// (ld NB); column: the block's first column in the whole matrix (for info).
extern "C" __global__ void __launch_bounds__(THREADS) ${entry}(
    ${operandParameters('A', 'strided', true)}, real* __restrict__ W,
    int* __restrict__ info, int count, int size, int column) {
  __shared__ real sCol[2][NB];    // column j of the Schur complement (raw)
  __shared__ real sRow[2][NB];    // row j of W (raw)
  __shared__ real sPivot[2], sInvPivot[2];
  __shared__ real sScale[NB];     // 1/sqrt(pivot k): the final scaling of column k of L and row k of W
  const int q = blockIdx.x;
  if (q >= count) return;
  real* a = A + offsetA + (long long)q * strideA;
  real* w = W + (long long)q * NB * NB;
  const int t = threadIdx.x;
  // ${split ? 'Threads [0, TILES) own a tile of the Schur complement, [TILES, 2 TILES) one of W.' : 'Thread t < TILES owns tile t of both triangles.'}
  const bool aOwner = t < TILES;
  const int tw = ${split ? 't - TILES' : 't'};
  const bool wOwner = tw >= 0 && tw < TILES;
  // The Schur complement's tiles by columns (tile (ai, ak), column ak = 0, 1, ...): one tile column
  // (published each step, then idle) is a few consecutive warps ...
  int ak = 0, first = 0;
  while (ak < TB - 1 && first + (TB - ak) <= t) { first += TB - ak; ++ak; }
  const int ai = ak + (t - first);
  // ... and W's by rows (tw = wi (wi + 1) / 2 + wk), so that one row of W is.
  const int u = wOwner ? tw : 0;
  int wi = (int)((sqrtf(8.0f * u + 1.0f) - 1.0f) * 0.5f);
  while (wi * (wi + 1) / 2 > u) --wi;
  while ((wi + 1) * (wi + 2) / 2 <= u) ++wi;
  const int wk = u - wi * (wi + 1) / 2;
  const int ai0 = ${TILE} * ai, ak0 = ${TILE} * ak, wi0 = ${TILE} * wi, wk0 = ${TILE} * wk;
  for (int e = t; e < NB; e += THREADS) sScale[e] = real(1);

  real x[${TILE}][${TILE}], v[${TILE}][${TILE}];
  ${rows(cols(`const int i = ai0 + r, k = ak0 + c;
      x[r][c] = !aOwner ? real(0) : (i < size && k < size) ? (i >= k ? AT(i, k) : real(0)) : real(i == k);
      v[r][c] = real(wi0 + r == wk0 + c);`))}
  __syncthreads();
  // Step 0's column, row and pivot.
  if (aOwner && ak == 0) {
    ${rows('sCol[0][ai0 + r] = x[r][0];')}
  }
  if (wOwner && wi == 0) {
    ${cols('sRow[0][wk0 + c] = v[0][c];')}
  }
  if (t == 0) {
    const real d0 = x[0][0], s0 = rsqrtReal(d0);
    sPivot[0] = d0;
    sInvPivot[0] = s0 * s0;
    if (d0 > real(0)) sScale[0] = s0;
  }
  __syncthreads();

  // Step j = ${TILE} jt + jr, the ${TILE} steps of a tile column unrolled: every register index is a
  // compile-time constant, and the masks of the step's own tile column (columns > j, rows > j)
  // fold into which of its multiply-adds are emitted at all.
  bool stop = false;
  for (int jt = 0; jt < TB && !stop; ++jt) {
#pragma unroll
    for (int jr = 0; jr < ${TILE}; ++jr) {
      const int j = ${TILE} * jt + jr, par = jr & 1;
      if (j >= size) { stop = true; break; }          // block-uniform
      if (!(sPivot[par] > real(0))) {                 // block-uniform: every thread read the same pivot
        if (t == 0 && info[q] == 0) info[q] = column + j + 1;
        stop = true;
        break;
      }
      const real s2 = sInvPivot[par];                 // 1/d: l_ij l_kj = a_ij a_kj / d
      // Schur complement: a_ik -= a_ij a_kj / d for k > j (above the diagonal: garbage, never stored).
      if (aOwner && ak >= jt) {
        real ci[${TILE}], ck[${TILE}];
        ${rows('ci[r] = sCol[par][ai0 + r];')}
        ${cols('ck[c] = sCol[par][ak0 + c] * s2;')}
        if (ak > jt) {
          ${rows(cols('x[r][c] = fmaReal(-ci[r], ck[c], x[r][c]);'))}
        } else {
          ${rows(cols('if (c > jr) x[r][c] = fmaReal(-ci[r], ck[c], x[r][c]);'))}
        }
      }
      // W: w_ic -= a_ij w_jc / d for i > j, c <= j (row j's entries beyond j are zeros).
      if (wOwner && wi >= jt && wk <= jt) {
        real li[${TILE}], rw[${TILE}];
        ${rows('li[r] = (wi > jt || r > jr) ? sCol[par][wi0 + r] : real(0);')}
        ${cols('rw[c] = sRow[par][wk0 + c] * s2;')}
        ${rows(cols('v[r][c] = fmaReal(-li[r], rw[c], v[r][c]);'))}
      }
      // Publish step j + 1 (column nc of tile column nt): its column, its row of W, its pivot.
      const int nt = jr + 1 < ${TILE} ? jt : jt + 1, nc = (jr + 1) & ${TILE - 1};
      if (j + 1 < size) {
        if (aOwner && ak == nt) {
          ${rows('sCol[par ^ 1][ai0 + r] = x[r][nc];')}
          if (ai == nt) {
            const real dn = x[nc][nc], sn = rsqrtReal(dn);
            sPivot[par ^ 1] = dn;
            sInvPivot[par ^ 1] = sn * sn;
            if (dn > real(0)) sScale[j + 1] = sn;
          }
        }
        if (wOwner && wi == nt) {
          ${cols('sRow[par ^ 1][wk0 + c] = v[nc][c];')}
        }
      }
      __syncthreads();
    }
  }
  __syncthreads();

  // L(i, k) = a_ik / sqrt(d_k) and W(i, c) = w_ic / sqrt(d_i): the scalings deferred to here. A
  // failed column keeps its raw value (scale 1), as LAPACK leaves A(j, j) = d.
  if (aOwner) {
    ${rows(cols(`const int i = ai0 + r, k = ak0 + c;
      if (i < size && k < size && i >= k) AT(i, k) = x[r][c] * sScale[k];`))}
  }
  if (wOwner) {
    ${rows(cols(`const int i = wi0 + r, k = wk0 + c;
      w[i + k * NB] = i >= k ? v[r][c] * sScale[i] : real(0);
      if (wi != wk) w[k + i * NB] = real(0);   // the mirrored tile, above the diagonal`))}
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}
