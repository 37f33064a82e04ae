/**
 * The per-device host scratch of the variable-batch launchers (kernels/common/host-scratch.ts):
 * nested frames never share bytes while both are open, growth leaves the arrays already taken
 * intact, an ended frame's bytes are reused, and a frame is unusable after end().
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HostScratch } from '../../src/cuda/kernels/common/host-scratch.js';
import { PlanningDevice } from '../../src/cuda/runtime/planning-device.js';
import { H100 } from '../helpers/devices.js';

/** Whether two views share a byte. */
const overlap = (x: ArrayBufferView, y: ArrayBufferView): boolean =>
  x.buffer === y.buffer && x.byteOffset < y.byteOffset + y.byteLength && y.byteOffset < x.byteOffset + x.byteLength;

test('nested frames take disjoint arrays; growth keeps what was taken; an ended frame\'s bytes are reused', () => {
  const dev = new PlanningDevice(H100);
  const scratch = HostScratch.of(dev);
  assert.equal(HostScratch.of(dev), scratch, 'one scratch per device');
  assert.notEqual(HostScratch.of(new PlanningDevice(H100)), scratch, 'devices do not share one');

  const outer = scratch.frame();
  const a = outer.int32(1000).fill(7);
  const p = outer.bigint64(3).fill(-5n);
  assert.equal(p.byteOffset % 8, 0, 'int64 views aligned');
  const inner = scratch.frame();
  const b = inner.float64(10).fill(1.5);
  assert.ok(!overlap(a, b) && !overlap(p, b));
  // Larger than the buffer: a new one, the arrays already taken untouched.
  const big = inner.int32(scratch.capacity).fill(3);
  assert.ok(!overlap(big, a) && !overlap(big, b));
  assert.ok(a.every((x) => x === 7) && p.every((x) => x === -5n) && b.every((x) => x === 1.5));
  inner.end();
  // The outer frame goes on; its next array lies apart from its first.
  const c = outer.int32(1000).fill(9);
  assert.ok(!overlap(a, c));
  assert.ok(a.every((x) => x === 7));
  outer.end();

  // After the outermost frame, the next call's arrays reuse the bytes, and the buffer holds a whole call.
  const again = scratch.frame();
  const d = again.int32(1000);
  assert.equal(d.buffer, c.buffer);
  assert.equal(d.byteOffset, 0);
  assert.deepEqual([...again.zeroedInt32(5)], [0, 0, 0, 0, 0]);
  again.end();
  assert.throws(() => again.int32(1), /after end/);
});
