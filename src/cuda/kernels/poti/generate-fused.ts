/**
 * The fused SPD inverse for small n (batched-triangular-kblas, POTI: potrf, trtri and lauum of a
 * matrix in one kernel, the matrix read and written once).
 *
 * One matrix per blockDim.x = NB threads, several per block (blockDim.y). The `uplo` triangle is
 * loaded coalesced (thread r reads row r) into a shared NB x NB tile as a lower triangle (upper:
 * transposed, so U = L^T and inv(A) = inv(L)^T inv(L) in both cases), padded with the identity.
 * - poti: the right-looking Cholesky in the tile, thread r updating row r, three barriers per
 *   column. A pivot that is not positive (or NaN) at step k stops the matrix: as dpotf2 leaves it,
 *   columns (upper: rows) < k of the factor and A(k,k) = the failing value are written, everything
 *   else keeps its input; info = k + 1.
 * - trtri: thread j computes column j of inv(L) in registers (the trtri family's leaf step); potri
 *   first scans the diagonal (info = the first exact zero, the matrix then untouched, as dtrtri).
 * - lauum: thread j computes column j of inv(L)^T inv(L) from the tile (column j of the inverse
 *   against every other, broadcast reads), and the triangle goes back coalesced.
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer } from '../common/batch-pointer.js';
import { mathHelpers, precisionLetter, precisionPrelude } from '../common/precision.js';
import { INVERT_IN_TILE, inverseColumnSource, tileKernelHead, LEAF_MAX_THREADS, LEAF_SIZES } from '../trtri/index.js';
import type { PotiFusedParams } from './params.js';

/** Threads per block at most (as the trtri leaf: a column of 32 in registers). */
export const FUSED_MAX_THREADS = LEAF_MAX_THREADS;

export function potiFusedName(p: PotiFusedParams): string {
  return `${p.stage}_fused_${precisionLetter(p.dtype)}_${p.uplo[0]}_${kindTag(p.kind)}_${p.nb}`;
}

const CHOLESKY = `  // Right-looking Cholesky of the tile's lower triangle; thread r owns row r.
#pragma unroll 1
  for (int k = 0; k < NB; ++k) {
    __syncthreads();
    const real d = T[k + k * LDS];
    if (fail == 0 && !(d > real(0))) fail = k + 1;
    __syncthreads();
    if (fail == 0) {
      const real l = sqrtReal(d);
      if (r == k) T[k + k * LDS] = l;
      if (r > k) T[r + k * LDS] = T[r + k * LDS] / l;
    }
    __syncthreads();
    if (fail == 0 && r > k) {
      const real lrk = T[r + k * LDS];
#pragma unroll 1
      for (int j = k + 1; j <= r; ++j) T[r + j * LDS] = fmaReal(-lrk, T[j + k * LDS], T[r + j * LDS]);
    }
  }
  __syncthreads();
  if (fail != 0 && live && r < t) {
    // As dpotf2 leaves it: the factor's columns before the failing one, and the failing pivot.
    const int f = fail - 1;
    for (int c = 0; c < t; ++c) {
      const int col = LOWER ? c : r;
      if (inTriangle(r, c) && (col < f || (r == f && c == f))) a[r + (long long)c * ldA] = T[at(r, c)];
    }
  }
`;

export function potiFusedSource(p: PotiFusedParams): KernelSource {
  if (!LEAF_SIZES.includes(p.nb)) throw new Error(`fused ${p.stage} size ${p.nb} is not one of ${LEAF_SIZES.join(', ')}`);
  const entry = potiFusedName(p);
  const source = `${precisionPrelude(p.dtype)}
${mathHelpers(p.dtype)}
constexpr int NB = ${p.nb};
constexpr int LDS = NB + 1;   // odd: the tile is conflict-free by rows and by columns
constexpr bool LOWER = ${p.uplo === 'lower'};

/** Where A(r, c) of the stored triangle sits in the tile (lower form: upper is transposed). */
static __device__ __forceinline__ int at(int r, int c) { return LOWER ? r + c * LDS : c + r * LDS; }
static __device__ __forceinline__ bool inTriangle(int r, int c) { return LOWER ? r >= c : r <= c; }

${inverseColumnSource('lower', false)}

${tileKernelHead(entry, p.kind, FUSED_MAX_THREADS)}
  const int t = n;
  real* a = live ? ${matrixPointer('A', p.kind, 'm')} : nullptr;
  const int r = threadIdx.x;
#pragma unroll 4
  for (int c = 0; c < NB; ++c) {
    real v = r == c ? real(1) : real(0);
    if (live && r < t && c < t && inTriangle(r, c)) v = a[r + (long long)c * ldA];
    T[at(r, c)] = v;
  }
  int fail = 0;
${p.stage === 'poti' ? CHOLESKY : '  __syncthreads();\n'}  int bad = 0;
  for (int c = t - 1; c >= 0; --c) if (T[c + c * LDS] == real(0)) bad = c + 1;
  if (live && r == 0) info[index != nullptr ? index[m] : m] = fail != 0 ? fail : bad;
${INVERT_IN_TILE}  // Column r of inv(L)^T inv(L): (i, r) = sum over k >= i of X(k, i) X(k, r), for i >= r.
#pragma unroll
  for (int i = 0; i < NB; ++i) {
    if (i >= r) {
      real s = real(0);
#pragma unroll
      for (int k = i; k < NB; ++k) s = fmaReal(T[k + i * LDS], T[k + r * LDS], s);
      x[i] = s;
    }
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < NB; ++i) if (i >= r) T[i + r * LDS] = x[i];
  __syncthreads();
  if (!live || fail != 0 || bad != 0 || r >= t) return;
  for (int c = 0; c < t; ++c) {
    if (inTriangle(r, c)) a[r + (long long)c * ldA] = T[at(r, c)];
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}
