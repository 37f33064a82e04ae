/**
 * Triangular solves with a computed factor, for any n: potrs and getrs, and the solve half of
 * posv/gesv beyond 32. A simple design (not from the paper): one block per (matrix, tile of up to
 * JT right-hand sides), the tile of B in shared memory, two substitution sweeps of one
 * __syncthreads per step; row r of the tile always belongs to thread r % blockDim, so the thread
 * that finishes row k in step k is the one that updated it before (no second barrier).
 *
 * Variants ('what op(T) is' in each sweep; T(i, j) read from A as noted):
 *   chol-lower: L y = b, L^T x = y          chol-upper: U^T y = b, U x = y
 *   lu-N:  L y = P b (unit), U x = y        lu-T: U^T y = b, L^T z = y (unit), x = P^T z
 * The row permutation of getrs comes from ipiv (0-based, applied in order as dlaswp).
 * With `skipFailed`, matrices whose info is non-zero are left alone (posv/gesv semantics).
 */
import type { DType } from '../../../core/dtype.js';
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { elementBytes, precisionLetter, precisionPrelude } from '../common/precision.js';
import { PERMUTATION_FROM_PIVOTS } from './generate-permute.js';
import type { SubstituteParams } from './params.js';

export const SUBSTITUTE_MAX_THREADS = 256;

export function substituteSharedBytes(dtype: DType, n: number, jt: number): number {
  return n * jt * elementBytes(dtype) + n * 4 + 16;
}

const LOWER = (i: string, j: string): string => `a[(${i}) + (long long)(${j}) * ldA]`;
const TRANS = (i: string, j: string): string => `a[(${j}) + (long long)(${i}) * ldA]`;

export function substituteSource(p: SubstituteParams): KernelSource {
  const entry = `solve_${precisionLetter(p.dtype)}_${p.variant.replace('-', '_')}_${kindTag(p.kindA)}${kindTag(p.kindB)}`;
  const lu = p.variant === 'lu-N' || p.variant === 'lu-T';
  // [access of sweep 1 (lower-triangular op(T)), unit?], [sweep 2 (upper-triangular op(T)), unit?]
  const sweeps = {
    'chol-lower': [[LOWER, false], [TRANS, false]],
    'chol-upper': [[TRANS, false], [LOWER, false]],
    'lu-N': [[LOWER, true], [LOWER, false]],
    'lu-T': [[TRANS, false], [TRANS, true]],
  } as const;
  const [[t1, unit1], [t2, unit2]] = sweeps[p.variant];
  const finalize = (unit: boolean, T: typeof LOWER): string => unit ? '' : `if (k % nt == tid) {
        const real d = ${T('k', 'k')};
        for (int c = 0; c < jt; ++c) sX[k + c * n] = sX[k + c * n] / d;
      }`;
  const source = `${precisionPrelude(p.dtype)}

extern "C" __global__ void __launch_bounds__(${SUBSTITUTE_MAX_THREADS}) ${entry}(
    ${operandParameters('A', p.kindA, false)},
    ${operandParameters('B', p.kindB, true)},
    const int* __restrict__ ipiv, int pivotStride, const int* __restrict__ info, int skipFailed,
    const int* __restrict__ index, int count, int n, int nrhs, int jtMax) {
  extern __shared__ __align__(16) unsigned char smemRaw[];
  real* sX = reinterpret_cast<real*>(smemRaw);               // n x jt, column-major (ld n)
  int* perm = reinterpret_cast<int*>(sX + (long long)n * jtMax);
  const long long mid = blockIdx.x;
  if (mid >= count) return;
  const long long id = index ? (long long)index[mid] : mid;
  if (skipFailed && info[id] != 0) return;
  const real* a = ${matrixPointer('A', p.kindA, 'mid')};
  real* b = ${matrixPointer('B', p.kindB, 'mid')};
  const int q0 = blockIdx.y * jtMax;
  const int jt = min(jtMax, nrhs - q0);
  const int tid = threadIdx.x, nt = blockDim.x;
  (void)ipiv; (void)pivotStride; (void)perm;
${lu ? `  ${PERMUTATION_FROM_PIVOTS}` : ''}
  for (int e = tid; e < n * jt; e += nt) {
    const int i = e % n, c = e / n;
    sX[e] = b[${p.variant === 'lu-N' ? 'perm[i]' : 'i'} + (long long)(q0 + c) * ldB];
  }
  __syncthreads();
  for (int k = 0; k < n; ++k) {                     // forward sweep
    ${finalize(unit1, t1)}
    __syncthreads();
    for (int r = tid; r < n; r += nt) {
      if (r > k) {
        const real t = ${t1('r', 'k')};
        for (int c = 0; c < jt; ++c) sX[r + c * n] = fmaReal(-t, sX[k + c * n], sX[r + c * n]);
      }
    }
  }
  for (int k = n - 1; k >= 0; --k) {                // backward sweep
    ${finalize(unit2, t2)}
    __syncthreads();
    for (int r = tid; r < n; r += nt) {
      if (r < k) {
        const real t = ${t2('r', 'k')};
        for (int c = 0; c < jt; ++c) sX[r + c * n] = fmaReal(-t, sX[k + c * n], sX[r + c * n]);
      }
    }
  }
  __syncthreads();
  for (int e = tid; e < n * jt; e += nt) {
    const int i = e % n, c = e / n;
    b[${p.variant === 'lu-T' ? 'perm[i]' : 'i'} + (long long)(q0 + c) * ldB] = sX[e];
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}
