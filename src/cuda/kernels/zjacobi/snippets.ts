/**
 * CUDA text the complex Jacobi kernels share (generate-heev.ts, generate-gesvd.ts): the modulus of a
 * pair, the rotation's phase, the complex rotation J of cpu/complex/zrotation.ts applied to two
 * columns ([x y] J) and to two rows (J^H [x; y]), and one phase of a round of the warp designs.
 */
import { byPrecision, cudaMath } from '../../../core/dtype-table.js';
import type { DType } from '../../../core/dtype.js';
import { modulusReal2 } from '../common/complex.js';

/**
 * Below this |g| the phase g / |g| is taken from g's scaled parts (the reference's PHASE_DIRECT_MIN,
 * cpu/complex/zrotation.ts, for float64; for float32 the same margin of 54 bits over the smallest
 * normal number relative to its 24-bit significand): above it g's larger part is normal with its
 * full precision, so g / |g| is a unit to rounding and keeps its bits.
 */
const PHASE_DIRECT_MIN = { double: '0x1p-968', single: '0x1p-101f' } as const;

/** The complex rotation applied to two columns and to two rows, the modulus and the phase. */
export function rotationHelpers(dtype: DType): string {
  const hypot = cudaMath(dtype, 'hypot');
  return `${modulusReal2(dtype)}
// e = g / |g| (gAbs = |g| > 0). Where |g| is near or below the smallest normal number (columns of
// rounding noise beside exactly dependent ones) it carries only a few bits and g / |g| is no unit, so
// J would not be unitary: the phase then comes from g's parts scaled by the larger one.
static __device__ __forceinline__ real2 tinyPhase(real2 g) {
  const real mx = absReal(g.x) > absReal(g.y) ? absReal(g.x) : absReal(g.y);
  const real xr = g.x / mx, xi = g.y / mx, h = ${hypot}(xr, xi);
  return makeReal2(xr / h, xi / h);
}
static __device__ __forceinline__ real2 unitPhase(real2 g, real gAbs) {
  return gAbs >= real(${byPrecision(dtype, PHASE_DIRECT_MIN)}) ? makeReal2(g.x / gAbs, g.y / gAbs) : tinyPhase(g);
}
// Columns: [x y] := [x y] J, x := c x - s conj(e) y, y := s e x + c y.
static __device__ __forceinline__ void rotColumns(real2& x, real2& y, real c, real s, real2 e) {
  const real2 a = x, b = y;
  x.x = c * a.x - s * (e.x * b.x + e.y * b.y);
  x.y = c * a.y - s * (e.x * b.y - e.y * b.x);
  y.x = s * (e.x * a.x - e.y * a.y) + c * b.x;
  y.y = s * (e.x * a.y + e.y * a.x) + c * b.y;
}
// Rows: [x; y] := J^H [x; y], x := c x - s e y, y := s conj(e) x + c y.
static __device__ __forceinline__ void rotRows(real2& x, real2& y, real c, real s, real2 e) {
  const real2 a = x, b = y;
  x.x = c * a.x - s * (e.x * b.x - e.y * b.y);
  x.y = c * a.y - s * (e.x * b.y + e.y * b.x);
  y.x = s * (e.x * a.x + e.y * a.y) + c * b.x;
  y.y = s * (e.x * a.y - e.y * a.x) + c * b.y;
}`;
}

/**
 * One phase of a round: lane pairs (k, idx) over the round's HALF pairs and `len` indices, each
 * applying pair k's rotation (c, s, e: the slot's cs, sn, ph) where it is not the identity (s != 0);
 * `body` the lines for index `index` of the pair's columns or rows pp, qq.
 */
export function pairLoop(len: string, index: string, body: readonly string[]): string {
  return `        for (int idx = tid; idx < HALF * ${len}; idx += T) {
          const int k = idx / ${len}, ${index} = idx % ${len};
          const real s = sn[k];
          if (s != real(0)) {
            const real c = cs[k];
            const real2 e = ph[k];
            int pp, qq;
            pairOf(r, k, pp, qq);
${body.map((l) => `            ${l}`).join('\n')}
          }
        }`;
}
