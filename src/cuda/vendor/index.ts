/**
 * The vendor routes: cuBLAS and cuSOLVER routines as router candidates where a card's measured
 * crossover table (model/tuning/vendor-*.ts) says they are faster than the own kernels. Each keeps
 * this API's semantics: layouts (ld, stride, offset, list and variable batches) passed through or
 * packed, 0-based pivots, info per matrix as core/info.ts defines it (NaN and Inf too), nothing
 * written beyond what the operation writes. Their work runs on the device's stream; a graph does
 * not record it (the router passes over these candidates inside ctx.capture()).
 */
export { cublasComplexGemm, cublasComplexGemmCovers, cublasGemm, cublasGemmCovers, gemmSize, gemmVendorQuery } from './gemm.js';
export { cusolverGetrf, cusolverGetrfCovers } from './getrf.js';
export { cublasGesv, cublasGesvCovers, cublasGetrs, cublasGetrsCovers, type RoutedGetrf } from './getrs.js';
export { complexPotrfQuery, cusolverComplexPotrf, cusolverComplexPotrfCovers, cusolverPotrf, cusolverPotrfCovers } from './potrf.js';
export { cusolverHeev, cusolverHeevCovers, cusolverSyev, cusolverSyevCovers } from './syev.js';
export { cusolverSyevd, cusolverSyevdCovers, syevdTakes } from './syevd.js';
export { cusolverGesvd, cusolverGesvdCovers, denseGesvdShape, gesvdDenseTakes, type DenseGesvdShape, type FactorSource } from './gesvd.js';
export { cublasComplexTrsmCovers, cublasTrsm, cublasTrsmCovers } from './trsm.js';
export { vendorUsable, type VendorLibrary } from './native.js';
