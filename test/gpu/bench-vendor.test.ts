/**
 * The bench's vendor column on a GPU where it chooses among the vendor's routines (syev, syev-values,
 * gesvd, complex heev): every routine for the shape timed on the row's data, the fastest named in
 * the column, the others' times (or failures) in the note, every workspace freed (the device's
 * free memory back where it was). Small batches: a check of the choice, not a benchmark.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import '../../src/bench/cuda.js';
import { benchExtras } from '../../src/bench/extras.js';
import { eigenVendorRoutines } from '../../src/bench/eigen-vendor.js';
import { runBench } from '../../src/bench/run.js';
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
      const free0 = dev.memoryInfo().free;
      const [row] = runBench(ctx, { op, dtype: 'float64', sizes: [n], batch, repeats: 1, vendor });
      const routines = eigenVendorRoutines(op === 'gesvd' ? 'gesvd' : 'syev', n, batch, op !== 'gesvd' && cusolverHasSyevBatched());
      assert.ok(routines.length >= 1);
      const what = `${op} ${n} x ${batch}: ${row!.vendor} (${row!.note ?? 'no note'})`;
      const kept = routines.find((r) => row!.vendor === `${vendor.name} ${r}`);
      if (kept !== undefined) {
        assert.ok(row!.vendorMs! > 0, what);
        const others = routines.filter((r) => r !== kept);
        for (const r of others) assert.match(row!.note ?? '', new RegExp(`${r} (\\d+\\.\\d{3} ms|failed)`), `${what}: ${r} in the note`);
        if (others.length === 0) assert.equal(row!.note, undefined, what);
      } else {
        // Every routine failed (a vendor library's own error): the column says which and why.
        for (const r of routines) assert.match(row!.vendor ?? '', new RegExp(`${r} failed`), what);
        assert.equal(row!.vendorMs, undefined, what);
      }
      // Every routine's workspace and info freed (the allocator may keep some: 64 MiB of slack).
      assert.ok(dev.memoryInfo().free >= free0 - (64 << 20), `${what}: device memory not given back`);
    }
  });
});
