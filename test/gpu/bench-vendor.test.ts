/**
 * The bench's vendor column on a GPU where it chooses among the vendor's routines (syev, syev-values,
 * gesvd, complex heev): every routine for the shape timed on the row's data, the fastest named in
 * the column, the others' times (or failures) in the note, every info array and workspace freed (the
 * device's live allocations as before the row). Small batches: a check of the choice, not a benchmark.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import '../../src/bench/cuda.js';
import { benchExtras } from '../../src/bench/extras.js';
import { eigenVendorRoutines } from '../../src/bench/eigen-vendor.js';
import { runBench, type BenchRow } from '../../src/bench/run.js';
import { cusolverHasSyevBatched } from '../../src/cuda/baselines/cusolver.js';
import { gpu, gpuContext, gpuSkipReason } from '../helpers/gpu.js';

const skip = gpuSkipReason();

describe('the bench\'s vendor choice on a GPU', { skip }, () => {
  it('syev (vectors and values only) and gesvd: the fastest routine named, the others in the note, nothing left allocated', () => {
    const { ctx } = gpuContext();
    const dev = gpu();
    const vendor = benchExtras.vendor(ctx);
    assert.ok(vendor, 'a vendor baseline on a CUDA context');
    for (const [op, n, batch] of [['syev', 8, 200], ['syev-values', 40, 30], ['gesvd', 16, 50], ['gesvd', 48, 10]] as const) {
      const row = (): BenchRow => runBench(ctx, { op, dtype: 'float64', sizes: [n], batch, repeats: 1, vendor })[0]!;
      row();   // the first: the own call's workspace grows once and stays
      const live = dev.context.liveAllocations;
      const r = row();
      const routines = eigenVendorRoutines(op === 'gesvd' ? 'gesvd' : 'syev', n, batch, op !== 'gesvd' && cusolverHasSyevBatched());
      const what = `${op} ${n} x ${batch}: ${r.vendor} (${r.note ?? 'no note'})`;
      const kept = routines.find((x) => r.vendor === `${vendor.name} ${x}`);
      assert.ok(kept !== undefined, `${what}: one of ${routines.join(', ')} kept`);
      assert.ok(r.vendorMs! > 0, what);
      const others = routines.filter((x) => x !== kept);
      for (const x of others) assert.match(r.note ?? '', new RegExp(`${x} (\\d+\\.\\d{3} ms|failed)`), `${what}: ${x} in the note`);
      if (others.length === 0) assert.equal(r.note, undefined, what);
      // Every routine's info array and workspace freed after its timing.
      assert.equal(dev.context.liveAllocations, live, `${what}: device arrays left allocated`);
    }
  });
});
