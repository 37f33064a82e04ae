/**
 * Variable-size batches described on the device (`variableDevice`: sizes, leading dimensions and
 * addresses in device arrays; route 'vdevice') against the same batch described on the host
 * (`variable([...])`, route 'vbatched'), on one GPU: gemm (both dtypes, four transposition pairs,
 * beta 0 and not), potrf (both dtypes and triangles, a member failing at a planted column and
 * one with a NaN in every class) and getrf (both dtypes; square, tall and wide members, a singular
 * and a NaN member in every class; pivots and info too, pivot slots past a member's min(m, n) and
 * the invalid members' checked unwritten). The batches are test/helpers/vbatched-cases.ts's: orders 0-600,
 * shuffled, ragged ld, gaps. Both forms run the same class kernels on the same rows for members up
 * to 512, so their results are compared bit for bit there (and info exactly); members beyond 512
 * run the large class kernel on the device form and the per-size drivers on the host form, so
 * there the device form is checked as test/gpu/vbatched.test.ts checks the host form: against the
 * exact product (gemm) or the CPU reference (potrf, getrf: info and pivots exactly), and info equal
 * to the host form's. Three members with invalid device sizes
 * are appended to the device form, their addresses those of valid members' matrices: their codes
 * are checked (gemm -3, -8, -4; potrf -2, -4, -2; getrf -1, -2, -4) and the matrices they point at are the host
 * form's, bit for bit (nothing was written through them). Every element outside the members is
 * checked unchanged. Kernels are compiled before the first case (optimised builds, so both forms
 * run the same binaries): 108 on sm_90 (counted on a planning device by test/cuda/vdevice-api.test.ts).
 * Skips with one line where no GPU is usable.
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
import { ALPHA, deviceForm, gemmInvalid, GEMM, GETRF, getrfInvalid, maxOf, POTRF, potrfInvalid, recordDeviceCalls, targetOf } from '../helpers/vbatched-device-cases.js';

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
