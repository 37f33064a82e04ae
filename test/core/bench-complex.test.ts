/**
 * The complex benchmarks without a GPU: their flop and byte counts (4x the real flops, whole
 * pairs' bytes; heev's w and gesvd's s reals), their data (Hermitian positive definite, diagonally
 * dominant; random Hermitian for heev), the ops that take a complex dtype and the error for one that
 * does not (heev on real data), the LU check the vendor column runs (complexLuResidual on the CPU's
 * complex LU, 0- and 1-based pivots, wrong factors and pivots caught), the values check of heev and
 * gesvd (bench/values-check.ts) and complex rows of runBench on the CPU (no vendor, no note).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { strided } from '../../src/core/batch.js';
import { counts } from '../../src/core/counts.js';
import { DTYPE_EPS } from '../../src/core/dtype.js';
import { open } from '../../src/api/open.js';
import { Random, randomComplexGeneral, randomHermitian, randomHpd } from '../../src/bench/data.js';
import { complexSingularValues, hermitianEigenvalues, VALUES_LIMIT, valuesDeviation } from '../../src/bench/values-check.js';
import { COMPLEX_BENCH_OPS } from '../../src/bench/complex-workloads.js';
import { checkSample, complexLuResidual, LU_RESIDUAL_LIMIT } from '../../src/bench/lu-check.js';
import { runBench } from '../../src/bench/run.js';
import { benchWorkload, workloadFor } from '../../src/bench/workloads.js';
import { defaultBatch } from '../../src/core/bench-batch.js';

describe('complex benchmark counts', () => {
  it('4x the real flops, 16 (complex128) or 8 (complex64) bytes an element, pivots 4 bytes either way', () => {
    const n = 12, nrhs = 3;
    const cases = [
      ['potrf', (d: 'float64' | 'float32' | 'complex128' | 'complex64') => counts.potrf(d, n), n * (n + 1), 0],
      ['potrs', (d: 'float64' | 'float32' | 'complex128' | 'complex64') => counts.potrs(d, n, nrhs), (n * (n + 1)) / 2 + 2 * n * nrhs, 0],
      ['posv', (d: 'float64' | 'float32' | 'complex128' | 'complex64') => counts.posv(d, n, nrhs), n * (n + 1) + 2 * n * nrhs, 0],
      ['getrf', (d: 'float64' | 'float32' | 'complex128' | 'complex64') => counts.getrf(d, n), 2 * n * n, 4 * n],
      ['getrs', (d: 'float64' | 'float32' | 'complex128' | 'complex64') => counts.getrs(d, n, nrhs), n * n + 2 * n * nrhs, 4 * n],
      ['gesv', (d: 'float64' | 'float32' | 'complex128' | 'complex64') => counts.gesv(d, n, nrhs), 2 * n * n + 2 * n * nrhs, 4 * n],
      ['trsm', (d: 'float64' | 'float32' | 'complex128' | 'complex64') => counts.trsm(d, 'left', n, nrhs), (n * (n + 1)) / 2 + 2 * n * nrhs, 0],
      ['geqrf', (d: 'float64' | 'float32' | 'complex128' | 'complex64') => counts.geqrf(d, n, n), 2 * n * n + n, 0],
    ] as const;
    for (const [op, cost, elements, pivotBytes] of cases) {
      const [d, s, z, c] = [cost('float64'), cost('float32'), cost('complex128'), cost('complex64')];
      assert.equal(z.flops, 4 * d.flops, `${op} complex128 flops`);
      assert.equal(c.flops, 4 * s.flops, `${op} complex64 flops`);
      assert.equal(d.bytes, 8 * elements + pivotBytes, `${op} float64 bytes`);
      assert.equal(z.bytes, 16 * elements + pivotBytes, `${op} complex128 bytes`);
      assert.equal(c.bytes, 8 * elements + pivotBytes, `${op} complex64 bytes`);
    }
    // LAPACK's counts: zpotrf 4 n^3/3, zgetrf 8 n^3/3, ztrsm (left, m x n) 4 m^2 n, zgemm 8 mnk.
    assert.equal(counts.potrf('complex128', n).flops, (4 * n ** 3) / 3);
    assert.equal(counts.getrf('complex128', n).flops, (8 * n ** 3) / 3);
    assert.equal(counts.trsm('complex64', 'left', n, nrhs).flops, 4 * n * n * nrhs);
    assert.equal(counts.zgemm('complex128', n, n, n).flops, 4 * counts.gemm('float64', n, n, n).flops);
  });

  it('the bench workloads count what the rows time: the op at order n, one right-hand side for posv and gesv, n for trsm', () => {
    const n = 10;
    assert.deepEqual(benchWorkload('potrf', 'complex128').cost(n), counts.potrf('complex128', n));
    assert.deepEqual(benchWorkload('getrf', 'complex64').cost(n), counts.getrf('complex64', n));
    assert.deepEqual(benchWorkload('posv', 'complex128').cost(n), counts.posv('complex128', n, 1));
    assert.deepEqual(benchWorkload('gesv', 'complex64').cost(n), counts.gesv('complex64', n, 1));
    assert.deepEqual(benchWorkload('trsm', 'complex128').cost(n), counts.trsm('complex128', 'left', n, n));
    assert.deepEqual(benchWorkload('gemm', 'complex128').cost(n), counts.zgemm('complex128', n, n, n));
    assert.deepEqual(benchWorkload('heev', 'complex128').cost(n), counts.syev('complex128', n));
    assert.deepEqual(benchWorkload('gesvd', 'complex64').cost(n), counts.gesvd('complex64', n, n));
    // A batch of complex128 matrices holds half as many as float64 ones in the same bytes.
    assert.equal(defaultBatch('potrf', 'complex128', 16, 1 << 20), defaultBatch('potrf', 'float64', 16, 1 << 20) / 2);
  });
});

describe('complex benchmark counts of heev and gesvd', () => {
  it("syev and gesvd: the real counts unchanged; a complex type 4x the flops, pairs for A, U, VT, reals of the parts' type for w and s", () => {
    const n = 9, k = 6, m = 11;
    // The real counts as LAWN 41 (dsyev 4n^3/3 + 6n^3 with vectors; dgesvd's bidiagonal route).
    assert.deepEqual(counts.syev('float64', n), { flops: (4 * n ** 3) / 3 + 6 * n ** 3, bytes: 8 * ((n * (n + 1)) / 2 + n + n * n) });
    assert.deepEqual(counts.syev('float32', n, false), { flops: (4 * n ** 3) / 3, bytes: 4 * ((n * (n + 1)) / 2 + n) });
    const big = Math.max(m, k);
    assert.deepEqual(counts.gesvd('float64', m, k), { flops: 4 * big * k * k - (4 * k ** 3) / 3 + 4 * big * k * k + 8 * k ** 3, bytes: 8 * (m * k + k + m * k + k * k) });
    for (const [z, d] of [['complex128', 'float64'], ['complex64', 'float32']] as const) {
      const [pair, part] = z === 'complex128' ? [16, 8] : [8, 4];
      for (const vectors of [true, false]) {
        const [heev, syev] = [counts.syev(z, n, vectors), counts.syev(d, n, vectors)];
        assert.equal(heev.flops, 4 * syev.flops, `${z} heev flops`);
        assert.equal(heev.bytes, pair * ((n * (n + 1)) / 2 + (vectors ? n * n : 0)) + part * n, `${z} heev bytes: A's pairs, w real`);
        const [zs, ds] = [counts.gesvd(z, m, k, vectors), counts.gesvd(d, m, k, vectors)];
        assert.equal(zs.flops, 4 * ds.flops, `${z} gesvd flops`);
        assert.equal(zs.bytes, pair * (m * k + (vectors ? m * k + k * k : 0)) + part * k, `${z} gesvd bytes: A, U, VT pairs, s real`);
      }
    }
  });
});

describe('complex benchmark options', () => {
  it('gemm, potrf, getrf, posv, gesv, trsm, geqrf, heev and gesvd take a complex dtype; another op says which do; heev takes no real one', () => {
    assert.deepEqual([...COMPLEX_BENCH_OPS], ['gemm', 'potrf', 'getrf', 'posv', 'gesv', 'trsm', 'geqrf', 'heev', 'gesvd']);
    for (const op of COMPLEX_BENCH_OPS) for (const d of ['complex128', 'complex64'] as const) assert.doesNotThrow(() => benchWorkload(op, d));
    assert.throws(() => benchWorkload('getrs', 'complex128'), (e: Error) => /getrs has no complex benchmark \(complex: gemm, potrf, getrf, posv, gesv, trsm, geqrf, heev, gesvd\)/.test(e.message));
    assert.throws(() => benchWorkload('nope', 'complex64'), /no complex benchmark/);
    for (const d of ['float64', 'float32'] as const) {
      assert.throws(() => benchWorkload('heev', d), (e: Error & { code?: string }) => e.code === 'UNSUPPORTED' && /heev is the complex Hermitian benchmark: --dtype complex128 or complex64 \(real symmetric matrices: syev\)/.test(e.message));
    }
    assert.throws(() => workloadFor('heev'), /complex Hermitian/);
    assert.doesNotThrow(() => benchWorkload('gesvd', 'float64'), 'the real gesvd benchmark stays');
  });
});

describe('complex benchmark data', () => {
  it('randomHpd: Hermitian, real diagonal above the row sums of the off-diagonal moduli', () => {
    const n = 7, count = 3;
    const a = randomHpd('float64', n, count, new Random(5));
    assert.equal(a.length, 2 * n * n * count);
    for (let m = 0; m < count; m++) {
      const at = (i: number, j: number): [number, number] => { const x = 2 * (m * n * n + i + j * n); return [a[x]!, a[x + 1]!]; };
      for (let i = 0; i < n; i++) {
        let off = 0;
        for (let j = 0; j < n; j++) {
          const [re, im] = at(i, j), [tr, ti] = at(j, i);
          assert.equal(re, tr);
          assert.ok(im === -ti, `matrix ${m} (${i}, ${j}): conjugates`);
          if (i !== j) off += Math.hypot(re, im);
        }
        assert.equal(at(i, i)[1], 0);
        assert.ok(at(i, i)[0] > off, `matrix ${m} row ${i}`);
      }
    }
  });
  it('randomComplexGeneral: pairs of the parts dtype, the real parts of the diagonal at least n from zero', () => {
    const n = 5;
    const a = randomComplexGeneral('float32', n, 2, new Random(9));
    assert.ok(a instanceof Float32Array && a.length === 2 * n * n * 2);
    for (let m = 0; m < 2; m++) for (let j = 0; j < n; j++) assert.ok(Math.abs(a[2 * (m * n * n + j + j * n)]!) >= n);
  });
});

describe('complex benchmark data of heev and gesvd', () => {
  it('randomHermitian: pairs of the parts dtype, Hermitian with a real diagonal, not diagonally dominant', () => {
    const n = 8, count = 4;
    const a = randomHermitian('float32', n, count, new Random(21));
    assert.ok(a instanceof Float32Array && a.length === 2 * n * n * count);
    let dominant = true;
    for (let m = 0; m < count; m++) {
      const at = (i: number, j: number): [number, number] => { const x = 2 * (m * n * n + i + j * n); return [a[x]!, a[x + 1]!]; };
      for (let i = 0; i < n; i++) {
        let off = 0;
        for (let j = 0; j < n; j++) {
          const [re, im] = at(i, j), [tr, ti] = at(j, i);
          assert.equal(re, tr, `matrix ${m} (${i}, ${j})`);
          assert.ok(im === -ti, `matrix ${m} (${i}, ${j}): conjugates`);
          if (i !== j) { off += Math.hypot(re, im); assert.ok(im !== 0 && Math.abs(re) < 1 && Math.abs(im) < 1); }
        }
        assert.equal(at(i, i)[1], 0);
        assert.ok(Math.abs(at(i, i)[0]) < 1);
        if (!(Math.abs(at(i, i)[0]) > off)) dominant = false;
      }
    }
    assert.equal(dominant, false);
  });
  it('the workloads: A n x n pairs and its pristine copy (Hermitian for heev), w and s n reals, U and VT n x n pairs; A restored by reset', () => {
    const ctx = open({ backend: 'cpu' });
    const n = 5, count = 3;
    for (const dtype of ['complex128', 'complex64'] as const) {
      const floats = dtype === 'complex128' ? Float64Array : Float32Array;
      const heev = benchWorkload('heev', dtype).prepare(ctx, n, count, new Random(2));
      const { a, a0, w } = heev.arrays as Record<string, Float64Array | Float32Array>;
      assert.deepEqual(Object.keys(heev.arrays).sort(), ['a', 'a0', 'w']);
      for (const x of [a!, a0!, w!]) assert.ok(x instanceof floats, dtype);
      assert.equal(a!.length, 2 * n * n * count);
      assert.equal(w!.length, n * count);
      for (let m = 0; m < count; m++) for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
        const [x, y] = [2 * (m * n * n + i + j * n), 2 * (m * n * n + j + i * n)];
        assert.equal(a0![x], a0![y]);
        assert.ok(a0![x + 1] === -a0![y + 1]!, `${dtype} matrix ${m} (${i}, ${j}): conjugates`);
      }
      heev.run();
      assert.notDeepEqual([...a!], [...a0!], 'heev overwrites A with the vectors');
      // The eigenvalues the run wrote: the reference's of the pristine matrices, ascending.
      for (let m = 0; m < count; m++) {
        const ref = hermitianEigenvalues(a0!.subarray(2 * n * n * m), n);
        for (let j = 0; j < n; j++) assert.ok(Math.abs(w![m * n + j]! - ref[j]!) < 1e-4 * n, `${dtype} matrix ${m} w[${j}]`);
      }
      heev.reset();
      assert.deepEqual([...a!], [...a0!]);
      heev.dispose();
      const gesvd = benchWorkload('gesvd', dtype).prepare(ctx, n, count, new Random(3));
      const g = gesvd.arrays as Record<string, Float64Array | Float32Array>;
      assert.deepEqual(Object.keys(g).sort(), ['a', 'a0', 's', 'u', 'vt']);
      assert.equal(g.a!.length, 2 * n * n * count);
      assert.equal(g.s!.length, n * count);
      assert.equal(g.u!.length, 2 * n * n * count);
      assert.equal(g.vt!.length, 2 * n * n * count);
      gesvd.run();
      for (let m = 0; m < count; m++) {
        const ref = complexSingularValues(g.a0!.subarray(2 * n * n * m), n);
        for (let j = 0; j < n; j++) assert.ok(Math.abs(g.s![m * n + j]! - ref[j]!) < 1e-4 * n, `${dtype} matrix ${m} s[${j}]`);
      }
      g.a!.fill(0);
      gesvd.reset();
      assert.deepEqual([...g.a!], [...g.a0!]);
      gesvd.dispose();
    }
  });
});

describe('the check of the vendor eigenvalues and singular values (heev and gesvd rows)', () => {
  it('the reference: a known spectrum, read from the lower triangle only; singular values of a known matrix', () => {
    // Diagonal 1, 2, 3 and a Hermitian 2 x 2 block [[2, 1 - i], [1 + i, 3]] (eigenvalues 1 and 4).
    const n = 3;
    const a = new Float64Array(2 * n * n);
    const put = (i: number, j: number, re: number, im: number): void => { a[2 * (i + j * n)] = re; a[2 * (i + j * n) + 1] = im; };
    put(0, 0, 5, 0); put(1, 1, 2, 0); put(2, 2, 3, 0); put(2, 1, 1, 1);
    // The upper triangle and the diagonal's imaginary parts hold junk: not read.
    put(1, 2, 99, 99); put(0, 2, -7, 3); a[1] = 42;
    assert.deepEqual([...hermitianEigenvalues(a, n)].map((x) => Math.round(x * 1e12) / 1e12), [1, 4, 5]);
    // U diag(3, 2) with U unitary (columns [c, ic] and [ic, c]): singular values 3, 2.
    const c = Math.SQRT1_2;
    const m = new Float64Array([3 * c, 0, 0, 3 * c, 0, 2 * c, 2 * c, 0]);
    assert.deepEqual([...complexSingularValues(m, 2)].map((x) => Math.round(x * 1e12) / 1e12), [3, 2]);
  });
  it('the normalised difference: sorted first, small for the right values, above the limit for one wrong value, NaN for NaN', () => {
    const n = 6, eps = 2 ** -23;
    const a = randomHermitian('float32', n, 1, new Random(4));
    const ref = hermitianEigenvalues(a, n);
    const got = Float32Array.from(ref).reverse();
    assert.ok(valuesDeviation(a, ref, got, n, eps) < 1, 'the vendor order does not matter');
    const off = Float32Array.from(ref);
    off[2] += 1e-3;
    assert.ok(valuesDeviation(a, ref, off, n, eps) > VALUES_LIMIT);
    off[2] = NaN;
    assert.ok(Number.isNaN(valuesDeviation(a, ref, off, n, eps)));
    assert.throws(() => valuesDeviation(a, ref, got.subarray(0, 2), n, eps), RangeError);
  });
});

describe('the check of a complex LU (the vendor column of getrf and gesv)', () => {
  const n = 7, count = 4;
  const ctx = open({ backend: 'cpu' });
  const pristine = randomComplexGeneral('float64', n, count, new Random(3)) as Float64Array;
  // Rows of comparable size, so that LU pivots (the vendor's 7 x 7 was where the real one failed).
  for (let i = 0; i < count * n * n; i++) if (i % (n + 1) === 0) pristine[2 * i] = pristine[2 * i]! / (2 * n);
  const lu = pristine.slice();
  const { ipiv } = ctx.getrf({ a: strided(lu, { rows: n, count, dtype: 'complex128' }) });
  const matrix = (x: Float64Array, m: number): Float64Array => x.subarray(2 * n * n * m, 2 * n * n * (m + 1));
  const pivots = (m: number): Int32Array => (ipiv as Int32Array).subarray(n * m, n * (m + 1));
  const eps = DTYPE_EPS.float64;

  it('is small on the CPU reference LU, its 0-based pivots, and on the same pivots 1-based', () => {
    assert.ok([...(ipiv as Int32Array)].some((p, j) => p !== j % n), 'the data pivots');
    for (let m = 0; m < count; m++) {
      const r = complexLuResidual(matrix(pristine, m), matrix(lu, m), pivots(m), n, 0, eps);
      assert.ok(r < 10, `matrix ${m}: ${r}`);
      assert.equal(complexLuResidual(matrix(pristine, m), matrix(lu, m), pivots(m).map((p) => p + 1), n, 1, eps), r);
    }
  });
  it('is above the limit for a wrong factor, a wrong pivot, a conjugated factor; Infinity for a pivot outside; NaN for NaN', () => {
    const m = 1;
    const bad = matrix(lu, m).slice();
    bad[2 * (5 + 2 * n)] += 1e-6;
    assert.ok(complexLuResidual(matrix(pristine, m), bad, pivots(m), n, 0, eps) > LU_RESIDUAL_LIMIT);
    const conjugated = matrix(lu, m).map((v, i) => (i % 2 === 1 ? -v : v));
    assert.ok(complexLuResidual(matrix(pristine, m), conjugated, pivots(m), n, 0, eps) > LU_RESIDUAL_LIMIT);
    const swapped = pivots(m).slice();
    swapped[n - 2] = swapped[n - 2] === n - 2 ? n - 1 : n - 2;
    assert.ok(complexLuResidual(matrix(pristine, m), matrix(lu, m), swapped, n, 0, eps) > LU_RESIDUAL_LIMIT);
    assert.equal(complexLuResidual(matrix(pristine, m), matrix(lu, m), pivots(m), n, 1, eps), Infinity, '0-based pivots read as 1-based: pivot -1');
    const nan = matrix(lu, m).slice();
    nan[0] = NaN;
    assert.ok(Number.isNaN(complexLuResidual(matrix(pristine, m), nan, pivots(m), n, 0, eps)));
    assert.throws(() => complexLuResidual(pristine.subarray(0, 3), matrix(lu, m), pivots(m), n, 0, eps), RangeError);
  });
  it('reads a sample spread over the batch, first and last included, fewer for large n', () => {
    assert.deepEqual(checkSample(8, 1), [0]);
    assert.deepEqual(checkSample(8, 3), [0, 1, 2]);
    const s = checkSample(8, 1_000_000);
    assert.equal(s.length, 64);
    assert.equal(s[0], 0);
    assert.equal(s.at(-1), 999_999);
    assert.ok(s.every((v, i) => i === 0 || v > s[i - 1]!));
    assert.equal(checkSample(512, 1000).length, 1);
    assert.equal(checkSample(128, 1000).length, 9);
  });
});

describe('complex rows of runBench on the CPU', () => {
  it('one row per size, GFLOP/s from the complex count, no vendor column and no note', () => {
    const ctx = open({ backend: 'cpu' });
    for (const op of ['getrf', 'trsm', 'geqrf', 'heev', 'gesvd'] as const) {
      const rows = runBench(ctx, { op, dtype: 'complex64', sizes: [3], batch: 4, repeats: 1 });
      assert.equal(rows.length, 1);
      const [row] = rows;
      assert.equal(row!.dtype, 'complex64');
      assert.ok(Math.abs(row!.gflops - (benchWorkload(op, 'complex64').cost(3).flops * 4) / (row!.ms * 1e6)) <= 1e-9 * row!.gflops, op);
      assert.equal(row!.vendor, undefined);
      assert.equal(row!.note, undefined);
    }
  });
});
