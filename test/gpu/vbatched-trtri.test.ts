/**
 * Variable-size trtri by size class (route 'vbatched') on the GPU against the CPU reference, on
 * fresh random data: one batch per case mixes orders 0 .. 600 (zeros, ones, every order 1-40,
 * members of every class and beyond the last: test/helpers/vbatched-cases.ts vbatchedOrders),
 * ragged leading dimensions and gaps, in shuffled order; well-conditioned triangles
 * (test/helpers/trsm-data.ts fillTriangle: the other triangle NaN, and a unit diagonal NaN, so a
 * read or a write of them shows). Both dtypes, uplo and diag. Non-unit cases plant an exact zero
 * on the diagonal of a member in the classes 8, 32, 48, 128 and 512: info exactly as LAPACK's
 * dtrtri (the reference's), the singular member unchanged bit for bit; the triangles of the
 * others within the tolerance; every element outside the triangles unchanged bit for bit. Then
 * the same batch through the per-size path (force 'trtri'): the classes within one leaf (orders up
 * to 32) bit for bit, both run one leaf of the same arithmetic.
 *
 * Compile time: the file's kernels (131 on an H100's tables, counted on a planning device: 24 trtri
 * class leaves, 2 scans, 16 trsm class leaves and the variable-size GEMM's class kernels of the
 * recursion's solves, and the per-size kernels of the members beyond 512 and of the per-size run)
 * are compiled at once before the first case. Skips with one line where no GPU is usable.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { variable, type MatrixView } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import type { Diag, Uplo } from '../../src/core/enums.js';
import type { DeviceStorage } from '../../src/core/storage.js';
import type { Context } from '../../src/api/context.js';
import { cpuTrtri } from '../../src/cpu/lapack/inverse.js';
import { gpuContext, gpuSkipReason, warmFileKernels } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';
import { fillTriangle, trsmTolerance } from '../helpers/trsm-data.js';
import { batchOf, classOf, vbatchedLayout, vbatchedOrders, type Layout } from '../helpers/vbatched-cases.js';

const skip = gpuSkipReason();
const SENTINEL = 12345.5;

interface Case { readonly dtype: DType; readonly uplo: Uplo; readonly diag: Diag; readonly seed: number }
const CASES: readonly Case[] = (['float64', 'float32'] as DType[]).flatMap((dtype, d) => (['lower', 'upper'] as const).flatMap((uplo, u) =>
  (['nonunit', 'unit'] as const).map((diag, g): Case => ({ dtype, uplo, diag, seed: 5100 + d * 4 + u * 2 + g }))));

/** A case's members: orders, their places, and the members planted singular (non-unit), with the 1-based column. */
function caseLayout(c: Case): { orders: number[]; l: Layout; singular: Map<number, number> } {
  const rng = new Rng(c.seed);
  const orders = vbatchedOrders(rng);
  const l = vbatchedLayout(rng, orders.map((n) => [n, n] as const));
  const singular = new Map<number, number>();
  if (c.diag === 'nonunit') {
    for (const bound of [8, 32, 48, 128, 512]) {
      const q = orders.findIndex((n, i) => n > 1 && classOf(n) === bound && !singular.has(i));
      if (q >= 0) singular.set(q, 1 + ((q * 7) % orders[q]!));
    }
  }
  return { orders, l, singular };
}

/** The case's calls on `ctx` (by class, then per size) on zeros: what the file compiles. */
function recordCalls(ctx: Context, force: (route: string | undefined) => void): void {
  for (const c of CASES) {
    const { l } = caseLayout(c);
    const d = ctx.upload(allocate(c.dtype, l.length)) as DeviceStorage;
    for (const route of [undefined, 'trtri']) {
      force(route);
      ctx.trtri({ uplo: c.uplo, diag: c.diag, a: batchOf(d, l) });
    }
  }
  force(undefined);
}

before(() => warmFileKernels('vbatched-trtri', (ctx, planning) =>
  recordCalls(ctx, (route) => { if (planning) planning.force = route === undefined ? {} : { trtri: route }; })));

const hostViews = (h: FloatArray, l: Layout): MatrixView<FloatArray>[] => l.places.map((p) => ({ data: h, offset: p.offset, ld: p.ld, rows: p.rows, cols: p.cols }));

for (const c of CASES) {
  test(`vbatched trtri ${c.dtype} ${c.uplo} ${c.diag}: orders 0-600 in one batch${c.diag === 'nonunit' ? ', singular members in five classes,' : ''} against the reference`, { skip, timeout: 300_000 }, async () => {
    const { ctx, backend } = gpuContext();
    const { orders, l, singular } = caseLayout(c);
    const rng = new Rng(c.seed + 17);
    const hA = allocate(c.dtype, l.length).fill(SENTINEL);
    orders.forEach((n, q) => fillTriangle(rng, hA, l.places[q]!.offset, l.places[q]!.ld, n, c.uplo, c.diag));
    for (const [q, col] of singular) hA[l.places[q]!.offset + (col - 1) * (1 + l.places[q]!.ld)] = 0;
    // Which member's triangle holds each element (-1: none).
    const owner = new Int32Array(l.length).fill(-1);
    orders.forEach((n, q) => {
      const p = l.places[q]!;
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
        if (c.uplo === 'lower' ? i > j || (i === j && c.diag === 'nonunit') : i < j || (i === j && c.diag === 'nonunit')) owner[p.offset + i + j * p.ld] = q;
      }
    });
    const run = (route: string | undefined): { a: FloatArray; info: Int32Array } => {
      backend.force = route === undefined ? {} : { trtri: route };
      const dA = ctx.upload(hA) as DeviceStorage;
      const r = ctx.trtri({ uplo: c.uplo, diag: c.diag, a: batchOf(dA, l) });
      assert.equal(ctx.lastRoute?.route, route ?? 'vbatched');
      return { a: ctx.download(dA) as FloatArray, info: ctx.download(r.info as DeviceStorage) as Int32Array };
    };
    const got = run(undefined);
    await ctx.synchronize();
    backend.force = {};
    // The reference on a float64 copy of the rounded input.
    const want = Float64Array.from(hA);
    const wantInfo = new Int32Array(orders.length);
    cpuTrtri({ uplo: c.uplo, diag: c.diag, a: variable(hostViews(want, l)), info: wantInfo });
    for (const [q, col] of singular) assert.equal(wantInfo[q], col, `member ${q} was planted singular at ${col}`);
    orders.forEach((n, q) => assert.equal(got.info[q], wantInfo[q], `member ${q} (n = ${n}): info`));
    const tol = trsmTolerance(c.dtype, 600);
    for (let e = 0; e < l.length; e++) {
      const q = owner[e]!;
      const g = got.a[e]!, w = c.dtype === 'float64' ? want[e]! : Math.fround(want[e]!);
      if (Object.is(g, w) || (Number.isNaN(g) && Number.isNaN(w))) continue;
      const solved = q >= 0 && wantInfo[q] === 0;
      if (solved && Number.isFinite(g) && Math.abs(g - w) <= tol * Math.max(1, Math.abs(w))) continue;
      assert.fail(`element ${e} (member ${q}, n = ${q >= 0 ? orders[q] : '-'}) is ${g}, expected ${w}${solved ? '' : ' (must be unchanged)'}`);
    }
    // The per-size path: members up to 32 are one leaf of the same arithmetic in both, bit for bit.
    const loop = run('trtri');
    await ctx.synchronize();
    backend.force = {};
    orders.forEach((n, q) => {
      assert.equal(loop.info[q], wantInfo[q], `per size, member ${q}: info`);
      if (n > 32) return;
      const p = l.places[q]!;
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
        const e = p.offset + i + j * p.ld;
        if (!Object.is(got.a[e], loop.a[e])) assert.fail(`member ${q} (n = ${n}) A(${i}, ${j}): ${got.a[e]} by class, ${loop.a[e]} per size`);
      }
    });
  });
}
