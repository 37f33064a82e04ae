/**
 * ctx.capture() on a multi-GPU context, over fake GPUs that record: each fake's capture runs the
 * pipeline with its lane's work held back (the lane's backend queues each call instead of running
 * it), and a replay runs what was queued, one "graph launch" a lane. What is checked: the first run
 * does the work and the recording does none; a replay on fresh inputs in the same arrays gives
 * the reference's results on every lane's matrices; one launch a lane a replay, in lane order;
 * every lane's capture scope is entered around the pipeline; a failure inside the recording frees
 * the graphs already made; dispose frees each lane's graph once; a context whose GPUs cannot
 * record says so before running anything. The fakes run the reference backend, so results are
 * compared with the reference context exactly (the fast CPU backend may differ in the last bits).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { referenceContext } from '../../src/api/context.js';
import { MultiDeviceContext } from '../../src/api/multi-context.js';
import { Random, randomSpd, randomMatrices } from '../../src/bench/data.js';
import { strided } from '../../src/core/batch.js';
import { MyriadError } from '../../src/core/errors.js';
import type { OpName } from '../../src/core/ops.js';
import { runMultiBench } from '../../src/bench/multi.js';
import { MultiDeviceBackend } from '../../src/cuda/multi/backend.js';
import type { Lane, LaneBackend } from '../../src/cuda/multi/lane.js';
import type { DeviceGraph } from '../../src/cuda/runtime/types.js';
import { FakeDevice, fakeBackend } from '../helpers/fake-gpus.js';

/** A fake GPU whose capture holds back its lane's calls (queued by `recordingBackend`) and replays them. */
class RecordingFakeDevice extends FakeDevice {
  queue: (() => void)[] | undefined;
  graphsMade = 0;
  graphsFreed = 0;
  failInside = false;
  capture(fn: () => void): DeviceGraph {
    const queue: (() => void)[] = [];
    this.queue = queue;
    try {
      fn();
      if (this.failInside) throw new MyriadError('CUDA', `GPU ${this.info.ordinal} failed to end its capture`);
    } finally {
      this.queue = undefined;
    }
    this.graphsMade++;
    let freed = false;
    return {
      launch: () => {
        this.log.push(`graph${this.info.ordinal}`);
        for (const call of queue) call();
      },
      dispose: () => {
        if (!freed) this.graphsFreed++;
        freed = true;
      },
    };
  }
}

/** The fakes' CPU-reference backend, whose calls are queued while its device records; scopes counted. */
function recordingBackend(dev: RecordingFakeDevice, scopes: string[]): LaneBackend {
  const base = fakeBackend(dev, []);
  const out: Record<string, unknown> = { name: 'fake' };
  for (const [key, value] of Object.entries(base)) {
    if (typeof value !== 'function') continue;
    const run = value as (r: unknown) => void;
    out[key] = (r: unknown): void => {
      if (dev.queue) dev.queue.push(() => run(r));
      else run(r);
    };
  }
  out['capturable'] = (op: OpName): boolean => op !== 'gesvd';
  out['captureScope'] = <T>(fn: () => T): T => {
    scopes.push(`in${dev.info.ordinal}`);
    try {
      return fn();
    } finally {
      scopes.push(`out${dev.info.ordinal}`);
    }
  };
  return out as unknown as LaneBackend;
}

function recordingRig(lanes: number): { ctx: MultiDeviceContext; devices: RecordingFakeDevice[]; log: string[]; scopes: string[] } {
  const log: string[] = [];
  const scopes: string[] = [];
  const devices = Array.from({ length: lanes }, (_, i) => new RecordingFakeDevice(i, log));
  const laneList: Lane[] = devices.map((device) => ({ device, backend: recordingBackend(device, scopes), hasKernel: () => true }));
  return { ctx: new MultiDeviceContext(new MultiDeviceBackend(laneList, 'fake')), devices, log, scopes };
}

describe('ctx.capture() over several (fake) GPUs', () => {
  const rng = new Random(77);

  it('records each lane\'s share once, replays it with one launch a lane in lane order, on fresh inputs', () => {
    const { ctx, devices, log, scopes } = recordingRig(3);
    const n = 5, count = 10;
    const first = randomSpd('float64', n, count, rng) as Float64Array;
    const a = ctx.scatter(first, { rows: n, count });
    const info = ctx.allocSharded('int32', count, { count });
    const call = (): void => { ctx.potrf({ a: strided(a, { rows: n, count }), uplo: 'lower', info }); };
    const captured = ctx.capture(call);
    // The first run factored A; the recording ran nothing more.
    const want = first.slice();
    referenceContext.potrf({ a: strided(want, { rows: n, count }), uplo: 'lower' });
    assert.deepEqual(ctx.gather(a), want);
    assert.deepEqual(devices.map((d) => d.graphsMade), [1, 1, 1]);
    // Every lane's scope around the first run and around the recording: nested, lane 0 outermost.
    assert.deepEqual(scopes, ['in0', 'in1', 'in2', 'out2', 'out1', 'out0']);
    // A replay on fresh inputs written into the same arrays.
    const fresh = randomSpd('float64', n, count, rng) as Float64Array;
    fresh.set(randomSpd('float64', n, 1, rng) as Float64Array, 0);
    for (let j = 0; j < n; j++) fresh[j + j * n] = -1; // matrix 0 not positive definite: its info says so
    const again = ctx.scatter(fresh, { rows: n, count });
    ctx.multi.copy(again, a);
    log.length = 0;
    captured.replay();
    assert.deepEqual(log.filter((x) => x.startsWith('graph')), ['graph0', 'graph1', 'graph2']);
    const wantFresh = fresh.slice();
    const wantInfo = new Int32Array(count);
    referenceContext.potrf({ a: strided(wantFresh, { rows: n, count }), uplo: 'lower', info: wantInfo });
    assert.deepEqual(ctx.gather(a), wantFresh);
    assert.deepEqual(ctx.gather(info), wantInfo);
    assert.ok(wantInfo[0]! > 0, 'the failing matrix is reported in its slot');
    captured.dispose();
    captured.dispose();
    assert.deepEqual(devices.map((d) => d.graphsFreed), [1, 1, 1]);
    assert.throws(() => captured.replay(), (e: unknown) => e instanceof MyriadError && e.code === 'DISPOSED');
  });

  it('a gemm on scattered operands replays like the call it recorded', () => {
    const { ctx } = recordingRig(2);
    const n = 4, count = 7;
    const [ha, hb] = [0, 1].map(() => randomMatrices('float64', n, n, count, rng) as Float64Array);
    const [a, b, c] = [ha!, hb!, new Float64Array(n * n * count)].map((h) => ctx.scatter(h, { rows: n, count }));
    const batch = (x: typeof a) => strided(x, { rows: n, count });
    const captured = ctx.capture(() => { ctx.gemm({ a: batch(a!), b: batch(b!), c: batch(c!), alpha: 2, beta: 1 }); });
    // C = 2 A B after the first run, 4 A B after one replay (beta 1 adds to C).
    captured.replay();
    const want = new Float64Array(n * n * count);
    referenceContext.gemm({ a: strided(ha!, { rows: n, count }), b: strided(hb!, { rows: n, count }), c: strided(want, { rows: n, count }), alpha: 4, beta: 0 });
    const got = ctx.gather(c!) as Float64Array;
    got.forEach((x, i) => assert.ok(Math.abs(x - want[i]!) <= 1e-12 * (1 + Math.abs(want[i]!)), `element ${i}`));
  });

  it('a failure inside the recording frees the graphs the inner lanes made, and nothing replays', () => {
    const { ctx, devices } = recordingRig(3);
    const n = 3, count = 6;
    const a = ctx.scatter(randomSpd('float64', n, count, rng) as Float64Array, { rows: n, count });
    devices[0]!.failInside = true; // the outermost capture fails after the inner two have ended
    assert.throws(() => ctx.capture(() => { ctx.potrf({ a: strided(a, { rows: n, count }), uplo: 'lower' }); }), /failed to end its capture/);
    assert.deepEqual(devices.map((d) => [d.graphsMade, d.graphsFreed]), [[0, 0], [1, 1], [1, 1]]);
  });

  it('the multi bench adds a captured row beside each resident one, timed on replays of the same work', () => {
    const rows = runMultiBench('all', { op: 'getrf', dtypes: ['float64'], sizes: [4], batch: 9, repeats: 3, linkBytes: 2 ** 16 },
      (set) => recordingRig(set === 'all' ? 2 : set.length).ctx);
    assert.deepEqual(rows.map((r) => [r.devices, r.mode]), [['0', 'resident'], ['0', 'captured'], ['0', 'host-start'], ['0,1', 'resident'], ['0,1', 'captured'], ['0,1', 'host-start'], ['0,1', 'host-auto']]);
    const [one, two] = [rows[1]!, rows[4]!];
    assert.ok([one, two].every((r) => r.batch === 9 && r.ms > 0 && r.gflops > 0 && r.op === 'getrf'));
    assert.ok(two.efficiency !== undefined && Math.abs(one.efficiency! - 100) < 1e-9, 'efficiency against the one-GPU captured row');
  });

  it('GPUs that cannot record: the capture is refused before anything runs; host arrays are refused as on one GPU', () => {
    const log: string[] = [];
    const plain = [0, 1].map((i) => new FakeDevice(i, log));
    const ctx = new MultiDeviceContext(new MultiDeviceBackend(plain.map((device) => ({ device, backend: fakeBackend(device, []), hasKernel: () => true })), 'fake'));
    let ran = false;
    assert.throws(() => ctx.capture(() => { ran = true; }), (e: unknown) => e instanceof MyriadError && e.code === 'UNSUPPORTED' && e.argument === 'capture');
    assert.equal(ran, false);
    const { ctx: rec } = recordingRig(2);
    const host = randomSpd('float64', 3, 4, rng) as Float64Array;
    assert.throws(() => rec.capture(() => { rec.potrf({ a: strided(host, { rows: 3, count: 4 }), uplo: 'lower' }); }),
      (e: unknown) => e instanceof MyriadError && e.code === 'INVALID_ARGUMENT' && /device data/.test(e.message));
  });
});
