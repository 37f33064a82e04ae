/**
 * Complex LU on the GPU (complex-lu/: zgetrf, zgetrs 'N' / 'T' / 'C', zgesv; complex128 and
 * complex64; n = 1 ... 32 on the register designs, 33 ... 512 on the blocked steps) against the
 * complex reference (cpu/complex/), on fresh random data in batches that mix random, singular (a
 * zero column at some k; above 32 in a later panel than the first), NaN and tied-pivot matrices:
 * strided batches with odd ld > n, gaps and an offset, and list batches of separate arrays; pivots
 * and info poisoned before each call, every element outside the matrices checked unchanged,
 * ctx.lastRoute the complex route on the GPU.
 * - getrf: info exactly the reference's; pivots exactly its own for complex128 (for complex64, which
 *   the reference factors in float64, at most one matrix in 20 may take the other of two nearly
 *   equal pivots, judged by its residual; a planted tie's first pivot never); the factors within
 *   64 max(m, n) machine epsilons of max|LU| of the reference's where the pivots agree, NaN where it has NaN;
 *   ||P A - L U|| / (||A|| n eps) < 30 for every matrix without NaN.
 * - getrs: the GPU's factors, then ||op(A) X - B|| / (||A|| ||X|| n eps) < 30, info 0.
 * - gesv: info and pivots as getrf's, a singular matrix's B unchanged bit for bit (as LAPACK's gesv
 *   and the real GPU gesv), the others' residuals < 30; NaN stays in its own matrix; every order 17 ... 32.
 * - both in-register steps (the group step, the warp step the plan takes from 17 rows) with the
 *   same checks: each forced on the launchers where the plan takes the other, and other warps a block.
 * - above 32 (47, 64, 100, 128, 256; 512 for complex128) the same checks on fewer matrices a call
 *   (the reference's time), getrs and gesv through the complex trsm of order n.
 * Skips with one line where no GPU is usable.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import type { Context } from '../../src/api/context.js';
import { list, strided, type Batch } from '../../src/core/batch.js';
import { DTYPE_EPS, type DType } from '../../src/core/dtype.js';
import type { ComplexOp } from '../../src/core/op-specs.js';
import type { DeviceStorage, Storage } from '../../src/core/storage.js';
import { cpuGetrfComplex } from '../../src/cpu/complex/zgetrf.js';
import { cpuGesvComplex } from '../../src/cpu/complex/zsolve.js';
import { random, zeros, type Z } from '../helpers/complex.js';
import { gpu, gpuContext, gpuSkipReason, warmFileKernels } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';
import { hasNaN, kindOf, luMatrix, luResidual, solveResidual } from '../helpers/zlu-data.js';
import { complexGesvCuda, complexGetrfCuda, type ComplexLuForce } from '../../src/cuda/kernels/complex-lu/index.js';
import type { DeviceArray } from '../../src/cuda/runtime/types.js';

const skip = gpuSkipReason();
const SENTINEL = -777.25;
const THRESHOLD = 30;
const SIZES = Array.from({ length: 32 }, (_, i) => i + 1);
/** The orders whose solves run (every size class of the kernels' unrolling, the warps' boundaries). */
const SOLVE_SIZES = [1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 23, 24, 31, 32];
/** gesv's orders: the solves' and every order of the warp step (17 ... 32). */
const GESV_SIZES = [...new Set([...SOLVE_SIZES, ...Array.from({ length: 16 }, (_, i) => 17 + i)])].sort((x, y) => x - y);
/**
 * The in-register LU's steps forced on the launchers at orders the plan gives the other or other
 * warps per block (complex-lu/plan.ts): the group step from 17, the warp step with 1 and 4 warps a
 * block (the plan's 2 run through the context at every order), the warp step below 17, and its
 * reciprocal out of line.
 */
const FORCED: readonly { force: ComplexLuForce; orders: readonly number[]; gesvOnly?: boolean }[] = [
  { force: { step: 'group' }, orders: [17, 24, 32] },
  { force: { step: 'warp', warps: 1 }, orders: [9, 19, 32] },
  { force: { step: 'warp', warps: 4 }, orders: [25, 32] },
  { force: { step: 'warp', reciprocalCall: true }, orders: [21, 32] },
  // gesv's LU of A alone then the sweeps (getrf has no such form): one pass of 1 or 3 columns,
  // several passes (22: 5 columns, 27 and 31: 6, list batches), 2 and 1 warps a block.
  { force: { solveAfter: true }, orders: [17, 22, 24, 27, 32], gesvOnly: true },
  { force: { solveAfter: true, warps: 1 }, orders: [20, 31], gesvOnly: true },
  // The warp step's L2 prefetch (hints only: the results as without).
  { force: { prefetchWarps: 10 }, orders: [18, 27, 32] },
  { force: { prefetchWarps: 16, solveAfter: true }, orders: [23, 32], gesvOnly: true },
];
const TRANS: readonly ComplexOp[] = ['N', 'T', 'C'];
/** The blocked steps' orders (panels of 32: one and a half, two, partial, four, eight, sixteen panels). */
const LARGE = [47, 64, 100, 128, 256, 512];
const largeSizes = (dtype: DType): number[] => LARGE.filter((n) => n < 512 || dtype === 'float64');

type Form = 'strided' | 'list';
const ctypeOf = (dtype: DType): 'complex128' | 'complex64' => (dtype === 'float64' ? 'complex128' : 'complex64');
/** Matrices a call: fewer for the blocked orders (the reference's O(n^3) in JavaScript), still a NaN (q = 3) up to 256. */
const countFor = (n: number): number => (n <= 8 ? 300 : n <= 16 ? 120 : n <= 32 ? 60 : n <= 64 ? 12 : n <= 256 ? 4 : 2);
const formFor = (n: number): Form => (n % 4 === 3 || n === 100 ? 'list' : 'strided');
const nrhsFor = (n: number): number => [1, 3, 5, 6][n % 4]!;
const epsOf = (dtype: DType): number => (dtype === 'float64' ? 2 ** -53 : 2 ** -24);

/**
 * count rows x cols matrices on the host: one buffer (ld = rows + 2 or 3, odd, gaps of 3 pairs,
 * offset 5) for 'strided', a buffer each (offset 2, one pair after) for 'list'; everything else SENTINEL.
 */
interface Placed { arrays: (Float64Array | Float32Array)[]; ld: number; offsets: number[]; stride: number }
function place(ms: readonly Z[], rows: number, cols: number, dtype: DType, form: Form): Placed {
  const ld = rows + (rows % 2 === 0 ? 3 : 2);
  const make = (pairs: number): Float64Array | Float32Array => (dtype === 'float64' ? new Float64Array(2 * pairs) : new Float32Array(2 * pairs)).fill(SENTINEL);
  const stride = ld * cols + 3;
  const arrays = form === 'strided' ? [make(5 + ms.length * stride + 1)] : ms.map(() => make(2 + ld * cols + 1));
  const offsets = ms.map((_, q) => (form === 'strided' ? 5 + q * stride : 2));
  ms.forEach((m, q) => {
    const data = arrays[form === 'strided' ? 0 : q]!;
    for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) {
      const e = offsets[q]! + i + j * ld;
      data[2 * e] = m.d[2 * (i + j * rows)]!;
      data[2 * e + 1] = m.d[2 * (i + j * rows) + 1]!;
    }
  });
  return { arrays, ld, offsets, stride };
}
function batchOf<S extends Storage>(p: Placed, data: readonly S[], rows: number, cols: number, dtype: DType, form: Form): Batch<S> {
  const type = ctypeOf(dtype);
  if (form === 'list') return list(data.map((d, q) => ({ data: d, offset: p.offsets[q]! })), { rows, cols, ld: p.ld, dtype: type }) as unknown as Batch<S>;
  return strided(data[0]!, { rows, cols, ld: p.ld, stride: p.stride, offset: p.offsets[0]!, count: p.offsets.length, dtype: type }) as unknown as Batch<S>;
}
function readBack(p: Placed, arrays: readonly ArrayLike<number>[], q: number, rows: number, cols: number, form: Form): Z {
  const data = arrays[form === 'strided' ? 0 : q]!;
  const z = zeros(rows, cols);
  for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) {
    const e = p.offsets[q]! + i + j * p.ld;
    z.d[2 * (i + j * rows)] = data[2 * e]!;
    z.d[2 * (i + j * rows) + 1] = data[2 * e + 1]!;
  }
  return z;
}
/** Whether pair-part f of array `a` lies inside one of the matrices. */
function insideOf(p: Placed, rows: number, cols: number, form: Form): (a: number, f: number) => boolean {
  return (a, f) => {
    const e = Math.floor(f / 2);
    const qs = form === 'strided' ? p.offsets.map((_, q) => q) : [a];
    return qs.some((q) => {
      const d = e - p.offsets[q]!;
      return d >= 0 && d % p.ld < rows && Math.floor(d / p.ld) < cols;
    });
  };
}
/** Uploads a placement's arrays; returns them and a reader that downloads them back. */
function onDevice(ctx: Context, p: Placed): { dev: DeviceStorage[]; back(): (Float64Array | Float32Array)[]; dispose(): void } {
  const dev = p.arrays.map((a) => ctx.upload(a) as DeviceStorage);
  return {
    dev,
    back: () => dev.map((d) => ctx.download(d) as Float64Array | Float32Array),
    dispose: () => { for (const d of dev) (d as { dispose?: () => void }).dispose?.(); },
  };
}
function assertOutsideUnchanged(p: Placed, got: readonly (Float64Array | Float32Array)[], rows: number, cols: number, form: Form, what: string): void {
  const inside = insideOf(p, rows, cols, form);
  got.forEach((g, a) => g.forEach((v, f) => {
    if (!inside(a, f)) assert.ok(Object.is(v, p.arrays[a]![f]), `${what}: array ${a} float ${f} outside every matrix changed to ${v}`);
  }));
}
const poisoned = (ctx: Context, n: number): DeviceStorage => ctx.upload(new Int32Array(Math.max(1, n)).fill(-7)) as DeviceStorage;
const ints = (ctx: Context, d: DeviceStorage): Int32Array => ctx.download(d) as Int32Array;

/**
 * The file's matrices: a fresh random batch per call, the kinds mixed (zlu-data.ts kindOf). Above
 * 32, a singular matrix's zero column moves past the first panel (32 + ...), its first-panel one
 * refilled: the info of a later panel, offset by the panel's start.
 */
function matrices(rng: Rng, dtype: DType, rows: number, cols: number, count: number, kinds: boolean): Z[] {
  const round = (x: number): number => (dtype === 'float32' ? Math.fround(x) : x);
  const k = Math.min(rows, cols);
  return Array.from({ length: count }, (_, q) => {
    const m = luMatrix(rng, rows, cols, kinds ? kindOf(q) : 'random', q + rows, round);
    if (kinds && kindOf(q) === 'singular' && k > 32) {
      const was = (q + rows) % k, zero = 32 + ((7 * q + 3) % (k - 32));
      for (let i = 0; i < rows; i++) {
        m.d[2 * (i + was * rows)] = round(rng.uniform(-1, 1));
        m.d[2 * (i + was * rows) + 1] = round(rng.uniform(-1, 1));
      }
      for (let i = 0; i < rows; i++) { m.d[2 * (i + zero * rows)] = 0; m.d[2 * (i + zero * rows) + 1] = 0; }
    }
    return m;
  });
}
/** The reference getrf on the host copy (in float64; complex64 inputs are float32 values). */
function referenceGetrf(ms: readonly Z[], rows: number, cols: number): { lu: Z[]; piv: Int32Array; info: Int32Array } {
  const k = Math.min(rows, cols);
  const data = new Float64Array(2 * rows * cols * ms.length);
  ms.forEach((m, q) => data.set(m.d, 2 * rows * cols * q));
  const piv = new Int32Array(ms.length * k), info = new Int32Array(ms.length);
  cpuGetrfComplex({ a: strided(data, { rows, cols, count: ms.length, dtype: 'complex128' }), ipiv: piv, pivotStride: k, info });
  return { lu: ms.map((_, q) => ({ rows, cols, d: data.slice(2 * rows * cols * q, 2 * rows * cols * (q + 1)) })), piv, info };
}

/**
 * Whether matrix q may pivot other than the reference: complex128 never; complex64 (the reference
 * computes in float64) on a near tie, but a planted tie in column 0 (|re| + |im| = 2 exactly in
 * both) must still go to the first of the two rows.
 */
function mayDiffer(dtype: DType, q: number, first: number | undefined, refFirst: number | undefined): boolean {
  return dtype === 'float32' && (kindOf(q) !== 'tie' || first === refFirst);
}

/**
 * A design forced on the launcher itself (called directly on the context's device, the route not
 * asked), or the route through the context where absent.
 */
type Forced = ComplexLuForce | undefined;
const asDevice = <T>(x: unknown): T => x as T;   // the CUDA context's device storage is the runtime's DeviceArray

function checkGetrf(ctx: Context, dtype: DType, rows: number, cols: number, form: Form, route: string, force?: Forced): void {
  const rng = new Rng(rows * 97 + cols + (dtype === 'float32' ? 5 : 0));
  const count = countFor(Math.max(rows, cols));
  const k = Math.min(rows, cols);
  const ms = matrices(rng, dtype, rows, cols, count, true);
  const p = place(ms, rows, cols, dtype, form);
  const d = onDevice(ctx, p);
  const ipiv = poisoned(ctx, count * k), info = poisoned(ctx, count);
  const what = `getrf ${ctypeOf(dtype)} ${rows}x${cols} ${form}${force === undefined ? '' : ` forced ${JSON.stringify(force)}`}`;
  try {
    const a = batchOf(p, d.dev, rows, cols, dtype, form);
    if (force === undefined) {
      ctx.getrf({ a, ipiv, info });
      assert.deepEqual(ctx.lastRoute, { op: 'getrf', route, gpu: route !== 'cpu' }, what);
    } else {
      complexGetrfCuda(gpu(), { a: asDevice<Batch<DeviceArray>>(a), ipiv: asDevice<DeviceArray>(ipiv), pivotStride: k, info: asDevice<DeviceArray>(info) }, { force });
    }
    const got = d.back();
    const piv = ints(ctx, ipiv).subarray(0, count * k), inf = ints(ctx, info).subarray(0, count);
    assertOutsideUnchanged(p, got, rows, cols, form, what);
    const ref = referenceGetrf(ms, rows, cols);
    assert.deepEqual([...inf], [...ref.info], `${what}: info`);
    if (Math.min(rows, cols) > 32 && count > 1) assert.ok(inf[1]! > 32, `${what}: the singular matrix's zero pivot lies past the first panel (info ${inf[1]})`);
    const eps = epsOf(dtype);
    let differ = 0;
    for (let q = 0; q < count; q++) {
      const same = piv.subarray(q * k, (q + 1) * k).every((v, j) => v === ref.piv[q * k + j]);
      if (!same) {
        differ++;
        assert.ok(mayDiffer(dtype, q, piv[q * k], ref.piv[q * k]), `${what}: matrix ${q} (${kindOf(q)}) pivots ${[...piv.subarray(q * k, (q + 1) * k)]}, want ${[...ref.piv.subarray(q * k, (q + 1) * k)]}`);
      }
      const lu = readBack(p, got, q, rows, cols, form);
      if (same) {
        const r = ref.lu[q]!;
        // As the real getrf's check (factor-cases.ts: 60 max(m, n) machine epsilons of the largest entry).
        const tol = 64 * Math.max(rows, cols) * DTYPE_EPS[dtype] * r.d.reduce((x, v) => (Number.isNaN(v) ? x : Math.max(x, Math.abs(v))), 1);   // no spread: 2 n^2 values
        r.d.forEach((w, e) => {
          const g = lu.d[e]!;
          assert.ok(Number.isNaN(w) ? Number.isNaN(g) : Math.abs(g - w) <= tol, `${what}: matrix ${q} (${kindOf(q)}) factor part ${e}: ${g}, want ${w}`);
        });
      }
      if (!hasNaN(ms[q]!)) {
        const ratio = luResidual(ms[q]!, lu, piv, q * k, eps);
        assert.ok(ratio < THRESHOLD, `${what}: matrix ${q} (${kindOf(q)}) residual ratio ${ratio}`);
      }
    }
    assert.ok(differ <= allowedDiffering(dtype, count), `${what}: ${differ} of ${count} matrices pivot differently`);
  } finally {
    d.dispose();
  }
}

/** Matrices of a call that may pivot other than the reference (mayDiffer): one in 20 for complex64, one at least; none for complex128. */
const allowedDiffering = (dtype: DType, count: number): number => (dtype === 'float32' ? Math.max(1, Math.floor(count / 20)) : 0);

function checkGetrs(ctx: Context, dtype: DType, n: number, trans: ComplexOp): void {
  const rng = new Rng(n * 131 + TRANS.indexOf(trans) + (dtype === 'float32' ? 7 : 0));
  const count = countFor(n), nrhs = nrhsFor(n), form = formFor(n);
  const as = matrices(rng, dtype, n, n, count, false);
  const bs = Array.from({ length: count }, () => random(rng, n, nrhs)).map((b) => (dtype === 'float32' ? { ...b, d: b.d.map(Math.fround) } : b));
  const pa = place(as, n, n, dtype, form), pb = place(bs, n, nrhs, dtype, form === 'list' ? 'strided' : 'list');
  const da = onDevice(ctx, pa), db = onDevice(ctx, pb);
  const formB: Form = form === 'list' ? 'strided' : 'list';
  const what = `getrs '${trans}' ${ctypeOf(dtype)} n = ${n}, nrhs ${nrhs}`;
  try {
    const a = batchOf(pa, da.dev, n, n, dtype, form);
    const f = ctx.getrf({ a });
    const info = poisoned(ctx, count);
    ctx.getrs({ trans, a, ipiv: f.ipiv, b: batchOf(pb, db.dev, n, nrhs, dtype, formB), info });
    assert.deepEqual(ctx.lastRoute, { op: 'getrs', route: 'getrs', gpu: true }, what);
    assert.deepEqual([...ints(ctx, info).subarray(0, count)], new Array<number>(count).fill(0), `${what}: info`);
    const got = db.back();
    assertOutsideUnchanged(pb, got, n, nrhs, formB, what);
    for (let q = 0; q < count; q++) {
      const ratio = solveResidual(as[q]!, trans, readBack(pb, got, q, n, nrhs, formB), bs[q]!, epsOf(dtype));
      assert.ok(ratio < THRESHOLD, `${what}: matrix ${q} residual ratio ${ratio}`);
    }
  } finally {
    da.dispose();
    db.dispose();
  }
}

function checkGesv(ctx: Context, dtype: DType, n: number, route: string, force?: Forced): void {
  const rng = new Rng(n * 53 + (dtype === 'float32' ? 3 : 0));
  const count = countFor(n), nrhs = nrhsFor(n), form = formFor(n);
  const as = matrices(rng, dtype, n, n, count, true);
  const bs = Array.from({ length: count }, () => random(rng, n, nrhs)).map((b) => (dtype === 'float32' ? { ...b, d: b.d.map(Math.fround) } : b));
  const pa = place(as, n, n, dtype, form), pb = place(bs, n, nrhs, dtype, form);
  const da = onDevice(ctx, pa), db = onDevice(ctx, pb);
  const what = `gesv ${ctypeOf(dtype)} n = ${n}, nrhs ${nrhs} ${form}${force === undefined ? '' : ` forced ${JSON.stringify(force)}`}`;
  try {
    const ipiv = poisoned(ctx, count * n), info = poisoned(ctx, count);
    const a = batchOf(pa, da.dev, n, n, dtype, form), b = batchOf(pb, db.dev, n, nrhs, dtype, form);
    if (force === undefined) {
      ctx.gesv({ a, b, ipiv, info });
      assert.deepEqual(ctx.lastRoute, { op: 'gesv', route, gpu: route !== 'cpu' }, what);
    } else {
      const dev = asDevice<DeviceArray>;
      complexGesvCuda(gpu(), { a: asDevice<Batch<DeviceArray>>(a), b: asDevice<Batch<DeviceArray>>(b), ipiv: dev(ipiv), pivotStride: n, info: dev(info) }, { force });
    }
    const [gotA, gotB] = [da.back(), db.back()];
    assertOutsideUnchanged(pa, gotA, n, n, form, what);
    assertOutsideUnchanged(pb, gotB, n, nrhs, form, what);
    const piv = ints(ctx, ipiv).subarray(0, count * n), inf = ints(ctx, info).subarray(0, count);
    // The reference gesv on host copies.
    const refA = new Float64Array(2 * n * n * count), refB = new Float64Array(2 * n * nrhs * count);
    as.forEach((m, q) => refA.set(m.d, 2 * n * n * q));
    bs.forEach((m, q) => refB.set(m.d, 2 * n * nrhs * q));
    const refPiv = new Int32Array(count * n), refInfo = new Int32Array(count);
    cpuGesvComplex({ a: strided(refA, { rows: n, count, dtype: 'complex128' }), b: strided(refB, { rows: n, cols: nrhs, count, dtype: 'complex128' }), ipiv: refPiv, pivotStride: n, info: refInfo });
    assert.deepEqual([...inf], [...refInfo], `${what}: info`);
    let differ = 0;
    for (let q = 0; q < count; q++) {
      const same = piv.subarray(q * n, (q + 1) * n).every((v, j) => v === refPiv[q * n + j]);
      if (!same) {
        differ++;
        assert.ok(mayDiffer(dtype, q, piv[q * n], refPiv[q * n]), `${what}: matrix ${q} (${kindOf(q)}) pivots differ from the reference's`);
      }
      const x = readBack(pb, gotB, q, n, nrhs, form);
      if (inf[q] !== 0) {
        assert.deepEqual([...x.d], [...bs[q]!.d], `${what}: matrix ${q} singular (info ${inf[q]}): B unchanged`);
        continue;
      }
      if (hasNaN(as[q]!)) continue;
      const ratio = solveResidual(as[q]!, 'N', x, bs[q]!, epsOf(dtype));
      assert.ok(ratio < THRESHOLD, `${what}: matrix ${q} (${kindOf(q)}) residual ratio ${ratio}`);
      const lr = luResidual(as[q]!, readBack(pa, gotA, q, n, n, form), piv, q * n, epsOf(dtype));
      assert.ok(lr < THRESHOLD, `${what}: matrix ${q} LU residual ratio ${lr}`);
    }
    assert.ok(differ <= allowedDiffering(dtype, count), `${what}: ${differ} of ${count} matrices pivot differently`);
  } finally {
    da.dispose();
    db.dispose();
  }
}

const DTYPES: readonly DType[] = ['float64', 'float32'];
const RECTANGLES: readonly (readonly [number, number])[] = [[32, 7], [5, 32], [17, 9], [3, 24]];

/** Every kernel of the file, compiled at once (the calls made on a device that runs nothing). */
before(() => warmFileKernels('zgetrf', (ctx, planning) => {
  if (planning === undefined) return;
  const dev = planning.device;
  for (const dtype of DTYPES) {
    const type = ctypeOf(dtype);
    const mat = (rows: number, cols: number, form: Form, count: number) => (form === 'list'
      ? list(Array.from({ length: count }, () => ({ data: dev.alloc(dtype, 2 * ((rows + 2) * cols + 3)) as unknown as Storage, offset: 2 })), { rows, cols, ld: rows + 2, dtype: type })
      : strided(dev.alloc(dtype, 2 * (5 + count * ((rows + 2) * cols + 3) + 1)) as unknown as Storage, { rows, cols, ld: rows + 2, stride: (rows + 2) * cols + 3, offset: 5, count, dtype: type }));
    for (const n of SIZES) ctx.getrf({ a: mat(n, n, formFor(n), 3) });
    for (const [rows, cols] of RECTANGLES) ctx.getrf({ a: mat(rows, cols, 'strided', 3) });
    for (const n of largeSizes(dtype)) ctx.getrf({ a: mat(n, n, formFor(n), 3) });
    for (const n of [...SOLVE_SIZES, ...largeSizes(dtype)]) {
      const form = formFor(n), formB: Form = form === 'list' ? 'strided' : 'list';
      const ipiv = dev.alloc('int32', 3 * n) as unknown as DeviceStorage;
      for (const trans of TRANS) ctx.getrs({ trans, a: mat(n, n, form, 3), ipiv, b: mat(n, nrhsFor(n), formB, 3) });
    }
    for (const n of [...GESV_SIZES, ...largeSizes(dtype)]) ctx.gesv({ a: mat(n, n, formFor(n), 3), b: mat(n, nrhsFor(n), formFor(n), 3) });
    // The forced steps, through the launchers on the planning device.
    const ints = (n: number): DeviceArray => dev.alloc('int32', 3 * n);
    for (const { force, orders, gesvOnly } of FORCED) {
      for (const n of orders) {
        if (!gesvOnly) complexGetrfCuda(dev, { a: asDevice<Batch<DeviceArray>>(mat(n, n, formFor(n), 3)), ipiv: ints(n), pivotStride: n, info: ints(1) }, { force });
        complexGesvCuda(dev, { a: asDevice<Batch<DeviceArray>>(mat(n, n, formFor(n), 3)), b: asDevice<Batch<DeviceArray>>(mat(n, nrhsFor(n), formFor(n), 3)), ipiv: ints(n), pivotStride: n, info: ints(1) }, { force });
      }
      if (!gesvOnly) complexGetrfCuda(dev, { a: asDevice<Batch<DeviceArray>>(mat(32, 7, 'strided', 3)), ipiv: ints(7), pivotStride: 7, info: ints(1) }, { force });
    }
  }
}));

for (const dtype of DTYPES) {
  test(`getrf ${ctypeOf(dtype)}: n = 1 ... 32 (list batches at n = 3, 7, ...), rectangles, mixed batches vs the reference`, { skip, timeout: 300_000 }, () => {
    const { ctx } = gpuContext();
    for (const n of SIZES) checkGetrf(ctx, dtype, n, n, formFor(n), 'getrf');
    for (const [rows, cols] of RECTANGLES) checkGetrf(ctx, dtype, rows, cols, 'strided', 'getrf');
  });
  test(`getrs ${ctypeOf(dtype)} 'N', 'T', 'C': residuals on the GPU's factors`, { skip, timeout: 300_000 }, () => {
    const { ctx } = gpuContext();
    for (const n of SOLVE_SIZES) for (const trans of TRANS) checkGetrs(ctx, dtype, n, trans);
  });
  test(`gesv ${ctypeOf(dtype)}: pivots and info as the reference, singular matrices keep B, residuals`, { skip, timeout: 300_000 }, () => {
    const { ctx } = gpuContext();
    for (const n of GESV_SIZES) checkGesv(ctx, dtype, n, 'gesv');
  });
  test(`getrf and gesv ${ctypeOf(dtype)}: each in-register step forced (group from 17, warp with 1 and 4 warps a block, warp below 17, gesv solving after the LU, the L2 prefetch), the launchers called directly`, { skip, timeout: 300_000 }, () => {
    const { ctx } = gpuContext();
    for (const { force, orders, gesvOnly } of FORCED) {
      for (const n of orders) {
        if (!gesvOnly) checkGetrf(ctx, dtype, n, n, formFor(n), 'getrf', force);
        checkGesv(ctx, dtype, n, 'gesv', force);
      }
      if (!gesvOnly) checkGetrf(ctx, dtype, 32, 7, 'strided', 'getrf', force);
    }
  });
}

for (const dtype of DTYPES) {
  test(`getrf ${ctypeOf(dtype)} above 32 on the GPU (the blocked steps): ${largeSizes(dtype).join(', ')}, 33 x 80 and 80 x 33, mixed batches vs the reference`, { skip, timeout: 300_000 }, () => {
    const { ctx } = gpuContext();
    for (const n of largeSizes(dtype)) checkGetrf(ctx, dtype, n, n, formFor(n), 'getrf');
    checkGetrf(ctx, dtype, 33, 80, 'list', 'getrf');
    checkGetrf(ctx, dtype, 80, 33, 'strided', 'getrf');
  });
  test(`getrs ${ctypeOf(dtype)} above 32 'N', 'T', 'C' on the GPU: residuals on the GPU's factors`, { skip, timeout: 300_000 }, () => {
    const { ctx } = gpuContext();
    for (const n of largeSizes(dtype).filter((x) => x <= 256)) for (const trans of TRANS) checkGetrs(ctx, dtype, n, trans);
  });
  test(`gesv ${ctypeOf(dtype)} above 32 on the GPU: pivots and info as the reference, singular matrices keep B, residuals`, { skip, timeout: 300_000 }, () => {
    const { ctx } = gpuContext();
    for (const n of largeSizes(dtype)) checkGesv(ctx, dtype, n, 'gesv');
  });
}
