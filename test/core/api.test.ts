/**
 * The public API: argument validation (every error names its argument), row-major mapping
 * (checked against column-major results on transposed data), the array level, zero sizes,
 * failing matrices in the middle of a batch.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as m from '../../src/index.js';
import { MyriadError, strided, list, variable, type ErrorCode } from '../../src/index.js';
import { Random, randomGeneral, randomSpd } from '../../src/bench/data.js';
import { maxSolveResidual } from '../../src/bench/residual.js';

function throwsArg(fn: () => unknown, code: ErrorCode, argument: string, message?: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof MyriadError, `expected MyriadError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    assert.equal(e.argument, argument, e.message);
    if (message) assert.match(e.message, message);
    return true;
  });
}

const f64 = (n: number): Float64Array => new Float64Array(n).fill(1);
const sq = (n: number, count = 1): m.StridedBatch<Float64Array> => strided(f64(n * n * count), { rows: n, count });

describe('validation errors name the argument', () => {
  it('batch constructors: options named strided.<field>, the buffer fit named by the call\'s argument', () => {
    throwsArg(() => strided(f64(9), { rows: 3, ld: 2 }), 'LAYOUT', 'strided.ld');
    throwsArg(() => strided(f64(9), { rows: -1 }), 'INVALID_ARGUMENT', 'strided.rows');
    throwsArg(() => strided(f64(9), { rows: 1.5 }), 'INVALID_ARGUMENT', 'strided.rows');
    throwsArg(() => strided(f64(10), { rows: 3 }), 'LAYOUT', 'strided.count', /defaulted: cols = rows = 3/);
    throwsArg(() => strided(new Int32Array(9) as unknown as Float64Array, { rows: 3 }), 'DTYPE', 'strided.data');
    throwsArg(() => strided(f64(9), { rows: 3, order: 'x' as 'col' }), 'ENUM', 'strided.order');
    // An explicit argument name checks the fit at once and names it.
    throwsArg(() => strided(f64(8), { rows: 3, count: 1 }, 'batch'), 'BOUNDS', 'batch.data');
    throwsArg(() => strided(f64(20), { rows: 3, count: 2, stride: 9, offset: 3 }, 'x'), 'BOUNDS', 'x.data');
    // Without one, the call checks it and names its argument.
    throwsArg(() => m.gemm({ a: sq(3), b: strided(f64(8), { rows: 3, count: 1 }), c: sq(3) }), 'BOUNDS', 'b.data');
    throwsArg(() => m.potrf({ a: list([f64(9), f64(8)], { rows: 3 }) }), 'BOUNDS', 'a.matrices[1].data');
    throwsArg(() => variable([{ data: f64(4), rows: 2 }, { data: f64(4), rows: 3 }]), 'BOUNDS', 'variable.matrices[1].data');
    throwsArg(() => variable([{ data: f64(9), rows: 3, ld: 1 }]), 'LAYOUT', 'variable.matrices[0].ld');
  });
  it('the issue\'s right-hand side without cols: 1: the error names b and the defaulted cols', () => {
    const a = strided(new Float64Array(4 * 16), { rows: 4, count: 4 });
    throwsArg(() => m.posv({ a, b: strided(new Float64Array(16), { rows: 4, count: 4 }) }), 'BOUNDS', 'b.data', /defaulted: cols = rows = 4 \(give cols: 1/);
  });
  it('gemm', () => {
    throwsArg(() => m.gemm({ a: sq(3), b: sq(3), c: sq(3), transA: 'X' as 'N' }), 'ENUM', 'transA');
    throwsArg(() => m.gemm({ a: sq(3), b: sq(2), c: sq(3) }), 'SHAPE', 'b');
    throwsArg(() => m.gemm({ a: sq(3), b: sq(3), c: sq(2) }), 'SHAPE', 'c');
    throwsArg(() => m.gemm({ a: sq(3, 2), b: sq(3), c: sq(3) }), 'SHAPE', 'b');
    throwsArg(() => m.gemm({ a: sq(3), b: strided(new Float32Array(9), { rows: 3 }) as unknown as m.StridedBatch<Float64Array>, c: sq(3) }), 'DTYPE', 'b');
    throwsArg(() => m.gemm({ a: sq(3), b: sq(3), c: sq(3), alpha: NaN }), 'INVALID_ARGUMENT', 'alpha');
    throwsArg(() => m.gemm({ a: sq(3), b: sq(3), c: undefined as unknown as m.StridedBatch }), 'INVALID_ARGUMENT', 'c');
    throwsArg(() => m.gemm({ a: sq(3, 2), b: sq(3, 2), c: strided(f64(18), { rows: 3, count: 2, stride: 4 }) }), 'LAYOUT', 'c.stride');
    const hand = { ...sq(3), count: 5 };
    throwsArg(() => m.gemm({ a: hand, b: sq(3), c: sq(3) }), 'BOUNDS', 'a.data');
  });
  it('trsm, syrk and the factorisations', () => {
    throwsArg(() => m.trsm({ a: strided(f64(6), { rows: 2, cols: 3 }), b: sq(2) }), 'SHAPE', 'a');
    throwsArg(() => m.trsm({ a: sq(3), b: sq(2) }), 'SHAPE', 'a');
    throwsArg(() => m.trsm({ a: sq(3), b: sq(3), side: 'up' as 'left' }), 'ENUM', 'side');
    throwsArg(() => m.trsm({ a: sq(3), b: sq(3), diag: 'u' as 'unit' }), 'ENUM', 'diag');
    throwsArg(() => m.syrk({ a: sq(3), c: strided(f64(6), { rows: 3, cols: 2 }) }), 'SHAPE', 'c');
    throwsArg(() => m.potrf({ a: sq(3), uplo: 'L' as 'lower' }), 'ENUM', 'uplo');
    throwsArg(() => m.potrf({ a: strided(f64(6), { rows: 2, cols: 3 }) }), 'SHAPE', 'a');
    throwsArg(() => m.potrf({ a: sq(3, 4), info: new Int32Array(3) }), 'BOUNDS', 'info');
    throwsArg(() => m.potrf({ a: sq(3), info: new Float64Array(3) as unknown as Int32Array }), 'DTYPE', 'info');
    throwsArg(() => m.getrf({ a: sq(3, 2), ipiv: new Int32Array(5) }), 'BOUNDS', 'ipiv');
    throwsArg(() => m.posv({ a: sq(3), b: strided(f64(4), { rows: 2, cols: 2 }) }), 'SHAPE', 'b');
    throwsArg(() => m.getrs({ a: sq(3), b: sq(3), ipiv: new Int32Array([0, 5, 2]) }), 'INVALID_ARGUMENT', 'ipiv');
    throwsArg(() => m.getrs({ a: sq(3), b: sq(3), ipiv: undefined as unknown as Int32Array }), 'INVALID_ARGUMENT', 'ipiv');
    throwsArg(() => m.open({ backend: 'gpu' as 'cpu' }), 'ENUM', 'backend');
    throwsArg(() => m.open({ backend: 'cpu', device: -1 }), 'INVALID_ARGUMENT', 'device');
    const shared = f64(9);
    throwsArg(() => m.potrf({ a: list([shared, shared], { rows: 3 }) }), 'LAYOUT', 'a.matrices[1]');
    throwsArg(() => m.syrk({ a: strided(f64(6), { rows: 2, cols: 3 }), c: sq(3) }), 'SHAPE', 'a');
    throwsArg(() => m.gemm({ a: sq(2), b: sq(2), c: variable([{ data: f64(9), rows: 3 }]) }), 'SHAPE', 'c');
    throwsArg(() => m.gemm({ a: sq(2), b: sq(2), c: { ...sq(2), kind: 'dense' } as unknown as m.StridedBatch<Float64Array> }), 'INVALID_ARGUMENT', 'c.kind');
    throwsArg(() => m.gemm({ a: sq(2), b: sq(2), c: { ...sq(2), order: 'diag' } as unknown as m.StridedBatch<Float64Array> }), 'ENUM', 'c.order');
    throwsArg(() => m.gesv({ a: sq(3, 2), b: strided(f64(9), { rows: 3, count: 1 }) }), 'SHAPE', 'b');
    throwsArg(() => m.trtri({ a: sq(3), diag: 'yes' as 'unit' }), 'ENUM', 'diag');
    throwsArg(() => m.getrs({ a: sq(3), b: sq(3), ipiv: new Int32Array([0, 1, 2]), trans: 'X' as 'N' }), 'ENUM', 'trans');
  });
  it('array level', () => {
    throwsArg(() => m.ndarray(f64(5), [2, 3]), 'BOUNDS', 'array.data');
    throwsArg(() => m.matmul(m.ndarray(f64(6), [2, 3]), m.ndarray(f64(6), [2, 3])), 'SHAPE', 'b');
    throwsArg(() => m.cholesky(m.ndarray(f64(6), [2, 3])), 'SHAPE', 'a.shape');
    throwsArg(() => m.matmul(m.ndarray(f64(8), [2, 2, 2]), m.ndarray(f64(12), [3, 2, 2])), 'SHAPE', 'b');
  });
});

describe('zero sizes are no-ops', () => {
  it('empty batches and 0x0 matrices', () => {
    m.gemm({ a: strided(f64(0), { rows: 0, count: 0 }), b: strided(f64(0), { rows: 0, count: 0 }), c: strided(f64(0), { rows: 0, count: 0 }) });
    const z = strided(f64(0), { rows: 0, count: 3 });
    assert.deepEqual([...m.potrf({ a: z }).info], [0, 0, 0]);
    const { info, ipiv } = m.getrf({ a: z });
    assert.equal(info.length, 3);
    assert.equal(ipiv.length, 0);
    assert.deepEqual(m.matmul(m.ndarray(f64(0), [0, 2, 2]), m.ndarray(f64(4), [2, 2])).shape, [0, 2, 2]);
  });
});

/** Copies a packed column-major batch into row-major order (and back: the same transposition). */
function transposeEach(src: Float64Array, rows: number, cols: number, count: number): Float64Array {
  const out = new Float64Array(src.length);
  for (let k = 0; k < count; k++)
    for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) out[k * rows * cols + i * cols + j] = src[k * rows * cols + i + j * rows]!;
  return out;
}

describe('row-major batches give the column-major results', () => {
  const rng = new Random(99);
  const n = 5, count = 3;
  it('gemm with every mix of orders and transposes', () => {
    const A = randomGeneral('float64', n, count, rng) as Float64Array;
    const B = randomGeneral('float64', n, count, rng) as Float64Array;
    for (const ta of ['N', 'T'] as const) for (const tb of ['N', 'T'] as const) {
      const ref = new Float64Array(n * n * count);
      m.gemm({ a: strided(A, { rows: n, count }), b: strided(B, { rows: n, count }), c: strided(ref, { rows: n, count }), transA: ta, transB: tb });
      for (const [oa, ob, oc] of [['row', 'row', 'row'], ['row', 'col', 'col'], ['col', 'row', 'row'], ['col', 'col', 'row']] as const) {
        const a = oa === 'row' ? transposeEach(A, n, n, count) : A;
        const b = ob === 'row' ? transposeEach(B, n, n, count) : B;
        const c = new Float64Array(n * n * count);
        m.gemm({ a: strided(a, { rows: n, count, order: oa }), b: strided(b, { rows: n, count, order: ob }), c: strided(c, { rows: n, count, order: oc }), transA: ta, transB: tb });
        const got = oc === 'row' ? transposeEach(c, n, n, count) : c;
        got.forEach((v, i) => assert.ok(Math.abs(v - ref[i]!) < 1e-12, `${ta}${tb} ${oa}${ob}${oc}: element ${i}`));
      }
    }
  });
  it('potrf, trsm and getrf on row-major storage', () => {
    const S = randomSpd('float64', n, count, rng) as Float64Array;
    for (const uplo of ['lower', 'upper'] as const) {
      const col = S.slice();
      m.potrf({ a: strided(col, { rows: n, count }), uplo });
      const row = transposeEach(S, n, n, count);
      m.potrf({ a: strided(row, { rows: n, count, order: 'row' }), uplo });
      transposeEach(row, n, n, count).forEach((v, i) => assert.ok(Math.abs(v - col[i]!) < 1e-12));
    }
    const G = randomGeneral('float64', n, count, rng) as Float64Array;
    const col = G.slice();
    const r1 = m.getrf({ a: strided(col, { rows: n, count }) });
    const row = transposeEach(G, n, n, count);
    const r2 = m.getrf({ a: strided(row, { rows: n, count, order: 'row' }) });
    assert.deepEqual([...r2.ipiv], [...r1.ipiv]);
    transposeEach(row, n, n, count).forEach((v, i) => assert.equal(v, col[i]));
    // trsm: row-major A and B against column-major.
    for (const side of ['left', 'right'] as const) for (const uplo of ['lower', 'upper'] as const) for (const t of ['N', 'T'] as const) {
      const Bc = randomGeneral('float64', n, count, rng) as Float64Array;
      const Br = transposeEach(Bc, n, n, count);
      m.trsm({ a: strided(G, { rows: n, count }), b: strided(Bc, { rows: n, count }), side, uplo, transA: t });
      m.trsm({ a: strided(transposeEach(G, n, n, count), { rows: n, count, order: 'row' }), b: strided(Br, { rows: n, count, order: 'row' }), side, uplo, transA: t });
      transposeEach(Br, n, n, count).forEach((v, i) => assert.ok(Math.abs(v - Bc[i]!) < 1e-10 * (1 + Math.abs(v)), `${side} ${uplo} ${t}`));
    }
  });
});

describe('array level', () => {
  const rng = new Random(5);
  it('solve, cholesky, choleskySolve, inv and matmul agree', () => {
    const n = 6, count = 4;
    const spd = randomSpd('float64', n, count, rng); // symmetric: row- and column-major are the same
    const a = m.ndarray(spd, [2, 2, n, n]);
    // numpy 2: a stack of right-hand-side vectors is [..., n, 1] (a 2-D or higher b is matrices).
    const b = m.ndarray(new Float64Array(count * n).map(() => rng.next()), [2, 2, n, 1]);
    const x = m.solve(a, b);
    assert.deepEqual(x.shape, [2, 2, n, 1]);
    assert.ok(maxSolveResidual('float64', spd, x.data, b.data, n, 1, count) < 30);
    const L = m.cholesky(a);
    const x2 = m.choleskySolve(L, b);
    x2.data.forEach((v, i) => assert.ok(Math.abs(v - x.data[i]!) < 1e-12));
    // L L^T == A and L is lower (row-major [i, j], j > i is zero).
    const LT = m.ndarray(new Float64Array(L.data.length), L.shape);
    for (let k = 0; k < count; k++) for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
      LT.data[k * n * n + j * n + i] = L.data[k * n * n + i * n + j]!;
      if (j > i) assert.equal(L.data[k * n * n + i * n + j], 0);
    }
    m.matmul(L, LT).data.forEach((v, i) => assert.ok(Math.abs(v - spd[i]!) < 1e-12));
    const prod = m.matmul(a, m.inv(a));
    prod.data.forEach((v, i) => assert.ok(Math.abs(v - ((i % (n * n)) % (n + 1) === 0 ? 1 : 0)) < 1e-12));
  });
  it('a failing matrix: the plain function throws, Ex reports it and spares the neighbours', () => {
    const n = 4;
    const spd = randomSpd('float64', n, 3, rng) as Float64Array;
    spd.fill(0, n * n, 2 * n * n); // matrix 1 is all zero: not PD at minor 1, singular
    const a = m.ndarray(spd, [3, n, n]);
    assert.throws(() => m.cholesky(a), (e: unknown) => e instanceof MyriadError && e.code === 'NUMERICAL' && /#1/.test(e.message));
    const r = m.choleskyEx(a);
    assert.deepEqual([...r.info], [0, 1, 0]);
    assert.ok(r.factor.data.slice(n * n, 2 * n * n).every(Number.isNaN));
    assert.ok([...r.factor.data.slice(0, n * n), ...r.factor.data.slice(2 * n * n)].every(Number.isFinite));
    const s = m.solveEx(a, m.ndarray(new Float64Array(3 * n).fill(1), [3, n, 1]));
    assert.deepEqual([...s.info], [0, 1, 0]);
    assert.throws(() => m.inv(a), (e: unknown) => e instanceof MyriadError && e.code === 'NUMERICAL');
  });
  it('luEx: a singular matrix keeps its complete factors (as getrf leaves them), NaN or Inf in the input makes them NaN', () => {
    for (const dtype of ['float64', 'complex128'] as const) {
      const c = dtype === 'complex128' ? 2 : 1;
      // [[1, 2], [2, 4]] (singular: U(1, 1) = 0 after the pivot), [[3, 1], [1, 3]], [[NaN, 1], [1, 1]], row-major.
      const rows = [[1, 2, 2, 4], [3, 1, 1, 3], [NaN, 1, 1, 1]].flat();
      const data = new Float64Array(c * rows.length);
      rows.forEach((v, i) => { data[c * i] = v; });
      const r = m.luEx(m.ndarray(data, [3, 2, 2], { dtype }));
      assert.deepEqual([...r.info], [2, 0, 4], dtype);
      const el = (k: number): number => r.lu.data[c * k]!;
      // Row 0 pivots to row 1: U = [[2, 4], [0, 0]], L(1, 0) = 0.5.
      assert.deepEqual([0, 1, 2, 3].map(el), [2, 4, 0.5, 0], dtype);
      assert.ok([4, 5, 6, 7].map(el).every(Number.isFinite), dtype);
      assert.ok(r.lu.data.slice(8 * c).every(Number.isNaN), dtype);
    }
  });
  it('triangularSolve both sides', () => {
    const n = 5;
    const A = m.ndarray(randomGeneral('float64', n, 1, rng), [n, n]);
    const B = m.ndarray(randomGeneral('float64', n, 1, rng), [n, n]);
    for (const left of [true, false]) for (const upper of [true, false]) {
      const X = m.triangularSolve(A, B, { left, upper });
      const T = m.ndarray(A.data.map((v, i) => { const r = Math.floor(i / n), c = i % n; return (upper ? c >= r : c <= r) ? v : 0; }), [n, n]);
      const back = left ? m.matmul(T, X) : m.matmul(X, T);
      back.data.forEach((v, i) => assert.ok(Math.abs(v - B.data[i]!) < 1e-10, `left=${left} upper=${upper}`));
    }
  });
  it('triangularSolve takes b with one dimension fewer than a on both sides: a column vector (left) or a row vector (right) per matrix', () => {
    const n = 4, count = 3;
    for (const dtype of [undefined, 'complex128'] as const) {
      const c = dtype === undefined ? 1 : 2;
      const random = (len: number) => Float64Array.from({ length: c * len }, () => rng.next() - 0.5);
      const aData = random(count * n * n);
      for (let q = 0; q < count; q++) for (let i = 0; i < n; i++) aData[c * (q * n * n + i * n + i)] = 4 + i;
      const A = m.ndarray(aData, [count, n, n], dtype ? { dtype } : {});
      const b = random(count * n);
      for (const left of [true, false]) for (const upper of [true, false]) {
        const vector = m.ndarray(b.slice(), [count, n], dtype ? { dtype } : {});
        // The same vectors as matrices: columns [n, 1] on the left, rows [1, n] on the right.
        const matrix = m.ndarray(b.slice(), left ? [count, n, 1] : [count, 1, n], dtype ? { dtype } : {});
        const x = m.triangularSolve(A, vector, { left, upper });
        const y = m.triangularSolve(A, matrix, { left, upper });
        assert.deepEqual(x.shape, [count, n]);
        assert.deepEqual([...x.data], [...y.data], `${dtype ?? 'float64'} left=${left} upper=${upper}`);
      }
      const wrong = m.ndarray(random(2 * n), [2, n], dtype ? { dtype } : {});
      throwsArg(() => m.triangularSolve(A, wrong, { left: false }), 'SHAPE', 'b.shape');
    }
  });
  it('matmul broadcasts a single matrix over a stack and works in float32', () => {
    const a = m.ndarray(new Float32Array([1, 2, 3, 4, 5, 6, 7, 8]), [2, 2, 2]);
    const id = m.ndarray(new Float32Array([0, 1, 1, 0]), [2, 2]);
    const c = m.matmul(a, id);
    assert.ok(c.data instanceof Float32Array);
    assert.deepEqual([...c.data], [2, 1, 4, 3, 6, 5, 8, 7]);
  });
});

describe('contexts', () => {
  it("open('auto') works everywhere; a CPU context rejects device memory and dispose is final", () => {
    const ctx = m.open();
    assert.ok(ctx.backend === 'cpu' || ctx.backend === 'cuda');
    const fake: m.Storage = { kind: 'device', dtype: 'float64', length: 9, device: 0 };
    throwsArg(() => m.cpuContext.gemm<m.Storage>({ a: strided(fake, { rows: 3 }), b: sq(3), c: sq(3) }), 'INVALID_ARGUMENT', 'a');
    // open() gives the caller a context of its own (its dispose() must not reach the top-level functions).
    assert.notEqual(m.open({ backend: 'cpu' }), m.cpuContext);
  });
});
