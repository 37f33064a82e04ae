/**
 * Principal stresses: the eigenvalues of many symmetric 3x3 stress tensors, and their principal
 * directions, at the array level (eigh on a stack [tensors, 3, 3]) and, for the values alone, at
 * the LAPACK level through the bridge (syev on the same NDArray, `w` an NDArray [tensors, 3, 1],
 * check: true). No index arithmetic.
 *
 *   node dist/examples/stresses.js [tensors]      (default 200000)
 */
import { pathToFileURL } from 'node:url';
import { add, eigh, ndarray, syev, transpose, type NDArray } from '../src/index.js';
import { gaussian } from './noise.js';
import { positiveArg } from './args.js';

export interface StressResult {
  sigma: NDArray<Float64Array>;
  /** Principal stresses [tensors, 3], ascending, and directions [tensors, 3, 3] (columns). */
  values: NDArray<Float64Array>;
  vectors: NDArray<Float64Array>;
  /** The same values from syev (LAPACK level) [tensors, 3, 1]. */
  syevValues: NDArray<Float64Array>;
  msEigh: number;
  msSyev: number;
}

export function runStresses(tensors = 200_000, seed = 2): StressResult {
  const noise = gaussian(seed);
  // Random symmetric tensors: (G + G^T) / 2 plus a hydrostatic part.
  const g = noise([tensors, 3, 3], 50);
  const sigma = add(add(g, transpose(g)), ndarray(new Float64Array([100, 0, 0, 0, 100, 0, 0, 0, 100]), [3, 3]));

  let t0 = performance.now();
  const { values, vectors } = eigh(sigma);
  const msEigh = performance.now() - t0;

  const work = ndarray(sigma.data.slice(), sigma.shape);
  const syevValues = ndarray(new Float64Array(tensors * 3), [tensors, 3, 1]);
  t0 = performance.now();
  syev({ a: work, w: syevValues, jobz: 'values', check: true });
  const msSyev = performance.now() - t0;
  return { sigma, values, vectors, syevValues, msEigh, msSyev };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const tensors = positiveArg(2, 'tensors', 200_000);
  const r = runStresses(tensors);
  console.log(`stresses: ${tensors} tensors: eigh (values and directions) ${r.msEigh.toFixed(1)} ms, syev (values) ${r.msSyev.toFixed(1)} ms`);
}
