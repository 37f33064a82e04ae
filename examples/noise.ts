/** Seeded Gaussian noise as NDArrays, for the examples (a small xorshift and Box-Muller). */
import { ndarray, type NDArray } from '../src/index.js';

/** A generator: `noise(shape, sigma)` is a new array of N(0, sigma^2) samples. */
export function gaussian(seed: number): (shape: readonly number[], sigma: number) => NDArray<Float64Array> {
  let s = (seed * 2654435761) >>> 0 || 1;
  const uniform = (): number => {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    return (s + 0.5) / 4294967296;
  };
  const normal = (): number => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  return (shape, sigma) => {
    const size = shape.reduce((p, d) => p * d, 1);
    return ndarray(Float64Array.from({ length: size }, () => sigma * normal()), shape);
  };
}
