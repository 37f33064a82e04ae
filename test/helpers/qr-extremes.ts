/**
 * Householder QR at float64's limits, for any context (the CPU backends' test and the GPU's): geqrf's
 * R and gels's X of a matrix scaled by a power of two (2^700, 2^-700, and 2^-1030, whose elements are
 * subnormal) against the unscaled matrix's, which they equal up to the scale (exactly in exact
 * arithmetic; the subnormal inputs keep 44 bits).
 */
import { strided } from '../../src/core/batch.js';
import type { Context } from '../../src/api/context.js';
import { values } from './eigen-residuals.js';

const COUNT = 3, NRHS = 2;

/** geqrf's A (R above the diagonal) and gels's X of the batch of n x n matrices, the middle matrix scaled by `scale`. */
function solve(ctx: Context, complex: boolean, n: number, scale: number): { r: Float64Array; x: Float64Array; info: number[] } {
  const parts = complex ? 2 : 1, per = parts * n * n, bper = parts * n * NRHS;
  const dtype = complex ? 'complex128' as const : 'float64' as const;
  const a = values(per * COUNT, 7), b = values(bper * COUNT, 11);
  for (let i = per; i < 2 * per; i++) a[i]! *= scale;
  for (let i = bper; i < 2 * bper; i++) b[i]! *= scale;
  const r = a.slice(), tau = new Float64Array(parts * n * COUNT), info = new Int32Array(COUNT);
  ctx.geqrf({ a: strided(r, { rows: n, count: COUNT, dtype }), tau: strided(tau, { rows: n, cols: 1, count: COUNT, dtype }), info });
  ctx.gels({ a: strided(a, { rows: n, count: COUNT, dtype }), b: strided(b, { rows: n, cols: NRHS, count: COUNT, dtype }), info });
  return { r: r.subarray(per, 2 * per), x: b.subarray(bper, 2 * bper), info: [...info] };
}

/**
 * What differs at 2^700, 2^-700 and 2^-1030 from the unscaled batch beyond the bounds (R within 1e-10
 * of its column's largest entry times the scale, X within 1e-9 relative): an empty list where geqrf and
 * gels scale.
 */
export function scaledQrFailures(ctx: Context, complex: boolean, n: number): string[] {
  const failures: string[] = [];
  const base = solve(ctx, complex, n, 1);
  const parts = complex ? 2 : 1;
  for (const e of [700, -700, -1030]) {
    const scale = 2 ** e;
    const got = solve(ctx, complex, n, scale);
    if (got.info.some((x) => x !== 0)) failures.push(`n ${n} 2^${e}: info ${got.info}`);
    // R's upper triangle (the reflectors below it are scale-free too, but compare R), column by column
    // within 1e-10 of the column's largest entry, and a few units of the subnormal spacing (2^-1074:
    // the absolute precision of a subnormal result).
    let bad = 0;
    for (let j = 0; j < n; j++) {
      let top = 0;
      for (let i = 0; i <= j; i++) for (let h = 0; h < parts; h++) top = Math.max(top, Math.abs(base.r[parts * (i + j * n) + h]!));
      for (let i = 0; i <= j; i++) for (let h = 0; h < parts; h++) {
        const at = parts * (i + j * n) + h, want = base.r[at]! * scale, have = got.r[at]!;
        if (!(Math.abs(have - want) <= 1e-10 * top * scale + 16 * Number.MIN_VALUE) && bad++ === 0) failures.push(`n ${n} 2^${e}: R(${i}, ${j})[${h}] ${have} against ${want}`);
      }
    }
    bad = 0;
    for (let i = 0; i < got.x.length; i++) {
      if (!(Math.abs(got.x[i]! - base.x[i]!) <= 1e-9 * (1 + Math.abs(base.x[i]!))) && bad++ === 0) failures.push(`n ${n} 2^${e}: X[${i}] ${got.x[i]} against ${base.x[i]}`);
    }
  }
  return failures;
}
