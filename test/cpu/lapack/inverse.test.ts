import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matrixAt } from '../../../src/core/batch.js';
import type { Diag } from '../../../src/core/enums.js';
import { cpuLauum, cpuPotrf, cpuPotri, cpuTrtri } from '../../../src/cpu/lapack/index.js';
import {
  at, inverseResidual, multiply, norm1, readDense, readSymmetric, readTriangle, relativeDifference, transpose, viewOf,
} from '../../helpers/lapack-checks.js';
import {
  DTYPES, PADDED, Rng, SIZES, THRESHOLD, UPLOS, assertOnlyRegionWritten, eps, info, place, randomSpd, randomTriangular,
  sameBits, snapshot,
} from './fixtures.js';

const DIAGS: readonly Diag[] = ['nonunit', 'unit'];

describe('cpuTrtri', () => {
  it('a 2x2 by hand: inv([2 1; 0 4]) = [1/2 -1/8; 0 1/4]', () => {
    const p = place([{ rows: 2, cols: 2, data: Float64Array.from([2, 0, 1, 4]) }], 'float64', 'upper', { kind: 'strided' });
    const inf = info(1);
    cpuTrtri({ uplo: 'upper', diag: 'nonunit', a: p.batch, info: inf });
    assert.equal(inf[0], 0);
    const r = readTriangle(matrixAt(p.batch, 0), 'upper');
    assert.deepEqual([at(r, 0, 0), at(r, 0, 1), at(r, 1, 1)], [0.5, -0.125, 0.25]);
  });

  for (const dtype of DTYPES)
    for (const uplo of UPLOS)
      for (const diag of DIAGS)
        it(`${dtype} ${uplo} ${diag}: ||T inv(T) - I|| over sizes; only the triangle (less a unit diagonal) touched`, () => {
          const rng = new Rng(51);
          const unit = diag === 'unit';
          for (const n of SIZES) {
            const mats = [0, 1].map(() => randomTriangular(rng, n, dtype));
            // A unit diagonal is neither read nor written: it stays poisoned (NaN).
            const p = place(mats, dtype, uplo, PADDED, { skipDiagonal: unit });
            const before = snapshot(p);
            const inf = info(2);
            cpuTrtri({ uplo, diag, a: p.batch, info: inf });
            assert.deepEqual([...inf], [0, 0]);
            assertOnlyRegionWritten(p, before, 'trtri');
            mats.forEach((m, k) => {
              const t = readTriangle(viewOf(m), uplo, unit);
              const inv = readTriangle(matrixAt(p.batch, k), uplo, unit);
              const ratio = inverseResidual(t, inv, eps(dtype));
              assert.ok(ratio < THRESHOLD, `n=${n} #${k}: ratio ${ratio}`);
            });
          }
        });

  it('an exactly zero diagonal: info = k, the matrix untouched, neighbours inverted as alone; unit ignores it', () => {
    for (const dtype of DTYPES)
      for (const uplo of UPLOS) {
        const rng = new Rng(52);
        const mats = [0, 1, 2].map(() => randomTriangular(rng, 13, dtype));
        mats[1]!.data[6 + 6 * 13] = 0;
        const p = place(mats, dtype, uplo, PADDED);
        const original = readDense(matrixAt(p.batch, 1));
        const inf = info(3);
        cpuTrtri({ uplo, diag: 'nonunit', a: p.batch, info: inf });
        assert.deepEqual([...inf], [0, 7, 0]);
        assert.ok(sameBits(readDense(matrixAt(p.batch, 1)).data, original.data), 'failing matrix untouched');
        for (const k of [0, 2]) {
          const alone = place([mats[k]!], dtype, uplo, PADDED);
          cpuTrtri({ uplo, diag: 'nonunit', a: alone.batch, info: info(1) });
          assert.ok(sameBits(readDense(matrixAt(alone.batch, 0)).data, readDense(matrixAt(p.batch, k)).data), `neighbour ${k}`);
        }
        const q = place(mats, dtype, uplo, PADDED);
        const infUnit = info(3);
        cpuTrtri({ uplo, diag: 'unit', a: q.batch, info: infUnit });
        assert.deepEqual([...infUnit], [0, 0, 0]);
      }
  });
});

describe('cpuLauum', () => {
  it('a 2x2 by hand: [1 2; 0 3] [1 2; 0 3]^T = [5 6; 6 9], and [1 0; 2 3]^T [1 0; 2 3] = [5 6; 6 9]', () => {
    for (const uplo of UPLOS) {
      const data = uplo === 'upper' ? [1, 0, 2, 3] : [1, 2, 0, 3];
      const p = place([{ rows: 2, cols: 2, data: Float64Array.from(data) }], 'float64', uplo, { kind: 'strided' });
      cpuLauum({ uplo, a: p.batch, info: info(1) });
      assert.deepEqual([...readSymmetric(matrixAt(p.batch, 0), uplo).data], [5, 6, 6, 9], uplo);
    }
  });

  for (const dtype of DTYPES)
    for (const uplo of UPLOS)
      it(`${dtype} ${uplo}: against the explicit product, over sizes, list and variable batches`, () => {
        const rng = new Rng(61);
        const layouts = [PADDED, { kind: 'list', ldPad: 1, offset: 2, gap: 1 }, { kind: 'variable', ldPad: 2, offset: 1, gap: 2 }] as const;
        for (const n of SIZES)
          for (const layout of layouts) {
            if (layout.kind !== 'strided' && n > 33) continue;
            // The two matrices of a variable batch differ in size.
            const mats = [0, 1].map((k) => randomTriangular(rng, layout.kind === 'variable' ? n + 3 * k : n, dtype));
            const p = place(mats, dtype, uplo, layout);
            const before = snapshot(p);
            const inf = info(2);
            cpuLauum({ uplo, a: p.batch, info: inf });
            assert.deepEqual([...inf], [0, 0]);
            assertOnlyRegionWritten(p, before, 'lauum');
            mats.forEach((m, k) => {
              const t = readTriangle(viewOf(m), uplo);
              const expected = uplo === 'upper' ? multiply(t, transpose(t)) : multiply(transpose(t), t);
              const got = readSymmetric(matrixAt(p.batch, k), uplo);
              const ratio = relativeDifference(got, expected, norm1(t) ** 2, eps(dtype));
              assert.ok(ratio < THRESHOLD, `n=${m.rows} ${layout.kind} #${k}: ratio ${ratio}`);
            });
          }
      });
});

describe('cpuPotri', () => {
  for (const dtype of DTYPES)
    for (const uplo of UPLOS)
      it(`${dtype} ${uplo}: A potri(A) = I over sizes`, () => {
        const rng = new Rng(71);
        for (const n of SIZES) {
          const mats = [0, 1].map(() => randomSpd(rng, n, dtype));
          const p = place(mats, dtype, uplo, PADDED);
          const before = snapshot(p);
          cpuPotrf({ uplo, a: p.batch, info: info(2) });
          const inf = info(2);
          cpuPotri({ uplo, a: p.batch, info: inf });
          assert.deepEqual([...inf], [0, 0]);
          assertOnlyRegionWritten(p, before, 'potri');
          mats.forEach((a, k) => {
            const ratio = inverseResidual(a, readSymmetric(matrixAt(p.batch, k), uplo), eps(dtype));
            assert.ok(ratio < THRESHOLD, `n=${n} #${k}: ||A inv(A) - I|| ratio ${ratio}`);
          });
        }
      });

  it('info comes from trtri (a zero diagonal in the factor), and the failing matrix is untouched', () => {
    for (const uplo of UPLOS) {
      const rng = new Rng(72);
      const mats = [0, 1, 2].map(() => randomTriangular(rng, 8, 'float64'));
      mats[1]!.data[2 + 2 * 8] = 0;
      const p = place(mats, 'float64', uplo, PADDED);
      const original = readDense(matrixAt(p.batch, 1));
      const inf = info(3);
      cpuPotri({ uplo, a: p.batch, info: inf });
      assert.deepEqual([...inf], [0, 3, 0]);
      assert.ok(sameBits(readDense(matrixAt(p.batch, 1)).data, original.data));
    }
  });
});
