/**
 * The solves' vendor routes on the GPU, each forced, against the CPU reference on fresh random
 * data: trsm on cublas?trsmBatched (every side, uplo, transpose and diagonal), getrs and gesv on
 * cublas?getrsBatched; gesv as the router runs it (the factorisation through the router's getrf).
 * potrs and posv have no vendor route (cusolverDn?potrsBatched writes the opposite triangle of A).
 * Both precisions; matrices placed with ld > rows, gaps between them and an offset, NaN everywhere
 * else (the unreferenced triangle and, with a unit diagonal, the diagonal included), which must
 * come back bit for bit; A, and getrs's pivots, only read; info poisoned before the call, nothing
 * written past it; singular and NaN matrices among good ones: info per matrix as the reference's,
 * B left as it was where gesv failed, and nothing spread to the other matrices; batches beyond one
 * kernel block (the pointer and mask kernels' grids) and beyond one vendor call (65535 matrices,
 * split by the routes), a variable batch of two orders interleaved
 * (groups with a map to the batch's places), and list batches through a context. A route whose
 * library does not load here skips with the reason.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { list, variable } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import type { Diag, Side, Uplo } from '../../src/core/enums.js';
import type { Storage } from '../../src/core/storage.js';
import { Context } from '../../src/api/context.js';
import { cpuTrsm } from '../../src/cpu/trsm.js';
import { cpuGesv, cpuGetrf, cpuGetrs } from '../../src/cpu/lapack/index.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { runRouted } from '../../src/cuda/router.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/types.js';
import { cublasGetrs, cublasTrsm } from '../../src/cuda/vendor/index.js';
import { gpuSkipReason } from '../helpers/gpu.js';
import { at, batchOf, needs, placed, same, where, type Placed } from '../helpers/vendor-placed.js';
import { Rng } from '../helpers/random.js';

const skip = gpuSkipReason();
const DTYPES: readonly DType[] = ['float64', 'float32'];
const EPS: Record<DType, number> = { float64: 2 ** -52, float32: 2 ** -23 };
const POISON = -7;

/** Per matrix of `p`: the largest finite magnitude of `a` in it, at least 1. */
function scales(p: Placed, a: FloatArray): Float64Array {
  const s = new Float64Array(p.count).fill(1);
  for (let e = 0; e < a.length; e++) { const w = where(p, e); if (w && Number.isFinite(a[e]!)) s[w.k] = Math.max(s[w.k]!, Math.abs(a[e]!)); }
  return s;
}
function unchanged(got: ArrayLike<number>, was: ArrayLike<number>, what: string): void {
  assert.equal(got.length, was.length);
  for (let e = 0; e < got.length; e++) assert.ok(same(got[e]!, was[e]!), `${what}: element ${e} changed (${was[e]} -> ${got[e]})`);
}
const poisoned = (length: number): Int32Array => new Int32Array(length).fill(POISON);

/**
 * A well-conditioned general matrix whose LU pivots: a diagonally dominant one (|diagonal| n / 2 +
 * 1, the rest in [-1, 1)) with its rows permuted. 'singular': a zero column; 'nan': one NaN.
 */
type LuKind = 'general' | 'singular' | 'nan';
function fillGeneral(rng: Rng, p: Placed, k: number, kind: LuKind): void {
  const n = p.rows;
  const perm = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) { const j = rng.int(0, i); [perm[i], perm[j]] = [perm[j]!, perm[i]!]; }
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
    const v = i === j ? (rng.next() < 0.5 ? -1 : 1) * (n / 2 + 1) : rng.uniform();
    p.data[at(p, k, perm[i]!, j)] = v;
  }
  if (kind === 'singular') { const c = rng.int(0, n - 1); for (let i = 0; i < n; i++) p.data[at(p, k, i, c)] = 0; }
  if (kind === 'nan') p.data[at(p, k, rng.int(0, n - 1), rng.int(0, n - 1))] = NaN;
}

function fillRandom(rng: Rng, p: Placed): void {
  for (let k = 0; k < p.count; k++) for (let j = 0; j < p.cols; j++) for (let i = 0; i < p.rows; i++) p.data[at(p, k, i, j)] = rng.uniform();
}

/** B against the reference: within `tol` of it per matrix (relative to its scale), bit for bit outside the matrices; `skip(k)`: matrix k not compared. */
function checkB(p: Placed, got: FloatArray, want: FloatArray, host: FloatArray, tolOf: (k: number) => number, what: string, skipMatrix: (k: number) => boolean = () => false): void {
  const s = scales(p, want);
  for (let e = 0; e < got.length; e++) {
    const w = where(p, e);
    if (!w) { assert.ok(same(got[e]!, host[e]!), `${what}: element ${e} outside the matrices changed`); continue; }
    if (skipMatrix(w.k)) continue;
    assert.ok(Math.abs(got[e]! - want[e]!) <= tolOf(w.k) * s[w.k]!, `${what}: matrix ${w.k} (${w.i}, ${w.j}) = ${got[e]}, reference ${want[e]}`);
  }
}

// ---------------------------------------------------------------------------------------------
// trsm

function checkTrsm(dev: GpuDevice, rng: Rng, dtype: DType, side: Side, uplo: Uplo, transA: 'N' | 'T', diag: Diag, m: number, n: number, count: number, singular: number | null): void {
  const k = side === 'left' ? m : n;
  const pa = placed(dtype, k, k, count), pb = placed(dtype, m, n, count);
  for (let q = 0; q < count; q++) for (let j = 0; j < k; j++) for (let i = 0; i < k; i++) {
    if (uplo === 'lower' ? i < j : i > j) continue;   // the other triangle: NaN, never read
    // Off the diagonal in [-1, 1) / k, on it in [1, 2): well conditioned; a unit diagonal is NaN (never read).
    pa.data[at(pa, q, i, j)] = i !== j ? rng.uniform() / k : diag === 'unit' ? NaN : 1 + rng.next();
  }
  if (singular !== null && diag === 'nonunit') { const d = rng.int(0, k - 1); pa.data[at(pa, singular, d, d)] = 0; }
  fillRandom(rng, pb);
  const hostA = pa.data.slice(), hostB = pb.data.slice(), want = pb.data.slice();
  const alpha = 1.5;
  cpuTrsm({ side, uplo, transA, diag, alpha, a: batchOf(pa, hostA.slice()), b: batchOf(pb, want) });
  const dA = dev.upload(hostA), dB = dev.upload(hostB);
  try {
    const setAside = cublasTrsm(dev, { side, uplo, transA, diag, alpha, a: batchOf(pa, dA), b: batchOf(pb, dB) });
    const what = `cublas trsm ${dtype} ${side} ${uplo} ${transA} ${diag} ${m} x ${n} x ${count}`;
    assert.deepEqual(setAside, [], `${what}: no diagonal entry below the smallest normal number, nothing set aside`);
    unchanged(dev.download(dA) as FloatArray, hostA, `${what}: A`);
    checkB(pb, dev.download(dB) as FloatArray, want, hostB, () => 30 * (k + 2) * EPS[dtype], what, (q) => q === singular && diag === 'nonunit');
  } finally {
    dA.dispose(); dB.dispose();
  }
}

test('cublas trsm: both precisions, every side, uplo, transpose and diagonal, odd layouts, a singular matrix among good ones', { skip, timeout: 600_000 }, (t) => {
  const dev = needs(t, 'cublas');
  if (!dev) return;
  const rng = new Rng(101);
  for (const dtype of DTYPES) for (const side of ['left', 'right'] as const) for (const uplo of ['lower', 'upper'] as const)
    for (const transA of ['N', 'T'] as const) for (const diag of ['nonunit', 'unit'] as const) for (const k of [1, 7, 33, 65]) {
      const other = k === 7 ? 5 : 1;
      checkTrsm(dev, rng, dtype, side, uplo, transA, diag, side === 'left' ? k : other, side === 'left' ? other : k, 3, k > 1 ? 1 : null);
    }
  checkTrsm(dev, rng, 'float64', 'left', 'lower', 'N', 'nonunit', 257, 16, 2, null);
  checkTrsm(dev, rng, 'float32', 'right', 'upper', 'T', 'nonunit', 16, 129, 2, null);
  // More matrices than one block of the pointer kernel; more than one vendor call takes (65535).
  checkTrsm(dev, rng, 'float64', 'left', 'upper', 'N', 'nonunit', 8, 3, 700, 350);
  checkTrsm(dev, rng, 'float32', 'right', 'lower', 'T', 'nonunit', 2, 3, 70000, 69999);
});

// ---------------------------------------------------------------------------------------------
// getrs

function checkGetrs(dev: GpuDevice, rng: Rng, dtype: DType, trans: 'N' | 'T', n: number, nrhs: number, count: number): void {
  const pa = placed(dtype, n, n, count), pb = placed(dtype, n, nrhs, count);
  for (let q = 0; q < count; q++) fillGeneral(rng, pa, q, 'general');
  fillRandom(rng, pb);
  // Factored on the host: getrs's input, pivots 0-based with a gap between matrices (poisoned).
  const pivotStride = n + 3;
  const lu = pa.data.slice(), piv = poisoned(count * pivotStride + 1);
  cpuGetrf({ a: batchOf(pa, lu), ipiv: piv, pivotStride, info: new Int32Array(count) });
  const hostB = pb.data.slice(), want = pb.data.slice();
  cpuGetrs({ trans, a: batchOf(pa, lu.slice()), ipiv: piv.slice(), pivotStride, b: batchOf(pb, want), info: new Int32Array(count) });
  const dA = dev.upload(lu), dB = dev.upload(hostB), dPiv = dev.upload(piv), dInfo = dev.upload(poisoned(count + 1));
  try {
    cublasGetrs(dev, { trans, a: batchOf(pa, dA), ipiv: dPiv, pivotStride, b: batchOf(pb, dB), info: dInfo });
    const what = `cublas getrs ${dtype} ${trans} n=${n} nrhs=${nrhs} x ${count}`;
    assert.deepEqual([...(dev.download(dInfo) as Int32Array)], [...new Array<number>(count).fill(0), POISON], `${what}: info 0 (and nothing past it)`);
    unchanged(dev.download(dA) as FloatArray, lu, `${what}: A`);
    unchanged(dev.download(dPiv) as Int32Array, piv, `${what}: ipiv`);
    checkB(pb, dev.download(dB) as FloatArray, want, hostB, () => 40 * (n + 2) * EPS[dtype], what);
  } finally {
    dA.dispose(); dB.dispose(); dPiv.dispose(); dInfo.dispose();
  }
}

test('cublas getrs: both precisions and transposes, ragged orders, odd layouts, pivots strided and only read', { skip, timeout: 600_000 }, (t) => {
  const dev = needs(t, 'cublas');
  if (!dev) return;
  const rng = new Rng(111);
  for (const dtype of DTYPES) for (const trans of ['N', 'T'] as const) for (const n of [1, 7, 33, 65, 129]) for (const nrhs of [1, 5]) {
    checkGetrs(dev, rng, dtype, trans, n, nrhs, 3);
  }
  checkGetrs(dev, rng, 'float64', 'N', 8, 16, 600);
  checkGetrs(dev, rng, 'float32', 'T', 3, 2, 70000);
});

// ---------------------------------------------------------------------------------------------
// gesv (the router's run of the vendor candidate: getrf on its own route, then cuBLAS's getrs)

function checkGesv(dev: GpuDevice, rng: Rng, dtype: DType, n: number, nrhs: number, kinds: readonly LuKind[]): void {
  const count = kinds.length;
  const pa = placed(dtype, n, n, count), pb = placed(dtype, n, nrhs, count);
  kinds.forEach((kind, q) => fillGeneral(rng, pa, q, kind));
  fillRandom(rng, pb);
  const pivotStride = n + 1;
  const hostA = pa.data.slice(), hostB = pb.data.slice(), wantA = pa.data.slice(), wantB = pb.data.slice();
  const refInfo = new Int32Array(count), refPiv = poisoned(count * pivotStride + 1);
  cpuGesv({ a: batchOf(pa, wantA), ipiv: refPiv, pivotStride, b: batchOf(pb, wantB), info: refInfo });
  const dA = dev.upload(hostA), dB = dev.upload(hostB), dPiv = dev.upload(poisoned(count * pivotStride + 1)), dInfo = dev.upload(poisoned(count + 1));
  try {
    assert.ok(runRouted('gesv', dev, { a: batchOf(pa, dA), ipiv: dPiv, pivotStride, b: batchOf(pb, dB), info: dInfo }, 'cublas'));
    const what = `cublas gesv ${dtype} n=${n} nrhs=${nrhs} x ${count}`;
    const info = dev.download(dInfo) as Int32Array, piv = dev.download(dPiv) as Int32Array;
    assert.deepEqual([...info], [...refInfo, POISON], `${what}: info (and nothing past it)`);
    const pivotsMatch = (q: number): boolean => piv.subarray(q * pivotStride, q * pivotStride + n).join() === refPiv.subarray(q * pivotStride, q * pivotStride + n).join();
    for (let e = 0; e < piv.length; e++) {
      const q = Math.floor(e / pivotStride), j = e - q * pivotStride;
      if (q >= count || j >= n) assert.equal(piv[e], POISON, `${what}: pivot slot ${e} outside the pivots changed`);
      else assert.ok(piv[e]! >= j && piv[e]! < n, `${what}: matrix ${q} pivot ${j} = ${piv[e]}`);
    }
    kinds.forEach((kind, q) => { if (kind === 'general') assert.ok(pivotsMatch(q), `${what}: matrix ${q} pivots differently from the reference`); });
    const gotB = dev.download(dB) as FloatArray;
    // Where getrf failed, B is bit for bit what it was (the reference leaves it so too).
    for (let e = 0; e < gotB.length; e++) { const w = where(pb, e); if (w && refInfo[w.k]! > 0) assert.ok(same(gotB[e]!, hostB[e]!), `${what}: matrix ${w.k} failed (info ${refInfo[w.k]}) but its B changed`); }
    checkB(pb, gotB, wantB, hostB, () => 60 * (n + 2) * EPS[dtype], what, (q) => kinds[q] !== 'general');
    checkB(pa, dev.download(dA) as FloatArray, wantA, hostA, () => 60 * (n + 2) * EPS[dtype], `${what}: A`, (q) => kinds[q] !== 'general');
  } finally {
    dA.dispose(); dB.dispose(); dPiv.dispose(); dInfo.dispose();
  }
}

test('cublas gesv: both precisions, ragged orders, singular and NaN matrices among good ones; B kept where info > 0', { skip, timeout: 600_000 }, (t) => {
  const dev = needs(t, 'cublas');
  if (!dev) return;
  const rng = new Rng(121);
  const kinds: LuKind[] = ['general', 'singular', 'general', 'nan', 'general', 'singular'];
  for (const dtype of DTYPES) for (const n of [1, 7, 33, 65, 129]) for (const nrhs of [1, 5]) {
    checkGesv(dev, rng, dtype, n, nrhs, n === 1 ? ['general', 'singular'] : kinds);
  }
  // More matrices than one block of the mask kernel, every seventh singular.
  checkGesv(dev, rng, 'float64', 8, 2, Array.from({ length: 600 }, (_, q) => (q % 7 === 3 ? 'singular' : 'general')));
  checkGesv(dev, rng, 'float64', 2, 1, Array.from({ length: 70000 }, (_, q) => (q % 9973 === 5 ? 'singular' : 'general')));
});

test('cublas gesv on a variable batch of two orders interleaved: groups mapped to the batch\'s places', { skip, timeout: 600_000 }, (t) => {
  const dev = needs(t, 'cublas');
  if (!dev) return;
  const rng = new Rng(131);
  const orders = [5, 9, 5, 9, 9, 5, 5, 9];
  const singular = new Set([2, 4]);
  const nrhs = 3, pivotStride = 9;
  // Each matrix (A, then B) placed in one array with ld = rows + 1 and gaps of NaN.
  let length = 2;
  const places = orders.map((n) => { const a = length; length += (n + 1) * n + 2; const b = length; length += (n + 1) * nrhs + 2; return { n, a, b }; });
  for (const dtype of DTYPES) {
    const host = allocate(dtype, length).fill(NaN);
    places.forEach(({ n, a, b }, q) => {
      const one: Placed = { data: host, ld: n + 1, stride: 0, offset: a, count: 1, rows: n, cols: n };
      fillGeneral(rng, one, 0, singular.has(q) ? 'singular' : 'general');
      for (let j = 0; j < nrhs; j++) for (let i = 0; i < n; i++) host[b + i + j * (n + 1)] = rng.uniform();
    });
    const batches = <S extends FloatArray | DeviceArray>(data: S) => ({
      a: variable(places.map(({ n, a }) => ({ data, rows: n, cols: n, ld: n + 1, offset: a }))),
      b: variable(places.map(({ n, b }) => ({ data, rows: n, cols: nrhs, ld: n + 1, offset: b }))),
    });
    const want = host.slice(), refInfo = new Int32Array(orders.length), refPiv = poisoned(orders.length * pivotStride);
    cpuGesv({ ...batches(want), ipiv: refPiv, pivotStride, info: refInfo });
    const d = dev.upload(host), dPiv = dev.upload(poisoned(orders.length * pivotStride)), dInfo = dev.upload(poisoned(orders.length + 1));
    try {
      assert.ok(runRouted('gesv', dev, { ...batches(d), ipiv: dPiv, pivotStride, info: dInfo }, 'cublas'));
      const what = `cublas gesv ${dtype} variable`;
      assert.deepEqual([...(dev.download(dInfo) as Int32Array)], [...refInfo, POISON], `${what}: info`);
      assert.ok(refInfo[2]! > 0 && refInfo[4]! > 0 && refInfo[0] === 0, `${what}: the reference's info ${[...refInfo]}`);
      assert.deepEqual([...(dev.download(dPiv) as Int32Array)].filter((_, e) => !singular.has(Math.floor(e / pivotStride))),
        [...refPiv].filter((_, e) => !singular.has(Math.floor(e / pivotStride))), `${what}: pivots`);
      const got = dev.download(d) as FloatArray;
      const inB = (e: number, q: number): boolean => { const { n, b } = places[q]!; const r = e - b; return r >= 0 && r < (n + 1) * nrhs && r % (n + 1) < n; };
      for (let e = 0; e < got.length; e++) {
        const q = places.findIndex((_, p) => inB(e, p));
        if (q >= 0 && !singular.has(q)) assert.ok(Math.abs(got[e]! - want[e]!) <= 60 * 11 * EPS[dtype] * 4, `${what}: B of matrix ${q}: ${got[e]}, reference ${want[e]}`);
        else if (q >= 0) assert.ok(same(got[e]!, host[e]!), `${what}: matrix ${q} failed but its B changed`);
        else if (!places.some(({ n, a }) => { const r = e - a; return r >= 0 && r < (n + 1) * n && r % (n + 1) < n; })) assert.ok(same(got[e]!, host[e]!), `${what}: element ${e} outside the matrices changed`);
      }
    } finally {
      d.dispose(); dPiv.dispose(); dInfo.dispose();
    }
  }
});

// ---------------------------------------------------------------------------------------------
// Through a context: list batches (their addresses uploaded), each route forced

test('list batches through a context, each solve\'s vendor route forced: the CPU reference\'s results', { skip, timeout: 600_000 }, (t) => {
  const dev = needs(t, 'cublas');
  if (!dev) return;
  const backend = new CudaBackend(dev, 'test');
  const ctx = new Context('cuda', backend, backend);
  backend.force = { trsm: 'cublas', getrs: 'cublas', gesv: 'cublas' };
  const rng = new Rng(161);
  const n = 33, count = 4, nrhs = 3;
  const lst = (arrays: readonly Storage[], cols = n) => list([...arrays], { rows: n, cols });
  const matrices = (make: (p: Placed) => void, cols = n): Float64Array[] => Array.from({ length: count }, () => {
    const p = placed('float64', n, cols, 1);
    p.ld = n; p.offset = 0; p.data = new Float64Array(n * cols);
    make(p);
    return p.data as Float64Array;
  });
  const close = (got: Float64Array, want: Float64Array, what: string): void => {
    const scale = Math.max(1, ...want.map(Math.abs).filter(Number.isFinite));
    got.forEach((g, e) => assert.ok(same(g, want[e]!) || Math.abs(g - want[e]!) <= 1e-11 * scale, `${what}: element ${e} = ${g}, reference ${want[e]}`));
  };
  // trsm: lower, transposed, unit diagonal (the other triangle and the diagonal NaN: never read)
  const tri = matrices((p) => { p.data.fill(NaN); for (let j = 0; j < n; j++) for (let i = j + 1; i < n; i++) p.data[i + j * n] = rng.uniform() / n; });
  const rhs = () => matrices((p) => fillRandom(rng, p), nrhs);
  const b0 = rhs(), wantT = b0.map((b) => b.slice());
  cpuTrsm({ side: 'left', uplo: 'lower', transA: 'T', diag: 'unit', alpha: -2, a: lst(tri) as never, b: lst(wantT, nrhs) as never });
  const dT = b0.map((b) => ctx.upload(b.slice()));
  ctx.trsm({ side: 'left', uplo: 'lower', transA: 'T', diag: 'unit', alpha: -2, a: lst(tri.map((a) => ctx.upload(a))) as never, b: lst(dT, nrhs) as never });
  assert.equal(ctx.lastRoute?.route, 'cublas');
  dT.forEach((d, q) => close(ctx.download(d) as Float64Array, wantT[q]!, `trsm list #${q}`));
  // gesv, then getrs with its factors
  const gen = matrices((p) => fillGeneral(rng, p, 0, 'general'));
  const b1 = rhs(), wantLu = gen.map((a) => a.slice()), wantX = b1.map((b) => b.slice());
  const refPiv = new Int32Array(n * count), refInfo = new Int32Array(count);
  cpuGesv({ a: lst(wantLu) as never, ipiv: refPiv, pivotStride: n, b: lst(wantX, nrhs) as never, info: refInfo });
  const dGen = gen.map((a) => ctx.upload(a.slice())), dX = b1.map((b) => ctx.upload(b.slice()));
  const solved = ctx.gesv({ a: lst(dGen) as never, b: lst(dX, nrhs) as never });
  assert.equal(ctx.lastRoute?.route, 'cublas');
  assert.deepEqual([...ctx.download(solved.info as never)], [...refInfo]);
  assert.deepEqual([...ctx.download(solved.ipiv as never)], [...refPiv]);
  dX.forEach((d, q) => close(ctx.download(d) as Float64Array, wantX[q]!, `gesv list #${q}`));
  const b2 = rhs(), wantY = b2.map((b) => b.slice());
  cpuGetrs({ trans: 'T', a: lst(wantLu) as never, ipiv: refPiv, pivotStride: n, b: lst(wantY, nrhs) as never, info: new Int32Array(count) });
  const dY = b2.map((b) => ctx.upload(b.slice()));
  const { info: getrsInfo } = ctx.getrs({ trans: 'T', a: lst(dGen) as never, ipiv: solved.ipiv as never, b: lst(dY, nrhs) as never });
  assert.equal(ctx.lastRoute?.route, 'cublas');
  assert.deepEqual([...ctx.download(getrsInfo as never)], new Array<number>(count).fill(0));
  dY.forEach((d, q) => close(ctx.download(d) as Float64Array, wantY[q]!, `getrs list #${q}`));
});
