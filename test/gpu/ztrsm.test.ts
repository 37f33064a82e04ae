/**
 * Complex trsm on the GPU (kernels/ztrsm/: ztrsm, ctrsm, route 'trsm' of COMPLEX_ROUTES; triangles
 * of order <= 32 on the warp kernel, larger ones by the recursion over it with the complex GEMM) against the complex reference (cpu/complex/ztrsm.ts, run in float64 on host
 * copies), on fresh random well-conditioned triangles (test/helpers/ztrsm-data.ts: cond_inf < 10,
 * which justifies the tolerance there, 64 max(8, t) eps of the matrix's largest result): every
 * side / uplo / trans / diag, complex128 and complex64, orders 1, 7, 16, 31, 32 with 1, 3 and 33
 * right-hand sides (33: nine passes of four, spread over blockIdx.y), complex alpha. Strided
 * batches with a ragged ld (rows + 1 or + 2), gaps and an offset, and list batches of separate
 * arrays (A and B in either form). Whatever the solve must not read is NaN (A's other triangle, its
 * diagonal where unit); every float of B's buffers outside its matrices holds a NaN with its own
 * payload and must come back bit for bit, and A's buffers must come back bit for bit whole.
 * Also: alpha = 0 (B zero, A all NaN and not read), alpha = 1, a zero on the diagonal (NaN and Inf
 * exactly where the reference has them), large batches (one y block); and the recursion: every
 * variant at one of the orders 33, 47, 64, 100, 128, 256, 512 (1, 3 or 33 right-hand sides, both
 * forms), alpha 0 (A all NaN, not read: the leaves alone write B's zeros) and 1 above 32, each on
 * the GPU (route 'trsm') with the same checks. The columns design (generate-columns.ts) at every
 * order 1 to 40, three variants an order (each variant five times a dtype), 8, 17, 33 or 40
 * right-hand sides: forced to 32 through the launcher (several matrices a block, 2 vectors a
 * thread), planned above (its leaves of 32 where they have 8 vectors or more), one member of the
 * batch with a NaN in B (NaN stays in that matrix). Skips with one line where no GPU is usable.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import type { Context } from '../../src/api/context.js';
import { list, strided, type Batch } from '../../src/core/batch.js';
import type { DType } from '../../src/core/dtype.js';
import type { ComplexScalar } from '../../src/core/op-specs.js';
import type { DeviceStorage, Storage } from '../../src/core/storage.js';
import { cpuTrsmComplex } from '../../src/cpu/complex/ztrsm.js';
import { complexTrsmCuda, type ZtrsmForce } from '../../src/cuda/kernels/ztrsm/index.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/types.js';
import { gpuContext, gpuSkipReason, warmFileKernels } from '../helpers/gpu.js';
import { batchOf, bits, place, type Placed, type PlacedForm } from '../helpers/placed-pairs.js';
import { Rng } from '../helpers/random.js';
import { compareComplex, fillComplexTriangle, variantName, ZTRSM_VARIANTS, ztrsmTolerance, type Pairs, type ZtrsmCase } from '../helpers/ztrsm-data.js';

const skip = gpuSkipReason();
const DTYPES: readonly DType[] = ['float64', 'float32'];
const ORDERS = [1, 7, 16, 31, 32];
const NRHS = [1, 3, 33];
/** The recursion's orders (leaves of at most 32, the complex GEMM between them). */
const LARGE = [33, 47, 64, 100, 128, 256, 512];
const ALPHA: ComplexScalar = [0.75, -1.25];

type Form = PlacedForm;
const ctypeOf = (dtype: DType): 'complex128' | 'complex64' => (dtype === 'float64' ? 'complex128' : 'complex64');

/** One call of the file. */
interface Call extends ZtrsmCase {
  dtype: DType; order: number; nrhs: number; count: number; formA: Form; formB: Form; alpha: ComplexScalar; zeroAt: number; route: 'trsm' | 'cpu';
  /** Run through the launcher with this force (no route), else through ctx.trsm. */
  force?: ZtrsmForce;
  /** This member's B gets a NaN (its element (1, 0) mod its shape), else none. */
  nanMember?: number;
}
const shapeB = (c: Call): [number, number] => (c.side === 'left' ? [c.order, c.nrhs] : [c.nrhs, c.order]);
const countFor = (order: number): number => (order <= 8 ? 40 : 20);

/** The main sweep: every variant, order and nrhs of one dtype; A a list every third call, B every fourth. */
function sweep(dtype: DType): Call[] {
  const out: Call[] = [];
  let i = 0;
  for (const v of ZTRSM_VARIANTS) for (const order of ORDERS) for (const nrhs of NRHS) {
    out.push({ ...v, dtype, order, nrhs, count: countFor(order), formA: i % 3 === 2 ? 'list' : 'strided', formB: i % 4 === 1 ? 'list' : 'strided', alpha: ALPHA, zeroAt: -1, route: 'trsm' });
    i++;
  }
  return out;
}

/** alpha 0 and 1, singular triangles, large batches, and order 33 (the recursion: two leaves and a GEMM). */
function specials(dtype: DType): Call[] {
  const base = { dtype, zeroAt: -1, route: 'trsm' as const, formA: 'strided' as Form, formB: 'strided' as Form };
  return [
    { ...base, side: 'left', uplo: 'lower', transA: 'C', diag: 'nonunit', order: 16, nrhs: 5, count: 20, alpha: [0, 0], formB: 'list' },
    { ...base, side: 'right', uplo: 'upper', transA: 'T', diag: 'nonunit', order: 31, nrhs: 33, count: 20, alpha: [0, 0] },
    { ...base, side: 'left', uplo: 'upper', transA: 'N', diag: 'nonunit', order: 7, nrhs: 3, count: 40, alpha: [1, 0] },
    { ...base, side: 'right', uplo: 'lower', transA: 'C', diag: 'unit', order: 32, nrhs: 33, count: 20, alpha: [1, 0], formA: 'list' },
    { ...base, side: 'left', uplo: 'upper', transA: 'N', diag: 'nonunit', order: 8, nrhs: 3, count: 40, alpha: [1, 0.5], zeroAt: 5 },
    { ...base, side: 'right', uplo: 'lower', transA: 'C', diag: 'nonunit', order: 32, nrhs: 33, count: 20, alpha: [-1, 0], zeroAt: 3, formA: 'list' },
    { ...base, side: 'left', uplo: 'lower', transA: 'T', diag: 'nonunit', order: 31, nrhs: 4, count: 20, alpha: ALPHA, zeroAt: 30 },
    { ...base, side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', order: 16, nrhs: 33, count: 4000, alpha: ALPHA },
    { ...base, side: 'right', uplo: 'upper', transA: 'C', diag: 'nonunit', order: 1, nrhs: 3, count: 20000, alpha: ALPHA },
    { ...base, side: 'left', uplo: 'upper', transA: 'C', diag: 'nonunit', order: 33, nrhs: 3, count: 10, alpha: ALPHA },
    { ...base, side: 'right', uplo: 'lower', transA: 'N', diag: 'unit', order: 33, nrhs: 2, count: 10, alpha: ALPHA, formB: 'list' },
  ];
}

/**
 * Above 32, the recursion: every variant once, the orders in turn (each order three or four
 * variants), 1, 3 or 33 right-hand sides, A or B a list batch now and then; then alpha 0 and 1.
 * No zero on the diagonal here: the GEMM's complex products spread Inf and NaN over both parts
 * where the reference's substitution keeps them apart, so their places differ by design.
 */
function large(dtype: DType): Call[] {
  const out: Call[] = ZTRSM_VARIANTS.map((v, i): Call => ({
    ...v, dtype, order: LARGE[i % LARGE.length]!, nrhs: NRHS[i % NRHS.length]!, count: 3, alpha: ALPHA, zeroAt: -1, route: 'trsm',
    formA: i % 5 === 3 ? 'list' : 'strided', formB: i % 4 === 2 ? 'list' : 'strided',
  }));
  const base = { dtype, zeroAt: -1, route: 'trsm' as const, count: 3, formA: 'strided' as Form, formB: 'strided' as Form };
  out.push(
    { ...base, side: 'left', uplo: 'lower', transA: 'C', diag: 'nonunit', order: 100, nrhs: 5, alpha: [0, 0], formB: 'list' },
    { ...base, side: 'right', uplo: 'upper', transA: 'N', diag: 'unit', order: 64, nrhs: 4, alpha: [0, 0] },
    { ...base, side: 'right', uplo: 'lower', transA: 'T', diag: 'nonunit', order: 100, nrhs: 3, alpha: [1, 0], formA: 'list' },
    { ...base, side: 'left', uplo: 'upper', transA: 'N', diag: 'unit', order: 511, nrhs: 2, alpha: [1, 0] },
  );
  return out;
}

/** Orders of the columns design's sweep (above 32: the recursion, its leaves planned). */
const COLUMN_ORDERS = Array.from({ length: 40 }, (_, i) => i + 1);
const COLUMN_NRHS = [8, 17, 33, 40];

/**
 * The columns design: at each order three variants (every variant five times over the orders),
 * forced to 32 (the plan's choices, 3 matrices a block, or 2 vectors a thread), planned above;
 * count 7, member 2 with a NaN in B on the first variant of an order, A or B a list now and then.
 */
function columnsSweep(dtype: DType): Call[] {
  const out: Call[] = [];
  for (const order of COLUMN_ORDERS) for (let j = 0; j < 3; j++) {
    const v = ZTRSM_VARIANTS[(3 * order + j) % ZTRSM_VARIANTS.length]!;
    const force: ZtrsmForce | undefined = order > 32 ? undefined : { design: 'columns', ...(j === 1 ? { matrices: 3 } : j === 2 ? { rhs: 2 } : {}) };
    out.push({
      ...v, dtype, order, nrhs: COLUMN_NRHS[(order + j) % COLUMN_NRHS.length]!, count: 7, alpha: ALPHA, zeroAt: -1, route: 'trsm',
      formA: (order + j) % 5 === 3 ? 'list' : 'strided', formB: (order + j) % 4 === 1 ? 'list' : 'strided', ...(force ? { force } : {}), ...(j === 0 ? { nanMember: 2 } : {}),
    });
  }
  return out;
}

/** The columns design's specials: alpha 0 (A all NaN) and 1, zeros on the diagonal, a large batch, as planned and forced. */
function columnsSpecials(dtype: DType): Call[] {
  const base = { dtype, zeroAt: -1, route: 'trsm' as const, formA: 'strided' as Form, formB: 'strided' as Form };
  const columns: ZtrsmForce = { design: 'columns' };
  return [
    { ...base, side: 'left', uplo: 'upper', transA: 'C', diag: 'nonunit', order: 20, nrhs: 12, count: 20, alpha: [0, 0], formB: 'list' },
    { ...base, side: 'right', uplo: 'lower', transA: 'N', diag: 'unit', order: 5, nrhs: 9, count: 20, alpha: [0, 0], force: columns },
    { ...base, side: 'left', uplo: 'lower', transA: 'T', diag: 'nonunit', order: 32, nrhs: 32, count: 20, alpha: [1, 0] },
    { ...base, side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', order: 24, nrhs: 10, count: 20, alpha: [1, 0.5], zeroAt: 7 },
    { ...base, side: 'right', uplo: 'upper', transA: 'T', diag: 'nonunit', order: 32, nrhs: 33, count: 20, alpha: [-1, 0], zeroAt: 31, formA: 'list' },
    { ...base, side: 'right', uplo: 'lower', transA: 'C', diag: 'nonunit', order: 3, nrhs: 4, count: 20, alpha: ALPHA, zeroAt: 0, force: { design: 'columns', rhs: 2 } },
    { ...base, side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', order: 32, nrhs: 32, count: 3000, alpha: ALPHA },
    { ...base, side: 'right', uplo: 'upper', transA: 'N', diag: 'nonunit', order: 16, nrhs: 64, count: 3000, alpha: ALPHA, formA: 'list' },
  ];
}

/** ctx.trsm, or the launcher with the call's force. */
function solve(ctx: Context, device: GpuDevice, c: Call, a: Batch<DeviceStorage>, b: Batch<DeviceStorage>): void {
  const r = { side: c.side, uplo: c.uplo, transA: c.transA, diag: c.diag, alpha: c.alpha };
  if (c.force === undefined) ctx.trsm({ ...r, a, b });
  else complexTrsmCuda(device, { ...r, a: a as unknown as Batch<DeviceArray>, b: b as unknown as Batch<DeviceArray> }, { force: c.force });
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

function check(ctx: Context, device: GpuDevice, c: Call, seed: number): void {
  const rng = new Rng(seed);
  let member = 0;
  const [rows, cols] = shapeB(c);
  const zero = c.alpha[0] === 0 && c.alpha[1] === 0;
  const pa = place(c.dtype, c.order, c.order, c.count, c.formA, (data, off, ld) => {
    if (zero) { for (let j = 0; j < c.order; j++) for (let i = 0; i < c.order; i++) { data[2 * (off + i + j * ld)] = NaN; data[2 * (off + i + j * ld) + 1] = NaN; } return; }
    fillComplexTriangle(rng, data, off, ld, c.order, c.uplo, c.diag, c.zeroAt);
  });
  const pb = place(c.dtype, rows, cols, c.count, c.formB, (data, off, ld) => {
    for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) { data[2 * (off + i + j * ld)] = rng.uniform(); data[2 * (off + i + j * ld) + 1] = rng.uniform(); }
    if (member++ === c.nanMember) data[2 * (off + (1 % rows))] = NaN;
  });
  const what = `trsm ${variantName(c)} ${ctypeOf(c.dtype)} order ${c.order}, nrhs ${c.nrhs}, ${c.count} matrices, A ${c.formA}, B ${c.formB}, alpha ${c.alpha}${c.zeroAt >= 0 ? `, T(${c.zeroAt}, ${c.zeroAt}) = 0` : ''}${c.force ? `, forced ${JSON.stringify(c.force)}` : ''}${c.nanMember !== undefined ? `, NaN in B's member ${c.nanMember}` : ''}`;
  // The reference, in float64 on copies.
  const refA = pa.arrays.map((x) => Float64Array.from(x)), refB = pb.arrays.map((x) => Float64Array.from(x));
  cpuTrsmComplex({ side: c.side, uplo: c.uplo, transA: c.transA, diag: c.diag, alpha: c.alpha, a: batchOf(pa, refA, 'complex128'), b: batchOf(pb, refB, 'complex128') });
  const da = pa.arrays.map((x) => ctx.upload(x) as DeviceStorage), db = pb.arrays.map((x) => ctx.upload(x) as DeviceStorage);
  try {
    solve(ctx, device, c, batchOf(pa, da, ctypeOf(c.dtype)), batchOf(pb, db, ctypeOf(c.dtype)));
    if (c.force === undefined) assert.deepEqual(ctx.lastRoute, { op: 'trsm', route: c.route, gpu: c.route !== 'cpu' }, what);
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
    // A zero on the diagonal: the reference's B holds NaN (which the comparison required in the same places).
    if (c.zeroAt >= 0) assert.ok(refB.some((x, a) => x.some((v, f) => Number.isNaN(v) && matrixOf(pb, a)(Math.floor(f / 2)) >= 0)), `${what}: the reference has NaN in B`);
    // A NaN in one member's B: the reference (which the comparison followed) keeps it there and the other members finite.
    if (c.nanMember !== undefined) {
      const members = new Set<number>();
      refB.forEach((x, a) => x.forEach((v, f) => { const m = matrixOf(pb, a)(Math.floor(f / 2)); if (m >= 0 && Number.isNaN(v)) members.add(m); }));
      assert.deepEqual([...members], [c.nanMember], `${what}: NaN in the member given one only`);
    }
  } finally {
    for (const d of [...da, ...db]) (d as { dispose?: () => void }).dispose?.();
  }
}

/** Every kernel of the file, compiled at once (the calls made on a device that runs nothing). */
before(() => warmFileKernels('ztrsm', (ctx, planning) => {
  if (planning === undefined) return;
  const dev = planning.device;
  for (const dtype of DTYPES) for (const c of [...sweep(dtype), ...specials(dtype), ...large(dtype), ...columnsSweep(dtype), ...columnsSpecials(dtype)]) {
    if (c.route === 'cpu') continue;
    const [rows, cols] = shapeB(c);
    const mat = (r: number, k: number, form: Form): Batch<Storage> => {
      const ld = r % 2 === 0 ? r + 1 : r + 2;
      return form === 'list'
        ? list(Array.from({ length: 3 }, () => ({ data: dev.alloc(dtype, 2 * (2 + ld * k + 1)) as unknown as Storage, offset: 2 })), { rows: r, cols: k, ld, dtype: ctypeOf(dtype) })
        : strided(dev.alloc(dtype, 2 * (5 + 3 * (ld * k + 3) + 1)) as unknown as Storage, { rows: r, cols: k, ld, stride: ld * k + 3, offset: 5, count: 3, dtype: ctypeOf(dtype) });
    };
    solve(ctx, dev, c, mat(c.order, c.order, c.formA) as Batch<DeviceStorage>, mat(rows, cols, c.formB) as Batch<DeviceStorage>);
  }
}));

for (const dtype of DTYPES) {
  test(`trsm ${ctypeOf(dtype)}: every side / uplo / trans / diag, orders ${ORDERS.join(', ')}, nrhs ${NRHS.join(', ')}, vs the reference`, { skip, timeout: 400_000 }, () => {
    const { ctx, backend } = gpuContext();
    sweep(dtype).forEach((c, i) => check(ctx, backend.device, c, 9000 + i + (dtype === 'float32' ? 50_000 : 0)));
  });
  test(`trsm ${ctypeOf(dtype)}: alpha 0 and 1, zeros on the diagonal, large batches, order 33 by the recursion`, { skip, timeout: 300_000 }, () => {
    const { ctx, backend } = gpuContext();
    specials(dtype).forEach((c, i) => check(ctx, backend.device, c, 700 + i + (dtype === 'float32' ? 50 : 0)));
  });
  test(`trsm ${ctypeOf(dtype)} above 32 (the recursion on the GPU): every variant at orders ${LARGE.join(', ')}, alpha 0 and 1, vs the reference`, { skip, timeout: 300_000 }, () => {
    const { ctx, backend } = gpuContext();
    large(dtype).forEach((c, i) => check(ctx, backend.device, c, 3000 + i + (dtype === 'float32' ? 500 : 0)));
  });
  test(`trsm ${ctypeOf(dtype)} on the columns design: orders 1 .. 40, every variant, forced to 32 and planned above, a NaN member, vs the reference`, { skip, timeout: 400_000 }, () => {
    const { ctx, backend } = gpuContext();
    columnsSweep(dtype).forEach((c, i) => check(ctx, backend.device, c, 40_000 + i + (dtype === 'float32' ? 5000 : 0)));
  });
  test(`trsm ${ctypeOf(dtype)} on the columns design: alpha 0 and 1, zeros on the diagonal, large batches`, { skip, timeout: 300_000 }, () => {
    const { ctx, backend } = gpuContext();
    columnsSpecials(dtype).forEach((c, i) => check(ctx, backend.device, c, 60_000 + i + (dtype === 'float32' ? 500 : 0)));
  });
}
