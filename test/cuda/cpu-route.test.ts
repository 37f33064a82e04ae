/**
 * A CUDA context's CPU route (an operation or size no GPU design takes, here forced) runs the fast
 * CPU backend with copies of device data: real syev with vectors equals the fast CPU context's bit
 * for bit (its tridiagonal route, not the reference's Jacobi), for device-resident and host
 * batches, with a NaN member flagged as there; ctx.lastRoute says 'cpu'.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Context, newCpuContext, newReferenceContext } from '../../src/api/context.js';
import { strided } from '../../src/core/batch.js';
import type { Backend } from '../../src/core/ops.js';
import type { DeviceStorage, IntStorage, Storage } from '../../src/core/storage.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { FakeDevice } from '../helpers/fake-gpus.js';

const n = 24, count = 5;

/** count symmetric n x n matrices (seeded), the third with a NaN. */
function matrices(): Float64Array {
  let seed = 7;
  const next = (): number => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed / 2 ** 31 - 0.5; };
  const a = new Float64Array(n * n * count);
  for (let q = 0; q < count; q++) {
    for (let j = 0; j < n; j++) for (let i = j; i < n; i++) { const v = next(); a[q * n * n + i + j * n] = v; a[q * n * n + j + i * n] = v; }
  }
  a[2 * n * n + 5] = Number.NaN;
  return a;
}

function syev(ctx: Context, a: Storage, w: Storage): Int32Array | DeviceStorage {
  return ctx.syev({ jobz: 'vectors', a: strided(a, { rows: n, count }), w: strided(w, { rows: n, cols: 1, count }) }).info as Int32Array;
}

describe("a CUDA context's CPU route (fake device)", () => {
  it('real syev runs the fast CPU backend: bit for bit its results, device and host batches', () => {
    const A = matrices();
    const [wantA, wantW] = [A.slice(), new Float64Array(n * count)];
    const cpu = newCpuContext();
    const wantInfo = [...(syev(cpu, wantA, wantW) as Int32Array)];
    cpu.dispose();
    assert.deepEqual(wantInfo.map((v) => v !== 0), [false, false, true, false, false], 'the NaN member alone is flagged');
    // Not the reference's Jacobi: its vectors differ in the last bits (the test could not tell the two apart otherwise).
    const [refA, refW] = [A.slice(), new Float64Array(n * count)];
    const ref = newReferenceContext();
    syev(ref, refA, refW);
    ref.dispose();
    assert.notDeepEqual([...refA], [...wantA]);

    const backend = new CudaBackend(new FakeDevice(0, []), 'fake');
    backend.force = { syev: 'cpu' };
    const ctx = new Context('cuda', backend as unknown as Backend<Storage, IntStorage>, backend);
    try {
      const [dA, dW] = [ctx.upload(A), ctx.upload(new Float64Array(n * count))];
      const info = syev(ctx, dA, dW);
      assert.deepEqual(ctx.lastRoute, { op: 'syev', route: 'cpu', gpu: false });
      assert.deepEqual([...ctx.download(dA)], [...wantA]);
      assert.deepEqual([...ctx.download(dW)], [...wantW]);
      assert.deepEqual([...ctx.download(info as DeviceStorage)], wantInfo);
      const [hA, hW] = [A.slice(), new Float64Array(n * count)];
      const hostInfo = syev(ctx, hA, hW);
      assert.deepEqual([...hA], [...wantA]);
      assert.deepEqual([...hW], [...wantW]);
      assert.deepEqual([...(hostInfo as Int32Array)], wantInfo);
    } finally {
      ctx.dispose();
    }
  });
});
