/**
 * The per-device workspace on a real GPU (skipped where none is usable): the large Cholesky (blocked,
 * inverted trsm panels), the many-right-hand-side posv (B kept aside) and the Jacobi block design
 * (global slices) take their scratch from it: after the first calls, repeating them allocates
 * nothing, never waits for the stream and gives bit-identical results; a CUDA graph recorded over
 * a large Cholesky replays what a plain call computes, also after a larger call has grown the
 * workspace past the buffer the graph recorded.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { strided } from '../../src/core/batch.js';
import { Random, randomMatrices, randomSpd } from '../../src/bench/data.js';
import { syevCuda } from '../../src/cuda/kernels/jacobi/index.js';
import { potrfCuda } from '../../src/cuda/kernels/potrf/index.js';
import { posvCuda } from '../../src/cuda/kernels/solve/index.js';
import { Workspace, type CudaDevice, type DeviceArray } from '../../src/cuda/runtime/index.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';

const skip = gpuSkipReason();

/** Counts the device's waits while `fn` runs. */
function waitsDuring(dev: CudaDevice, fn: () => void): number {
  let waits = 0;
  const own = Object.getOwnPropertyDescriptor(dev, 'synchronize');
  const original = dev.synchronize.bind(dev);
  dev.synchronize = () => { waits++; original(); };
  try {
    fn();
  } finally {
    if (own) Object.defineProperty(dev, 'synchronize', own);
    else delete (dev as { synchronize?: unknown }).synchronize;
  }
  return waits;
}

test('large calls take their scratch from the workspace: no allocation, no wait, same results when repeated', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Random(1301);
  const n = 1100, m = 300, nrhs = 100, count = 4, e = 256;
  const spd = dev.upload(randomSpd('float64', n, 1, rng)), a = dev.alloc('float64', n * n), info = dev.alloc('int32', 8);
  const pa0 = dev.upload(randomSpd('float64', m, count, rng)), pa = dev.alloc('float64', m * m * count);
  const pb0 = dev.upload(randomMatrices('float64', m, nrhs, count, rng)), pb = dev.alloc('float64', m * nrhs * count);
  const sa0 = dev.upload(randomSpd('float64', e, 2, rng)), sa = dev.alloc('float64', e * e * 2), w = dev.alloc('float64', e * 2);
  const round = (): void => {
    dev.copy(spd, 0, a, 0, n * n);
    potrfCuda(dev, { uplo: 'lower', a: strided(a, { rows: n, count: 1 }), info });
    dev.copy(pa0, 0, pa, 0, m * m * count);
    dev.copy(pb0, 0, pb, 0, m * nrhs * count);
    posvCuda(dev, { uplo: 'upper', a: strided(pa, { rows: m, count }), b: strided(pb, { rows: m, cols: nrhs, count }), info: dev.view(info, 1, count) });
    dev.copy(sa0, 0, sa, 0, e * e * 2);
    syevCuda(dev, { jobz: 'vectors', uplo: 'lower', a: strided(sa, { rows: e, count: 2 }), w: strided(w, { rows: e, cols: 1, count: 2 }), info: dev.view(info, 5, 2) });
  };
  const outputs = (): unknown[] => [a, pb, sa, w, info].map((x: DeviceArray) => dev.download(x));
  round();
  const first = outputs();
  const ws = Workspace.of(dev);
  const grows = ws.grows, bytes = ws.bytes, live = dev.context.liveAllocations;
  assert.ok(bytes > 0, 'the workspace was used');
  let waits = 0;
  for (let r = 0; r < 3; r++) waits += waitsDuring(dev, round);
  assert.equal(waits, 0, 'no wait for the stream inside the calls');
  assert.equal(ws.grows, grows, 'no growth once large enough');
  assert.equal(dev.context.liveAllocations, live, 'no allocation per call');
  assert.deepEqual(outputs(), first, 'the same results, bit for bit');
  assert.deepEqual([...(first[4] as Int32Array)].slice(0, 7), [0, 0, 0, 0, 0, 0, 0], 'every factorisation and solve succeeded');
  for (const x of [spd, a, info, pa0, pa, pb0, pb, sa0, sa, w]) x.dispose();
});

test('a graph recorded over a large Cholesky replays a plain call, also after the workspace grew past what it recorded', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  if (!dev.capture) return;
  const rng = new Random(1302);
  const n = 1536;
  const a0 = dev.upload(randomSpd('float64', n, 1, rng)), a = dev.alloc('float64', n * n), info = dev.alloc('int32', 1);
  const A = strided(a, { rows: n, count: 1 });
  // Inverted trsm panels: the path with the most workspace (inverses and a copy of the panel).
  const call = (): void => potrfCuda(dev, { uplo: 'upper', a: A, info }, { force: { recursive: true, blocked: true, panel: 512, trsm: { invertFrom: 0 } } });
  dev.copy(a0, 0, a, 0, n * n);
  call();
  const want = dev.download(a);
  const graph = dev.capture(call);
  try {
    dev.fill(a, 0xff);
    dev.copy(a0, 0, a, 0, n * n);
    graph.launch();
    assert.deepEqual(dev.download(a), want, 'the replay');
    // A larger request grows the workspace: the recorded buffer must outlive it while the graph lives.
    const ws = Workspace.of(dev);
    const grows = ws.grows;
    const frame = ws.frame();
    const big = frame.take('float64', ws.bytes / 8 + 1, 'a request larger than the workspace');
    dev.fill(big, 0xff);   // NaN over the new buffer: a replay that used it would show
    frame.end();
    assert.equal(ws.grows, grows + 1, 'the workspace grew');
    dev.copy(a0, 0, a, 0, n * n);
    graph.launch();
    assert.deepEqual(dev.download(a), want, 'the replay after growth');
    assert.equal((dev.download(info) as Int32Array)[0], 0);
  } finally {
    graph.dispose();
    a0.dispose(); a.dispose(); info.dispose();
  }
});
