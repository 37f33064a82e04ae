/**
 * Test data and checks of the complex Hermitian rank-k update (host emulation and GPU tests of
 * kernels/zherk/): A's entries in the unit square, C's `uplo` triangle random with NaN in what
 * zherk must not read (the other triangle, the imaginary parts of the diagonal; all of C where beta
 * is 0, all of A where alpha is 0), and the comparison with the complex reference
 * (cpu/complex/zrankk.ts): inside C's triangle each part within 4 (k + 2) eps of
 * |alpha| sum_l |X(i, l)| |X(j, l)| + |beta| |C(i, j)| (the bound of a sum of k + 1 complex products,
 * each part of each product one rounding of a fused multiply-add), the diagonal's imaginary parts
 * exactly 0; outside, as the reference left them (NaN included).
 */
import assert from 'node:assert/strict';
import { DTYPE_EPS, type DType } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import { Rng } from './random.js';

export type Pairs = Float64Array | Float32Array;

/** The n x k matrix X = op-free view of A: X(i, l) = A(i, l) ('N') or conj(A(l, i)) ('C'), A at pair offset `off`, leading dimension `ld`. */
export function xAt(a: ArrayLike<number>, off: number, ld: number, trans: 'N' | 'C', i: number, l: number): [number, number] {
  const e = 2 * (trans === 'N' ? off + i + l * ld : off + l + i * ld);
  return trans === 'N' ? [a[e]!, a[e + 1]!] : [a[e]!, -a[e + 1]!];
}

/** Random parts in [-1, 1] over an rows x cols matrix at `off`; NaN instead where `nan`. */
export function fillMatrix(rng: Rng, a: Pairs, off: number, ld: number, rows: number, cols: number, nan: boolean): void {
  for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) {
    const e = 2 * (off + i + j * ld);
    a[e] = nan ? NaN : rng.uniform();
    a[e + 1] = nan ? NaN : rng.uniform();
  }
}

/** C's n x n at `off`: the `uplo` triangle random (NaN everywhere where `nan`), the other triangle and the diagonal's imaginary parts NaN. */
export function fillHermitian(rng: Rng, c: Pairs, off: number, ld: number, n: number, uplo: Uplo, nan: boolean): void {
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
    const e = 2 * (off + i + j * ld);
    const inside = uplo === 'lower' ? i >= j : i <= j;
    c[e] = inside && !nan ? rng.uniform() : NaN;
    c[e + 1] = inside && !nan && i !== j ? rng.uniform() : NaN;
  }
}

export interface HerkCheck {
  dtype: DType; n: number; k: number; uplo: Uplo; trans: 'N' | 'C'; alpha: number; beta: number;
}

/**
 * Checks one matrix: `got` and `want` (the reference's result) hold C at `cOff` (ld `ldc`), `a0`
 * the A and `c0` the C before the call (A at `aOff`, ld `lda`).
 */
export function checkHerkMatrix(h: HerkCheck, got: ArrayLike<number>, want: ArrayLike<number>, cOff: number, ldc: number,
  a0: ArrayLike<number>, aOff: number, lda: number, c0: ArrayLike<number>, what: string): void {
  const eps = DTYPE_EPS[h.dtype];
  const reads = h.alpha !== 0 && h.k > 0;
  for (let j = 0; j < h.n; j++) for (let i = 0; i < h.n; i++) {
    const e = 2 * (cOff + i + j * ldc);
    const inside = h.uplo === 'lower' ? i >= j : i <= j;
    if (!inside) {
      for (const f of [e, e + 1]) assert.ok(Object.is(got[f], want[f]) || (Number.isNaN(got[f]) && Number.isNaN(want[f])), `${what}: (${i}, ${j}) outside the triangle changed to ${got[f]}`);
      continue;
    }
    let sum = 0;
    if (reads) for (let l = 0; l < h.k; l++) {
      const [xr, xi] = xAt(a0, aOff, lda, h.trans, i, l);
      const [yr, yi] = xAt(a0, aOff, lda, h.trans, j, l);
      sum += Math.hypot(xr, xi) * Math.hypot(yr, yi);
    }
    const cMod = h.beta === 0 ? 0 : Math.hypot(c0[e]!, i === j ? 0 : c0[e + 1]!);
    const tol = 4 * (h.k + 2) * eps * (Math.abs(h.alpha) * sum + Math.abs(h.beta) * cMod);
    if (i === j) assert.ok(Object.is(got[e + 1], 0) || Object.is(got[e + 1], -0), `${what}: C(${i}, ${i}) has imaginary part ${got[e + 1]}`);
    for (const f of i === j ? [e] : [e, e + 1]) {
      const g = got[f]!, w = want[f]!;
      assert.ok(Number.isFinite(g) && Math.abs(g - w) <= tol, `${what}: C(${i}, ${j}) part ${f - e} is ${g}, expected ${w} (tolerance ${tol})`);
    }
  }
}
