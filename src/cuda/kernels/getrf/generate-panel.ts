/**
 * Batched LU with partial pivoting beyond 32 rows or columns: a blocked right-looking fallback
 * (not the paper's fused left-looking design), two kernels per panel of IB columns:
 *
 * 1. `getrf_panel`: one block per matrix factors A(i0:m, i0:i0+ib) in shared memory (dgetf2:
 *    block-wide idamax with LAPACK's tie and NaN rules, swap inside the panel, scale, rank-1 update),
 *    writes the panel back and its pivots (0-based, absolute row numbers).
 * 2. `getrf_update`: blocks of (matrix, 32 columns outside the panel) apply the panel's swaps to
 *    their columns (dlaswp on both sides, as dgetrf); right of the panel they also solve
 *    U12 = L11^-1 A12 (one thread per column) and update A22 -= L21 U12 (threads over rows).
 */
import type { DType } from '../../../core/dtype.js';
import { dtypeInfo } from '../../../core/dtype-table.js';
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { elementBytes, mathHelpers, precisionLetter, precisionPrelude } from '../common/precision.js';
import type { GetrfPanelParams } from './params.js';

export const GETRF_PANEL_THREADS = 512;
export const UPDATE_THREADS = 256;
/** Columns per block of the update kernel. */
export const UPDATE_COLUMNS = 32;

export function getrfPanelSharedBytes(p: GetrfPanelParams, m: number): number {
  return m * p.ib * elementBytes(p.dtype);
}

/** |x| with LAPACK's tie rule for the block-wide pivot search, and the safe minimum of dgetf2's scaling. */
export function pivotHelpers(dtype: DType): string {
  return `${mathHelpers(dtype)}
constexpr real SAFE_MIN = ${dtypeInfo(dtype).cuda.safeMin};
// (key, position) pairs: the larger key wins, ties go to the smaller position (idamax).
static __device__ __forceinline__ void better(real& key, int& pos, real okey, int opos) {
  if (okey > key || (okey == key && opos < pos)) { key = okey; pos = opos; }
}
static __device__ __forceinline__ void warpBest(real& key, int& pos) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) {
    const real ok = __shfl_xor_sync(0xffffffffu, key, off);
    const int op = __shfl_xor_sync(0xffffffffu, pos, off);
    better(key, pos, ok, op);
  }
}`;
}

export function getrfPanelSource(p: GetrfPanelParams): KernelSource {
  return panelSource(p, {
    tag: 'panel',
    parameters: `${operandParameters('A', p.kind, true)},
    int* __restrict__ ipiv, int pivotStride, int* __restrict__ info, const int* __restrict__ index, int count,
    int M, int NCOLS, int i0`,
    opening: `const long long id = index ? (long long)index[mid] : mid;
  real* a = ${matrixPointer('A', p.kind, 'mid')};`,
  });
}

/** The class kernels' opening: the member's M, NCOLS, ldA and batch index from the int table (getrf/generate-vbatched.ts). */
const MEMBER_OPENING = `const int M = dims[4 * mid], NCOLS = dims[4 * mid + 1], ldA = dims[4 * mid + 2];
  const long long id = dims[4 * mid + 3];`;

/**
 * A size class of a variable batch (common/vbatch.ts): the panel at column i0 of every member of
 * the class, each member's pointer, m, n, ld and batch index from device tables (ints: m, n, ld,
 * index, GETRF_VBATCH_INTS); a member whose min(m, n) <= i0 leaves at once (before any barrier: a
 * block is one member). m and n are run-time values in this design anyway, so a member sees
 * exactly the uniform kernel's operations for the same IB.
 */
export function getrfPanelVbatchedSource(p: GetrfPanelParams): KernelSource {
  if (p.kind !== 'pointer') throw new Error('the vbatched panel kernel reads a pointer table: kind must be pointer');
  return panelSource(p, {
    tag: 'vpanel',
    parameters: `real* const* __restrict__ A, const int* __restrict__ dims,
    int* __restrict__ ipiv, int pivotStride, int* __restrict__ info, int count, int i0`,
    opening: `${MEMBER_OPENING}
  if (i0 >= min(M, NCOLS)) return;                // the member's panels are done
  real* a = A[mid];`,
  });
}

/** What the uniform and the class kernels differ in: parameters and the block's matrix (id, a; the class kernel also M, NCOLS, ldA). */
interface PanelFrame {
  readonly tag: string;
  readonly parameters: string;
  readonly opening: string;
}

function panelSource(p: GetrfPanelParams, f: PanelFrame): KernelSource {
  const entry = `getrf_${f.tag}_${precisionLetter(p.dtype)}_ib${p.ib}_${kindTag(p.kind)}`;
  const source = `${precisionPrelude(p.dtype)}
${pivotHelpers(p.dtype)}
constexpr int IB = ${p.ib};

extern "C" __global__ void __launch_bounds__(${GETRF_PANEL_THREADS}) ${entry}(
    ${f.parameters}) {
  extern __shared__ __align__(16) unsigned char smemRaw[];
  real* sP = reinterpret_cast<real*>(smemRaw);   // panel, m x ib, column-major (ld m)
  __shared__ real redKey[32];
  __shared__ int redPos[32];
  __shared__ int sPiv;
  const long long mid = blockIdx.x;
  if (mid >= count) return;
  ${f.opening}
  const int K = min(M, NCOLS);
  const int m = M - i0;
  const int ib = min(IB, K - i0);
  const int tid = threadIdx.x, nt = blockDim.x, lane = tid & 31, warp = tid >> 5, nwarps = (nt + 31) >> 5;
  int* pv = ipiv + id * (long long)pivotStride;
  int inf = i0 == 0 ? 0 : info[id];
  for (int e = tid; e < m * ib; e += nt) {
    const int r = e % m, c = e / m;
    sP[e] = a[i0 + r + (long long)(i0 + c) * ldA];
  }
  __syncthreads();
  for (int k = 0; k < ib; ++k) {
    real key = real(-2);
    int kp = 0x7fffffff;
    for (int r = k + tid; r < m; r += nt) {
      const real x = sP[r + k * m];
      better(key, kp, x != x ? (r == k ? infReal() : real(-1)) : absReal(x), r);
    }
    warpBest(key, kp);
    if (lane == 0) { redKey[warp] = key; redPos[warp] = kp; }
    __syncthreads();
    if (warp == 0) {
      key = lane < nwarps ? redKey[lane] : real(-2);
      kp = lane < nwarps ? redPos[lane] : 0x7fffffff;
      warpBest(key, kp);
      if (lane == 0) sPiv = kp;
    }
    __syncthreads();
    const int piv = sPiv;
    const real pivot = sP[piv + k * m];
    if (tid == 0) pv[i0 + k] = i0 + piv;
    __syncthreads();                                 // all have read the pivot before the swap
    if (pivot != real(0)) {
      if (piv != k) {
        for (int c = tid; c < ib; c += nt) {
          const real t = sP[k + c * m];
          sP[k + c * m] = sP[piv + c * m];
          sP[piv + c * m] = t;
        }
      }
    } else if (inf == 0) {
      inf = i0 + k + 1;
    }
    __syncthreads();
    const bool scale = pivot != real(0);
    const bool small = absReal(pivot) < SAFE_MIN;
    const real rcp = real(1) / pivot;
    for (int r = k + 1 + tid; r < m; r += nt) {
      real l = sP[r + k * m];
      if (scale) l = small ? l / pivot : l * rcp;
      sP[r + k * m] = l;
#pragma unroll
      for (int j = k + 1; j < IB; ++j)
        if (j < ib) sP[r + j * m] = fmaReal(-l, sP[k + j * m], sP[r + j * m]);
    }
    __syncthreads();
  }
  for (int e = tid; e < m * ib; e += nt) {
    const int r = e % m, c = e / m;
    a[i0 + r + (long long)(i0 + c) * ldA] = sP[e];
  }
  if (tid == 0) info[id] = inf;
}
`;
  return { name: `${entry}.cu`, source, entry };
}

export function getrfUpdateSource(p: GetrfPanelParams): KernelSource {
  return updateSource(p, {
    tag: 'update',
    parameters: `${operandParameters('A', p.kind, true)},
    const int* __restrict__ ipiv, int pivotStride, const int* __restrict__ index, int count,
    int M, int NCOLS, int i0, int ib`,
    opening: `const long long id = index ? (long long)index[mid] : mid;
  real* a = ${matrixPointer('A', p.kind, 'mid')};`,
  });
}

/**
 * The update after the class panel kernel's launch at column i0 (getrfPanelVbatchedSource): the
 * member's panel width ib = min(IB, min(m, n) - i0) from its table entry; a member with nothing
 * left (ib <= 0), or a tile past its columns, leaves at once.
 */
export function getrfUpdateVbatchedSource(p: GetrfPanelParams): KernelSource {
  if (p.kind !== 'pointer') throw new Error('the vbatched update kernel reads a pointer table: kind must be pointer');
  return updateSource(p, {
    tag: 'vupdate',
    parameters: `real* const* __restrict__ A, const int* __restrict__ dims,
    const int* __restrict__ ipiv, int pivotStride, int count, int i0`,
    opening: `${MEMBER_OPENING}
  const int ib = min(IB, min(M, NCOLS) - i0);
  if (ib <= 0) return;                            // the member's panels are done
  real* a = A[mid];`,
  });
}

function updateSource(p: GetrfPanelParams, f: PanelFrame): KernelSource {
  const entry = `getrf_${f.tag}_${precisionLetter(p.dtype)}_ib${p.ib}_${kindTag(p.kind)}`;
  const source = `${precisionPrelude(p.dtype)}
constexpr int IB = ${p.ib};
constexpr int JT = ${UPDATE_COLUMNS};

extern "C" __global__ void __launch_bounds__(${UPDATE_THREADS}) ${entry}(
    ${f.parameters}) {
  __shared__ real sL[IB * IB];
  __shared__ real sX[IB * JT];
  const long long mid = blockIdx.x;
  if (mid >= count) return;
  ${f.opening}
  const int tid = threadIdx.x, nt = blockDim.x;
  const int leftTiles = (i0 + JT - 1) / JT;
  const int tile = blockIdx.y;
  const bool right = tile >= leftTiles;
  const int c0 = right ? i0 + ib + (tile - leftTiles) * JT : tile * JT;
  const int cEnd = right ? min(NCOLS, c0 + JT) : min(i0, c0 + JT);
  if (c0 >= cEnd) return;
  const int nc = cEnd - c0;
  const int* pv = ipiv + id * (long long)pivotStride + i0;
  if (right) {
    for (int e = tid; e < ib * ib; e += nt) sL[e] = a[i0 + e % ib + (long long)(i0 + e / ib) * ldA];
  }
  __syncthreads();
  if (tid < nc) {
    real* col = a + (long long)(c0 + tid) * ldA;
    for (int k = 0; k < ib; ++k) {                 // dlaswp
      const int pr = pv[k];
      if (pr != i0 + k) { const real t = col[i0 + k]; col[i0 + k] = col[pr]; col[pr] = t; }
    }
    if (right) {                                     // U12 = L11^-1 A12, unit diagonal
      real x[IB];
#pragma unroll
      for (int k = 0; k < IB; ++k) {
        if (k < ib) {
          real s = col[i0 + k];
#pragma unroll
          for (int j = 0; j < k; ++j) s = fmaReal(-sL[k + j * ib], x[j], s);
          x[k] = s;
          col[i0 + k] = s;
          sX[k * JT + tid] = s;
        }
      }
    }
  }
  if (!right) return;
  __syncthreads();
  for (int r = i0 + ib + tid; r < M; r += nt) {      // A22 -= L21 U12
    real l[IB];
#pragma unroll
    for (int k = 0; k < IB; ++k) l[k] = k < ib ? a[r + (long long)(i0 + k) * ldA] : real(0);
    for (int cc = 0; cc < nc; ++cc) {
      real* dst = a + r + (long long)(c0 + cc) * ldA;
      real s = *dst;
#pragma unroll
      for (int k = 0; k < IB; ++k) if (k < ib) s = fmaReal(-l[k], sX[k * JT + cc], s);
      *dst = s;
    }
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}
