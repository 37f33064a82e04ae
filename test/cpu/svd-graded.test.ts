/**
 * gesvd on graded matrices, both CPU backends: rows scaled by 10^-40 ... 10^40 (float64, square)
 * and columns so scaled (complex128, wide), where LAPACK's dgesvd / zgesvd succeed with
 * orthonormal factors. One-sided Jacobi's relative test kept rotating the small columns on
 * rounding noise (info k + 1), and U (VT for the wide one) came out far from orthonormal: its
 * columns of small singular values carry errors of eps ||A|| / s_j. Checked by residuals that do
 * not depend on the library: info 0, ||U^H U - I||_F and ||VT VT^H - I||_F <= 30 k eps, and
 * ||A - U S VT||_F <= 30 max(m, n) eps ||A||_F.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { strided } from '../../src/core/batch.js';
import { open } from '../../src/api/open.js';
import { orthogonality, svdResidual, values } from '../helpers/eigen-residuals.js';

const EPS = 2 ** -52;

for (const backend of ['reference', 'cpu'] as const) {
  for (const [parts, m, n, gradeRows] of [[1, 48, 48, true], [2, 48, 60, false]] as const) {
    const dtype = parts === 2 ? 'complex128' as const : 'float64' as const;
    test(`${backend} gesvd ${dtype} ${m} x ${n}, ${gradeRows ? 'rows' : 'columns'} graded 10^-40 ... 10^40: info 0, orthonormal U and VT, A = U S VT`, async () => {
      const ctx = await open({ backend });
      const k = Math.min(m, n), count = 3, per = parts * m * n;
      const a = values(per * count, 21);
      const d = values(gradeRows ? m : n, 22).map((u) => 10 ** (80 * u));
      for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) for (let h = 0; h < parts; h++) a[per + parts * (i + j * m) + h]! *= d[gradeRows ? i : j]!;
      const a0 = a.slice(per, 2 * per);
      const s = new Float64Array(k * count), u = new Float64Array(parts * m * k * count), vt = new Float64Array(parts * k * n * count), info = new Int32Array(count);
      ctx.gesvd({
        a: strided(a, { rows: m, cols: n, count, dtype }), s: strided(s, { rows: k, cols: 1, count }), info,
        u: strided(u, { rows: m, cols: k, count, dtype }), vt: strided(vt, { rows: k, cols: n, count, dtype }),
      });
      assert.deepEqual([...info], [0, 0, 0], 'info');
      const U = u.subarray(parts * m * k, 2 * parts * m * k), VT = vt.subarray(parts * k * n, 2 * parts * k * n), S = s.subarray(k, 2 * k);
      assert.ok(orthogonality(U, parts, m, k, false) <= 30 * k * EPS, `||U^H U - I|| = ${orthogonality(U, parts, m, k, false)}`);
      assert.ok(orthogonality(VT, parts, k, n, true) <= 30 * k * EPS, `||VT VT^H - I|| = ${orthogonality(VT, parts, k, n, true)}`);
      const res = svdResidual(a0, U, S, VT, m, n, parts);
      assert.ok(res <= 30 * Math.max(m, n) * EPS, `||A - U S VT|| / ||A|| = ${res}`);
    });
  }
}
