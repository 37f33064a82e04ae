/**
 * Variable-size batches described on the device (`variableDevice`: sizes, leading dimensions and
 * addresses in device arrays; route 'vdevice') against the same batch described on the host
 * (`variable([...])`, route 'vbatched'), on one GPU: gemm (both dtypes, four transposition pairs,
 * beta 0 and not), potrf (both dtypes and triangles, a member failing at a planted column and
 * one with a NaN in every class), getrf (both dtypes; square, tall and wide members, a singular
 * and a NaN member in every class; pivots and info too, pivot slots past a member's min(m, n) and
 * the invalid members' checked unwritten), trsm (both dtypes, every side, uplo, trans and diag) and
 * potrs and posv (both dtypes and triangles; posv with a member failing at a planted column in every
 * class, its B checked unchanged). The batches are test/helpers/vbatched-cases.ts's and
 * vbatched-solve-cases.ts's: orders 0-600, shuffled, ragged ld, gaps (trsm and the solves: B's other
 * dimension 0-70, 300 for some small members). Both forms run the same class kernels on the same rows
 * for members up to 512, so their results are compared bit for bit there (and info exactly); members
 * beyond 512 run the large class kernel on the device form and the per-size drivers on the host form,
 * so there the device form is checked as test/gpu/vbatched.test.ts and vbatched-solve.test.ts check
 * the host form: against the exact product (gemm) or the CPU reference (potrf, getrf: info and pivots
 * exactly; trsm, potrs, posv: every member, within the solve's tolerance, info exactly), and info
 * equal to the host form's. Three members with invalid device sizes (four for potrs and posv) are
 * appended to the device form, their addresses those of valid members' matrices: their codes are
 * checked (gemm -3, -8, -4; potrf -2, -4, -2; getrf -1, -2, -4; trsm -5, -9, -11; potrs and posv -2,
 * -3, -5, -7) and the matrices they point at are the host form's, bit for bit (nothing was written
 * through them). Every element outside the members is checked unchanged. Kernels are compiled before
 * the first case (optimised builds, so both forms run the same binaries): 299 on sm_90 (counted on a
 * planning device by test/cuda/vdevice-api.test.ts). Skips with one line where no GPU is usable.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { allocate, DTYPE_EPS, type DType, type FloatArray } from '../../src/core/dtype.js';
import { potrfMatrix } from '../../src/cpu/lapack/potrf.js';
import type { DeviceStorage } from '../../src/core/storage.js';
import { gpu, gpuContext, gpuSkipReason, warmFileKernels } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';
import { batchOf, classOf, gemmLayout, getrfLayout, pivotStrideFor, potrfLayout, type Layout } from '../helpers/vbatched-cases.js';
import { checkGetrfMember, fillGetrfMember } from '../helpers/vbatched-getrf.js';
import { getrfMemberSize } from '../../src/cuda/kernels/getrf/index.js';
import {
  ALPHA, deviceForm, gemmInvalid, GEMM, GETRF, getrfInvalid, maxOf, POTRF, potrfInvalid, recordDeviceCalls, SOLVE, solveInvalid, targetOf, TRSM, TRSM_ALPHA, trsmInvalid,
} from '../helpers/vbatched-device-cases.js';
import { variable, type MatrixView } from '../../src/core/batch.js';
import { cpuTrsm } from '../../src/cpu/trsm.js';
import { caseName, compareOutput, fillTriangle, trsmTolerance } from '../helpers/trsm-data.js';
import { solveVbLayout, trsmVbLayout } from '../helpers/vbatched-solve-cases.js';

const skip = gpuSkipReason();
const SENTINEL = 12345.5;

/** Equal values (a zero's sign aside), or both NaN. */
const same = (x: number, y: number): boolean => x === y || (Number.isNaN(x) && Number.isNaN(y));

before(() => warmFileKernels('vbatched-device', (ctx) => recordDeviceCalls(ctx, gpu().info.arch)));

function fill(dtype: DType, l: Layout, value: () => number): FloatArray {
  const h = allocate(dtype, l.length);
  for (let e = 0; e < l.length; e++) h[e] = l.inside[e] === 1 ? value() : SENTINEL;
  return h;
}

for (const c of GEMM) {
  test(`gemm ${c.dtype} ${c.transA}${c.transB} beta ${c.beta}: variableDevice equals variable() (bit for bit to 512), invalid members reported`, { skip, timeout: 300_000 }, async () => {
    const { ctx } = gpuContext();
    const l = gemmLayout(c, gpu().info.arch);
    const rng = new Rng(c.seed + 7);
    const hA = fill(c.dtype, l.a, () => rng.uniform());
    const hB = fill(c.dtype, l.b, () => rng.uniform());
    const hC = fill(c.dtype, l.c, () => (c.beta === 0 ? NaN : rng.uniform()));
    // The host form.
    const dA = ctx.upload(hA) as DeviceStorage, dB = ctx.upload(hB) as DeviceStorage, dC = ctx.upload(hC) as DeviceStorage;
    ctx.gemm({ transA: c.transA, transB: c.transB, alpha: ALPHA, beta: c.beta, a: batchOf(dA, l.a), b: batchOf(dB, l.b), c: batchOf(dC, l.c) });
    assert.equal(ctx.lastRoute?.route, 'vbatched');
    const want = ctx.download(dC) as FloatArray;
    // The device form, on fresh copies, with three invalid members appended.
    const sizes = l.shapes.map((s) => Math.max(s.m, s.n, s.k));
    const v = gemmInvalid(l, targetOf(sizes), c.transB);
    const eA = ctx.upload(hA) as DeviceStorage, eB = ctx.upload(hB) as DeviceStorage, eC = ctx.upload(hC) as DeviceStorage;
    const info = ctx.upload(new Int32Array(v.c.length).fill(99)) as DeviceStorage;
    ctx.gemm({
      transA: c.transA, transB: c.transB, alpha: ALPHA, beta: c.beta, info,
      a: deviceForm(ctx, eA, v.a, ...v.max.a, c.dtype), b: deviceForm(ctx, eB, v.b, ...v.max.b, c.dtype), c: deviceForm(ctx, eC, v.c, ...v.max.c, c.dtype),
    });
    assert.equal(ctx.lastRoute?.route, 'vdevice');
    const got = ctx.download(eC) as FloatArray;
    const codes = ctx.download(info) as Int32Array;
    await ctx.synchronize();
    assert.deepEqual([...codes], [...new Array<number>(l.shapes.length).fill(0), ...v.codes], 'info');
    for (let e = 0; e < l.c.length; e++) if (l.c.inside[e] === 0) assert.ok(Object.is(got[e], hC[e]), `C element ${e} outside the members changed`);
    const eps = DTYPE_EPS[c.dtype];
    l.shapes.forEach((s, q) => {
      const pa = l.a.places[q]!, pb = l.b.places[q]!, pc = l.c.places[q]!;
      const [si, sp] = c.transA === 'N' ? [1, pa.ld] : [pa.ld, 1];
      const [tp, tj] = c.transB === 'N' ? [1, pb.ld] : [pb.ld, 1];
      for (let j = 0; j < s.n; j++) for (let i = 0; i < s.m; i++) {
        const e = pc.offset + i + j * pc.ld;
        if (sizes[q]! <= 512) {
          if (!same(got[e]!, want[e]!)) assert.fail(`member ${q} (${s.m} x ${s.n} x ${s.k}) C(${i}, ${j}): ${got[e]} by device sizes, ${want[e]} by host sizes`);
          continue;
        }
        // Beyond 512 (another kernel than the host form's): against the exact product, as test/gpu/vbatched.test.ts checks the host form.
        let sum = 0, abs = 0;
        for (let p = 0, x = pa.offset + i * si, y = pb.offset + j * tj; p < s.k; p++, x += sp, y += tp) { const t = hA[x]! * hB[y]!; sum += t; abs += Math.abs(t); }
        const c0 = hC[e]!;
        const exact = ALPHA * sum + (c.beta === 0 ? 0 : c.beta * c0);
        const bound = 4 * (s.k + 2) * eps * (Math.abs(ALPHA) * abs + (c.beta === 0 ? 0 : Math.abs(c.beta * c0))) + 1e-300;
        if (!(Math.abs(got[e]! - exact) <= bound)) assert.fail(`member ${q} (${s.m} x ${s.n} x ${s.k}) C(${i}, ${j}) = ${got[e]} by device sizes, want ${exact} (host sizes: ${want[e]})`);
      }
    });
  });
}

for (const c of POTRF) {
  test(`potrf ${c.dtype} ${c.uplo}: variableDevice equals variable() (bit for bit to 512), failing and NaN members in every class, invalid members reported`, { skip, timeout: 300_000 }, async () => {
    const { ctx } = gpuContext();
    const l = potrfLayout(c, gpu().info.arch);
    const rng = new Rng(c.seed + 7);
    const upper = c.uplo === 'upper';
    const L = l.layout;
    const h = allocate(c.dtype, L.length);
    h.fill(SENTINEL);
    l.orders.forEach((n, q) => {
      const p = L.places[q]!;
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) h[p.offset + i + j * p.ld] = (upper ? i <= j : i >= j) && i === j ? n + 1 + rng.uniform() : rng.uniform();
      const at = (i: number, j: number): number => p.offset + (upper ? j + i * p.ld : i + j * p.ld);
      if (l.failing.get(classOf(n)) === q) { const f = rng.int(1, n - 1); h[at(f, f)] = -4; }
      if (l.nan.get(classOf(n)) === q) { const r = rng.int(0, n - 1); h[at(r, rng.int(0, r))] = NaN; }
    });
    const d = ctx.upload(h) as DeviceStorage;
    const r = ctx.potrf({ uplo: c.uplo, a: batchOf(d, L) });
    assert.equal(ctx.lastRoute?.route, 'vbatched');
    const want = ctx.download(d) as FloatArray;
    const wantInfo = ctx.download(r.info as DeviceStorage) as Int32Array;
    const max = maxOf(L.places, (p) => p.rows);
    const v = potrfInvalid(l, max);
    const e = ctx.upload(h) as DeviceStorage;
    const info = ctx.upload(new Int32Array(v.members.length).fill(99)) as DeviceStorage;
    ctx.potrf({ uplo: c.uplo, a: deviceForm(ctx, e, v.members, max, max, c.dtype), info });
    assert.equal(ctx.lastRoute?.route, 'vdevice');
    const got = ctx.download(e) as FloatArray;
    const gotInfo = ctx.download(info) as Int32Array;
    await ctx.synchronize();
    assert.deepEqual([...gotInfo], [...wantInfo.subarray(0, l.orders.length), ...v.codes], 'info');
    for (const q of [...l.failing.values()]) assert.ok(gotInfo[q]! > 0, `member ${q} was planted to fail`);
    for (let x = 0; x < L.length; x++) if (L.inside[x] === 0) assert.ok(Object.is(got[x], h[x]), `element ${x} outside the members changed`);
    const eps = DTYPE_EPS[c.dtype];
    l.orders.forEach((n, q) => {
      const p = L.places[q]!;
      // Beyond 512 (another kernel than the host form's): against the reference, as test/gpu/vbatched.test.ts checks the host form.
      let ref: Float64Array | undefined;
      if (n > 512) {
        ref = new Float64Array(n * n);
        for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) ref[i + j * n] = h[p.offset + i + j * p.ld]!;
        assert.equal(potrfMatrix(ref, 0, n, n, upper), gotInfo[q], `member ${q} (n = ${n}): info against the reference`);
      }
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
        const x = p.offset + i + j * p.ld;
        if (ref === undefined || !(upper ? i <= j : i >= j)) {
          if (!same(got[x]!, want[x]!)) assert.fail(`member ${q} (n = ${n}, info ${gotInfo[q]}) (${i}, ${j}): ${got[x]} by device sizes, ${want[x]} by host sizes`);
          continue;
        }
        const r = ref[i + j * n]!;
        const ok = same(got[x]!, r) || Math.abs(got[x]! - r) <= 64 * n * eps * (1 + Math.abs(r));
        if (!ok) assert.fail(`member ${q} (n = ${n}, info ${gotInfo[q]}) (${i}, ${j}) = ${got[x]} by device sizes, want ${r} (host sizes: ${want[x]})`);
      }
    });
  });
}

/** The value of every pivot and info slot before a call (a slot the call should not write keeps it). */
const POISON = -7;

for (const c of GETRF) {
  test(`getrf ${c.dtype}: variableDevice equals variable() (bit for bit to 512, pivots and info), singular and NaN members in every class, invalid members reported`, { skip, timeout: 300_000 }, async () => {
    const { ctx } = gpuContext();
    const l = getrfLayout(c, gpu().info.arch);
    const rng = new Rng(c.seed + 7);
    const L = l.layout;
    const h = allocate(c.dtype, L.length);
    h.fill(SENTINEL);
    l.shapes.forEach(([m, n], q) => { const p = L.places[q]!; fillGetrfMember(rng, c.dtype, h, p.offset, p.ld, m, n, l.kinds[q]!); });
    const count = l.shapes.length;
    const poisoned = (n: number): DeviceStorage => ctx.upload(new Int32Array(Math.max(1, n)).fill(POISON)) as DeviceStorage;
    // The host form: pivot stride the largest min(m, n).
    const hostStride = pivotStrideFor(l.shapes);
    const d = ctx.upload(h) as DeviceStorage;
    const hIpiv = poisoned(count * hostStride), hInfo = poisoned(count);
    ctx.getrf({ a: batchOf(d, L), ipiv: hIpiv, info: hInfo });
    assert.equal(ctx.lastRoute?.route, 'vbatched');
    const want = { a: ctx.download(d) as FloatArray, ipiv: ctx.download(hIpiv) as Int32Array, info: ctx.download(hInfo) as Int32Array };
    // The device form: pivot stride min(maxRows, maxCols), three invalid members appended.
    const v = getrfInvalid(l);
    const stride = Math.min(v.maxRows, v.maxCols);
    const e = ctx.upload(h) as DeviceStorage;
    const dIpiv = poisoned(v.members.length * stride), dInfo = poisoned(v.members.length);
    const r = ctx.getrf({ a: deviceForm(ctx, e, v.members, v.maxRows, v.maxCols, c.dtype), ipiv: dIpiv, info: dInfo });
    assert.equal(ctx.lastRoute?.route, 'vdevice');
    assert.equal(r.ipiv, dIpiv);
    const got = { a: ctx.download(e) as FloatArray, ipiv: ctx.download(dIpiv) as Int32Array, info: ctx.download(dInfo) as Int32Array };
    await ctx.synchronize();
    assert.deepEqual([...got.info], [...want.info.subarray(0, count), ...v.codes], 'info');
    for (let q = count; q < v.members.length; q++)
      assert.ok(got.ipiv.subarray(q * stride, (q + 1) * stride).every((x) => x === POISON), `invalid member ${q}: pivots written`);
    for (let x = 0; x < L.length; x++) if (L.inside[x] === 0) assert.ok(Object.is(got.a[x], h[x]), `element ${x} outside the members changed`);
    l.shapes.forEach(([m, n], q) => {
      const p = L.places[q]!, k = Math.min(m, n);
      const what = `member ${q} (${m} x ${n}, ${l.kinds[q]})`;
      const pivots = got.ipiv.subarray(q * stride, (q + 1) * stride);
      if (getrfMemberSize(m, n) > 512) {
        // Another kernel than the host form's: against the reference, as test/gpu/vbatched.test.ts checks the host form.
        checkGetrfMember(what, c.dtype, h, { a: got.a, info: got.info[q]!, pivots }, p.offset, p.ld, m, n, POISON);
        return;
      }
      for (let j = 0; j < k; j++) assert.equal(pivots[j], want.ipiv[q * hostStride + j], `${what}: pivot ${j}`);
      for (let j = k; j < stride; j++) assert.equal(pivots[j], POISON, `${what}: pivot slot ${j} past min(m, n) written`);
      for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) {
        const x = p.offset + i + j * p.ld;
        if (!same(got.a[x]!, want.a[x]!)) assert.fail(`${what} (${i}, ${j}): ${got.a[x]} by device sizes, ${want.a[x]} by host sizes`);
      }
    });
  });
}

/** The members of a layout as views of a host array (the reference's batches). */
const hostViews = (h: Float64Array, l: Layout, which: readonly number[]): MatrixView<Float64Array>[] =>
  which.map((q) => { const p = l.places[q]!; return { data: h, offset: p.offset, ld: p.ld, rows: p.rows, cols: p.cols }; });

/** Every element of `got` outside the members (inside[e] = 0) is the input's, bit for bit. */
function outsideUnchanged(got: FloatArray, input: FloatArray, inside: Uint8Array, what: string): void {
  for (let e = 0; e < got.length; e++) if (inside[e] === 0 && !Object.is(got[e], input[e])) assert.fail(`${what} element ${e} outside the members changed: ${got[e]}`);
}

for (const c of TRSM) {
  test(`trsm ${c.dtype} ${caseName(c.variant)}: variableDevice equals variable() (bit for bit to 512), against the reference, invalid members reported`, { skip, timeout: 300_000 }, async () => {
    const { ctx } = gpuContext();
    const l = trsmVbLayout(c);
    const rng = new Rng(c.seed + 7);
    const hA = allocate(c.dtype, l.a.length).fill(SENTINEL);
    l.shapes.forEach((s, q) => fillTriangle(rng, hA, l.a.places[q]!.offset, l.a.places[q]!.ld, s.t, c.variant.uplo, c.variant.diag));
    const hB = fill(c.dtype, l.b, () => rng.uniform());
    // The host form.
    const dA = ctx.upload(hA) as DeviceStorage, dB = ctx.upload(hB) as DeviceStorage;
    ctx.trsm({ ...c.variant, alpha: TRSM_ALPHA, a: batchOf(dA, l.a), b: batchOf(dB, l.b) });
    assert.equal(ctx.lastRoute?.route, 'vbatched');
    const want = ctx.download(dB) as FloatArray;
    // The device form, on fresh copies, with three invalid members appended.
    const v = trsmInvalid(l);
    const eA = ctx.upload(hA) as DeviceStorage, eB = ctx.upload(hB) as DeviceStorage;
    const info = ctx.upload(new Int32Array(v.b.length).fill(99)) as DeviceStorage;
    ctx.trsm({ ...c.variant, alpha: TRSM_ALPHA, info, a: deviceForm(ctx, eA, v.a, ...v.max.a, c.dtype), b: deviceForm(ctx, eB, v.b, ...v.max.b, c.dtype) });
    assert.equal(ctx.lastRoute?.route, 'vdevice');
    const got = ctx.download(eB) as FloatArray, gotA = ctx.download(eA) as FloatArray;
    const codes = ctx.download(info) as Int32Array;
    await ctx.synchronize();
    assert.deepEqual([...codes], [...new Array<number>(l.shapes.length).fill(0), ...v.codes], 'info');
    compareOutput(gotA, hA, () => false, 0, 'A');
    outsideUnchanged(got, hB, l.b.inside, 'B');
    // Up to 512 the same leaves and GEMM members as the host form: bit for bit.
    l.shapes.forEach((s, q) => {
      if (s.t > 512) return;
      const p = l.b.places[q]!;
      for (let j = 0; j < p.cols; j++) for (let i = 0; i < p.rows; i++) {
        const e = p.offset + i + j * p.ld;
        if (!same(got[e]!, want[e]!)) assert.fail(`member ${q} (t = ${s.t}, nvec ${s.nvec}) B(${i}, ${j}): ${got[e]} by device sizes, ${want[e]} by host sizes`);
      }
    });
    // Every member against the reference (beyond 512 the device form's large class, the host form's per-size driver).
    const all = l.shapes.map((_, q) => q);
    const ref = Float64Array.from(hB);
    cpuTrsm({ ...c.variant, alpha: TRSM_ALPHA, a: variable(hostViews(Float64Array.from(hA), l.a, all)), b: variable(hostViews(ref, l.b, all)) });
    compareOutput(got, c.dtype === 'float64' ? ref : Float32Array.from(ref), (e) => l.b.inside[e] === 1, trsmTolerance(c.dtype, 600), `B (${c.dtype} ${caseName(c.variant)})`);
  });
}

/** Symmetric, diagonally dominant members (positive definite) in the `uplo` triangle, the other random. */
function spdMembers(rng: Rng, dtype: DType, l: Layout, orders: readonly number[], upper: boolean): FloatArray {
  const h = allocate(dtype, l.length).fill(SENTINEL);
  orders.forEach((n, q) => {
    const p = l.places[q]!;
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) h[p.offset + i + j * p.ld] = (upper ? i <= j : i >= j) && i === j ? n + 1 + rng.uniform() : rng.uniform();
  });
  return h;
}

for (const c of SOLVE) {
  test(`${c.op} ${c.dtype} ${c.uplo}: variableDevice equals variable() (bit for bit to 512, info exactly)${c.op === 'posv' ? ', a failing member in every class' : ''}, against the reference, invalid members reported`, { skip, timeout: 300_000 }, async () => {
    const { ctx } = gpuContext();
    const l = solveVbLayout(c);
    const rng = new Rng(c.seed + 7);
    const upper = c.uplo === 'upper';
    const eps = DTYPE_EPS[c.dtype];
    const hA0 = spdMembers(rng, c.dtype, l.a, l.orders, upper);
    const at = (q: number, i: number, j: number): number => l.a.places[q]!.offset + i + j * l.a.places[q]!.ld;
    for (const q of l.failing.values()) { const f = rng.int(1, l.orders[q]! - 1); hA0[at(q, f, f)] = -4; }
    // The reference factor and info on a float64 copy of the rounded input; potrs solves with it (rounded to the dtype).
    const factor = Float64Array.from(hA0);
    const refInfo = l.orders.map((n, q) => potrfMatrix(factor, l.a.places[q]!.offset, Math.max(1, l.a.places[q]!.ld), n, upper));
    const hA = c.op === 'potrs' ? (c.dtype === 'float64' ? factor.slice() : Float32Array.from(factor)) : hA0;
    if (c.op === 'potrs') assert.ok(refInfo.every((x) => x === 0));
    const hB = fill(c.dtype, l.b, () => rng.uniform());
    const count = l.orders.length;
    // The host form.
    const dA = ctx.upload(hA) as DeviceStorage, dB = ctx.upload(hB) as DeviceStorage;
    const r = ctx[c.op]({ uplo: c.uplo, a: batchOf(dA, l.a), b: batchOf(dB, l.b) });
    assert.equal(ctx.lastRoute?.route, 'vbatched');
    const want = { a: ctx.download(dA) as FloatArray, b: ctx.download(dB) as FloatArray, info: ctx.download(r.info as DeviceStorage) as Int32Array };
    // The device form, on fresh copies, with four invalid members appended.
    const v = solveInvalid(l);
    const eA = ctx.upload(hA) as DeviceStorage, eB = ctx.upload(hB) as DeviceStorage;
    const info = ctx.upload(new Int32Array(v.b.length).fill(99)) as DeviceStorage;
    ctx[c.op]({ uplo: c.uplo, info, a: deviceForm(ctx, eA, v.a, ...v.max.a, c.dtype), b: deviceForm(ctx, eB, v.b, ...v.max.b, c.dtype) });
    assert.equal(ctx.lastRoute?.route, 'vdevice');
    const got = { a: ctx.download(eA) as FloatArray, b: ctx.download(eB) as FloatArray, info: ctx.download(info) as Int32Array };
    await ctx.synchronize();
    assert.deepEqual([...got.info], [...want.info.subarray(0, count), ...v.codes], 'info: the host form\'s, then the invalid members\' codes');
    l.orders.forEach((n, q) => assert.equal(got.info[q], refInfo[q], `member ${q} (n = ${n}): info against the reference`));
    for (const q of l.failing.values()) assert.ok(refInfo[q]! > 0, `member ${q} was planted to fail`);
    outsideUnchanged(got.a, hA, l.a.inside, 'A');
    outsideUnchanged(got.b, hB, l.b.inside, 'B');
    // Up to 512 the same kernels on the same rows as the host form: A and B bit for bit (a failed member's B is its input).
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
        if (got.info[q] !== 0 && !Object.is(got.b[e], hB[e])) assert.fail(`member ${q} failed (info ${got.info[q]}) but its B(${i}, ${j}) changed`);
      }
    });
    // Every member against the reference: A (posv: the factor, to the failing column), B (two reference solves; a failed member's B its input).
    if (c.op === 'potrs') compareOutput(got.a, hA, () => false, 0, 'A');
    else {
      const inA = new Uint8Array(l.a.length);
      l.orders.forEach((n, q) => { for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) if (upper ? i <= j : i >= j) inA[at(q, i, j)] = 1; });
      compareOutput(got.a, c.dtype === 'float64' ? factor : Float32Array.from(factor), (e) => inA[e] === 1, 64 * 600 * eps, 'A');
    }
    const solved = l.orders.map((_, q) => q).filter((q) => refInfo[q] === 0);
    const ref = Float64Array.from(hB);
    const av = variable(hostViews(factor, l.a, solved)), bv = variable(hostViews(ref, l.b, solved));
    const solve = (transA: 'N' | 'T'): void => cpuTrsm({ side: 'left', uplo: c.uplo, transA, diag: 'nonunit', alpha: 1, a: av, b: bv });
    if (upper) { solve('T'); solve('N'); } else { solve('N'); solve('T'); }
    const failed = new Uint8Array(l.b.length);
    l.orders.forEach((_, q) => { if (refInfo[q] !== 0) { const p = l.b.places[q]!; for (let j = 0; j < p.cols; j++) failed.fill(1, p.offset + j * p.ld, p.offset + j * p.ld + p.rows); } });
    compareOutput(got.b, c.dtype === 'float64' ? ref : Float32Array.from(ref), (e) => l.b.inside[e] === 1 && failed[e] === 0, 2 * trsmTolerance(c.dtype, 600), `B (${c.op} ${c.dtype} ${c.uplo})`);
  });
}

test('trsm alpha = 0 on variableDevice batches: B := 0 over the valid members (a NaN in B does not survive), as variable() gives it; invalid members untouched and reported', { skip, timeout: 300_000 }, async () => {
  const { ctx } = gpuContext();
  const c = TRSM[0]!;
  const l = trsmVbLayout(c);
  const rng = new Rng(c.seed + 11);
  const hA = allocate(c.dtype, l.a.length).fill(NaN);
  const hB = fill(c.dtype, l.b, () => (rng.uniform() < 0.01 ? NaN : rng.uniform()));
  const dA = ctx.upload(hA) as DeviceStorage, dB = ctx.upload(hB) as DeviceStorage;
  ctx.trsm({ ...c.variant, alpha: 0, a: batchOf(dA, l.a), b: batchOf(dB, l.b) });
  const want = ctx.download(dB) as FloatArray;
  const v = trsmInvalid(l);
  const eA = ctx.upload(hA) as DeviceStorage, eB = ctx.upload(hB) as DeviceStorage;
  const info = ctx.upload(new Int32Array(v.b.length).fill(99)) as DeviceStorage;
  ctx.trsm({ ...c.variant, alpha: 0, info, a: deviceForm(ctx, eA, v.a, ...v.max.a, c.dtype), b: deviceForm(ctx, eB, v.b, ...v.max.b, c.dtype) });
  assert.equal(ctx.lastRoute?.route, 'vdevice');
  const got = ctx.download(eB) as FloatArray;
  const codes = ctx.download(info) as Int32Array;
  await ctx.synchronize();
  assert.deepEqual([...codes], [...new Array<number>(l.shapes.length).fill(0), ...v.codes], 'info');
  for (let e = 0; e < got.length; e++) {
    if (!Object.is(got[e], want[e])) assert.fail(`B element ${e}: ${got[e]} by device sizes, ${want[e]} by host sizes`);
    if (l.b.inside[e] === 1 ? !Object.is(got[e], 0) : !Object.is(got[e], hB[e])) assert.fail(`B element ${e} is ${got[e]}`);
  }
});
