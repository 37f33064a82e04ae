/**
 * A bank of Kalman filters: many independent targets, each tracked in 2-D with a constant-velocity
 * model (state [px, py, vx, vy], measured [px, py]). One step for the whole bank is a handful of
 * batched calls: gemm for the products, posv for the gain (S K^T = H P, S symmetric positive
 * definite), with every array an NDArray [filters, rows, cols] handed straight to the LAPACK
 * level (the bridge): no strides, no leading dimensions, no index arithmetic.
 *
 *   node dist/examples/kalman.js [filters] [steps]      (default 50000 filters, 20 steps)
 */
import { pathToFileURL } from 'node:url';
import { add, batchOf, broadcastTo, gemm, ndarray, posv, scale, subtract, type NDArray } from '../src/index.js';
import { gaussian } from './noise.js';
import { positiveArg } from './args.js';

export interface KalmanResult {
  /** Final state estimates [filters, 4, 1] and covariances [filters, 4, 4]. */
  x: NDArray<Float64Array>;
  P: NDArray<Float64Array>;
  /** The simulated true states [filters, 4, 1]. */
  truth: NDArray<Float64Array>;
  /** Milliseconds per step for the whole bank (median over the steps). */
  msPerStep: number;
}

const dt = 0.1;
const F = ndarray(new Float64Array([1, 0, dt, 0, 0, 1, 0, dt, 0, 0, 1, 0, 0, 0, 0, 1]), [4, 4]);
const H = ndarray(new Float64Array([1, 0, 0, 0, 0, 1, 0, 0]), [2, 4]);
const I4 = ndarray(new Float64Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]), [4, 4]);
const I2 = ndarray(new Float64Array([1, 0, 0, 1]), [2, 2]);
const Q = scale(I4, 1e-3);
const R = scale(I2, 0.05 ** 2);

export function runKalman(filters = 50_000, steps = 20, seed = 1): KalmanResult {
  const noise = gaussian(seed);
  const shape = (rows: number, cols: number): number[] => [filters, rows, cols];
  // One F, H, Q, R for the bank: repeated with stride 0 (read-only arguments).
  const Fs = batchOf(F, { count: filters });
  const Hs = batchOf(H, { count: filters });
  const Qs = broadcastTo(Q, shape(4, 4));
  const Rs = broadcastTo(R, shape(2, 2));

  let truth = add(broadcastTo(ndarray(new Float64Array([0, 0, 1, 0.5]), [4, 1]), shape(4, 1)), noise(shape(4, 1), 0.5));
  const x = ndarray(new Float64Array(filters * 4), shape(4, 1));
  const P = broadcastTo(scale(I4, 10), shape(4, 4));
  // Work arrays, reused every step.
  const xp = ndarray(new Float64Array(filters * 4), shape(4, 1));
  const FP = ndarray(new Float64Array(filters * 16), shape(4, 4));
  const HP = ndarray(new Float64Array(filters * 8), shape(2, 4));
  const KT = ndarray(new Float64Array(filters * 8), shape(2, 4));
  const S = ndarray(new Float64Array(filters * 4), shape(2, 2));
  const Hx = ndarray(new Float64Array(filters * 2), shape(2, 1));
  const times: number[] = [];

  for (let step = 0; step < steps; step++) {
    // The world moves; each filter gets a noisy position.
    const moved = ndarray(new Float64Array(filters * 4), shape(4, 1));
    gemm({ a: Fs, b: truth, c: moved });
    truth = moved;
    const z = ndarray(new Float64Array(filters * 2), shape(2, 1));
    gemm({ a: Hs, b: truth, c: z });
    const measured = add(z, noise(shape(2, 1), 0.05));

    const t0 = performance.now();
    // Predict: x = F x, P = F P F^T + Q.
    gemm({ a: Fs, b: x, c: xp });
    x.data.set(xp.data);
    gemm({ a: Fs, b: P, c: FP });
    P.data.set(Qs.data);
    gemm({ a: FP, b: Fs, transB: 'T', beta: 1, c: P });
    // Update: S = H P H^T + R, K^T = S^-1 H P (posv), x += K (z - H x), P -= K H P.
    gemm({ a: Hs, b: P, c: HP });
    S.data.set(Rs.data);
    gemm({ a: HP, b: Hs, transB: 'T', beta: 1, c: S });
    KT.data.set(HP.data);
    posv({ a: S, b: KT, check: true });
    gemm({ a: Hs, b: x, c: Hx });
    const y = subtract(measured, Hx);
    gemm({ transA: 'T', a: KT, b: y, beta: 1, c: x });
    gemm({ transA: 'T', alpha: -1, a: KT, b: HP, beta: 1, c: P });
    times.push(performance.now() - t0);
  }
  times.sort((p, q) => p - q);
  return { x, P, truth, msPerStep: times[Math.floor(times.length / 2)] ?? 0 };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const filters = positiveArg(2, 'filters', 50_000);
  const steps = positiveArg(3, 'steps', 20);
  const r = runKalman(filters, steps);
  const err = subtract(r.x, r.truth);
  const rms = Math.sqrt(err.data.reduce((s, v) => s + v * v, 0) / err.data.length);
  console.log(`kalman: ${filters} filters, ${steps} steps: ${r.msPerStep.toFixed(2)} ms per step (median), rms state error ${rms.toFixed(3)}`);
}
