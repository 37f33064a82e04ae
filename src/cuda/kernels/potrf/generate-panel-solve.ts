/**
 * The large Cholesky's panel solve with the inverted diagonal block (after
 * generate-diagonal.ts): A21 := A21 W^T in place, W = L11^-1 lower triangular ('upper': A12 :=
 * W A12, the same product on the transposed view). One thread block takes ROWS rows of the
 * panel: the rows (all `size` columns) and W go to shared memory first, so the product can be
 * written over its own input (no copy aside); each thread then accumulates a 4 x 4 tile of the
 * result on CUDA cores (the product is m nb^2 / 2 multiply-adds a panel: at n = 4096, 0.4 GFLOP over
 * the whole factorization, where a GEMM launch would cost more than the arithmetic).
 *
 * Why not a GEMM with W as a full matrix: its zeros above the diagonal would multiply every entry of
 * the row, and 0 x NaN is NaN. Here column c of the result sums only over k <= c, exactly the
 * substitution's dependence, so a non-finite input entry (i, k) leaves row i's columns before k as
 * LAPACK computes them (README: a failed matrix's columns before info are complete).
 */
import type { KernelSource } from '../../runtime/types.js';
import { operandParameters } from '../common/batch-pointer.js';
import { elementBytes, precisionLetter, precisionPrelude } from '../common/precision.js';
import { load4Source } from './generate-diagonal.js';
import type { PotrfDiagonalParams } from './params.js';

/** Rows of the panel per thread block. */
export const POTRF_PANEL_ROWS = 64;
const ROWS = POTRF_PANEL_ROWS;

/** Threads of a block: (nb / 4) column groups x (ROWS / 4) row groups. */
export function potrfPanelSolveThreads(nb: number): number {
  return (nb / 4) * (ROWS / 4);
}

/** Blocks along the panel for m rows. */
export function potrfPanelSolveBlocks(m: number): number {
  return Math.ceil(m / ROWS);
}

/** Dynamic shared bytes: the block's rows and W. */
export function potrfPanelSolveSharedBytes(p: PotrfDiagonalParams): number {
  return (p.nb * ROWS + p.nb * p.nb) * elementBytes(p.dtype);
}

/**
 * The panel solve's device functions with their macros (undefined after them, so that another
 * kernel's source can follow: generate-fused-panel.ts): `potrfPanelStageRows` (the block's rows
 * of the panel into shared memory), `potrfPanelStageW` (W; through L2 where another block of the
 * same launch wrote it) and `potrfPanelSolveRows` (the product, written over the rows). The
 * caller orders them with barriers. `threads` is the block's size: threads beyond the solve's
 * own take part in the staging and the barriers only.
 */
export function potrfPanelSolveDevice(p: PotrfDiagonalParams): string {
  // Element (i, k) of the panel as the lower factor sees it: A21 itself ('lower') or A12^T ('upper').
  const at = p.uplo === 'lower' ? 'a[(i) + (long long)(k) * ldA]' : 'a[(k) + (long long)(i) * ldA]';
  return `#define NB ${p.nb}
#define ROWS ${ROWS}
#define TR (ROWS / 4)
#define AT(i, k) ${at}
${load4Source(p.dtype)}

// xs[k * ROWS + r] = A(r0 + r, k): rows r0 ... r0 + ROWS - 1 of the panel (m x size), zeros outside.
static __device__ __forceinline__ void potrfPanelStageRows(real* xs, const real* __restrict__ a, int ldA, int m, int size, int r0, int threads) {
  for (int e = threadIdx.x; e < NB * ROWS; e += threads) {
    const int r = e % ROWS, k = e / ROWS;
    xs[e] = r0 + r < m && k < size ? AT(r0 + r, k) : real(0);
  }
}

// ws[k * NB + c] = W(c, k) for c, k < size, zeros beyond. viaL2: W was written by another block
// of this launch (read past L1).
static __device__ __forceinline__ void potrfPanelStageW(real* ws, const real* __restrict__ w, int size, int threads, bool viaL2) {
  for (int e = threadIdx.x; e < NB * NB; e += threads) {
    const int c = e % NB, k = e / NB;
    ws[e] = c < size && k < size ? (viaL2 ? __ldcg(w + c + k * NB) : w[c + k * NB]) : real(0);
  }
}

// A(r0 + i, c) := sum over k <= c of A(r0 + i, k) W(c, k), from the staged xs and ws.
static __device__ __forceinline__ void potrfPanelSolveRows(const real* xs, const real* ws, real* __restrict__ a, int ldA, int m, int size, int r0) {
  const int i0 = 4 * (threadIdx.x % TR), c0 = 4 * (threadIdx.x / TR);
  if (c0 >= size || r0 + i0 >= m) return;
  real acc[4][4];
#pragma unroll
  for (int r = 0; r < 4; ++r)
#pragma unroll
    for (int c = 0; c < 4; ++c) acc[r][c] = real(0);
  real x[4], v[4];
  // Columns c0 ... c0 + 3 of the result: every k < c0 whole ...
  for (int k = 0; k < c0; ++k) {
    load4(x, &xs[k * ROWS + i0]);
    load4(v, &ws[k * NB + c0]);
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
      for (int c = 0; c < 4; ++c) acc[r][c] = fmaReal(x[r], v[c], acc[r][c]);
  }
  // ... then k = c0 + kk only into columns c >= kk (W's triangle: nothing multiplies its zeros).
#pragma unroll
  for (int kk = 0; kk < 4; ++kk) {
    load4(x, &xs[(c0 + kk) * ROWS + i0]);
    load4(v, &ws[(c0 + kk) * NB + c0]);
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
      for (int c = 0; c < 4; ++c) if (c >= kk) acc[r][c] = fmaReal(x[r], v[c], acc[r][c]);
  }
#pragma unroll
  for (int r = 0; r < 4; ++r)
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      const int i = r0 + i0 + r, k = c0 + c;
      if (i < m && k < size) AT(i, k) = acc[r][c];
    }
}
#undef NB
#undef ROWS
#undef TR
#undef AT
`;
}

export function potrfPanelSolveSource(p: PotrfDiagonalParams): KernelSource {
  const entry = `potrf_psolve_${precisionLetter(p.dtype)}_${p.uplo === 'lower' ? 'l' : 'u'}_nb${p.nb}`;
  const threads = potrfPanelSolveThreads(p.nb);
  const source = `${precisionPrelude(p.dtype)}
${potrfPanelSolveDevice(p)}
// A: the panel (offset at its first element), m x size as the lower factor sees it; W: count
// inverses of NB x NB (ld NB), the leading size x size used.
extern "C" __global__ void __launch_bounds__(${threads}) ${entry}(
    ${operandParameters('A', 'strided', true)}, const real* __restrict__ W, int count, int m, int size) {
  extern __shared__ __align__(16) unsigned char smemRaw[];
  real* xs = reinterpret_cast<real*>(smemRaw);   // the block's rows
  real* ws = xs + ${p.nb * ROWS};                // W
  const int q = blockIdx.y;
  if (q >= count) return;
  const int r0 = blockIdx.x * ${ROWS};
  real* a = A + offsetA + (long long)q * strideA;
  potrfPanelStageW(ws, W + (long long)q * ${p.nb * p.nb}, size, ${threads}, false);
  potrfPanelStageRows(xs, a, ldA, m, size, r0, ${threads});
  __syncthreads();
  potrfPanelSolveRows(xs, ws, a, ldA, m, size, r0);
}
`;
  return { name: `${entry}.cu`, source, entry };
}
