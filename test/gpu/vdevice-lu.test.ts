/**
 * getrs and gesv on batches described on the device (`variableDevice`: sizes, leading dimensions
 * and addresses in device arrays; route 'vdevice') against the same batch described on the host
 * (`variable([...])`, route 'vbatched'), on one GPU, on fresh random data: both dtypes, getrs op N
 * and T, gesv with a singular member (a zero column) in every class. The batches are
 * test/helpers/vbatched-solve-cases.ts's LU layouts: orders 0-600 shuffled, B's other dimension
 * 0-70 (300 for some small members, 1-8 from 200 up), ld = rows + 0..3, gaps between members; each
 * member a random row permutation of a column diagonally dominant matrix (pivots no rounding can
 * change). getrs solves with the reference's factors and pivots.
 *
 * Up to 512 both forms run the same kernels on the same rows (getrf's class kernels, the row
 * interchanges, trsm's leaves and GEMM classes), so A, ipiv, info and B are compared bit for bit
 * there; beyond 512 the device form runs the large classes and the host form the per-size drivers,
 * so there they are compared with the CPU reference (pivots and info exactly, A and B within the
 * solve's tolerance). Every member against the reference too: info and pivots exactly, A (gesv:
 * the factors) and B (cpuGetrs with the reference's factors) within tolerance, a singular member's
 * B its input bit for bit. Four members with invalid device sizes are appended to the device form,
 * their addresses those of a valid member's matrices (test/helpers/vbatched-device-cases.ts
 * luInvalid): their codes are checked (getrs -2, -3, -5, -8; gesv -1, -2, -4, -7), their pivot
 * slots unwritten, and the matrices they point at are the host form's, bit for bit. Every element
 * outside the members, and every pivot slot past a member's order, is checked unchanged.
 * Kernels are compiled before the first case (recordLuDeviceCalls: 119 on sm_90, counted on a
 * planning device by test/cuda/vdevice-lu.test.ts). Skips with one line where no GPU is usable.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { variable, type MatrixView } from '../../src/core/batch.js';
import { allocate, DTYPE_EPS, type FloatArray } from '../../src/core/dtype.js';
import type { DeviceStorage } from '../../src/core/storage.js';
import { getrfMatrix } from '../../src/cpu/lapack/getrf.js';
import { cpuGetrs } from '../../src/cpu/lapack/solve.js';
import { gpuContext, gpuSkipReason, warmFileKernels } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';
import { compareOutput, trsmTolerance } from '../helpers/trsm-data.js';
import { batchOf, type Layout } from '../helpers/vbatched-cases.js';
import { deviceForm, LU, luInvalid, recordLuDeviceCalls } from '../helpers/vbatched-device-cases.js';
import { fillLu, luPivotStride, luVbLayout } from '../helpers/vbatched-solve-cases.js';

const skip = gpuSkipReason();
const SENTINEL = 12345.5;
/** Every pivot slot before a call (a slot the call should not write keeps it). */
const POISON = -7;

before(() => warmFileKernels('vdevice-lu', (ctx) => recordLuDeviceCalls(ctx)));

const wide = (h: FloatArray): Float64Array => Float64Array.from(h);

/** Equal values (a zero's sign aside), or both NaN. */
const same = (x: number, y: number): boolean => x === y || (Number.isNaN(x) && Number.isNaN(y));

/** Every element of `got` outside the members (inside[e] = 0) is the input's, bit for bit. */
function outsideUnchanged(got: FloatArray, input: FloatArray, inside: Uint8Array, what: string): void {
  for (let e = 0; e < got.length; e++) if (inside[e] === 0 && !Object.is(got[e], input[e])) assert.fail(`${what} element ${e} outside the members changed: ${got[e]}`);
}

/** The elements of the members `which` picks (1), of a layout. */
function membersOf(l: Layout, which: (q: number) => boolean): Uint8Array {
  const m = new Uint8Array(l.length);
  l.places.forEach((p, q) => { if (which(q)) for (let j = 0; j < p.cols; j++) m.fill(1, p.offset + j * p.ld, p.offset + j * p.ld + p.rows); });
  return m;
}

for (const c of LU) {
  const name = c.op === 'getrs' ? `getrs ${c.dtype} trans ${c.trans}` : `gesv ${c.dtype}, a singular member in every class,`;
  test(`${name}: variableDevice equals variable() (A, ipiv, info, B bit for bit to 512), against the reference, invalid members reported`, { skip, timeout: 300_000 }, async () => {
    const { ctx } = gpuContext();
    const l = luVbLayout(c);
    const rng = new Rng(c.seed + 7);
    const count = l.orders.length;
    const eps = DTYPE_EPS[c.dtype];
    const failed = new Set(l.failing.values());
    const round = (x: Float64Array): FloatArray => (c.dtype === 'float64' ? x.slice() : Float32Array.from(x));
    const hA0 = allocate(c.dtype, l.a.length).fill(SENTINEL);
    l.orders.forEach((n, q) => fillLu(rng, c.dtype, hA0, l.a.places[q]!.offset, l.a.places[q]!.ld, n, failed.has(q) ? rng.int(0, n - 2) : -1));
    // The reference's factors, pivots and info on a float64 copy of the rounded input; pivot slots past each order POISON.
    const stride = luPivotStride(l.orders);
    const factor = wide(hA0);
    const refPiv = new Int32Array(count * stride).fill(POISON);
    const refInfo = l.orders.map((n, q) => getrfMatrix(factor, l.a.places[q]!.offset, Math.max(1, l.a.places[q]!.ld), n, n, refPiv, q * stride));
    l.orders.forEach((n, q) => assert.equal(refInfo[q]! > 0, failed.has(q), `member ${q} (n = ${n}): singular exactly where planted`));
    // getrs solves with the reference's factors (rounded to the dtype) and pivots; gesv factors the input.
    const hA = c.op === 'getrs' ? round(factor) : hA0;
    const hB = allocate(c.dtype, l.b.length);
    for (let e = 0; e < l.b.length; e++) hB[e] = l.b.inside[e] === 1 ? rng.uniform() : SENTINEL;
    const inputPiv = c.op === 'getrs' ? refPiv : new Int32Array(count * stride).fill(POISON);

    // The host form.
    const dA = ctx.upload(hA) as DeviceStorage, dB = ctx.upload(hB) as DeviceStorage, dP = ctx.upload(inputPiv) as DeviceStorage;
    const hostArgs = { a: batchOf(dA, l.a), b: batchOf(dB, l.b), ipiv: dP };
    const r = c.op === 'getrs' ? ctx.getrs({ trans: c.trans, ...hostArgs }) : ctx.gesv(hostArgs);
    assert.equal(ctx.lastRoute?.route, 'vbatched');
    const want = { a: ctx.download(dA) as FloatArray, b: ctx.download(dB) as FloatArray, ipiv: ctx.download(dP) as Int32Array, info: ctx.download(r.info as DeviceStorage) as Int32Array };

    // The device form, on fresh copies, with four invalid members appended; pivot stride min(maxRows, maxCols) = the largest order.
    const v = luInvalid(l, c.op);
    assert.equal(Math.min(...v.max.a), stride);
    const all = v.b.length;
    const devPiv = new Int32Array(all * stride).fill(POISON);
    devPiv.set(inputPiv);
    const eA = ctx.upload(hA) as DeviceStorage, eB = ctx.upload(hB) as DeviceStorage, eP = ctx.upload(devPiv) as DeviceStorage;
    const info = ctx.upload(new Int32Array(all).fill(99)) as DeviceStorage;
    const deviceArgs = { a: deviceForm(ctx, eA, v.a, ...v.max.a, c.dtype), b: deviceForm(ctx, eB, v.b, ...v.max.b, c.dtype), ipiv: eP, info };
    const rd = c.op === 'getrs' ? ctx.getrs({ trans: c.trans, ...deviceArgs }) : ctx.gesv(deviceArgs);
    assert.equal(ctx.lastRoute?.route, 'vdevice');
    assert.equal(rd.info, info);
    const got = { a: ctx.download(eA) as FloatArray, b: ctx.download(eB) as FloatArray, ipiv: ctx.download(eP) as Int32Array, info: ctx.download(info) as Int32Array };
    await ctx.synchronize();

    // info: the host form's, then the invalid members' codes; the reference's exactly.
    assert.deepEqual([...got.info], [...want.info.subarray(0, count), ...v.codes], 'info: the host form\'s, then the invalid members\' codes');
    l.orders.forEach((n, q) => assert.equal(got.info[q], c.op === 'getrs' ? 0 : refInfo[q], `member ${q} (n = ${n}): info against the reference`));
    // Pivots: the host form's and the reference's exactly (getrs leaves them), slots past each order and the invalid members' unwritten.
    for (let x = 0; x < count * stride; x++) {
      if (got.ipiv[x] !== want.ipiv[x]) assert.fail(`pivot slot ${x} (member ${Math.floor(x / stride)}): ${got.ipiv[x]} by device sizes, ${want.ipiv[x]} by host sizes`);
      if (got.ipiv[x] !== refPiv[x]) assert.fail(`pivot slot ${x} (member ${Math.floor(x / stride)}): ${got.ipiv[x]}, the reference's ${refPiv[x]}`);
    }
    assert.ok(got.ipiv.subarray(count * stride).every((x) => x === POISON), 'the invalid members\' pivot slots are unwritten');
    outsideUnchanged(got.a, hA, l.a.inside, 'A');
    outsideUnchanged(got.b, hB, l.b.inside, 'B');

    // Up to 512 the same kernels on the same rows: A and B bit for bit (a singular member's B is its input).
    l.orders.forEach((n, q) => {
      if (n > 512) return;
      const pa = l.a.places[q]!, pb = l.b.places[q]!;
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
        const e = pa.offset + i + j * pa.ld;
        if (!same(got.a[e]!, want.a[e]!)) assert.fail(`member ${q} (n = ${n}, info ${got.info[q]}) A(${i}, ${j}): ${got.a[e]} by device sizes, ${want.a[e]} by host sizes`);
      }
      for (let j = 0; j < pb.cols; j++) for (let i = 0; i < pb.rows; i++) {
        const e = pb.offset + i + j * pb.ld;
        if (!same(got.b[e]!, want.b[e]!)) assert.fail(`member ${q} (n = ${n}, nrhs ${pb.cols}, info ${got.info[q]}) B(${i}, ${j}): ${got.b[e]} by device sizes, ${want.b[e]} by host sizes`);
      }
    });
    // A singular member's B: its input, bit for bit.
    const inFailed = membersOf(l.b, (q) => failed.has(q));
    for (let e = 0; e < l.b.length; e++) if (inFailed[e] === 1 && !Object.is(got.b[e], hB[e])) assert.fail(`B element ${e} of a singular member changed: ${got.b[e]}`);

    // Every member against the reference: A (getrs unchanged; gesv the reference's factors), B (cpuGetrs with those factors and pivots).
    if (c.op === 'getrs') compareOutput(got.a, hA, () => false, 0, 'A');
    else compareOutput(got.a, round(factor), (e) => l.a.inside[e] === 1, 64 * 600 * eps, 'A');
    const solvable = l.orders.map((_, q) => q).filter((q) => refInfo[q] === 0);
    const ref = wide(hB);
    const views = (h: Float64Array, lay: Layout): MatrixView<Float64Array>[] =>
      solvable.map((q) => ({ data: h, offset: lay.places[q]!.offset, ld: lay.places[q]!.ld, rows: lay.places[q]!.rows, cols: lay.places[q]!.cols }));
    const pivots = Int32Array.from(solvable.flatMap((q) => Array.from(refPiv.subarray(q * stride, q * stride + stride))));
    cpuGetrs({ trans: c.trans, a: variable(views(wide(round(factor)), l.a)), ipiv: pivots, pivotStride: stride, b: variable(views(ref, l.b)), info: new Int32Array(solvable.length) });
    compareOutput(got.b, round(ref), (e) => l.b.inside[e] === 1 && inFailed[e] === 0, 2 * trsmTolerance(c.dtype, 600), `B (${name})`);
  });
}
