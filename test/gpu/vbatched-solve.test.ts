/**
 * Variable-size trsm, potrs, posv, getrs and gesv by size class (route 'vbatched') on the GPU against the CPU
 * reference, on fresh random data: one batch per case mixes orders 0 .. 600 (zeros, ones, every
 * order 1-40, members of every class and beyond the last), B's other dimension 0 to 70, 300 for a
 * few small members (the leaf's column tiling) and 1-8 from 200 up, ragged leading dimensions and
 * gaps, in shuffled order (test/helpers/vbatched-solve-cases.ts); every element outside the
 * members' B (and A's other triangle, NaN for trsm) checked unchanged. trsm: both dtypes, every
 * side, uplo, trans and diag; then members of the classes up to 32 (two per class) through the
 * per-size path (force 'trsm'), bit for bit: both run one leaf of the same arithmetic. potrs: A a
 * Cholesky factor (the reference's), X against two reference solves. posv: a member failing at a
 * planted column in every class: info against the reference's, its B unchanged bit for bit, A
 * against the reference factor. getrs (op N and T) and gesv: members a random row permutation of
 * a column diagonally dominant matrix (pivots that no rounding can change, following the
 * permutation); getrs on the reference's factors and pivots, X against the reference, A and ipiv
 * unchanged, and bit for bit against the same trsm class launches composed here (B's rows
 * interchanged on the host, exact, then ctx.trsm by class twice); gesv with a singular member (a
 * zero column) in every class: info and pivots exactly (pivot slots past a member's order
 * untouched), A against the reference factor, a failed member's B unchanged bit for bit, the others
 * against the reference and (orders above 32; those up to 32 are solved in gesv's fused class
 * kernel) bit for bit against getrs by class on gesv's own factors; then two
 * members per class from 48 to 512 through the per-size path (force 'gesv'): A, pivots and info bit
 * for bit (it factors them with getrf's per-size kernels, the class kernels' designs), B within
 * tolerance (it solves by its substitution kernel, not trsm; members up to 32 it factors and solves
 * in one fused kernel, so no kernel of theirs is the class path's).
 *
 * Compile time: the file's kernels (296 on sm_90, counted on a planning device by
 * test/cuda/vbatched-trsm.test.ts, at most VBATCHED_SOLVE_GPU_KERNELS) are compiled at once on
 * the compile workers before the first case: the 32 trsm class leaves, the variable-size GEMM's
 * class kernels of the updates, potrf's and getrf's class kernels, the row interchanges, the 32
 * per-size leaves of the compared members, getrf's per-size kernels of gesv's compared members,
 * and the per-size kernels of the members beyond 512. Estimate on an H200: 12-24 s of
 * NVRTC on 16 workers, the CPU reference (getrf of the LU members up to 600 among it) 5-10
 * seconds; about 40 s in all. Skips with one line where no GPU is usable.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { variable, type MatrixView } from '../../src/core/batch.js';
import { allocate, DTYPE_EPS, type DType, type FloatArray } from '../../src/core/dtype.js';
import type { DeviceStorage } from '../../src/core/storage.js';
import { getrfMatrix } from '../../src/cpu/lapack/getrf.js';
import { potrfMatrix } from '../../src/cpu/lapack/potrf.js';
import { cpuGetrs } from '../../src/cpu/lapack/solve.js';
import { cpuTrsm } from '../../src/cpu/trsm.js';
import { gpuContext, gpuSkipReason, warmFileKernels } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';
import { caseName, compareOutput, fillTriangle, trsmTolerance } from '../helpers/trsm-data.js';
import { batchOf, classOf, type Layout } from '../helpers/vbatched-cases.js';
import {
  fillLu, LU_VB_CASES, luPivotStride, luTrsmCalls, luVbLayout, recordVbatchedSolveCalls, SOLVE_VB_CASES, solveVbLayout, TRSM_VB_CASES, trsmVbLayout,
} from '../helpers/vbatched-solve-cases.js';

const skip = gpuSkipReason();
const SENTINEL = 12345.5;

const context = gpuContext;

/** Every kernel of the file, compiled at once (the calls made on a device that runs nothing). */
before(() => warmFileKernels('vbatched-solve', (ctx, planning) =>
  recordVbatchedSolveCalls(ctx, (force) => { if (planning) planning.force = force; })));

/** The members of a layout as views of a host array (the reference's batches). */
const hostViews = (h: FloatArray, l: Layout): MatrixView<FloatArray>[] => l.places.map((p) => ({ data: h, offset: p.offset, ld: p.ld, rows: p.rows, cols: p.cols }));

/** A float64 copy of a host array (the reference runs in float64 on the rounded inputs). */
const wide = (h: FloatArray): Float64Array => Float64Array.from(h);

for (const c of TRSM_VB_CASES) {
  test(`vbatched trsm ${c.dtype} ${caseName(c.variant)}: orders 0-600 in one batch against the reference`, { skip, timeout: 300_000 }, async () => {
    const { ctx, backend } = context();
    const l = trsmVbLayout(c);
    const rng = new Rng(c.seed + 7);
    const alpha = -1.5;
    const hA = allocate(c.dtype, l.a.length).fill(SENTINEL);
    l.shapes.forEach((s, q) => fillTriangle(rng, hA, l.a.places[q]!.offset, l.a.places[q]!.ld, s.t, c.variant.uplo, c.variant.diag));
    const hB = allocate(c.dtype, l.b.length);
    for (let e = 0; e < l.b.length; e++) hB[e] = l.b.inside[e] === 1 ? rng.uniform() : SENTINEL;
    const run = (which: readonly number[] | undefined): { a: FloatArray; b: FloatArray } => {
      backend.force = which === undefined ? {} : { trsm: 'trsm' };
      const dA = ctx.upload(hA) as DeviceStorage, dB = ctx.upload(hB) as DeviceStorage;
      ctx.trsm({ ...c.variant, alpha, a: batchOf(dA, l.a, which), b: batchOf(dB, l.b, which) });
      assert.equal(ctx.lastRoute?.route, which === undefined ? 'vbatched' : 'trsm');
      return { a: ctx.download(dA) as FloatArray, b: ctx.download(dB) as FloatArray };
    };
    const { a: gotA, b: got } = run(undefined);
    await ctx.synchronize();
    const want = wide(hB);
    const refA = wide(hA);
    cpuTrsm({ ...c.variant, alpha, a: variable(hostViews(refA, l.a)), b: variable(hostViews(want, l.b)) });
    compareOutput(gotA, hA, () => false, 0, 'A');
    compareOutput(got, c.dtype === 'float64' ? want : Float32Array.from(want), (e) => l.b.inside[e] === 1, trsmTolerance(c.dtype, 600), `B (${c.dtype} ${caseName(c.variant)})`);
    // Members of the classes up to 32 through the per-size path: one leaf of the same arithmetic, bit for bit.
    const loop = run(l.compare).b;
    await ctx.synchronize();
    for (const q of l.compare) {
      const p = l.b.places[q]!;
      for (let j = 0; j < p.cols; j++) for (let i = 0; i < p.rows; i++) {
        const e = p.offset + i + j * p.ld;
        if (!Object.is(got[e], loop[e])) assert.fail(`member ${q} (t = ${l.shapes[q]!.t}) B(${i}, ${j}): ${got[e]} by class, ${loop[e]} per size`);
      }
    }
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

/** B := the reference's solve of (U^T U or L L^T) X = B with the factors in `a` (two triangular solves, as LAPACK's potrs). */
function referenceSolve(a: Float64Array, b: Float64Array, l: { a: Layout; b: Layout }, upper: boolean, only: (q: number) => boolean): void {
  const which = l.a.places.map((_, q) => q).filter(only);
  const av = variable(which.map((q) => hostViews(a, l.a)[q]!)), bv = variable(which.map((q) => hostViews(b, l.b)[q]!));
  const solve = (transA: 'N' | 'T'): void => cpuTrsm({ side: 'left', uplo: upper ? 'upper' : 'lower', transA, diag: 'nonunit', alpha: 1, a: av, b: bv });
  if (upper) { solve('T'); solve('N'); } else { solve('N'); solve('T'); }
}

for (const c of SOLVE_VB_CASES) {
  test(`vbatched ${c.op} ${c.dtype} ${c.uplo}: orders 0-600${c.op === 'posv' ? ', a failing member in every class,' : ''} against the reference`, { skip, timeout: 300_000 }, async () => {
    const { ctx, backend } = context();
    backend.force = {};
    const l = solveVbLayout(c);
    const rng = new Rng(c.seed + 7);
    const upper = c.uplo === 'upper';
    const eps = DTYPE_EPS[c.dtype];
    const hA = spdMembers(rng, c.dtype, l.a, l.orders, upper);
    // Element (i, j) of member q, column-major whatever the triangle.
    const at = (q: number, i: number, j: number): number => l.a.places[q]!.offset + i + j * l.a.places[q]!.ld;
    for (const q of l.failing.values()) { const f = rng.int(1, l.orders[q]! - 1); hA[at(q, f, f)] = -4; }
    // The reference factor (and info) on a float64 copy of the rounded input.
    const factor = wide(hA);
    const info = l.orders.map((n, q) => potrfMatrix(factor, l.a.places[q]!.offset, Math.max(1, l.a.places[q]!.ld), n, upper));
    // potrs solves with the reference's factors (rounded to the dtype).
    const input = c.op === 'potrs' ? (c.dtype === 'float64' ? factor.slice() : Float32Array.from(factor)) : hA;
    if (c.op === 'potrs') assert.ok(info.every((x) => x === 0));
    const hB = allocate(c.dtype, l.b.length);
    for (let e = 0; e < l.b.length; e++) hB[e] = l.b.inside[e] === 1 ? rng.uniform() : SENTINEL;
    const dA = ctx.upload(input) as DeviceStorage, dB = ctx.upload(hB) as DeviceStorage;
    const r = ctx[c.op]({ uplo: c.uplo, a: batchOf(dA, l.a), b: batchOf(dB, l.b) });
    assert.equal(ctx.lastRoute?.route, 'vbatched');
    const got = ctx.download(dB) as FloatArray, gotA = ctx.download(dA) as FloatArray, gotInfo = ctx.download(r.info as DeviceStorage) as Int32Array;
    await ctx.synchronize();
    l.orders.forEach((n, q) => assert.equal(gotInfo[q], info[q], `member ${q} (n = ${n}): info`));
    for (const q of l.failing.values()) assert.ok(info[q]! > 0, `member ${q} was planted to fail`);
    // A: potrs leaves it; posv holds the factor (to the failing column, as potrf leaves it).
    if (c.op === 'potrs') compareOutput(gotA, input, () => false, 0, 'A');
    else {
      const inA = new Uint8Array(l.a.length);
      l.orders.forEach((n, q) => { for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) if (upper ? i <= j : i >= j) inA[at(q, i, j)] = 1; });
      compareOutput(gotA, c.dtype === 'float64' ? factor : Float32Array.from(factor), (e) => inA[e] === 1, 64 * 600 * eps, 'A');
    }
    const want = wide(hB);
    referenceSolve(factor, want, l, upper, (q) => info[q] === 0);
    // Failed members' B unchanged bit for bit (want holds the input there); the others within the solve's tolerance.
    const failed = new Uint8Array(l.b.length);
    l.orders.forEach((_, q) => { if (info[q] !== 0) { const p = l.b.places[q]!; for (let j = 0; j < p.cols; j++) failed.fill(1, p.offset + j * p.ld, p.offset + j * p.ld + p.rows); } });
    compareOutput(got, c.dtype === 'float64' ? want : Float32Array.from(want), (e) => l.b.inside[e] === 1 && failed[e] === 0, 2 * trsmTolerance(c.dtype, 600), `B (${c.op} ${c.dtype} ${c.uplo})`);
    void classOf;
  });
}

/** dlaswp on member q's B in a host array: rows j <-> p_j for j ascending (P B) or descending (P^T B). */
function interchange(h: FloatArray, p: { offset: number; rows: number; cols: number; ld: number }, ipiv: Int32Array, at: number, inverse: boolean): void {
  for (let s = 0; s < p.rows; s++) {
    const j = inverse ? p.rows - 1 - s : s;
    const r = ipiv[at + j]!;
    if (r === j) continue;
    for (let c = 0; c < p.cols; c++) { const x = h[p.offset + j + c * p.ld]!; h[p.offset + j + c * p.ld] = h[p.offset + r + c * p.ld]!; h[p.offset + r + c * p.ld] = x; }
  }
}

/** Whether two arrays agree bit for bit on the elements `where` picks. */
function sameBits(got: ArrayLike<number>, want: ArrayLike<number>, where: (e: number) => boolean, what: string): void {
  for (let e = 0; e < got.length; e++) if (where(e) && !Object.is(got[e], want[e])) assert.fail(`${what}: element ${e} is ${got[e]}, want ${want[e]}`);
}

for (const c of LU_VB_CASES) {
  const name = c.op === 'getrs' ? `getrs ${c.dtype} trans ${c.trans}` : `gesv ${c.dtype}, a singular member in every class,`;
  test(`vbatched ${name} orders 0-600 against the reference and bit for bit against the class kernels composed`, { skip, timeout: 300_000 }, async () => {
    const { ctx, backend } = context();
    backend.force = {};
    const l = luVbLayout(c);
    const rng = new Rng(c.seed + 7);
    const count = l.orders.length;
    const stride = luPivotStride(l.orders);
    const eps = DTYPE_EPS[c.dtype];
    const failed = new Set(l.failing.values());
    const hA = allocate(c.dtype, l.a.length).fill(SENTINEL);
    l.orders.forEach((n, q) => fillLu(rng, c.dtype, hA, l.a.places[q]!.offset, l.a.places[q]!.ld, n, failed.has(q) ? rng.int(0, n - 2) : -1));
    // The reference's factors, pivots and info on a float64 copy of the rounded input; pivot slots past each order -7.
    const factor = wide(hA);
    const refPiv = new Int32Array(count * stride).fill(-7);
    const info = l.orders.map((n, q) => getrfMatrix(factor, l.a.places[q]!.offset, Math.max(1, l.a.places[q]!.ld), n, n, refPiv, q * stride));
    l.orders.forEach((n, q) => assert.equal(info[q]! > 0, failed.has(q), `member ${q} (n = ${n}): singular exactly where planted`));
    const round = (x: Float64Array): FloatArray => (c.dtype === 'float64' ? x.slice() : Float32Array.from(x));
    // getrs solves with the reference's factors (rounded to the dtype) and pivots.
    const input = c.op === 'getrs' ? round(factor) : hA;
    const hB = allocate(c.dtype, l.b.length);
    for (let e = 0; e < l.b.length; e++) hB[e] = l.b.inside[e] === 1 ? rng.uniform() : SENTINEL;
    const hP = c.op === 'getrs' ? refPiv : new Int32Array(count * stride).fill(-7);
    const dA = ctx.upload(input) as DeviceStorage, dB = ctx.upload(hB) as DeviceStorage, dP = ctx.upload(hP) as DeviceStorage;
    const a = batchOf(dA, l.a), b = batchOf(dB, l.b);
    const r = c.op === 'getrs' ? ctx.getrs({ trans: c.trans, a, ipiv: dP, b }) : ctx.gesv({ a, b, ipiv: dP });
    assert.equal(ctx.lastRoute?.route, 'vbatched');
    const got = ctx.download(dB) as FloatArray, gotA = ctx.download(dA) as FloatArray;
    const gotP = ctx.download(dP) as Int32Array, gotInfo = ctx.download(r.info as DeviceStorage) as Int32Array;
    await ctx.synchronize();
    l.orders.forEach((n, q) => assert.equal(gotInfo[q], c.op === 'getrs' ? 0 : info[q], `member ${q} (n = ${n}): info`));
    // Pivots: getrs leaves them; gesv's are the reference's exactly, slots past each order untouched.
    sameBits(gotP, refPiv, () => true, 'ipiv');
    const inA = new Uint8Array(l.a.length);
    l.orders.forEach((n, q) => { const p = l.a.places[q]!; for (let j = 0; j < n; j++) inA.fill(1, p.offset + j * p.ld, p.offset + j * p.ld + n); });
    if (c.op === 'getrs') compareOutput(gotA, input, () => false, 0, 'A');
    else compareOutput(gotA, round(factor), (e) => inA[e] === 1, 64 * 600 * eps, 'A');
    // The reference's solve with its factors (rounded to the dtype, as the GPU's getrs read them).
    const want = wide(hB);
    const solvable = l.orders.map((_, q) => q).filter((q) => info[q] === 0);
    const views = (h: Float64Array, lay: typeof l.a): MatrixView<Float64Array>[] => solvable.map((q) => ({ data: h, offset: lay.places[q]!.offset, ld: lay.places[q]!.ld, rows: lay.places[q]!.rows, cols: lay.places[q]!.cols }));
    const pivots = Int32Array.from(solvable.flatMap((q) => Array.from(refPiv.subarray(q * stride, q * stride + stride))));
    cpuGetrs({ trans: c.trans, a: variable(views(wide(round(factor)), l.a)), ipiv: pivots, pivotStride: stride, b: variable(views(want, l.b)), info: new Int32Array(solvable.length) });
    const inFailed = new Uint8Array(l.b.length);
    for (const q of failed) { const p = l.b.places[q]!; for (let j = 0; j < p.cols; j++) inFailed.fill(1, p.offset + j * p.ld, p.offset + j * p.ld + p.rows); }
    // Failed members' B unchanged bit for bit (want holds the input there); the others within the solve's tolerance.
    compareOutput(got, round(want), (e) => l.b.inside[e] === 1 && inFailed[e] === 0, 2 * trsmTolerance(c.dtype, 600), `B (${name})`);

    if (c.op === 'getrs') {
      // The same trsm class launches composed here: P B on the host (exact), L then U by class (op T: U^T, L^T, then P^T B).
      const hC = hB.slice();
      if (c.trans === 'N') l.b.places.forEach((p, q) => interchange(hC, p, refPiv, q * stride, false));
      const dC = ctx.upload(hC) as DeviceStorage;
      luTrsmCalls(c.trans, (uplo, diag) => {
        ctx.trsm({ side: 'left', uplo, transA: c.trans, diag, alpha: 1, a, b: batchOf(dC, l.b) });
        assert.equal(ctx.lastRoute?.route, 'vbatched');
      });
      const composed = ctx.download(dC) as FloatArray;
      await ctx.synchronize();
      if (c.trans === 'T') l.b.places.forEach((p, q) => interchange(composed, p, refPiv, q * stride, true));
      sameBits(got, composed, () => true, `B (${name}) against the composed class kernels`);
      return;
    }
    // gesv's members above 32 = getrf then getrs by class: getrs on gesv's factors and pivots gives their B bit for bit
    // (failed members aside; those up to 32 are solved in the fused class kernel, checked against the reference above).
    const dC = ctx.upload(hB) as DeviceStorage;
    ctx.getrs({ trans: 'N', a, ipiv: dP, b: batchOf(dC, l.b) });
    assert.equal(ctx.lastRoute?.route, 'vbatched');
    const viaGetrs = ctx.download(dC) as FloatArray;
    await ctx.synchronize();
    const inLarger = new Uint8Array(l.b.length);
    l.orders.forEach((n, q) => { if (n > 32) { const p = l.b.places[q]!; for (let j = 0; j < p.cols; j++) inLarger.fill(1, p.offset + j * p.ld, p.offset + j * p.ld + p.rows); } });
    sameBits(got, viaGetrs, (e) => inFailed[e] === 0 && inLarger[e] === 1, 'B against getrs by class on gesv\'s factors');
    // The per-size path on two members per class from 48 to 512: the same factorization kernels, its own solve.
    backend.force = { gesv: 'gesv' };
    const sub = new Int32Array(l.compare.length * luPivotStride(l.orders, l.compare)).fill(-7);
    const subStride = luPivotStride(l.orders, l.compare);
    const eA = ctx.upload(hA) as DeviceStorage, eB = ctx.upload(hB) as DeviceStorage, eP = ctx.upload(sub) as DeviceStorage;
    const rs = ctx.gesv({ a: batchOf(eA, l.a, l.compare), b: batchOf(eB, l.b, l.compare), ipiv: eP });
    assert.equal(ctx.lastRoute?.route, 'gesv');
    backend.force = {};
    const loopA = ctx.download(eA) as FloatArray, loopB = ctx.download(eB) as FloatArray;
    const loopP = ctx.download(eP) as Int32Array, loopInfo = ctx.download(rs.info as DeviceStorage) as Int32Array;
    await ctx.synchronize();
    l.compare.forEach((q, k) => {
      const n = l.orders[q]!;
      assert.equal(loopInfo[k], gotInfo[q], `member ${q}: info per size`);
      for (let j = 0; j < n; j++) assert.equal(loopP[k * subStride + j], gotP[q * stride + j], `member ${q} (n = ${n}): pivot ${j} per size`);
      const pa = l.a.places[q]!;
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
        const e = pa.offset + i + j * pa.ld;
        if (!Object.is(loopA[e], gotA[e])) assert.fail(`member ${q} (n = ${n}) A(${i}, ${j}): ${gotA[e]} by class, ${loopA[e]} per size`);
      }
    });
    const inCompare = new Uint8Array(l.b.length);
    for (const q of l.compare) { const p = l.b.places[q]!; for (let j = 0; j < p.cols; j++) inCompare.fill(1, p.offset + j * p.ld, p.offset + j * p.ld + p.rows); }
    // B: the compared members' solutions by class, every other element the input (the per-size call touches no other member).
    const byClass = hB.slice();
    for (let e = 0; e < byClass.length; e++) if (inCompare[e] === 1) byClass[e] = got[e]!;
    compareOutput(loopB, byClass, (e) => inCompare[e] === 1, 2 * trsmTolerance(c.dtype, 600), 'B per size against by class');
  });
}
