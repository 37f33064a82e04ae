/**
 * The per-device workspace (runtime/workspace.ts) without a GPU, on the fake device of
 * test/helpers/fake-gpus.ts: first allocation, reuse across calls without a wait, nested frames
 * that never overlap, growth that waits for the stream before freeing (and never while a graph is
 * recorded), buffers held by live graphs, and the out-of-memory error.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Workspace } from '../../src/cuda/runtime/workspace.js';
import { MyriadError } from '../../src/core/errors.js';
import { FakeDevice } from '../helpers/fake-gpus.js';

const bytesOf = (a: { byteLength: number }): number => a.byteLength;
/** The [start, end) bytes of a fake view inside its buffer. */
const span = (a: { host: { byteOffset: number; byteLength: number; buffer: ArrayBufferLike } }): [ArrayBufferLike, number, number] =>
  [a.host.buffer, a.host.byteOffset, a.host.byteOffset + a.host.byteLength];
type FakeView = Parameters<typeof span>[0];

test('one buffer per device, allocated on first take, reused by later calls without a wait', () => {
  const log: string[] = [];
  const dev = new FakeDevice(0, log);
  const ws = Workspace.of(dev);
  assert.equal(Workspace.of(dev), ws, 'one workspace per device');
  assert.notEqual(Workspace.of(new FakeDevice(1, log)), ws);
  assert.equal(ws.bytes, 0);
  assert.equal(dev.live.size, 0, 'nothing allocated before the first take');
  const f = ws.frame();
  const a = f.take('float64', 1000, 'test a') as unknown as FakeView;
  assert.equal(bytesOf(a.host), 8000);
  f.end();
  assert.equal(dev.live.size, 1);
  const size = ws.bytes;
  assert.ok(size >= 8000);
  for (let call = 0; call < 5; call++) {
    const g = ws.frame();
    const b = g.take('int32', 500, 'test b') as unknown as FakeView;
    assert.equal(span(b)[0], span(a)[0], 'the same buffer');
    assert.equal(span(b)[1], span(a)[1], 'from the same offset: the earlier call is before this one on the stream');
    g.end();
  }
  assert.equal(dev.live.size, 1);
  assert.equal(ws.bytes, size);
  assert.ok(!log.includes('sync0'), 'no wait for reuse');
});

test('views of open frames never overlap; nested frames sit above their caller; views are aligned', () => {
  const dev = new FakeDevice(0, []);
  const ws = Workspace.of(dev);
  const outer = ws.frame();
  const x = outer.take('int32', 3, 'x') as unknown as FakeView;
  const y = outer.take('float64', 100, 'y') as unknown as FakeView;
  const inner = ws.frame();
  const z = inner.take('float32', 77, 'z') as unknown as FakeView;
  assert.throws(() => outer.take('int32', 1, 'late'), (e: MyriadError) => e.argument === 'frame', 'only the innermost frame takes');
  const all = [x, y, z].map(span);
  for (const [, s] of all) assert.equal(s % 256, 0, 'aligned to 256 bytes');
  for (let i = 0; i < all.length; i++)
    for (let j = i + 1; j < all.length; j++) assert.ok(all[i]![2] <= all[j]![1] || all[j]![2] <= all[i]![1], `views ${i} and ${j} overlap`);
  assert.throws(() => outer.end(), (e: MyriadError) => e.argument === 'frame', 'frames end innermost first');
  inner.end();
  // After the inner frame, the caller's next view reuses the inner frame's bytes, not its own.
  const w = outer.take('float32', 77, 'w') as unknown as FakeView;
  assert.equal(span(w)[1], span(z)[1]);
  outer.end();
  assert.throws(() => outer.take('int32', 1, 'after'), (e: MyriadError) => e.code === 'DISPOSED');
});

test('growth: a larger request replaces the buffer; the old one is freed after a wait, once no frame is open', () => {
  const log: string[] = [];
  const dev = new FakeDevice(0, log);
  const ws = Workspace.of(dev);
  const outer = ws.frame();
  const small = outer.take('float64', 16, 'small') as unknown as FakeView;
  (small.host as unknown as Float64Array)[0] = 42;
  const first = ws.bytes;
  const inner = ws.frame();
  const big = inner.take('float64', first / 8 + 1, 'big') as unknown as FakeView;
  assert.ok(ws.bytes >= 2 * first, 'at least doubled');
  assert.equal(ws.grows, 2);
  assert.equal(ws.buffers, 2, 'the old buffer is retired, not freed: the caller still uses it');
  assert.notEqual(span(big)[0], span(small)[0]);
  assert.equal((small.host as unknown as Float64Array)[0], 42, "the caller's view is intact");
  inner.end();
  const after = outer.take('float64', 16, 'after') as unknown as FakeView;
  assert.ok(span(after)[1] >= span(small)[2], "the new buffer keeps the caller's offsets unused");
  assert.ok(!log.includes('sync0'));
  outer.end();
  assert.deepEqual(log, ['sync0'], 'one wait, then the retired buffer is freed');
  assert.equal(ws.buffers, 1);
  assert.equal(dev.live.size, 1);
  // Never shrunk: a small request later keeps the large buffer.
  const size = ws.bytes;
  const f = ws.frame();
  f.take('int32', 1, 'tiny');
  f.end();
  assert.equal(ws.bytes, size);
});

test('while a graph is recorded nothing waits; the buffers it used live until the graph is disposed', () => {
  const log: string[] = [];
  const dev = new FakeDevice(0, log);
  const ws = Workspace.of(dev);
  let f = ws.frame();
  f.take('float64', 10, 'warm-up');
  f.end();
  ws.beginCapture();
  f = ws.frame();
  f.take('float64', 10, 'recorded');
  f.end();
  const release = ws.endCapture();
  // A later, larger call grows: the recorded buffer is retired but held by the graph.
  f = ws.frame();
  f.take('float64', ws.bytes, 'larger');
  f.end();
  assert.equal(ws.buffers, 2, 'held by the graph');
  assert.ok(!log.includes('sync0'));
  release();
  assert.deepEqual(log, ['sync0']);
  assert.equal(ws.buffers, 1);
  release();
  assert.equal(ws.buffers, 1, 'release is idempotent');
  // Growth during a recording that used the buffer first: nothing waits, both buffers are held.
  ws.beginCapture();
  f = ws.frame();
  f.take('float64', 10, 'recorded first');
  f.end();
  f = ws.frame();
  f.take('float64', ws.bytes, 'grows while recording');
  f.end();
  assert.equal(ws.buffers, 2);
  const release2 = ws.endCapture();
  assert.deepEqual(log, ['sync0'], 'no wait while recording');
  f = ws.frame();
  f.end();
  assert.equal(ws.buffers, 2, 'the recorded (retired) buffer stays while its graph lives');
  release2();
  assert.deepEqual(log, ['sync0', 'sync0'], 'freed after a wait once the graph is gone');
  assert.equal(ws.buffers, 1);
});

test('out of memory names the bytes and the purpose', () => {
  const dev = new FakeDevice(0, []);
  dev.allocsLeft = 0;
  const f = Workspace.of(dev).frame();
  assert.throws(() => f.take('float64', 1 << 22, 'the inverted diagonal blocks of trsm'), (e: MyriadError) =>
    e instanceof MyriadError && e.code === 'CUDA' && /33554432 bytes/.test(e.message) && /inverted diagonal blocks of trsm/.test(e.message) && /OUT_OF_MEMORY/.test(e.message));
  f.end();
});
