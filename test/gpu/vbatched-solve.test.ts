/**
 * Variable-size trsm, potrs and posv by size class (route 'vbatched') on the GPU against the CPU
 * reference, on fresh random data: one batch per case mixes orders 0 .. 600 (zeros, ones, every
 * order 1-40, members of every class and beyond the last), B's other dimension 0 to 70, 300 for a
 * few small members (the leaf's column tiling) and 1-8 from 200 up, ragged leading dimensions and
 * gaps, in shuffled order (test/helpers/vbatched-solve-cases.ts); every element outside the
 * members' B (and A's other triangle, NaN for trsm) checked unchanged. trsm: both dtypes, every
 * side, uplo, trans and diag; then members of the classes up to 32 (two per class) through the
 * per-size path (force 'trsm'), bit for bit: both run one leaf of the same arithmetic. potrs: A a
 * Cholesky factor (the reference's), X against two reference solves. posv: a member failing at a
 * planted column in every class: info against the reference's, its B unchanged bit for bit, A
 * against the reference factor.
 *
 * Compile time: the file's kernels (252 on sm_90, counted on a planning device by
 * test/cuda/vbatched-trsm.test.ts, at most VBATCHED_SOLVE_GPU_KERNELS) are compiled at once on
 * the compile workers before the first case: the 32 trsm class leaves, the variable-size GEMM's
 * class kernels of the updates, potrf's class kernels, the 32 per-size leaves of the compared
 * members, and the per-size kernels of the members beyond 512. Estimate on an H200: 10-20 s of
 * NVRTC on 16 workers, the CPU reference a few
 * seconds; about 30 s in all. Skips with one line where no GPU is usable.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { variable, type MatrixView } from '../../src/core/batch.js';
import { allocate, DTYPE_EPS, type DType, type FloatArray } from '../../src/core/dtype.js';
import type { DeviceStorage } from '../../src/core/storage.js';
import { potrfMatrix } from '../../src/cpu/lapack/potrf.js';
import { cpuTrsm } from '../../src/cpu/trsm.js';
import { gpuContext, gpuSkipReason, warmFileKernels } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';
import { caseName, compareOutput, fillTriangle, trsmTolerance } from '../helpers/trsm-data.js';
import { batchOf, classOf, type Layout } from '../helpers/vbatched-cases.js';
import { recordVbatchedSolveCalls, SOLVE_VB_CASES, solveVbLayout, TRSM_VB_CASES, trsmVbLayout } from '../helpers/vbatched-solve-cases.js';

const skip = gpuSkipReason();
const SENTINEL = 12345.5;

const context = gpuContext;

/** Every kernel of the file, compiled at once (the calls made on a device that runs nothing). */
before(() => warmFileKernels('vbatched-solve', (ctx, planning) =>
  recordVbatchedSolveCalls(ctx, (force) => { if (planning) planning.force = force === undefined ? {} : { trsm: force }; })));

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
