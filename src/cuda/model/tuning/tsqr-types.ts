/**
 * The tsqr family's tuning values.
 * - `minRows`, `minAspect`: the array-level qr routes a batch to TSQR where n <= 32,
 *   m >= minRows and m >= minAspect * n (below that the batched Householder kernels serve: they
 *   read A once, in shared memory, which tall matrices do not fit);
 * - `maxCount`: at most this many matrices per call (TSQR is for one or a few huge matrices; big
 *   batches of small ones belong to geqrf);
 * - `fallbackRatio`: CholeskyQR2 is trusted while ||R1||_F ||R1^{-1}||_F (>= cond_2(R1), about
 *   cond(A)) <= fallbackRatio / sqrt(u) (its Q1 is then orthogonal to about cond^2 u <=
 *   fallbackRatio^2, which the second pass repairs; Yamamoto et al. 2015); above that, or where
 *   the Cholesky of A^T A breaks down, shifted CholeskyQR3 runs (Fukaya et al. 2020). The same
 *   limit on R2 of the shifted route marks A numerically rank-deficient (info n + 1);
 * - `blocksPerSm`: blocks per SM of the Gram and store passes for one matrix (the grid-stride
 *   loops' width; the Gram pass leaves one n x n partial per block).
 */
export interface TsqrTuning {
  readonly minRows: number;
  readonly minAspect: number;
  readonly maxCount: number;
  readonly fallbackRatio: number;
  readonly blocksPerSm: number;
}
