/**
 * core/overlap.ts against brute force: random batches (strided, list, variable; both orders; float64,
 * float32 and int32 views at any byte offset of one buffer) are rejected exactly when an output
 * shares a byte with another argument or with another of its own matrices. Then the edge cases
 * the property relies on, as regular tests (the run found no counterexample to shrink).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { list, matrixAt, storagesOf, validateBatch, variable, withValidatedScans, type Batch } from '../../src/core/batch.js';
import type { FloatArray } from '../../src/core/dtype.js';
import type { Order } from '../../src/core/enums.js';
import { MyriadError } from '../../src/core/errors.js';
import { checkNoOverlaps, type Operand } from '../../src/core/overlap.js';

const BYTES = 192;

interface BatchSpec {
  f32: boolean; byteOffset: number; kind: 'strided' | 'list' | 'variable'; order: Order;
  rows: number; cols: number; ldPad: number; stride: number; offsets: number[]; output: boolean; ownBuffer: boolean;
}
interface IntSpec { byteOffset: number; used: number; output: boolean }

const batchArb: fc.Arbitrary<BatchSpec> = fc.record({
  f32: fc.boolean(), byteOffset: fc.nat(6).map((q) => q * 8), kind: fc.constantFrom('strided' as const, 'list' as const, 'variable' as const),
  order: fc.constantFrom('col' as const, 'row' as const), rows: fc.nat(3), cols: fc.nat(3), ldPad: fc.nat(2),
  stride: fc.nat(12), offsets: fc.array(fc.nat(14), { maxLength: 4 }), output: fc.boolean(), ownBuffer: fc.boolean(),
});
const intArb: fc.Arbitrary<IntSpec> = fc.record({ byteOffset: fc.nat(40).map((q) => q * 4), used: fc.nat(6), output: fc.boolean() });

/** Builds the operand, or undefined where it does not fit in the buffer. */
function build(s: BatchSpec, shared: ArrayBuffer, name: string): Operand | undefined {
  const buffer = s.ownBuffer ? new ArrayBuffer(BYTES) : shared;
  const data: FloatArray = s.f32 ? new Float32Array(buffer, s.byteOffset) : new Float64Array(buffer, s.byteOffset);
  const ld = Math.max(1, s.order === 'col' ? s.rows : s.cols) + s.ldPad;
  const foot = s.rows * s.cols === 0 ? 0 : (s.order === 'col' ? (s.cols - 1) * ld + s.rows : (s.rows - 1) * ld + s.cols);
  let batch: Batch;
  if (s.kind === 'strided') {
    const count = s.offsets.length;
    const offset = s.offsets[0] ?? 0;
    if (count > 0 && offset + (count - 1) * s.stride + foot > data.length) return undefined;
    batch = { kind: 'strided', data, rows: s.rows, cols: s.cols, count, ld, stride: s.stride, offset, order: s.order };
  } else if (s.kind === 'variable') {
    // Every other member one row (or column) short: shapes differ, ld stays valid.
    const members = s.offsets.map((offset, i) => {
      const rows = s.order === 'col' ? s.rows : Math.max(0, s.rows - (i % 2));
      const cols = s.order === 'col' ? Math.max(0, s.cols - (i % 2)) : s.cols;
      return { data, offset, rows, cols, ld };
    });
    if (s.offsets.some((o) => o + foot > data.length)) return undefined;
    batch = variable(members, { order: s.order });
  } else {
    if (s.offsets.some((o) => o + foot > data.length)) return undefined;
    batch = list(s.offsets.map((offset) => ({ data, offset })), { rows: s.rows, cols: s.cols, ld, order: s.order });
  }
  return { name, output: s.output, batch };
}

/** Every byte an operand's matrix touches, as "buffer:byte" keys, per matrix. */
function bytesOf(op: Operand, ids: Map<ArrayBufferLike, number>): Set<string>[] {
  const id = (b: ArrayBufferLike): number => { if (!ids.has(b)) ids.set(b, ids.size); return ids.get(b)!; };
  if (!('batch' in op)) {
    const v = op.ints as Int32Array;
    const s = new Set<string>();
    for (let q = 0; q < op.used * 4; q++) s.add(`${id(v.buffer)}:${v.byteOffset + q}`);
    return [s];
  }
  const b = op.batch;
  const count = b.kind === 'strided' ? b.count : b.matrices.length;
  return Array.from({ length: count }, (_, i) => {
    const m = matrixAt(b, i);
    const data = m.data as FloatArray;
    const w = data.BYTES_PER_ELEMENT;
    const s = new Set<string>();
    for (let r = 0; r < m.rows; r++) for (let c = 0; c < m.cols; c++) {
      const e = m.offset + (b.order === 'col' ? r + c * m.ld : r * m.ld + c);
      for (let q = 0; q < w; q++) s.add(`${id(data.buffer)}:${data.byteOffset + e * w + q}`);
    }
    return s;
  });
}

const meets = (x: Set<string>, y: Set<string>): boolean => [...x].some((b) => y.has(b));

function bruteForce(ops: Operand[]): boolean {
  const ids = new Map<ArrayBufferLike, number>();
  const sets = ops.map((o) => bytesOf(o, ids));
  for (let i = 0; i < ops.length; i++) {
    if (ops[i]!.output)
      for (let p = 0; p < sets[i]!.length; p++) for (let q = p + 1; q < sets[i]!.length; q++) if (meets(sets[i]![p]!, sets[i]![q]!)) return true;
    for (let j = i + 1; j < ops.length; j++) {
      if (!ops[i]!.output && !ops[j]!.output) continue;
      const all = (s: Set<string>[]): Set<string> => new Set(s.flatMap((x) => [...x]));
      if (meets(all(sets[i]!), all(sets[j]!))) return true;
    }
  }
  return false;
}

function rejects(ops: Operand[]): boolean {
  try {
    checkNoOverlaps(ops);
    return false;
  } catch (e) {
    assert.ok(e instanceof MyriadError && e.code === 'LAYOUT', String(e));
    return true;
  }
}

describe('overlap check against brute force', () => {
  it('rejects exactly the calls where an output shares a byte (fast-check, fixed seed)', () => {
    fc.assert(fc.property(fc.array(batchArb, { minLength: 1, maxLength: 3 }), fc.option(intArb), (specs, ints) => {
      const shared = new ArrayBuffer(BYTES);
      const ops = specs.map((s, i) => build(s, shared, `x${i}`));
      fc.pre(ops.every((o) => o !== undefined));
      const all = ops as Operand[];
      if (ints) all.push({ name: 'info', output: ints.output, ints: new Int32Array(shared, ints.byteOffset, ints.used), used: ints.used });
      assert.equal(rejects(all), bruteForce(all));
    }), { numRuns: 1500, seed: 1416 });
  });

  it('variable batches over several arrays: the scans of their validation find what a scan of their own finds', () => {
    // core/batch.ts scans a variable batch as it validates it (the overlap check then reads that
    // scan): members in runs over up to three views (two of one buffer, at different byte offsets,
    // float32 or float64, and one of another buffer), outputs or not, against the brute force, and
    // the arrays found against storagesOf outside a validation.
    const memberArb = fc.record({ view: fc.nat(2), offset: fc.nat(10), rows: fc.nat(3), cols: fc.nat(3), ldPad: fc.nat(2) });
    const specArb = fc.record({ members: fc.array(memberArb, { maxLength: 6 }), order: fc.constantFrom('col' as const, 'row' as const), output: fc.boolean() });
    fc.assert(fc.property(fc.array(specArb, { minLength: 1, maxLength: 3 }), fc.boolean(), fc.nat(3), (specs, f32, shift) => {
      const shared = new ArrayBuffer(BYTES), other = new ArrayBuffer(BYTES);
      const views: FloatArray[] = [new Float64Array(shared, 0, 16), f32 ? new Float32Array(shared, 4 * shift, 24) : new Float64Array(shared, 8 * shift, 12), new Float64Array(other)];
      const ops: Operand[] = specs.map((s, k) => ({
        name: `x${k}`, output: s.output,
        batch: variable(s.members.map((m) => ({
          data: views[m.view]!, offset: m.offset, rows: m.rows, cols: m.cols, ld: Math.max(1, s.order === 'col' ? m.rows : m.cols) + m.ldPad,
        })).filter((m) => m.rows * m.cols === 0 || m.offset + (s.order === 'col' ? (m.cols - 1) * m.ld + m.rows : (m.rows - 1) * m.ld + m.cols) <= m.data.length), { order: s.order }),
      }));
      const expected = bruteForce(ops);
      assert.equal(rejects(ops), expected);
      const stores = ops.map((o) => storagesOf((o as { batch: Batch }).batch));
      withValidatedScans(() => {
        for (const o of ops) validateBatch((o as { batch: Batch }).batch, o.name);
        assert.deepEqual(ops.map((o) => storagesOf((o as { batch: Batch }).batch)), stores);
        assert.equal(rejects(ops), expected);
      });
    }), { numRuns: 1500, seed: 1417 });
  });

  // Edge cases, by hand.
  const f64 = (n: number, buffer = new ArrayBuffer(8 * n), byteOffset = 0): Float64Array => new Float64Array(buffer, byteOffset, n);
  it('interleaved column-major matrices (ld > rows) share nothing', () => {
    const d = f64(8);
    assert.equal(rejects([{ name: 'c', output: true, batch: { kind: 'strided', data: d, rows: 2, cols: 2, ld: 4, stride: 2, offset: 0, count: 2, order: 'col' } }]), false);
    assert.equal(rejects([{ name: 'c', output: true, batch: { kind: 'strided', data: d, rows: 2, cols: 2, ld: 4, stride: 1, offset: 0, count: 2, order: 'col' } }]), true);
  });
  it('a float32 view over half of a float64 element overlaps it', () => {
    const buf = new ArrayBuffer(64);
    const a: Operand = { name: 'a', output: false, batch: { kind: 'strided', data: f64(1, buf, 8), rows: 1, cols: 1, ld: 1, stride: 1, offset: 0, count: 1, order: 'col' } };
    const c: Operand = { name: 'c', output: true, batch: { kind: 'strided', data: new Float32Array(buf, 12, 1), rows: 1, cols: 1, ld: 1, stride: 1, offset: 0, count: 1, order: 'col' } };
    assert.equal(rejects([a, c]), true);
    const c2: Operand = { name: 'c', output: true, batch: { kind: 'strided', data: new Float32Array(buf, 16, 1), rows: 1, cols: 1, ld: 1, stride: 1, offset: 0, count: 1, order: 'col' } };
    assert.equal(rejects([a, c2]), false);
  });
  it('a row of a row-major matrix between the columns of a column-major one', () => {
    const d = f64(16);
    // a: column-major 2x2, ld 4: elements 0,1,4,5. c: row-major 1x2 at 2: elements 2,3 (free), at 3: 3,4 (meets 4).
    const a: Operand = { name: 'a', output: false, batch: { kind: 'strided', data: d, rows: 2, cols: 2, ld: 4, stride: 8, offset: 0, count: 1, order: 'col' } };
    const at = (offset: number): Operand => ({ name: 'c', output: true, batch: { kind: 'strided', data: d, rows: 1, cols: 2, ld: 2, stride: 2, offset, count: 1, order: 'row' } });
    assert.equal(rejects([a, at(2)]), false);
    assert.equal(rejects([a, at(3)]), true);
  });
  it('two inputs may share memory; info over pivots may not', () => {
    const d = f64(4);
    const a: Operand = { name: 'a', output: false, batch: { kind: 'strided', data: d, rows: 2, cols: 2, ld: 2, stride: 4, offset: 0, count: 1, order: 'col' } };
    assert.equal(rejects([a, { ...a, name: 'b' }]), false);
    const ipiv = new Int32Array(6);
    assert.equal(rejects([{ name: 'ipiv', output: true, ints: ipiv, used: 4 }, { name: 'info', output: true, ints: ipiv.subarray(4), used: 2 }]), false);
    assert.equal(rejects([{ name: 'ipiv', output: true, ints: ipiv, used: 4 }, { name: 'info', output: true, ints: ipiv.subarray(3), used: 2 }]), true);
  });
  it('a huge strided batch in its own buffer costs O(1)', () => {
    // O(1) in the count: a million matrices cost what ten do (a ratio, not a wall-clock bound, so
    // that a loaded machine does not fail it; a per-matrix walk would be ~10^5 times slower).
    const operands = (count: number): Operand[] => [
      { name: 'a', output: false, batch: { kind: 'strided', data: f64(4), rows: 2, cols: 2, ld: 2, stride: 0, offset: 0, count, order: 'col' } },
      { name: 'c', output: true, batch: { kind: 'strided', data: f64(4 * count), rows: 2, cols: 2, ld: 2, stride: 4, offset: 0, count, order: 'col' } },
    ];
    const time = (ops: Operand[]): number => {
      let best = Infinity;
      for (let r = 0; r < 5; r++) {
        const t0 = performance.now();
        for (let i = 0; i < 200; i++) checkNoOverlaps(ops);
        best = Math.min(best, performance.now() - t0);
      }
      return best;
    };
    const small = time(operands(10)), huge = time(operands(1_000_000));
    assert.ok(huge < 20 * small + 5, `${huge.toFixed(2)} ms for 200 checks of 10^6 matrices, ${small.toFixed(2)} ms for 10`);
  });
  it('a list output of many separate arrays is checked in about linear time', () => {
    // Against a linear baseline of the same size, not against a smaller size: a Map of 30,000
    // ArrayBuffer keys costs 10-20x more an operation than one of 1,000 on a loaded machine (the
    // memory system, not the algorithm), which a ratio of two sizes took for superlinear growth.
    // The baseline puts every array's buffer in a Map and reads it back (what a linear scan of the
    // members must do at least); the check measures 1-3x it, a pairwise check of 30,000 members
    // (450 million span pairs) would take seconds against its tens of milliseconds.
    const n = 30_000;
    const c = list(Array.from({ length: n }, () => new Float64Array(4)), { rows: 2 });
    const a = list(Array.from({ length: n }, () => new Float64Array(4)), { rows: 2 });
    const best = (f: () => void): number => {
      let t = Infinity;
      for (let r = 0; r < 5; r++) {
        const t0 = performance.now();
        f();
        t = Math.min(t, performance.now() - t0);
      }
      return t;
    };
    const baseline = best(() => {
      for (const b of [a, c]) {
        const m = new Map<object, [number, number]>();
        for (const x of b.matrices) m.set(x.data.buffer, [x.offset, x.offset + 4]);
        for (const x of b.matrices) assert.ok(m.has(x.data.buffer));
      }
    });
    const check = best(() => checkNoOverlaps([{ name: 'a', output: false, batch: a }, { name: 'c', output: true, batch: c }]));
    assert.ok(check < 8 * baseline + 5, `${check.toFixed(2)} ms for ${n} arrays, the linear baseline ${baseline.toFixed(2)} ms`);
  });
});
