/**
 * Complex heev above order 32 on the GPU (kernels/zheev/: the reduction to a real tridiagonal, the
 * tridiag family's bisection and inverse iteration, V = Q Z; the router's route 'tridiag') against
 * the complex reference (cpu/complex/zheev.ts) on fresh random data: complex128 and complex64, n =
 * 33, 47, 64, 100, 128, 256 and 512, with and without vectors, lower and upper, strided batches with
 * ragged leading dimensions, gaps and an offset, and list batches of separate arrays (W a list
 * too), device data and host data (staged) in turn. Each order's members (fewer at the larger
 * orders: the reference is Jacobi) are random, clustered, repeated, diagonal, zero, graded and
 * positive definite Hermitian matrices and random ones scaled by 2^600 and 2^-600 (complex64 2^100,
 * 2^-100) in turn, the last with NaN or -Inf in its triangle; every matrix carries NaN in the
 * diagonal's imaginary parts and in the triangle not referenced (neither may be read). The
 * reference runs once per dtype and order (values only); the four calls (jobs and triangles) take
 * the same Hermitian matrices. W is poisoned with NaN before the call. Checked:
 * - ctx.lastRoute: 'tridiag' on the GPU;
 * - info per matrix exactly the reference's (n + 2 for NaN and Inf, 0 for the rest);
 * - every float outside the matrices and outside W unchanged; with 'values' A unchanged bit for bit;
 *   a failed matrix's W (and with vectors its A) NaN;
 * - the eigenvalues ascending and within n eps ||A||_F of the reference's;
 * - with vectors, ||A V - V diag(w)||_F / (n ||A||_F eps) and ||V^H V - I||_F / (n eps) below 30
 *   (eps the machine epsilon of the parts' type: 2^-52, 2^-23).
 * The same checks on cusolverDnXsyevBatched on the complex type (the vendor route, forced; route
 * 'cusolver') at n = 32 (the card's table sends 32 there), 33, 100 and 256.
 * The file's kernels are compiled at once before the first case. Skips with one line where no GPU
 * is usable.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { newReferenceContext, type Context } from '../../src/api/context.js';
import { vendorUsable } from '../../src/cuda/vendor/native.js';
import { list, strided, type Batch } from '../../src/core/batch.js';
import { DTYPE_EPS, type ComplexDType } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import type { DeviceStorage } from '../../src/core/storage.js';
import { get, hermitianFrom, place, randomHermitian, set, zeros, type Layout, type Z } from '../helpers/complex.js';
import { gpuContext, gpuSkipReason, onDevice, warmFileKernels } from '../helpers/gpu.js';
import { HERMITIAN_KINDS, hermitianCase, heevResidual, unitaryResidual, type HermitianKind } from '../helpers/zjacobi-cases.js';
import { Rng } from '../helpers/random.js';

const skip = gpuSkipReason();
const TYPES: readonly ComplexDType[] = ['complex128', 'complex64'];
const ORDERS = [33, 47, 64, 100, 128, 256, 512];
/** The orders the vendor route (cusolverDnXsyevBatched on the complex type, forced) is checked at. */
const VENDOR_ORDERS = [32, 33, 100, 256];
const THRESHOLD = 30;
const SENTINEL = -777.25;

type Jobz = 'vectors' | 'values';
type Kind = HermitianKind | 'huge' | 'tiny';
const KINDS: readonly Kind[] = [...HERMITIAN_KINDS, 'huge', 'tiny'];
/** Members per order: the reference's Jacobi takes seconds from 256 (about a minute a matrix at 512). */
const countOf = (n: number): number => (n <= 64 ? 10 : n <= 128 ? 5 : n === 256 ? 3 : 2);
/** The calls on one order's matrices: each job with each triangle, the layout and the data's place in turn. */
const CALLS: readonly { jobz: Jobz; uplo: Uplo }[] = [{ jobz: 'vectors', uplo: 'lower' }, { jobz: 'vectors', uplo: 'upper' }, { jobz: 'values', uplo: 'upper' }, { jobz: 'values', uplo: 'lower' }];
/** Each job strided once and as a list once; device or host data by job, in turn over the orders. */
const layoutOf = (n: number, k: number): Layout => ((n + k) % 2 === 1 ? { kind: 'list', pad: 1 + (n % 2), gap: 0, offset: 3 } : { kind: 'strided', pad: 1 + ((n + k) % 3), gap: 5, offset: 7 });
const whereOf = (n: number, k: number): 'device' | 'host' => ((n + (k >> 1)) % 2 === 0 ? 'device' : 'host');

const inTriangle = (uplo: Uplo, i: number, j: number): boolean => (uplo === 'lower' ? i >= j : i <= j);
const roundTo = (dtype: ComplexDType, x: number): number => (dtype === 'complex64' ? Math.fround(x) : x);
const scaleOf = (kind: Kind, dtype: ComplexDType): number => (kind === 'huge' ? 1 : kind === 'tiny' ? -1 : 0) * (dtype === 'complex64' ? 100 : 600);

/**
 * One order's Hermitian matrices (rounded to the dtype, before their scaling: the checks run on these,
 * the eigenvalues scaled back), their kinds, and which fails (the last: NaN or -Inf at a random place
 * of either triangle) and where.
 */
interface Members { hermitian: Z[]; kinds: Kind[]; bad: { q: number; i: number; j: number; value: number } }

function membersOf(dtype: ComplexDType, n: number, rng: Rng): Members {
  const count = countOf(n);
  const kinds = Array.from({ length: count }, (_, q) => KINDS[(q + n) % KINDS.length]!);
  const hermitian = kinds.map((kind) => {
    const h = kind === 'huge' || kind === 'tiny' ? randomHermitian(rng, n) : hermitianCase(rng, kind, n);
    const m = zeros(n, n);
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) { const [re, im] = get(h, i, j); set(m, i, j, roundTo(dtype, re), roundTo(dtype, im)); }
    return hermitianFrom(m, 'lower');
  });
  return { hermitian, kinds, bad: { q: count - 1, i: rng.int(0, n - 1), j: rng.int(0, n - 1), value: n % 2 === 0 ? NaN : -Infinity } };
}

/**
 * The members as stored for `uplo`: scaled by their power of two (exact), the triangle, NaN in the
 * other and in the diagonal's imaginary parts, the failing one's bad value in its triangle.
 */
function stored(m: Members, uplo: Uplo, dtype: ComplexDType): Z[] {
  return m.hermitian.map((h, q) => {
    const n = h.rows;
    const f = 2 ** scaleOf(m.kinds[q]!, dtype);
    const s = zeros(n, n);
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
      const [re, im] = get(h, i, j);
      if (!inTriangle(uplo, i, j)) set(s, i, j, NaN, NaN);
      else set(s, i, j, re * f, i === j ? NaN : im * f);
    }
    if (q === m.bad.q) {
      const [r, c] = inTriangle(uplo, m.bad.i, m.bad.j) ? [m.bad.i, m.bad.j] : [m.bad.j, m.bad.i];
      if (r === c) set(s, r, r, m.bad.value, get(s, r, r)[1]);
      else set(s, r, c, get(s, r, c)[0], m.bad.value);
    }
    return s;
  });
}

/** W: a real batch of the parts' type, NaN inside (poisoned), SENTINEL around; strided at an offset and stride, or a list of arrays. */
function placeW(dtype: ComplexDType, n: number, count: number, layout: Layout): { batch: Batch<Float64Array | Float32Array>; read(p: number): number[]; outside(): number[] } {
  const make = (len: number): Float64Array | Float32Array => (dtype === 'complex64' ? new Float32Array(len) : new Float64Array(len)).fill(SENTINEL);
  if (layout.kind === 'strided') {
    const stride = n + 2;
    const data = make(3 + stride * count + 1);
    for (let p = 0; p < count; p++) data.fill(NaN, 3 + p * stride, 3 + p * stride + n);
    const inside = (k: number): boolean => k >= 3 && (k - 3) % stride < n && k < 3 + stride * count;
    return {
      batch: strided(data, { rows: n, cols: 1, stride, offset: 3, count }),
      read: (p) => [...data.subarray(3 + p * stride, 3 + p * stride + n)],
      outside: () => [...data].filter((_, k) => !inside(k)),
    };
  }
  const arrays = Array.from({ length: count }, () => { const d = make(n + 3); d.fill(NaN, 1, 1 + n); return d; });
  return {
    batch: list(arrays.map((data) => ({ data, offset: 1 })), { rows: n, cols: 1 }),
    read: (p) => [...arrays[p]!.subarray(1, 1 + n)],
    outside: () => arrays.flatMap((d) => [...d].filter((_, k) => k < 1 || k >= 1 + n)),
  };
}

/** Every kernel of the file, compiled at once (the calls made on a device that runs nothing). */
before(() => warmFileKernels('zheev-large', (ctx, planning) => {
  if (planning === undefined) return;
  const dev = planning.device;
  for (const dtype of TYPES) for (const n of ORDERS) for (const [k, call] of CALLS.entries()) {
    const part = dtype === 'complex128' ? 'float64' : 'float32';
    const layout = layoutOf(n, k), count = countOf(n);
    const ld = n + layout.pad;
    const a = layout.kind === 'list'
      ? list(Array.from({ length: count }, () => dev.alloc(part, 2 * (ld * n + layout.offset))), { rows: n, ld, dtype })
      : strided(dev.alloc(part, 2 * (layout.offset + (ld * n + layout.gap) * count)), { rows: n, ld, stride: ld * n + layout.gap, offset: layout.offset, count, dtype });
    const w = layout.kind === 'list'
      ? list(Array.from({ length: count }, () => dev.alloc(part, n + 1)), { rows: n, cols: 1 })
      : strided(dev.alloc(part, 3 + (n + 2) * count), { rows: n, cols: 1, stride: n + 2, offset: 3, count });
    ctx.heev({ jobz: call.jobz, uplo: call.uplo, a, w });
    if (VENDOR_ORDERS.includes(n)) {
      planning.force = { heev: 'cusolver' };
      try { ctx.heev({ jobz: call.jobz, uplo: call.uplo, a, w }); } finally { planning.force = {}; }
    }
  }
}));

for (const route of ['tridiag', 'cusolver'] as const) for (const dtype of TYPES) for (const n of route === 'tridiag' ? ORDERS : VENDOR_ORDERS) {
  test(`heev ${dtype} n = ${n}${route === 'cusolver' ? " on cusolverDnXsyevBatched (forced)" : ''}: both jobs and triangles, strided and list, device and host data, a failing matrix among good ones, against the reference`, { skip, timeout: 900_000 }, (t) => {
    const { ctx, backend } = gpuContext();
    if (route === 'cusolver' && !vendorUsable(backend.device, 'syevBatched')) { t.skip('cusolverDnXsyevBatched does not load here'); return; }
    backend.force = route === 'cusolver' ? { heev: 'cusolver' } : {};
    try {
      checkOrder(ctx, dtype, n, route);
    } finally {
      backend.force = {};
    }
  });
}

function checkOrder(ctx: Context, dtype: ComplexDType, n: number, route: 'tridiag' | 'cusolver'): void {
  {
    const eps = DTYPE_EPS[dtype === 'complex128' ? 'float64' : 'float32'];
    const rng = new Rng(n * 977 + (dtype === 'complex64' ? 1 : 0));
    const m = membersOf(dtype, n, rng);
    const count = m.hermitian.length;
    // The reference, values only, once (the lower triangle as stored).
    const refW = placeW(dtype, n, count, layoutOf(n, 0));
    const ref = newReferenceContext();
    const wantInfo = [...(ref.heev({ jobz: 'values', uplo: 'lower', a: place(stored(m, 'lower', dtype), n, n, dtype, layoutOf(n, 0), SENTINEL).batch, w: refW.batch }).info as Int32Array)];
    ref.dispose();
    assert.deepEqual(wantInfo, m.hermitian.map((_, q) => (q === m.bad.q ? n + 2 : 0)), `n = ${n}: the reference's info`);

    for (const [k, { jobz, uplo }] of CALLS.entries()) {
      const layout = layoutOf(n, k), where = whereOf(n, k);
      const name = `heev ${dtype} ${jobz} ${uplo} n = ${n}, ${count} ${layout.kind} on the ${where}`;
      const ms = stored(m, uplo, dtype);
      const A = place(ms, n, n, dtype, layout, SENTINEL);
      const W = placeW(dtype, n, count, layout);
      const inputs = ms.map((_, p) => A.read(p));
      const [outsideA, outsideW] = [A.outside(), W.outside()];
      let info: number[];
      if (where === 'host') {
        info = [...(ctx.heev({ jobz, uplo, a: A.batch, w: W.batch }).info as Int32Array)];
      } else {
        const dA = onDevice(ctx, A.batch), dW = onDevice(ctx, W.batch);
        try {
          info = [...(ctx.download(ctx.heev({ jobz, uplo, a: dA.batch, w: dW.batch }).info as DeviceStorage) as Int32Array)];
          dA.back();
          dW.back();
        } finally {
          dA.dispose();
          dW.dispose();
        }
      }
      assert.deepEqual(ctx.lastRoute, { op: 'heev', route, gpu: true }, name);
      assert.deepEqual(info, wantInfo, `${name}: info`);
      assert.deepEqual(A.outside().map(String), outsideA.map(String), `${name}: A's padding and gaps changed`);
      assert.deepEqual(W.outside().map(String), outsideW.map(String), `${name}: W's surroundings changed`);
      const ratios: string[] = [];
      for (let p = 0; p < count; p++) {
        const at = `${name}: matrix ${p} (${m.kinds[p]})`;
        const back = 2 ** -scaleOf(m.kinds[p]!, dtype);
        const w = W.read(p).map((x) => x * back);
        const out = A.read(p);
        if (jobz === 'values') assert.deepEqual([...out.d].map(String), [...inputs[p]!.d].map(String), `${at}: A changed with 'values'`);
        if (p === m.bad.q) {
          assert.ok(w.every(Number.isNaN), `${at}: W NaN`);
          if (jobz === 'vectors') assert.ok(out.d.every(Number.isNaN), `${at}: A NaN`);
          continue;
        }
        const a = m.hermitian[p]!;
        let anorm = 0;
        for (const x of a.d) anorm += x * x;
        anorm = Math.sqrt(anorm);
        const wRef = refW.read(p).map((x) => x * back);
        for (let j = 0; j < n; j++) {
          assert.ok(Math.abs(w[j]! - wRef[j]!) <= n * eps * anorm, `${at}: w[${j}] = ${w[j]}, the reference's ${wRef[j]} (n eps ||A|| = ${n * eps * anorm})`);
          if (j > 0) assert.ok(w[j - 1]! <= w[j]!, `${at}: w ascending at ${j}`);
        }
        if (jobz === 'values') continue;
        const res = heevResidual(a, out, w, eps);
        const orth = unitaryResidual(out, eps);
        ratios.push(`${m.kinds[p]} ${res.toFixed(2)}/${orth.toFixed(2)}`);
        assert.ok(res < THRESHOLD, `${at}: ||A V - V diag(w)|| / (n ||A|| eps) = ${res}`);
        assert.ok(orth < THRESHOLD, `${at}: ||V^H V - I|| / (n eps) = ${orth}`);
      }
      if (ratios.length > 0) console.log(`${name}: residual/orthogonality ${ratios.join(', ')}`);
    }
  }
}
