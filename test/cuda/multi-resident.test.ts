/**
 * Device-resident calls over several (fake) GPUs through the one-pass path (multi/resident.ts):
 * no staging, each lane's request on its shards, info placed next to its matrices, misplaced data
 * refused before any GPU has work, and requests the path leaves to the general one.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { referenceContext } from '../../src/api/context.js';
import { Random, randomSpd } from '../../src/bench/data.js';
import { list, strided } from '../../src/core/batch.js';
import { MyriadError } from '../../src/core/errors.js';
import { StagingArena } from '../../src/cuda/host/staging.js';
import { isResidentStrided, residentRequests } from '../../src/cuda/multi/resident.js';
import { ShardedArray } from '../../src/cuda/multi/sharded.js';
import { rig } from '../helpers/fake-gpus.js';

const rng = new Random(5);

describe('device-resident calls in one pass', () => {
  it('potrf over scattered matrices: launches on both GPUs, no staging, no wait; info placed and in order', () => {
    const { ctx, devices, log, counts } = rig(2);
    const n = 4, count = 9;
    const host = randomSpd('float64', n, count, rng) as Float64Array;
    host[3 * n * n + (n - 1) * (n + 1)] = -1; // matrix 3 fails
    host[8 * n * n] = -1; // matrix 8 fails at its first minor
    const a = ctx.scatter(host, { rows: n, count });
    log.length = 0;
    const { info } = ctx.potrf({ a: strided(a, { rows: n, count }), uplo: 'lower' });
    assert.deepEqual(log, ['launch0', 'launch1'], 'one launch per GPU, no copy, no wait');
    assert.deepEqual(counts, [[5], [4]]);
    assert.ok(devices.every((d) => StagingArena.of(d).buffer === undefined), 'no staging arena');
    const want = host.slice();
    const ref = referenceContext.potrf({ a: strided(want, { rows: n, count }), uplo: 'lower' });
    assert.deepEqual([...ctx.gather(info as ShardedArray)], [...ref.info]);
    assert.deepEqual(ctx.gather(a), want);
    assert.deepEqual((info as ShardedArray).shards.map((s) => [s.ordinal, s.start, s.end]), [[0, 0, 5], [1, 5, 9]]);
  });

  it('info placed for other parts is refused before any GPU has work', () => {
    const { ctx, log } = rig(2);
    const n = 2, count = 6;
    const a = ctx.scatter(randomSpd('float64', n, count, rng), { rows: n, count });
    const info = ctx.scatter(new Int32Array(count), { count }, [1, 2]); // 2 / 4 where the matrices are 3 / 3
    log.length = 0;
    assert.throws(() => ctx.potrf({ a: strided(a, { rows: n, count }), info }), (e: unknown) => e instanceof MyriadError && e.code === 'LAYOUT' && e.argument === 'info');
    assert.deepEqual(log, []);
  });

  it('host arrays, host ints and list batches are left to the general path', () => {
    const dev = { kind: 'device', device: 0, dtype: 'float64', length: 64 } as const;
    const devInts = { kind: 'device', device: 0, dtype: 'int32', length: 4 } as const;
    assert.equal(isResidentStrided({ a: strided(dev as never, { rows: 2, count: 4 }), info: devInts }), true);
    assert.equal(isResidentStrided({ a: strided(dev as never, { rows: 2, count: 4 }), info: new Int32Array(4) }), false);
    assert.equal(isResidentStrided({ a: strided(new Float64Array(16), { rows: 2, count: 4 }) }), false);
    assert.equal(isResidentStrided({ a: list([dev as never], { rows: 2 }) }), false);
    assert.equal(residentRequests({ a: strided(new Float64Array(16), { rows: 2, count: 4 }) }, [{ lane: 0, start: 0, end: 4 }], []), undefined);
  });
});
