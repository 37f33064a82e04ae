/**
 * The blocked LU's wide leaf (plan.ts getrfBlockedSteps with a leaf wider than the registers hold):
 * dgetrf on an m x w panel (w <= W) of every matrix in ONE launch, one block per matrix. The tall
 * leaf (generate-tall.ts) holds its whole panel in registers, so at 3,000+ rows it is 4 columns wide
 * and a 4096 matrix takes 704 leaves with four launches around each; here the panel stays in global
 * memory (L2) and is factored in sub-blocks of NB columns (the tall leaf's width for these rows),
 * left-looking inside the panel (LAPACK's dgetrf2 / Crout order; gpu-only-cholesky.txt keeps the
 * panel on the device the same way):
 * 1. load the sub-block's NB columns into registers (thread t: rows t, t + T, ...);
 * 2. rows above it: U := L11^-1 A12 (forward substitution, a warp per column, L11's columns in shared
 *    memory), then the rows below: A -= L21 U (L21 read from global, one coalesced row of it per
 *    thread and column);
 * 3. factor the sub-block as the tall leaf does (pivot by warp shuffles and one shared array, swap,
 *    scale, rank-1 update; two barriers a column), and apply each pivot at once to the panel's other
 *    columns in global memory (a thread per column, in pivot order: rows above a sub-block never
 *    move again, so L11 is final as soon as its sub-block is);
 * 4. store the sub-block, and copy its rows of L into the shared L11.
 * Shared arrays by columns, so that a warp's lanes (consecutive rows) hit distinct banks.
 * Pivots 0-based absolute rows (off + the panel's row); info, zeroed by the driver, takes the first
 * zero pivot; a singular matrix goes on being factored as dgetf2 does (a zero pivot neither swaps
 * nor scales).
 */
import { byPrecision } from '../../../core/dtype-table.js';
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { elementBytes, precisionLetter, precisionPrelude } from '../common/precision.js';
import { pivotHelpers } from './generate-panel.js';
import { REGISTER_COLUMN_SHARED, registerColumnStep } from './column-step.js';
import type { GetrfWideParams } from './params.js';

/** The widest panel the wide leaf takes (its L11 in shared memory: W^2 values). */
export const WIDE_MAX = 64;

/** Static shared bytes of a wide leaf (at most 48 KiB compile): L11, the rows above a sub-block, the reductions. */
export function wideSharedBytes(p: Pick<GetrfWideParams, 'dtype' | 'width' | 'nb' | 'threads'>): number {
  const e = elementBytes(p.dtype);
  return e * (p.width * p.width + p.nb * p.width + 4 * p.nb) + (e + 4) * 2 * (p.threads / 32);
}

/** The widest sub-block (a power of two, at most `nb`) whose wide leaf fits static shared memory. */
export function wideSubBlock(p: Pick<GetrfWideParams, 'dtype' | 'width' | 'nb' | 'threads'>): number {
  let nb = p.nb;
  while (nb > 1 && wideSharedBytes({ ...p, nb }) > 48 * 1024) nb >>= 1;
  return nb;
}

/**
 * The wide leaf's pivot step also swaps the panel's columns outside the register sub-block (global
 * memory, a thread per column, pivots in order). At most W - 1 such columns: where the block has
 * that many threads, each thread has at most one, and the step can be an 'if' rather than a loop
 * (the same work; the compiler unrolled the loop form in each of the NB copies of the column step).
 * Taken where measured to pay and to cost nothing (nvcc sm_90 CPU time, ptxas -v): float32 with the
 * tables' 16-column sub-blocks and one or two rows a thread, 1.9-2.3 s -> 1.5-1.8 s (t1024 r2 4.1 ->
 * 2.8 s), registers equal (t256: 63 -> 64, the same allocation in units of 8) or fewer (t64: 94 -> 80),
 * spills none where there were none. Elsewhere ptxas's allocation moved the other way (float64
 * t1024 and t128, float32 32-column sub-blocks at t512, the 4- and 8-column ones at three or more
 * rows a thread gained spills), so those keep the loop.
 */
function wideOtherColumns(p: GetrfWideParams): string {
  const swap = `        real* col = a + (long long)(cc < g0 ? cc : cc + gw) * ldA;
        const real t = col[k];
        col[k] = col[piv];
        col[piv] = t;
`;
  const measuredSafe = byPrecision(p.dtype, { double: false, single: true });
  return measuredSafe && p.nb === 16 && p.rowsPerThread <= 2 && p.threads >= p.width - 1
    ? `      // The panel's other columns in global memory: a thread per column (T >= W - 1: one at most), pivots in order.
      if (tid < w - gw) {
        const int cc = tid;
${swap}      }
`
    : `      // The panel's other columns in global memory: a thread per column, pivots in order.
      for (int cc = tid; cc < w - gw; cc += T) {
${swap}      }
`;
}

export function getrfWideSource(p: GetrfWideParams): KernelSource {
  const { width, nb, threads, rowsPerThread } = p;
  const entry = `getrf_wide_${precisionLetter(p.dtype)}_w${width}_nb${nb}_t${threads}_r${rowsPerThread}_${kindTag(p.kind)}`;
  const source = `${precisionPrelude(p.dtype)}
${pivotHelpers(p.dtype)}
constexpr int W = ${width};
constexpr int NB = ${nb};
constexpr int T = ${threads};
constexpr int R = ${rowsPerThread};
constexpr int NW = T / 32;

// A points at the panel's first element A(off, off); m rows, w <= W columns (m >= w).
extern "C" __global__ void __launch_bounds__(T) ${entry}(
    ${operandParameters('A', p.kind, true)},
    int* __restrict__ ipiv, int pivotStride, int* __restrict__ info, const int* __restrict__ index, int count,
    int m, int w, int off) {
${REGISTER_COLUMN_SHARED}  __shared__ real sL[W * W];     // L11 by columns: sL[i * W + j] = L(j, i), j > i
  __shared__ real sU[NB * W];    // the sub-block's rows above it by columns: sU[c * W + j]
  const long long mid = blockIdx.x;
  if (mid >= count) return;
  const long long id = index ? (long long)index[mid] : mid;
  real* a = ${matrixPointer('A', p.kind, 'mid')};
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  int* pv = ipiv + id * (long long)pivotStride + off;
  int inf = info[id];
  for (int g0 = 0; g0 < w; g0 += NB) {
    const int gw = min(NB, w - g0);
    real v[R][NB];
#pragma unroll
    for (int i = 0; i < R; ++i) {
      const int r = tid + i * T;
#pragma unroll
      for (int c = 0; c < NB; ++c) v[i][c] = r < m && c < gw ? a[r + (long long)(g0 + c) * ldA] : real(0);
    }
    if (g0 > 0) {
      // 2. U := L11^-1 A12 on the rows above the sub-block (sL holds L11's rows 0 ... g0-1) ...
#pragma unroll
      for (int i = 0; i < R; ++i) {
        const int r = tid + i * T;
        if (r < g0) {
#pragma unroll
          for (int c = 0; c < NB; ++c) sU[c * W + r] = v[i][c];
        }
      }
      __syncthreads();
      for (int c = warp; c < gw; c += NW) {
        for (int i = 0; i < g0; ++i) {
          const real u = sU[c * W + i];
          for (int j = i + 1 + lane; j < g0; j += 32) sU[c * W + j] = fmaReal(-sL[i * W + j], u, sU[c * W + j]);
          __syncwarp();
        }
      }
      __syncthreads();
      // ... and A22 -= L21 U below them.
#pragma unroll
      for (int i = 0; i < R; ++i) {
        const int r = tid + i * T;
        if (r < g0) {
#pragma unroll
          for (int c = 0; c < NB; ++c) v[i][c] = sU[c * W + r];
        } else if (r < m) {
          for (int j = 0; j < g0; ++j) {
            const real l = a[r + (long long)j * ldA];
#pragma unroll
            for (int c = 0; c < NB; ++c) v[i][c] = fmaReal(-l, sU[c * W + j], v[i][c]);
          }
        }
      }
    }
    // 3. The sub-block's columns, as the tall leaf (k: the panel's column, kk: the sub-block's).
#pragma unroll
    for (int kk = 0; kk < NB; ++kk) {
      if (kk >= gw) break;
      const int k = g0 + kk;
${registerColumnStep('kk', wideOtherColumns(p))}    }
    // 4. Store the sub-block; its rows g0 ... g0+gw-1 of L (now final) into sL.
#pragma unroll
    for (int i = 0; i < R; ++i) {
      const int r = tid + i * T;
#pragma unroll
      for (int c = 0; c < NB; ++c) if (r < m && c < gw) a[r + (long long)(g0 + c) * ldA] = v[i][c];
    }
    __syncthreads();
    for (int e = tid; e < gw * (g0 + gw); e += T) {
      const int j = g0 + e % gw, i = e / gw;
      if (i < j) sL[i * W + j] = a[j + (long long)i * ldA];
    }
    __syncthreads();
  }
  if (tid == 0) info[id] = inf;
}
`;
  return { name: `${entry}.cu`, source, entry };
}
