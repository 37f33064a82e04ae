/**
 * The duplex host pipeline (host/staging.ts) on simulated streams (helpers/stream-sim.ts): every
 * copy and kernel runs when the host waits, in a random order that keeps each stream's order and
 * the recorded waits, with host copies reading and writing the caller's arrays when they run.
 * Each call is run under many schedules and compared with the CPU reference; a device whose
 * downloads do not wait for the kernels (a negative control) must fail on some schedule.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { strided } from '../../src/core/batch.js';
import type { OpName } from '../../src/core/ops.js';
import { cpuBackend } from '../../src/cpu/backend.js';
import { Random, randomGeneral, randomMatrices, randomSpd } from '../../src/bench/data.js';
import { HostCall, type HostOutputs } from '../../src/cuda/host/staging.js';
import { MultiDeviceBackend } from '../../src/cuda/multi/backend.js';
import { MultiDeviceContext } from '../../src/api/multi-context.js';
import type { Lane } from '../../src/cuda/multi/lane.js';
import { queuedBackend, StreamSimDevice } from '../helpers/stream-sim.js';

const tiny = { chunkBytes: 256, maxChunks: 16 };
const SCHEDULES = 24;

/** A call's arrays (fresh each time) and its request over them. */
interface Case {
  readonly op: OpName;
  arrays(): (Float64Array | Int32Array)[];
  request(xs: (Float64Array | Int32Array)[]): Record<string, unknown>;
}

const data = new Random(11);
const spd = randomSpd('float64', 3, 12, data) as Float64Array;
for (const i of [0, 5, 11]) spd[i * 9 + 8] = -1; // not positive definite: info > 0
const gapped = new Float64Array(2 + 12 * 14 + 5).map(() => data.next());
for (let i = 0; i < 12; i++) gapped.set(spd.subarray(i * 9, (i + 1) * 9), 2 + i * 14);
const gen = randomGeneral('float64', 4, 10, data) as Float64Array;
gen.fill(0, 3 * 16, 3 * 16 + 4); // a singular matrix
const rhs = randomMatrices('float64', 4, 2, 10, data) as Float64Array;
const [ga, gb, gc] = [randomMatrices('float64', 3, 3, 9, data), randomMatrices('float64', 3, 3, 1, data), randomMatrices('float64', 3, 3, 9, data)] as Float64Array[];

const CASES: Case[] = [
  {
    op: 'potrf',
    arrays: () => [gapped.slice(), new Int32Array(14).fill(-7)],
    request: ([a, info]) => ({ uplo: 'lower', a: strided(a as Float64Array, { rows: 3, count: 12, stride: 14, offset: 2 }), info }),
  },
  {
    op: 'gesv',
    arrays: () => [gen.slice(), rhs.slice(), new Int32Array(40), new Int32Array(10)],
    request: ([a, b, ipiv, info]) => ({ a: strided(a as Float64Array, { rows: 4, count: 10 }), b: strided(b as Float64Array, { rows: 4, cols: 2, count: 10 }), ipiv, info, pivotStride: 4 }),
  },
  {
    op: 'gemm',
    arrays: () => [ga!.slice(), gb!.slice(), gc!.slice()],
    request: ([a, b, c]) => ({ transA: 'N', transB: 'T', alpha: 1.5, beta: 0.5, a: strided(a as Float64Array, { rows: 3, count: 9 }), b: strided(b as Float64Array, { rows: 3, count: 9, stride: 0 }), c: strided(c as Float64Array, { rows: 3, count: 9 }) }),
  },
];

function reference(c: Case): (Float64Array | Int32Array)[] {
  const xs = c.arrays();
  (cpuBackend[c.op] as unknown as (r: unknown) => void)(c.request(xs));
  return xs;
}

/** Runs `c` through one HostCall on a simulated device; returns the arrays and the device. */
function staged(c: Case, seed: number, outputs: HostOutputs, unordered = false): { xs: (Float64Array | Int32Array)[]; dev: StreamSimDevice } {
  const dev = new StreamSimDevice(0, [], new Random(seed));
  dev.unorderedDownloads = unordered;
  const backend = queuedBackend(dev);
  const xs = c.arrays();
  const call = new HostCall(dev, c.op, c.request(xs), (r) => (backend[c.op] as unknown as (x: unknown) => void)(r), { tuning: tiny, duplex: outputs === 'duplex' });
  try {
    call.enqueueRuns();
    call.enqueueDownloads();
    dev.synchronize();
  } finally {
    call.dispose();
  }
  assert.ok(dev.quiet, 'nothing left on any stream after the wait');
  return { xs, dev };
}

describe('duplex host pipeline on simulated streams', () => {
  for (const c of CASES) {
    it(`${c.op}: every schedule gives the reference's results; each chunk's outputs go down behind its kernels`, () => {
      const want = reference(c);
      for (let seed = 1; seed <= SCHEDULES; seed++) {
        const { xs, dev } = staged(c, seed, 'duplex');
        assert.deepEqual(xs, want, `schedule ${seed}`);
        const order = dev.enqueueOrder;
        const launches = order.filter((o) => o === 'main:launch').length;
        assert.ok(launches > 1, `several chunks (${launches})`);
        // Chunk 0's downloads are enqueued before chunk 1's kernels: they may overlap them.
        assert.ok(order.indexOf('download:down') < order.lastIndexOf('main:launch'), order.join(' '));
        assert.ok(!order.includes('main:down'), 'every output was page-locked: none waits for the end');
        // The wait joins the download stream: the last main-stream op waits for every download.
        assert.equal(order.at(-1), 'main:wait-downloads');
      }
    });
  }

  it("'after-all': the same results, every output copied after the last kernel", () => {
    for (const c of CASES) {
      const want = reference(c);
      for (let seed = 1; seed <= 6; seed++) {
        const { xs, dev } = staged(c, seed, 'after-all');
        assert.deepEqual(xs, want);
        const ran = dev.executed;
        assert.ok(!ran.some((o) => o.startsWith('download:')));
        assert.ok(ran.indexOf('main:down') > ran.lastIndexOf('main:launch'));
      }
    }
  });

  it('negative control: downloads that do not wait for the kernels give wrong results on some schedule', () => {
    const c = CASES[0]!;
    const want = reference(c);
    let wrong = 0;
    for (let seed = 1; seed <= SCHEDULES; seed++) {
      const { xs } = staged(c, seed, 'duplex', true);
      try { assert.deepEqual(xs, want); } catch { wrong++; }
    }
    assert.ok(wrong > 0, 'the simulated schedules expose a download that overtakes its kernels');
  });
});

describe('a duplex call whose later chunk fails to enqueue', () => {
  it("waits for the earlier chunks' downloads before the error leaves enqueueRuns (they write the caller's arrays and read the arena it disposes)", () => {
    const c = CASES[0]!;
    const dev = new StreamSimDevice(0, [], new Random(3));
    const backend = queuedBackend(dev);
    let runs = 0;
    const call = new HostCall(dev, c.op, c.request(c.arrays()), (r) => {
      if (++runs === 2) throw new Error('chunk 2 failed to enqueue');
      (backend[c.op] as unknown as (x: unknown) => void)(r);
    }, { tuning: tiny, duplex: true });
    try {
      assert.throws(() => call.enqueueRuns(), /chunk 2 failed to enqueue/);
      assert.ok(dev.enqueueOrder.includes('download:down'), "chunk 1's outputs went down behind its kernels");
      assert.ok(dev.quiet, 'nothing left on any stream when the error leaves');
    } finally {
      call.dispose();
    }
  });
});

describe('duplex host calls over several simulated GPUs', () => {
  function context(seed: number, outputs: HostOutputs): { ctx: MultiDeviceContext; devs: StreamSimDevice[] } {
    const rng = new Random(seed);
    const devs = [0, 1].map((i) => new StreamSimDevice(i, [], rng));
    const lanes: Lane[] = devs.map((device) => ({ device, backend: queuedBackend(device), hasKernel: () => true }));
    const multi = new MultiDeviceBackend(lanes, 'sim', { spread: 'all' });
    multi.hostOutputs = outputs;
    multi.stagingTuning = tiny;
    return { ctx: new MultiDeviceContext(multi), devs };
  }

  for (const outputs of ['duplex', 'after-all'] as const) {
    it(`${outputs}: potrf, gesv and gemm on host arrays give the reference's results on every schedule`, () => {
      for (const c of CASES) {
        const want = reference(c);
        for (let seed = 1; seed <= 12; seed++) {
          const { ctx, devs } = context(seed, outputs);
          const xs = c.arrays();
          const { pivotStride: _, ...args } = c.request(xs); // the public API derives it
          (ctx[c.op as 'potrf'] as unknown as (r: unknown) => void)(args);
          assert.deepEqual(xs, want, `${c.op}, schedule ${seed}`);
          assert.ok(devs.every((d) => d.quiet));
          const behind = devs.flatMap((d) => d.enqueueOrder).filter((o) => o === 'download:down').length;
          assert.ok(outputs === 'duplex' ? behind > 0 : behind === 0, `${behind} downloads behind kernels`);
        }
      }
    });
  }
});
