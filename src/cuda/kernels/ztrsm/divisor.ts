/**
 * Smith's complex division as both ztrsm designs emit it (generate-small.ts divides by each lane's
 * diagonal, generate-columns.ts takes the reciprocal of each diagonal entry once): the branch of
 * cpu/complex/scalar.ts divideInto taken once per divisor. A zero divisor gives NaN, as there.
 */
/** The Divisor struct, divisorOf and divBy (CUDA text). */
export const DIVISOR = `// d prepared for Smith's division (divReal2's branch taken once): a / d =
// ((a.x m1 + a.y m2) / den, (a.y m1 - a.x m2) / den), with m1 = 1, m2 = d.y / d.x where |d.x| >= |d.y|,
// else m1 = d.x / d.y, m2 = 1 (den = d.x + d.y m2 or d.y + d.x m1). A zero d gives NaN.
struct Divisor { real m1, m2, den; };
static __device__ __forceinline__ Divisor divisorOf(real2 d) {
  Divisor s;
  if (absReal(d.x) >= absReal(d.y)) { s.m1 = real(1); s.m2 = d.y / d.x; s.den = d.x + d.y * s.m2; }
  else { s.m2 = real(1); s.m1 = d.x / d.y; s.den = d.y + d.x * s.m1; }
  return s;
}
static __device__ __forceinline__ real2 divBy(real2 a, const Divisor& s) {
  return makeReal2((a.x * s.m1 + a.y * s.m2) / s.den, (a.y * s.m1 - a.x * s.m2) / s.den);
}`;
