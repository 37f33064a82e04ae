/**
 * Splitting a batch among GPUs, without a GPU: proportional counts, uneven counts, a batch of 1,
 * zero, weights; sub-requests of strided, list and variable batches with their info/ipiv
 * offsets; shard layouts and the runs a sharded batch dictates.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { list, strided, variable } from '../../src/core/batch.js';
import { MyriadError } from '../../src/core/errors.js';
import type { DeviceInfo } from '../../src/cuda/runtime/types.js';
import { rebaseRequest, sliceRequest, storageRanges, writtenSpans, type IntSlice } from '../../src/cuda/host/request.js';
import { intBounds, resolveLayout, runsOfBatch, shardBounds, ShardedArray, type Shard } from '../../src/cuda/multi/sharded.js';
import { checkWeights, modelWeights, splitBatch, splitCounts, weightsFromTimes } from '../../src/cuda/multi/split.js';
import { parseDevices, resolveDevices } from '../../src/cuda/multi/open.js';
import { Random } from '../../src/bench/data.js';

const sum = (xs: number[]): number => xs.reduce((s, x) => s + x, 0);

describe('splitCounts / splitBatch', () => {
  it('splits evenly and unevenly in proportion, remainder to the lower index', () => {
    assert.deepEqual(splitCounts(10, [1, 1]), [5, 5]);
    assert.deepEqual(splitCounts(7, [1, 1]), [4, 3]);
    assert.deepEqual(splitCounts(7, [1, 1, 1]), [3, 2, 2]);
    assert.deepEqual(splitCounts(10, [3, 1]), [8, 2]);
    assert.deepEqual(splitCounts(100, [2, 1, 1]), [50, 25, 25]);
    assert.deepEqual(splitCounts(5, [1, 0, 1]), [3, 0, 2]);
  });
  it('a batch of 1 goes to one device, zero to none', () => {
    assert.deepEqual(splitCounts(1, [1, 1]), [1, 0]);
    assert.deepEqual(splitBatch(1, [1, 1]), [{ lane: 0, start: 0, end: 1 }]);
    assert.deepEqual(splitCounts(1, [1, 3]), [0, 1]);
    assert.deepEqual(splitCounts(0, [1, 1]), [0, 0]);
    assert.deepEqual(splitBatch(0, [1, 1]), []);
  });
  it('parts are contiguous, cover the batch, and each count is within 1 of its exact share', () => {
    const rng = new Random(3);
    for (let t = 0; t < 300; t++) {
      const lanes = 1 + Math.floor(((rng.next() + 1) / 2) * 8);
      const w = Array.from({ length: lanes }, () => Math.floor(((rng.next() + 1) / 2) * 5));
      if (!w.some((x) => x > 0)) w[0] = 1;
      const count = Math.floor(((rng.next() + 1) / 2) * 1000);
      const c = splitCounts(count, w);
      assert.equal(sum(c), count);
      c.forEach((n, i) => assert.ok(Math.abs(n - (count * w[i]!) / sum(w)) < 1, `count ${count} weights ${w}: ${c}`));
      const parts = splitBatch(count, w);
      let at = 0;
      for (const p of parts) {
        assert.equal(p.start, at);
        assert.ok(p.end > p.start);
        assert.equal(p.end - p.start, c[p.lane]);
        at = p.end;
      }
      assert.equal(at, count);
    }
  });
  it('rejects bad weights and counts', () => {
    const bad = (f: () => unknown): void => assert.throws(f, MyriadError);
    bad(() => checkWeights([1], 2));
    bad(() => checkWeights([1, -1], 2));
    bad(() => checkWeights([0, 0], 2));
    bad(() => checkWeights([1, NaN], 2));
    bad(() => splitCounts(-1, [1]));
    bad(() => splitCounts(1.5, [1]));
  });
  it('model weights: equal for identical GPUs, by memory bandwidth otherwise; measured times invert', () => {
    const info = (name: string, mem: number): DeviceInfo => ({ ordinal: 0, name, arch: 'sm_90', major: 9, minor: 0, smCount: 132, warpSize: 32, maxThreadsPerBlock: 1024, maxThreadsPerSM: 2048, maxBlocksPerSM: 32, regsPerBlock: 65536, regsPerSM: 65536, sharedPerBlock: 49152, sharedPerBlockOptin: 232448, sharedPerSM: 233472, clockKHz: 1980000, memoryClockKHz: mem, memoryBusWidthBits: 5120, l2Bytes: 52428800, totalMemoryBytes: 80e9 });
    assert.deepEqual(modelWeights([info('H100', 2619000), info('H100', 2619000)]), [1, 1]);
    const w = modelWeights([info('H100', 2000), info('H200', 3000)]);
    assert.ok(Math.abs(w[0]! / w[1]! - 2 / 3) < 1e-12);
    assert.deepEqual(weightsFromTimes([2, 4]), [1, 0.5]);
    assert.throws(() => weightsFromTimes([0, 1]), MyriadError);
  });
  it('device selections', () => {
    assert.deepEqual(resolveDevices('all', 3), [0, 1, 2]);
    assert.deepEqual(resolveDevices([1, 0], 2), [1, 0]);
    assert.throws(() => resolveDevices([2], 2), /no CUDA device 2/);
    assert.throws(() => resolveDevices([0, 0], 2), /twice/);
    assert.throws(() => resolveDevices([], 2), MyriadError);
    assert.deepEqual(parseDevices('all'), 'all');
    assert.deepEqual(parseDevices('0, 1'), [0, 1]);
    assert.throws(() => parseDevices('0,x'), MyriadError);
  });
});

describe('sub-requests', () => {
  const data = new Float64Array(1000);
  it('strided: offset += start * stride, count = end - start; info by start, ipiv by start * pivotStride', () => {
    const a = strided(data, { rows: 3, cols: 3, ld: 4, stride: 13, offset: 5, count: 9 });
    const info = new Int32Array(9);
    const ipiv = new Int32Array(27);
    const sub = sliceRequest({ a, info, ipiv, pivotStride: 3 }, 4, 7);
    assert.deepEqual({ ...(sub['a'] as object) }, { ...a, offset: 5 + 4 * 13, count: 3 });
    assert.deepEqual(sub['info'], { kind: 'int-slice', data: info, start: 4, end: 7 } satisfies IntSlice);
    assert.deepEqual(sub['ipiv'], { kind: 'int-slice', data: ipiv, start: 12, end: 21 } satisfies IntSlice);
    assert.equal(sub['pivotStride'], 3);
    const r = storageRanges(sub);
    // Matrices 4..6: first element 5 + 52 = 57, last matrix 6 starts at 83 and spans 2 * 4 + 3 = 11.
    assert.deepEqual(r.get(data), { lo: 57, hi: 94 });
    assert.deepEqual(r.get(info), { lo: 4, hi: 7 });
    assert.deepEqual(r.get(ipiv), { lo: 12, hi: 21 });
  });
  it('list and variable: the entries [start, end)', () => {
    const other = new Float64Array(100);
    const l = list([{ data, offset: 50 }, { data: other, offset: 0 }, { data, offset: 0 }, { data: other, offset: 40 }], { rows: 2, cols: 2 });
    const sub = sliceRequest({ a: l }, 1, 3);
    assert.deepEqual((sub['a'] as typeof l).matrices, [{ data: other, offset: 0 }, { data, offset: 0 }]);
    const v = variable([{ data, rows: 1 }, { data, rows: 3, offset: 10 }, { data: other, rows: 2, cols: 5, offset: 7 }]);
    const vs = sliceRequest({ a: v }, 2, 3)['a'] as typeof v;
    assert.equal(vs.matrices.length, 1);
    assert.equal(vs.matrices[0]!.offset, 7);
    assert.deepEqual(storageRanges({ a: vs }).get(other), { lo: 7, hi: 17 });
  });
  it('rebasing moves offsets by the base and demands int slices start where their memory starts', () => {
    const a = strided(data, { rows: 2, count: 10 });
    const info = new Int32Array(10);
    const sub = sliceRequest({ a, info, uplo: 'lower' }, 6, 10);
    const stagedA = new Float64Array(16);
    const stagedInfo = new Int32Array(4);
    const out = rebaseRequest(sub, (s) => (s === data ? { target: stagedA, base: 24 } : { target: stagedInfo, base: 6 }));
    assert.equal((out['a'] as typeof a).offset, 0);
    assert.equal((out['a'] as typeof a).data, stagedA);
    assert.equal(out['info'], stagedInfo);
    assert.equal(out['uplo'], 'lower');
    assert.throws(() => rebaseRequest(sub, (s) => ({ target: s, base: 0 })), /LAYOUT|start at element 6/);
  });
  it('written spans: one per column and one per int slice', () => {
    const a = strided(data, { rows: 2, cols: 2, ld: 3, count: 2 });
    const spans = writtenSpans(sliceRequest({ a, info: new Int32Array(2) }, 1, 2), ['a']);
    assert.deepEqual(spans.get(data), [[6, 8], [9, 11]]);
  });
});

describe('shard layouts and runs', () => {
  const fakeArray = (length: number, dtype: 'float64' | 'int32' = 'float64') =>
    ({ kind: 'device', dtype, length, device: 0, ptr: 0n, byteLength: length * 8, disposed: false, dispose() {} }) as const;
  const sharded = (length: number, cuts: [number, number, number][]): ShardedArray =>
    new ShardedArray('float64', length, cuts.map(([start, end, ordinal]): Shard => ({ start, end, ordinal, array: fakeArray(end - start) })));

  it('resolves layouts from count, stride or rows', () => {
    assert.deepEqual(resolveLayout(100, { count: 4 }), { count: 4, stride: 25, offset: 0 });
    assert.deepEqual(resolveLayout(100, { rows: 5 }), { count: 4, stride: 25, offset: 0 });
    assert.deepEqual(resolveLayout(100, { rows: 3, cols: 2, count: 5, offset: 10 }), { count: 5, stride: 6, offset: 10 });
    assert.throws(() => resolveLayout(100, { count: 3 }), /not 3 equal/);
    assert.throws(() => resolveLayout(10, { rows: 2, count: 3 }), MyriadError);
  });
  it('shard bounds: whole matrices per device, first from 0, last to the end', () => {
    const parts = splitBatch(7, [1, 1]);
    assert.deepEqual(shardBounds(80, { stride: 10, offset: 3 }, parts), [{ lane: 0, start: 0, end: 43 }, { lane: 1, start: 43, end: 80 }]);
    assert.deepEqual(intBounds(21, 3, parts), [{ lane: 0, start: 0, end: 12 }, { lane: 1, start: 12, end: 21 }]);
  });
  it('a strided batch over a sharded array runs where its matrices live', () => {
    const s = sharded(70, [[0, 40, 0], [40, 70, 1]]);
    const laneOf = (o: number): number => o;
    assert.deepEqual(runsOfBatch(strided(s, { rows: 10, cols: 1, count: 7 }), 'a', laneOf), [{ lane: 0, start: 0, end: 4 }, { lane: 1, start: 4, end: 7 }]);
    // One matrix, or a broadcast (stride 0) operand: the device that holds it.
    assert.deepEqual(runsOfBatch(strided(s, { rows: 10, cols: 1, count: 1, offset: 50 }), 'a', laneOf), [{ lane: 1, start: 0, end: 1 }]);
    // Matrices 5 apart and 10 long: matrix 7 (elements 35..44) straddles the cut at 40.
    assert.throws(() => runsOfBatch(strided(s, { rows: 10, cols: 1, stride: 5, count: 12 }), 'a', laneOf), /matrix 7 .* straddles/);
    // A host batch dictates nothing.
    assert.equal(runsOfBatch(strided(new Float64Array(70), { rows: 10, cols: 1, count: 7 }), 'a', laneOf), undefined);
  });
  it('list batches: maximal runs per device; host entries go with their neighbours', () => {
    const s = sharded(40, [[0, 20, 0], [20, 40, 1]]);
    const host = new Float64Array(10);
    const l = list<ShardedArray | Float64Array>([{ data: s, offset: 0 }, { data: host, offset: 0 }, { data: s, offset: 30 }, { data: s, offset: 10 }], { rows: 10, cols: 1 });
    assert.deepEqual(runsOfBatch(l, 'a', (o) => o), [{ lane: 0, start: 0, end: 2 }, { lane: 1, start: 2, end: 3 }, { lane: 0, start: 3, end: 4 }]);
  });
  it('placement must tile the array', () => {
    assert.throws(() => sharded(50, [[0, 20, 0], [25, 50, 1]]), /tile/);
    assert.throws(() => sharded(50, [[0, 20, 0]]), /cover/);
    const pending = new ShardedArray('int32', 4);
    assert.equal(pending.placed, false);
    pending.place([{ start: 0, end: 4, ordinal: 1, array: fakeArray(4, 'int32') }]);
    assert.throws(() => pending.place([]), /already placed/);
    assert.equal(pending.shardOn(1, 0, 4)?.ordinal, 1);
    assert.equal(pending.shardOn(0, 0, 4), undefined);
  });
});
