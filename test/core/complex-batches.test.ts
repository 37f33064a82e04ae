/**
 * Complex batches: the constructors' `dtype` option (strided, list and variable), buffer fit in
 * complex elements, real/complex mismatches, every operation's rejection of complex batches before
 * any backend, and a variable batch's members computed as their own calls.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { batchDtype, batchElementType, list, strided, validateBatch, variable, type Batch } from '../../src/core/batch.js';
import { MyriadError, type ErrorCode } from '../../src/core/errors.js';
import { OP_NAMES, OP_SPECS } from '../../src/core/op-specs.js';
import type { Storage } from '../../src/core/storage.js';
import { hostInts, VALIDATORS } from '../../src/api/prepare.js';
import { open } from '../../src/api/open.js';
import { complexReference } from '../../src/cpu/complex/backend.js';

function throwsArg(fn: () => unknown, code: ErrorCode, argument: string, message?: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof MyriadError, String(e));
    assert.equal(e.code, code, e.message);
    assert.equal(e.argument, argument, e.message);
    if (message !== undefined) assert.match(e.message, message);
    return true;
  });
}

describe('complex batches', () => {
  it('strided counts complex elements: two floats each', () => {
    const b = strided(new Float64Array(2 * 2 * 3 * 5), { rows: 2, cols: 3, dtype: 'complex128' });
    assert.equal(b.count, 5);
    assert.equal(b.dtype, 'complex128');
    assert.equal(b.stride, 6);
    assert.equal(batchElementType(b, 'a'), 'complex128');
    const c = strided(new Float32Array(2 * 4 * 4 * 2), { rows: 4, count: 2, dtype: 'complex64' }, 'a');
    assert.equal(batchElementType(c, 'a'), 'complex64');
    // One complex element short: 4 x 4 x 2 complex64 need 64 floats.
    throwsArg(() => strided(new Float32Array(63), { rows: 4, count: 2, dtype: 'complex64' }, 'a'), 'BOUNDS', 'a.data', /31 complex64 elements/);
    throwsArg(() => strided(new Float64Array(7), { rows: 2, dtype: 'complex128' }), 'LAYOUT', 'strided.count', /3 complex128 elements/);
  });

  it('a real batch is unchanged by the option', () => {
    const data = new Float64Array(8);
    const plain = strided(data, { rows: 2 });
    const named = strided(data, { rows: 2, dtype: 'float64' });
    assert.deepEqual(named, plain);
    assert.ok(!('dtype' in plain));
    assert.equal(batchDtype(plain, 'a'), 'float64');
    assert.equal(batchElementType(plain, 'a'), 'float64');
  });

  it('real/complex mismatches are DTYPE errors naming the argument', () => {
    throwsArg(() => strided(new Float32Array(8), { rows: 2, dtype: 'complex128' }, 'a'), 'DTYPE', 'a.data', /complex128 needs float64/);
    throwsArg(() => strided(new Float64Array(8), { rows: 2, dtype: 'complex64' }), 'DTYPE', 'strided.data', /complex64 needs float32/);
    throwsArg(() => strided(new Float64Array(8), { rows: 2, dtype: 'float32' }), 'DTYPE', 'strided.data');
    throwsArg(() => strided(new Float64Array(8), { rows: 2, dtype: 'complex' as 'complex128' }), 'DTYPE', 'strided.dtype');
    throwsArg(() => list([new Float64Array(8), new Float32Array(8)], { rows: 2, dtype: 'complex128' }, 'b'), 'DTYPE', 'b.matrices[1].data');
    const z = strided(new Float64Array(8), { rows: 2, dtype: 'complex128' });
    throwsArg(() => batchDtype(z, 'a'), 'DTYPE', 'a', /complex128, where a real batch/);
    // A hand-written batch: its dtype field is checked too.
    const bad = { ...z, dtype: 'float64' } as unknown as Batch<Storage>;
    throwsArg(() => validateBatch(bad, 'c'), 'DTYPE', 'c.dtype');
    const wrongArray = { ...z, data: new Float32Array(8) } as Batch<Storage>;
    throwsArg(() => batchElementType(wrongArray, 'c'), 'DTYPE', 'c.data');
    // Variable batches: the members' arrays hold the parts' type, and their places count pairs.
    throwsArg(() => variable([{ data: new Float64Array(8), rows: 2 }, { data: new Float32Array(8), rows: 2 }] as { data: Float64Array | Float32Array; rows: number }[], { dtype: 'complex128' }, 'a'), 'DTYPE', 'a.matrices[1].data', /complex128 needs float64/);
    const v = { ...variable([{ data: new Float64Array(4), rows: 2 }]), dtype: 'complex128' } as Batch<Storage>;
    throwsArg(() => validateBatch(v, 'a'), 'BOUNDS', 'a.matrices[0].data', /2 complex128 elements/);
    const ok = variable([{ data: new Float32Array(8), rows: 2 }, { data: new Float32Array(8), rows: 1, cols: 3, offset: 1 }], { dtype: 'complex64' });
    assert.equal(ok.dtype, 'complex64');
    assert.equal(batchElementType(ok, 'a'), 'complex64');
    throwsArg(() => variable([{ data: new Float32Array(8), rows: 1, cols: 4, offset: 1 }], { dtype: 'complex64' }, 'a'), 'BOUNDS', 'a.matrices[0].data');
  });

  it('an empty list or variable batch takes the complex type it names (no storage to disagree): complex64 too', () => {
    for (const dtype of ['complex64', 'complex128'] as const) {
      assert.equal(batchElementType(list([], { rows: 3, dtype }), 'a'), dtype);
      assert.equal(batchElementType(variable([], { dtype }), 'a'), dtype);
      const part = dtype === 'complex64' ? new Float32Array(0) : new Float64Array(0);
      const ctx = open({ backend: 'cpu' });
      ctx.gemm({ a: strided(part, { rows: 2, cols: 2, count: 0, dtype }), b: strided(part, { rows: 2, cols: 2, count: 0, dtype }), c: variable([], { dtype }) });
      ctx.potrf({ a: list([], { rows: 3, dtype }) });
      // heev's real w of no matrices beside complex64 A: no storage, so no precision to refuse.
      ctx.heev({ a: variable([], { dtype }), w: variable([]), jobz: 'values' });
    }
  });
  it('list batches of complex matrices', () => {
    const b = list([new Float64Array(8), { data: new Float64Array(10), offset: 1 }], { rows: 2, dtype: 'complex128' }, 'a');
    assert.equal(b.dtype, 'complex128');
    throwsArg(() => list([{ data: new Float64Array(9), offset: 1 }], { rows: 2, dtype: 'complex128' }, 'a'), 'BOUNDS', 'a.matrices[0].data');
  });

  it('every operation without complex in its spec rejects a complex batch before any backend, naming the operation and the argument', () => {
    const z = (): Batch<Float64Array> => strided(new Float64Array(2 * 2 * 2), { rows: 2, count: 1, dtype: 'complex128' });
    // An operation takes complex batches exactly where the complex reference implements it.
    assert.deepEqual(OP_NAMES.filter((op) => OP_SPECS[op].complex === true).sort(), Object.keys(complexReference).sort());
    for (const op of OP_NAMES) {
      if (OP_SPECS[op].complex === true) continue;
      const args: Record<string, unknown> = {};
      for (const [field, kind] of Object.entries(OP_SPECS[op].args)) if (kind === 'batch' || kind === 'batch?') args[field] = z();
      if ('ipiv' in OP_SPECS[op].args && op !== 'getrf' && op !== 'gesv') args.ipiv = new Int32Array(2);
      const first = Object.keys(args)[0]!;
      // syev names the operation that takes complex Hermitian matrices.
      throwsArg(() => (VALIDATORS[op] as (a: unknown, alloc: typeof hostInts) => unknown)(args, hostInts), 'UNSUPPORTED', first,
        op === 'syev' ? /use heev/ : new RegExp(`: ${op} does not support complex batches yet \\(got complex128\\)`));
    }
  });

  it('the overlap check counts a complex element as two floats', () => {
    const ctx = open({ backend: 'reference' });
    try {
      // A 2 x 2 complex128 A is floats 0..7; a real w on floats 5..6 overlaps it, on floats 8..9 it does not.
      const data = new Float64Array(10);
      const a = strided(data, { rows: 2, count: 1, dtype: 'complex128' });
      throwsArg(() => ctx.heev({ a, w: strided(new Float64Array(data.buffer, 8 * 5, 2), { rows: 2, cols: 1 }) }), 'LAYOUT', 'w', /share memory/);
      assert.deepEqual([...ctx.heev({ a, w: strided(new Float64Array(data.buffer, 8 * 8, 2), { rows: 2, cols: 1 }) }).info], [0]);
      // Two complex matrices at complex offsets 0 and 3 (floats 0..7 and 6..13) overlap.
      const z = new Float64Array(14);
      throwsArg(() => ctx.gemm({ a: strided(z, { rows: 2, count: 1, dtype: 'complex128' }), b: strided(z, { rows: 2, count: 1, dtype: 'complex128' }), c: strided(z, { rows: 2, count: 1, offset: 3, dtype: 'complex128' }) }), 'LAYOUT', 'c');
    } finally {
      ctx.dispose();
    }
  });

  it('a complex variable batch: each member as its own one-matrix call (reference and cpu contexts), info and pivots in its place; members that share a byte rejected', () => {
    // Orders 3, 0, 2 (ld 4), 3 (ld 5): getrf's pivots lie max(min(m, n)) = 3 apart.
    const shapes = [[3, 3], [0, 1], [2, 4], [3, 5]] as const;
    const fill = (n: number, ld: number, seed: number): Float64Array => Float64Array.from({ length: 2 * ld * n + 2 }, (_, k) => ((k * 7 + seed * 13) % 11) / 11 - 0.4 + (k % (2 * ld + 2) === 0 ? n : 0));
    for (const backend of ['reference', 'cpu'] as const) for (const dtype of ['complex128', 'complex64'] as const) {
      const ctx = open({ backend });
      try {
        const arrays = (): (Float64Array | Float32Array)[] => shapes.map(([n, ld], p) => (dtype === 'complex64' ? Float32Array.from(fill(n, ld, p)) : fill(n, ld, p)));
        const a = arrays();
        const member = (p: number): { data: Float64Array | Float32Array; rows: number; ld: number; offset: number } => ({ data: a[p]!, rows: shapes[p]![0], ld: shapes[p]![1], offset: 1 });
        const v = variable(shapes.map((_, p) => member(p)), { dtype });
        const ipiv = new Int32Array(3 * shapes.length).fill(-9);
        const { info } = ctx.getrf({ a: v, ipiv });
        const one = arrays();
        shapes.forEach(([n, ld], p) => {
          const single = strided(one[p]!, { rows: n, ld, count: 1, offset: 1, dtype });
          const r = ctx.getrf({ a: single });
          assert.deepEqual([...a[p]!], [...one[p]!], `${backend} ${dtype} member ${p}: its factors`);
          assert.equal(info[p], r.info[0]);
          assert.deepEqual([...ipiv.subarray(3 * p, 3 * p + 3)], [...r.ipiv, -9, -9, -9].slice(0, 3), `member ${p}: its pivots, the slots past n untouched`);
        });
      } finally {
        ctx.dispose();
      }
    }
    const ctx = open({ backend: 'reference' });
    try {
      const shared = new Float64Array(2 * 9 + 2 * 4);
      throwsArg(() => ctx.potrf({ a: variable([{ data: shared, rows: 3 }, { data: shared, rows: 2, offset: 8 }], { dtype: 'complex128' }) }), 'LAYOUT', 'a.matrices[1]', /matrices 0 and 1 share/);
      assert.deepEqual([...ctx.potrf({ a: variable([{ data: shared, rows: 3 }, { data: shared, rows: 2, offset: 9 }], { dtype: 'complex128' }) }).info], [1, 1]);
    } finally {
      ctx.dispose();
    }
  });

  it('a complex argument beside real ones is rejected through a context', () => {
    const ctx = open({ backend: 'cpu' });
    try {
      const c = new Float64Array(8);
      const before = [...c];
      throwsArg(() => ctx.gemm({ a: strided(new Float64Array(4), { rows: 2 }), b: strided(new Float64Array(8), { rows: 2, dtype: 'complex128' }), c: strided(c, { rows: 2 }) }),
        'DTYPE', 'b', /is complex128 but a is float64: element types cannot be mixed/);
      assert.deepEqual([...c], before);
    } finally {
      ctx.dispose();
    }
  });
});
