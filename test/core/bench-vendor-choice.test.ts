/**
 * A bench row's vendor column where the vendor has several routines for the shape (syev, gesvd,
 * complex heev on a GPU): each prepared, timed and disposed in turn, the fastest kept and named,
 * the others' times and failures in the row's note; a vendor library's own failure never stops
 * the row, anything else does. A CPU context and a fake vendor whose runs give their own times.
 * And the routines each shape times, and the values-only syev row.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { open } from '../../src/api/open.js';
import { runBench, vendorCandidate, type VendorBaseline, type VendorChoice, type VendorRun } from '../../src/bench/run.js';
import { VendorError } from '../../src/cuda/runtime/errors.js';
import { DENSE_FROM, DENSE_LOOP_MAX, eigenVendorRoutines } from '../../src/bench/eigen-vendor.js';
import { Random } from '../../src/bench/data.js';
import { benchWorkload } from '../../src/bench/workloads.js';
import { counts } from '../../src/core/counts.js';

interface Candidate { routine: string; ms?: number; wrong?: string; fails?: Error }

/** A vendor whose every row is a choice of `candidates`; `live` counts the prepared runs not yet disposed. */
function fakeVendor(candidates: readonly Candidate[]): VendorBaseline & { live: number; prepared: string[] } {
  const vendor = {
    name: 'fake', live: 0, prepared: [] as string[],
    prepare: (): VendorChoice => ({
      candidates: candidates.map((c) => ({
        routine: c.routine,
        prepare: (): VendorRun => {
          if (c.fails) throw c.fails;
          vendor.prepared.push(c.routine);
          vendor.live++;
          return { run: () => {}, measuredMs: c.ms!, dispose: () => { vendor.live--; }, ...(c.wrong ? { check: () => c.wrong } : {}) };
        },
      })),
    }),
  };
  return vendor;
}

const row = (vendor: VendorBaseline) => runBench(open({ backend: 'cpu' }), { op: 'gemm', dtype: 'float64', sizes: [4], batch: 2, repeats: 1, vendor })[0]!;

test('the fastest routine of a choice is the row\'s vendor, named; the others\' times and failures in the note; each disposed', () => {
  const vendor = fakeVendor([
    { routine: 'slowBatched', ms: 3 },
    { routine: 'broken', fails: new VendorError('CUSOLVER_STATUS_INTERNAL_ERROR', 7, 'cusolverDnXbroken') },
    { routine: 'fastBatched', ms: 1.25, wrong: 'vendor values wrong' },
    { routine: 'denseLoop', ms: 2 },
  ]);
  const r = row(vendor);
  assert.equal(r.vendor, 'fake fastBatched');
  assert.equal(r.vendorMs, 1.25);
  assert.equal(r.speedup, 1.25 / r.ms);
  assert.equal(r.note, 'vendor values wrong; the vendor\'s other routines: slowBatched 3.000 ms, denseLoop 2.000 ms, '
    + 'broken failed (CUSOLVER_STATUS_INTERNAL_ERROR (7) from cusolverDnXbroken)');
  assert.deepEqual(vendor.prepared, ['slowBatched', 'fastBatched', 'denseLoop'], 'each prepared in turn');
  assert.equal(vendor.live, 0, 'each disposed');
});

test('a choice whose routines all fail: the failures in the vendor column, no vendor time; a choice of one: no note', () => {
  const fail = (routine: string) => ({ routine, fails: new VendorError('NOT_RUN', 0, routine) });
  const r = row(fakeVendor([fail('aBatched'), fail('bBatched')]));
  assert.equal(r.vendor, 'fake: aBatched failed (NOT_RUN (0) from aBatched); bBatched failed (NOT_RUN (0) from bBatched)');
  assert.equal(r.vendorMs, undefined);
  assert.equal(r.speedup, undefined);
  const one = row(fakeVendor([{ routine: 'onlyBatched', ms: 0.5 }]));
  assert.equal(one.vendor, 'fake onlyBatched');
  assert.equal(one.vendorMs, 0.5);
  assert.equal(one.note, undefined);
});

test('an error that is not the vendor library\'s own stops the row', () => {
  assert.throws(() => row(fakeVendor([{ routine: 'aBatched', ms: 1 }, { routine: 'bug', fails: new TypeError('a bug') }])), /a bug/);
});

test('syev and gesvd rows on a GPU: every vendor routine for the shape, the dense stream for small batches from 33 and alone above 512', () => {
  assert.deepEqual(eigenVendorRoutines('syev', 8, 100_000, true), ['syevjBatched', 'XsyevBatched']);
  assert.deepEqual(eigenVendorRoutines('syev', 32, 10_000, false), ['syevjBatched'], 'no XsyevBatched in this cuSOLVER');
  assert.deepEqual(eigenVendorRoutines('syev', 33, DENSE_LOOP_MAX, true), ['XsyevBatched', 'syevd']);
  assert.deepEqual(eigenVendorRoutines('syev', 64, DENSE_LOOP_MAX + 1, true), ['XsyevBatched'], 'too many matrices for the dense stream');
  assert.deepEqual(eigenVendorRoutines('syev', DENSE_FROM - 1, 20, true), ['XsyevBatched', 'syevd']);
  assert.deepEqual(eigenVendorRoutines('syev', DENSE_FROM, 100_000, true), ['syevd']);
  assert.deepEqual(eigenVendorRoutines('gesvd', 32, 10_000, false), ['gesvdjBatched', 'gesvdaStridedBatched']);
  assert.deepEqual(eigenVendorRoutines('gesvd', 128, 500, false), ['gesvdaStridedBatched', 'gesvd']);
  assert.deepEqual(eigenVendorRoutines('gesvd', 128, 5000, false), ['gesvdaStridedBatched']);
  assert.deepEqual(eigenVendorRoutines('gesvd', 2048, 1, true), ['gesvd']);
});

test('syev-values: eigenvalues only, A left as it was, the values syev\'s (the CPU rows), counted without the vectors\' flops', () => {
  const ctx = open({ backend: 'cpu' });
  const [values, vectors] = (['syev-values', 'syev'] as const).map((op) => runBench(ctx, { op, dtype: 'float64', sizes: [6], batch: 3, repeats: 1 })[0]!);
  assert.ok(values!.gflops > 0 && vectors!.gflops > 0);
  const cost = benchWorkload('syev-values', 'float64').cost(6);
  assert.deepEqual(cost, counts.syev('float64', 6, false));
  assert.ok(cost.flops < benchWorkload('syev', 'float64').cost(6).flops);
  const prepared = benchWorkload('syev-values', 'float64').prepare(ctx, 6, 3, new Random(3));
  const before = Float64Array.from(prepared.arrays.a as Float64Array);
  prepared.run();
  assert.deepEqual(prepared.arrays.a, before, 'A untouched by the values-only call');
  const w = Float64Array.from(prepared.arrays.w as Float64Array);
  const withVectors = benchWorkload('syev', 'float64').prepare(ctx, 6, 3, new Random(3));
  withVectors.run();
  for (let i = 0; i < w.length; i++) assert.ok(Math.abs(w[i]! - (withVectors.arrays.w as Float64Array)[i]!) <= 1e-12 * Math.max(1, Math.abs(w[i]!)), `w[${i}]`);
  prepared.dispose();
  withVectors.dispose();
});

test('vendorCandidate: the info array and the call made when prepared, both freed by dispose; the info freed where making the call throws', () => {
  const freed: string[] = [];
  const info = () => ({ dispose: () => { freed.push('info'); } });
  const c = vendorCandidate('xBatched', info, () => ({ run: () => {}, dispose: () => { freed.push('call'); } }), () => 'checked');
  assert.equal(c.routine, 'xBatched');
  assert.deepEqual(freed, [], 'nothing made before prepare');
  const run = c.prepare();
  assert.equal(run.check?.(), 'checked');
  run.dispose();
  assert.deepEqual(freed, ['call', 'info']);
  freed.length = 0;
  const failing = vendorCandidate('yBatched', info, () => { throw new VendorError('CUSOLVER_STATUS_ALLOC_FAILED', 2, 'yBatched_bufferSize'); });
  assert.throws(() => failing.prepare(), /ALLOC_FAILED/);
  assert.deepEqual(freed, ['info'], 'the info array freed where the call could not be made');
  assert.equal(vendorCandidate('z', info, () => ({ run: () => {}, dispose: () => {} })).prepare().check, undefined, 'no check where none is given');
});
