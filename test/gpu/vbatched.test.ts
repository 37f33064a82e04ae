/**
 * Variable-size batches by size class (route 'vbatched': gemm and potrf) on the GPU against the
 * CPU reference, on fresh random data: one batch per case mixes orders 0 .. 600 (zeros, ones, every
 * order 1-40, members of every class and beyond the last), ragged leading dimensions and gaps, in
 * shuffled order; outputs are poisoned (NaN in C where beta = 0) and every element outside the
 * members checked unchanged. potrf: a member failing at a planted column and one with a NaN in
 * every class, info against the reference's. Then the same batch through the per-size path
 * (force: the family's route), bit for bit where both run the same arithmetic (see
 * docs/kernel-families.md, "Variable-size batches"). Skips with one line where no GPU is usable.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Context } from '../../src/api/context.js';
import { variable } from '../../src/core/batch.js';
import { allocate, DTYPE_EPS, type DType, type FloatArray } from '../../src/core/dtype.js';
import type { Op } from '../../src/core/ops.js';
import type { DeviceStorage } from '../../src/core/storage.js';
import { potrfMatrix } from '../../src/cpu/lapack/potrf.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { sizeClass } from '../../src/cuda/kernels/common/vbatch.js';
import { REGISTER_DESIGN_MAX } from '../../src/cuda/kernels/common/register-tile.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';

const skip = gpuSkipReason();
const DTYPES: readonly DType[] = ['float64', 'float32'];
const SENTINEL = 12345.5;

/** Orders of one batch: zeros, ones, every order 1-40, a few per larger class, some beyond 512; shuffled. */
function orders(rng: Rng): number[] {
  const list = [0, 0, 1, 1, 1];
  for (let n = 1; n <= 40; n++) list.push(n);
  list.push(41, 47, 48, 49, 57, 64, 65, 96, 100, 127, 128, 129, 200, 256, 257, 384, 511, 512, 513, 600);
  for (let i = list.length - 1; i > 0; i--) { const j = rng.int(0, i); [list[i], list[j]] = [list[j]!, list[i]!]; }
  return list;
}

/** One member's place in its operand's buffer. */
interface Place { offset: number; rows: number; cols: number; ld: number }

/** Places of members of these shapes in one buffer: ld = rows + 0..3 (at least 1), gaps of 0..5 elements. */
function layout(rng: Rng, shapes: readonly (readonly [number, number])[]): { places: Place[]; length: number } {
  let at = rng.int(0, 3);
  const places = shapes.map(([rows, cols]) => {
    const ld = Math.max(1, rows + rng.int(0, 3));
    const p = { offset: at, rows, cols, ld };
    at += ld * cols + rng.int(0, 5);
    return p;
  });
  return { places, length: at + 1 };
}

const inside = (p: Place, e: number): boolean => {
  const r = e - p.offset;
  if (r < 0 || r >= p.ld * p.cols) return false;
  return r % p.ld < p.rows;
};

/** Whether element e of a buffer belongs to one of the members (sorted scan is not needed: small batches). */
function memberOf(places: readonly Place[], e: number): Place | undefined {
  return places.find((p) => inside(p, e));
}

function makeContext(): { ctx: Context; backend: CudaBackend } {
  const backend = new CudaBackend(gpu(), 'test');
  return { ctx: new Context('cuda', backend, backend), backend };
}

/** Equal values (a zero's sign aside), or both NaN. */
const same = (x: number, y: number): boolean => x === y || (Number.isNaN(x) && Number.isNaN(y));

const OPS: readonly (readonly [Op, Op])[] = [['N', 'N'], ['N', 'T'], ['T', 'N'], ['T', 'T']];

for (const dtype of DTYPES) for (const [transA, transB] of OPS) for (const beta of [0, 0.5]) {
  test(`vbatched gemm ${dtype} ${transA}${transB} beta ${beta}: orders 0-600 in one batch against the reference`, { skip, timeout: 600_000 }, async () => {
    const rng = new Rng(1000 + (dtype === 'float64' ? 0 : 1) * 16 + OPS.findIndex((o) => o[0] === transA && o[1] === transB) * 2 + (beta === 0 ? 0 : 1));
    const eps = DTYPE_EPS[dtype];
    const alpha = -1.25;
    // m the order, n and k near it (rectangular members), all at least 0.
    const shapes = orders(rng).map((s) => ({ m: s, n: Math.max(0, s - rng.int(0, 2)), k: s === 0 ? rng.int(0, 3) : Math.max(0, s + rng.int(-1, 1)) }));
    const aL = layout(rng, shapes.map((s): [number, number] => (transA === 'N' ? [s.m, s.k] : [s.k, s.m])));
    const bL = layout(rng, shapes.map((s): [number, number] => (transB === 'N' ? [s.k, s.n] : [s.n, s.k])));
    const cL = layout(rng, shapes.map((s) => [s.m, s.n] as const));
    const fill = (length: number, places: readonly Place[], value: (e: number) => number): FloatArray => {
      const h = allocate(dtype, length);
      for (let e = 0; e < length; e++) h[e] = memberOf(places, e) ? value(e) : SENTINEL;
      return h;
    };
    const hA = fill(aL.length, aL.places, () => rng.uniform());
    const hB = fill(bL.length, bL.places, () => rng.uniform());
    const hC = fill(cL.length, cL.places, () => (beta === 0 ? NaN : rng.uniform()));
    const { ctx, backend } = makeContext();
    const run = (force: string | undefined): FloatArray => {
      backend.force = force === undefined ? {} : { gemm: force };
      const dA = ctx.upload(hA), dB = ctx.upload(hB), dC = ctx.upload(hC);
      const batch = (d: DeviceStorage, places: readonly Place[]) => variable(places.map((p) => ({ data: d, rows: p.rows, cols: p.cols, ld: p.ld, offset: p.offset })));
      ctx.gemm({ transA, transB, alpha, beta, a: batch(dA, aL.places), b: batch(dB, bL.places), c: batch(dC, cL.places) });
      return ctx.download(dC) as FloatArray;
    };
    const got = run(undefined);
    assert.equal(ctx.lastRoute?.route, 'vbatched');
    await ctx.synchronize();
    // Outside the members: unchanged.
    for (let e = 0; e < cL.length; e++) if (!memberOf(cL.places, e)) assert.ok(Object.is(got[e], hC[e]), `C element ${e} outside the members changed`);
    shapes.forEach((s, q) => {
      const pa = aL.places[q]!, pb = bL.places[q]!, pc = cL.places[q]!;
      const A = (i: number, p: number): number => hA[pa.offset + (transA === 'N' ? i + p * pa.ld : p + i * pa.ld)]!;
      const B = (p: number, j: number): number => hB[pb.offset + (transB === 'N' ? p + j * pb.ld : j + p * pb.ld)]!;
      for (let j = 0; j < s.n; j++) for (let i = 0; i < s.m; i++) {
        let sum = 0, abs = 0;
        for (let p = 0; p < s.k; p++) { sum += A(i, p) * B(p, j); abs += Math.abs(A(i, p) * B(p, j)); }
        const c0 = hC[pc.offset + i + j * pc.ld]!;
        const want = alpha * sum + (beta === 0 ? 0 : beta * c0);
        const bound = 4 * (s.k + 2) * eps * (Math.abs(alpha) * abs + Math.abs(beta) * (beta === 0 ? 0 : Math.abs(c0))) + 1e-300;
        const g = got[pc.offset + i + j * pc.ld]!;
        assert.ok(Math.abs(g - want) <= bound, `member ${q} (${s.m} x ${s.n} x ${s.k}) C(${i}, ${j}) = ${g}, want ${want}`);
      }
    });
    // The per-size path on the same data: bit for bit where the arithmetic is the same (float32:
    // every member, the small and tiled kernels sum k in order; float64: members the very-small
    // kernel takes, up to the table's smallMaxDim; the others run on tensor cores).
    const loop = run('gemm');
    assert.equal(ctx.lastRoute?.route, 'gemm');
    const smallMax = tuningFor(gpu().info.arch, 'gemm').smallMaxDim[dtype];
    shapes.forEach((s, q) => {
      if (dtype === 'float64' && (Math.max(s.m, s.n, s.k) > smallMax || s.k === 0)) return;
      const pc = cL.places[q]!;
      for (let j = 0; j < s.n; j++) for (let i = 0; i < s.m; i++) {
        const e = pc.offset + i + j * pc.ld;
        assert.ok(same(got[e]!, loop[e]!), `member ${q} (${s.m} x ${s.n} x ${s.k}) C(${i}, ${j}): ${got[e]} by class, ${loop[e]} per size`);
      }
    });
  });
}

for (const dtype of DTYPES) for (const uplo of ['lower', 'upper'] as const) {
  test(`vbatched potrf ${dtype} ${uplo}: orders 0-600 with failing and NaN members in every class`, { skip, timeout: 600_000 }, async () => {
    const rng = new Rng(2000 + (dtype === 'float64' ? 0 : 2) + (uplo === 'lower' ? 0 : 1));
    const eps = DTYPE_EPS[dtype];
    const upper = uplo === 'upper';
    const ns = orders(rng);
    const L = layout(rng, ns.map((n) => [n, n] as const));
    const h = allocate(dtype, L.length);
    h.fill(SENTINEL);
    // Per class: one member fails at a planted column, one has a NaN in its triangle.
    const failing = new Map<number, number>(), nan = new Map<number, number>();
    ns.forEach((n, q) => {
      const c = sizeClass(n) ?? 1e9;
      if (n >= 2 && !failing.has(c)) failing.set(c, q);
      else if (n >= 1 && !nan.has(c)) nan.set(c, q);
    });
    ns.forEach((n, q) => {
      const p = L.places[q]!;
      // SPD: G G^T / n + I in the referenced triangle; the other triangle random (never read).
      const g = Array.from({ length: n * n }, () => rng.uniform());
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
        const inTri = upper ? i <= j : i >= j;
        let v = rng.uniform();
        if (inTri) {
          v = i === j ? 1 : 0;
          for (let k = 0; k < n; k++) v += (g[i + k * n]! * g[j + k * n]!) / n;
        }
        h[p.offset + i + j * p.ld] = v;
      }
      const at = (i: number, j: number): number => p.offset + (upper ? j + i * p.ld : i + j * p.ld);
      if (failing.get(sizeClass(n) ?? 1e9) === q) { const f = rng.int(1, n - 1); h[at(f, f)] = -4; }
      if (nan.get(sizeClass(n) ?? 1e9) === q) { const r = rng.int(0, n - 1); h[at(r, rng.int(0, r))] = NaN; }
    });
    const { ctx, backend } = makeContext();
    const run = (force: string | undefined): { a: FloatArray; info: Int32Array } => {
      backend.force = force === undefined ? {} : { potrf: force };
      const d = ctx.upload(h);
      const r = ctx.potrf({ uplo, a: variable(L.places.map((p) => ({ data: d, rows: p.rows, ld: p.ld, offset: p.offset }))) });
      assert.equal(ctx.lastRoute?.route, force ?? 'vbatched');
      return { a: ctx.download(d) as FloatArray, info: ctx.download(r.info as DeviceStorage) as Int32Array };
    };
    const got = run(undefined);
    await ctx.synchronize();
    for (let e = 0; e < L.length; e++) if (!memberOf(L.places, e)) assert.ok(Object.is(got.a[e], h[e]), `element ${e} outside the members changed`);
    ns.forEach((n, q) => {
      const p = L.places[q]!;
      // The reference on a float64 copy of the (rounded) input, dense.
      const ref = new Float64Array(Math.max(1, n * n));
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) ref[i + j * n] = h[p.offset + i + j * p.ld]!;
      const info = potrfMatrix(ref, 0, n, n, upper);
      assert.equal(got.info[q], info, `member ${q} (n = ${n}): info`);
      if (failing.get(sizeClass(n) ?? 1e9) === q) assert.ok(info > 0, `member ${q} was planted to fail`);
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
        const e = p.offset + i + j * p.ld;
        const inTri = upper ? i <= j : i >= j;
        if (!inTri) { assert.ok(Object.is(got.a[e], h[e]), `member ${q} (n = ${n}) (${i}, ${j}) outside the triangle changed`); continue; }
        const want = ref[i + j * n]!;
        const ok = same(got.a[e]!, want) || Math.abs(got.a[e]! - want) <= 64 * Math.max(1, n) * eps * (1 + Math.abs(want));
        assert.ok(ok, `member ${q} (n = ${n}, info ${info}) (${i}, ${j}) = ${got.a[e]}, want ${want}`);
      }
    });
    // The per-size path, bit for bit where both run one design with one step: the warp design where the
    // classic flag agrees, the register design where both take it, the panel design (one arithmetic for any width).
    const loop = run('potrf');
    assert.deepEqual([...loop.info], [...got.info]);
    const t = tuningFor(gpu().info.arch, 'potrf');
    const registerMax = Math.min(t.registerMax[dtype], REGISTER_DESIGN_MAX);
    const design = (n: number): string => (n <= 32 ? `small${n <= t.classicMax[dtype]}` : n <= registerMax ? 'register' : 'panel');
    ns.forEach((n, q) => {
      const bound = sizeClass(n) ?? n;
      if (n === 0 || design(n) !== design(bound)) return;
      const p = L.places[q]!;
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
        const e = p.offset + i + j * p.ld;
        assert.ok(same(got.a[e]!, loop.a[e]!), `member ${q} (n = ${n}) (${i}, ${j}): ${got.a[e]} by class, ${loop.a[e]} per size`);
      }
    });
  });
}
