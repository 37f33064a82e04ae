import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matrixAt } from '../../../src/core/batch.js';
import type { DType } from '../../../src/core/dtype.js';
import type { Uplo } from '../../../src/core/enums.js';
import { cpuPotrf } from '../../../src/cpu/lapack/index.js';
import { at, choleskyRatios, choleskyResidual, choleskyResidualByProducts, readDense, readTriangle, type Dense } from '../../helpers/lapack-checks.js';
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

describe('the Cholesky residual checks the GPU tests use (test/helpers/lapack-checks.ts)', () => {
  // SPD, diagonally dominant as the GPU tests make them: entries in [0, 1), diagonal n + [0.5, 1).
  const spdDense = (rng: Rng, n: number, round: (x: number) => number): Dense => {
    const d = new Float64Array(n * n);
    for (let j = 0; j < n; j++) for (let i = j + 1; i < n; i++) d[i + j * n] = d[j + i * n] = round(rng.uniform(0, 1));
    for (let j = 0; j < n; j++) d[j + j * n] = round(n + rng.uniform(0.5, 1));
    return { rows: n, cols: n, data: d };
  };
  for (const dtype of DTYPES) for (const uplo of UPLOS) {
    it(`${dtype} ${uplo}, n = 96: the CPU's factor passes both ratios; one entry off by 1e-4 (float32) or 1e-12 fails the componentwise ratio, and not the normwise one in float32`, () => {
      const n = 96, rng = new Rng(96);
      const round = dtype === 'float32' ? Math.fround : (x: number) => x;
      const a = spdDense(rng, n, round);
      const p = place([a], dtype, uplo, { kind: 'strided' });
      const inf = info(1);
      cpuPotrf({ uplo, a: p.batch, info: inf });
      assert.equal(inf[0], 0);
      const f = readTriangle(matrixAt(p.batch, 0), uplo);
      const good = choleskyRatios(a, f, uplo, eps(dtype));
      assert.ok(good.normwise < 1 && good.componentwise < 1, `good factor: ${JSON.stringify(good)}`);
      assert.ok(Math.abs(good.normwise - choleskyResidual(a, f, uplo, eps(dtype))) < 1e-9, 'normwise = dpot01');
      const x: Dense = { rows: n, cols: 3, data: Float64Array.from({ length: 3 * n }, () => rng.uniform(-1, 1)) };
      const probe = choleskyResidualByProducts(a, f, uplo, eps(dtype), x);
      assert.ok(probe <= good.normwise + 0.1, `by products: at most the full ratio and its own rounding (${probe} vs ${good.normwise})`);
      const badProbe = { ...f, data: f.data.slice() };
      badProbe.data[(uplo === 'lower' ? 50 + 40 * n : 40 + 50 * n)] += dtype === 'float32' ? 1 : 1e-6;   // about 0.1 of L(40, 40)
      assert.ok(choleskyResidualByProducts(a, badProbe, uplo, eps(dtype), x) > THRESHOLD, 'by products: a wrong entry shows');
      const bad = { ...f, data: f.data.slice() };
      const [i, j] = uplo === 'lower' ? [70, 30] : [30, 70];
      bad.data[i + j * n] += dtype === 'float32' ? 1e-4 : 1e-12;
      const worse = choleskyRatios(a, bad, uplo, eps(dtype));
      assert.ok(worse.componentwise > THRESHOLD, `a wrong entry: componentwise ${worse.componentwise}`);
      if (dtype === 'float32') assert.ok(worse.normwise < THRESHOLD, `(the normwise ratio lets it pass: ${worse.normwise})`);
    });
  }
});
