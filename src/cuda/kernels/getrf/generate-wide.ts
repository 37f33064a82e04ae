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
import { COLUMN_UPDATE, REGISTER_COLUMN_SHARED, registerColumnStep, rolledColumnStep } from './column-step.js';
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
 * Whether the sub-block's column steps run as a rolled loop (column-step.ts rolledColumnStep: one copy
 * of the step's common code, a dispatch on the column to its scaling and update) rather than unrolled
 * (NB copies of the whole step). Compile time (nvcc 13, sm_90, CPU) is about proportional to the
 * copies: float64 16-column sub-blocks 1.8-2.5 s unrolled, 0.6 s rolled; float32 16-column 1.6-1.9 s
 * (two rows a thread 3.5 s) against 0.6 s (1.0 s), 32-column 9-11 s against 0.9-1.1 s. Rolled where
 * measured to add no local memory inside a loop (ptxas -v, and the SASS's local loads and stores by
 * the loop that holds them): sub-blocks of 16 columns or more, in float32 at any block size and in
 * float64 up to 512 threads (registers equal or fewer: float64 t512 106 -> 78, t64 164 -> 120; at
 * t128 and float32 t256 one 4-byte value is stored and reloaded once a sub-block, outside its loops).
 * Not at float64 with 1024 threads (64 registers a thread): the rolled steps spill in the L21 U loop
 * (5 local accesses an iteration); nor for the narrower sub-blocks at several rows a thread, where
 * ptxas's allocation at 64 registers moved both ways and the unrolled steps compile in 0.7-2.8 s.
 */
function rolledSteps(p: GetrfWideParams): boolean {
  return p.nb >= 16 && (byPrecision(p.dtype, { double: false, single: true }) || p.threads <= 512);
}

/**
 * The wide leaf's pivot step also swaps the panel's columns outside the register sub-block (global
 * memory, a thread per column, pivots in order). At most W - 1 such columns: where the block has
 * that many threads, each thread has at most one, and the step can be an 'if' rather than a loop
 * (the same work). Taken with the rolled steps (registers equal or fewer than the loop form's: float32
 * 32-column sub-blocks 72-82 -> 64), and, as measured with the steps unrolled, for float32 16-column
 * sub-blocks at one or two rows a thread. The loop form is not unrolled where the steps are unrolled
 * with 16 columns (float64 at 1024 threads: the unrolled copies of the loop spilled, 4 / 64 bytes, and
 * none without them); the narrower sub-blocks keep the loop as the compiler unrolls it (measured both
 * ways at 64 registers).
 */
function wideOtherColumns(p: GetrfWideParams): string {
  const swap = `        real* col = a + (long long)(cc < g0 ? cc : cc + gw) * ldA;
        const real t = col[k];
        col[k] = col[piv];
        col[piv] = t;
`;
  const single = byPrecision(p.dtype, { double: false, single: true });
  const oneEach = p.threads >= p.width - 1;
  if (oneEach && (rolledSteps(p) || (single && p.nb === 16 && p.rowsPerThread <= 2))) {
    return `      // The panel's other columns in global memory: a thread per column (T >= W - 1: one at most), pivots in order.
      if (tid < w - gw) {
        const int cc = tid;
${swap}      }
`;
  }
  return `      // The panel's other columns in global memory: a thread per column, pivots in order.
${p.nb >= 16 ? '#pragma unroll 1\n' : ''}      for (int cc = tid; cc < w - gw; cc += T) {
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
${rolledSteps(p) ? COLUMN_UPDATE : ''}
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
${rolledSteps(p) ? rolledColumnStep(nb, 'g0', wideOtherColumns(p)) : `#pragma unroll
    for (int kk = 0; kk < NB; ++kk) {
      if (kk >= gw) break;
      const int k = g0 + kk;
${registerColumnStep('kk', wideOtherColumns(p))}    }
`}    // 4. Store the sub-block; its rows g0 ... g0+gw-1 of L (now final) into sL.
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
