/**
 * CUDA text the eigensolvers share: the tangent of a symmetric 2 x 2 rotation (the Jacobi designs'
 * pair rotation, the per-thread QL design's closed-form 2 x 2 block and Wilkinson shift).
 */

/**
 * tan of the rotation angle from cot(2 theta) = zeta: the smaller root of t^2 + 2 zeta t - 1 = 0
 * (Rutishauser), sign(zeta) / (|zeta| + sqrt(1 + zeta^2)). Needs `real`, absReal, sqrtReal and the
 * constant BIGZ (beyond it zeta^2 would overflow and t = 1 / (2 zeta) to working precision).
 */
export const TANGENT = `// tan of the rotation angle from cot(2 theta) = zeta: the smaller root (Rutishauser).
static __device__ __forceinline__ real tangent(real zeta) {
  const real sg = zeta >= real(0) ? real(1) : real(-1);
  const real az = absReal(zeta);
  return az > BIGZ ? sg / (real(2) * az) : sg / (az + sqrtReal(real(1) + az * az));
}`;
