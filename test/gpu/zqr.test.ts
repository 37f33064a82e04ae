/**
 * Complex QR on the GPU (kernels/zqr/: zgeqrf, zungqr, zunmqr and their complex64 forms; routes 'qr'
 * and 'ormqr' of COMPLEX_ROUTES) against the complex reference (cpu/complex/zqr.ts, run in float64
 * on host copies), on fresh random data (parts in [-1, 1]): square, tall (m = n + 7) and wide
 * (n = m + 5) matrices of orders 1 ... 40, 47, 64, 100, 128 and 256 (the warp scope, the block scope,
 * the blocked driver from 128 reflectors and where the tile does not fit), complex128 and
 * complex64, strided batches with a ragged ld, gaps and an offset, and list batches of separate
 * arrays, every float outside the outputs a NaN with its own payload that must come back bit for
 * bit. geqrf: info 0, the backward error ||A - Q R|| / ||A|| and ||Q^H Q - I|| within 30 max(m, n)
 * eps (Q formed by the reference from the GPU's reflectors), R's diagonal real with the reference's
 * signs; one matrix of some batches holds a NaN, which must stay in it. orgqr (m >= n) and ormqr
 * (left and right, 'N' and 'C') on the GPU's factors against the reference on the same factors,
 * within 20 max(m, k) eps of the largest entry. gels (route 'gels': m >= n least squares, m < n minimum
 * norm) against the reference: three systems per batch, one of full rank (A's diagonal raised by 4),
 * one with an exactly zero column (tall) or row (wide), one all zero: info exactly, B where info > 0
 * and where A is zero bit for bit as the reference leaves it, X and A's factors within
 * 50 max(m, n) eps. Skips with one line where no GPU is usable.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import type { Context } from '../../src/api/context.js';
import { list, strided, type Batch } from '../../src/core/batch.js';
import type { DType } from '../../src/core/dtype.js';
import type { Side } from '../../src/core/enums.js';
import type { DeviceStorage, Storage } from '../../src/core/storage.js';
import { cpuOrgqrComplex, cpuOrmqrComplex, zung2r } from '../../src/cpu/complex/zqr.js';
import { cpuGelsComplex } from '../../src/cpu/complex/zgels.js';
import { gpuContext, gpuSkipReason, warmFileKernels } from '../helpers/gpu.js';
import { batchOf, bits, place, type Placed, type PlacedForm } from '../helpers/placed-pairs.js';
import { Rng } from '../helpers/random.js';
import type { Pairs } from '../helpers/ztrsm-data.js';

const skip = gpuSkipReason();
const DTYPES: readonly DType[] = ['float64', 'float32'];
const ORDERS = [...Array.from({ length: 40 }, (_, i) => i + 1), 47, 64, 100, 128, 256];
const ctypeOf = (dtype: DType): 'complex128' | 'complex64' => (dtype === 'float64' ? 'complex128' : 'complex64');
const epsOf = (dtype: DType): number => (dtype === 'float64' ? 2 ** -53 : 2 ** -24);

interface Case { dtype: DType; m: number; n: number; count: number; form: PlacedForm; nan: boolean }

function cases(dtype: DType): Case[] {
  const out: Case[] = [];
  let i = 0;
  for (const o of ORDERS) {
    const shapes: [number, number][] = o <= 64 ? [[o, o], [o + 7, o], [o, o + 5]] : o <= 128 ? [[o, o], [o + 7, o]] : [[o, o]];
    for (const [m, n] of shapes) {
      out.push({ dtype, m, n, count: o <= 40 ? 5 : 3, form: i % 3 === 1 ? 'list' : 'strided', nan: i % 5 === 2 });
      i++;
    }
  }
  return out;
}

const fillRandom = (rng: Rng, rows: number, cols: number) => (data: Pairs, off: number, ld: number): void => {
  for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) {
    data[2 * (off + i + j * ld)] = rng.uniform(-1, 1);
    data[2 * (off + i + j * ld) + 1] = rng.uniform(-1, 1);
  }
};
/** The array and offset of matrix q. */
const at = (p: Placed, q: number): { a: number; off: number } => ({ a: p.form === 'strided' ? 0 : q, off: p.offsets[q]! });
const upload = (ctx: Context, arrays: readonly Pairs[]): DeviceStorage[] => arrays.map((x) => ctx.upload(x) as DeviceStorage);
const dispose = (ds: readonly DeviceStorage[]): void => { for (const d of ds) (d as { dispose?: () => void }).dispose?.(); };
const f64 = (arrays: readonly Pairs[]): Float64Array[] => arrays.map((x) => Float64Array.from(x));

/** Every float of `got` outside the rows x cols matrices of `p` (in the batch's placement) equal to `was`'s bit for bit. */
function outsideUnchanged(p: Placed, rows: number, cols: number, got: readonly Pairs[], was: readonly Pairs[], what: string): void {
  got.forEach((g, a) => {
    const inside = new Set<number>();
    p.offsets.forEach((off, q) => {
      if (at(p, q).a !== a) return;
      for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) inside.add(off + i + j * p.ld);
    });
    const gb = bits(g), wb = bits(was[a]!);
    const per = gb.length / g.length;
    for (let f = 0; f < g.length; f++) {
      if (inside.has(Math.floor(f / 2))) continue;
      for (let w = 0; w < per; w++) assert.equal(gb[per * f + w], wb[per * f + w], `${what}: array ${a} float ${f} outside the outputs changed`);
    }
  });
}

/** ||A - Q R||_F / ||A||_F and ||Q^H Q - I||_F of one matrix: Q (m x k) by the reference's zung2r from the factors. */
function backwardErrors(fac: Pairs, fo: number, tau: Pairs, to: number, orig: Float64Array, ao: number, ld: number, m: number, n: number): [number, number] {
  const k = Math.min(m, n);
  const qm = new Float64Array(2 * m * k);
  for (let j = 0; j < k; j++) for (let i = 0; i < m; i++) for (const p of [0, 1]) qm[2 * (i + j * m) + p] = fac[2 * (fo + i + j * ld) + p]!;
  zung2r(qm, Float64Array.from(tau.subarray(2 * to, 2 * to + 2 * k)), m, k, k);
  let res = 0, norm = 0;
  for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) {
    let re = 0, im = 0;
    for (let l = 0; l <= Math.min(j, k - 1); l++) {
      const rr = fac[2 * (fo + l + j * ld)]!, ri = fac[2 * (fo + l + j * ld) + 1]!;
      const qr = qm[2 * (i + l * m)]!, qi = qm[2 * (i + l * m) + 1]!;
      re += qr * rr - qi * ri;
      im += qr * ri + qi * rr;
    }
    const ar = orig[2 * (ao + i + j * ld)]!, ai = orig[2 * (ao + i + j * ld) + 1]!;
    res += (ar - re) ** 2 + (ai - im) ** 2;
    norm += ar * ar + ai * ai;
  }
  let orth = 0;
  for (let j = 0; j < k; j++) for (let i = 0; i < k; i++) {
    let re = 0, im = 0;
    for (let p = 0; p < m; p++) {
      const xr = qm[2 * (p + i * m)]!, xi = -qm[2 * (p + i * m) + 1]!, yr = qm[2 * (p + j * m)]!, yi = qm[2 * (p + j * m) + 1]!;
      re += xr * yr - xi * yi;
      im += xr * yi + xi * yr;
    }
    orth += (re - (i === j ? 1 : 0)) ** 2 + im ** 2;
  }
  return [Math.sqrt(res / Math.max(norm, Number.MIN_VALUE)), Math.sqrt(orth)];
}

/** max |got - want| over matrix q's rows x cols, and the largest |want|. */
function maxDiff(p: Placed, q: number, rows: number, cols: number, got: readonly Pairs[], want: readonly Float64Array[]): { diff: number; scale: number } {
  const { a, off } = at(p, q);
  let diff = 0, scale = 0;
  for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) for (const s of [0, 1]) {
    const e = 2 * (off + i + j * p.ld) + s;
    diff = Math.max(diff, Math.abs(got[a]![e]! - want[a]![e]!));
    scale = Math.max(scale, Math.abs(want[a]![e]!));
  }
  return { diff, scale };
}

function check(ctx: Context, c: Case, seed: number): void {
  const rng = new Rng(seed);
  const { dtype, m, n, count } = c;
  const k = Math.min(m, n);
  const type = ctypeOf(dtype);
  const eps = epsOf(dtype);
  const what = `${type} ${m} x ${n}, ${count} ${c.form}${c.nan ? ', matrix 1 with a NaN' : ''}`;
  const pa = place(dtype, m, n, count, c.form, fillRandom(rng, m, n));
  if (c.nan) { const { a, off } = at(pa, 1); pa.arrays[a]![2 * (off + (m - 1) + Math.floor(n / 2) * pa.ld)] = Number.NaN; }
  const pt = place(dtype, k, 1, count, c.form, fillRandom(rng, k, 1));
  const a0 = f64(pa.arrays);
  // geqrf.
  const da = upload(ctx, pa.arrays), dt = upload(ctx, pt.arrays);
  let fac: Pairs[], tau: Pairs[];
  try {
    const info = ctx.geqrf({ a: batchOf(pa, da, type), tau: batchOf(pt, dt, type) }).info;
    assert.deepEqual(ctx.lastRoute, { op: 'geqrf', route: 'qr', gpu: true }, what);
    const infoHost = info instanceof Int32Array ? info : ctx.download(info as DeviceStorage) as Int32Array;
    assert.deepEqual([...infoHost], new Array(count).fill(0), `${what}: info`);
    fac = da.map((d) => ctx.download(d) as Pairs);
    tau = dt.map((d) => ctx.download(d) as Pairs);
  } finally {
    dispose([...da, ...dt]);
  }
  outsideUnchanged(pa, m, n, fac, pa.arrays, `geqrf ${what}`);
  outsideUnchanged(pt, k, 1, tau, pt.arrays, `geqrf ${what} (tau)`);
  const bound = 30 * Math.max(m, n) * eps;
  for (let q = 0; q < count; q++) {
    if (c.nan && q === 1) continue;
    const { a, off } = at(pa, q), { a: ta, off: to } = at(pt, q);
    const [res, orth] = backwardErrors(fac[a]!, off, tau[ta]!, to, a0[a]!, off, pa.ld, m, n);
    assert.ok(res <= bound, `geqrf ${what}: matrix ${q}: ||A - QR|| / ||A|| = ${(res / eps).toFixed(1)} eps`);
    assert.ok(orth <= bound, `geqrf ${what}: matrix ${q}: ||Q^H Q - I|| = ${(orth / eps).toFixed(1)} eps`);
    for (let j = 0; j < k; j++) assert.equal(fac[a]![2 * (off + j + j * pa.ld) + 1], 0, `geqrf ${what}: matrix ${q}: R(${j}, ${j}) real`);
  }
  // orgqr and ormqr on the GPU's factors (the NaN matrix left out of the comparisons: its NaN spreads in both).
  const near = (got: readonly Pairs[], want: readonly Float64Array[], p: Placed, rows: number, cols: number, op: string): void => {
    for (let q = 0; q < count; q++) {
      if (c.nan && q === 1) continue;
      const { diff, scale } = maxDiff(p, q, rows, cols, got, want);
      assert.ok(diff <= 20 * Math.max(m, k) * eps * Math.max(1, scale), `${op} ${what}: matrix ${q}: max |got - reference| = ${(diff / eps).toFixed(1)} eps`);
    }
  };
  const facP: Placed = { ...pa, arrays: fac };
  if (m >= n) {
    const want = f64(fac);
    cpuOrgqrComplex({ a: batchOf(facP, want, 'complex128'), tau: batchOf(pt, f64(tau), 'complex128') });
    const dq = upload(ctx, fac), dtq = upload(ctx, tau);
    try {
      ctx.orgqr({ a: batchOf(facP, dq, type), tau: batchOf(pt, dtq, type) });
      assert.deepEqual(ctx.lastRoute, { op: 'orgqr', route: 'qr', gpu: true }, what);
      const got = dq.map((d) => ctx.download(d) as Pairs);
      outsideUnchanged(pa, m, n, got, fac, `orgqr ${what}`);
      near(got, want, pa, m, n, 'orgqr');
    } finally {
      dispose([...dq, ...dtq]);
    }
  }
  const reflectors: Placed = { ...facP, cols: k };
  for (const side of ['left', 'right'] as Side[]) for (const trans of ['N', 'C'] as const) {
    const [cr, cc] = side === 'left' ? [m, 4] : [4, m];
    const pc = place(dtype, cr, cc, count, c.form, fillRandom(rng, cr, cc));
    const want = f64(pc.arrays);
    cpuOrmqrComplex({ side, trans, a: batchOf(reflectors, f64(fac), 'complex128'), tau: batchOf(pt, f64(tau), 'complex128'), c: batchOf(pc, want, 'complex128') });
    const dr = upload(ctx, fac), dtr = upload(ctx, tau), dc = upload(ctx, pc.arrays);
    try {
      ctx.ormqr({ side, trans, a: batchOf(reflectors, dr, type), tau: batchOf(pt, dtr, type), c: batchOf(pc, dc, type) });
      assert.deepEqual(ctx.lastRoute, { op: 'ormqr', route: 'ormqr', gpu: true }, what);
      dr.forEach((d, i) => assert.deepEqual(bits(ctx.download(d) as Pairs), bits(fac[i]!), `ormqr ${side} ${trans} ${what}: A's array ${i} changed`));
      const got = dc.map((d) => ctx.download(d) as Pairs);
      outsideUnchanged(pc, cr, cc, got, pc.arrays, `ormqr ${side} ${trans} ${what}`);
      near(got, want, pc, cr, cc, `ormqr ${side} ${trans}`);
    } finally {
      dispose([...dr, ...dtr, ...dc]);
    }
  }
}

const GELS_SHAPES = [[1, 1], [8, 5], [5, 8], [32, 32], [33, 33], [40, 33], [20, 47], [64, 64], [100, 64], [64, 100], [128, 100], [256, 128]] as const;

function checkGels(ctx: Context, dtype: DType, m: number, n: number, form: PlacedForm, seed: number): void {
  const rng = new Rng(seed);
  const type = ctypeOf(dtype);
  const eps = epsOf(dtype);
  const count = 3, nrhs = 3, rowsB = Math.max(m, n), zeroAt = Math.floor(Math.min(m, n) / 2);
  const what = `gels ${type} ${m} x ${n}, ${nrhs} right-hand sides, ${form}`;
  let q = 0;
  const pa = place(dtype, m, n, count, form, (data, off, ld) => {
    for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) {
      const zero = q === 2 || (q === 1 && (m >= n ? j === zeroAt : i === zeroAt));
      data[2 * (off + i + j * ld)] = zero ? 0 : rng.uniform(-1, 1) + (i === j ? 4 : 0);
      data[2 * (off + i + j * ld) + 1] = zero ? 0 : rng.uniform(-1, 1);
    }
    q++;
  });
  const pb = place(dtype, rowsB, nrhs, count, form, fillRandom(rng, rowsB, nrhs));
  const [wantA, wantB] = [f64(pa.arrays), f64(pb.arrays)];
  const wantInfo = new Int32Array(count);
  cpuGelsComplex({ a: batchOf(pa, wantA, 'complex128'), b: batchOf(pb, wantB, 'complex128'), info: wantInfo });
  const da = upload(ctx, pa.arrays), db = upload(ctx, pb.arrays);
  try {
    const info = ctx.gels({ a: batchOf(pa, da, type), b: batchOf(pb, db, type) }).info;
    assert.deepEqual(ctx.lastRoute, { op: 'gels', route: 'gels', gpu: true }, what);
    const infoHost = info instanceof Int32Array ? info : ctx.download(info as DeviceStorage) as Int32Array;
    assert.deepEqual([...infoHost], [...wantInfo], `${what}: info`);
    // With min(m, n) = 1 the zero column (row) is all of A: a zero system.
    assert.deepEqual([...wantInfo], [0, Math.min(m, n) === 1 ? 0 : zeroAt + 1, 0], `${what}: the cases as meant`);
    const gotA = da.map((d) => ctx.download(d) as Pairs), gotB = db.map((d) => ctx.download(d) as Pairs);
    outsideUnchanged(pa, m, n, gotA, pa.arrays, what);
    outsideUnchanged(pb, rowsB, nrhs, gotB, pb.arrays, what);
    for (let p = 0; p < count; p++) {
      const fa = maxDiff(pa, p, m, n, gotA, wantA);
      assert.ok(fa.diff <= 50 * rowsB * eps * Math.max(1, fa.scale), `${what}: system ${p}: A's factors: max |got - reference| = ${(fa.diff / eps).toFixed(1)} eps`);
      if (p === 0) {
        const fb = maxDiff(pb, p, rowsB, nrhs, gotB, wantB);
        assert.ok(fb.diff <= 50 * rowsB * eps * Math.max(1, fb.scale), `${what}: system ${p}: X: max |got - reference| = ${(fb.diff / eps).toFixed(1)} eps`);
        continue;
      }
      const { a, off } = at(pb, p);
      for (let j = 0; j < nrhs; j++) for (let i = 0; i < rowsB; i++) for (const s of [0, 1]) {
        const e = 2 * (off + i + j * pb.ld) + s;
        assert.ok(Object.is(gotB[a]![e]!, wantB[a]![e]!), `${what}: system ${p}: B(${i}, ${j}) exactly the reference's (${gotB[a]![e]} against ${wantB[a]![e]})`);
      }
    }
  } finally {
    dispose([...da, ...db]);
  }
}

/** Every kernel of the file, compiled at once (the calls made on a device that runs nothing). */
before(() => warmFileKernels('zqr', (ctx, planning) => {
  if (planning === undefined) return;
  const dev = planning.device;
  for (const dtype of DTYPES) for (const c of cases(dtype)) {
    const type = ctypeOf(dtype);
    const mat = (r: number, q: number, form: PlacedForm): Batch<Storage> => {
      const ld = r % 2 === 0 ? r + 1 : r + 2;
      return form === 'list'
        ? list(Array.from({ length: c.count }, () => ({ data: dev.alloc(dtype, 2 * (2 + ld * q + 1)) as unknown as Storage, offset: 2 })), { rows: r, cols: q, ld, dtype: type })
        : strided(dev.alloc(dtype, 2 * (5 + c.count * (ld * q + 3) + 1)) as unknown as Storage, { rows: r, cols: q, ld, stride: ld * q + 3, offset: 5, count: c.count, dtype: type });
    };
    const k = Math.min(c.m, c.n);
    ctx.geqrf({ a: mat(c.m, c.n, c.form), tau: mat(k, 1, c.form) });
    if (c.m >= c.n) ctx.orgqr({ a: mat(c.m, c.n, c.form), tau: mat(k, 1, c.form) });
    for (const side of ['left', 'right'] as const) for (const trans of ['N', 'C'] as const)
      ctx.ormqr({ side, trans, a: mat(c.m, k, c.form), tau: mat(k, 1, c.form), c: side === 'left' ? mat(c.m, 4, c.form) : mat(4, c.m, c.form) });
  }
  for (const dtype of DTYPES) for (const [m, n] of GELS_SHAPES) for (const form of ['strided', 'list'] as const) {
    const mat = (r: number, q: number): Batch<Storage> => {
      const ld = r % 2 === 0 ? r + 1 : r + 2;
      return form === 'list'
        ? list(Array.from({ length: 3 }, () => ({ data: dev.alloc(dtype, 2 * (2 + ld * q + 1)) as unknown as Storage, offset: 2 })), { rows: r, cols: q, ld, dtype: ctypeOf(dtype) })
        : strided(dev.alloc(dtype, 2 * (5 + 3 * (ld * q + 3) + 1)) as unknown as Storage, { rows: r, cols: q, ld, stride: ld * q + 3, offset: 5, count: 3, dtype: ctypeOf(dtype) });
    };
    ctx.gels({ a: mat(m, n), b: mat(Math.max(m, n), 3) });
  }
}));

for (const dtype of DTYPES) {
  test(`complex QR ${ctypeOf(dtype)}: geqrf, orgqr and ormqr (left, right; N, C), orders 1 ... 40, 47, 64, 100, 128, 256, vs the reference`, { skip, timeout: 1_200_000 }, () => {
    const { ctx } = gpuContext();
    cases(dtype).forEach((c, i) => check(ctx, c, 7000 + i + (dtype === 'float32' ? 5000 : 0)));
  });
}

for (const dtype of DTYPES) {
  test(`complex gels ${ctypeOf(dtype)}: tall and wide, full rank, singular and zero systems, strided and list, vs the reference`, { skip, timeout: 600_000 }, () => {
    const { ctx } = gpuContext();
    GELS_SHAPES.forEach(([m, n], i) => (['strided', 'list'] as const).forEach((form, f) => checkGels(ctx, dtype, m, n, form, 9000 + 2 * i + f + (dtype === 'float32' ? 500 : 0))));
  });
}
