/**
 * Variable-size batches by size class (route 'vbatched': gemm, potrf and getrf) on the GPU against the
 * CPU reference, on fresh random data: one batch per case mixes orders 0 .. 600 (zeros, ones, every
 * order 1-40, members of every class and beyond the last; gemm: up to 33 ragged in m, n and k), ragged leading dimensions and gaps, in
 * shuffled order; outputs are poisoned (NaN in C where beta = 0) and every element outside the
 * members checked unchanged. gemm: both dtypes, all transposes, beta 0 and not; potrf: both
 * dtypes and triangles, a member failing at a planted column and one with a NaN in every class,
 * info against the reference's; getrf: both dtypes, square, tall and wide members, a singular and a
 * NaN member in every class, info and pivots exactly (pivot slots past a member's min(m, n) and
 * info poisoned, checked unwritten or written). Then a few members of every class (at most BIT_PER_CLASS sizes:
 * test/helpers/vbatched-cases.ts) through the per-size path (force: the family's route), bit for
 * bit where both run the same arithmetic (docs/kernel-families.md, "Variable-size batches").
 *
 * Compile time: the per-size path compiles a kernel per distinct shape, so comparing every member
 * would compile hundreds per case (the earlier form of this file ran past 480 s). Here the file
 * compiles 425 kernels in all on sm_90 (counted on a planning device by test/cuda/vbatched.test.ts,
 * at most VBATCHED_GPU_KERNELS): gemm 144 class kernels (16 cases x 9 classes) and 141 per size
 * (the compared members and those beyond 512), potrf 32 class kernels and 58 per size, getrf 18
 * class kernels and 32 per size (the compared members above 128 and those beyond 512 share the
 * blocked design's two kernels). They are
 * compiled at once on the compile workers before the first case (the backend's warm, from the
 * calls planned on a device that runs nothing), each case then loads them. Estimate on an H200:
 * 0.3-1 s of NVRTC a kernel (the register Cholesky up to 4 s), so 15-25 s on 16 workers; the CPU
 * reference a few seconds (members from 300 up are thin in one of m, n, k); about 40 s in all.
 * Skips with one line where no GPU is usable.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { allocate, DTYPE_EPS, type DType, type FloatArray } from '../../src/core/dtype.js';
import type { DeviceStorage } from '../../src/core/storage.js';
import { potrfMatrix } from '../../src/cpu/lapack/potrf.js';
import { gpu, gpuContext, gpuSkipReason, warmFileKernels } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';
import { batchOf, classOf, GEMM_CASES, gemmLayout, GETRF_CASES, getrfLayout, pivotStrideFor, POTRF_CASES, potrfLayout, recordVbatchedCalls, type Layout } from '../helpers/vbatched-cases.js';
import { checkGetrfMember, fillGetrfMember } from '../helpers/vbatched-getrf.js';

const skip = gpuSkipReason();
const SENTINEL = 12345.5;

const context = gpuContext;

/** Every kernel of the file, compiled at once (the calls made on a device that runs nothing). */
before(() => warmFileKernels('vbatched', (ctx, planning) =>
  recordVbatchedCalls(ctx, (op, force) => { if (planning) planning.force = force === undefined ? {} : { [op]: force }; }, gpu().info.arch)));

/** Equal values (a zero's sign aside), or both NaN. */
const same = (x: number, y: number): boolean => x === y || (Number.isNaN(x) && Number.isNaN(y));

function fill(dtype: DType, l: Layout, value: () => number): FloatArray {
  const h = allocate(dtype, l.length);
  for (let e = 0; e < l.length; e++) h[e] = l.inside[e] === 1 ? value() : SENTINEL;
  return h;
}

for (const c of GEMM_CASES) {
  test(`vbatched gemm ${c.dtype} ${c.transA}${c.transB} beta ${c.beta}: orders 0-600 in one batch against the reference`, { skip, timeout: 300_000 }, async () => {
    const { ctx, backend } = context();
    const l = gemmLayout(c, gpu().info.arch);
    const rng = new Rng(c.seed + 7);
    const eps = DTYPE_EPS[c.dtype];
    const alpha = -1.25;
    const hA = fill(c.dtype, l.a, () => rng.uniform());
    const hB = fill(c.dtype, l.b, () => rng.uniform());
    const hC = fill(c.dtype, l.c, () => (c.beta === 0 ? NaN : rng.uniform()));
    const run = (which: readonly number[] | undefined): FloatArray => {
      backend.force = which === undefined ? {} : { gemm: 'gemm' };
      const dA = ctx.upload(hA) as DeviceStorage, dB = ctx.upload(hB) as DeviceStorage, dC = ctx.upload(hC) as DeviceStorage;
      ctx.gemm({ transA: c.transA, transB: c.transB, alpha, beta: c.beta, a: batchOf(dA, l.a, which), b: batchOf(dB, l.b, which), c: batchOf(dC, l.c, which) });
      assert.equal(ctx.lastRoute?.route, which === undefined ? 'vbatched' : 'gemm');
      return ctx.download(dC) as FloatArray;
    };
    const got = run(undefined);
    await ctx.synchronize();
    for (let e = 0; e < l.c.length; e++) if (l.c.inside[e] === 0) assert.ok(Object.is(got[e], hC[e]), `C element ${e} outside the members changed`);
    l.shapes.forEach((s, q) => {
      const pa = l.a.places[q]!, pb = l.b.places[q]!, pc = l.c.places[q]!;
      // op(A)(i, p) at ia + i * si + p * sp; op(B)(p, j) at jb + p * tp + j * tj.
      const [si, sp] = c.transA === 'N' ? [1, pa.ld] : [pa.ld, 1];
      const [tp, tj] = c.transB === 'N' ? [1, pb.ld] : [pb.ld, 1];
      for (let j = 0; j < s.n; j++) for (let i = 0; i < s.m; i++) {
        let sum = 0, abs = 0;
        for (let p = 0, x = pa.offset + i * si, y = pb.offset + j * tj; p < s.k; p++, x += sp, y += tp) { const t = hA[x]! * hB[y]!; sum += t; abs += Math.abs(t); }
        const c0 = hC[pc.offset + i + j * pc.ld]!;
        const want = alpha * sum + (c.beta === 0 ? 0 : c.beta * c0);
        const bound = 4 * (s.k + 2) * eps * (Math.abs(alpha) * abs + (c.beta === 0 ? 0 : Math.abs(c.beta * c0))) + 1e-300;
        const g = got[pc.offset + i + j * pc.ld]!;
        if (!(Math.abs(g - want) <= bound)) assert.fail(`member ${q} (${s.m} x ${s.n} x ${s.k}) C(${i}, ${j}) = ${g}, want ${want}`);
      }
    });
    // A few members of every class through the per-size path: bit for bit (float32: the small and
    // tiled kernels sum k in order; float64: the very-small kernel's sizes, gemmLayout).
    const loop = run(l.compare);
    for (const q of l.compare) {
      const s = l.shapes[q]!, pc = l.c.places[q]!;
      for (let j = 0; j < s.n; j++) for (let i = 0; i < s.m; i++) {
        const e = pc.offset + i + j * pc.ld;
        if (!same(got[e]!, loop[e]!)) assert.fail(`member ${q} (${s.m} x ${s.n} x ${s.k}) C(${i}, ${j}): ${got[e]} by class, ${loop[e]} per size`);
      }
    }
  });
}

for (const c of POTRF_CASES) {
  test(`vbatched potrf ${c.dtype} ${c.uplo}: orders 0-600 with failing and NaN members in every class`, { skip, timeout: 300_000 }, async () => {
    const { ctx, backend } = context();
    const l = potrfLayout(c, gpu().info.arch);
    const rng = new Rng(c.seed + 7);
    const eps = DTYPE_EPS[c.dtype];
    const upper = c.uplo === 'upper';
    const L = l.layout;
    const h = allocate(c.dtype, L.length);
    h.fill(SENTINEL);
    l.orders.forEach((n, q) => {
      const p = L.places[q]!;
      // Symmetric and diagonally dominant (positive definite) in the referenced triangle; the other
      // triangle random (never read).
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
        const inTri = upper ? i <= j : i >= j;
        h[p.offset + i + j * p.ld] = inTri && i === j ? n + 1 + rng.uniform() : rng.uniform();
      }
      const at = (i: number, j: number): number => p.offset + (upper ? j + i * p.ld : i + j * p.ld);
      if (l.failing.get(classOf(n)) === q) { const f = rng.int(1, n - 1); h[at(f, f)] = -4; }
      if (l.nan.get(classOf(n)) === q) { const r = rng.int(0, n - 1); h[at(r, rng.int(0, r))] = NaN; }
    });
    const run = (which: readonly number[] | undefined): { a: FloatArray; info: Int32Array } => {
      backend.force = which === undefined ? {} : { potrf: 'potrf' };
      const d = ctx.upload(h) as DeviceStorage;
      const r = ctx.potrf({ uplo: c.uplo, a: batchOf(d, L, which) });
      assert.equal(ctx.lastRoute?.route, which === undefined ? 'vbatched' : 'potrf');
      return { a: ctx.download(d) as FloatArray, info: ctx.download(r.info as DeviceStorage) as Int32Array };
    };
    const got = run(undefined);
    await ctx.synchronize();
    for (let e = 0; e < L.length; e++) if (L.inside[e] === 0) assert.ok(Object.is(got.a[e], h[e]), `element ${e} outside the members changed`);
    l.orders.forEach((n, q) => {
      const p = L.places[q]!;
      // The reference on a float64 copy of the (rounded) input, dense.
      const ref = new Float64Array(Math.max(1, n * n));
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) ref[i + j * n] = h[p.offset + i + j * p.ld]!;
      const info = potrfMatrix(ref, 0, n, n, upper);
      assert.equal(got.info[q], info, `member ${q} (n = ${n}): info`);
      if (l.failing.get(classOf(n)) === q) assert.ok(info > 0, `member ${q} was planted to fail`);
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
        const e = p.offset + i + j * p.ld;
        const inTri = upper ? i <= j : i >= j;
        if (!inTri) { if (!Object.is(got.a[e], h[e])) assert.fail(`member ${q} (n = ${n}) (${i}, ${j}) outside the triangle changed`); continue; }
        const want = ref[i + j * n]!;
        const ok = same(got.a[e]!, want) || Math.abs(got.a[e]! - want) <= 64 * Math.max(1, n) * eps * (1 + Math.abs(want));
        if (!ok) assert.fail(`member ${q} (n = ${n}, info ${info}) (${i}, ${j}) = ${got.a[e]}, want ${want}`);
      }
    });
    // A few members of every class (the failing and NaN ones first) through the per-size path, bit
    // for bit where both run one design with one step (potrfLayout).
    const loop = run(l.compare);
    l.compare.forEach((q, at) => {
      const n = l.orders[q]!, p = L.places[q]!;
      assert.equal(loop.info[at], got.info[q], `member ${q} (n = ${n}): info per size`);
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
        const e = p.offset + i + j * p.ld;
        if (!same(got.a[e]!, loop.a[e]!)) assert.fail(`member ${q} (n = ${n}) (${i}, ${j}): ${got.a[e]} by class, ${loop.a[e]} per size`);
      }
    });
  });
}

/** The value of every pivot and info slot before a call (a slot the call should not write keeps it). */
const POISON = -7;

for (const c of GETRF_CASES) {
  test(`vbatched getrf ${c.dtype}: shapes 0-600 (square, tall, wide) with singular and NaN members in every class`, { skip, timeout: 300_000 }, async () => {
    const { ctx, backend } = context();
    const l = getrfLayout(c, gpu().info.arch);
    const rng = new Rng(c.seed + 7);
    const L = l.layout;
    const h = allocate(c.dtype, L.length);
    h.fill(SENTINEL);
    l.shapes.forEach(([m, n], q) => { const p = L.places[q]!; fillGetrfMember(rng, c.dtype, h, p.offset, p.ld, m, n, l.kinds[q]!); });
    const run = (which: readonly number[] | undefined): { a: FloatArray; ipiv: Int32Array; info: Int32Array; stride: number } => {
      backend.force = which === undefined ? {} : { getrf: 'getrf' };
      const count = which?.length ?? l.shapes.length;
      const stride = pivotStrideFor(l.shapes, which);
      const d = ctx.upload(h) as DeviceStorage;
      const ipiv = ctx.upload(new Int32Array(Math.max(1, count * stride)).fill(POISON)) as DeviceStorage;
      const info = ctx.upload(new Int32Array(count).fill(POISON)) as DeviceStorage;
      ctx.getrf({ a: batchOf(d, L, which), ipiv, info });
      assert.equal(ctx.lastRoute?.route, which === undefined ? 'vbatched' : 'getrf');
      return { a: ctx.download(d) as FloatArray, ipiv: ctx.download(ipiv) as Int32Array, info: ctx.download(info) as Int32Array, stride };
    };
    const got = run(undefined);
    await ctx.synchronize();
    for (let e = 0; e < L.length; e++) if (L.inside[e] === 0) assert.ok(Object.is(got.a[e], h[e]), `element ${e} outside the members changed`);
    l.shapes.forEach(([m, n], q) => {
      const p = L.places[q]!;
      const what = `member ${q} (${m} x ${n}, ${l.kinds[q]})`;
      const info = checkGetrfMember(what, c.dtype, h, { a: got.a, info: got.info[q]!, pivots: got.ipiv.subarray(q * got.stride, (q + 1) * got.stride) }, p.offset, p.ld, m, n, POISON);
      if (l.kinds[q] === 'singular') assert.ok(info > 0, `${what} was planted to be singular`);
    });
    // A few members of every class (the singular and NaN ones first) through the per-size path: the
    // same design, bit for bit, pivots and info alike (getrfLayout).
    const loop = run(l.compare);
    l.compare.forEach((q, at) => {
      const [m, n] = l.shapes[q]!, p = L.places[q]!;
      const what = `member ${q} (${m} x ${n}, ${l.kinds[q]})`;
      assert.equal(loop.info[at], got.info[q], `${what}: info per size`);
      for (let j = 0; j < Math.min(m, n); j++) assert.equal(loop.ipiv[at * loop.stride + j], got.ipiv[q * got.stride + j], `${what}: pivot ${j} per size`);
      for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) {
        const e = p.offset + i + j * p.ld;
        if (!same(got.a[e]!, loop.a[e]!)) assert.fail(`${what} (${i}, ${j}): ${got.a[e]} by class, ${loop.a[e]} per size`);
      }
    });
  });
}
