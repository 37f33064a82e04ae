/**
 * Householder QR at float64's limits, for any context (the CPU backends' test and the GPU's) and for
 * the host emulations of the GPU kernels: geqrf's R and gels's X of a matrix scaled by a power of two
 * (2^700, 2^-700, and 2^-1030, whose elements are subnormal) against the unscaled matrix's, which they
 * equal up to the scale (exactly in exact arithmetic; the subnormal inputs keep 44 bits).
 *
 * The pieces are exported so that a host emulation feeds the same data to a kernel and checks what it
 * returns with the same bounds: `scaledQrBatch` (the batch, its middle matrix scaled), `rFailures`
 * and `xFailures` (the comparisons), `SCALE_EXPONENTS`.
 */
import { strided } from '../../src/core/batch.js';
import type { Context } from '../../src/api/context.js';
import { values } from './eigen-residuals.js';

/** Matrices of a batch (the middle one scaled) and right-hand sides of gels. */
export const QR_EXTREME_COUNT = 3;
export const QR_EXTREME_NRHS = 2;
/** The powers of two the middle matrix is scaled by. */
export const SCALE_EXPONENTS = [700, -700, -1030] as const;

/**
 * The batch of QR_EXTREME_COUNT m x n matrices (column-major, `parts` 2: interleaved complex) and
 * its m x QR_EXTREME_NRHS right-hand sides, the middle matrix and its right-hand sides times `scale`
 * (for m = n the data geqrf and gels get in `scaledQrFailures`).
 */
export function scaledQrBatch(complex: boolean, m: number, n: number, scale: number): { a: Float64Array; b: Float64Array } {
  const parts = complex ? 2 : 1, per = parts * m * n, bper = parts * m * QR_EXTREME_NRHS;
  const a = values(per * QR_EXTREME_COUNT, 7), b = values(bper * QR_EXTREME_COUNT, 11);
  for (let i = per; i < 2 * per; i++) a[i]! *= scale;
  for (let i = bper; i < 2 * bper; i++) b[i]! *= scale;
  return { a, b };
}

/** geqrf's A (R above the diagonal) and gels's X of the batch of n x n matrices, the middle matrix scaled by `scale`. */
function solve(ctx: Context, complex: boolean, n: number, scale: number): { r: Float64Array; x: Float64Array; info: number[] } {
  const parts = complex ? 2 : 1, per = parts * n * n, bper = parts * n * QR_EXTREME_NRHS;
  const dtype = complex ? 'complex128' as const : 'float64' as const;
  const { a, b } = scaledQrBatch(complex, n, n, scale);
  const r = a.slice(), tau = new Float64Array(parts * n * QR_EXTREME_COUNT), info = new Int32Array(QR_EXTREME_COUNT);
  ctx.geqrf({ a: strided(r, { rows: n, count: QR_EXTREME_COUNT, dtype }), tau: strided(tau, { rows: n, cols: 1, count: QR_EXTREME_COUNT, dtype }), info });
  ctx.gels({ a: strided(a, { rows: n, count: QR_EXTREME_COUNT, dtype }), b: strided(b, { rows: n, cols: QR_EXTREME_NRHS, count: QR_EXTREME_COUNT, dtype }), info });
  return { r: r.subarray(per, 2 * per), x: b.subarray(bper, 2 * bper), info: [...info] };
}

/**
 * R's upper triangle (min(m, n) rows) of the scaled matrix's factors `got` against the unscaled one's
 * `base` (both m x n column-major, `parts` reals an element) times 2^e, column by column within 1e-10
 * of the column's largest entry times the scale, and a few units of the subnormal spacing (2^-1074:
 * the absolute precision of a subnormal result); the reflectors below it are scale-free too, but R
 * is what is compared. At most one failure (the first) per call.
 */
export function rFailures(label: string, e: number, complex: boolean, m: number, n: number, base: ArrayLike<number>, got: ArrayLike<number>): string[] {
  const parts = complex ? 2 : 1, scale = 2 ** e;
  const failures: string[] = [];
  let bad = 0;
  for (let j = 0; j < n; j++) {
    const rows = Math.min(j, m - 1);
    let top = 0;
    for (let i = 0; i <= rows; i++) for (let h = 0; h < parts; h++) top = Math.max(top, Math.abs(base[parts * (i + j * m) + h]!));
    for (let i = 0; i <= rows; i++) for (let h = 0; h < parts; h++) {
      const at = parts * (i + j * m) + h, want = base[at]! * scale, have = got[at]!;
      if (!(Math.abs(have - want) <= 1e-10 * top * scale + 16 * Number.MIN_VALUE) && bad++ === 0) failures.push(`${label} 2^${e}: R(${i}, ${j})[${h}] ${have} against ${want}`);
    }
  }
  return failures;
}

/** gels's X of the scaled system `got` against the unscaled one's `base` (the same numbers: both sides scaled), within 1e-9 relative; the first failure. */
export function xFailures(label: string, e: number, base: ArrayLike<number>, got: ArrayLike<number>): string[] {
  for (let i = 0; i < got.length; i++) {
    if (!(Math.abs(got[i]! - base[i]!) <= 1e-9 * (1 + Math.abs(base[i]!)))) return [`${label} 2^${e}: X[${i}] ${got[i]} against ${base[i]}`];
  }
  return [];
}

/**
 * The least-squares X (n x nrhs) of a real m x n system (m >= n) from its geqrf factors `f` (m x n)
 * and `tau`, as gels completes it after geqrf: B := Q^T B reflector by reflector (dorm2r's order), then
 * R X = B(0:n) by back substitution dividing by R's diagonal. Plain float64 arithmetic with no
 * scaling, as the GPU's ormqr and triangular solve do it (they divide by the diagonal too), so a host
 * emulation of the GPU's geqrf can check gels's X without emulating the whole chain.
 */
export function solveFromFactors(m: number, n: number, nrhs: number, f: ArrayLike<number>, tau: ArrayLike<number>, b0: ArrayLike<number>): Float64Array {
  const b = Float64Array.from(b0);
  for (let c = 0; c < nrhs; c++) {
    const col = c * m;
    for (let j = 0; j < n; j++) {
      let w = b[col + j]!;
      for (let i = j + 1; i < m; i++) w += f[i + j * m]! * b[col + i]!;
      w *= tau[j]!;
      b[col + j] -= w;
      for (let i = j + 1; i < m; i++) b[col + i] -= w * f[i + j * m]!;
    }
    for (let i = n - 1; i >= 0; i--) {
      let s = b[col + i]!;
      for (let l = i + 1; l < n; l++) s -= f[i + l * m]! * b[col + l]!;
      b[col + i] = s / f[i + i * m]!;
    }
  }
  const x = new Float64Array(n * nrhs);
  for (let c = 0; c < nrhs; c++) for (let i = 0; i < n; i++) x[i + c * n] = b[i + c * m]!;
  return x;
}

/**
 * What differs at 2^700, 2^-700 and 2^-1030 from the unscaled batch beyond the bounds (R within 1e-10
 * of its column's largest entry times the scale, X within 1e-9 relative): an empty list where geqrf and
 * gels scale.
 */
export function scaledQrFailures(ctx: Context, complex: boolean, n: number): string[] {
  const failures: string[] = [];
  const base = solve(ctx, complex, n, 1);
  for (const e of SCALE_EXPONENTS) {
    const got = solve(ctx, complex, n, 2 ** e);
    if (got.info.some((x) => x !== 0)) failures.push(`n ${n} 2^${e}: info ${got.info}`);
    failures.push(...rFailures(`n ${n}`, e, complex, n, n, base.r, got.r), ...xFailures(`n ${n}`, e, base.x, got.x));
  }
  return failures;
}
