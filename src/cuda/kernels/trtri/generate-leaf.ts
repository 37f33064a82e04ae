/**
 * The register leaf of the batched triangular inverse (batched-triangular-kblas, TRTRI: the
 * recursion ends in small triangles inverted in shared memory and registers).
 *
 * One matrix per blockDim.x = NB threads (several matrices per block, blockDim.y). The block's
 * triangle (t <= NB at run time) is loaded, coalesced, into a shared NB x NB tile padded with the
 * identity, so the unrolled loops need no bounds. Thread j then computes column j of the inverse
 * in registers (x[NB], indices known at compile time): lower, forward substitution L x = e_j from
 * row j down; upper, back substitution U x = e_j from row j up. Every thread of a matrix reads the
 * same tile element at a time (broadcasts). The columns go back through the tile and out
 * coalesced.
 *
 * Two uses, one source: with info (n <= NB, the whole matrix, gridDim.y = 1) the leaf first scans
 * the diagonal as dtrtri does: info = the first exactly zero diagonal element (1-based), and a
 * singular matrix is left untouched (non-unit only); without info (info = nullptr, the recursion's
 * leaves, gridDim.y = the number of leaves) leaf blockIdx.y inverts the diagonal block at
 * blockIdx.y * NB of matrices known to be non-singular.
 */
import type { Uplo } from '../../../core/enums.js';
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { precisionLetter, precisionPrelude } from '../common/precision.js';
import type { TrtriLeafParams } from './params.js';

/** Leaf sizes the generator accepts: powers of two up to 32 (registers: one column per thread). */
export const LEAF_SIZES: readonly number[] = [1, 2, 4, 8, 16, 32];

/** Threads per block at most (__launch_bounds__: room for a column of 32 in registers). */
export const LEAF_MAX_THREADS = 256;

/**
 * `inverseColumn(T, j, x)`: x := column j of inv(T) for the NB x NB identity-padded tile T
 * (column-major, leading dimension LDS) of a `uplo` triangle; NB and LDS are constants of the
 * kernel. Shared with the fused SPD inverse (kernels/poti/).
 */
export function inverseColumnSource(uplo: Uplo, unit: boolean): string {
  const divide = unit ? '' : '      x[k] = x[k] / T[k + k * LDS];\n';
  const loop = uplo === 'lower'
    ? `#pragma unroll
  for (int k = 0; k < NB; ++k) {
    if (k >= j) {
${divide}#pragma unroll
      for (int i = k + 1; i < NB; ++i) x[i] = fmaReal(-T[i + k * LDS], x[k], x[i]);
    }
  }`
    : `#pragma unroll
  for (int k = NB - 1; k >= 0; --k) {
    if (k <= j) {
${divide}#pragma unroll
      for (int i = 0; i < k; ++i) x[i] = fmaReal(-T[i + k * LDS], x[k], x[i]);
    }
  }`;
  return `static __device__ __forceinline__ void inverseColumn(const real* T, int j, real (&x)[NB]) {
#pragma unroll
  for (int i = 0; i < NB; ++i) x[i] = i == j ? real(1) : real(0);
  ${loop}
}`;
}

/**
 * The signature and first lines of a kernel with one identity-padded NB x NB tile per matrix in
 * shared memory, blockDim = (NB, matrices): T (this matrix's tile), m (its index), live (m < count).
 * Shared with the fused SPD inverse (kernels/poti/).
 */
export function tileKernelHead(entry: string, kind: TrtriLeafParams['kind'], maxThreads: number): string {
  return `extern "C" __global__ void __launch_bounds__(${maxThreads}) ${entry}(
    ${operandParameters('A', kind, true)}, const int* __restrict__ index, int count, int* __restrict__ info, int n) {
  extern __shared__ unsigned char smem[];
  real* T = reinterpret_cast<real*>(smem) + threadIdx.y * (NB * LDS);
  const int m = blockIdx.x * blockDim.y + threadIdx.y;
  const bool live = m < count;`;
}

/**
 * Thread r: x := column r of inv(T) (inverseColumn), then, once every thread has read T, the
 * columns of the inverse written over the tile. Leaves x in registers.
 */
export const INVERT_IN_TILE = `  real x[NB];
  inverseColumn(T, r, x);
  __syncthreads();
#pragma unroll
  for (int i = 0; i < NB; ++i) T[i + r * LDS] = x[i];
  __syncthreads();
`;

export function trtriLeafName(p: TrtriLeafParams): string {
  return `trtri_leaf_${precisionLetter(p.dtype)}_${p.uplo[0]}${p.diag[0]}_${kindTag(p.kind)}_${p.nb}`;
}

/**
 * The leaf's constants and device function (NB, LDS, UNIT, inverseColumn): the text before the
 * kernel, shared with the variable-size class kernel (generate-vbatched.ts).
 */
export function leafPrelude(p: Pick<TrtriLeafParams, 'dtype' | 'uplo' | 'diag' | 'nb'>): string {
  if (!LEAF_SIZES.includes(p.nb)) throw new Error(`trtri leaf size ${p.nb} is not one of ${LEAF_SIZES.join(', ')}`);
  const unit = p.diag === 'unit';
  return `${precisionPrelude(p.dtype)}
constexpr int NB = ${p.nb};
constexpr int LDS = NB + 1;   // odd: the tile is conflict-free by rows and by columns
constexpr bool UNIT = ${unit};

${inverseColumnSource(p.uplo, unit)}
`;
}

/**
 * The leaf's work on one block of the diagonal, after the kernel's head has set T (the matrix's
 * tile), live, t (the block's order, 0 <= t <= NB), a (the block's first element, or nullptr where
 * not live), ldA and info: load the triangle into the identity-padded tile, scan its diagonal
 * (bad: the first zero, 1-based; non-unit only), info[infoSlot] := bad where info is given, invert
 * in the tile, and store the inverse unless bad. Shared with the class kernel (generate-vbatched.ts).
 */
export function leafBody(uplo: Uplo, infoSlot: string): string {
  const inTriangle = uplo === 'lower' ? 'r >= c' : 'r <= c';
  return `  const int r = threadIdx.x;   // the row it loads and stores, the column of the inverse it computes
#pragma unroll 4
  for (int c = 0; c < NB; ++c) {
    real v = r == c ? real(1) : real(0);
    if (live && r < t && c < t && ${inTriangle} && !(UNIT && r == c)) v = a[r + (long long)c * ldA];
    T[r + c * LDS] = v;
  }
  __syncthreads();
  int bad = 0;
  if (!UNIT) {
    for (int c = t - 1; c >= 0; --c) if (T[c + c * LDS] == real(0)) bad = c + 1;
  }
  if (info != nullptr && live && r == 0) info[${infoSlot}] = bad;
${INVERT_IN_TILE}  if (!live || bad != 0 || r >= t) return;
  for (int c = 0; c < t; ++c) {
    if (${inTriangle} && !(UNIT && r == c)) a[r + (long long)c * ldA] = T[r + c * LDS];
  }
`;
}

export function trtriLeafSource(p: TrtriLeafParams): KernelSource {
  const entry = trtriLeafName(p);
  const source = `${leafPrelude(p)}
${tileKernelHead(entry, p.kind, LEAF_MAX_THREADS)}
  const int off = blockIdx.y * NB;
  const int t = min(NB, n - off);
  real* a = live ? ${matrixPointer('A', p.kind, 'm')} + off + (long long)off * ldA : nullptr;
${leafBody(p.uplo, 'index != nullptr ? index[m] : m')}}
`;
  return { name: `${entry}.cu`, source, entry };
}

/** Shared bytes of one matrix's tile. */
export function leafTileBytes(nb: number, elementBytes: number): number {
  return nb * (nb + 1) * elementBytes;
}

