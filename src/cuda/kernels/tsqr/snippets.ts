/**
 * CUDA text the tsqr kernels share: the triangular factors as the row kernels keep them in shared
 * memory, and the solve of one row against them.
 */

/** Elements of one packed upper-triangular n x n factor. */
export const packedTriangle = (n: number): number => (n * (n + 1)) / 2;

/**
 * `loadFactors(F, fac, count, tid, threads)`: factors 0..count-1 of one matrix (column-major
 * n x n upper triangles, F + s * N * N) into shared memory packed by columns (column j at
 * j (j + 1) / 2), each diagonal entry stored as its reciprocal.
 * `solveRow(x, f)`: x := x R^{-1} for one such factor: forward substitution along the row
 * (y_j = (x_j - sum_{i<j} y_i R_ij) / R_jj), fully unrolled so x stays in registers; every thread
 * reads the same factor entry at a time (a shared-memory broadcast).
 */
export function factorHelpers(): string {
  return `static __device__ __forceinline__ void loadFactors(const real* __restrict__ F, real* fac, int count, int tid, int threads) {
  for (int e = tid; e < count * N * N; e += threads) {
    const int s = e / (N * N), i = e % N, j = (e / N) % N;
    if (i <= j) fac[s * TRI + j * (j + 1) / 2 + i] = i == j ? (real)1 / F[e] : F[e];
  }
}
static __device__ __forceinline__ void solveRow(real (&x)[N], const real* f) {
#pragma unroll
  for (int j = 0; j < N; ++j) {
    real s = x[j];
#pragma unroll
    for (int i = 0; i < j; ++i) s = fmaReal(-x[i], f[j * (j + 1) / 2 + i], s);
    x[j] = s * f[j * (j + 1) / 2 + j];
  }
}`;
}
