/**
 * poti (potrf + potri in one call) and inv(a, { assume: 'spd' }) on the CPU reference: residuals
 * ||A inv(A) - I|| that do not depend on the implementation, the other triangle untouched, list
 * and variable batches, and a matrix that is not positive definite in a batch of good ones (potrf's
 * info, the matrix left as potrf leaves it, the others exact).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matrixAt } from '../../../src/core/batch.js';
import { cpuPoti, cpuPotrf, cpuPotri } from '../../../src/cpu/lapack/index.js';
import * as m from '../../../src/index.js';
import { MyriadError } from '../../../src/index.js';
import { inverseResidual, readDense, readSymmetric } from '../../helpers/lapack-checks.js';
import {
  DTYPES, PADDED, Rng, SIZES, THRESHOLD, UPLOS, assertOnlyRegionWritten, eps, info, place, randomSpd, sameBits, snapshot,
} from './fixtures.js';

describe('cpuPoti', () => {
  for (const dtype of DTYPES)
    for (const uplo of UPLOS)
      it(`${dtype} ${uplo}: A poti(A) = I over sizes`, () => {
        const rng = new Rng(81);
        for (const n of SIZES) {
          const mats = [0, 1].map(() => randomSpd(rng, n, dtype));
          const p = place(mats, dtype, uplo, PADDED);
          const before = snapshot(p);
          const inf = info(2);
          cpuPoti({ uplo, a: p.batch, info: inf });
          assert.deepEqual([...inf], [0, 0]);
          assertOnlyRegionWritten(p, before, 'poti');
          mats.forEach((a, k) => {
            const ratio = inverseResidual(a, readSymmetric(matrixAt(p.batch, k), uplo), eps(dtype));
            assert.ok(ratio < THRESHOLD, `n=${n} #${k}: ||A inv(A) - I|| ratio ${ratio}`);
          });
        }
      });

  for (const kind of ['list', 'variable'] as const)
    it(`${kind} batches: each matrix its own inverse`, () => {
      const rng = new Rng(82);
      const sizes = kind === 'variable' ? [5, 1, 17, 0, 9] : [7, 7, 7];
      const mats = sizes.map((n) => randomSpd(rng, n, 'float64'));
      const p = place(mats, 'float64', 'lower', { kind, ldPad: 2, offset: 3 });
      const inf = info(sizes.length);
      cpuPoti({ uplo: 'lower', a: p.batch, info: inf });
      assert.deepEqual([...inf], sizes.map(() => 0));
      mats.forEach((a, k) => {
        if (a.rows === 0) return;
        const ratio = inverseResidual(a, readSymmetric(matrixAt(p.batch, k), 'lower'), eps('float64'));
        assert.ok(ratio < THRESHOLD, `#${k}: ratio ${ratio}`);
      });
    });

  it('a matrix that is not positive definite: potrf\'s info and state, the neighbours exact', () => {
    for (const uplo of UPLOS) {
      const rng = new Rng(83);
      const n = 9;
      const mats = [0, 1, 2].map(() => randomSpd(rng, n, 'float64'));
      mats[1]!.data[4 + 4 * n] = -50; // the leading minor of order 5 fails
      const p = place(mats, 'float64', uplo, PADDED);
      const q = place(mats, 'float64', uplo, PADDED);
      const inf = info(3);
      cpuPoti({ uplo, a: p.batch, info: inf });
      assert.deepEqual([...inf], [0, 5, 0]);
      // The same as potrf then potri where potrf succeeds, potrf alone where it fails.
      const fi = info(3);
      cpuPotrf({ uplo, a: q.batch, info: fi });
      assert.deepEqual([...fi], [0, 5, 0]);
      const failed = readDense(matrixAt(q.batch, 1));
      cpuPotri({ uplo, a: q.batch, info: info(3) });
      assert.ok(sameBits(readDense(matrixAt(p.batch, 1)).data, failed.data), 'left as potrf leaves it');
      for (const k of [0, 2]) assert.ok(sameBits(readDense(matrixAt(p.batch, k)).data, readDense(matrixAt(q.batch, k)).data), `#${k} as potrf + potri`);
    }
  });
});

describe("inv(a, { assume: 'spd' })", () => {
  it('the whole symmetric inverse; a non-SPD matrix fails as a singular one does', () => {
    const rng = new Rng(84);
    const n = 6;
    const mats = [0, 1, 2].map(() => randomSpd(rng, n, 'float64'));
    const data = new Float64Array(3 * n * n);
    mats.forEach((a, k) => data.set(a.data, k * n * n)); // symmetric: row-major is the same
    const a = m.ndarray(data, [3, n, n]);
    const x = m.inv(a, { assume: 'spd' });
    const general = m.inv(a);
    x.data.forEach((v, i) => assert.ok(Math.abs(v - general.data[i]!) < 1e-10 * Math.max(1, Math.abs(v)), `element ${i}: ${v} vs ${general.data[i]}`));
    for (let k = 0; k < 3; k++) for (let i = 0; i < n; i++) for (let j = 0; j < n; j++)
      assert.equal(x.data[k * n * n + i * n + j], x.data[k * n * n + j * n + i]);
    data[n * n + 2 * n + 2] = -100;
    const r = m.invEx(a, { assume: 'spd' });
    assert.equal(r.info[1], 3);
    assert.deepEqual([r.info[0], r.info[2]], [0, 0]);
    assert.ok(r.inverse.data.slice(n * n, 2 * n * n).every(Number.isNaN));
    assert.deepEqual([...r.inverse.data.slice(0, n * n)], [...x.data.slice(0, n * n)]);
    assert.throws(() => m.inv(a, { assume: 'spd' }), (e: unknown) => e instanceof MyriadError && e.code === 'NUMERICAL' && /positive definite/.test(e.message));
    assert.throws(() => m.inv(a, { assume: 'hermitian' as 'spd' }), (e: unknown) => e instanceof MyriadError && e.code === 'ENUM' && /options\.assume/.test(e.message) && /hermitian/.test(e.message));
    assert.throws(() => m.inv(a, { spd: true } as object), (e: unknown) => e instanceof MyriadError && /spd/.test(e.message));
  });
});
