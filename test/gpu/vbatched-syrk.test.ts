/**
 * Variable-size syrk by size class (route 'vbatched', syrk/launch-vbatched.ts) on the GPU against
 * the CPU reference, on fresh random data: one batch per case mixes C's orders 0 .. 600 (zeros,
 * ones, both sides of every class boundary, members beyond the last class) and op(A)'s k from 0 to
 * 70, shuffled, with ragged (odd) leading dimensions and gaps (test/helpers/vbatched-syrk-cases.ts);
 * both dtypes, uplo and trans; beta 0 with the written triangles NaN (C must not be read), beta
 * 0.5, and alpha 0 (C := beta C, A never read). The members' other triangles are NaN and the gaps a
 * sentinel: every element outside the written triangles is checked unchanged bit for bit, and A
 * must come back unchanged. Then the members of orders 1-31 through the per-size path (force
 * 'syrk'), bit for bit: both run the leaf's arithmetic (the same chunks, sums in the same order).
 *
 * Compile time: the file's kernels (counted on a planning device by test/cuda/vbatched-syrk.test.ts)
 * are compiled at once on the compile workers before the first case: the class leaves, the
 * variable-size GEMM's class kernels of the off-diagonal blocks, the per-size leaves of the compared
 * members and the per-size triangle GEMMs of the members beyond 512. Skips with one line where no
 * GPU is usable.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { variable, type MatrixView } from '../../src/core/batch.js';
import type { FloatArray } from '../../src/core/dtype.js';
import type { DeviceStorage } from '../../src/core/storage.js';
import { cpuSyrk } from '../../src/cpu/syrk.js';
import { gpuContext, gpuSkipReason, warmFileKernels } from '../helpers/gpu.js';
import { syrkTolerance } from '../helpers/syrk-data.js';
import { compareOutput } from '../helpers/trsm-data.js';
import { batchOf, type Layout } from '../helpers/vbatched-cases.js';
import { caseLabel, perSizeCompared, recordVbatchedSyrkCalls, SYRK_VB_CASES, syrkVbData, syrkVbLayout } from '../helpers/vbatched-syrk-cases.js';

const skip = gpuSkipReason();

/** Every kernel of the file, compiled at once (the calls made on a device that runs nothing). */
before(() => warmFileKernels('vbatched-syrk', (ctx, planning) =>
  recordVbatchedSyrkCalls(ctx, (force) => { if (planning) planning.force = force === undefined ? {} : { syrk: 'syrk' }; })));

/** The members of a layout as views of a host array (the reference's batches). */
const hostViews = (h: FloatArray, l: Layout): MatrixView<FloatArray>[] => l.places.map((p) => ({ data: h, offset: p.offset, ld: p.ld, rows: p.rows, cols: p.cols }));

for (const c of SYRK_VB_CASES) {
  test(`vbatched syrk ${caseLabel(c)}: orders 0-600 in one batch against the reference`, { skip, timeout: 300_000 }, async () => {
    const { ctx, backend } = gpuContext();
    const l = syrkVbLayout(c);
    const host = syrkVbData(c, l);
    const run = (which: readonly number[] | undefined): { a: FloatArray; c: FloatArray } => {
      backend.force = which === undefined ? {} : { syrk: 'syrk' };
      const dA = ctx.upload(host.a) as DeviceStorage, dC = ctx.upload(host.c) as DeviceStorage;
      ctx.syrk({ uplo: c.uplo, trans: c.trans, alpha: c.alpha, beta: c.beta, a: batchOf(dA, l.a, which), c: batchOf(dC, l.c, which) });
      assert.equal(ctx.lastRoute?.route, which === undefined ? 'vbatched' : 'syrk');
      return { a: ctx.download(dA) as FloatArray, c: ctx.download(dC) as FloatArray };
    };
    const { a: gotA, c: got } = run(undefined);
    await ctx.synchronize();
    // The reference in float64 on the (rounded) inputs.
    const want = Float64Array.from(host.c);
    const refA = Float64Array.from(host.a);
    cpuSyrk({ uplo: c.uplo, trans: c.trans, alpha: c.alpha, beta: c.beta, a: variable(hostViews(refA, l.a)), c: variable(hostViews(want, l.c)) });
    compareOutput(gotA, host.a, () => false, 0, 'A');
    compareOutput(got, c.dtype === 'float64' ? want : Float32Array.from(want), (e) => l.written[e] === 1, syrkTolerance(c.dtype, l.kMax), `C (${caseLabel(c)})`);
    // Members of orders 1-31 through the per-size path: one leaf of the same arithmetic, bit for bit.
    const compared = perSizeCompared(l);
    assert.ok(compared.length >= 10);
    const loop = run(compared).c;
    await ctx.synchronize();
    for (const q of compared) {
      const p = l.c.places[q]!;
      for (let j = 0; j < p.cols; j++) for (let i = 0; i < p.rows; i++) {
        const e = p.offset + i + j * p.ld;
        if (!Object.is(got[e], loop[e])) assert.fail(`member ${q} (n = ${p.rows}, k = ${l.shapes[q]!.k}) C(${i}, ${j}): ${got[e]} by class, ${loop[e]} per size`);
      }
    }
  });
}
