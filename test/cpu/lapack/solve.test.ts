import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matrixAt, type Batch } from '../../../src/core/batch.js';
import type { DType, FloatArray } from '../../../src/core/dtype.js';
import type { Uplo } from '../../../src/core/enums.js';
import type { Op } from '../../../src/core/ops.js';
import { cpuGesv, cpuGetrf, cpuGetrs, cpuPosv, cpuPotrf, cpuPotrs } from '../../../src/cpu/lapack/index.js';
import { readDense, solveResidual, type Dense } from '../../helpers/lapack-checks.js';
import {
  DTYPES, PADDED, Rng, SIZES, THRESHOLD, UPLOS, assertOnlyRegionWritten, eps, info, place, randomGeneral, randomSpd,
  sameBits, snapshot, type Layout, type Placed,
} from './fixtures.js';

interface System { a: Dense; b: Dense }
const B_LAYOUT: Layout = { kind: 'strided', ldPad: 2, offset: 3, gap: 1 };

function systems(rng: Rng, n: number, nrhs: number, count: number, dtype: DType, spd: boolean): System[] {
  return Array.from({ length: count }, () => ({
    a: spd ? randomSpd(rng, n, dtype) : randomGeneral(rng, n, n, dtype),
    b: randomGeneral(rng, n, nrhs, dtype),
  }));
}

function placeSystems(s: System[], dtype: DType, aRegion: 'all' | Uplo, layout: Layout, bLayout: Layout): { a: Placed; b: Placed } {
  return { a: place(s.map((x) => x.a), dtype, aRegion, layout), b: place(s.map((x) => x.b), dtype, 'all', bLayout) };
}

const pivotStrideOf = (s: System[]): number => Math.max(0, ...s.map((x) => x.a.rows));
const xOf = (b: Batch<FloatArray>, k: number): Dense => readDense(matrixAt(b, k));

function checkSolutions(s: System[], b: Placed, trans: Op, dtype: DType, label: string): void {
  s.forEach((sys, k) => {
    const ratio = solveResidual(sys.a, xOf(b.batch, k), sys.b, trans, eps(dtype));
    assert.ok(ratio < THRESHOLD, `${label} #${k} (n=${sys.a.rows}, nrhs=${sys.b.cols}): ||B - op(A) X|| ratio ${ratio}`);
  });
}

describe('cpuPotrs / cpuPosv', () => {
  for (const dtype of DTYPES)
    for (const uplo of UPLOS)
      it(`${dtype} ${uplo}: residual over sizes and nrhs 1, 3; posv is bitwise potrf + potrs`, () => {
        const rng = new Rng(31);
        for (const n of SIZES)
          for (const nrhs of [1, 3]) {
            const s = systems(rng, n, nrhs, 2, dtype, true);
            const one = placeSystems(s, dtype, uplo, PADDED, B_LAYOUT);
            const before = [snapshot(one.a), snapshot(one.b)] as const;
            cpuPotrf({ uplo, a: one.a.batch, info: info(2) });
            const inf = info(2);
            cpuPotrs({ uplo, a: one.a.batch, b: one.b.batch, info: inf });
            assert.deepEqual([...inf], [0, 0]);
            assertOnlyRegionWritten(one.a, before[0], 'potrf A');
            assertOnlyRegionWritten(one.b, before[1], 'potrs B');
            checkSolutions(s, one.b, 'N', dtype, `potrs n=${n}`);

            const two = placeSystems(s, dtype, uplo, PADDED, B_LAYOUT);
            const infPosv = info(2);
            cpuPosv({ uplo, a: two.a.batch, b: two.b.batch, info: infPosv });
            assert.deepEqual([...infPosv], [0, 0]);
            assert.ok(sameBits(two.a.stores[0]!, one.a.stores[0]!), 'posv A = potrf A');
            assert.ok(sameBits(two.b.stores[0]!, one.b.stores[0]!), 'posv X = potrs X');
          }
      });

  it('variable batch (n and nrhs differ per matrix) and list batch', () => {
    const rng = new Rng(32);
    for (const dtype of DTYPES)
      for (const uplo of UPLOS) {
        const s = [[5, 1], [0, 2], [13, 3], [1, 1], [33, 4]].map(([n, r]) => systems(rng, n!, r!, 1, dtype, true)[0]!);
        const v = placeSystems(s, dtype, uplo, { kind: 'variable', ldPad: 1, offset: 2, gap: 3 }, { kind: 'variable', ldPad: 2, gap: 1 });
        cpuPosv({ uplo, a: v.a.batch, b: v.b.batch, info: info(s.length) });
        checkSolutions(s, v.b, 'N', dtype, `variable ${uplo}`);
        const l = systems(rng, 7, 2, 3, dtype, true);
        const p = placeSystems(l, dtype, uplo, { kind: 'list', ldPad: 1, offset: 1 }, { kind: 'list', offset: 2, gap: 2 });
        cpuPosv({ uplo, a: p.a.batch, b: p.b.batch, info: info(3) });
        checkSolutions(l, p.b, 'N', dtype, `list ${uplo}`);
      }
  });

  it('posv: a matrix that is not positive definite gets info and keeps its B; its neighbours are solved', () => {
    for (const dtype of DTYPES)
      for (const uplo of UPLOS) {
        const s = systems(new Rng(33), 9, 3, 3, dtype, true);
        s[1]!.a.data[4 + 4 * 9] = -1;
        const p = placeSystems(s, dtype, uplo, PADDED, B_LAYOUT);
        const inf = info(3);
        cpuPosv({ uplo, a: p.a.batch, b: p.b.batch, info: inf });
        assert.deepEqual([...inf], [0, 5, 0]);
        assert.ok(sameBits(xOf(p.b.batch, 1).data, s[1]!.b.data), 'B of the failing matrix untouched');
        checkSolutions([s[0]!], p.b, 'N', dtype, 'left neighbour');
        assert.ok(solveResidual(s[2]!.a, xOf(p.b.batch, 2), s[2]!.b, 'N', eps(dtype)) < THRESHOLD, 'right neighbour');
      }
  });
});

describe('cpuGetrs / cpuGesv', () => {
  for (const dtype of DTYPES)
    it(`${dtype}: residual over sizes, trans N and T, nrhs 1 and 3; gesv is bitwise getrf + getrs`, () => {
      const rng = new Rng(41);
      for (const n of SIZES)
        for (const nrhs of [1, 3]) {
          const s = systems(rng, n, nrhs, 2, dtype, false);
          const pivotStride = pivotStrideOf(s);
          for (const trans of ['N', 'T'] as const) {
            const one = placeSystems(s, dtype, 'all', PADDED, B_LAYOUT);
            const before = snapshot(one.b);
            const ipiv = new Int32Array(2 * pivotStride);
            cpuGetrf({ a: one.a.batch, ipiv, pivotStride, info: info(2) });
            const ipivBefore = ipiv.slice();
            const inf = info(2);
            cpuGetrs({ trans, a: one.a.batch, ipiv, pivotStride, b: one.b.batch, info: inf });
            assert.deepEqual([...inf], [0, 0]);
            assert.ok(sameBits(ipiv, ipivBefore), 'getrs leaves ipiv alone');
            assertOnlyRegionWritten(one.b, before, 'getrs B');
            checkSolutions(s, one.b, trans, dtype, `getrs ${trans} n=${n}`);
            if (trans === 'T') continue;

            const two = placeSystems(s, dtype, 'all', PADDED, B_LAYOUT);
            const ipiv2 = new Int32Array(2 * pivotStride);
            const inf2 = info(2);
            cpuGesv({ a: two.a.batch, ipiv: ipiv2, pivotStride, b: two.b.batch, info: inf2 });
            assert.deepEqual([...inf2], [0, 0]);
            assert.ok(sameBits(ipiv2, ipiv), 'gesv pivots = getrf pivots');
            assert.ok(sameBits(two.a.stores[0]!, one.a.stores[0]!), 'gesv LU = getrf LU');
            assert.ok(sameBits(two.b.stores[0]!, one.b.stores[0]!), 'gesv X = getrs X');
          }
        }
    });

  it('variable batch with a pivot stride larger than some matrices, both trans', () => {
    const rng = new Rng(42);
    for (const dtype of DTYPES)
      for (const trans of ['N', 'T'] as const) {
        const s = [[5, 1], [0, 2], [13, 3], [1, 1], [20, 4]].map(([n, r]) => systems(rng, n!, r!, 1, dtype, false)[0]!);
        const v = placeSystems(s, dtype, 'all', { kind: 'variable', ldPad: 1, offset: 2, gap: 3 }, { kind: 'variable', ldPad: 2, gap: 1 });
        const pivotStride = pivotStrideOf(s);
        const ipiv = new Int32Array(s.length * pivotStride);
        cpuGetrf({ a: v.a.batch, ipiv, pivotStride, info: info(s.length) });
        cpuGetrs({ trans, a: v.a.batch, ipiv, pivotStride, b: v.b.batch, info: info(s.length) });
        checkSolutions(s, v.b, trans, dtype, `variable ${trans}`);
      }
  });

  it('gesv: a singular matrix gets info and keeps its B; its neighbours are solved', () => {
    for (const dtype of DTYPES) {
      const s = systems(new Rng(43), 9, 3, 3, dtype, false);
      s[1]!.a.data.fill(0, 2 * 9, 3 * 9); // column 2 exactly zero
      const p = placeSystems(s, dtype, 'all', PADDED, B_LAYOUT);
      const inf = info(3);
      cpuGesv({ a: p.a.batch, ipiv: new Int32Array(27), pivotStride: 9, b: p.b.batch, info: inf });
      assert.deepEqual([...inf], [0, 3, 0]);
      assert.ok(sameBits(xOf(p.b.batch, 1).data, s[1]!.b.data), 'B of the singular matrix untouched');
      for (const k of [0, 2]) assert.ok(solveResidual(s[k]!.a, xOf(p.b.batch, k), s[k]!.b, 'N', eps(dtype)) < THRESHOLD, `neighbour ${k}`);
    }
  });

  it('a 2x2 by hand: [1 2; 3 4] x = [5; 6] gives x = [-4; 4.5], and A^T x = [5; 6] gives x = [-1; 2]', () => {
    for (const trans of ['N', 'T'] as const) {
      const a = new Float64Array([1, 3, 2, 4]);
      const b = new Float64Array([5, 6]);
      const ipiv = new Int32Array(2);
      const batch = (data: Float64Array, cols: number): Batch<FloatArray> =>
        ({ kind: 'strided', data, rows: 2, cols, count: 1, ld: 2, stride: 2 * cols, offset: 0, order: 'col' });
      cpuGetrf({ a: batch(a, 2), ipiv, pivotStride: 2, info: info(1) });
      cpuGetrs({ trans, a: batch(a, 2), ipiv, pivotStride: 2, b: batch(b, 1), info: info(1) });
      const expected = trans === 'N' ? [-4, 4.5] : [-1, 2];
      for (let i = 0; i < 2; i++) assert.ok(Math.abs(b[i]! - expected[i]!) < 1e-14, `${trans}: x = ${[...b]}`);
    }
  });
});
