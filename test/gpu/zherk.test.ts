/**
 * Complex herk on the GPU (kernels/zherk/: zherk, cherk, route 'herk' of COMPLEX_ROUTES; C of order
 * <= 32 on the small kernel, larger C by diagonal blocks on it and the complex GEMM) against the complex reference (cpu/complex/zrankk.ts, run in float64 on host
 * copies), on fresh random data (test/helpers/zherk-data.ts: A's parts in [-1, 1], the tolerance a
 * bound of the rounding of k + 1 complex products per element): lower and upper, 'N' and 'C',
 * complex128 and complex64, n = 1, 7, 16, 31, 32 with k = 1, 5, 40 (40: two staged chunks), real
 * alpha and beta. Strided batches with a ragged ld, gaps and an offset, and list batches of separate
 * arrays. What zherk must not read is NaN (C's other triangle and the imaginary parts of its
 * diagonal); every float outside C's triangles holds a NaN with its own payload and must come back
 * bit for bit (the other triangle included), the diagonal's imaginary parts must be exactly 0, and
 * A's arrays must come back bit for bit. Also: beta = 0 (C all NaN, not read), alpha = 0 (A all
 * NaN, not read), alpha = 0 with beta = 1 and k = 0 with beta = 1 (C exactly as it was, NaN
 * diagonal parts included: zherk's early return), a large batch; and above 32 on the GPU (route
 * 'herk', the recursion): both triangles and trans at n = 33, 47, 64, 100, 128, 256, 512 with k = 5
 * or 40, both forms, beta = 0, alpha = 0 (NaN not read), k = 0 and the early return there too, with the
 * same checks. Skips with one line where no GPU is usable.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import type { Context } from '../../src/api/context.js';
import { list, strided, type Batch } from '../../src/core/batch.js';
import type { DType } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import type { DeviceStorage, Storage } from '../../src/core/storage.js';
import { cpuHerkComplex } from '../../src/cpu/complex/zrankk.js';
import { gpuContext, gpuSkipReason, warmFileKernels } from '../helpers/gpu.js';
import { batchOf, bits, place, type Placed, type PlacedForm } from '../helpers/placed-pairs.js';
import { Rng } from '../helpers/random.js';
import { checkHerkMatrix, fillHermitian, fillMatrix, type Pairs } from '../helpers/zherk-data.js';

const skip = gpuSkipReason();
const DTYPES: readonly DType[] = ['float64', 'float32'];
const ORDERS = [1, 7, 16, 31, 32];
const KS = [1, 5, 40];
/** The recursion's orders (diagonal blocks of at most 32, the complex GEMM off the diagonal). */
const LARGE = [33, 47, 64, 100, 128, 256, 512];

type Form = PlacedForm;
const ctypeOf = (dtype: DType): 'complex128' | 'complex64' => (dtype === 'float64' ? 'complex128' : 'complex64');

interface Call {
  dtype: DType; uplo: Uplo; trans: 'N' | 'C'; n: number; k: number; count: number; alpha: number; beta: number; formA: Form; formC: Form; route: 'herk' | 'cpu';
}

function sweep(dtype: DType): Call[] {
  const out: Call[] = [];
  let i = 0;
  for (const uplo of ['lower', 'upper'] as const) for (const trans of ['N', 'C'] as const) for (const n of ORDERS) for (const k of KS) {
    out.push({ dtype, uplo, trans, n, k, count: n <= 8 ? 60 : 25, alpha: 1.25, beta: -0.5, formA: i % 3 === 2 ? 'list' : 'strided', formC: i % 4 === 1 ? 'list' : 'strided', route: 'herk' });
    i++;
  }
  return out;
}

function specials(dtype: DType): Call[] {
  const base = { dtype, route: 'herk' as const, formA: 'strided' as Form, formC: 'strided' as Form, count: 20 };
  return [
    { ...base, uplo: 'upper', trans: 'C', n: 32, k: 9, alpha: -0.75, beta: 0, formC: 'list' },
    { ...base, uplo: 'lower', trans: 'N', n: 16, k: 3, alpha: 0, beta: 2, formA: 'list' },
    { ...base, uplo: 'lower', trans: 'C', n: 7, k: 3, alpha: 0, beta: 1 },
    { ...base, uplo: 'upper', trans: 'N', n: 31, k: 0, alpha: 2, beta: 1 },
    { ...base, uplo: 'upper', trans: 'N', n: 31, k: 0, alpha: 2, beta: 0.5 },
    { ...base, uplo: 'lower', trans: 'C', n: 4, k: 6, alpha: 1, beta: 1, count: 20000 },
    { ...base, uplo: 'upper', trans: 'N', n: 32, k: 64, alpha: 1, beta: 1, count: 2000 },
    { ...base, uplo: 'lower', trans: 'N', n: 33, k: 5, alpha: 1.5, beta: 0.25, count: 6 },
    { ...base, uplo: 'upper', trans: 'C', n: 33, k: 2, alpha: -1, beta: 0, count: 4, formC: 'list' },
  ];
}

/** Above 32 (the recursion): each order with two of the four (uplo, trans), k 5 or 40, lists now and then; then beta 0, alpha 0 and the early return. */
function large(dtype: DType): Call[] {
  const out: Call[] = [];
  let i = 0;
  for (const n of LARGE) for (const [uplo, trans] of i % 2 === 0 ? [['lower', 'N'], ['upper', 'C']] as const : [['upper', 'N'], ['lower', 'C']] as const) {
    out.push({ dtype, uplo, trans, n, k: i % 3 === 1 && n <= 128 ? 40 : 5, count: 3, alpha: -1.25, beta: 0.75, formA: i % 3 === 2 ? 'list' : 'strided', formC: i % 4 === 1 ? 'list' : 'strided', route: 'herk' });
    i++;
  }
  const base = { dtype, route: 'herk' as const, formA: 'strided' as Form, formC: 'strided' as Form, count: 3 };
  out.push(
    { ...base, uplo: 'lower', trans: 'C', n: 100, k: 7, alpha: 1, beta: 0, formC: 'list' },
    { ...base, uplo: 'upper', trans: 'N', n: 64, k: 3, alpha: 0, beta: -2 },
    { ...base, uplo: 'upper', trans: 'C', n: 100, k: 3, alpha: 0, beta: 1 },
    { ...base, uplo: 'lower', trans: 'N', n: 47, k: 0, alpha: 2, beta: 0.5 },
  );
  return out;
}

/** The array and offset of matrix q. */
const at = (p: Placed, q: number): { a: number; off: number } => ({ a: p.form === 'strided' ? 0 : q, off: p.offsets[q]! });
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

function check(ctx: Context, c: Call, seed: number): void {
  const rng = new Rng(seed);
  const [ar, ac] = c.trans === 'N' ? [c.n, c.k] : [c.k, c.n];
  const pa = place(c.dtype, ar, ac, c.count, c.formA, (data, off, ld) => fillMatrix(rng, data, off, ld, ar, ac, c.alpha === 0));
  const pc = place(c.dtype, c.n, c.n, c.count, c.formC, (data, off, ld) => fillHermitian(rng, data, off, ld, c.n, c.uplo, c.beta === 0));
  const what = `herk ${c.uplo} '${c.trans}' ${ctypeOf(c.dtype)} n ${c.n}, k ${c.k}, ${c.count} matrices, alpha ${c.alpha}, beta ${c.beta}, A ${c.formA}, C ${c.formC}`;
  const a0 = pa.arrays.map((x) => Float64Array.from(x)), c0 = pc.arrays.map((x) => Float64Array.from(x));
  const want = pc.arrays.map((x) => Float64Array.from(x));
  cpuHerkComplex({ uplo: c.uplo, trans: c.trans, alpha: c.alpha, beta: c.beta, a: batchOf(pa, a0.map((x) => x.slice()), 'complex128'), c: batchOf(pc, want, 'complex128') });
  const da = pa.arrays.map((x) => ctx.upload(x) as DeviceStorage), dc = pc.arrays.map((x) => ctx.upload(x) as DeviceStorage);
  try {
    ctx.herk({ uplo: c.uplo, trans: c.trans, alpha: c.alpha, beta: c.beta, a: batchOf(pa, da, ctypeOf(c.dtype)), c: batchOf(pc, dc, ctypeOf(c.dtype)) });
    assert.deepEqual(ctx.lastRoute, { op: 'herk', route: c.route, gpu: c.route !== 'cpu' }, what);
    da.forEach((d, a) => assert.deepEqual(bits(ctx.download(d) as Pairs), bits(pa.arrays[a]!), `${what}: A's array ${a} changed`));
    const got = dc.map((d) => ctx.download(d) as Pairs);
    const untouched = (c.alpha === 0 || c.k === 0) && c.beta === 1;
    got.forEach((g, a) => {
      const inside = inTriangle(pc, a, c.uplo);
      const gb = bits(g), wb = bits(pc.arrays[a]!);
      const per = gb.length / g.length;
      for (let f = 0; f < g.length; f++) {
        if (!untouched && inside(Math.floor(f / 2))) continue;
        for (let w = 0; w < per; w++) assert.equal(gb[per * f + w], wb[per * f + w], `${what}: array ${a} float ${f} ${untouched ? '(zherk returns early)' : 'outside C\'s triangles'} changed (${g[f]})`);
      }
    });
    if (untouched) return;
    for (let q = 0; q < c.count; q++) {
      const { a: ia, off: oa } = at(pa, q), { a: ic, off: oc } = at(pc, q);
      checkHerkMatrix({ dtype: c.dtype, n: c.n, k: c.k, uplo: c.uplo, trans: c.trans, alpha: c.alpha, beta: c.beta },
        got[ic]!, want[ic]!, oc, pc.ld, a0[ia]!, oa, pa.ld, c0[ic]!, `${what}: matrix ${q}`);
    }
  } finally {
    for (const d of [...da, ...dc]) (d as { dispose?: () => void }).dispose?.();
  }
}

/** Every kernel of the file, compiled at once (the calls made on a device that runs nothing). */
before(() => warmFileKernels('zherk', (ctx, planning) => {
  if (planning === undefined) return;
  const dev = planning.device;
  for (const dtype of DTYPES) for (const c of [...sweep(dtype), ...specials(dtype), ...large(dtype)]) {
    if (c.route === 'cpu') continue;
    const mat = (r: number, k: number, form: Form): Batch<Storage> => {
      const ld = Math.max(1, r % 2 === 0 ? r + 1 : r + 2);
      return form === 'list'
        ? list(Array.from({ length: 3 }, () => ({ data: dev.alloc(dtype, 2 * (2 + ld * k + 1)) as unknown as Storage, offset: 2 })), { rows: r, cols: k, ld, dtype: ctypeOf(dtype) })
        : strided(dev.alloc(dtype, 2 * (5 + 3 * (ld * k + 3) + 1)) as unknown as Storage, { rows: r, cols: k, ld, stride: ld * k + 3, offset: 5, count: 3, dtype: ctypeOf(dtype) });
    };
    const [ar, ac] = c.trans === 'N' ? [c.n, c.k] : [c.k, c.n];
    ctx.herk({ uplo: c.uplo, trans: c.trans, alpha: c.alpha, beta: c.beta, a: mat(ar, ac, c.formA), c: mat(c.n, c.n, c.formC) });
  }
}));

for (const dtype of DTYPES) {
  test(`herk ${ctypeOf(dtype)}: lower and upper, 'N' and 'C', n ${ORDERS.join(', ')}, k ${KS.join(', ')}, vs the reference`, { skip, timeout: 300_000 }, () => {
    const { ctx } = gpuContext();
    sweep(dtype).forEach((c, i) => check(ctx, c, 3000 + i + (dtype === 'float32' ? 10_000 : 0)));
  });
  test(`herk ${ctypeOf(dtype)}: beta 0, alpha 0, zherk's early return, large batches, n = 33 by the recursion`, { skip, timeout: 300_000 }, () => {
    const { ctx } = gpuContext();
    specials(dtype).forEach((c, i) => check(ctx, c, 400 + i + (dtype === 'float32' ? 40 : 0)));
  });
  test(`herk ${ctypeOf(dtype)} above 32 (the recursion on the GPU): n ${LARGE.join(', ')}, beta 0, alpha 0, the early return, vs the reference`, { skip, timeout: 300_000 }, () => {
    const { ctx } = gpuContext();
    large(dtype).forEach((c, i) => check(ctx, c, 6000 + i + (dtype === 'float32' ? 100 : 0)));
  });
}
