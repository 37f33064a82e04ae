/**
 * What a new user hit. One test per defect, each failing on the code before the fix:
 * overlapping outputs (with themselves and with any other argument), arguments that are not
 * objects, open() and dispose, devices/weights, huge and empty counts, value formatting,
 * cross-realm typed arrays, misspelled option keys, numpy 2 broadcasting in solve and matmul.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runInNewContext } from 'node:vm';
import * as m from '../../src/index.js';
import { MyriadError, list, strided, variable, type ErrorCode } from '../../src/index.js';
import { formatNumber } from '../../src/bench/table.js';

function throwsArg(fn: () => unknown, code: ErrorCode, argument: string, message?: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof MyriadError, `expected MyriadError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    assert.equal(e.argument, argument, e.message);
    if (message) assert.match(e.message, message);
    return true;
  });
}

/** Runs `fn` expecting a LAYOUT error naming `argument` and mentioning `other`; checks no buffer changed. */
function rejectsOverlap(buffers: ArrayBufferView[], fn: () => unknown, argument: string, other?: string): void {
  const before = buffers.map((b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength).slice());
  throwsArg(fn, 'LAYOUT', argument, other === undefined ? undefined : new RegExp(`\\b${other.replace(/[[\]]/g, '\\$&')}\\b`));
  buffers.forEach((b, i) => assert.deepEqual(new Uint8Array(b.buffer, b.byteOffset, b.byteLength), before[i], `buffer ${i} was changed`));
}

const spd2 = (count: number): Float64Array => new Float64Array(count * 4).map((_, i) => (i % 4 === 0 || i % 4 === 3 ? 4 : 1));

describe('1. an output overlapping itself is rejected in both orders, before any copy', () => {
  it('getrf and posv with stride 0, row-major', () => {
    const a = new Float64Array([4, 1, 2, 1, 5, 1, 2, 1, 6]);
    rejectsOverlap([a], () => m.getrf({ a: strided(a, { rows: 3, count: 2, stride: 0, order: 'row' }) }), 'a.stride');
    rejectsOverlap([a], () => m.getrf({ a: strided(a, { rows: 3, count: 2, stride: 0, order: 'col' }) }), 'a.stride');
    const A = spd2(2);
    const b = new Float64Array([1, 2]);
    rejectsOverlap([A, b], () => m.posv({ a: strided(A, { rows: 2, count: 2 }), b: strided(b, { rows: 2, cols: 1, count: 2, stride: 0, order: 'row' }) }), 'b.stride');
    rejectsOverlap([A, b], () => m.gesv({ a: strided(A, { rows: 2, count: 2 }), b: strided(b, { rows: 2, cols: 1, count: 2, stride: 0, order: 'row' }) }), 'b.stride');
  });
  it('interleaved matrices that share no element are legal outputs', () => {
    // Two 2x2 matrices side by side in a 4-row buffer: ld 4, stride 2.
    const a = new Float64Array([4, 1, 9, 2, 1, 5, 2, 7]);
    const r = m.potrf({ a: strided(a, { rows: 2, ld: 4, count: 2, stride: 2 }) });
    assert.deepEqual([...r.info], [0, 0]);
  });
});

describe('2. an output overlapping another argument is a LAYOUT error naming both', () => {
  it('gemm with c the same memory as a', () => {
    const A = new Float64Array([1, 2, 3, 4]);
    const I = new Float64Array([1, 0, 0, 1]);
    rejectsOverlap([A, I], () => m.gemm({ a: strided(A, { rows: 2 }), b: strided(I, { rows: 2 }), c: strided(A, { rows: 2 }) }), 'c', 'a');
  });
  it('trsm with b the same memory as a, and through another view of the buffer', () => {
    const buf = new Float64Array([2, 1, 0, 3]);
    rejectsOverlap([buf], () => m.trsm({ a: strided(buf, { rows: 2 }), b: strided(buf, { rows: 2 }) }), 'b', 'a');
    const whole = new Float64Array(8).fill(1);
    const view = new Float64Array(whole.buffer, 24, 4); // elements 3..6 of `whole`
    rejectsOverlap([whole], () => m.trsm({ a: strided(whole, { rows: 2, count: 1 }), b: strided(view, { rows: 2 }) }), 'b', 'a');
  });
  it('posv with a and b overlapping in one buffer', () => {
    const buf = new Float64Array([4, 1, 1, 3, 1, 2]);
    rejectsOverlap([buf], () => m.posv({ a: strided(buf, { rows: 2, count: 1 }), b: strided(buf, { rows: 2, cols: 1, count: 1, offset: 3 }) }), 'b', 'a');
  });
  it('gesv with info inside ipiv, and ipiv inside a float buffer', () => {
    const a = spd2(3);
    const b = new Float64Array(6).fill(1);
    const ipiv = new Int32Array(8);
    rejectsOverlap([a, b, ipiv], () => m.gesv({ a: strided(a, { rows: 2, count: 3 }), b: strided(b, { rows: 2, cols: 1, count: 3 }), ipiv, info: ipiv.subarray(2) }), 'info', 'ipiv');
    const floats = new Float64Array(16);
    rejectsOverlap([floats], () => m.getrf({ a: strided(floats, { rows: 2, count: 2 }), ipiv: new Int32Array(floats.buffer, 8, 4) }), 'ipiv', 'a');
  });
  it('list and variable outputs overlapping an input; device memory by identity and range', () => {
    const buf = new Float64Array(8).fill(1);
    const other = new Float64Array(4).fill(1);
    rejectsOverlap([buf, other], () => m.gemm({
      a: list([other, { data: buf, offset: 4 }], { rows: 2 }), b: strided(other, { rows: 2, count: 2, stride: 0 }),
      c: list([{ data: buf, offset: 0 }, { data: buf, offset: 4 }], { rows: 2 }),
    }), 'c', 'a');
    rejectsOverlap([buf], () => m.potrs({ a: variable([{ data: buf, rows: 2 }]), b: variable([{ data: buf, rows: 2, cols: 1, offset: 2 }]) }), 'b', 'a');
    const dev: m.DeviceStorage = { kind: 'device', dtype: 'float64', length: 8, device: 0 };
    const devOther: m.DeviceStorage = { kind: 'device', dtype: 'float64', length: 8, device: 0 };
    throwsArg(() => m.gemm<m.Storage>({ a: strided(dev, { rows: 2, count: 1 }), b: strided(devOther, { rows: 2, count: 1 }), c: strided(dev, { rows: 2, count: 1, offset: 2 }) }), 'LAYOUT', 'c');
    // Disjoint ranges of one device array pass the overlap check (and then meet the CPU's device check).
    throwsArg(() => m.gemm<m.Storage>({ a: strided(dev, { rows: 2, count: 1 }), b: strided(devOther, { rows: 2, count: 1 }), c: strided(dev, { rows: 2, count: 1, offset: 4 }) }), 'INVALID_ARGUMENT', 'a');
  });
  it('ormqr with c over a or tau; a and tau may share memory (both only read)', () => {
    const buf = new Float64Array(12).fill(0.5);
    const c = new Float64Array(6).fill(1);
    rejectsOverlap([buf], () => m.ormqr({ a: strided(buf, { rows: 3, cols: 2, count: 1 }), tau: strided(buf, { rows: 2, cols: 1, count: 1, offset: 6 }), c: strided(buf, { rows: 3, cols: 2, count: 1, offset: 4 }) }), 'c', 'a');
    rejectsOverlap([buf, c], () => m.ormqr({ a: strided(c, { rows: 3, cols: 2 }), tau: strided(buf, { rows: 2, cols: 1, count: 1 }), c: strided(buf, { rows: 3, cols: 2, count: 1, offset: 1 }) }), 'c', 'tau');
    m.ormqr({ a: strided(buf, { rows: 3, cols: 2, count: 1 }), tau: strided(buf, { rows: 2, cols: 1, count: 1, offset: 3 }), c: strided(c, { rows: 3, cols: 2 }) });
    assert.ok(c.every(Number.isFinite) && c.some((x) => x !== 1));
  });
  it('inputs that only overlap each other stay legal', () => {
    const buf = new Float64Array([1, 2, 3, 4]);
    const c = new Float64Array(4);
    m.gemm({ a: strided(buf, { rows: 2 }), b: strided(buf, { rows: 2 }), c: strided(c, { rows: 2 }) });
    assert.deepEqual([...c], [7, 10, 15, 22]);
  });
});

describe('3. a missing or null argument object is a MyriadError', () => {
  it('every LAPACK-level function', () => {
    const fns = [m.gemm, m.trsm, m.trmm, m.syrk, m.potrf, m.potrs, m.posv, m.getrf, m.getrs, m.gesv, m.trtri, m.lauum, m.potri, m.poti,
      m.syev, m.gesvd, m.geqrf, m.orgqr, m.ormqr, m.gels] as ((x?: unknown) => unknown)[];
    for (const f of fns) {
      throwsArg(() => f(), 'INVALID_ARGUMENT', 'args');
      throwsArg(() => f(null), 'INVALID_ARGUMENT', 'args');
      throwsArg(() => f(7), 'INVALID_ARGUMENT', 'args');
    }
  });
});

describe('4 and 5. open() gives the caller its own context; devices and weights are checked', () => {
  it('disposing a CPU context from open() leaves the top-level functions and later contexts working', () => {
    const ctx = m.open({ backend: 'cpu' });
    ctx.dispose();
    assert.equal(ctx.disposed, true);
    throwsArg(() => ctx.potrf({ a: strided(spd2(1), { rows: 2 }) }), 'DISPOSED', undefined as unknown as string);
    assert.deepEqual([...m.potrf({ a: strided(spd2(1), { rows: 2 }) }).info], [0]);
    assert.deepEqual([...m.open({ backend: 'cpu' }).potrf({ a: strided(spd2(1), { rows: 2 }) }).info], [0]);
    m.cpuContext.dispose();
    assert.deepEqual([...m.potrf({ a: strided(spd2(1), { rows: 2 }) }).info], [0]);
  });
  it("open({ devices }) without a usable GPU throws BACKEND_UNAVAILABLE with the reason", (t) => {
    if (m.probeBackends().cuda.usable) return t.skip('a GPU is usable here');
    for (const devices of ['all', [0]] as const)
      throwsArg(() => m.open({ devices }), 'BACKEND_UNAVAILABLE', 'devices', /not usable: ./);
  });
  it('devices and weights are validated, and so are the option keys', () => {
    throwsArg(() => m.open({ devices: 'bogus' as 'all' }), 'INVALID_ARGUMENT', 'devices', /"bogus"/);
    throwsArg(() => m.open({ devices: [] }), 'INVALID_ARGUMENT', 'devices');
    throwsArg(() => m.open({ devices: [0, -1] }), 'INVALID_ARGUMENT', 'devices');
    throwsArg(() => m.open({ devices: [0, 1], weights: 'x' as unknown as number[] }), 'INVALID_ARGUMENT', 'weights', /"x"/);
    throwsArg(() => m.open({ devices: [0, 1], weights: [1] }), 'INVALID_ARGUMENT', 'weights');
    throwsArg(() => m.open({ weights: [1, 1] }), 'INVALID_ARGUMENT', 'weights');
    throwsArg(() => m.open({ Backend: 'cpu' } as unknown as m.OpenOptions), 'INVALID_ARGUMENT', 'Backend', /did you mean 'backend'/);
  });
});

describe('9. counts, value formatting, other realms, misspelled keys', () => {
  it('a count too large to allocate info for is a MyriadError, not a RangeError', () => {
    throwsArg(() => m.potrf({ a: strided(new Float64Array(0), { rows: 0, count: 2 ** 53 - 1 }) }), 'BOUNDS', 'info');
  });
  it('matrices of mixed dtypes: the error names the first member that differs', () => {
    const f64 = new Float64Array([4, 0, 0, 4]), f32 = new Float32Array([4, 0, 0, 4]);
    throwsArg(() => m.potrf({ a: m.list([f64, f64, f32, f64], { rows: 2 }) }), 'DTYPE', 'a.matrices[2].data', /is float32 where the batch's first matrix is float64/);
    throwsArg(() => m.potrf({ a: m.variable<Float32Array | Float64Array>([{ data: f32, rows: 2 }, { data: f32, rows: 1 }, { data: f64, rows: 2 }]) }), 'DTYPE', 'a.matrices[2].data');
  });
  it('a defaulted stride past 2^53 names the size the caller gave, not the stride', () => {
    throwsArg(() => strided(new Float64Array(16), { rows: 2 ** 31, count: 1 }), 'BOUNDS', 'strided.rows');
    throwsArg(() => strided(new Float64Array(16), { rows: 2 ** 31, cols: 2 ** 31, count: 1 }), 'BOUNDS', 'strided.cols');
    throwsArg(() => strided(new Float64Array(16), { rows: 2 ** 31, cols: 2 ** 23, count: 1, order: 'row' }), 'BOUNDS', 'strided.rows');
    // A stride given is checked as given.
    throwsArg(() => strided(new Float64Array(16), { rows: 2 ** 31, count: 1, stride: 2 ** 62 }), 'INVALID_ARGUMENT', 'strided.stride');
  });
  it('2**31 matrices of 0 x 0 are a fast no-op', () => {
    const t0 = performance.now();
    const a = strided(new Float64Array(0), { rows: 0, count: 2 ** 31 });
    m.gemm({ a, b: a, c: a });
    // info for 2^31 matrices is 8 GiB (zero pages until touched): where the machine cannot
    // reserve that, a BOUNDS error naming info is the right answer, and as quick.
    const infoOrBounds = (fn: () => { info: Int32Array }): void => {
      try {
        assert.equal(fn().info.length, 2 ** 31);
      } catch (e) {
        assert.ok(e instanceof MyriadError && e.code === 'BOUNDS' && e.argument === 'info', String(e));
      }
    };
    infoOrBounds(() => m.getrf({ a }));
    infoOrBounds(() => m.gesv({ a: strided(new Float64Array(0), { rows: 0, count: 2 ** 31, order: 'row' }), b: strided(new Float64Array(0), { rows: 0, cols: 3, count: 2 ** 31, order: 'row' }) }));
    assert.ok(performance.now() - t0 < 5000, `took ${performance.now() - t0} ms`);
    // A given info array is still set to 0 for every (empty) matrix.
    const given = new Int32Array(5).fill(7);
    m.potrf({ a: strided(new Float64Array(0), { rows: 0, count: 4 }), info: given });
    assert.deepEqual([...given], [0, 0, 0, 0, 7]);
  });
  it("messages tell the string '2' from the number 2 and the bigint 2n", () => {
    const msg = (rows: unknown): string => {
      try { strided(new Float64Array(4), { rows: rows as number }); } catch (e) { return (e as Error).message; }
      return '';
    };
    assert.match(msg('2'), /got "2"/);
    assert.match(msg(2n), /got 2n/);
    assert.notEqual(msg('2'), msg(2n));
    assert.match(msg(2.5), /got 2\.5$/);
  });
  it('typed arrays from another realm are accepted (and foreign non-float arrays named right)', () => {
    const foreign = runInNewContext('new Float64Array([4, 2, 2, 3])') as Float64Array;
    assert.equal(foreign instanceof Float64Array, false);
    const info = runInNewContext('new Int32Array(1)') as Int32Array;
    m.potrf({ a: strided(foreign, { rows: 2 }), info });
    assert.deepEqual([...foreign], [2, 1, 2, Math.sqrt(2)]);
    const ints = runInNewContext('new Int16Array(4)') as unknown as Float64Array;
    throwsArg(() => strided(ints, { rows: 2 }), 'DTYPE', 'strided.data', /got a Int16Array|got an Int16Array/);
  });
  it('info and ipiv from another realm are written at each matrix\'s place: threaded shares, complex per-matrix paths, prepared calls', () => {
    const I32 = runInNewContext('Int32Array') as Int32ArrayConstructor;
    for (const backend of ['cpu', 'reference'] as const) {
      const ctx = m.open({ backend });
      // Many small matrices in shared memory (the fast backend's threaded shares): matrix 9,999 not positive definite.
      const n = 4, count = 10000;
      const a = new Float64Array(new SharedArrayBuffer(8 * n * n * count));
      for (let q = 0; q < count; q++) for (let j = 0; j < n; j++) a[q * n * n + j * (n + 1)] = 1;
      a[(count - 1) * n * n] = -1;
      const info = new I32(count).fill(-7);
      ctx.potrf({ a: strided(a, { rows: n, count }), info });
      assert.deepEqual([info[0], info[count / 2], info[count - 1]], [0, 0, 1], `${backend} potrf`);
      // getrf's pivots: every matrix the row swap P, so every matrix's pivots are [1, 1, 2, 3].
      const p = new Float64Array(new SharedArrayBuffer(8 * n * n * count));
      for (let q = 0; q < count; q++) p.set([0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], q * n * n);
      const ipiv = new I32(n * count).fill(-7);
      ctx.getrf({ a: strided(p, { rows: n, count }), ipiv });
      assert.deepEqual([...ipiv.subarray(n * (count - 1))], [1, 1, 2, 3], `${backend} getrf's last pivots`);
      assert.deepEqual([...ipiv.subarray(n * (count / 2), n * (count / 2 + 1))], [1, 1, 2, 3], `${backend} getrf's middle pivots`);
      // Complex getri of four 2 x 2 LU factors, matrix 0's pivots a swap, the last singular: as with this realm's arrays.
      const z = new Float64Array(2 * 4 * 4);
      for (let q = 0; q < 3; q++) z.set([2, 0, 1, q, 1, 0, 3, 0], q * 8);
      const same = z.slice(), zi = new I32(4), zp = I32.from([1, 1, 0, 1, 0, 1, 0, 1]);
      ctx.getri({ a: strided(z, { rows: 2, count: 4, dtype: 'complex128' }), ipiv: zp, info: zi });
      const want = ctx.getri({ a: strided(same, { rows: 2, count: 4, dtype: 'complex128' }), ipiv: Int32Array.from(zp) });
      assert.deepEqual([...zi], [0, 0, 0, 1], `${backend} complex getri`);
      assert.deepEqual([...zi], [...want.info]);
      assert.deepEqual([...z], [...same], `${backend} complex getri's inverses`);
      // A prepared call takes another realm's arrays as the plain call does.
      const spd = () => new (runInNewContext('Float64Array') as Float64ArrayConstructor)([4, 2, 2, 3]);
      const f = ctx.prepare.potrf({ a: strided(new Float64Array([4, 2, 2, 3]), { rows: 2 }) });
      const foreign = spd();
      f({ a: foreign, info: new I32(1) });
      assert.deepEqual([...foreign], [2, 1, 2, Math.sqrt(2)], `${backend} prepared`);
      throwsArg(() => f({ a: Object.create(null) as Float64Array }), 'INVALID_ARGUMENT', 'a');
    }
  });
  it('complex gesvd of a wide matrix with repeated columns (many exactly zero singular values): U and VT orthonormal', () => {
    // 30 x 32 complex128 whose entries cycle every 220 floats: rank 11, rotations down to subnormal noise.
    let seed = 7;
    const cycle = Array.from({ length: 220 }, () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 - 0.5; });
    const rows = 30, n = 32, k = 30;
    for (const backend of ['cpu', 'reference'] as const) {
      const a = Float64Array.from({ length: 2 * rows * n }, (_, i) => cycle[i % 220]!);
      const u = new Float64Array(2 * rows * k), vt = new Float64Array(2 * k * n), sv = new Float64Array(k);
      const z = { dtype: 'complex128' as const };
      const { info } = m.open({ backend }).gesvd({ a: strided(a, { rows, cols: n, ...z }), s: strided(sv, { rows: k, cols: 1 }),
        u: strided(u, { rows, cols: k, ...z }), vt: strided(vt, { rows: k, cols: n, ...z }), jobu: 'thin', jobvt: 'thin' });
      assert.equal(info[0], 0);
      // ||Q^H Q - I|| over Q's columns (u: m x k) or rows (vt: k x n).
      const off = (q: Float64Array, height: number, cols: number, byRow: boolean): number => {
        const at = (i: number, j: number): [number, number] => [q[2 * (i + j * height)]!, q[2 * (i + j * height) + 1]!];
        const count = byRow ? height : cols, len = byRow ? cols : height;
        let worst = 0;
        for (let p = 0; p < count; p++) for (let r = 0; r < count; r++) {
          let re = 0, im = 0;
          for (let t = 0; t < len; t++) {
            const [xr, xi] = byRow ? at(p, t) : at(t, p), [yr, yi] = byRow ? at(r, t) : at(t, r);
            re += xr * yr + xi * yi; im += xr * yi - xi * yr;
          }
          worst = Math.max(worst, Math.hypot(re - (p === r ? 1 : 0), im));
        }
        return worst;
      };
      assert.ok(off(u, rows, k, false) < 30 * k * 2 ** -52, `${backend} U: ${off(u, rows, k, false)}`);
      assert.ok(off(vt, k, n, true) < 30 * k * 2 ** -52, `${backend} VT: ${off(vt, k, n, true)}`);
    }
  });
  it('a call whose written matrices are all empty sets info to 0, also in an array an earlier call made', () => {
    for (const backend of ['cpu', 'reference'] as const) {
      const ctx = m.open({ backend });
      const { info } = ctx.potrf({ a: strided(new Float64Array([4, -1]), { rows: 1, count: 2 }) });
      assert.deepEqual([...info], [0, 1]);
      ctx.potrf({ a: strided(new Float64Array(0), { rows: 0, count: 2 }), info });
      assert.deepEqual([...info], [0, 0], backend);
      const f = ctx.prepare.potrf({ a: strided(new Float64Array(0), { rows: 0, count: 3 }) });
      const r = f();
      (r.info as Int32Array).fill(7);
      f();
      assert.deepEqual([...(r.info as Int32Array)], [0, 0, 0], `${backend} prepared`);
    }
  });
  it('unknown keys are rejected with the nearest valid name', () => {
    throwsArg(() => m.potrf({ a: strided(spd2(1), { rows: 2 }), Uplo: 'upper' } as unknown as m.FactorArgs), 'INVALID_ARGUMENT', 'Uplo', /did you mean 'uplo'\?/);
    throwsArg(() => m.gemm({ a: strided(spd2(1), { rows: 2 }), b: strided(spd2(1), { rows: 2 }), c: strided(new Float64Array(4), { rows: 2 }), transa: 'T' } as unknown as m.GemmArgs), 'INVALID_ARGUMENT', 'transa', /did you mean 'transA'/);
    throwsArg(() => strided(spd2(1), { rows: 2, strid: 4 } as unknown as m.StridedOptions), 'INVALID_ARGUMENT', 'strided.strid', /did you mean 'stride'/);
    throwsArg(() => variable([{ data: spd2(1), rows: 2, offest: 0 } as unknown as { data: Float64Array; rows: number }]), 'INVALID_ARGUMENT', 'variable.matrices[0].offest', /did you mean 'offset'/);
    throwsArg(() => m.cholesky(m.ndarray(spd2(1), [2, 2]), { uper: true } as unknown as m.CholeskyOptions), 'INVALID_ARGUMENT', 'options.uper', /did you mean 'upper'/);
  });
  it('a function without options refuses one (numpy keywords are not ignored)', () => {
    const a = m.ndarray(spd2(1), [2, 2]);
    const extra = { full_matrices: true } as unknown as never;
    throwsArg(() => m.svd(a, extra), 'INVALID_ARGUMENT', 'options', /svd takes no options.*thin/);
    throwsArg(() => m.open({ backend: 'reference' }).svdvalsEx(a, extra), 'INVALID_ARGUMENT', 'options');
    throwsArg(() => m.solve(a, a, { assume_a: 'pos' } as unknown as never), 'INVALID_ARGUMENT', 'options', /solve takes no options/);
    throwsArg(() => m.lstsq(a, a, 1e-10 as unknown as never), 'INVALID_ARGUMENT', 'options');
    throwsArg(() => m.matmul(a, a, a as unknown as never), 'INVALID_ARGUMENT', 'options');
    throwsArg(() => m.luEx(a, {} as unknown as never), 'INVALID_ARGUMENT', 'options');
    assert.deepEqual(m.svd(a).s.shape, [2]);
    assert.deepEqual(m.svd(a, undefined as never).s.shape, [2], 'an undefined options argument is none');
  });
  it('the elementwise functions refuse an options argument too; ndarray names a shape that is not an array', () => {
    const a = m.ndarray(new Float64Array([1, 2, 3, 4]), [2, 2]);
    const extra = {} as never;
    throwsArg(() => m.add(a, a, extra), 'INVALID_ARGUMENT', 'options', /add takes no options/);
    throwsArg(() => m.subtract(a, 1, extra), 'INVALID_ARGUMENT', 'options');
    throwsArg(() => m.scale(a, 2, extra), 'INVALID_ARGUMENT', 'options');
    throwsArg(() => m.open({ backend: 'reference' }).transpose(a, extra), 'INVALID_ARGUMENT', 'options');
    throwsArg(() => m.ndarray(new Float64Array(2), 2 as unknown as number[]), 'SHAPE', 'shape');
    throwsArg(() => m.ndarray(new Float64Array(2), undefined as unknown as number[]), 'SHAPE', 'shape');
    throwsArg(() => m.ndarray(new Float64Array(2), [2n] as unknown as number[]), 'SHAPE', 'array.shape', /\[2n \(a bigint\)\]/);
  });
  it('assertInfo and describeInfo check their arguments; a wide matrix\'s p is min(m, n)', () => {
    const wide = m.ndarray(new Float64Array([1, NaN, 3, 4, 5, 6]), [1, 2, 3]);
    assert.throws(() => m.assertInfo(m.svdEx(wide).info, 'svd', wide), /#0 NaN\/Inf in the input \(info 4\)/);
    const w = m.ndarray(new Float64Array([1, 2, 3, 4, 5, 7]), [1, 2, 3]);
    assert.throws(() => m.assertInfo(m.lstsqEx(w, m.ndarray(new Float64Array([NaN, 1]), [2])).info, 'lstsq', w), /#0 NaN\/Inf in the input/);
    throwsArg(() => m.assertInfo(new Int32Array([1]), 'potrf', 5 as never), 'INVALID_ARGUMENT', 'a');
    throwsArg(() => m.describeInfo('gemm' as never, 1, 4), 'ENUM', 'op');
    throwsArg(() => m.describeInfo('getrf', NaN, 4), 'INVALID_ARGUMENT', 'code');
    throwsArg(() => m.describeInfo('getrf', 1, -1), 'INVALID_ARGUMENT', 'p');
    assert.equal(m.describeInfo('potrf', 0, 4), 'success');
    assert.equal(m.describeInfo('potrf', 2, 4), 'not positive definite (the leading minor of order 2)');
  });
  it('a flag that is not true or false is an error, not read as one of them', () => {
    const a = m.ndarray(spd2(1), [2, 2]);
    const za = m.ndarray(new Float64Array([2, 0, 1, 0, 1, 0, 2, 0]), [2, 2], { dtype: 'complex128' });
    throwsArg(() => m.cholesky(a, { upper: 'yes' } as unknown as m.CholeskyOptions), 'INVALID_ARGUMENT', 'options.upper', /expected true or false/);
    throwsArg(() => m.cholesky(za, { upper: 1 } as unknown as m.CholeskyOptions), 'INVALID_ARGUMENT', 'options.upper');
    throwsArg(() => m.eigh(a, { upper: 'true' } as unknown as m.EighOptions), 'INVALID_ARGUMENT', 'options.upper');
    throwsArg(() => m.triangularSolve(a, a, { unitDiagonal: 1 } as unknown as m.TriangularSolveOptions), 'INVALID_ARGUMENT', 'options.unitDiagonal');
    throwsArg(() => m.triangularSolve(za, za, { left: 'no' } as unknown as m.TriangularSolveOptions), 'INVALID_ARGUMENT', 'options.left');
    // Absent and boolean flags stand as before.
    assert.deepEqual([...m.cholesky(a, { upper: false }).data], [...m.cholesky(a).data]);
    assert.deepEqual(m.eigh(a, { upper: undefined } as m.EighOptions).values.shape, [2]);
  });
});

describe('7b. cholesky and inv of an SPD matrix look for NaN/Inf only in the triangle they read (numpy\'s cholesky)', () => {
  // [[4, x], [2, 3]] row-major: the lower triangle (4; 2, 3) is read, x never.
  const real = (x: number, y = 2): m.NDArray<Float64Array> => m.ndarray(new Float64Array([4, x, y, 3]), [2, 2]);
  const cplx = (x: number, y = 2): m.NDArray<Float64Array> => m.ndarray(new Float64Array([4, 0, x, x, y, -1, 3, 0]), [2, 2], { dtype: 'complex128' });
  for (const [kind, make] of [['real', real], ['complex', cplx]] as const) {
    it(`${kind}: NaN or Inf in the other triangle changes nothing; in the one read, info p + 2`, () => {
      for (const bad of [NaN, Infinity]) {
        assert.deepEqual([...m.cholesky(make(bad)).data], [...m.cholesky(make(2)).data]);
        assert.deepEqual([...m.inv(make(bad), { assume: 'spd' }).data], [...m.inv(make(2), { assume: 'spd' }).data]);
        assert.deepEqual([...m.choleskyEx(make(2, bad)).info], [4]);
        assert.deepEqual([...m.invEx(make(2, bad), { assume: 'spd' }).info], [4]);
        // upper: the other way round.
        assert.deepEqual([...m.choleskyEx(make(bad), { upper: true }).info], [4]);
        assert.deepEqual([...m.choleskyEx(make(2, bad), { upper: true }).info], [0]);
        // inv without assume reads all of A.
        assert.deepEqual([...m.invEx(make(bad)).info], [4]);
      }
    });
  }
});

describe('8. the array level follows numpy 2 broadcasting', () => {
  const a = m.ndarray(new Float64Array([2, 0, 0, 4, 1, 0, 0, 2]), [2, 2, 2]); // diag(2, 4), diag(1, 2)
  it('solve: a 2-D b is one matrix of right-hand sides broadcast over the batch', () => {
    const x = m.solve(a, m.ndarray(new Float64Array([2, 4, 8, 16]), [2, 2]));
    assert.deepEqual(x.shape, [2, 2, 2]);
    assert.deepEqual([...x.data], [1, 2, 2, 4, 2, 4, 4, 8]);
  });
  it('solve: a 1-D b is one vector; [..., n, k] batches broadcast; a stack of vectors needs [..., n, 1]', () => {
    const v = m.solve(a, m.ndarray(new Float64Array([4, 8]), [2]));
    assert.deepEqual(v.shape, [2, 2]);
    assert.deepEqual([...v.data], [2, 2, 4, 4]);
    const stack = m.solve(a, m.ndarray(new Float64Array([2, 4, 1, 2]), [2, 2, 1]));
    assert.deepEqual(stack.shape, [2, 2, 1]);
    assert.deepEqual([...stack.data], [1, 1, 1, 1]);
    const b3 = m.ndarray(new Float64Array(3 * 1 * 2 * 1).fill(4), [3, 1, 2, 1]);
    assert.deepEqual(m.solve(a, b3).shape, [3, 2, 2, 1]);
    // numpy 2: b of shape [3, 2] against a [2, 2, 2] is a 3 x 2 matrix: rows differ.
    throwsArg(() => m.solve(a, m.ndarray(new Float64Array(6), [3, 2])), 'SHAPE', 'b.shape');
  });
  it('matmul broadcasts batch dimensions and takes 1-D operands as numpy does', () => {
    const x = m.ndarray(new Float64Array(2 * 1 * 2 * 3).fill(1), [2, 1, 2, 3]);
    const y = m.ndarray(new Float64Array(5 * 3 * 4).map((_, i) => i), [5, 3, 4]);
    const c = m.matmul(x, y);
    assert.deepEqual(c.shape, [2, 5, 2, 4]);
    // c[i, j, r, :] = column sums of y[j].
    for (let i = 0; i < 2; i++) for (let j = 0; j < 5; j++) for (let r = 0; r < 2; r++) for (let k = 0; k < 4; k++) {
      const want = [0, 1, 2].reduce((s, q) => s + y.data[j * 12 + q * 4 + k]!, 0);
      assert.equal(c.data[((i * 5 + j) * 2 + r) * 4 + k], want);
    }
    assert.deepEqual(m.matmul(m.ndarray(new Float64Array([1, 1, 1]), [3]), y).shape, [5, 4]);
    assert.deepEqual(m.matmul(y, m.ndarray(new Float64Array([1, 1, 1, 1]), [4])).shape, [5, 3]);
  });
});

describe('bench tables', () => {
  it('small values keep two significant digits instead of printing 0.0', () => {
    assert.equal(formatNumber(0.00027, 1), '0.00027');
    assert.equal(formatNumber(3.1e-7, 1), '3.1e-7');
    assert.equal(formatNumber(0, 1), '0.0');
    assert.equal(formatNumber(12.345, 1), '12.3');
  });
});

describe('9. paths around the full validation: prepared pivots, hand-built batches, helpers, scalars', () => {
  const ctx = m.open({ backend: 'cpu' });
  const eye = (): Float64Array => new Float64Array([1, 0, 0, 1]);
  const one = (data: Float64Array, cols = 2) => strided(data, { rows: 2, cols, count: 1 });
  it('a prepared getrs or getri checks the pivots it reads on every run, given anew or changed since', () => {
    const B = new Float64Array([1, 2]), piv = new Int32Array([0, 1]);
    const f = ctx.prepare.getrs({ a: one(eye()), ipiv: piv, b: one(B, 1) });
    throwsArg(() => f({ ipiv: new Int32Array([5, 1]) }), 'INVALID_ARGUMENT', 'ipiv', /pivot 0 is 5/);
    piv[0] = -1;
    throwsArg(() => f(), 'INVALID_ARGUMENT', 'ipiv', /pivot 0 is -1/);
    assert.deepEqual([...B], [1, 2]);
    piv[0] = 1;
    f();
    assert.deepEqual([...B], [2, 1]);
    const A = eye(), p2 = new Int32Array([0, 1]);
    const g = ctx.prepare.getri({ a: one(A), ipiv: p2 });
    p2[1] = 2;
    throwsArg(() => g(), 'INVALID_ARGUMENT', 'ipiv', /pivot 1 is 2/);
    assert.deepEqual([...A], [1, 0, 0, 1]);
    throwsArg(() => g([] as never), 'INVALID_ARGUMENT', 'storages');
  });
  it('a prepared call runs what was validated: its batch descriptors changed afterwards change nothing', () => {
    const buf = new Float64Array([4, 1, 1, 3, 9, 7, 7, 7]);
    const vb = m.variable([{ data: buf, rows: 2 }, { data: buf, rows: 1, offset: 4 }]);
    const f = ctx.prepare.potrf({ a: vb });
    // Member 1 moved onto member 0's elements (an overlap a plain call refuses).
    Object.assign(vb.matrices[1]!, { offset: 0 });
    throwsArg(() => ctx.potrf({ a: vb }), 'LAYOUT', 'a.matrices[1]');
    const { info } = f();
    assert.deepEqual([...(info as Int32Array)], [0, 0]);
    assert.deepEqual([...buf].map((x) => Math.round(x * 1e4) / 1e4), [2, 0.5, 1, 1.6583, 3, 7, 7, 7]);
    const A = new Float64Array([4, 0, 0, 4, 9, 0, 0, 9]), sb = strided(A, { rows: 2, count: 1 });
    const g = ctx.prepare.potrf({ a: sb });
    (sb as { offset: number }).offset = 4;
    g();
    assert.deepEqual([...A], [2, 0, 0, 2, 9, 0, 0, 9]);
  });
  it('a prepared call on complex batches checks a new storage in floats: one too short by a pair is BOUNDS, before anything runs', () => {
    for (const backend of ['cpu', 'reference'] as const) {
      const c = m.open({ backend });
      const n = 3, count = 2;
      // count Hermitian positive definite matrices 4 I, interleaved (re, im): 2 n^2 count floats.
      const eyes = (matrices: number): Float64Array => {
        const x = new Float64Array(2 * n * n * matrices);
        for (let q = 0; q < matrices; q++) for (let j = 0; j < n; j++) x[2 * (q * n * n + j * (n + 1))] = 4;
        return x;
      };
      const batch = (x: Float64Array) => strided(x, { rows: n, count, dtype: 'complex128' });
      const f = c.prepare.potrf({ a: batch(eyes(count)) });
      for (const short of [eyes(1), eyes(count).subarray(0, 2 * n * n * count - 2)]) {
        const before = short.slice();
        throwsArg(() => f({ a: short }), 'BOUNDS', 'a');
        assert.deepEqual([...short], [...before], `${backend}: nothing written`);
      }
      assert.deepEqual([...(f({ a: eyes(count) }).info as Int32Array)], [0, 0], backend);
      const g = c.prepare.gemm({ a: batch(eyes(count)), b: batch(eyes(count)), c: batch(new Float64Array(2 * n * n * count)) });
      throwsArg(() => g({ c: new Float64Array(n * n * count) }), 'BOUNDS', 'c');
    }
  });
  it('a complex batch\'s count is inferred only from a whole number of (re, im) pairs', () => {
    throwsArg(() => strided(new Float64Array(37), { rows: 3, dtype: 'complex128' }), 'LAYOUT', 'strided.count', /37 floats/);
    assert.equal(strided(new Float64Array(36), { rows: 3, dtype: 'complex128' }).count, 2);
    assert.equal(strided(new Float64Array(37), { rows: 3, count: 2, dtype: 'complex128' }).count, 2);
  });
  it('enum values that are not strings are named by value (bigint, NaN, a symbol), not a TypeError', () => {
    const a = (): ReturnType<typeof one> => one(new Float64Array([4, 0, 0, 4]));
    throwsArg(() => ctx.potrf({ a: a(), uplo: 1n as never }), 'ENUM', 'uplo', /got 1n \(a bigint\)$/);
    throwsArg(() => ctx.potrf({ a: a(), uplo: NaN as never }), 'ENUM', 'uplo', /got NaN$/);
    throwsArg(() => ctx.potrf({ a: a(), uplo: Symbol('x') as never }), 'ENUM', 'uplo', /got Symbol\(x\)$/);
    throwsArg(() => m.open({ backend: 1n as never }), 'ENUM', 'backend');
  });
  it('hand-built and constructed list and variable batches: members are objects, a list member\'s own shape is the list\'s', () => {
    const x = new Float64Array([4, 99, 0, 99, 0, 4]);
    throwsArg(() => list([{ data: x, offset: 0, ld: 3 } as never], { rows: 2 }), 'SHAPE', 'list.matrices[0].ld', /is 3 but the list's ld is 2/);
    throwsArg(() => list([{ data: x, rows: 3 } as never], { rows: 2, ld: 3 }), 'SHAPE', 'list.matrices[0].rows');
    throwsArg(() => list([{ data: x, stride: 3 } as never], { rows: 2 }), 'INVALID_ARGUMENT', 'list.matrices[0].stride');
    assert.deepEqual([...x], [4, 99, 0, 99, 0, 4]);
    // A view of the list's own shape is a member as it stands.
    const y = new Float64Array([4, 0, 99, 0, 4, 99]);   // [[4, 0], [0, 4]] at ld 3
    assert.deepEqual([...ctx.potrf({ a: list([{ data: y, rows: 2, cols: 2, ld: 3, offset: 0 }], { rows: 2, ld: 3 }) }).info], [0]);
    assert.deepEqual([...y], [2, 0, 99, 0, 2, 99]);
    for (const kind of ['list', 'variable'] as const) {
      throwsArg(() => ctx.potrf({ a: { kind, order: 'col', rows: 2, cols: 2, ld: 2, matrices: [null] } as never }), 'INVALID_ARGUMENT', 'a.matrices[0]');
      throwsArg(() => ctx.potrf({ a: { kind, order: 'col', rows: 2, cols: 2, ld: 2 } as never }), 'INVALID_ARGUMENT', 'a.matrices');
    }
  });
  it('asArray validates the batch and refuses complex ones', () => {
    throwsArg(() => m.asArray({ kind: 'strided', data: new Float64Array(4), rows: 3, cols: 3, count: 2, ld: 3, stride: 9, offset: 0, order: 'row' } as never), 'BOUNDS', 'batch.data');
    throwsArg(() => m.asArray(strided(new Float64Array(8), { rows: 2, count: 1, dtype: 'complex128' }) as never), 'UNSUPPORTED', 'batch');
    assert.deepEqual([...m.asArray(strided(new Float64Array([1, 2, 3, 4]), { rows: 2, count: 1 })).data], [1, 3, 2, 4]);
  });
  it('assertInfo reads every code: a of one matrix is broadcast, another count is an error; describeInfo refuses a code past p + 2', () => {
    assert.throws(() => m.assertInfo(new Int32Array([0, 1]), 'potrf', strided(new Float64Array(9), { rows: 3, count: 1 })), /#1 not positive definite \(the leading minor of order 1\)/);
    throwsArg(() => m.assertInfo(new Int32Array([0, 1, 0]), 'potrf', strided(new Float64Array(18), { rows: 3, count: 2 })), 'SHAPE', 'a', /holds 2 matrices but info has 3 codes/);
    throwsArg(() => m.describeInfo('potrf', 9, 3), 'INVALID_ARGUMENT', 'code', /not a code potrf reports for a matrix of order 3 \(1 to 3\)/);
    // k in 1..p at the LAPACK level; the array level adds p + 2 (not p + 1); the Jacobi routines p + 1 and p + 2.
    throwsArg(() => m.describeInfo('potrf', 5, 3), 'INVALID_ARGUMENT', 'code');
    throwsArg(() => m.describeInfo('gels', 3, 2), 'INVALID_ARGUMENT', 'code');
    throwsArg(() => m.describeInfo('inv', 3, 2), 'INVALID_ARGUMENT', 'code', /1 to 2, or 4/);
    throwsArg(() => m.describeInfo('lstsq', 3, 2), 'INVALID_ARGUMENT', 'code');
    assert.equal(m.describeInfo('lstsq', 4, 2), 'NaN/Inf in the input');
    assert.equal(m.describeInfo('syev', 4, 3), 'no convergence (the Jacobi sweeps did not converge)');
    assert.equal(m.describeInfo('syev', 5, 3), 'NaN/Inf in the input');
  });
  it('check: true and assertInfo look only at the triangle a triangle op owns (uplo; trtri\'s unit diagonal not either)', () => {
    for (const backend of ['reference', 'cpu'] as const) {
      const c = m.open({ backend });
      // Lower 2 x 2 factors [4, 1; NaN, 3] (column-major [4, 1, NaN, 3]): the NaN in the unread upper triangle.
      const lower = (): Float64Array => new Float64Array([4, 1, NaN, 3]);
      for (const op of ['trtri', 'lauum', 'potri', 'poti', 'potrf'] as const) {
        const a = strided(lower(), { rows: 2, count: 1 });
        const run = c[op] as (args: object) => { info: Int32Array };
        const r = run.call(c, { uplo: 'lower', a, ...(op === 'trtri' ? { diag: 'nonunit' } : {}), check: true });
        assert.deepEqual([...r.info], [0], `${backend} ${op}`);
        assert.ok(Number.isNaN(a.data[2]), `${backend} ${op}: the upper triangle is left as it was`);
        m.assertInfo(r.info, op, a, { uplo: 'lower' });
        m.assertInfo(r.info, op, a);   // no triangle given: a triangle op's a is not looked at
        // The owned triangle holding NaN still fails (the same NaN mirrored into the lower triangle).
        const bad = strided(new Float64Array([4, NaN, 0, 3]), { rows: 2, count: 1 });
        assert.throws(() => m.assertInfo(new Int32Array([0]), op, bad, { uplo: 'lower' }), /#0 NaN\/Inf in the output/, `${backend} ${op}`);
        assert.doesNotThrow(() => m.assertInfo(new Int32Array([0]), op, bad, { uplo: 'upper' }));
      }
      // trtri with a unit diagonal never reads it; row-major upper: the owned part of row i from column i on.
      const unit = strided(new Float64Array([NaN, 2, 0, NaN]), { rows: 2, count: 1 });
      assert.deepEqual([...c.trtri({ uplo: 'lower', diag: 'unit', a: unit, check: true }).info], [0], backend);
      const row = strided(new Float64Array([2, 1, NaN, 4]), { rows: 2, count: 1, order: 'row' });
      assert.deepEqual([...c.trtri({ uplo: 'upper', diag: 'nonunit', a: row, check: true }).info], [0], `${backend} row-major`);
    }
    throwsArg(() => m.assertInfo(new Int32Array([0]), 'potrf', strided(new Float64Array(4), { rows: 2, count: 1 }), { uplo: 'middle' } as never), 'ENUM', 'options.uplo');
    throwsArg(() => m.assertInfo(new Int32Array([0]), 'trtri', strided(new Float64Array(4), { rows: 2, count: 1 }), { uplo: 'lower', diag: 'u' } as never), 'ENUM', 'options.diag');
    throwsArg(() => m.assertInfo(new Int32Array([0]), 'inv', undefined, { assume: 'hpd' } as never), 'ENUM', 'options.assume');
    throwsArg(() => m.assertInfo(new Int32Array([0]), 'inv', undefined, { asume: 'spd' } as never), 'INVALID_ARGUMENT', 'options.asume');
  });
  it('lstsq of an all-zero A is rank-deficient (info 1), where gels returns X = 0 with info 0 as dgels; time takes a function', () => {
    for (const backend of ['reference', 'cpu'] as const) {
      const c = m.open({ backend });
      // A stack of two 3 x 2 matrices, the second all zeros.
      const a = m.ndarray(new Float64Array([1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0]), [2, 3, 2]);
      const b = m.ndarray(new Float64Array([1, 2, 3, 1, 2, 3]), [2, 3, 1]);
      const r = c.lstsqEx(a, b);
      assert.deepEqual([...r.info], [0, 1], backend);
      assert.ok(r.x.data.slice(2).every(Number.isNaN) && Number.isNaN(r.residuals.data[1]), `${backend}: the failed matrix's outputs are NaN`);
      assert.throws(() => c.lstsq(a, b), /#1 rank-deficient \(R\(1, 1\) is exactly zero\) \(info 1\)/);
      const z = m.ndarray(new Float64Array(12), [3, 2], { dtype: 'complex128' });
      assert.deepEqual([...c.lstsqEx(z, m.ndarray(new Float64Array([1, 0, 2, 0, 3, 0]), [3], { dtype: 'complex128' })).info], [1], `${backend} complex`);
      // gels itself keeps dgels's answer for a zero A.
      const g = c.gels({ a: strided(new Float64Array(6), { rows: 3, cols: 2, count: 1 }), b: strided(new Float64Array([1, 2, 3]), { rows: 3, cols: 1, count: 1 }) });
      assert.deepEqual([...g.info], [0]);
      throwsArg(() => c.time(5 as never), 'INVALID_ARGUMENT', 'fn');
    }
  });
  it('a CPU context refuses device memory when a call is prepared, as when it is made', () => {
    const c = m.open({ backend: 'cpu' });
    // What device memory looks like to the API (a CUDA context's arrays), and a batch of sizes on a GPU.
    const device = (dtype: string, length: number) => ({ kind: 'device', dtype, length, device: 0 }) as never;
    throwsArg(() => c.potrf({ a: strided(device('float64', 16), { rows: 4, count: 1 }) }), 'INVALID_ARGUMENT', 'a');
    throwsArg(() => c.prepare.potrf({ a: strided(device('float64', 16), { rows: 4, count: 1 }) }), 'INVALID_ARGUMENT', 'a');
    const sizes = m.variableDevice({ count: 2, rows: device('int32', 2), ld: device('int32', 2), pointers: device('int64', 2), maxRows: 4, dtype: 'float64' } as never);
    throwsArg(() => c.prepare.potrf({ a: sizes, info: device('int32', 2) } as never), 'UNSUPPORTED', 'a');
  });
  it('a CPU context\'s capture refuses what a GPU\'s refuses (a capture inside, waits), and records host calls as before', () => {
    const c = m.open({ backend: 'cpu' });
    throwsArg(() => c.capture(() => { c.capture(() => {}); }), 'UNSUPPORTED', 'capture');
    throwsArg(() => c.capture(() => { c.time(() => {}); }), 'UNSUPPORTED', 'time');
    throwsArg(() => c.capture(() => { void c.synchronize(); }), 'UNSUPPORTED', 'synchronize');
    const x = new Float64Array([4, 1, 1, 3]);
    const step = c.capture(() => { c.potrf({ a: strided(x, { rows: 2, count: 1 }) }); });
    assert.deepEqual([...x], [2, 0.5, 1, Math.sqrt(2.75)]);
    x.set([9, 0, 0, 16]);
    step.replay();
    assert.deepEqual([...x], [3, 0, 0, 4]);
    assert.equal(c.time(() => {}) >= 0, true, 'time works again after a refused capture');
  });
  it('assertInfo looks at a only where the call wrote its output there, and names codes as the calls do', () => {
    for (const backend of ['reference', 'cpu'] as const) {
      const c = m.open({ backend });
      // Two SPD 2 x 2 matrices, the second with NaN in its upper triangle, which the lower calls never read.
      const a = m.ndarray(new Float64Array([4, 1, 1, 3, 4, NaN, 1, 3]), [2, 2, 2]);
      m.assertInfo(c.choleskyEx(a), 'cholesky', a);
      m.assertInfo(c.eighEx(a), 'eigh', a);
      m.assertInfo(c.eigvalshEx(a), 'eigvalsh', a);
      m.assertInfo(c.invEx(a, { assume: 'spd' }), 'inv', a, { assume: 'spd' });
      // syev (values) and potrs leave a as an input: a NaN there that the call does not read is not a failure.
      const col = (): Float64Array => new Float64Array([4, 1, 1, 3, 4, 1, NaN, 3]);
      const sa = strided(col(), { rows: 2, count: 2 });
      m.assertInfo(c.syev({ jobz: 'values', uplo: 'lower', a: sa, w: strided(new Float64Array(4), { rows: 2, cols: 1, count: 2 }) }), 'syev', sa);
      const la = strided(new Float64Array([2, 0.5, 0, 1.5, 2, 0.5, NaN, 1.5]), { rows: 2, count: 2 });
      m.assertInfo(c.potrs({ uplo: 'lower', a: la, b: strided(new Float64Array(4).fill(1), { rows: 2, cols: 1, count: 2 }) }), 'potrs', la);
      // The words: NaN in the input (p + 2) where a says p; not named without a; lu's p is min(m, n); inv on SPD matrices, the Cholesky's.
      const bad = m.ndarray(new Float64Array([4, 1, 1, NaN]), [1, 2, 2]);
      assert.throws(() => m.assertInfo(c.choleskyEx(bad), 'cholesky', bad), /#0 NaN\/Inf in the input \(info 4\)/);
      assert.throws(() => m.assertInfo(c.choleskyEx(bad), 'cholesky'), /#0 failed \(give the call's a to have the code named\) \(info 4\)/);
      const wide = m.ndarray(new Float64Array([1, 2, 3, 4, NaN, 6]), [2, 3]);
      assert.throws(() => m.assertInfo(c.luEx(wide), 'lu', wide), /#0 NaN\/Inf in the input \(info 4\)/);
      const indefinite = m.ndarray(new Float64Array([1, 2, 2, 1]), [2, 2]);
      assert.throws(() => m.assertInfo(c.invEx(indefinite, { assume: 'spd' }), 'inv', indefinite, { assume: 'spd' }), /^.*inv: 1 of the matrices failed: #0 not positive definite \(the leading minor of order 2\)/);
      // A complex diagonal's imaginary part is not read by the Cholesky family (zpotrf takes the diagonal as real).
      const z = m.ndarray(new Float64Array([4, 0, 1, 1, 1, -1, 5, NaN]), [1, 2, 2], { dtype: 'complex128' });
      for (const r of [c.choleskyEx(z), c.invEx(z, { assume: 'spd' })]) assert.deepEqual([...r.info], [0], backend);
      assert.ok(c.cholesky(z).data.every(Number.isFinite), `${backend}: the complex factor`);
    }
  });
  it('alpha and beta are finite: Inf times a product\'s exact zeros made the backends differ', () => {
    const call = (over: object) => () => ctx.gemm({ a: one(eye()), b: one(eye()), c: one(new Float64Array(4)), ...over });
    throwsArg(call({ alpha: Infinity }), 'INVALID_ARGUMENT', 'alpha', /finite/);
    throwsArg(call({ beta: -Infinity }), 'INVALID_ARGUMENT', 'beta', /finite/);
    const z = () => strided(new Float64Array(8), { rows: 2, count: 1, dtype: 'complex128' });
    throwsArg(() => ctx.gemm({ a: z(), b: z(), c: z(), alpha: [1, Infinity] }), 'INVALID_ARGUMENT', 'alpha', /finite/);
  });
  it('the array level: a broadcast too large for one array is BOUNDS; broadcastTo takes no options and is on the context; an array is not an options object', () => {
    const big = { data: new Float64Array(1 << 17), shape: [1 << 17, 1, 1, 1] }, other = { data: new Float64Array(1 << 17), shape: [1 << 17, 1, 1] };
    throwsArg(() => m.matmul(big, other), 'BOUNDS', 'shape');
    throwsArg(() => m.solve(big, other), 'BOUNDS', 'shape');
    throwsArg(() => m.broadcastTo(m.ndarray(new Float64Array(3), [1, 3]), [2 ** 31, 1, 3]), 'BOUNDS', 'shape');
    const row = m.ndarray(new Float64Array([1, 2, 3]), [1, 3]);
    throwsArg(() => m.broadcastTo(row, [2, 3], { bogus: 1 } as never), 'INVALID_ARGUMENT', 'options');
    assert.deepEqual([...ctx.broadcastTo(row, [2, 3]).data], [1, 2, 3, 1, 2, 3]);
    throwsArg(() => m.cholesky(m.ndarray(spd2(1), [2, 2]), [] as never), 'INVALID_ARGUMENT', 'options', /an array/);
  });
});
