/**
 * A streamed call right after a one-off threaded call: the stream counts its chunks from the jobs
 * the caller has sent (pool.ts Slot.posted), not from the worker's `done` as read at its start. A
 * worker raises a one-off job's flag, which the caller returns on, before it adds to `done`; where
 * that add came late, it passed for the stream's first chunk, and the caller copied back a chunk
 * the worker had not run (whole runs of wrong gemm results, about 1 call in 50 on 2 cores). The
 * worker's test pause between the two (MYRIAD_TEST_WORKER_DONE_DELAY_MS) makes it every call.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cpuThreads, open, setCpuThreads, strided } from '../../../src/index.js';
import { Rng } from '../../helpers/random.js';

test('a streamed gemm after a threaded potrf gets every chunk computed, with the worker slow to count its jobs', () => {
  process.env['MYRIAD_TEST_WORKER_DONE_DELAY_MS'] = '40';   // read by the workers this process starts
  setCpuThreads(2);
  const ctx = open({ backend: 'cpu' }), ref = open({ backend: 'reference' });
  const n = 40, count = 300, len = n * n * count;   // potrf: 3.8 MB, threaded, not streamed; gemm: 11.5 MB, streamed
  const rng = new Rng(9);
  const A = new Float64Array(len).map(() => rng.uniform()), B = new Float64Array(len).map(() => rng.uniform());
  const spd = new Float64Array(len);
  for (let k = 0; k < count; k++) for (let j = 0; j < n; j++) spd[k * n * n + j * (n + 1)] = 4;
  const batch = (d: Float64Array) => strided(d, { rows: n, count });
  const want = new Float64Array(len);
  ref.gemm({ a: batch(A), b: batch(B), c: batch(want) });
  for (let round = 0; round < 3; round++) {
    const p = spd.slice();
    assert.ok(ctx.potrf({ a: batch(p) }).info.every((x) => x === 0));
    assert.equal(p[len - 1], 2, `round ${round}: potrf`);
    const c = new Float64Array(len);
    ctx.gemm({ a: batch(A), b: batch(B), c: batch(c) });
    let wrong = 0;
    for (let i = 0; i < len; i++) if (Math.abs(c[i]! - want[i]!) > 1e-12) wrong++;
    assert.equal(wrong, 0, `round ${round}: ${wrong / (n * n)} of ${count} gemm results wrong`);
  }
});

test('setCpuThreads refuses a count outside 1 ... 256 by name and keeps the count it had', () => {
  setCpuThreads(2);
  for (const bad of [0, 257, 1000, 2.5, Number.NaN]) {
    assert.throws(() => setCpuThreads(bad), (e: Error) => e.message.startsWith('threads: expected an integer from 1 to 256'), String(bad));
  }
  assert.equal(cpuThreads(), 2);
});
