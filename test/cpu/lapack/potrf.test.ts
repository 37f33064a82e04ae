import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matrixAt } from '../../../src/core/batch.js';
import type { DType } from '../../../src/core/dtype.js';
import type { Uplo } from '../../../src/core/enums.js';
import { cpuPotrf } from '../../../src/cpu/lapack/index.js';
import { at, choleskyResidual, readDense, readTriangle, type Dense } from '../../helpers/lapack-checks.js';
import {
  DTYPES, PADDED, Rng, SIZES, THRESHOLD, UPLOS, assertOnlyRegionWritten, eps, info, place, randomSpd, sameBits,
  snapshot, type Layout,
} from './fixtures.js';

function factorAndCheck(mats: Dense[], dtype: DType, uplo: Uplo, layout: Layout, label: string): void {
  const p = place(mats, dtype, uplo, layout);
  const before = snapshot(p);
  const inf = info(mats.length);
  cpuPotrf({ uplo, a: p.batch, info: inf });
  assertOnlyRegionWritten(p, before, label);
  mats.forEach((a, k) => {
    assert.equal(inf[k], 0, `${label} matrix ${k}: info`);
    const ratio = choleskyResidual(a, readTriangle(matrixAt(p.batch, k), uplo), uplo, eps(dtype));
    assert.ok(ratio < THRESHOLD, `${label} matrix ${k} (n=${a.rows}): ||A - LL^T|| ratio ${ratio}`);
  });
}

describe('cpuPotrf', () => {
  it('factors a 2x2 by hand: [4 2; 2 5] = [2 0; 1 2] [2 1; 0 2]', () => {
    for (const uplo of UPLOS) {
      const a = new Float64Array([4, 2, 2, 5]);
      const inf = info(1);
      cpuPotrf({ uplo, a: { kind: 'strided', data: a, rows: 2, cols: 2, count: 1, ld: 2, stride: 4, offset: 0, order: 'col' }, info: inf });
      assert.equal(inf[0], 0);
      assert.deepEqual([...a], uplo === 'lower' ? [2, 1, 2, 2] : [2, 2, 1, 2], uplo);
    }
  });

  for (const dtype of DTYPES)
    for (const uplo of UPLOS)
      it(`${dtype} ${uplo}: residual over sizes, padded strided batch, other triangle not touched`, () => {
        const rng = new Rng(11);
        for (const n of SIZES) factorAndCheck([0, 1, 2].map(() => randomSpd(rng, n, dtype)), dtype, uplo, PADDED, `n=${n}`);
      });

  for (const uplo of UPLOS) {
    it(`${uplo}: list batch and variable batch`, () => {
      const rng = new Rng(12);
      for (const dtype of DTYPES) {
        factorAndCheck([0, 1, 2, 3].map(() => randomSpd(rng, 9, dtype)), dtype, uplo, { kind: 'list', ldPad: 2, offset: 3, gap: 4 }, 'list');
        const sizes = [0, 1, 5, 13, 33, 2, 16];
        factorAndCheck(sizes.map((n) => randomSpd(rng, n, dtype)), dtype, uplo, { kind: 'variable', ldPad: 1, offset: 2, gap: 5 }, 'variable');
      }
    });
  }

  describe('failing matrices in a batch', () => {
    /** Factors [good, bad, good] and each good one alone; checks info and that the neighbours are unaffected. */
    function checkFailure(dtype: DType, uplo: Uplo, n: number, spoil: (a: Dense) => void, expected: number): Dense {
      const rng = new Rng(100 + n);
      const left = randomSpd(rng, n, dtype);
      const bad = randomSpd(rng, n, dtype);
      spoil(bad);
      const right = randomSpd(rng, n, dtype);
      const p = place([left, bad, right], dtype, uplo, PADDED);
      const inf = info(3);
      cpuPotrf({ uplo, a: p.batch, info: inf });
      assert.deepEqual([...inf], [0, expected, 0]);
      [left, right].forEach((m, side) => {
        const alone = place([m], dtype, uplo, PADDED);
        cpuPotrf({ uplo, a: alone.batch, info: info(1) });
        assert.ok(sameBits(readDense(matrixAt(alone.batch, 0)).data, readDense(matrixAt(p.batch, side * 2)).data), `neighbour ${side}`);
      });
      return readTriangle(matrixAt(p.batch, 1), uplo);
    }

    /** Lowers A(k-1,k-1) so that the k-th pivot becomes about -1; minors 1..k-1 stay positive definite. */
    function makeNonPdAt(a: Dense, k: number, dtype: DType): void {
      // The k-th pivot squared is A(k-1,k-1) - ||L(k-1, 0:k-1)||^2: factor the leading k x k block
      // in float64 to find that sum, then set A(k-1,k-1) to sum - 1.
      const n = a.rows;
      const l = new Float64Array(k * k);
      for (let j = 0; j < k; j++) {
        let d = at(a, j, j);
        for (let q = 0; q < j; q++) d -= l[j + q * k]! ** 2;
        if (j === k - 1) {
          const lowered = at(a, j, j) - d - 1;
          a.data[j + j * n] = dtype === 'float32' ? Math.fround(lowered) : lowered;
          return;
        }
        l[j + j * k] = Math.sqrt(d);
        for (let i = j + 1; i < k; i++) {
          let s = at(a, i, j);
          for (let q = 0; q < j; q++) s -= l[i + q * k]! * l[j + q * k]!;
          l[i + j * k] = s / l[j + j * k]!;
        }
      }
    }

    for (const dtype of DTYPES)
      for (const uplo of UPLOS)
        it(`${dtype} ${uplo}: not positive definite at a chosen minor gives info = k and LAPACK's partial state`, () => {
          for (const [n, k] of [[1, 1], [5, 1], [5, 3], [13, 13], [33, 17], [64, 40]] as const) {
            const original: Dense[] = [];
            const f = checkFailure(dtype, uplo, n, (a) => {
              makeNonPdAt(a, k, dtype);
              original.push({ ...a, data: a.data.slice() });
            }, k);
            const a = original[0]!;
            // A(k,k) holds the failed pivot (about -1); everything after column (lower) / row (upper) k is untouched.
            assert.ok(Math.abs(at(f, k - 1, k - 1) + 1) < 1e-2, `n=${n} k=${k}: failed pivot ${at(f, k - 1, k - 1)}`);
            for (let j = 0; j < n; j++)
              for (let i = 0; i < n; i++) {
                const inTriangle = uplo === 'lower' ? i >= j : i <= j;
                const after = uplo === 'lower' ? j >= k || (j === k - 1 && i > j) : i >= k || (i === k - 1 && j > i);
                if (inTriangle && after) assert.equal(at(f, i, j), at(a, i, j), `n=${n} k=${k}: (${i},${j}) untouched`);
              }
          }
        });

    for (const dtype of DTYPES)
      for (const uplo of UPLOS)
        it(`${dtype} ${uplo}: NaN on the diagonal or off it is reported at the first diagonal it reaches`, () => {
          checkFailure(dtype, uplo, 7, (a) => { a.data[3 + 3 * 7] = NaN; }, 4);
          // A NaN at (5, 2) (lower) / (2, 5) (upper) spoils L(5,2), then reaches the diagonal at step 6.
          checkFailure(dtype, uplo, 7, (a) => { a.data[5 + 2 * 7] = NaN; a.data[2 + 5 * 7] = NaN; }, 6);
          checkFailure(dtype, uplo, 7, (a) => a.data.fill(NaN), 1);
        });

    it('negative and zero leading minors, and an indefinite 2x2', () => {
      for (const uplo of UPLOS) {
        checkFailure('float64', uplo, 4, (a) => { a.data[0] = -1; }, 1);
        checkFailure('float64', uplo, 4, (a) => { a.data[0] = 0; }, 1);
        // [1 2; 2 1]: pivot 2 is 1 - 4 = -3, an exact failed value.
        const f = checkFailure('float64', uplo, 2, (a) => a.data.set([1, 2, 2, 1]), 2);
        assert.equal(at(f, 1, 1), -3);
      }
    });
  });
});
