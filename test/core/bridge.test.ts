/**
 * The points, each as a user meets it: the bridge between the levels (NDArray in a
 * LAPACK-level call, asArray back), errors that say what to change, opt-in checking, the
 * array-level additions, and NaN/Inf reported the same way by every operation.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as m from '../../src/index.js';
import { MyriadError, ndarray, strided, type NDArray } from '../../src/index.js';

const f64 = (values: readonly number[], shape: readonly number[]): NDArray<Float64Array> => ndarray(new Float64Array(values), shape);

function throwsMatch(fn: () => unknown, code: string, pattern: RegExp, argument?: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof MyriadError, String(e));
    assert.equal(e.code, code, e.message);
    if (argument !== undefined) assert.equal(e.argument, argument, e.message);
    assert.match(e.message, pattern);
    return true;
  });
}

describe('1. the bridge', () => {
  it("gesv on row-major NDArrays solves the system as written (the issue's [3, 1])", () => {
    // 2 x + y = 7, x + 3 y = 6  ->  [3, 1]
    const a = f64([2, 1, 1, 3], [1, 2, 2]);
    const b = f64([7, 6], [1, 2, 1]);
    const { info } = m.gesv({ a, b });
    assert.deepEqual([...info], [0]);
    assert.deepEqual([...b.data].map((v) => Math.round(v * 1e12) / 1e12), [3, 1]);
  });
  it('gemm on NDArrays equals matmul (row-major H, no order option)', () => {
    const H = f64([1, 2, 3, 4, 5, 6], [2, 3]);
    const P = f64([1, 0, 2, 0, 1, 0, 2, 0, 5, 3, 1, 1, 1, 3, 1, 1, 1, 3], [2, 3, 3]);
    const c = ndarray(new Float64Array(12), [2, 2, 3]);
    m.gemm({ a: m.batchOf(H, { count: 2 }), b: P, c });
    // By hand (matmul itself calls gemm, so it alone would compare gemm with gemm).
    assert.deepEqual([...c.data], [7, 2, 17, 16, 5, 38, 8, 10, 12, 23, 25, 27]);
    assert.deepEqual([...c.data], [...m.matmul(H, P).data]);
  });
  it('batchOf reads [..., rows, cols]; [n] is one column; { count } repeats one matrix with stride 0', () => {
    const b = m.batchOf(f64(new Array(24).fill(0), [2, 3, 4]));
    assert.deepEqual([b.count, b.rows, b.cols, b.ld, b.stride, b.order], [2, 3, 4, 4, 12, 'row']);
    const v = m.batchOf(f64([1, 2, 3], [3]));
    assert.deepEqual([v.count, v.rows, v.cols], [1, 3, 1]);
    const r = m.batchOf(f64([1, 2, 3, 4], [2, 2]), { count: 5 });
    assert.deepEqual([r.count, r.stride], [5, 0]);
    throwsMatch(() => m.batchOf(f64(new Array(8).fill(0), [2, 2, 2]), { count: 5 }), 'SHAPE', /repeats one matrix/);
  });
  it('a vector stack given as [count, n] says how it was read and what to give instead', () => {
    const a = f64(new Array(2 * 9).fill(0).map((_, i) => (i % 4 === 0 ? 2 : 0)), [2, 3, 3]);
    const w = ndarray(new Float64Array(6), [2, 3]);
    throwsMatch(() => m.syev({ a, w }), 'SHAPE', /shape \[2, 3\] is read as 1 matrix of 2x3.*give \[2, 3, 1\]/, 'w');
  });
  it('asArray: a contiguous row-major batch is the same memory; a column-major one a transposed copy', () => {
    const data = new Float64Array([1, 2, 3, 4, 5, 6]);
    const row = m.asArray(strided(data, { rows: 1, cols: 3, count: 2, order: 'row' }));
    assert.deepEqual(row.shape, [2, 1, 3]);
    data[0] = 9;
    assert.equal(row.data[0], 9);
    const col = m.asArray(strided(new Float64Array([1, 2, 3, 4]), { rows: 2, cols: 2 }));
    assert.deepEqual([...col.data], [1, 3, 2, 4]);
    const tall = m.asArray(strided(new Float64Array([1, 2, 3, 4, 5, 6, 7, 8]), { rows: 2, cols: 1, count: 2, order: 'row', stride: 4 }));
    assert.deepEqual([...tall.data], [1, 2, 5, 6]);
    throwsMatch(() => m.asArray(m.variable([{ data: new Float64Array(4), rows: 2 }, { data: new Float64Array(1), rows: 1 }])), 'SHAPE', /different shapes/);
  });
  it('prepared calls take NDArrays too', () => {
    const a = f64([4, 2, 2, 3], [1, 2, 2]);
    const b = f64([6, 5], [1, 2, 1]);
    const call = m.cpuContext.prepare.posv({ a, b });
    call();
    assert.deepEqual([...b.data].map((v) => Math.round(v * 1e12) / 1e12), [1, 1]);
  });
});

describe('2. constructors: errors name the call argument and the defaulted field', () => {
  it('a count that does not divide names the defaulted cols', () => {
    throwsMatch(() => strided(new Float64Array(10), { rows: 3 }), 'LAYOUT', /cols = rows = 3 \(give cols: 1/, 'strided.count');
  });
  it('an explicit ld/stride is not reported as defaulted', () => {
    const b = strided(new Float64Array(8), { rows: 2, cols: 2, ld: 2, stride: 4, count: 3 });
    throwsMatch(() => m.potrf({ a: b }), 'BOUNDS', /^a\.data: buffer of 8 elements is too short: 3 matrices of 2x2 \(stride 4, offset 0, ld 2\) reach element 11$/, 'a.data');
  });
});

describe('3. check: true and assertInfo', () => {
  const spd = [4, 2, 2, 3];
  const notSpd = [1, 2, 2, 1];
  it('posv: per-matrix info without check; with it, NUMERICAL naming the matrix and the minor', () => {
    const a = () => f64([...spd, ...notSpd], [2, 2, 2]);
    const b = () => f64([1, 1, 1, 1], [2, 2, 1]);
    const r = m.posv({ a: a(), b: b() });
    assert.deepEqual([...r.info], [0, 2]);
    throwsMatch(() => m.posv({ a: a(), b: b(), check: true }), 'NUMERICAL', /posv: 1 of the matrices failed: #1 not positive definite \(the leading minor of order 2\) \(info 2\)/);
    throwsMatch(() => m.assertInfo(r, 'posv', a()), 'NUMERICAL', /#1 not positive definite/);
    m.assertInfo(m.posv({ a: f64(spd, [1, 2, 2]), b: f64([1, 1], [1, 2, 1]) }), 'posv');
  });
  it('posv on NaN names NaN/Inf in the output', () => {
    throwsMatch(() => m.posv({ a: f64([NaN, 0, 0, 1], [1, 2, 2]), b: f64([1, 1], [1, 2, 1]), check: true }), 'NUMERICAL', /#0 NaN\/Inf in the output \(the input held NaN\/Inf, or the result overflowed\)/);
  });
  it('gesv: singular at k; NaN (which gesv runs through with info 0) named from the result', () => {
    throwsMatch(() => m.gesv({ a: f64([1, 2, 2, 4], [1, 2, 2]), b: f64([1, 1], [1, 2, 1]), check: true }), 'NUMERICAL', /#0 singular \(U\(2, 2\) is exactly zero\)/);
    throwsMatch(() => m.gesv({ a: f64([1, 0, 0, 1], [1, 2, 2]), b: f64([NaN, 1], [1, 2, 1]), check: true }), 'NUMERICAL', /#0 NaN\/Inf in the output/);
    // A finite system whose solution overflows: the output's Inf, not the input, is named.
    throwsMatch(() => m.gesv({ a: f64([1e-300, 0, 0, 1], [1, 2, 2]), b: f64([1e300, 1], [1, 2, 1]), check: true }), 'NUMERICAL', /#0 NaN\/Inf in the output \(the input held NaN\/Inf, or the result overflowed\) \(info 0\)/);
  });
  it('syev: NaN and the code p + 2 named the same way; gels: rank-deficient', () => {
    throwsMatch(() => m.syev({ a: f64([1, NaN, NaN, 1], [1, 2, 2]), w: ndarray(new Float64Array(2), [1, 2, 1]), check: true }), 'NUMERICAL', /#0 NaN\/Inf in the input \(info 4\)/);
    throwsMatch(() => m.gels({ a: f64([1, 1, 1, 1, 1, 1], [1, 3, 2]), b: f64([1, 2, 3], [1, 3, 1]), check: true }), 'NUMERICAL', /#0 rank-deficient \(R\(2, 2\) is exactly zero\)/);
  });
  it('check must be a boolean, checked before anything runs; prepared calls honour it', () => {
    const a = f64(notSpd, [1, 2, 2]);
    throwsMatch(() => m.potrf({ a, check: 'yes' as unknown as boolean }), 'INVALID_ARGUMENT', /expected true or false/, 'check');
    assert.deepEqual([...a.data], notSpd);
    const call = m.cpuContext.prepare.potrf({ a, check: true });
    throwsMatch(() => call(), 'NUMERICAL', /#0 not positive definite/);
  });
  it('async calls reject with the same error', async () => {
    await assert.rejects(m.cpuContext.posvAsync({ a: f64(notSpd, [1, 2, 2]), b: f64([1, 1], [1, 2, 1]), check: true }), /not positive definite/);
  });
});

describe('4. array level: transpose, add, subtract, scale, lstsq broadcasting, the 1-D rule', () => {
  it('transpose swaps the last two axes of every matrix', () => {
    const t = m.transpose(f64([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], [2, 2, 3]));
    assert.deepEqual(t.shape, [2, 3, 2]);
    assert.deepEqual([...t.data], [1, 4, 2, 5, 3, 6, 7, 10, 8, 11, 9, 12]);
    throwsMatch(() => m.transpose(f64([1, 2], [2])), 'SHAPE', /1-D array has no matrix transpose/);
  });
  it('add and subtract broadcast over every dimension (numpy); scale; numbers as scalars', () => {
    const a = f64([1, 2, 3, 4, 5, 6], [2, 3, 1]);
    const b = f64([10, 20], [1, 1, 2]);
    const s = m.add(a, b);
    assert.deepEqual(s.shape, [2, 3, 2]);
    assert.deepEqual([...s.data], [11, 21, 12, 22, 13, 23, 14, 24, 15, 25, 16, 26]);
    assert.deepEqual([...m.subtract(b, 1).data], [9, 19]);
    assert.deepEqual([...m.subtract(f64([5, 5], [2]), f64([1, 2], [2])).data], [4, 3]);
    assert.deepEqual([...m.scale(b, 0.5).data], [5, 10]);
    throwsMatch(() => m.add(a, f64([1, 2, 3, 4], [4, 1])), 'SHAPE', /shapes \[2, 3, 1\] and \[4, 1\] do not broadcast/, 'b.shape');
    const b32 = m.broadcastTo(ndarray(new Float32Array([1, 2]), [2]), [3, 2]);
    assert.ok(b32.data instanceof Float32Array);
    assert.deepEqual([...b32.data], [1, 2, 1, 2, 1, 2]);
  });
  it('add agrees with the general broadcast where one operand repeats as a block (either side, leading 1s)', () => {
    const big = f64([1, 2, 3, 4, 5, 6, 7, 8], [2, 2, 2]);
    const small = f64([10, 20, 30, 40], [1, 2, 2]);
    assert.deepEqual([...m.add(big, small).data], [11, 22, 33, 44, 15, 26, 37, 48]);
    assert.deepEqual([...m.subtract(small, big).data], [9, 18, 27, 36, 5, 14, 23, 32]);
    assert.deepEqual([...m.broadcastTo(f64([1, 2], [2]), [2, 2, 2]).data], [1, 2, 1, 2, 1, 2, 1, 2]);
    const col = m.add(f64([1, 2], [2, 1]), f64([10, 20, 30], [3]));
    assert.deepEqual(col.shape, [2, 3]);
    assert.deepEqual([...col.data], [11, 21, 31, 12, 22, 32]);
  });
  it('broadcastTo copies: a 0-D array to every element, the sign of zero kept, a bad target named as shape', () => {
    const scalar = ndarray(new Float64Array([5]), []);
    assert.deepEqual([...m.broadcastTo(scalar, [2, 3]).data], [5, 5, 5, 5, 5, 5]);
    assert.deepEqual([...m.add(scalar, f64([1, 2], [2])).data], [6, 7]);
    assert.ok(Object.is(m.broadcastTo(f64([-0, 1], [2]), [2, 2]).data[2], -0));
    throwsMatch(() => m.broadcastTo(f64([1, 2, 3, 4], [2, 2]), [3, 2]), 'SHAPE', /do not broadcast/, 'shape');
    // ndarray takes shape [] (one element), as matmul of two 1-D arrays returns.
    assert.deepEqual(m.matmul(f64([1, 2], [2]), f64([3, 4], [2])).shape, []);
    throwsMatch(() => ndarray(new Float64Array(2), []), 'BOUNDS', /shape \[\] needs 1/);
  });
  it('asArray of an empty float32 batch (strided, padded) keeps Float32Array', () => {
    const e = m.asArray(strided(new Float32Array(0), { rows: 2, cols: 2, count: 0 }));
    assert.ok(e.data instanceof Float32Array);
    assert.deepEqual(e.shape, [0, 2, 2]);
    assert.ok(m.asArray(strided(new Float32Array(0), { rows: 2, cols: 2, count: 0, ld: 3 })).data instanceof Float32Array);
  });
  it("lstsq broadcasts a [1, m, n] against b [k, m, 1] (the issue's shapes) as solve does", () => {
    const A = f64([1, 0, 1, 1, 1, 2, 1, 3], [1, 4, 2]);
    const b = f64([1, 3, 5, 7, 2, 2, 2, 2, 0, 1, 2, 3], [3, 4, 1]);
    const { x } = m.lstsq(A, b);
    assert.deepEqual(x.shape, [3, 2, 1]);
    assert.deepEqual([...x.data].map((v) => Math.round(v * 1e9) / 1e9 + 0), [1, 2, 2, 0, 0, 1]);
  });
  it('a 1-D b is one vector for every matrix of a, and a wrong length says so', () => {
    const A = f64([1, 0, 1, 1, 1, 2, 1, 0, 1, 1, 1, 2], [2, 3, 2]);
    const { x } = m.lstsq(A, f64([1, 2, 3], [3]));
    assert.deepEqual(x.shape, [2, 2]);
    // Both matrices are [1 t] at t = 0, 1, 2: the line through (t, t + 1) is x = [1, 1] for each.
    assert.deepEqual([...x.data].map((v) => Math.round(v * 1e9) / 1e9 + 0), [1, 1, 1, 1]);
    throwsMatch(() => m.lstsq(A, f64([1, 2], [2])), 'SHAPE', /b is 1-D, so it is one vector of length 3 .* give b shape \[\.\.\., 3, 1\]/, 'b.shape');
    throwsMatch(() => m.solve(f64([1, 0, 0, 1], [1, 2, 2]), f64([1, 2, 3], [3])), 'SHAPE', /b is 1-D, so it is one vector of length 2/);
  });
  it('results keep their array type', () => {
    const a = ndarray(new Float32Array([4, 2, 2, 3]), [2, 2]);
    const l: NDArray<Float32Array> = m.cholesky(a);
    const x: NDArray<Float32Array> = m.solve(a, ndarray(new Float32Array([1, 1]), [2]));
    const e: m.EighResult<Float32Array> = m.eigh(a);
    assert.ok(l.data instanceof Float32Array && x.data instanceof Float32Array && e.values.data instanceof Float32Array);
  });
});

describe('5. NaN/Inf named the same way everywhere (info p + 2 at the array level)', () => {
  const nan = (): NDArray<Float64Array> => f64([4, 2, 2, 3, NaN, 0, 0, 1], [2, 2, 2]);
  const cases: [string, () => unknown][] = [
    ['cholesky', () => m.cholesky(nan())],
    ['lu', () => m.lu(nan())],
    ['solve', () => m.solve(nan(), f64([1, 1], [2]))],
    ['inv', () => m.inv(nan())],
    ['inv', () => m.inv(nan(), { assume: 'spd' })],
    ['eigh', () => m.eigh(nan())],
    ['eigvalsh', () => m.eigvalsh(nan())],
    ['svd', () => m.svd(nan())],
    ['lstsq', () => m.lstsq(nan(), f64([1, 1], [2]))],
  ];
  for (const [op, call] of cases) {
    it(`${op}${op === 'inv' ? ' (general and spd)' : ''}`, () => throwsMatch(call, 'NUMERICAL', new RegExp(`^${op}: 1 of the matrices failed: #1 NaN/Inf in the input \\(info 4\\)`)));
  }
  it('inv { assume: spd } names a non-SPD matrix as cholesky does, under its own name', () => {
    throwsMatch(() => m.inv(f64([1, 2, 2, 1], [2, 2]), { assume: 'spd' }), 'NUMERICAL', /^inv: 1 of the matrices failed: #0 not positive definite \(the leading minor of order 2\).*invEx returns/);
  });
  it('the Ex variants return info p + 2 and NaN results for that matrix only', () => {
    const r = m.solveEx(nan(), f64([1, 1], [2]));
    assert.deepEqual([...r.info], [0, 4]);
    assert.ok(Number.isFinite(r.x.data[0]!) && Number.isNaN(r.x.data[2]!));
    const q = m.lstsqEx(f64([1, 0, 0, 1, 1, 1], [1, 3, 2]), f64([1, Infinity, 0], [3]));
    assert.deepEqual([...q.info], [4]);
  });
  it('the info table is one function of the op and the code', () => {
    assert.equal(m.describeInfo('potrf', 3, 4), 'not positive definite (the leading minor of order 3)');
    assert.equal(m.describeInfo('syev', 5, 4), 'no convergence (the Jacobi sweeps did not converge)');
    assert.equal(m.describeInfo('syev', 6, 4), 'NaN/Inf in the input');
    assert.equal(m.describeInfo('solve', 6, 4), 'NaN/Inf in the input');
    assert.equal(m.describeInfo('getrf', 2, 4), 'singular (U(2, 2) is exactly zero)');
  });
});
