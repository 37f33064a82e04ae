/**
 * Eigen and singular values of matrices whose largest entry is subnormal (below 2^-1022) or just
 * above it, on both CPU backends, real and complex: the drivers scale such a matrix by a power of two
 * before the sweeps or the reduction, and a scale of 2^1024 (Infinity) once turned every output
 * NaN with info 0. Checked against the same matrix scaled up by 2^600 (exact: the same significands,
 * in the range no scaling touches), whose values, scaled back, the tiny matrix's must match.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { open, strided } from '../../src/index.js';
import { Rng } from '../helpers/random.js';

const UP = 2 ** 600;
const SUBNORMAL_ULP = 2 ** -1074;
const ORDERS = [1, 2, 3, 4, 5, 8, 17, 33];
const MAGNITUDES = [1e-310, 4e-322, 2.5e-308];

/** A Hermitian (symmetric where real) matrix of order n, column-major, entries about `mag`. */
function hermitian(rng: Rng, n: number, mag: number, complex: boolean): Float64Array {
  const c = complex ? 2 : 1;
  const a = new Float64Array(c * n * n);
  for (let j = 0; j < n; j++) {
    for (let i = j; i < n; i++) {
      const re = mag * rng.uniform(-1, 1), im = complex && i !== j ? mag * rng.uniform(-1, 1) : 0;
      a[c * (i + j * n)] = re;
      a[c * (j + i * n)] = re;
      if (complex) { a[c * (i + j * n) + 1] = im; a[c * (j + i * n) + 1] = -im; }
    }
  }
  return a;
}

function values(backend: 'cpu' | 'reference', a: Float64Array, n: number, complex: boolean, op: 'eigen' | 'svd', jobz: 'values' | 'vectors') {
  const ctx = open({ backend });
  const dtype = complex ? 'complex128' : 'float64';
  const out = new Float64Array(n);
  const A = strided(a.slice(), { rows: n, count: 1, dtype });
  const w = strided(out, { rows: n, cols: 1, count: 1 });
  const info = op === 'svd'
    ? ctx.gesvd({ jobu: jobz === 'vectors' ? 'thin' : 'none', jobvt: jobz === 'vectors' ? 'thin' : 'none', a: A, s: w,
      ...(jobz === 'vectors' ? { u: strided(new Float64Array(a.length), { rows: n, count: 1, dtype }), vt: strided(new Float64Array(a.length), { rows: n, count: 1, dtype }) } : {}) }).info[0]
    : complex ? ctx.heev({ jobz, a: A, w }).info[0] : ctx.syev({ jobz, a: A, w }).info[0];
  return { info, out };
}

describe('eigen and singular values of matrices near and below the underflow threshold', () => {
  it('syev, heev and gesvd: info 0, finite, the values of the matrix scaled up by 2^600 scaled back', () => {
    const rng = new Rng(20261201);
    for (const backend of ['cpu', 'reference'] as const) {
      for (const complex of [false, true]) {
        for (const n of ORDERS) {
          for (const mag of MAGNITUDES) {
            const tiny = hermitian(rng, n, mag, complex);
            const big = tiny.map((x) => x * UP);
            for (const op of ['eigen', 'svd'] as const) {
              for (const jobz of ['values', 'vectors'] as const) {
                const at = `${backend} ${complex ? 'complex128' : 'float64'} ${op} ${jobz} n = ${n}, |a| ~ ${mag}`;
                const small = values(backend, tiny, n, complex, op, jobz);
                const ref = values(backend, big, n, complex, op, jobz);
                assert.equal(small.info, 0, at);
                assert.equal(ref.info, 0, at);
                const scale = Math.max(...ref.out.map(Math.abs));
                assert.ok(scale > 0, at);
                ref.out.forEach((x, j) => {
                  const y = small.out[j]!;
                  assert.ok(Number.isFinite(y), `${at}: value ${j} is ${y}`);
                  // The inputs carry few bits at these magnitudes, but the same ones at both scales; a
                  // subnormal output is rounded to a multiple of 2^-1074 (SUBNORMAL_ULP).
                  assert.ok(Math.abs(y * UP - x) <= 1e-12 * scale + SUBNORMAL_ULP * UP, `${at}: value ${j} ${y * UP} against ${x}`);
                });
              }
            }
          }
        }
      }
    }
  });
});
