/**
 * CUDA text the eigensolvers share: the tangent of a symmetric 2 x 2 rotation (the Jacobi designs'
 * pair rotation, the per-thread QL design's closed-form 2 x 2 block and Wilkinson shift).
 */
import type { DType } from '../../../core/dtype.js';
import { byPrecision } from '../../../core/dtype-table.js';

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

/**
 * The rotation that zeroes the off-diagonal of the symmetric block [p r; r q]: t the same smaller
 * root as `tangent((q - p) / (2 r))`, by the half-angle formula tan phi = sin 2phi / (1 + cos 2phi)
 * on reciprocal square roots alone (no division, no square root): with d = q - p and g = 2 r,
 * 1 / h = rsqrt(d^2 + g^2) gives cos 2phi = |d| / h and sin 2phi = sign(d) g / h (so |phi| <= pi / 4
 * and cos 2phi >= 0: 1 + cos 2phi never cancels); w = (1 + cos 2phi) / 2 = cos^2 phi and
 * rho = rsqrt(w) give t = (sin 2phi / 2) rho^2; then c = rsqrt(1 + t^2) and s = t c as in
 * Rutishauser's form, so c^2 + s^2 - 1 is the last rsqrt's error alone, and none for the small
 * angles of the last sweeps, where 1 + t^2 rounds to 1 (taking c and s from w and rho instead
 * left the earlier rsqrts' errors in every rotation, the same sign for those angles: V's
 * orthogonality drifted 5x further in float32 at n = 32 with rsqrt 2 ulps off). t itself is within
 * a few ulps, as Rutishauser's. d and g are formed after scaling p, q and r by the power of two that
 * brings the largest magnitude to [1, 2) (exactly; [2, 4) from 2^1023, 2^127 up, which the scale's
 * exponent field cannot reach), so d^2 + g^2 neither overflows nor loses d or g to underflow where
 * the pair rotates (its test bounds |r| below by tol sqrt|p q|). Needs `real`, absReal, fmaReal,
 * rsqrtReal.
 */
export function halfAngleRotation(dtype: DType): string {
  const unitScale = byPrecision(dtype, {
    double: `const int e = (__double2hiint(m) >> 20) & 0x7ff;
  return __hiloint2double((e < 2045 ? 2046 - e : 1) << 20, 0);`,
    single: `const int e = (__float_as_int(m) >> 23) & 0xff;
  return __int_as_float((e < 253 ? 254 - e : 1) << 23);`,
  });
  return `// 2^-floor(log2 m) for finite m >= 0 (m 2^.. in [1, 2); from the top binade, in [2, 4)): the biased exponent's complement.
static __device__ __forceinline__ real unitScale(real m) {
  ${unitScale}
}
// (c, s, t) of the rotation that zeroes the symmetric block [p r; r q]'s off-diagonal (r != 0): the half-angle tangent, three rsqrt.
static __device__ __forceinline__ void halfAngle(real p, real q, real r, real& c, real& s, real& t) {
  const real ap = absReal(p), aq = absReal(q), ar = absReal(r);
  const real m = ap > aq ? (ap > ar ? ap : ar) : (aq > ar ? aq : ar);
  const real sc = unitScale(m);
  const real d = q * sc - p * sc;
  const real g = real(2) * (r * sc);
  const real ih = rsqrtReal(fmaReal(d, d, g * g));
  const real w = fmaReal(real(0.5), absReal(d) * ih, real(0.5));
  const real half = real(0.5) * ((d >= real(0) ? g : -g) * ih);
  const real rho = rsqrtReal(w);
  t = half * (rho * rho);
  c = rsqrtReal(fmaReal(t, t, real(1)));
  s = t * c;
}`;
}
