/**
 * Complex inverses on the GPU (kernels/zinverse/: trtri, lauum, potri, poti, getri on complex128
 * and complex64; routes 'trtri', 'lauum', 'potri', 'poti', 'getri' of COMPLEX_ROUTES) against the
 * complex reference (the reference context: cpu/complex/zinverse.ts, zgetri.ts), on fresh random
 * data: every order n = 1 ... 40 and 47, 64, 100, 128, 256 (the leaf of 32, one, two and more
 * levels of the recursion), lower and upper in turn, unit and non-unit (trtri), strided batches
 * with ld > n, gaps and an offset, and list batches; device data and host data (staged) in turn.
 * Every batch mixes good matrices with failing ones:
 * - trtri, potri: every 5th non-unit triangle with an exactly zero diagonal element (info = k,
 *   the matrix left bit for bit as given); the other triangle NaN, and a unit diagonal NaN
 *   (neither read nor written); potri's factors with a real diagonal but every 4th (a complex
 *   diagonal, as trtri reads it; lauum then reads the inverse's diagonal's real parts);
 * - lauum: the diagonal's imaginary parts NaN (zlauu2 reads only the real parts);
 * - poti: Hermitian positive definite matrices, every 5th not positive definite at a chosen step
 *   (a negative diagonal), every 7th with NaN in its triangle; the diagonal's imaginary parts and
 *   the other triangle NaN;
 * - getri: getrf's factors (the reference's) of row-permuted diagonally dominant matrices (so the
 *   pivots interchange rows), every 5th with a zero column (an exactly zero U(k, k): info = k,
 *   the factors left bit for bit).
 * Checked: ctx.lastRoute the GPU route; info per matrix exactly; the padding and gaps between
 * matrices bit for bit; every element the reference leaves unchanged (the other triangle, a unit
 * diagonal, a failed trtri's, potri's or getri's matrix) bit for bit as given; a poti matrix whose
 * potrf failed: its factor's columns before the failure as the reference's (the rest as the
 * complex potrf leaves it, unspecified past the failing column: test/gpu/zpotrf.test.ts); the rest
 * within 64 n u of the matrix's largest magnitude (no NaN: a failing matrix spreads nothing to its
 * neighbours); lauum's diagonal real (imaginary parts exactly 0); and, for good matrices to n = 128,
 * the residual ||M X - I|| / (n u ||M|| ||X||) at most 30 (M = T, A = F F^H, or A = P^T L U).
 * The file's kernels are compiled at once before the first case. Skips with one line where no GPU
 * is usable.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { newReferenceContext, type Context } from '../../src/api/context.js';
import { list, strided, type Batch } from '../../src/core/batch.js';
import type { ComplexDType } from '../../src/core/dtype.js';
import type { Diag, Uplo } from '../../src/core/enums.js';
import type { DeviceStorage, IntStorage, Storage } from '../../src/core/storage.js';
import {
  epsOf, get, hermitianFrom, identity, LIST, multiply, norm, ODD, op as opOf, place, randomHermitian, ratio, set, subtract, triangle, zeros, type Layout, type Z,
} from '../helpers/complex.js';
import { gpuContext, gpuSkipReason, onDevice, warmFileKernels } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';

const skip = gpuSkipReason();
const TYPES: readonly ComplexDType[] = ['complex128', 'complex64'];
const OPS = ['trtri', 'lauum', 'potri', 'poti', 'getri'] as const;
type Op = (typeof OPS)[number];
const ORDERS = [...Array.from({ length: 40 }, (_, i) => i + 1), 47, 64, 100, 128, 256];

interface Case { op: Op; dtype: ComplexDType; uplo: Uplo; diag: Diag; n: number; count: number; layout: Layout; where: 'device' | 'host' }

function casesOf(op: Op, dtype: ComplexDType): Case[] {
  return ORDERS.map((n, i) => ({
    op, dtype, n,
    uplo: i % 2 === (dtype === 'complex64' ? 1 : 0) ? 'lower' : 'upper',
    diag: op === 'trtri' && i % 3 === 2 ? 'unit' : 'nonunit',
    count: n <= 8 ? 20 : n <= 40 ? 8 : n < 256 ? 5 : 3,
    layout: i % 3 === 1 ? LIST : ODD,
    where: i % 2 === 1 ? 'device' : 'host',
  }));
}

const inTriangle = (uplo: Uplo, i: number, j: number): boolean => (uplo === 'lower' ? i >= j : i <= j);

/** Hermitian, (B + B^H) / 2 + 2n I: cond < 6 (Gershgorin), in O(n^2). */
function dominantHpd(rng: Rng, n: number): Z {
  const h = randomHermitian(rng, n);
  for (let i = 0; i < n; i++) set(h, i, i, get(h, i, i)[0] + 2 * n, 0);
  return h;
}

/** The case's input matrices (see the file comment); getri: the matrices before getrf. */
function matrices(c: Case, rng: Rng): Z[] {
  const { n, uplo } = c;
  return Array.from({ length: c.count }, (_, q) => {
    const m = zeros(n, n);
    const k = rng.int(0, n - 1);
    if (c.op === 'getri') {
      const h = dominantHpd(rng, n);
      const perm = Array.from({ length: n }, (_, i) => i);
      for (let i = n - 1; i > 0; i--) { const j = rng.int(0, i); [perm[i], perm[j]] = [perm[j]!, perm[i]!]; }
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) set(m, perm[i]!, j, ...get(h, i, j));
      if (q % 5 === 1) for (let i = 0; i < n; i++) set(m, i, k, 0, 0);
      return m;
    }
    if (c.op === 'poti') {
      const h = dominantHpd(rng, n);
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) set(m, i, j, ...get(h, i, j));
      for (let i = 0; i < n; i++) set(m, i, i, get(h, i, i)[0], NaN);
      if (q % 5 === 1) set(m, k, k, -1, 0);
      if (q % 7 === 3) {
        const [i, j] = n === 1 ? [0, 0] : ((i) => [i, rng.int(0, i - 1)])(rng.int(1, n - 1));
        const [r, s] = uplo === 'lower' ? [i, j] : [j, i];
        set(m, r, s, NaN, get(m, r, s)[1]);
      }
    } else {
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
        if (i === j) set(m, i, i, 2 + rng.uniform(0, 1), c.op === 'lauum' ? NaN : c.op === 'potri' && q % 4 !== 3 ? 0 : rng.uniform(-1, 1));
        else set(m, i, j, rng.uniform(-1, 1) / n, rng.uniform(-1, 1) / n);
      }
      if (c.diag === 'unit') for (let i = 0; i < n; i++) set(m, i, i, NaN, NaN);
      else if (c.op !== 'lauum' && q % 5 === 1) set(m, k, k, 0, 0);
    }
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) if (!inTriangle(uplo, i, j)) set(m, i, j, NaN, NaN);
    return m;
  });
}

/** Runs the case's call on `ctx`; returns info. */
function call(ctx: Context, c: Case, a: Batch<Storage>, ipiv: IntStorage | undefined): IntStorage {
  switch (c.op) {
    case 'trtri': return ctx.trtri({ uplo: c.uplo, diag: c.diag, a }).info;
    case 'lauum': return ctx.lauum({ uplo: c.uplo, a }).info;
    case 'potri': return ctx.potri({ uplo: c.uplo, a }).info;
    case 'poti': return ctx.poti({ uplo: c.uplo, a }).info;
    case 'getri': return ctx.getri({ a, ipiv: ipiv! }).info;
  }
}

/** Every kernel of the file, compiled at once (the calls made on a device that runs nothing). */
before(() => warmFileKernels('zinverse', (ctx, planning) => {
  if (planning === undefined) return;
  const dev = planning.device;
  for (const op of OPS) for (const dtype of TYPES) for (const c of casesOf(op, dtype)) {
    const part = dtype === 'complex128' ? 'float64' : 'float32';
    const ld = c.n + c.layout.pad;
    const a = c.layout.kind === 'list'
      ? list(Array.from({ length: c.count }, () => dev.alloc(part, 2 * (ld * c.n + c.layout.offset))), { rows: c.n, ld, dtype })
      : strided(dev.alloc(part, 2 * (c.layout.offset + (ld * c.n + c.layout.gap) * c.count)), { rows: c.n, ld, stride: ld * c.n + c.layout.gap, offset: c.layout.offset, count: c.count, dtype });
    call(ctx, c, a, op === 'getri' ? dev.alloc('int32', c.n * c.count) as unknown as IntStorage : undefined);
  }
}));

/** A's entries of a case as compared (see the file comment); returns a message or undefined. */
function compare(c: Case, got: Z, want: Z, input: Z, info: number, what: string): string | undefined {
  let scale = 1;
  for (const x of want.d) if (Number.isFinite(x)) scale = Math.max(scale, Math.abs(x));
  const bound = 64 * c.n * epsOf(c.dtype) * scale;
  for (let j = 0; j < c.n; j++) for (let i = 0; i < c.n; i++) {
    const at = `${what} element ${i}, ${j}`;
    const [g, w, x] = [get(got, i, j), get(want, i, j), get(input, i, j)];
    if ((c.op !== 'getri' && !inTriangle(c.uplo, i, j)) || (c.diag === 'unit' && i === j) || (info !== 0 && c.op !== 'poti')) {
      if (!(Object.is(g[0], x[0]) && Object.is(g[1], x[1]))) return `${at} changed: ${g}, was ${x}`;
      continue;
    }
    if (info !== 0) {
      // poti where potrf failed: the factor's columns before the failing one.
      const col = c.uplo === 'lower' ? j : i;
      if (col >= info - 1) continue;
      if (Number.isNaN(w[0]) || Number.isNaN(w[1])) { if (!(Number.isNaN(g[0]) || Number.isNaN(g[1]))) return `${at}: ${g}, want NaN in ${w}`; continue; }
    }
    for (const part of [0, 1]) {
      if (!Number.isFinite(g[part]!)) return `${at} part ${part}: ${g[part]} (want ${w[part]})`;
      if (!(Math.abs(g[part]! - w[part]!) <= bound)) return `${at} part ${part}: ${g[part]}, want ${w[part]} (bound ${bound})`;
    }
    if (c.op !== 'trtri' && c.op !== 'getri' && i === j && !Object.is(g[1], 0)) return `${at}: the diagonal's imaginary part ${g[1]}`;
  }
  return undefined;
}

/** ||M X - I|| / (n u ||M|| ||X||) of a good matrix's result (M from the input as the operation reads it). */
function residual(c: Case, input: Z, out: Z, factors: { lu: Z; ipiv: Int32Array; p: number } | undefined): number | undefined {
  const n = c.n;
  let m: Z, x: Z;
  if (c.op === 'trtri') { m = triangle(input, c.uplo, c.diag === 'unit'); x = triangle(out, c.uplo, c.diag === 'unit'); }
  else if (c.op === 'potri') {
    // A factor whose diagonal is not real is no Cholesky factor: potri's result (trtri's inverse, then lauum over its real diagonal) inverts nothing.
    for (let i = 0; i < n; i++) if (get(input, i, i)[1] !== 0) return undefined;
    const f = triangle(input, c.uplo); m = c.uplo === 'lower' ? multiply(f, opOf(f, 'C')) : multiply(opOf(f, 'C'), f); x = hermitianFrom(out, c.uplo); }
  else if (c.op === 'poti') {
    m = zeros(n, n);
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) set(m, i, j, ...get(input, i, j));
    for (let i = 0; i < n; i++) set(m, i, i, get(input, i, i)[0], 0);
    m = hermitianFrom(m, c.uplo);
    x = hermitianFrom(out, c.uplo);
  } else if (c.op === 'getri') {
    // A = P^T L U from the factors (0-based pivots, applied in reverse to the rows of L U).
    const { lu, ipiv, p } = factors!;
    const a = multiply(triangle(lu, 'lower', true), triangle(lu, 'upper'));
    for (let k = n - 1; k >= 0; k--) {
      const r = ipiv[p * n + k]!;
      if (r !== k) for (let j = 0; j < n; j++) { const t = get(a, k, j); set(a, k, j, ...get(a, r, j)); set(a, r, j, ...t); }
    }
    m = a; x = out;
  } else return undefined;
  return ratio(norm(subtract(multiply(m, x), identity(n))), n, norm(m) * norm(x), epsOf(c.dtype));
}

for (const op of OPS) for (const dtype of TYPES) {
  test(`${op} ${dtype}: n = 1 ... 40, 47, 64, 100, 128, 256, strided and list, device and host data, failing matrices among good ones`, { skip, timeout: 600_000 }, () => {
    const { ctx } = gpuContext();
    for (const c of casesOf(op, dtype)) {
      const name = `${op} ${dtype} ${c.uplo}${c.diag === 'unit' ? ' unit' : ''} n = ${c.n}, ${c.count} ${c.layout.kind} on the ${c.where}`;
      const rng = new Rng(c.n * 53 + (dtype === 'complex64' ? 3 : 0) + OPS.indexOf(op) * 1000);
      let as = matrices(c, rng);
      const placedA = place(as, c.n, c.n, dtype, c.layout), refA = place(as, c.n, c.n, dtype, c.layout);
      // getri: the reference's LU factors of both placements (the same), and their pivots.
      let ipiv: Int32Array | undefined;
      if (op === 'getri') {
        ipiv = new Int32Array(c.n * c.count);
        const ref = newReferenceContext();
        ref.getrf({ a: placedA.batch, ipiv });
        ref.getrf({ a: refA.batch, ipiv: new Int32Array(c.n * c.count) });
        ref.dispose();
        as = as.map((_, p) => placedA.read(p));
      }
      const input = as.map((_, p) => placedA.read(p));
      const outside = placedA.outside();

      const ref = newReferenceContext();
      const wantInfo = [...(call(ref, c, refA.batch, ipiv) as Int32Array)];
      ref.dispose();

      let info: number[];
      if (c.where === 'host') {
        info = [...(call(ctx, c, placedA.batch, ipiv) as Int32Array)];
      } else {
        const dA = onDevice(ctx, placedA.batch);
        const dPiv = ipiv === undefined ? undefined : ctx.upload(ipiv);
        try {
          info = [...(ctx.download(call(ctx, c, dA.batch, dPiv) as DeviceStorage) as Int32Array)];
          dA.back();
        } finally {
          dA.dispose();
          (dPiv as { dispose?: () => void } | undefined)?.dispose?.();
        }
      }
      assert.deepEqual(ctx.lastRoute, { op, route: op, gpu: true }, name);
      assert.deepEqual(info, wantInfo, `${name}: info`);
      if (op !== 'lauum' && c.diag === 'nonunit' && c.count > 1) assert.ok(wantInfo.some((k) => k > 0), `${name}: the batch holds failing matrices`);
      assert.deepEqual(placedA.outside().map(String), outside.map(String), `${name}: the padding changed`);
      for (let p = 0; p < c.count; p++) {
        const got = placedA.read(p);
        const bad = compare(c, got, refA.read(p), input[p]!, wantInfo[p]!, `${name}: matrix ${p}`);
        assert.equal(bad, undefined, bad);
        if (wantInfo[p] !== 0 || c.n > 128) continue;
        const r = residual(c, input[p]!, got, ipiv === undefined ? undefined : { lu: input[p]!, ipiv, p });
        if (r !== undefined) assert.ok(r <= 30, `${name}: matrix ${p} ||M X - I|| / (n u ||M|| ||X||) = ${r}`);
      }
    }
  });
}
