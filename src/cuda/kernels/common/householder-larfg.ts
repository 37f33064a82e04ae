/**
 * LAPACK's dlarfg by a whole thread block, as CUDA source, for the one-block-per-matrix reductions
 * (a column or a row of a matrix in global memory: any stride).
 */

/**
 * `blockLarfg(p, s, len, v, red, beta)`: the reflector H = I - tau (1, v)(1, v)^T with H x = (beta, 0,
 * ...) for x = (p[0], p[s], ..., p[(len - 1) s]): tau returned, beta through `beta`, the tail x_1 ...
 * x_{len-1} scaled into v's tail in place and copied to v[1 ... len-1] (shared memory; v[0], the unit
 * element, and p[0] are the caller's to write once every thread has returned). Where the tail is zero
 * (or its squares underflow) tau = 0, beta = x_0 and the tail is copied unscaled. Every thread computes
 * tau and beta from the same block sum, so the same bits. Every thread of the block must call it
 * (two barriers, `red` 32 reals of shared scratch). Needs `real`, `fmaReal`, `sqrtReal` and `blockSum`
 * (common/precision.ts, common/block-reduce.ts).
 */
export function blockLarfgSource(): string {
  return `static __device__ __forceinline__ real blockLarfg(real* __restrict__ p, long long s, int len, real* __restrict__ v, real* red, real& beta) {
  const int tid = threadIdx.x, nt = blockDim.x;
  const real alpha = p[0];
  real part = real(0);
  for (int r = 1 + tid; r < len; r += nt) { const real x = p[r * s]; part = fmaReal(x, x, part); }
  const real xx = blockSum(part, red);
  real tau = real(0);
  beta = alpha;
  if (xx > real(0)) {
    beta = -copysign(sqrtReal(fmaReal(alpha, alpha, xx)), alpha);
    tau = (beta - alpha) / beta;
    const real scal = real(1) / (alpha - beta);
    for (int r = 1 + tid; r < len; r += nt) { const real x = p[r * s] * scal; p[r * s] = x; v[r] = x; }
  } else {
    for (int r = 1 + tid; r < len; r += nt) v[r] = p[r * s];
  }
  return tau;
}`;
}
