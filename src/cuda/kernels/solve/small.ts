/**
 * Fused posv and gesv for n <= 32: factor in registers (potrf/small.ts, getrf/small.ts), then
 * solve with the factor still in registers, so A and B are each read once and written once.
 *
 * B is processed RB columns at a time (nrhs is a kernel argument): thread r keeps its RB entries
 * of the right-hand sides; each substitution step publishes one finished row through the same
 * double-buffered per-matrix shared buffer the factorisation uses (one __syncwarp per step).
 * - posv: L y = b (thread r holds L(r, :)), then L^T x = y, which needs L(k, r) in thread r:
 *   the factor is copied once to the slot's shared tile.
 * - gesv: rows never moved during the LU (delayed swapping), so thread r holds row r of B, which
 *   is row pos(r) of P B; L y = P b and U x = y use only the thread's own row of the factors, and
 *   x(pos) is written to row pos of B.
 * A matrix whose factorisation fails (info > 0) keeps its B, as LAPACK's posv/gesv.
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { KernelSource } from '../../runtime/types.js';
import { matrixPointer, operandParameters, type OperandKind } from '../common/batch-pointer.js';
import { precisionLetter } from '../common/precision.js';
import { getrfSmallLayout, luPrelude } from '../getrf/small.js';
import { kindTag } from '../potrf/operands.js';
import { loadFactorRows, slotSetup, smallPrelude, storeFactorRows, vectorWidth, type SmallLayout } from '../potrf/small.js';

export interface FusedSolveParams {
  readonly dtype: DType;
  readonly n: number;
  readonly kindA: OperandKind;
  readonly kindB: OperandKind;
  readonly warps: number;
}

/** Right-hand sides per pass: at most the column buffer's length (>= one 16-byte vector). */
export function rhsPerPass(dtype: DType, n: number): number {
  const vw = vectorWidth(dtype);
  return Math.min(4, Math.ceil(n / vw) * vw);
}

export function posvLayout(p: FusedSolveParams): SmallLayout {
  return { dtype: p.dtype, n: p.n, warps: p.warps, tile: true, lanes: p.n };
}

export function gesvLayout(p: FusedSolveParams): SmallLayout {
  return getrfSmallLayout(p.dtype, p.n, p.n, p.warps);
}

const loadRhs = (cond: string): string => `    real x[RB];
#pragma unroll
    for (int c = 0; c < RB; ++c) x[c] = (${cond} && q0 + c < nrhs) ? b[r + (long long)(q0 + c) * ldB] : real(0);`;

export function posvSmallSource(p: FusedSolveParams & { uplo: Uplo }): KernelSource {
  const entry = `posv_${precisionLetter(p.dtype)}_${p.uplo === 'lower' ? 'l' : 'u'}_n${p.n}_${kindTag(p.kindA)}${kindTag(p.kindB)}_w${p.warps}`;
  const source = `${smallPrelude(posvLayout(p))}
constexpr int RB = ${rhsPerPass(p.dtype, p.n)};

extern "C" __global__ void __launch_bounds__(WARPS * 32) ${entry}(
    ${operandParameters('A', p.kindA, true)},
    ${operandParameters('B', p.kindB, true)},
    int* __restrict__ info, const int* __restrict__ index, int count, int nrhs) {
${slotSetup()}
  real* a = valid ? ${matrixPointer('A', p.kindA, 'mid')} : nullptr;
  real* b = valid ? ${matrixPointer('B', p.kindB, 'mid')} : nullptr;
${loadFactorRows(p.uplo, 'a', 'ldA')}
  const int fail = choleskyRows(rA, r, c0, c1);
${storeFactorRows(p.uplo, 'a', 'ldA')}
  __syncwarp();
#pragma unroll
  for (int j = 0; j < N; ++j) if (j <= r) st[r + j * P] = rA[j];   // L, column-major
  __syncwarp();
  const bool solve = valid && fail == 0;
  for (int q0 = 0; q0 < nrhs; q0 += RB) {
${loadRhs('solve')}
#pragma unroll
    for (int k = 0; k < N; ++k) {                   // L y = b
      real* sx = (k & 1) ? c1 : c0;
      if (r == k) {
#pragma unroll
        for (int c = 0; c < RB; ++c) { x[c] = x[c] / rA[k]; sx[c] = x[c]; }
      }
      __syncwarp();
      if (r > k) {
#pragma unroll
        for (int c = 0; c < RB; ++c) x[c] = fmaReal(-rA[k], sx[c], x[c]);
      }
    }
#pragma unroll
    for (int k = N - 1; k >= 0; --k) {              // L^T x = y
      real* sx = ((2 * N - 1 - k) & 1) ? c1 : c0;
      if (r == k) {
#pragma unroll
        for (int c = 0; c < RB; ++c) { x[c] = x[c] / rA[k]; sx[c] = x[c]; }
      }
      __syncwarp();
      if (r >= 0 && r < k) {
        const real lkr = st[k + r * P];
#pragma unroll
        for (int c = 0; c < RB; ++c) x[c] = fmaReal(-lkr, sx[c], x[c]);
      }
    }
    if (solve) {
#pragma unroll
      for (int c = 0; c < RB; ++c) if (q0 + c < nrhs) b[r + (long long)(q0 + c) * ldB] = x[c];
    }
  }
  if (valid && r == 0) info[id] = fail;
}
`;
  return { name: `${entry}.cu`, source, entry };
}

export function gesvSmallSource(p: FusedSolveParams): KernelSource {
  const entry = `gesv_${precisionLetter(p.dtype)}_n${p.n}_${kindTag(p.kindA)}${kindTag(p.kindB)}_w${p.warps}`;
  const source = `${smallPrelude(gesvLayout(p))}
${luPrelude(p.dtype, p.n, p.n)}
constexpr int RB = ${rhsPerPass(p.dtype, p.n)};

extern "C" __global__ void __launch_bounds__(WARPS * 32) ${entry}(
    ${operandParameters('A', p.kindA, true)},
    ${operandParameters('B', p.kindB, true)},
    int* __restrict__ ipiv, int pivotStride, int* __restrict__ info, const int* __restrict__ index, int count, int nrhs) {
${slotSetup()}
  real* a = valid ? ${matrixPointer('A', p.kindA, 'mid')} : nullptr;
  real* b = valid ? ${matrixPointer('B', p.kindB, 'mid')} : nullptr;
  const bool hasRow = valid && r < ROWS;
  real rA[COLS];
#pragma unroll
  for (int j = 0; j < COLS; ++j) rA[j] = hasRow ? a[r + (long long)j * ldA] : real(0);
  int pos;
  const int inf = luRows(rA, hasRow ? r : -1, pos, c0, c1, valid ? ipiv + id * (long long)pivotStride : nullptr);
  if (hasRow) {
#pragma unroll
    for (int j = 0; j < COLS; ++j) a[pos + (long long)j * ldA] = rA[j];
  }
  const bool solve = hasRow && inf == 0;
  for (int q0 = 0; q0 < nrhs; q0 += RB) {
${loadRhs('solve')}
#pragma unroll
    for (int k = 0; k < N; ++k) {                   // L y = P b (unit diagonal)
      real* sx = (k & 1) ? c1 : c0;
      if (hasRow && pos == k) {
#pragma unroll
        for (int c = 0; c < RB; ++c) sx[c] = x[c];
      }
      __syncwarp();
      if (hasRow && pos > k) {
#pragma unroll
        for (int c = 0; c < RB; ++c) x[c] = fmaReal(-rA[k], sx[c], x[c]);
      }
    }
#pragma unroll
    for (int k = N - 1; k >= 0; --k) {              // U x = y
      real* sx = ((2 * N - 1 - k) & 1) ? c1 : c0;
      if (hasRow && pos == k) {
#pragma unroll
        for (int c = 0; c < RB; ++c) { x[c] = x[c] / rA[k]; sx[c] = x[c]; }
      }
      __syncwarp();
      if (hasRow && pos < k) {
#pragma unroll
        for (int c = 0; c < RB; ++c) x[c] = fmaReal(-rA[k], sx[c], x[c]);
      }
    }
    if (solve) {
#pragma unroll
      for (int c = 0; c < RB; ++c) if (q0 + c < nrhs) b[pos + (long long)(q0 + c) * ldB] = x[c];
    }
  }
  if (valid && r == 0) info[id] = inf;
}
`;
  return { name: `${entry}.cu`, source, entry };
}
