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
import { eigenResiduals, gradedSymmetric } from '../helpers/eigen-residuals.js';

const EPS = 2 ** -52;

for (const backend of ['reference', 'cpu'] as const) {
  for (const parts of [1, 2] as const) {
    test(`${backend} ${parts === 1 ? 'syev float64' : 'heev complex128'}: graded D B D (10^-40 ... 10^40) converges with info 0, residuals below 30 n eps`, async () => {
      const ctx = await open({ backend });
      // Draws on which the reference had reported info n + 1.
      for (const [n, seed] of parts === 1 ? [[48, 5]] as const : [[48, 3]] as const) {
        const a0 = gradedSymmetric(n, parts, 40, seed);
        const count = 3;
        const a = new Float64Array(parts * n * n * count);
        for (let p = 0; p < count; p++) a.set(p === 1 ? a0 : gradedSymmetric(n, parts, 0, seed + 10 * p), parts * n * n * p);
        const w = new Float64Array(n * count), info = new Int32Array(count);
        const dtype = parts === 2 ? 'complex128' as const : 'float64' as const;
        const request = { jobz: 'vectors' as const, uplo: 'lower' as const, a: strided(a, { rows: n, count, dtype }), w: strided(w, { rows: n, cols: 1, count }), info };
        if (parts === 2) ctx.heev(request); else ctx.syev(request);
        assert.deepEqual([...info], [0, 0, 0], `n ${n}: info`);
        const { res, orth } = eigenResiduals(a0, a.subarray(parts * n * n, 2 * parts * n * n), w.subarray(n, 2 * n), n, parts);
        assert.ok(res <= 30 * n * EPS, `n ${n}: ||A V - V W|| / ||A|| = ${res}`);
        assert.ok(orth <= 30 * n * EPS, `n ${n}: ||V^H V - I|| = ${orth}`);
      }
    });
  }
}
