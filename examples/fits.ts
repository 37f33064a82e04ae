/**
 * Many cubic least-squares fits: each series of 50 samples on one grid t is fitted with
 * y = c0 + c1 t + c2 t^2 + c3 t^3. The design matrix A [50, 4] is shared: lstsq broadcasts it
 * against b [fits, 50, 1] (as solve and matmul do). The LAPACK-level gels takes the same data
 * through the bridge (A broadcast to [fits, 50, 4], since gels overwrites it) and `asArray` reads
 * the solutions, the first 4 rows of each b, back as a stack. Since A is shared, the series can
 * also be the columns of one b [50, fits] (one QR instead of one per fit). No index arithmetic.
 *
 *   node dist/examples/fits.js [fits]      (default 10000)
 */
import { pathToFileURL } from 'node:url';
import { add, asArray, broadcastTo, gels, lstsq, matmul, ndarray, strided, transpose, type NDArray } from '../src/index.js';
import { gaussian } from './noise.js';
import { positiveArg } from './args.js';

export interface FitResult {
  /** The true coefficients [fits, 4, 1] and the fitted ones, from lstsq and from gels. */
  coefficients: NDArray<Float64Array>;
  lstsq: NDArray<Float64Array>;
  gels: NDArray<Float64Array>;
  /** The shared A solved once for every series as the columns of one b [50, fits] (x [4, fits]). */
  columns: NDArray<Float64Array>;
  msLstsq: number;
  msGels: number;
  msColumns: number;
}

export const SAMPLES = 50;

export function runFits(fits = 10_000, seed = 3): FitResult {
  const noise = gaussian(seed);
  const t = Array.from({ length: SAMPLES }, (_, i) => -1 + (2 * i) / (SAMPLES - 1));
  const A = ndarray(new Float64Array(t.flatMap((s) => [1, s, s ** 2, s ** 3])), [SAMPLES, 4]);
  const coefficients = noise([fits, 4, 1], 1);
  const y = add(matmul(A, coefficients), noise([fits, SAMPLES, 1], 0.01));

  let t0 = performance.now();
  const { x } = lstsq(A, y);
  const msLstsq = performance.now() - t0;

  const a = broadcastTo(A, [fits, SAMPLES, 4]);
  const b = ndarray(y.data.slice(), y.shape);
  t0 = performance.now();
  gels({ a, b, check: true });
  const msGels = performance.now() - t0;
  // X is the first 4 rows of each b: a strided view of b's rows, read back as [fits, 4, 1].
  const solution = asArray(strided(b.data, { rows: 4, cols: 1, count: fits, order: 'row', stride: SAMPLES }));
  // With one A for every series, the series can also be the columns of one right-hand side.
  const columnsB = transpose(ndarray(y.data, [fits, SAMPLES]));
  t0 = performance.now();
  const columns = lstsq(A, columnsB).x;
  const msColumns = performance.now() - t0;
  return { coefficients, lstsq: x, gels: solution, columns, msLstsq, msGels, msColumns };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const fits = positiveArg(2, 'fits', 10_000);
  const r = runFits(fits);
  console.log(`fits: ${fits} cubic fits of ${SAMPLES} samples: lstsq (A broadcast) ${r.msLstsq.toFixed(1)} ms, gels ${r.msGels.toFixed(1)} ms, lstsq with the series as columns of b ${r.msColumns.toFixed(1)} ms`);
}
