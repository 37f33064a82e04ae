import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matrixAt } from '../../../src/core/batch.js';
import type { DType } from '../../../src/core/dtype.js';
import { cpuGetrf } from '../../../src/cpu/lapack/index.js';
import { at, luResidual, readDense, type Dense } from '../../helpers/lapack-checks.js';
import {
  DTYPES, PADDED, Rng, SIZES, THRESHOLD, assertOnlyRegionWritten, eps, info, place, randomGeneral, sameBits, snapshot,
  type Layout,
} from './fixtures.js';

interface Factored { infos: Int32Array; ipiv: Int32Array; pivotStride: number; lu: Dense[] }

function factor(mats: Dense[], dtype: DType, layout: Layout): Factored {
  const p = place(mats, dtype, 'all', layout);
  const before = snapshot(p);
  const pivotStride = Math.max(0, ...mats.map((m) => Math.min(m.rows, m.cols)));
  const ipiv = new Int32Array(mats.length * pivotStride).fill(-7);
  const infos = info(mats.length);
  cpuGetrf({ a: p.batch, ipiv, pivotStride, info: infos });
  assertOnlyRegionWritten(p, before, 'getrf');
  return { infos, ipiv, pivotStride, lu: mats.map((_, k) => readDense(matrixAt(p.batch, k))) };
}

/** LAPACK's ratio, pivots in range, and |L| <= 1 (partial pivoting picks the largest magnitude). */
function checkFactorisation(a: Dense, f: Factored, k: number, dtype: DType, label: string): void {
  const steps = Math.min(a.rows, a.cols);
  for (let j = 0; j < steps; j++) {
    const p = f.ipiv[k * f.pivotStride + j]!;
    assert.ok(p >= j && p < a.rows, `${label}: ipiv[${j}] = ${p} out of [${j}, ${a.rows})`);
  }
  const lu = f.lu[k]!;
  for (let j = 0; j < steps; j++)
    for (let i = j + 1; i < a.rows; i++) if (!(Math.abs(at(lu, i, j)) <= 1)) assert.fail(`${label}: |L(${i},${j})| > 1`);
  const ratio = luResidual(a, lu, f.ipiv, k * f.pivotStride, eps(dtype));
  assert.ok(ratio < THRESHOLD, `${label}: ||PA - LU|| ratio ${ratio}`);
}

const dense = (rows: number, cols: number, colMajor: number[]): Dense => ({ rows, cols, data: Float64Array.from(colMajor) });

describe('cpuGetrf', () => {
  it('a 2x2 by hand: [1 2; 3 4] pivots row 1 up, L(1,0) = 1/3, U(1,1) = 2 - 4/3', () => {
    const f = factor([dense(2, 2, [1, 3, 2, 4])], 'float64', { kind: 'strided' });
    assert.deepEqual([...f.infos], [0]);
    assert.deepEqual([...f.ipiv], [1, 1]);
    const lu = f.lu[0]!;
    assert.deepEqual([at(lu, 0, 0), at(lu, 0, 1)], [3, 4]);
    assert.ok(Math.abs(at(lu, 1, 0) - 1 / 3) < 1e-16);
    assert.ok(Math.abs(at(lu, 1, 1) - 2 / 3) < 4e-16);
  });

  it('a permutation matrix factors to L = U = I with the pivots that undo it', () => {
    // Rows of A: e1, e2, e0 (A(0,1) = A(1,2) = A(2,0) = 1).
    const f = factor([dense(3, 3, [0, 0, 1, 1, 0, 0, 0, 1, 0])], 'float64', { kind: 'strided' });
    assert.deepEqual([...f.infos], [0]);
    assert.deepEqual([...f.ipiv], [2, 2, 2]);
    assert.deepEqual([...f.lu[0]!.data], [1, 0, 0, 0, 1, 0, 0, 0, 1]);
  });

  for (const dtype of DTYPES)
    it(`${dtype}: square sizes, padded strided batch`, () => {
      const rng = new Rng(21);
      for (const n of SIZES) {
        const mats = [0, 1, 2].map(() => randomGeneral(rng, n, n, dtype));
        const f = factor(mats, dtype, PADDED);
        assert.deepEqual([...f.infos], [0, 0, 0]);
        mats.forEach((a, k) => checkFactorisation(a, f, k, dtype, `n=${n} #${k}`));
      }
    });

  for (const dtype of DTYPES)
    it(`${dtype}: m != n (tall and wide), list and variable batches`, () => {
      const rng = new Rng(22);
      const shapes = [[5, 3], [3, 5], [33, 16], [16, 33], [100, 7], [7, 100], [1, 4], [4, 1], [0, 3], [3, 0]] as const;
      for (const [m, n] of shapes) {
        const mats = [0, 1].map(() => randomGeneral(rng, m, n, dtype));
        const f = factor(mats, dtype, { kind: 'list', ldPad: 2, offset: 1, gap: 3 });
        mats.forEach((a, k) => checkFactorisation(a, f, k, dtype, `${m}x${n} #${k}`));
      }
      const mats = shapes.map(([m, n]) => randomGeneral(rng, m, n, dtype));
      const f = factor(mats, dtype, { kind: 'variable', ldPad: 1, offset: 4, gap: 2 });
      assert.equal(f.pivotStride, 16);
      mats.forEach((a, k) => checkFactorisation(a, f, k, dtype, `variable #${k}`));
    });

  describe('failing matrices in a batch', () => {
    /** Factors [good, spoiled, good]; checks info, and that the good ones match their factorisation alone. */
    function checkFailure(dtype: DType, m: number, n: number, spoil: (a: Dense) => void, expected: number): { a: Dense; f: Factored } {
      const rng = new Rng(200 + m + n);
      const mats = [0, 1, 2].map(() => randomGeneral(rng, m, n, dtype));
      spoil(mats[1]!);
      const f = factor(mats, dtype, PADDED);
      assert.deepEqual([...f.infos], [0, expected, 0]);
      for (const k of [0, 2]) {
        const alone = factor([mats[k]!], dtype, PADDED);
        assert.ok(sameBits(alone.lu[0]!.data, f.lu[k]!.data), `neighbour ${k}: factor`);
        assert.ok(sameBits(alone.ipiv, f.ipiv.subarray(k * f.pivotStride, (k + 1) * f.pivotStride)), `neighbour ${k}: pivots`);
      }
      return { a: mats[1]!, f };
    }

    for (const dtype of DTYPES)
      it(`${dtype}: an exactly zero column j gives info = j + 1, and the factorisation goes on (PA = LU)`, () => {
        for (const [m, n, j] of [[1, 1, 0], [5, 5, 0], [5, 5, 2], [13, 13, 12], [33, 33, 20], [64, 64, 1], [9, 5, 4], [5, 9, 3]] as const) {
          const { a, f } = checkFailure(dtype, m, n, (x) => { x.data.fill(0, j * m, (j + 1) * m); }, j + 1);
          checkFactorisation(a, f, 1, dtype, `${m}x${n} zero column ${j}`);
        }
      });

    it('a zero matrix fails at 1; a zero pivot produced by elimination is found at 2', () => {
      checkFailure('float64', 4, 4, (a) => a.data.fill(0), 1);
      // Columns 0 and 1 equal, with a power-of-two pivot so that elimination is exact: after step 0,
      // column 1 is exactly zero below row 0.
      const { a, f } = checkFailure('float64', 6, 6, (x) => {
        const c = [3, -5, 8, 1, 7, 2];
        for (let i = 0; i < 6; i++) x.data[i] = x.data[i + 6] = c[i]!;
      }, 2);
      assert.deepEqual([...f.ipiv.subarray(f.pivotStride, f.pivotStride + 2)], [2, 1]);
      checkFactorisation(a, f, 1, 'float64', 'equal columns');
    });

    for (const dtype of DTYPES)
      it(`${dtype}: NaN input is not "singular" (info 0, as LAPACK) and stays in its own matrix`, () => {
        checkFailure(dtype, 7, 7, (a) => { a.data[0] = NaN; }, 0);
        checkFailure(dtype, 7, 7, (a) => { a.data[3 + 4 * 7] = NaN; }, 0);
      });
  });
});
