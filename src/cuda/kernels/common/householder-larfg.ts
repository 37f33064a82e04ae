/**
 * LAPACK's dlarfg as CUDA source, in the pieces more than one family builds reflectors with:
 *
 * - `reflectorTail`: the last step, v = x / (alpha - beta), for the Householder QR kernels (the real
 *   qr family's per-thread and shared-memory kernels, the complex zqr family's), safe for a column
 *   whose norm is subnormal;
 * - `blockLarfgSource`: the whole of dlarfg by a thread block, for the one-block-per-matrix
 *   reductions (a column or a row of a matrix in global memory: any stride). Its caller, the
 *   bidiagonal panel (bidiag/generate-panel.ts), works on G as the load stage of
 *   bidiag/generate-reduce.ts scaled it (its largest magnitude into [2^-250, 2^250]), so the
 *   unscaled sum of squares loses only squares below the underflow threshold, entries far below
 *   eps ||G||, and a nonzero sum (at least 2^-1074) keeps |alpha - beta| >= 2^-537: its reciprocal
 *   is finite.
 */

/** How `reflectorTail` writes v over x. */
export interface ReflectorTail {
  /** real (dlarfg) or `real2` pairs (zlarfg: needs mulReal2, scaleReal2 and recipReal2, common/complex.ts). */
  readonly complex: boolean;
  /** alpha - beta as an expression of the element type, evaluated once. */
  readonly den: string;
  /**
   * The statements that write v over x, given what one element becomes: `scaled(e)` is the
   * expression of e / (alpha - beta) for the expression e of that element.
   */
  readonly scale: (scaled: (e: string) => string) => readonly string[];
}

/**
 * dlarfg's v = x / (alpha - beta) (zlarfg's for pairs) as CUDA statements: x times the reciprocal of
 * alpha - beta. Where alpha - beta (both parts of the pair) lies below the smallest normal number, a
 * column whose whole norm is subnormal, that reciprocal overflows to Inf (a pair's: Smith's
 * 1 / (d.x + d.y q) does) and v became Inf or NaN; there x and alpha - beta are first multiplied by
 * 2^64, exactly (a power of two; |x_i| <= ||x|| <= |beta| <= |alpha - beta| < 2^-1021, so nothing
 * overflows), which brings alpha - beta to at least 2^-1010 (float32: 2^-85) and its reciprocal into
 * range: v by the same two roundings as the common path, whose arithmetic the branch leaves as it
 * is. LAPACK's dlarfg rescales such a column by 2^969 and computes beta again (the CPU reference
 * too, src/cpu/lapack/qr.ts larfgScaleUp); beta here keeps the subnormal precision (2^-1074
 * absolute) its scaled norm gives, which the trailing columns' own subnormal arithmetic matches.
 * NaN (every comparison fails) takes the scaled path, and v is NaN as the product makes it
 * elsewhere. Needs SAFMIN in the kernel (the smallest normal `real`, dtypeInfo's safeMin) and
 * absReal (common/precision.ts mathHelpers).
 */
export function reflectorTail(t: ReflectorTail): string[] {
  const type = t.complex ? 'real2' : 'real';
  const normal = t.complex ? 'absReal(den.x) >= SAFMIN || absReal(den.y) >= SAFMIN' : 'absReal(den) >= SAFMIN';
  const recip = (d: string): string => (t.complex ? `recipReal2(${d})` : `real(1) / ${d}`);
  const up = (e: string): string => (t.complex ? `scaleReal2(UP, ${e})` : `(${e} * UP)`);
  const times = (e: string): string => (t.complex ? `mulReal2(${e}, rden)` : `${e} * rden`);
  return [
    '{',
    `  const ${type} den = ${t.den};`,
    `  if (${normal}) {   // 1 / den is finite`,
    `    const ${type} rden = ${recip('den')};`,
    ...t.scale(times).map((l) => `    ${l}`),
    '  } else {   // |den| below the smallest normal: x and den times 2^64 (exact) first, so that 1 / den cannot overflow',
    '    constexpr real UP = real(0x1p+64);',
    `    const ${type} rden = ${recip(up('den'))};`,
    ...t.scale((e) => times(up(e))).map((l) => `    ${l}`),
    '  }',
    '}',
  ];
}

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
