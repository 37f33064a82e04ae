/**
 * syev and heev on graded symmetric / Hermitian matrices D B D (D's entries 10^-40 ... 10^40, B
 * random), both CPU backends: info 0 where LAPACK's dsyev / zheev succeed, and the results checked
 * by residuals that do not depend on the library: ||A V - V W||_F <= 30 n eps ||A||_F and
 * ||V^H V - I||_F <= 30 n eps. The reference's cyclic Jacobi had reported info n + 1 there (its
 * relative test kept rotating on rounding noise after the off-diagonal part had fallen below
 * n eps ||A||_F), and the array level's eigh threw NUMERICAL on such a matrix.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { strided } from '../../src/core/batch.js';
import { open } from '../../src/api/open.js';

const EPS = 2 ** -52;

/** Deterministic values in [-0.5, 0.5). */
function values(length: number, seed: number): Float64Array {
  let s = seed >>> 0;
  return Float64Array.from({ length }, () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 2 ** 32 - 0.5; });
}

/** D B D, n x n, column-major; `parts` 2: Hermitian (interleaved), 1: symmetric. */
function graded(n: number, parts: 1 | 2, decades: number, seed: number): Float64Array {
  const b = values(parts * n * n, seed), d = values(n, seed + 1).map((u) => 10 ** (2 * decades * u));
  const a = new Float64Array(parts * n * n);
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      const lo = Math.min(i, j), hi = Math.max(i, j);
      const at = parts * (i + j * n), from = parts * (hi + lo * n);   // B's lower triangle, mirrored
      a[at] = d[i]! * b[from]! * d[j]!;
      if (parts === 2) a[at + 1] = i === j ? 0 : (i > j ? 1 : -1) * d[i]! * b[from + 1]! * d[j]!;
    }
  }
  return a;
}

/** ||A V - V W||_F / ||A||_F and ||V^H V - I||_F, complex arithmetic on interleaved parts (parts 1: real). */
function residuals(a: Float64Array, v: Float64Array, w: Float64Array, n: number, parts: 1 | 2): { res: number; orth: number } {
  const get = (x: Float64Array, i: number, j: number): [number, number] => [x[parts * (i + j * n)]!, parts === 2 ? x[parts * (i + j * n) + 1]! : 0];
  let res = 0, na = 0, orth = 0;
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      let re = 0, im = 0, gr = 0, gi = 0;
      for (let k = 0; k < n; k++) {
        const [ar, ai] = get(a, i, k), [vr, vi] = get(v, k, j);
        re += ar * vr - ai * vi; im += ar * vi + ai * vr;
        const [xr, xi] = get(v, k, i);   // (V^H V)(i, j) = sum conj(v_ki) v_kj
        gr += xr * vr + xi * vi; gi += xr * vi - xi * vr;
      }
      const [vr, vi] = get(v, i, j);
      res += (re - vr * w[j]!) ** 2 + (im - vi * w[j]!) ** 2;
      const [ar, ai] = get(a, i, j);
      na += ar * ar + ai * ai;
      orth += (gr - (i === j ? 1 : 0)) ** 2 + gi ** 2;
    }
  }
  return { res: Math.sqrt(res / na), orth: Math.sqrt(orth) };
}

for (const backend of ['reference', 'cpu'] as const) {
  for (const parts of [1, 2] as const) {
    test(`${backend} ${parts === 1 ? 'syev float64' : 'heev complex128'}: graded D B D (10^-40 ... 10^40) converges with info 0, residuals below 30 n eps`, async () => {
      const ctx = await open({ backend });
      // Draws on which the reference had reported info n + 1.
      for (const [n, seed] of parts === 1 ? [[48, 5]] as const : [[48, 3]] as const) {
        const a0 = graded(n, parts, 40, seed);
        const count = 3;
        const a = new Float64Array(parts * n * n * count);
        for (let p = 0; p < count; p++) a.set(p === 1 ? a0 : graded(n, parts, 0, seed + 10 * p), parts * n * n * p);
        const w = new Float64Array(n * count), info = new Int32Array(count);
        const dtype = parts === 2 ? 'complex128' as const : 'float64' as const;
        const request = { jobz: 'vectors' as const, uplo: 'lower' as const, a: strided(a, { rows: n, count, dtype }), w: strided(w, { rows: n, cols: 1, count }), info };
        if (parts === 2) ctx.heev(request); else ctx.syev(request);
        assert.deepEqual([...info], [0, 0, 0], `n ${n}: info`);
        const { res, orth } = residuals(a0, a.subarray(parts * n * n, 2 * parts * n * n), w.subarray(n, 2 * n), n, parts);
        assert.ok(res <= 30 * n * EPS, `n ${n}: ||A V - V W|| / ||A|| = ${res}`);
        assert.ok(orth <= 30 * n * EPS, `n ${n}: ||V^H V - I|| = ${orth}`);
      }
    });
  }
}
