/**
 * gels with m or n = 0 (min(m, n) = 0): as LAPACK's dgels, B (max(m, n) x nrhs) is set to zero
 * and info is 0; A (empty) and everything outside the matrices stay as they were. The same on
 * every context and wherever the data lives: the CPU contexts (fast and reference), fake GPUs
 * through the multi-device context, and the single-device CUDA backend over a fake GPU, whose
 * requests with a device info reach the backend's CPU fallback (gelsCovers sends empty systems
 * there), while host calls used to stop at the context's "writes nothing" shortcut, which looked
 * at A alone and left B untouched (the GPU contract test's counterexample: m = 1, n = 0, nrhs = 1).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Context, cpuContext, referenceContext } from '../../src/api/context.js';
import { strided } from '../../src/core/batch.js';
import type { Backend } from '../../src/core/ops.js';
import type { DeviceStorage, IntStorage, Storage } from '../../src/core/storage.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { FakeDevice, rig } from '../helpers/fake-gpus.js';

/** m x n A, nrhs right-hand sides; B is max(m, n) x nrhs. */
const SHAPES: readonly (readonly [number, number, number])[] = [
  [1, 0, 1], [0, 1, 1], [2, 0, 2], [0, 3, 2], [5, 0, 1], [0, 4, 3], [1, 0, 0], [0, 2, 0], [0, 0, 1],
];
const COUNT = 2;
const POISON = -9;

/** A CUDA context on one fake GPU: the single-device backend (registry, covers, CPU fallback). */
function fakeCudaContext(): Context {
  const backend = new CudaBackend(new FakeDevice(0, []), 'fake');
  return new Context('cuda', backend as unknown as Backend<Storage, IntStorage>, backend);
}

interface Case { a: Float64Array; b: Float64Array; rowsB: number; ldb: number; strideB: number }

/** A (empty, a few poisoned elements around it) and B (non-zero, with padding rows and a gap between matrices). */
function makeCase(m: number, n: number, nrhs: number): Case {
  const rowsB = Math.max(m, n);
  const ldb = rowsB + 2;
  const strideB = ldb * nrhs + 3;
  const b = Float64Array.from({ length: strideB * COUNT + 1 }, (_, i) => 1 + i / 7);
  return { a: new Float64Array(m === 0 ? 0 : 3).fill(POISON), b, rowsB, ldb, strideB };
}

/** B after the call: every element of every matrix zero, the rest as before. */
function expectedB(c: Case, nrhs: number): Float64Array {
  const want = c.b.slice();
  for (let k = 0; k < COUNT; k++) for (let j = 0; j < nrhs; j++) for (let i = 0; i < c.rowsB; i++) want[k * c.strideB + j * c.ldb + i] = 0;
  return want;
}

function batches<S extends Storage>(m: number, n: number, nrhs: number, c: Case, a: S, b: S) {
  return {
    a: strided(a, { rows: m, cols: n, ld: Math.max(1, m), stride: 0, count: COUNT }, 'a'),
    b: strided(b, { rows: c.rowsB, cols: nrhs, ld: c.ldb, stride: c.strideB, count: COUNT }, 'b'),
  };
}

const HOST_CONTEXTS: readonly (readonly [string, () => Context])[] = [
  ['the CPU context', () => cpuContext],
  ['the reference context', () => referenceContext],
  ['one fake GPU (multi-device context)', () => rig(1).ctx],
  ['two fake GPUs (multi-device context)', () => rig(2).ctx],
  ['the CUDA backend on a fake GPU', fakeCudaContext],
];
const DEVICE_CONTEXTS: readonly (readonly [string, () => Context])[] = [
  ['one fake GPU (multi-device context)', () => rig(1).ctx],
  ['the CUDA backend on a fake GPU', fakeCudaContext],
];

describe('gels with m or n = 0 sets B to zero and info to 0 (LAPACK dgels), host and device data alike', () => {
  for (const [name, make] of HOST_CONTEXTS) {
    it(`${name}: host batches`, () => {
      const ctx = make();
      for (const [m, n, nrhs] of SHAPES) {
        const c = makeCase(m, n, nrhs);
        const want = expectedB(c, nrhs);
        const a0 = c.a.slice();
        const info = new Int32Array(COUNT + 1).fill(POISON);
        const r = ctx.gels({ ...batches(m, n, nrhs, c, c.a, c.b), info });
        const label = `m = ${m}, n = ${n}, nrhs = ${nrhs}`;
        assert.deepEqual([...c.b], [...want], `B, ${label}`);
        assert.deepEqual([...c.a], [...a0], `A, ${label}`);
        assert.deepEqual([...info], [0, 0, POISON], `info, ${label}`);
        assert.equal(r.info, info, `the info given is the info returned, ${label}`);
      }
    });
  }
  for (const [name, make] of DEVICE_CONTEXTS) {
    it(`${name}: device-resident batches (upload, run, download)`, () => {
      const ctx = make();
      for (const [m, n, nrhs] of SHAPES) {
        const c = makeCase(m, n, nrhs);
        const want = expectedB(c, nrhs);
        const [da, db] = [ctx.upload(c.a), ctx.upload(c.b)];
        const dinfo = ctx.upload(new Int32Array(COUNT + 1).fill(POISON));
        ctx.gels({ ...batches(m, n, nrhs, c, da, db), info: dinfo });
        const label = `m = ${m}, n = ${n}, nrhs = ${nrhs}`;
        assert.deepEqual([...ctx.download(db)], [...want], `B, ${label}`);
        assert.deepEqual([...ctx.download(da)], [...c.a], `A, ${label}`);
        assert.deepEqual([...ctx.download(dinfo)], [0, 0, POISON], `info, ${label}`);
        for (const d of [da, db, dinfo]) (d as DeviceStorage & { dispose?: () => void }).dispose?.();
      }
    });
  }
});
