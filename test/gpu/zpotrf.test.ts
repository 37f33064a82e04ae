/**
 * Complex Cholesky (potrf, potrs, posv on complex128 and complex64) on the GPU against the complex
 * reference (the reference context: cpu/complex/zpotrf.ts, zsolve.ts), on fresh random data:
 * every order n = 1 ... 32, lower and upper, strided batches with ld > n, gaps and an offset, and
 * list batches; device data and host data (staged) in turn. Hermitian positive definite matrices
 * (B B^H + n I) are mixed with matrices that are not positive definite at a chosen step (a negative
 * diagonal) or hold NaN in their triangle, and carry NaN in the diagonal's imaginary parts and in
 * the triangle not referenced (neither may be read). Checked:
 * - info per matrix exactly, and ctx.lastRoute the GPU route;
 * - every element the reference leaves unchanged (the other triangle, past a failing column, a
 *   failed posv's B, potrs's factor, the padding and gaps between matrices) bitwise unchanged, NaN
 *   exactly where the reference has NaN;
 * - the rest within 64 n u of the matrix's largest magnitude (u the unit roundoff): the computed
 *   Cholesky factor and the substitutions have a forward error of order n u cond(A) ||L||, cond of
 *   B B^H + n I is about 4 for B's entries in the unit square, and two such results are compared;
 * - good matrices' residuals as LAPACK's testers take them: ||A - L L^H|| / (n u ||A||) (potrf) and
 *   ||A X - B|| / (n u ||A|| ||X||) (potrs, posv) at most 30, LAPACK's threshold.
 * Above 32 (the recursion on the GPU: leaves on the n <= 32 kernels, the panels by the complex
 * trsm, the updates by the complex herk; potrs two trsm; posv both with B kept where info > 0):
 * n = 33, 47, 64, 100, 128, 256 (potrf also 512), both dtypes and triangles, odd ld and list batches,
 * device and host data, good matrices beside ones that fail in the first half, in the second (info
 * = n1 + k, n1 the recursion's first split) and through NaN in the second half. Checked: info
 * exactly and the GPU route; a good matrix's factor or solution within 64 n u of the reference's
 * (NaN nowhere) and its residual (to n = 128); a failed matrix's factor columns before the failing
 * one and its failing diagonal element as the reference's (a pair with NaN where the reference's
 * has one: the complex products spread NaN over both parts), the rest of its triangle unspecified
 * (as the real family's); the other triangle and a failed posv's B bit for bit as given.
 * cuSOLVER's z/cpotrfBatched (the `cusolver` route, vendor/potrf.ts), forced: n = 40 and 128,
 * both dtypes and triangles, strided (padding, gaps, offset) and list batches, device and host
 * data; good matrices beside ones not positive definite at a known minor and ones with NaN, +Inf or
 * -Inf in either part off the diagonal, NaN or -Inf in the diagonal's real part, +Inf there at the
 * last order, NaN in every diagonal imaginary part and in the other triangle. Checked: info
 * exactly as the reference's, the other triangle and everything outside the matrices bit for bit
 * as given, a good matrix's factor within 64 n u of the reference's, a failed matrix's leading
 * (k - 1) x (k - 1) block likewise. Skipped where this cuSOLVER has no z/cpotrfBatched.
 * The file's kernels are compiled at once before the first case. Skips with one line where no GPU
 * is usable.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { newReferenceContext, type Context } from '../../src/api/context.js';
import { list, strided, type Batch } from '../../src/core/batch.js';
import type { ComplexDType } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import type { DeviceStorage, Storage } from '../../src/core/storage.js';
import {
  epsOf, get, hermitianFrom, LIST, multiply, norm, ODD, op, place, randomHermitian, randomHpd, ratio, set, subtract, triangle, zeros, type Layout, type Z,
} from '../helpers/complex.js';
import { splitPoint } from '../../src/cuda/kernels/common/split.js';
import { cusolverHasComplexPotrfBatched } from '../../src/cuda/baselines/cusolver.js';
import { gpuContext, gpuSkipReason, onDevice, warmFileKernels } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';

const skip = gpuSkipReason();
const TYPES: readonly ComplexDType[] = ['complex128', 'complex64'];
const UPLOS: readonly Uplo[] = ['lower', 'upper'];
const ORDERS = Array.from({ length: 32 }, (_, i) => i + 1);
/** The solves' orders (every order of the factorization's kernel is potrf's). */
const SOLVE_ORDERS = [1, 2, 3, 4, 5, 7, 8, 11, 12, 15, 16, 17, 20, 24, 29, 31, 32];

type Op = 'potrf' | 'potrs' | 'posv';

interface Case { op: Op; dtype: ComplexDType; uplo: Uplo; n: number; nrhs: number; count: number; layout: Layout; where: 'device' | 'host' }

function casesOf(op: Op, dtype: ComplexDType, uplo: Uplo): Case[] {
  return (op === 'potrf' ? ORDERS : SOLVE_ORDERS).map((n, i) => ({
    op, dtype, uplo, n,
    nrhs: op === 'potrf' ? 0 : [1, 2, 3, 4, 5, 9][i % 6]!,
    count: n <= 8 ? 40 : 15,
    layout: i % 3 === 2 ? LIST : ODD,
    where: i % 2 === 0 ? 'device' : 'host',
  }));
}

/** Whether (i, j) is in the `uplo` triangle. */
const inTriangle = (uplo: Uplo, i: number, j: number): boolean => (uplo === 'lower' ? i >= j : i <= j);

/**
 * The case's matrices: HPD, their diagonal's imaginary parts and the other triangle NaN; every 5th
 * not positive definite at a step k (its k-th diagonal -1: the leading minors before it are HPD),
 * every 7th with NaN at one element of the factor's strict lower part (F(i, j), i > j; the
 * diagonal where n = 1). potrs: the reference's factor of an HPD matrix, its diagonal made complex
 * (potrs divides by it as stored).
 */
function matrices(c: Case, rng: Rng): Z[] {
  const a: Z[] = [];
  for (let q = 0; q < c.count; q++) {
    const h = randomHpd(rng, c.n);
    let m = zeros(c.n, c.n);
    if (c.op === 'potrs') {
      m = { rows: c.n, cols: c.n, d: Float64Array.from(h.d) };
      const ref = newReferenceContext();
      ref.potrf({ uplo: c.uplo, a: strided(m.d, { rows: c.n, count: 1, dtype: 'complex128' }) });
      ref.dispose();
      for (let i = 0; i < c.n; i++) set(m, i, i, get(m, i, i)[0], (q % 2 === 0 ? 0.25 : -0.25) * get(m, i, i)[0]);
    } else {
      for (let j = 0; j < c.n; j++) for (let i = 0; i < c.n; i++) set(m, i, j, ...get(h, i, j));
      for (let i = 0; i < c.n; i++) set(m, i, i, get(h, i, i)[0], NaN);
      if (q % 5 === 1) { const k = rng.int(0, c.n - 1); set(m, k, k, -1, 0); }
      if (q % 7 === 3) {
        const [i, j] = c.n === 1 ? [0, 0] : ((i) => [i, rng.int(0, i - 1)])(rng.int(1, c.n - 1));
        const [r, s] = c.uplo === 'lower' ? [i, j] : [j, i];
        set(m, r, s, NaN, get(m, r, s)[1]);
      }
    }
    for (let j = 0; j < c.n; j++) for (let i = 0; i < c.n; i++) if (!inTriangle(c.uplo, i, j)) set(m, i, j, NaN, NaN);
    a.push(m);
  }
  return a;
}

/** Runs the case's call on `ctx` over batches a, b; returns info. */
function call(ctx: Context, c: Case, a: Batch<Storage>, b: Batch<Storage> | undefined): Int32Array | DeviceStorage {
  if (c.op === 'potrf') return ctx.potrf({ uplo: c.uplo, a }).info as Int32Array | DeviceStorage;
  if (c.op === 'potrs') return ctx.potrs({ uplo: c.uplo, a, b: b! }).info as Int32Array | DeviceStorage;
  return ctx.posv({ uplo: c.uplo, a, b: b! }).info as Int32Array | DeviceStorage;
}

/** The orders above 32 (the recursion), per operation: a few cases each, both triangles in turn. */
const LARGE: Record<Op, readonly number[]> = { potrf: [33, 47, 64, 100, 128, 256, 512], potrs: [33, 64, 100, 256], posv: [47, 100, 128, 256] };

function largeCases(op: Op, dtype: ComplexDType): Case[] {
  return LARGE[op].map((n, i) => ({
    op, dtype, uplo: i % 2 === (dtype === 'complex64' ? 1 : 0) ? 'lower' : 'upper', n,
    nrhs: op === 'potrf' ? 0 : [1, 3, 5][i % 3]!,
    count: n >= 256 ? 3 : 5,
    layout: i % 3 === 1 ? LIST : ODD,
    where: i % 2 === 1 ? 'device' : 'host',
  }));
}

/**
 * Matrix q of a large case: HPD (the diagonal's imaginary parts and the other triangle NaN); for
 * potrf and posv, q = 1 fails in the second half (at n1 + 2, or its last column), q = 2 has NaN in
 * the factor's second half, q = 3 fails in the first half (step 5). potrs: the reference's factor
 * of an HPD matrix, its diagonal made complex.
 */
function largeMatrices(c: Case, rng: Rng): Z[] {
  const n1 = splitPoint(c.n, 32);
  const kk = Math.min(n1 + 2, c.n - 1);
  return Array.from({ length: c.count }, (_, q) => {
    const h = dominantHpd(rng, c.n);
    const m = zeros(c.n, c.n);
    for (let j = 0; j < c.n; j++) for (let i = 0; i < c.n; i++) set(m, i, j, ...get(h, i, j));
    if (c.op === 'potrs') {
      const ref = newReferenceContext();
      ref.potrf({ uplo: c.uplo, a: strided(m.d, { rows: c.n, count: 1, dtype: 'complex128' }) });
      ref.dispose();
      for (let i = 0; i < c.n; i++) set(m, i, i, get(m, i, i)[0], (q % 2 === 0 ? 0.25 : -0.25) * get(m, i, i)[0]);
    } else {
      for (let i = 0; i < c.n; i++) set(m, i, i, get(h, i, i)[0], NaN);
      if (q === 1) set(m, kk, kk, -1, 0);
      if (q === 2) {
        // F(n - 1, n1) (its mirror for upper): below the diagonal of the second half (on it where that half is one column).
        const [r, s] = c.uplo === 'lower' ? [c.n - 1, n1] : [n1, c.n - 1];
        set(m, r, s, NaN, get(m, r, s)[1]);
      }
      if (q === 3) set(m, 5, 5, -2, 0);
    }
    for (let j = 0; j < c.n; j++) for (let i = 0; i < c.n; i++) if (!inTriangle(c.uplo, i, j)) set(m, i, j, NaN, NaN);
    return m;
  });
}

/**
 * A Hermitian positive definite matrix in O(n^2) (randomHpd's product is O(n^3), seconds at 512):
 * (B + B^H) / 2 with B's entries in the unit square, plus 2n I. A row's off-diagonal moduli sum to
 * less than sqrt(2) (n - 1), so its eigenvalues lie in (0.58 n, 3.42 n) (Gershgorin): cond < 6,
 * as well conditioned as randomHpd's B B^H + n I.
 */
function dominantHpd(rng: Rng, n: number): Z {
  const h = randomHermitian(rng, n);
  for (let i = 0; i < n; i++) set(h, i, i, get(h, i, i)[0] + 2 * n, 0);
  return h;
}

/** Every kernel of the file, compiled at once (the calls made on a device that runs nothing). */
before(() => warmFileKernels('zpotrf', (ctx, planning) => {
  if (planning === undefined) return;
  const dev = planning.device;
  for (const op of ['potrf', 'potrs', 'posv'] as const) for (const dtype of TYPES) for (const c of [...UPLOS.flatMap((uplo) => casesOf(op, dtype, uplo)), ...largeCases(op, dtype)]) {
    const part = dtype === 'complex128' ? 'float64' : 'float32';
    const ld = c.n + c.layout.pad;
    const a = c.layout.kind === 'list'
      ? list(Array.from({ length: c.count }, () => dev.alloc(part, 2 * (ld * c.n + c.layout.offset))), { rows: c.n, ld, dtype })
      : strided(dev.alloc(part, 2 * (c.layout.offset + (ld * c.n + c.layout.gap) * c.count)), { rows: c.n, ld, stride: ld * c.n + c.layout.gap, offset: c.layout.offset, count: c.count, dtype });
    const b = c.layout.kind === 'list'
      ? list(Array.from({ length: c.count }, () => dev.alloc(part, 2 * (ld * c.nrhs + c.layout.offset))), { rows: c.n, cols: c.nrhs, ld, dtype })
      : strided(dev.alloc(part, 2 * (c.layout.offset + (ld * c.nrhs + c.layout.gap) * c.count)), { rows: c.n, cols: c.nrhs, ld, stride: ld * c.nrhs + c.layout.gap, offset: c.layout.offset, count: c.count, dtype });
    call(ctx, c, a, c.op === 'potrf' ? undefined : b);
  }
}));

/** The case's call on the GPU context and on the reference, on the same data placed twice (and the input as stored, rounded to the type); info, the layouts, padding checked. */
/** B of each matrix of a case: n x nrhs pairs with both parts uniform in [-1, 1). */
function randomRhs(c: Case, rng: Rng): Z[] {
  return Array.from({ length: c.count }, () => {
    const z = zeros(c.n, c.nrhs);
    for (let k = 0; k < z.d.length; k++) z.d[k] = rng.uniform(-1, 1);
    return z;
  });
}

function execute(ctx: Context, c: Case, as: readonly Z[], bs: readonly Z[], name: string, route: string = c.op) {
  const { dtype } = c;
  const placedA = place(as, c.n, c.n, dtype, c.layout), placedB = c.op === 'potrf' ? undefined : place(bs, c.n, c.nrhs, dtype, c.layout);
  const refA = place(as, c.n, c.n, dtype, c.layout), refB = c.op === 'potrf' ? undefined : place(bs, c.n, c.nrhs, dtype, c.layout);
  const inA = as.map((_, p) => placedA.read(p)), inB = bs.map((_, p) => placedB!.read(p));
  const [outsideA, outsideB] = [placedA.outside(), placedB?.outside() ?? []];

  const ref = newReferenceContext();
  const wantInfo = [...(call(ref, c, refA.batch, refB?.batch) as Int32Array)];
  ref.dispose();

  let info: number[];
  if (c.where === 'host') {
    info = [...(call(ctx, c, placedA.batch, placedB?.batch) as Int32Array)];
  } else {
    const dA = onDevice(ctx, placedA.batch), dB = placedB === undefined ? undefined : onDevice(ctx, placedB.batch);
    try {
      info = [...(ctx.download(call(ctx, c, dA.batch, dB?.batch) as DeviceStorage) as Int32Array)];
      dA.back();
      dB?.back();
    } finally {
      dA.dispose();
      dB?.dispose();
    }
  }
  assert.deepEqual(ctx.lastRoute, { op: c.op, route, gpu: true }, name);
  assert.deepEqual(info, wantInfo, `${name}: info`);
  assert.deepEqual(placedA.outside().map(String), outsideA.map(String), `${name}: A's padding changed`);
  if (placedB) assert.deepEqual(placedB.outside().map(String), outsideB.map(String), `${name}: B's padding changed`);
  return { info, wantInfo, placedA, placedB, refA, refB, inA, inB };
}

/** Compares matrix p's outputs with the reference's (see the file comment); returns a message or undefined. */
function compare(c: Case, got: Z, want: Z, input: Z, what: string): string | undefined {
  const u = epsOf(c.dtype);
  let scale = 1;
  for (const x of want.d) if (Number.isFinite(x)) scale = Math.max(scale, Math.abs(x));
  const bound = 64 * c.n * u * scale;
  for (let k = 0; k < got.d.length; k++) {
    const [g, w, x] = [got.d[k]!, want.d[k]!, input.d[k]!];
    const at = `${what} element ${Math.floor(k / 2) % got.rows}, ${Math.floor(k / 2 / got.rows)} part ${k % 2}`;
    if (Object.is(w, x)) { if (!Object.is(g, x)) return `${at} changed: ${g}, was ${x}`; continue; }
    if (Number.isNaN(w)) { if (!Number.isNaN(g)) return `${at}: ${g}, want NaN`; continue; }
    if (!(Math.abs(g - w) <= bound)) return `${at}: ${g}, want ${w} (bound ${bound})`;
  }
  return undefined;
}

for (const op of ['potrf', 'potrs', 'posv'] as const) for (const dtype of TYPES) for (const uplo of UPLOS) {
  test(`${op} ${dtype} ${uplo}: n = 1 ... 32, strided and list, device and host data, failing and NaN matrices`, { skip, timeout: 300_000 }, () => {
    const { ctx } = gpuContext();
    for (const c of casesOf(op, dtype, uplo)) {
      const name = `${op} ${dtype} ${uplo} n = ${c.n}${op === 'potrf' ? '' : `, nrhs = ${c.nrhs}`}, ${c.count} ${c.layout.kind} on the ${c.where}`;
      const rng = new Rng(c.n * 97 + c.nrhs * 13 + (dtype === 'complex64' ? 1 : 0) + (uplo === 'upper' ? 2 : 0) + { potrf: 0, potrs: 5, posv: 9 }[op]);
      const as = matrices(c, rng);
      const bs = c.op === 'potrf' ? [] : randomRhs(c, rng);
      const { wantInfo, placedA, placedB, refA, refB, inA, inB } = execute(ctx, c, as, bs, name);
      if (op !== 'potrs') assert.ok(wantInfo.some((k) => k > 0) || c.count < 2, `${name}: the batch holds failing matrices`);

      const u = epsOf(dtype);
      for (let p = 0; p < c.count; p++) {
        const bad = compare(c, placedA.read(p), refA.read(p), inA[p]!, `${name}: matrix ${p} A`) ??
          (placedB ? compare(c, placedB.read(p), refB!.read(p), inB[p]!, `${name}: matrix ${p} B`) : undefined);
        assert.equal(bad, undefined, bad);
        if (wantInfo[p] !== 0) continue;
        // potrs: the matrix of the factor as given (its diagonal complex), F F^H with F = L or U^H.
        const given = triangle(inA[p]!, uplo);
        const full = op === 'potrs' ? (uplo === 'lower' ? multiply(given, op_(given)) : multiply(op_(given), given)) : hermitianFrom(inA[p]!, uplo);
        if (op === 'potrf') {
          const f = triangle(placedA.read(p), uplo);
          const product = uplo === 'lower' ? multiply(f, op_(f)) : multiply(op_(f), f);
          const r = ratio(norm(subtract(full, product)), c.n, norm(full), u);
          assert.ok(r <= 30, `${name}: matrix ${p} ||A - L L^H|| / (n u ||A||) = ${r}`);
        } else {
          const x = placedB!.read(p);
          const r = ratio(norm(subtract(multiply(full, x), inB[p]!)), c.n, norm(full) * norm(x), u);
          assert.ok(r <= 30, `${name}: matrix ${p} ||A X - B|| / (n u ||A|| ||X||) = ${r}`);
        }
      }
    }
  });
}

/**
 * A large case's matrix p (see the file comment): info 0: every element of the triangle within
 * the bound (no NaN), the other triangle as given; info k > 0: the factor's columns before k - 1
 * and the diagonal element k - 1 within the bound (pairs with NaN where the reference's have one),
 * the other triangle as given, the rest not compared. Returns a message or undefined.
 */
function compareLarge(c: Case, got: Z, want: Z, input: Z, info: number, isFactor: boolean, what: string): string | undefined {
  let scale = 1;
  for (const x of want.d) if (Number.isFinite(x)) scale = Math.max(scale, Math.abs(x));
  const bound = 64 * c.n * epsOf(c.dtype) * scale;
  const upTo = info === 0 ? got.cols : info - 1;
  for (let j = 0; j < got.cols; j++) for (let i = 0; i < got.rows; i++) {
    const at = `${what} element ${i}, ${j}`;
    const [g, w, x] = [get(got, i, j), get(want, i, j), get(input, i, j)];
    if (isFactor && !inTriangle(c.uplo, i, j)) {
      if (!(Object.is(g[0], x[0]) && Object.is(g[1], x[1]))) return `${at} outside the triangle changed: ${g}, was ${x}`;
      continue;
    }
    const col = !isFactor ? 0 : c.uplo === 'lower' ? j : i;
    if (isFactor && col > upTo) continue;
    if (isFactor && col === upTo && i !== j) continue;
    if (Number.isNaN(w[0]) || Number.isNaN(w[1])) {
      if (info === 0) return `${at}: the reference has NaN in a good matrix (${w})`;
      if (!(Number.isNaN(g[0]) || Number.isNaN(g[1]))) return `${at}: ${g}, want NaN in ${w}`;
      continue;
    }
    for (const part of [0, 1]) if (!(Math.abs(g[part]! - w[part]!) <= bound)) return `${at} part ${part}: ${g[part]}, want ${w[part]} (bound ${bound})`;
  }
  return undefined;
}

for (const op of ['potrf', 'potrs', 'posv'] as const) for (const dtype of TYPES) {
  test(`${op} ${dtype} above 32 (the recursion on the GPU): n = ${LARGE[op].join(', ')}, strided and list, failing in either half and NaN`, { skip, timeout: 300_000 }, () => {
    const { ctx } = gpuContext();
    for (const c of largeCases(op, dtype)) {
      const name = `${op} ${dtype} ${c.uplo} n = ${c.n}${op === 'potrf' ? '' : `, nrhs = ${c.nrhs}`}, ${c.count} ${c.layout.kind} on the ${c.where}`;
      const rng = new Rng(c.n * 31 + c.nrhs + (dtype === 'complex64' ? 7 : 0) + { potrf: 0, potrs: 100, posv: 200 }[op]);
      const as = largeMatrices(c, rng);
      const bs = c.op === 'potrf' ? [] : randomRhs(c, rng);
      const { wantInfo, placedA, placedB, refA, refB, inA, inB } = execute(ctx, c, as, bs, name);
      if (op !== 'potrs') {
        const n1 = splitPoint(c.n, 32);
        assert.equal(wantInfo[0], 0, `${name}: matrix 0 factors`);
        assert.equal(wantInfo[1], Math.min(n1 + 2, c.n - 1) + 1, `${name}: matrix 1 fails in the second half, at n1 + k`);
        assert.ok(wantInfo[2]! > n1, `${name}: matrix 2 fails through NaN in the second half`);
        if (c.count > 3) assert.equal(wantInfo[3], 6, `${name}: matrix 3 fails in the first half`);
      }
      const u = epsOf(dtype);
      for (let p = 0; p < c.count; p++) {
        const info = wantInfo[p]!;
        const bad = (op !== 'potrs' ? compareLarge(c, placedA.read(p), refA.read(p), inA[p]!, info, true, `${name}: matrix ${p} A`) : undefined) ??
          (placedB === undefined ? undefined
            : info === 0 ? compareLarge(c, placedB.read(p), refB!.read(p), inB[p]!, 0, false, `${name}: matrix ${p} B`)
              : compare(c, placedB.read(p), inB[p]!, inB[p]!, `${name}: matrix ${p} B of a failed matrix kept`));
        assert.equal(bad, undefined, bad);
        if (op === 'potrs') assert.deepEqual(Array.from(placedA.read(p).d, String), Array.from(inA[p]!.d, String), `${name}: matrix ${p}: potrs's factor unchanged`);
        if (info !== 0 || c.n > 128) continue;
        const given = triangle(inA[p]!, c.uplo);
        const full = op === 'potrs' ? (c.uplo === 'lower' ? multiply(given, op_(given)) : multiply(op_(given), given)) : hermitianFrom(inA[p]!, c.uplo);
        if (op === 'potrf') {
          const f = triangle(placedA.read(p), c.uplo);
          const product = c.uplo === 'lower' ? multiply(f, op_(f)) : multiply(op_(f), f);
          const r = ratio(norm(subtract(full, product)), c.n, norm(full), u);
          assert.ok(r <= 30, `${name}: matrix ${p} ||A - L L^H|| / (n u ||A||) = ${r}`);
        } else {
          const x = placedB!.read(p);
          const r = ratio(norm(subtract(multiply(full, x), inB[p]!)), c.n, norm(full) * norm(x), u);
          assert.ok(r <= 30, `${name}: matrix ${p} ||A X - B|| / (n u ||A|| ||X||) = ${r}`);
        }
      }
    }
  });
}

/** A^H. */
const op_ = (a: Z): Z => op(a, 'C');

// ---------------------------------------------------------------------------------------------
// cuSOLVER's z/cpotrfBatched, forced (the route the card's table takes for large complex batches).

/** What matrix q of a vendor case holds (see the file comment); its info as the reference finds it. */
const VENDOR_KINDS = ['good', 'notPd', 'notPdEarly', 'nanRe', 'nanIm', 'infRe', 'minusInfIm', 'diagMinusInf', 'diagNan', 'diagInfLast', 'notPdThenNan', 'nanThenNotPd', 'good'] as const;

function vendorCases(dtype: ComplexDType): Case[] {
  const out: Case[] = [];
  // 'lower' alone: the route refuses 'upper' (cuSOLVER's batched Cholesky wrote the other triangle too; see the test).
  for (const n of [40, 128]) for (const layout of [ODD, LIST]) {
    out.push({ op: 'potrf', dtype, uplo: 'lower', n, nrhs: 0, count: VENDOR_KINDS.length, layout, where: out.length % 2 === 0 ? 'device' : 'host' });
  }
  return out;
}

/** Sets F(i, j) (i >= j: the factor's element; its place in the stored triangle for upper) part `part` to v. */
function setFactor(m: Z, uplo: Uplo, i: number, j: number, part: 0 | 1, v: number): void {
  const [r, s] = uplo === 'lower' ? [i, j] : [j, i];
  const z = get(m, r, s);
  z[part] = v;
  set(m, r, s, z[0], z[1]);
}

function vendorMatrices(c: Case, rng: Rng): Z[] {
  const { n, uplo } = c;
  return VENDOR_KINDS.map((kind) => {
    const h = dominantHpd(rng, n);
    const m = zeros(n, n);
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) set(m, i, j, ...get(h, i, j));
    for (let i = 0; i < n; i++) set(m, i, i, get(h, i, i)[0], NaN);
    const half = n >> 1;
    switch (kind) {
      case 'notPd': set(m, half, half, -1, 0); break;
      case 'notPdEarly': set(m, 2, 2, -0.5, 0); break;
      case 'nanRe': setFactor(m, uplo, n - 3, 1, 0, NaN); break;
      case 'nanIm': setFactor(m, uplo, half, half - 1, 1, NaN); break;
      case 'infRe': setFactor(m, uplo, 7, 3, 0, Infinity); break;
      case 'minusInfIm': setFactor(m, uplo, n - 1, n - 2, 1, -Infinity); break;
      case 'diagMinusInf': set(m, n - 5, n - 5, -Infinity, 0); break;
      case 'diagNan': set(m, 7, 7, NaN, 0); break;
      case 'diagInfLast': set(m, n - 1, n - 1, Infinity, NaN); break;
      case 'notPdThenNan': set(m, 4, 4, -1, 0); setFactor(m, uplo, n - 2, 0, 0, NaN); break;
      case 'nanThenNotPd': setFactor(m, uplo, 3, 2, 1, NaN); set(m, n - 2, n - 2, -1, 0); break;
      default: break;
    }
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) if (!inTriangle(uplo, i, j)) set(m, i, j, NaN, NaN);
    return m;
  });
}

/** Matrix p of a vendor case against the reference: the other triangle as given; in the triangle, a failed matrix's leading (k - 1) block only; infinities exactly. */
function compareVendor(c: Case, got: Z, want: Z, input: Z, info: number, what: string): string | undefined {
  let scale = 1;
  for (const x of want.d) if (Number.isFinite(x)) scale = Math.max(scale, Math.abs(x));
  const bound = 64 * c.n * epsOf(c.dtype) * scale;
  for (let j = 0; j < c.n; j++) for (let i = 0; i < c.n; i++) {
    const at = `${what} element ${i}, ${j}`;
    const [g, w, x] = [get(got, i, j), get(want, i, j), get(input, i, j)];
    if (!inTriangle(c.uplo, i, j)) {
      if (!(Object.is(g[0], x[0]) && Object.is(g[1], x[1]))) return `${at} outside the triangle changed: ${g}, was ${x}`;
      continue;
    }
    if (info > 0 && !(i < info - 1 && j < info - 1)) continue;
    for (const part of [0, 1]) {
      if (!Number.isFinite(w[part]!)) { if (!Object.is(g[part], w[part])) return `${at} part ${part}: ${g[part]}, want ${w[part]}`; continue; }
      if (!(Math.abs(g[part]! - w[part]!) <= bound)) return `${at} part ${part}: ${g[part]}, want ${w[part]} (bound ${bound})`;
    }
  }
  return undefined;
}

for (const dtype of TYPES) {
  test(`potrf ${dtype} on cuSOLVER's ${dtype === 'complex128' ? 'z' : 'c'}potrfBatched (forced): n = 40, 128, strided and list, not PD, NaN and infinities in either part`, { skip, timeout: 300_000 }, (t) => {
    if (!cusolverHasComplexPotrfBatched(dtype)) { t.skip(`this cuSOLVER has no ${dtype === 'complex128' ? 'Z' : 'C'}potrfBatched`); return; }
    const { ctx, backend } = gpuContext();
    backend.force = { potrf: 'cusolver' };
    try {
      for (const c of vendorCases(dtype)) {
        const name = `cusolver potrf ${dtype} ${c.uplo} n = ${c.n}, ${c.count} ${c.layout.kind} on the ${c.where}`;
        const rng = new Rng(c.n * 17 + (dtype === 'complex64' ? 3 : 0) + (c.uplo === 'upper' ? 5 : 0) + (c.layout.kind === 'list' ? 11 : 0));
        const { wantInfo, placedA, refA, inA } = execute(ctx, c, vendorMatrices(c, rng), [], name, 'cusolver');
        const half = c.n >> 1;
        assert.deepEqual(wantInfo.slice(0, 3), [0, half + 1, 3], `${name}: the failing matrices fail where they were made to`);
        assert.ok(wantInfo.slice(3, 9).every((k) => k > 0), `${name}: NaN and infinities in the triangle stop the reference`);
        assert.deepEqual(wantInfo.slice(9), [0, 5, 4, 0], `${name}: +Inf at the last diagonal; the earlier of a failure and a NaN`);
        for (let p = 0; p < c.count; p++) {
          const bad = compareVendor(c, placedA.read(p), refA.read(p), inA[p]!, wantInfo[p]!, `${name}: matrix ${p} (${VENDOR_KINDS[p]})`);
          assert.equal(bad, undefined, bad);
        }
      }
      // 'upper' forced: refused before anything runs (cuSOLVER's batched Cholesky wrote the lower triangle
      // of the upper case, measured on the H200), and never chosen by the table.
      const n = 40;
      const a = ctx.upload(new (dtype === 'complex128' ? Float64Array : Float32Array)(2 * n * n * 2));
      try {
        assert.throws(() => ctx.potrf({ a: strided(a, { rows: n, cols: n, count: 2, dtype }), uplo: 'upper' }),
          (e: unknown) => (e as { code?: string }).code === 'UNSUPPORTED' && /uplo 'lower'/.test((e as Error).message));
      } finally {
        (a as { dispose?: () => void }).dispose?.();
      }
    } finally {
      backend.force = {};
    }
  });
}

// posv composed by the router where the table sends the factor to cuSOLVER (route 'cusolver', lower):
// z/cpotrfBatched's factor and info, then the own solves keeping a failed matrix's B.
for (const dtype of TYPES) {
  test(`posv ${dtype} on cuSOLVER's factor and the own solves (forced): lower, n = ${LARGE.posv.join(', ')}, failing and NaN matrices keep B`, { skip, timeout: 300_000 }, (t) => {
    if (!cusolverHasComplexPotrfBatched(dtype)) { t.skip(`this cuSOLVER has no ${dtype === 'complex128' ? 'Z' : 'C'}potrfBatched`); return; }
    const { ctx, backend } = gpuContext();
    backend.force = { posv: 'cusolver' };
    try {
      for (const large of largeCases('posv', dtype)) {
        const c: Case = { ...large, uplo: 'lower' };
        const name = `cusolver posv ${dtype} n = ${c.n}, nrhs = ${c.nrhs}, ${c.count} ${c.layout.kind} on the ${c.where}`;
        const rng = new Rng(c.n * 37 + c.nrhs + (dtype === 'complex64' ? 7 : 0));
        const as = largeMatrices(c, rng);
        const bs = randomRhs(c, rng);
        const { wantInfo, placedA, placedB, refA, refB, inA, inB } = execute(ctx, c, as, bs, name, 'cusolver');
        assert.ok(wantInfo.some((k) => k > 0) && wantInfo[0] === 0, `${name}: good and failing matrices`);
        for (let p = 0; p < c.count; p++) {
          const info = wantInfo[p]!;
          const bad = compareVendor(c, placedA.read(p), refA.read(p), inA[p]!, info, `${name}: matrix ${p} A`) ??
            (info === 0 ? compareLarge(c, placedB!.read(p), refB!.read(p), inB[p]!, 0, false, `${name}: matrix ${p} B`)
              : compare(c, placedB!.read(p), inB[p]!, inB[p]!, `${name}: matrix ${p} B of a failed matrix kept`));
          assert.equal(bad, undefined, bad);
        }
      }
    } finally {
      backend.force = {};
    }
  });
}
