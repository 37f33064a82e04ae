/**
 * CUDA text the complex Jacobi kernels share (generate-heev.ts, generate-gesvd.ts): the modulus of a
 * pair, the complex rotation J of cpu/complex/zrotation.ts applied to two columns ([x y] J) and to
 * two rows (J^H [x; y]), and one phase of a round of the warp designs.
 */
import type { DType } from '../../../core/dtype.js';
import { modulusReal2 } from '../common/complex.js';

/** The complex rotation applied to two columns and to two rows, and the modulus. */
export function rotationHelpers(dtype: DType): string {
  return `${modulusReal2(dtype)}
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
