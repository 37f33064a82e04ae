/**
 * gemm's device form where its class kernels loop (each block many members: tens of thousands of
 * members a class, more than the grid the GPU holds at once) and where calls follow each other
 * with no wait between (their tables the same workspace bytes, reused in stream order): two
 * device-form calls of different batches enqueued back to back, then each compared bit for bit
 * with the host form (route 'vbatched') on the same members; float64 (classes above 32 on the
 * tensor cores, the table's class tiles) and float32, beta 0 (C poisoned with NaN) and not. Every
 * element outside the members is checked unchanged. Skips with one line where no GPU is usable.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { variable, type MatrixView, type VariableBatch } from '../../src/core/batch.js';
import { variableDevice, type DeviceVariableBatch } from '../../src/core/device-batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import type { DeviceStorage } from '../../src/core/storage.js';
import type { Context } from '../../src/api/context.js';
import { gpuContext, gpuSkipReason, warmFileKernels } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';

const skip = gpuSkipReason();
const SENTINEL = 12345.5;
const same = (x: number, y: number): boolean => x === y || (Number.isNaN(x) && Number.isNaN(y));

interface Members { readonly sizes: number[]; readonly offsets: number[]; readonly length: number; readonly inside: Uint8Array }

/** `count` square members of sizes 0..max (log-uniform from 1, a few 0), ld = n + 0..1, gaps of 1..2. */
function members(rng: Rng, count: number, max: number): Members {
  const sizes = Array.from({ length: count }, () => (rng.next() < 0.02 ? 0 : Math.min(max, Math.floor(Math.exp(rng.next() * Math.log(max + 1))))));
  const offsets: number[] = [];
  let at = 1;
  for (const n of sizes) { offsets.push(at); at += n * n + rng.int(1, 2); }
  const inside = new Uint8Array(at + 1);
  sizes.forEach((n, q) => inside.fill(1, offsets[q]!, offsets[q]! + n * n));
  return { sizes, offsets, length: at + 1, inside };
}

function fill(dtype: DType, m: Members, value: () => number): FloatArray {
  const h = allocate(dtype, m.length);
  for (let e = 0; e < m.length; e++) h[e] = m.inside[e] === 1 ? value() : SENTINEL;
  return h;
}

const hostBatch = (data: DeviceStorage, m: Members): VariableBatch<DeviceStorage> =>
  variable(m.sizes.map((n, q): MatrixView<DeviceStorage> => ({ data, rows: n, cols: n, ld: Math.max(1, n), offset: m.offsets[q]! })));

function deviceBatch(ctx: Context, data: DeviceStorage, m: Members, dtype: DType): DeviceVariableBatch {
  const ints = (f: (n: number) => number): DeviceStorage => ctx.upload(Int32Array.from(m.sizes, f)) as DeviceStorage;
  return variableDevice({
    count: m.sizes.length, rows: ints((n) => n), ld: ints((n) => Math.max(1, n)),
    pointers: ctx.upload(BigInt64Array.from(m.offsets, (o) => ctx.deviceAddress(data, o))) as DeviceStorage,
    maxRows: m.sizes.reduce((x, n) => Math.max(x, n), 0), dtype,
  });
}

const CASES = [['float64', 0.5], ['float64', 0], ['float32', 1]] as const;
const ALPHA = -0.75;

/** A case's two batches: 60,000 members of 0-64 (workload a's sizes) and 9,000 of 0-130. */
const batchesOf = (dtype: DType, beta: number): Members[] => {
  const rng = new Rng(dtype === 'float64' ? 31 + 2 * beta : 37);
  return [members(rng, 60_000, 64), members(rng, 9_000, 130)];
};

// Every kernel compiled (optimised builds) before the first case, so both forms run the binaries they keep.
before(() => warmFileKernels('vdevice-loop', (ctx) => {
  for (const [dtype, beta] of CASES) for (const m of batchesOf(dtype, beta)) {
    const [a, b, c] = [0, 1, 2].map(() => ctx.alloc(dtype, m.length) as DeviceStorage);
    ctx.gemm({ alpha: ALPHA, beta, a: hostBatch(a!, m), b: hostBatch(b!, m), c: hostBatch(c!, m) });
    ctx.gemm({ alpha: ALPHA, beta, info: ctx.alloc('int32', m.sizes.length), a: deviceBatch(ctx, a!, m, dtype), b: deviceBatch(ctx, b!, m, dtype), c: deviceBatch(ctx, c!, m, dtype) });
  }
}));

for (const [dtype, beta] of CASES) {
  test(`gemm ${dtype} beta ${beta}: two device-form calls back to back (looping class kernels, reused tables) equal the host form bit for bit`, { skip, timeout: 600_000 }, async () => {
    const { ctx } = gpuContext();
    const batches = batchesOf(dtype, beta);
    const rng = new Rng(41);
    const data = batches.map((m) => ({
      a: fill(dtype, m, () => rng.uniform()), b: fill(dtype, m, () => rng.uniform()), c: fill(dtype, m, () => (beta === 0 ? NaN : rng.uniform())),
    }));
    const alpha = ALPHA;
    // The host form, one batch after the other.
    const want = data.map((h, i) => {
      const m = batches[i]!;
      const a = ctx.upload(h.a) as DeviceStorage, b = ctx.upload(h.b) as DeviceStorage, c = ctx.upload(h.c) as DeviceStorage;
      ctx.gemm({ alpha, beta, a: hostBatch(a, m), b: hostBatch(b, m), c: hostBatch(c, m) });
      assert.equal(ctx.lastRoute?.route, 'vbatched');
      return ctx.download(c) as FloatArray;
    });
    // The device form: both calls enqueued before anything is read back.
    const outs = data.map((h, i) => {
      const m = batches[i]!;
      const a = ctx.upload(h.a) as DeviceStorage, b = ctx.upload(h.b) as DeviceStorage, c = ctx.upload(h.c) as DeviceStorage;
      const info = ctx.upload(new Int32Array(m.sizes.length).fill(99)) as DeviceStorage;
      return { m, a, b, c, info };
    });
    for (const o of outs) {
      ctx.gemm({ alpha, beta, info: o.info, a: deviceBatch(ctx, o.a, o.m, dtype), b: deviceBatch(ctx, o.b, o.m, dtype), c: deviceBatch(ctx, o.c, o.m, dtype) });
      assert.equal(ctx.lastRoute?.route, 'vdevice');
    }
    outs.forEach((o, i) => {
      const got = ctx.download(o.c) as FloatArray;
      const codes = ctx.download(o.info) as Int32Array;
      assert.ok(codes.every((x) => x === 0), `batch ${i}: info`);
      const h = data[i]!.c;
      for (let e = 0; e < o.m.length; e++) {
        if (o.m.inside[e] === 0) { if (!Object.is(got[e], h[e])) assert.fail(`batch ${i}: element ${e} outside the members changed`); continue; }
        if (!same(got[e]!, want[i]![e]!)) assert.fail(`batch ${i}: element ${e}: ${got[e]} by device sizes, ${want[i]![e]} by host sizes`);
      }
    });
    await ctx.synchronize();
  });
}
