/**
 * The vendor routes (cuda/vendor/) on the GPU, each forced, against the CPU reference on fresh
 * random data: potrf and getrf on cuSOLVER's single-matrix routines and cuBLAS's batched LU, syev on
 * cusolverDnXsyevBatched, gemm on cuBLAS. Both precisions; orders 1, 7, 33, 65, 129, 257 and one
 * large single matrix; matrices placed with ld > n, gaps between them and an offset, NaN everywhere
 * else (the other triangle included), which must come back bit for bit; list batches; info per
 * matrix with not-SPD, singular, NaN and Inf matrices among good ones; 0-based pivots equal to the
 * reference's. Then the routes as the router takes them: the card's table, a capture (which passes
 * over them), and a missing library. A route whose library does not load here skips with the reason.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { list, strided, type Batch } from '../../src/core/batch.js';
import type { DType, FloatArray } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import type { Storage } from '../../src/core/storage.js';
import { Context } from '../../src/api/context.js';
import { cpuGemm } from '../../src/cpu/gemm.js';
import { cpuGetrf, cpuPotrf } from '../../src/cpu/lapack/index.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { vendorRuleFor, vendorTableFor } from '../../src/cuda/model/tuning/vendor-tables.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/types.js';
import {
  cublasGemm, cusolverGetrf, cusolverPotrf, cusolverSyev, vendorUsable,
} from '../../src/cuda/vendor/index.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';
import { at, batchOf, needs, placed, same, where, type Placed } from '../helpers/vendor-placed.js';
import { choleskyResidualByProducts, luResidual, readDense, readSymmetric, readTriangle, zeros } from '../helpers/lapack-checks.js';
import { Rng } from '../helpers/random.js';
import { checkSyevOnGpu } from '../helpers/syev-gpu-checks.js';

const skip = gpuSkipReason();
const DTYPES: readonly DType[] = ['float64', 'float32'];
const SIZES = [1, 7, 33, 65, 129, 257];
const EPS: Record<DType, number> = { float64: 2 ** -52, float32: 2 ** -23 };
const THRESHOLD = 30;

/** The largest finite magnitude in `a`, at least 1. */
function maxAbs(a: ArrayLike<number>): number {
  let s = 1;
  for (let e = 0; e < a.length; e++) if (Number.isFinite(a[e]!)) s = Math.max(s, Math.abs(a[e]!));
  return s;
}

type Kind = 'spd' | 'notSpd' | 'nan' | 'inf' | 'general' | 'singular';
/** Fills matrix k: SPD (symmetric, dominant diagonal) and variants, or general (singular: a zero column). */
function fill(rng: Rng, p: Placed, k: number, kind: Kind, uplo: Uplo | null): void {
  const n = p.cols;
  for (let j = 0; j < n; j++) for (let i = 0; i < p.rows; i++) p.data[at(p, k, i, j)] = rng.uniform();
  if (kind === 'general' || kind === 'singular' || kind === 'nan' && uplo === null) {
    if (kind === 'singular') { const c = rng.int(0, n - 1); for (let i = 0; i < p.rows; i++) p.data[at(p, k, i, c)] = 0; }
    if (kind === 'nan') p.data[at(p, k, rng.int(0, p.rows - 1), rng.int(0, n - 1))] = NaN;
    return;
  }
  for (let j = 0; j < n; j++) {
    for (let i = j + 1; i < n; i++) p.data[at(p, k, j, i)] = p.data[at(p, k, i, j)]!;
    p.data[at(p, k, j, j)] = n + rng.uniform(0.5, 1);
  }
  if (kind === 'notSpd') { const d = rng.int(0, n - 1); p.data[at(p, k, d, d)] = -rng.uniform(0.1, 1); }
  if (kind === 'nan' || kind === 'inf') {
    const i = rng.int(0, n - 1), j = rng.int(0, i);
    const v = kind === 'nan' ? NaN : i === j ? -Infinity : rng.next() < 0.5 ? Infinity : -Infinity;
    p.data[at(p, k, i, j)] = v; p.data[at(p, k, j, i)] = v;
  }
  if (uplo) for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) if (uplo === 'lower' ? i < j : i > j) p.data[at(p, k, i, j)] = NaN;
}

// ---------------------------------------------------------------------------------------------
// potrf

function checkPotrf(dev: GpuDevice, rng: Rng, dtype: DType, uplo: Uplo, n: number, kinds: readonly Kind[]): void {
  const count = kinds.length;
  const p = placed(dtype, n, n, count);
  kinds.forEach((kind, k) => fill(rng, p, k, kind, uplo));
  const host = p.data.slice();
  const want = { ...p, data: host.slice() };
  const refInfo = new Int32Array(count);
  cpuPotrf({ uplo, a: batchOf(want, want.data), info: refInfo });
  const dA = dev.upload(host), dInfo = dev.upload(new Int32Array(count + 1).fill(-7));
  try {
    cusolverPotrf(dev, { uplo, a: batchOf(p, dA), info: dInfo });
    const got = dev.download(dA) as FloatArray, info = dev.download(dInfo) as Int32Array;
    const what = `cusolver potrf ${dtype} ${uplo} n=${n}`;
    assert.deepEqual([...info], [...refInfo, -7], `${what}: info (and nothing past it)`);
    const scale = new Float64Array(count);
    for (let e = 0; e < got.length; e++) { const w = where(p, e); if (w && Number.isFinite(want.data[e]!)) scale[w.k] = Math.max(scale[w.k]!, Math.abs(want.data[e]!)); }
    for (let e = 0; e < got.length; e++) {
      const w = where(p, e);
      const inTriangle = w !== undefined && (uplo === 'lower' ? w.i >= w.j : w.i <= w.j);
      if (!inTriangle) { assert.ok(Object.is(got[e], host[e]) || (Number.isNaN(got[e]!) && Number.isNaN(host[e]!)), `${what}: element ${e} outside the triangle changed`); continue; }
      const k = refInfo[w.k]!;
      if (k > 0 && !(w.i < k - 1 && w.j < k - 1)) continue;   // a failed matrix: its leading (k - 1) block only
      const tol = 40 * (n + 1) * EPS[dtype] * scale[w.k]!;
      assert.ok(same(got[e]!, want.data[e]!) || Math.abs(got[e]! - want.data[e]!) <= tol, `${what}: matrix ${w.k} (${w.i}, ${w.j}) = ${got[e]}, reference ${want.data[e]}`);
    }
  } finally {
    dA.dispose(); dInfo.dispose();
  }
}

test('cusolver potrf: both precisions and uplo, ragged orders, odd layouts, SPD / not SPD / NaN / Inf', { skip, timeout: 600_000 }, (t) => {
  const dev = needs(t, 'cusolver');
  if (!dev) return;
  const rng = new Rng(11);
  for (const dtype of DTYPES) for (const uplo of ['lower', 'upper'] as const) for (const n of SIZES) {
    checkPotrf(dev, rng, dtype, uplo, n, n === 1 ? ['spd', 'notSpd', 'nan'] : ['spd', 'notSpd', 'spd', 'nan', 'inf', 'spd']);
  }
});

test('cusolver potrf: one large matrix (n = 4096, float64), by residual', { skip, timeout: 600_000 }, (t) => {
  const dev = needs(t, 'cusolver');
  if (!dev) return;
  const rng = new Rng(12);
  const n = 4096;
  const p = placed('float64', n, n, 1);
  fill(rng, p, 0, 'spd', 'lower');
  const host = p.data.slice();
  const dA = dev.upload(host), dInfo = dev.upload(new Int32Array(1).fill(-7));
  try {
    cusolverPotrf(dev, { uplo: 'lower', a: batchOf(p, dA), info: dInfo });
    const got = dev.download(dA) as FloatArray;
    assert.equal((dev.download(dInfo) as Int32Array)[0], 0);
    const x = zeros(n, 2);
    for (let e = 0; e < x.data.length; e++) x.data[e] = rng.uniform();
    const view = (d: FloatArray) => ({ data: d, offset: p.offset, ld: p.ld, rows: n, cols: n });
    const r = choleskyResidualByProducts(readSymmetric(view(host), 'lower'), readTriangle(view(got), 'lower'), 'lower', EPS.float64, x);
    assert.ok(r < THRESHOLD, `residual ratio ${r}`);
    for (let e = 0; e < got.length; e++) if (!where(p, e) || where(p, e)!.i < where(p, e)!.j) assert.ok(Number.isNaN(got[e]!), `element ${e} outside the triangle changed`);
  } finally {
    dA.dispose(); dInfo.dispose();
  }
});

// ---------------------------------------------------------------------------------------------
// getrf

type GetrfRun = (dev: GpuDevice, r: { a: Batch<DeviceArray>; ipiv: DeviceArray; pivotStride: number; info: DeviceArray }) => void;

function checkGetrf(dev: GpuDevice, run: GetrfRun, label: string, rng: Rng, dtype: DType, rows: number, cols: number, kinds: readonly Kind[]): void {
  const count = kinds.length, k = Math.min(rows, cols);
  const p = placed(dtype, rows, cols, count);
  kinds.forEach((kind, m) => fill(rng, p, m, kind, null));
  const host = p.data.slice();
  const want = { ...p, data: host.slice() };
  const refInfo = new Int32Array(count), refPiv = new Int32Array(count * k);
  cpuGetrf({ a: batchOf(want, want.data), ipiv: refPiv, pivotStride: k, info: refInfo });
  const dA = dev.upload(host), dInfo = dev.upload(new Int32Array(count + 1).fill(-7)), dPiv = dev.upload(new Int32Array(count * k + 1).fill(-7));
  try {
    run(dev, { a: batchOf(p, dA), ipiv: dPiv, pivotStride: k, info: dInfo });
    const got = dev.download(dA) as FloatArray, info = dev.download(dInfo) as Int32Array, piv = dev.download(dPiv) as Int32Array;
    const what = `${label} getrf ${dtype} ${rows} x ${cols}`;
    assert.deepEqual([...info], [...refInfo, -7], `${what}: info (and nothing past it)`);
    assert.equal(piv[count * k], -7, `${what}: wrote past the pivots`);
    let mismatched = 0;
    for (let m = 0; m < count; m++) {
      const mine = [...piv.subarray(m * k, (m + 1) * k)], theirs = [...refPiv.subarray(m * k, (m + 1) * k)];
      mine.forEach((q, j) => assert.ok(q >= j && q < rows, `${what}: matrix ${m} pivot ${j} = ${q}`));
      if (kinds[m] === 'nan') continue;   // past a NaN the vendor's pivot search may differ (only info and this matrix's own data are checked)
      if (mine.join() !== theirs.join()) {
        mismatched++;
        const view = (d: FloatArray) => ({ data: d, offset: p.offset + m * p.stride, ld: p.ld, rows, cols });
        const r = luResidual(readDense(view(host)), readDense(view(got)), piv, m * k, EPS[dtype]);
        assert.ok(r < THRESHOLD, `${what}: matrix ${m} pivots differently and its residual ratio is ${r}`);
      }
    }
    assert.ok(dtype === 'float32' ? mismatched <= Math.floor(count / 20) + 1 : mismatched === 0, `${what}: ${mismatched} of ${count} matrices pivot differently from the reference`);
    const tol = 60 * Math.max(rows, cols) * EPS[dtype] * maxAbs(want.data);
    for (let e = 0; e < got.length; e++) {
      const w = where(p, e);
      if (!w) { assert.ok(Number.isNaN(got[e]!), `${what}: element ${e} outside the matrices changed`); continue; }
      const m = w.k;
      if (kinds[m] === 'nan' || [...piv.subarray(m * k, (m + 1) * k)].join() !== [...refPiv.subarray(m * k, (m + 1) * k)].join()) continue;
      assert.ok(same(got[e]!, want.data[e]!) || Math.abs(got[e]! - want.data[e]!) <= tol, `${what}: matrix ${m} (${w.i}, ${w.j}) = ${got[e]}, reference ${want.data[e]}`);
    }
  } finally {
    dA.dispose(); dInfo.dispose(); dPiv.dispose();
  }
}

const LU_KINDS: readonly Kind[] = ['general', 'singular', 'general', 'nan', 'general', 'singular'];

test('cusolver getrf: both precisions, ragged and rectangular, odd layouts, regular / singular / NaN', { skip, timeout: 600_000 }, (t) => {
  const dev = needs(t, 'cusolver');
  if (!dev) return;
  const rng = new Rng(21);
  for (const dtype of DTYPES) {
    for (const n of SIZES) checkGetrf(dev, cusolverGetrf, 'cusolver', rng, dtype, n, n, n === 1 ? ['general', 'singular'] : LU_KINDS);
    checkGetrf(dev, cusolverGetrf, 'cusolver', rng, dtype, 65, 33, ['general', 'nan', 'general']);
    checkGetrf(dev, cusolverGetrf, 'cusolver', rng, dtype, 33, 65, ['general', 'general', 'nan']);
  }
});

test('cusolver getrf: one large matrix (n = 4096, float64), by products', { skip, timeout: 600_000 }, (t) => {
  const dev = needs(t, 'cusolver');
  if (!dev) return;
  const rng = new Rng(23);
  const n = 4096;
  const p = placed('float64', n, n, 1);
  fill(rng, p, 0, 'general', null);
  const host = p.data.slice();
  const dA = dev.upload(host), dInfo = dev.upload(new Int32Array(1).fill(-7)), dPiv = dev.upload(new Int32Array(n).fill(-7));
  try {
    cusolverGetrf(dev, { a: batchOf(p, dA), ipiv: dPiv, pivotStride: n, info: dInfo });
    const got = dev.download(dA) as FloatArray, piv = dev.download(dPiv) as Int32Array;
    assert.equal((dev.download(dInfo) as Int32Array)[0], 0);
    piv.forEach((q, j) => assert.ok(q >= j && q < n, `pivot ${j} = ${q}`));
    // P A x against L (U x) for a random x.
    const x = Float64Array.from({ length: n }, () => rng.uniform());
    const a = (i: number, j: number): number => host[at(p, 0, i, j)]!, lu = (i: number, j: number): number => got[at(p, 0, i, j)]!;
    const ax = new Float64Array(n);
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) ax[i] += a(i, j) * x[j]!;
    for (let j = 0; j < n; j++) { const q = piv[j]!; const s = ax[j]!; ax[j] = ax[q]!; ax[q] = s; }
    const ux = new Float64Array(n), lux = new Float64Array(n);
    for (let j = 0; j < n; j++) for (let i = 0; i <= j; i++) ux[i] += lu(i, j) * x[j]!;
    for (let j = 0; j < n; j++) { lux[j] += ux[j]!; for (let i = j + 1; i < n; i++) lux[i] += lu(i, j) * ux[j]!; }
    let err = 0, scale = 0;
    for (let i = 0; i < n; i++) { err = Math.max(err, Math.abs(ax[i]! - lux[i]!)); scale = Math.max(scale, Math.abs(ax[i]!)); }
    assert.ok(err <= 1e3 * n * EPS.float64 * scale, `max |P A x - L U x| = ${err} (|P A x| up to ${scale})`);
  } finally {
    dA.dispose(); dInfo.dispose(); dPiv.dispose();
  }
});

// ---------------------------------------------------------------------------------------------
// syev

test('cusolver syev: both precisions, jobs and uplo, ragged orders, NaN among good matrices', { skip, timeout: 600_000 }, (t) => {
  const dev = needs(t, 'syevBatched');
  if (!dev) return;
  const rng = new Rng(31);
  for (const dtype of DTYPES) for (const vectors of [true, false]) for (const uplo of ['lower', 'upper'] as const) for (const n of SIZES.filter((s) => s <= 129)) {
    checkSyevOnGpu(dev, rng, dtype, n, 4, vectors, uplo, (r) => cusolverSyev(dev, r), { kinds: ['random', 'repeated', 'clustered'], nanVectors: true, label: 'cusolver' });
  }
  checkSyevOnGpu(dev, rng, 'float64', 257, 3, true, 'lower', (r) => cusolverSyev(dev, r), { kinds: ['random'], nanVectors: true, label: 'cusolver' });
});

// ---------------------------------------------------------------------------------------------
// gemm

function checkGemm(dev: GpuDevice, rng: Rng, dtype: DType, transA: 'N' | 'T', transB: 'N' | 'T', m: number, n: number, k: number, count: number, beta: number): void {
  const pa = placed(dtype, transA === 'N' ? m : k, transA === 'N' ? k : m, count);
  const pb = placed(dtype, transB === 'N' ? k : n, transB === 'N' ? n : k, count);
  const pc = placed(dtype, m, n, count);
  for (const p of [pa, pb, pc]) for (let e = 0; e < p.data.length; e++) if (where(p, e)) p.data[e] = rng.uniform();
  if (beta === 0) for (let e = 0; e < pc.data.length; e++) if (where(pc, e)) pc.data[e] = NaN;   // beta = 0 never reads C
  const want = pc.data.slice();
  cpuGemm({ transA, transB, alpha: 1.5, beta, a: batchOf(pa, pa.data), b: batchOf(pb, pb.data), c: batchOf(pc, want) });
  const [dA, dB, dC] = [dev.upload(pa.data), dev.upload(pb.data), dev.upload(pc.data)];
  try {
    cublasGemm(dev, { transA, transB, alpha: 1.5, beta, a: batchOf(pa, dA), b: batchOf(pb, dB), c: batchOf(pc, dC) });
    const got = dev.download(dC) as FloatArray;
    const what = `cublas gemm ${dtype} ${transA}${transB} ${m} x ${n} x ${k} beta ${beta}`;
    const tol = 4 * (k + 2) * EPS[dtype] * (1.5 * k + 1);
    for (let e = 0; e < got.length; e++) {
      if (!where(pc, e)) { assert.ok(Number.isNaN(got[e]!), `${what}: element ${e} outside C changed`); continue; }
      assert.ok(Math.abs(got[e]! - want[e]!) <= tol, `${what}: element ${e} = ${got[e]}, reference ${want[e]}`);
    }
  } finally {
    dA.dispose(); dB.dispose(); dC.dispose();
  }
}

test('cublas gemm: both precisions, transposes, ragged orders, odd layouts, beta 0 never reads C', { skip, timeout: 600_000 }, (t) => {
  const dev = needs(t, 'cublas');
  if (!dev) return;
  const rng = new Rng(41);
  for (const dtype of DTYPES) for (const n of SIZES.filter((s) => s <= 129)) {
    checkGemm(dev, rng, dtype, 'N', 'N', n, n, n, 3, 0);
    checkGemm(dev, rng, dtype, 'T', 'N', n, n + 1, Math.max(1, n - 1), 3, 1);
    checkGemm(dev, rng, dtype, 'N', 'T', n + 2, n, n, 1, -0.5);
    checkGemm(dev, rng, dtype, 'T', 'T', n, n, n, 1, 0);
  }
  checkGemm(dev, rng, 'float64', 'N', 'N', 257, 257, 257, 2, 1);
});

// ---------------------------------------------------------------------------------------------
// Through a context: list batches, the router's choice, a capture

function context(dev: GpuDevice): { ctx: Context; backend: CudaBackend } {
  const backend = new CudaBackend(dev, 'test');
  return { ctx: new Context('cuda', backend, backend), backend };
}

test('list batches through a context, each vendor route forced: the CPU reference\'s results', { skip, timeout: 600_000 }, (t) => {
  const dev = needs(t, 'cusolver');
  if (!dev || !vendorUsable(dev, 'cublas')) { if (dev) t.skip('cublas does not load on this machine'); return; }
  const { ctx, backend } = context(dev);
  const rng = new Rng(51);
  const n = 33, count = 4;
  const spd = (): Float64Array => {
    const a = new Float64Array(n * n);
    for (let j = 0; j < n; j++) for (let i = j; i < n; i++) { const v = rng.uniform(); a[i + j * n] = v; a[j + i * n] = v; }
    for (let j = 0; j < n; j++) a[j + j * n] = n + 1;
    return a;
  };
  const hosts = Array.from({ length: count }, spd);
  const devs = hosts.map((h) => ctx.upload(h.slice()));
  const lst = (arrays: readonly Storage[]) => list([...arrays], { rows: n });
  // potrf
  backend.force = { potrf: 'cusolver', getrf: 'cusolver', gemm: 'cublas', syev: 'cusolver' };
  const wantPotrf = hosts.map((h) => h.slice());
  const refInfo = referenceInfo((info) => cpuPotrf({ uplo: 'lower', a: lst(wantPotrf) as never, info }), count);
  const { info } = ctx.potrf({ a: lst(devs) as never });
  assert.equal(ctx.lastRoute?.route, 'cusolver');
  assert.deepEqual([...ctx.download(info as never)], [...refInfo]);
  devs.forEach((d, m) => close(ctx.download(d) as Float64Array, wantPotrf[m]!, (i) => i % n >= Math.floor(i / n), `potrf list #${m}`));
  // getrf (cuSOLVER, one matrix per call)
  const gen = hosts.map(() => Float64Array.from({ length: n * n }, () => rng.uniform()));
  const gdev = gen.map((h) => ctx.upload(h.slice()));
  const wantLu = gen.map((h) => h.slice()), refPiv = new Int32Array(n * count);
  const refLuInfo = referenceInfo((info) => cpuGetrf({ a: lst(wantLu) as never, ipiv: refPiv, pivotStride: n, info }), count);
  const lu = ctx.getrf({ a: lst(gdev) as never });
  assert.equal(ctx.lastRoute?.route, 'cusolver');
  assert.deepEqual([...ctx.download(lu.info as never)], [...refLuInfo]);
  assert.deepEqual([...ctx.download(lu.ipiv as never)], [...refPiv]);
  gdev.forEach((d, m) => close(ctx.download(d) as Float64Array, wantLu[m]!, () => true, `getrf list #${m}`));
  // gemm (cublas?gemmBatched over the matrices' addresses)
  const [ga, gb, gc] = [0, 1, 2].map(() => hosts.map(() => Float64Array.from({ length: n * n }, () => rng.uniform())));
  const wantC = gc!.map((h) => h.slice());
  cpuGemm({ transA: 'T', transB: 'N', alpha: 2, beta: 0.5, a: lst(ga!) as never, b: lst(gb!) as never, c: lst(wantC) as never });
  const dC = gc!.map((h) => ctx.upload(h.slice()));
  ctx.gemm({ transA: 'T', alpha: 2, beta: 0.5, a: lst(ga!.map((h) => ctx.upload(h))) as never, b: lst(gb!.map((h) => ctx.upload(h))) as never, c: lst(dC) as never });
  assert.equal(ctx.lastRoute?.route, 'cublas');
  dC.forEach((d, m) => close(ctx.download(d) as Float64Array, wantC[m]!, () => true, `gemm list #${m}`));
});

function referenceInfo(run: (info: Int32Array) => void, count: number): Int32Array {
  const info = new Int32Array(count);
  run(info);
  return info;
}
function close(got: Float64Array, want: Float64Array, region: (e: number) => boolean, what: string): void {
  const scale = maxAbs(want);
  for (let e = 0; e < got.length; e++) {
    if (!region(e)) { assert.ok(same(got[e]!, want[e]!), `${what}: element ${e} outside the written region changed`); continue; }
    assert.ok(Math.abs(got[e]! - want[e]!) <= 1e-11 * scale, `${what}: element ${e} = ${got[e]}, reference ${want[e]}`);
  }
}

test('the router: the card\'s table chooses the vendor where it measured it faster; a capture records the own route', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const { ctx } = context(dev);
  const table = vendorTableFor(dev.info.name);
  const n = 4096;
  const rng = new Rng(61);
  const p = placed('float64', n, n, 1);
  fill(rng, p, 0, 'spd', 'lower');
  const dA = ctx.upload(p.data.slice() as Float64Array), pristine = ctx.upload(p.data.slice() as Float64Array);
  const a = strided(dA, { rows: n, cols: n, count: 1, ld: p.ld, stride: p.stride, offset: p.offset });
  const inRule = vendorRuleFor(table, { op: 'potrf', route: 'cusolver', dtype: 'float64', n, count: 1 }) !== undefined;
  const { info } = ctx.potrf({ a: a as never, uplo: 'lower' });
  assert.equal(ctx.lastRoute?.route, inRule && vendorUsable(dev, 'cusolver') ? 'cusolver' : 'potrf', `${dev.info.name}: potrf ${n}`);
  assert.equal((ctx.download(info as never) as Int32Array)[0], 0);
  const factor = ctx.download(dA) as Float64Array;
  // The same call captured: the own route, in the run and in the recording; its replay factors as well.
  ctx.copy(pristine, dA);
  const dInfo = ctx.alloc('int32', 1);
  const captured = ctx.capture(() => { ctx.potrf({ a: a as never, uplo: 'lower', info: dInfo }); });
  assert.equal(ctx.lastRoute?.route, 'potrf');
  ctx.copy(pristine, dA);
  captured.replay();
  const replayed = ctx.download(dA) as Float64Array;
  assert.equal((ctx.download(dInfo) as Int32Array)[0], 0);
  let diff = 0, scale = 0;
  for (let e = 0; e < replayed.length; e++) if (Number.isFinite(factor[e]!)) { diff = Math.max(diff, Math.abs(replayed[e]! - factor[e]!)); scale = Math.max(scale, Math.abs(factor[e]!)); }
  assert.ok(diff <= 1e-10 * scale, `the captured own route and the route taken differ by ${diff}`);
  captured.dispose();
});
