/**
 * Complex trmm and zsyrk on the GPU against the complex reference (run in float64 on host copies),
 * on fresh random data, complex128 and complex64:
 * - trmm (kernels/ztrmm/: ztrmm, ctrmm, route 'trmm' of COMPLEX_ROUTES; triangles of order <= 32 on
 *   the warp kernel, larger ones by the recursion over it with the complex GEMM, in place; reference
 *   cpu/complex/ztrmm.ts): every side / uplo / trans / diag at orders 1, 5, 31, 32 with 1, 3 and 40
 *   vectors (40: ten passes of four, spread over blockIdx.y), then each variant at one of the orders
 *   33, 47, 64, 65, 100, 128, 256 (the recursion); complex alpha, alpha = 1 (no scaling), alpha = 0
 *   (B zero, A and B all NaN and not read), a large batch. The triangles are test/helpers/ztrsm-data.ts's
 *   (|T x| within a small factor of |x|), so its tolerance, 64 max(8, t) eps of the matrix's largest
 *   result, bounds the rounding of t complex products.
 * - zsyrk (kernels/zherk/ with `symmetric`: zsyrk, csyrk, route 'syrk'; reference cpu/complex/zrankk.ts):
 *   lower and upper, 'N' and 'T', n = 1, 5, 31, 32 with k = 1, 5, 40, then n = 33 .. 256 (the
 *   recursion); complex alpha and beta, beta = 0 (C's triangle NaN, not read), alpha = 0 (A NaN, not
 *   read), k = 0, beta = 1, and alpha = 0 or k = 0 with beta = 1 (zsyrk's early return: C exactly as it
 *   was). Each part within 4 (k + 2) eps of |alpha| sum_l |A_il| |A_jl| + |beta| |C_ij| (a sum of k + 1
 *   complex products, as test/helpers/zherk-data.ts bounds zherk's).
 * Strided batches with a ragged ld, gaps and an offset, and list batches of separate arrays (either
 * operand in either form). Every float of the output's buffers outside the written part (outside the
 * matrices, C's other triangle) holds a NaN with its own payload and must come back bit for bit; A's
 * buffers must come back bit for bit whole. Skips with one line where no GPU is usable.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import type { Context } from '../../src/api/context.js';
import { list, strided, type Batch } from '../../src/core/batch.js';
import { DTYPE_EPS, type DType } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import type { ComplexScalar } from '../../src/core/op-specs.js';
import type { DeviceStorage, Storage } from '../../src/core/storage.js';
import { cpuSyrkComplex } from '../../src/cpu/complex/zrankk.js';
import { cpuTrmmComplex } from '../../src/cpu/complex/ztrmm.js';
import { gpuContext, gpuSkipReason, warmFileKernels } from '../helpers/gpu.js';
import { batchOf, bits, place, type Placed, type PlacedForm } from '../helpers/placed-pairs.js';
import { Rng } from '../helpers/random.js';
import { compareComplex, fillComplexTriangle, variantName, ZTRSM_VARIANTS, ztrsmTolerance, type Pairs, type ZtrsmCase } from '../helpers/ztrsm-data.js';

const skip = gpuSkipReason();
const DTYPES: readonly DType[] = ['float64', 'float32'];
const ORDERS = [1, 5, 31, 32];
const VECTORS = [1, 3, 40];
/** The recursion's orders (leaves of at most 32, the complex GEMM between them). */
const LARGE = [33, 47, 64, 65, 100, 128, 256];
const KS = [1, 5, 40];
const ALPHA: ComplexScalar = [0.75, -1.25];
const BETA: ComplexScalar = [-0.5, 0.25];

type Form = PlacedForm;
const ctypeOf = (dtype: DType): 'complex128' | 'complex64' => (dtype === 'float64' ? 'complex128' : 'complex64');
const isZero = (z: ComplexScalar): boolean => z[0] === 0 && z[1] === 0;
const isOne = (z: ComplexScalar): boolean => z[0] === 1 && z[1] === 0;

// ---------------------------------------------------------------------------------------------
// trmm.

interface TrmmCall extends ZtrsmCase { dtype: DType; order: number; nrhs: number; count: number; formA: Form; formB: Form; alpha: ComplexScalar }
const shapeB = (c: TrmmCall): [number, number] => (c.side === 'left' ? [c.order, c.nrhs] : [c.nrhs, c.order]);

/** Every variant, order and vector count to 32; A a list every third call, B every fourth. */
function trmmSweep(dtype: DType): TrmmCall[] {
  const out: TrmmCall[] = [];
  let i = 0;
  for (const v of ZTRSM_VARIANTS) for (const order of ORDERS) for (const nrhs of VECTORS) {
    out.push({ ...v, dtype, order, nrhs, count: order <= 8 ? 40 : 20, formA: i % 3 === 2 ? 'list' : 'strided', formB: i % 4 === 1 ? 'list' : 'strided', alpha: ALPHA });
    i++;
  }
  return out;
}

/** Above 32 (the recursion): every variant once, the orders and vector counts in turn; then alpha 0 and 1, and the specials to 32. */
function trmmLarge(dtype: DType): TrmmCall[] {
  const out: TrmmCall[] = ZTRSM_VARIANTS.map((v, i): TrmmCall => ({
    ...v, dtype, order: LARGE[i % LARGE.length]!, nrhs: VECTORS[(i + Math.floor(i / LARGE.length)) % VECTORS.length]!, count: 3, alpha: ALPHA,
    formA: i % 5 === 3 ? 'list' : 'strided', formB: i % 4 === 2 ? 'list' : 'strided',
  }));
  const base = { dtype, count: 3, formA: 'strided' as Form, formB: 'strided' as Form };
  out.push(
    { ...base, side: 'left', uplo: 'lower', transA: 'C', diag: 'nonunit', order: 100, nrhs: 5, alpha: [0, 0], formB: 'list' },
    { ...base, side: 'right', uplo: 'upper', transA: 'N', diag: 'unit', order: 65, nrhs: 40, alpha: [0, 0] },
    { ...base, side: 'right', uplo: 'lower', transA: 'T', diag: 'nonunit', order: 128, nrhs: 3, alpha: [1, 0], formA: 'list' },
    { ...base, side: 'left', uplo: 'upper', transA: 'N', diag: 'unit', order: 256, nrhs: 40, alpha: [1, 0] },
    { ...base, side: 'left', uplo: 'upper', transA: 'C', diag: 'nonunit', order: 16, nrhs: 5, count: 20, alpha: [0, 0] },
    { ...base, side: 'right', uplo: 'lower', transA: 'N', diag: 'nonunit', order: 31, nrhs: 40, count: 20, alpha: [1, 0], formA: 'list' },
    { ...base, side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', order: 16, nrhs: 40, count: 4000, alpha: ALPHA },
    { ...base, side: 'right', uplo: 'upper', transA: 'C', diag: 'unit', order: 1, nrhs: 3, count: 20000, alpha: ALPHA },
  );
  return out;
}

/** The matrix of array `a` that pair e lies in, or -1. */
function matrixOf(p: Placed, a: number): (e: number) => number {
  const inside = (d: number): boolean => d >= 0 && d % p.ld < p.rows && Math.floor(d / p.ld) < p.cols;
  if (p.form === 'list') return (e) => (inside(e - p.offsets[0]!) ? a : -1);
  return (e) => {
    const q = Math.floor((e - p.offsets[0]!) / p.stride);
    return q >= 0 && q < p.offsets.length && inside(e - p.offsets[q]!) ? q : -1;
  };
}

function checkTrmm(ctx: Context, c: TrmmCall, seed: number): void {
  const rng = new Rng(seed);
  const [rows, cols] = shapeB(c);
  const zero = isZero(c.alpha);
  const nan = (data: Pairs, off: number, ld: number, r: number, k: number): void => {
    for (let j = 0; j < k; j++) for (let i = 0; i < r; i++) { data[2 * (off + i + j * ld)] = NaN; data[2 * (off + i + j * ld) + 1] = NaN; }
  };
  const pa = place(c.dtype, c.order, c.order, c.count, c.formA, (data, off, ld) => {
    if (zero) nan(data, off, ld, c.order, c.order);
    else fillComplexTriangle(rng, data, off, ld, c.order, c.uplo, c.diag);
  });
  const pb = place(c.dtype, rows, cols, c.count, c.formB, (data, off, ld) => {
    if (zero) { nan(data, off, ld, rows, cols); return; }
    for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) { data[2 * (off + i + j * ld)] = rng.uniform(); data[2 * (off + i + j * ld) + 1] = rng.uniform(); }
  });
  const what = `trmm ${variantName(c)} ${ctypeOf(c.dtype)} order ${c.order}, ${c.nrhs} vectors, ${c.count} matrices, A ${c.formA}, B ${c.formB}, alpha ${c.alpha}`;
  const refA = pa.arrays.map((x) => Float64Array.from(x)), refB = pb.arrays.map((x) => Float64Array.from(x));
  cpuTrmmComplex({ side: c.side, uplo: c.uplo, transA: c.transA, diag: c.diag, alpha: c.alpha, a: batchOf(pa, refA, 'complex128'), b: batchOf(pb, refB, 'complex128') });
  const da = pa.arrays.map((x) => ctx.upload(x) as DeviceStorage), db = pb.arrays.map((x) => ctx.upload(x) as DeviceStorage);
  try {
    ctx.trmm({ side: c.side, uplo: c.uplo, transA: c.transA, diag: c.diag, alpha: c.alpha, a: batchOf(pa, da, ctypeOf(c.dtype)), b: batchOf(pb, db, ctypeOf(c.dtype)) });
    assert.deepEqual(ctx.lastRoute, { op: 'trmm', route: 'trmm', gpu: true }, what);
    da.forEach((d, a) => assert.deepEqual(bits(ctx.download(d) as Pairs), bits(pa.arrays[a]!), `${what}: A's array ${a} changed`));
    const tol = ztrsmTolerance(c.dtype, c.order);
    db.forEach((d, a) => {
      const got = ctx.download(d) as Pairs;
      const inB = matrixOf(pb, a);
      const g = bits(got), w = bits(pb.arrays[a]!);
      const per = g.length / got.length;   // 32-bit words per float
      for (let f = 0; f < got.length; f++) {
        if (inB(Math.floor(f / 2)) >= 0) continue;
        for (let k = 0; k < per; k++) assert.equal(g[per * f + k], w[per * f + k], `${what}: array ${a} float ${f} outside B changed (${got[f]})`);
      }
      if (zero) got.forEach((v, f) => { if (inB(Math.floor(f / 2)) >= 0) assert.ok(Object.is(v, 0), `${what}: alpha = 0 left float ${f} = ${v}`); });
      compareComplex(got, refB[a]!, inB, tol, `${what}, array ${a}`);
    });
  } finally {
    for (const d of [...da, ...db]) (d as { dispose?: () => void }).dispose?.();
  }
}

// ---------------------------------------------------------------------------------------------
// zsyrk.

interface SyrkCall { dtype: DType; uplo: Uplo; trans: 'N' | 'T'; n: number; k: number; count: number; alpha: ComplexScalar; beta: ComplexScalar; formA: Form; formC: Form }

function syrkSweep(dtype: DType): SyrkCall[] {
  const out: SyrkCall[] = [];
  let i = 0;
  for (const uplo of ['lower', 'upper'] as const) for (const trans of ['N', 'T'] as const) for (const n of ORDERS) for (const k of KS) {
    out.push({ dtype, uplo, trans, n, k, count: n <= 8 ? 60 : 25, alpha: ALPHA, beta: BETA, formA: i % 3 === 2 ? 'list' : 'strided', formC: i % 4 === 1 ? 'list' : 'strided' });
    i++;
  }
  return out;
}

/** Above 32 (the recursion), then beta 0, alpha 0, k = 0, beta 1, the early return, a large batch. */
function syrkSpecials(dtype: DType): SyrkCall[] {
  const out: SyrkCall[] = [];
  let i = 0;
  for (const n of LARGE) for (const [uplo, trans] of i % 2 === 0 ? [['lower', 'N'], ['upper', 'T']] as const : [['upper', 'N'], ['lower', 'T']] as const) {
    out.push({ dtype, uplo, trans, n, k: i % 3 === 1 && n <= 128 ? 40 : 5, count: 3, alpha: ALPHA, beta: BETA, formA: i % 3 === 2 ? 'list' : 'strided', formC: i % 4 === 1 ? 'list' : 'strided' });
    i++;
  }
  const base = { dtype, formA: 'strided' as Form, formC: 'strided' as Form, count: 3 };
  out.push(
    { ...base, uplo: 'upper', trans: 'T', n: 32, k: 9, alpha: [-0.75, 1], beta: [0, 0], formC: 'list', count: 20 },
    { ...base, uplo: 'lower', trans: 'T', n: 100, k: 7, alpha: [1, 0], beta: [0, 0], formC: 'list' },
    { ...base, uplo: 'lower', trans: 'N', n: 16, k: 3, alpha: [0, 0], beta: [2, -1], formA: 'list', count: 20 },
    { ...base, uplo: 'upper', trans: 'N', n: 64, k: 3, alpha: [0, 0], beta: [-2, 0] },
    { ...base, uplo: 'upper', trans: 'N', n: 31, k: 0, alpha: [2, 1], beta: [0.5, 0.5], count: 20 },
    { ...base, uplo: 'lower', trans: 'N', n: 47, k: 0, alpha: [2, 0], beta: [0.5, 0] },
    { ...base, uplo: 'lower', trans: 'T', n: 7, k: 3, alpha: [0, 0], beta: [1, 0], count: 20 },
    { ...base, uplo: 'upper', trans: 'T', n: 100, k: 3, alpha: [0, 0], beta: [1, 0] },
    { ...base, uplo: 'upper', trans: 'N', n: 31, k: 0, alpha: [2, 1], beta: [1, 0], count: 20 },
    { ...base, uplo: 'lower', trans: 'N', n: 32, k: 32, alpha: [1, -1], beta: [1, 0], count: 20 },
    { ...base, uplo: 'lower', trans: 'T', n: 4, k: 6, alpha: ALPHA, beta: BETA, count: 20000 },
  );
  return out;
}

/** Whether pair e of array `a` lies in the `uplo` triangle of one of C's matrices. */
function inTriangle(p: Placed, a: number, uplo: Uplo): (e: number) => boolean {
  const inside = (d: number): boolean => {
    if (d < 0) return false;
    const i = d % p.ld, j = Math.floor(d / p.ld);
    return i < p.rows && j < p.cols && (uplo === 'lower' ? i >= j : i <= j);
  };
  if (p.form === 'list') return (e) => inside(e - p.offsets[0]!);
  return (e) => {
    const q = Math.floor((e - p.offsets[0]!) / p.stride);
    return q >= 0 && q < p.offsets.length && inside(e - p.offsets[q]!);
  };
}

function checkSyrk(ctx: Context, c: SyrkCall, seed: number): void {
  const rng = new Rng(seed);
  const [ar, ac] = c.trans === 'N' ? [c.n, c.k] : [c.k, c.n];
  const alphaZero = isZero(c.alpha), betaZero = isZero(c.beta);
  const pa = place(c.dtype, ar, ac, c.count, c.formA, (data, off, ld) => {
    for (let j = 0; j < ac; j++) for (let i = 0; i < ar; i++) for (const p of [0, 1]) data[2 * (off + i + j * ld) + p] = alphaZero ? NaN : rng.uniform();
  });
  const pc = place(c.dtype, c.n, c.n, c.count, c.formC, (data, off, ld) => {
    for (let j = 0; j < c.n; j++) for (let i = 0; i < c.n; i++) {
      const inside = c.uplo === 'lower' ? i >= j : i <= j;
      for (const p of [0, 1]) data[2 * (off + i + j * ld) + p] = inside && !betaZero ? rng.uniform() : NaN;
    }
  });
  const what = `syrk ${c.uplo} '${c.trans}' ${ctypeOf(c.dtype)} n ${c.n}, k ${c.k}, ${c.count} matrices, alpha ${c.alpha}, beta ${c.beta}, A ${c.formA}, C ${c.formC}`;
  const a0 = pa.arrays.map((x) => Float64Array.from(x)), c0 = pc.arrays.map((x) => Float64Array.from(x));
  const want = pc.arrays.map((x) => Float64Array.from(x));
  cpuSyrkComplex({ uplo: c.uplo, trans: c.trans, alpha: c.alpha, beta: c.beta, a: batchOf(pa, a0.map((x) => x.slice()), 'complex128'), c: batchOf(pc, want, 'complex128') });
  const da = pa.arrays.map((x) => ctx.upload(x) as DeviceStorage), dc = pc.arrays.map((x) => ctx.upload(x) as DeviceStorage);
  try {
    ctx.syrk({ uplo: c.uplo, trans: c.trans, alpha: c.alpha, beta: c.beta, a: batchOf(pa, da, ctypeOf(c.dtype)), c: batchOf(pc, dc, ctypeOf(c.dtype)) });
    assert.deepEqual(ctx.lastRoute, { op: 'syrk', route: 'syrk', gpu: true }, what);
    da.forEach((d, a) => assert.deepEqual(bits(ctx.download(d) as Pairs), bits(pa.arrays[a]!), `${what}: A's array ${a} changed`));
    const got = dc.map((d) => ctx.download(d) as Pairs);
    const untouched = (alphaZero || c.k === 0) && isOne(c.beta);
    got.forEach((g, a) => {
      const inside = inTriangle(pc, a, c.uplo);
      const gb = bits(g), wb = bits(pc.arrays[a]!);
      const per = gb.length / g.length;
      for (let f = 0; f < g.length; f++) {
        if (!untouched && inside(Math.floor(f / 2))) continue;
        for (let w = 0; w < per; w++) assert.equal(gb[per * f + w], wb[per * f + w], `${what}: array ${a} float ${f} ${untouched ? '(zsyrk returns early)' : "outside C's triangles"} changed (${g[f]})`);
      }
    });
    if (untouched) return;
    const eps = DTYPE_EPS[c.dtype];
    const reads = !alphaZero && c.k > 0;
    // X(i, l): A(i, l) ('N') or A(l, i) ('T'), of matrix q.
    const x = (off: number, i: number, l: number): number => 2 * (off + (c.trans === 'N' ? i + l * pa.ld : l + i * pa.ld));
    for (let q = 0; q < c.count; q++) {
      const ia = pa.form === 'strided' ? 0 : q, ic = pc.form === 'strided' ? 0 : q;
      const oa = pa.offsets[q]!, oc = pc.offsets[q]!;
      for (let j = 0; j < c.n; j++) for (let i = 0; i < c.n; i++) {
        if (!(c.uplo === 'lower' ? i >= j : i <= j)) continue;
        let sum = 0;
        if (reads) for (let l = 0; l < c.k; l++) {
          const A = a0[ia]!, u = x(oa, i, l), v = x(oa, j, l);
          sum += Math.hypot(A[u]!, A[u + 1]!) * Math.hypot(A[v]!, A[v + 1]!);
        }
        const e = 2 * (oc + i + j * pc.ld);
        const cMod = betaZero ? 0 : Math.hypot(c0[ic]![e]!, c0[ic]![e + 1]!);
        const tol = 4 * (c.k + 2) * eps * (Math.hypot(...c.alpha) * sum + Math.hypot(...c.beta) * cMod);
        for (const f of [e, e + 1]) {
          const gv = got[ic]![f]!, wv = want[ic]![f]!;
          assert.ok(Number.isFinite(gv) && Math.abs(gv - wv) <= tol, `${what}: matrix ${q} C(${i}, ${j}) part ${f - e} is ${gv}, expected ${wv} (tolerance ${tol})`);
        }
      }
    }
  } finally {
    for (const d of [...da, ...dc]) (d as { dispose?: () => void }).dispose?.();
  }
}

/** Every kernel of the file, compiled at once (the calls made on a device that runs nothing). */
before(() => warmFileKernels('ztrmm', (ctx, planning) => {
  if (planning === undefined) return;
  const dev = planning.device;
  const mat = (dtype: DType, r: number, k: number, form: Form): Batch<Storage> => {
    const ld = Math.max(1, r % 2 === 0 ? r + 1 : r + 2);
    return form === 'list'
      ? list(Array.from({ length: 3 }, () => ({ data: dev.alloc(dtype, 2 * (2 + ld * k + 1)) as unknown as Storage, offset: 2 })), { rows: r, cols: k, ld, dtype: ctypeOf(dtype) })
      : strided(dev.alloc(dtype, 2 * (5 + 3 * (ld * k + 3) + 1)) as unknown as Storage, { rows: r, cols: k, ld, stride: ld * k + 3, offset: 5, count: 3, dtype: ctypeOf(dtype) });
  };
  for (const dtype of DTYPES) {
    for (const c of [...trmmSweep(dtype), ...trmmLarge(dtype)]) {
      const [rows, cols] = shapeB(c);
      ctx.trmm({ side: c.side, uplo: c.uplo, transA: c.transA, diag: c.diag, alpha: c.alpha, a: mat(dtype, c.order, c.order, c.formA), b: mat(dtype, rows, cols, c.formB) });
    }
    for (const c of [...syrkSweep(dtype), ...syrkSpecials(dtype)]) {
      const [ar, ac] = c.trans === 'N' ? [c.n, c.k] : [c.k, c.n];
      ctx.syrk({ uplo: c.uplo, trans: c.trans, alpha: c.alpha, beta: c.beta, a: mat(dtype, ar, ac, c.formA), c: mat(dtype, c.n, c.n, c.formC) });
    }
  }
}));

for (const dtype of DTYPES) {
  test(`trmm ${ctypeOf(dtype)}: every side / uplo / trans / diag, orders ${ORDERS.join(', ')}, vectors ${VECTORS.join(', ')}, vs the reference`, { skip, timeout: 400_000 }, () => {
    const { ctx } = gpuContext();
    trmmSweep(dtype).forEach((c, i) => checkTrmm(ctx, c, 11_000 + i + (dtype === 'float32' ? 50_000 : 0)));
  });
  test(`trmm ${ctypeOf(dtype)} above 32 (the recursion on the GPU): every variant at orders ${LARGE.join(', ')}, alpha 0 and 1, large batches, vs the reference`, { skip, timeout: 300_000 }, () => {
    const { ctx } = gpuContext();
    trmmLarge(dtype).forEach((c, i) => checkTrmm(ctx, c, 4000 + i + (dtype === 'float32' ? 500 : 0)));
  });
  test(`syrk ${ctypeOf(dtype)}: lower and upper, 'N' and 'T', n ${ORDERS.join(', ')}, k ${KS.join(', ')}, vs the reference`, { skip, timeout: 300_000 }, () => {
    const { ctx } = gpuContext();
    syrkSweep(dtype).forEach((c, i) => checkSyrk(ctx, c, 13_000 + i + (dtype === 'float32' ? 10_000 : 0)));
  });
  test(`syrk ${ctypeOf(dtype)}: n ${LARGE.join(', ')} (the recursion), beta 0, alpha 0, k = 0, zsyrk's early return, a large batch, vs the reference`, { skip, timeout: 300_000 }, () => {
    const { ctx } = gpuContext();
    syrkSpecials(dtype).forEach((c, i) => checkSyrk(ctx, c, 7000 + i + (dtype === 'float32' ? 100 : 0)));
  });
}
