/**
 * CUDA text of the Jacobi "rows" designs (a lane per row, the matrix in registers): the rotation of
 * two register slots of a lane's row, and the (c, s) record a pair's lane publishes in shared
 * memory for the other rows. After the precision prelude and the math helpers (fmaReal).
 */
export const ROWS_ROTATION = `// [x y] := [c x - s y, s x + c y] in a form symmetric to the bit: rotSlots(y, x, c, -s) computes the same
// two values, so a pair's slots may hold (p, q) or (q, p) with s signed to match.
static __device__ __forceinline__ void rotSlots(real& x, real& y, real c, real s) {
  const real a = x, b = y;
  x = fmaReal(c, a, -(s * b));
  y = fmaReal(c, b, s * a);
}
struct __align__(2 * sizeof(real)) Rotation { real c, s; };`;
