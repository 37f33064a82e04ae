/**
 * syrk and trtri on variable batches described on the device (`variableDevice`: sizes, leading
 * dimensions and addresses in device arrays; route 'vdevice') against the same batch described on
 * the host (`variable([...])`, route 'vbatched', forced), on one GPU, on fresh random data: orders
 * 0-600 in one batch (zeros, ones, every order 1-40, both sides of the class boundaries, members
 * beyond 512), shuffled, ragged leading dimensions and gaps; both dtypes.
 * - syrk: both triangles and transposes, op(A)'s k from 0 to 70 and one of 300; beta 0 with C's
 *   written triangles NaN (C must not be read), beta 0.5, and alpha 0 (A never read). The members'
 *   other triangles are NaN, the gaps a sentinel.
 * - trtri: both triangles and diagonals; well-conditioned triangles (the other triangle NaN, a unit
 *   diagonal NaN); non-unit cases plant an exact zero on the diagonal of a member in the classes 8,
 *   24, 48, 128 and 512 and of the member beyond 512: info exactly as LAPACK's dtrtri, the singular
 *   member unchanged bit for bit.
 * Both forms run the same class kernels on the same rows for members up to 512, so their results
 * are compared bit for bit there (info exactly); members beyond 512 run the large region's recursion
 * on the device form and the per-size drivers on the host form, so there the device form is checked
 * against the CPU reference within the tolerance (and every member against the reference too). Invalid
 * members with device sizes out of range are appended to the device form, their addresses those of a
 * valid member's matrices: their codes are checked (syrk -3, -4, -7, -10; trtri -3, -3, -5), and the
 * matrices they point at are the host form's, bit for bit (nothing was written through them). Every
 * element outside the members (and outside the written triangles) is checked unchanged, and A of
 * syrk too. Kernels are compiled before the first case (204 on sm_90, counted on a planning device by
 * test/cuda/vdevice-syrk-trtri.test.ts). Skips with one line where no GPU is usable.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { variable } from '../../src/core/batch.js';
import { cpuSyrk } from '../../src/cpu/syrk.js';
import { cpuTrtri } from '../../src/cpu/lapack/inverse.js';
import { gpuContext, gpuSkipReason, warmFileKernels } from '../helpers/gpu.js';
import { syrkTolerance } from '../helpers/syrk-data.js';
import { compareOutput, trsmTolerance } from '../helpers/trsm-data.js';
import {
  hostViews, owners, recordCalls, sameUpTo512, SYRK, syrkCalls, syrkData, syrkLabel, syrkLayout, TRTRI, trtriCalls, trtriData, trtriLayout,
} from '../helpers/vdevice-syrk-trtri-cases.js';

const skip = gpuSkipReason();

before(() => warmFileKernels('vdevice-syrk-trtri', (ctx, planning) => { if (planning) recordCalls(ctx, planning); }));

for (const c of SYRK) {
  test(`syrk ${syrkLabel(c)}: variableDevice equals variable() (bit for bit to 512), the reference beyond, invalid members reported`, { skip, timeout: 300_000 }, async () => {
    const { ctx, backend } = gpuContext();
    const l = syrkLayout(c);
    const h = syrkData(c, l);
    const got = syrkCalls(ctx, backend, c, l, h);
    await ctx.synchronize();
    assert.deepEqual([...got.codes], [...new Array<number>(l.n.length).fill(0), -3, -4, -7, -10], 'info');
    // A is read only (the invalid members' too).
    compareOutput(got.deviceA, h.a, () => false, 0, 'A');
    // Members up to 512 (and the invalid members' target) as the host form's, bit for bit; outside the members unchanged there too.
    sameUpTo512(got.device, got.host, owners(l.c), (q) => l.n[q]!, `C (${syrkLabel(c)})`);
    // Every member against the reference in float64 on the rounded inputs; outside the written triangles unchanged.
    const want = Float64Array.from(h.c);
    cpuSyrk({ uplo: c.uplo, trans: c.trans, alpha: c.alpha, beta: c.beta, a: variable(hostViews(Float64Array.from(h.a), l.a)), c: variable(hostViews(want, l.c)) });
    compareOutput(got.device, c.dtype === 'float64' ? want : Float32Array.from(want), (e) => l.written[e] === 1, syrkTolerance(c.dtype, 300), `C against the reference (${syrkLabel(c)})`);
  });
}

for (const c of TRTRI) {
  test(`trtri ${c.dtype} ${c.uplo} ${c.diag}: variableDevice equals variable() (bit for bit to 512), the reference beyond${c.diag === 'nonunit' ? ', singular members in six classes' : ''}, invalid members reported`, { skip, timeout: 300_000 }, async () => {
    const { ctx, backend } = gpuContext();
    const lay = trtriLayout(c);
    const h = trtriData(c, lay);
    const got = trtriCalls(ctx, backend, c, lay, h);
    await ctx.synchronize();
    // The reference on a float64 copy of the rounded input.
    const want = Float64Array.from(h);
    const wantInfo = new Int32Array(lay.n.length);
    cpuTrtri({ uplo: c.uplo, diag: c.diag, a: variable(hostViews(want, lay.l)), info: wantInfo });
    for (const [q, col] of lay.singular) assert.equal(wantInfo[q], col, `member ${q} was planted singular at ${col}`);
    assert.deepEqual([...got.codes], [...wantInfo, -3, -3, -5], 'info: the reference\'s, then the invalid members\' codes');
    assert.deepEqual([...got.hostInfo], [...wantInfo], 'info by host sizes');
    sameUpTo512(got.device, got.host, owners(lay.l), (q) => lay.n[q]!, `A (${c.dtype} ${c.uplo} ${c.diag})`);
    // Every member against the reference: the solved triangles within the tolerance, everything else (singular members too) unchanged.
    const owner = owners(lay.l);
    const inTriangle = (e: number): boolean => {
      const q = owner[e]!;
      if (q < 0 || wantInfo[q] !== 0) return false;
      const p = lay.l.places[q]!;
      const i = (e - p.offset) % p.ld, j = Math.floor((e - p.offset) / p.ld);
      return c.uplo === 'lower' ? i > j || (i === j && c.diag === 'nonunit') : i < j || (i === j && c.diag === 'nonunit');
    };
    compareOutput(got.device, c.dtype === 'float64' ? want : Float32Array.from(want), inTriangle, trsmTolerance(c.dtype, 600), `A against the reference (${c.dtype} ${c.uplo} ${c.diag})`);
  });
}
