/**
 * Complex gesvd on the GPU (zjacobi/: the one-sided warp Jacobi design, max(m, n) <= 32; complex128
 * and complex64) against the complex reference (cpu/complex/zgesvd.ts) on fresh random data: square,
 * tall and wide shapes from 1 x 1 to 32 x 32 (32 x 1, 1 x 32, 32 x 7, 7 x 32, 31 x 17 ...) and 33 x 33,
 * 33 x 5 (the CPU reference, route 'cpu'; 33 x 33 the bidiagonalization design, route 'bidiag', checked at more
 * shapes by zgesvd-large.test.ts); U and VT both, one of them, or neither; strided batches with
 * ragged leading dimensions, gaps and an offset, and list batches of separate arrays (S a list too);
 * device data and host data (staged) in turn. Each batch mixes random, repeated, zero, graded and
 * rank-deficient matrices with ones holding NaN or Inf. S, U and VT are poisoned with NaN before the
 * call. Checked:
 * - ctx.lastRoute: 'jacobi' on the GPU for max(m, n) <= 32, 'bidiag' for min(m, n) >= 33, 'cpu' between;
 * - info per matrix exactly the reference's (k + 2 for NaN and Inf, 0 for the rest; k = min(m, n));
 * - A unchanged bit for bit, and every float around A, S, U and VT unchanged; a failed matrix's S, U
 *   and VT NaN;
 * - the singular values descending and within 30 max(m, n) eps ||A||_F of the reference's;
 * - ||U^H U - I||_F / (k eps), ||VT VT^H - I||_F / (k eps) and, with both,
 *   ||A - U diag(s) VT||_F / (max(m, n) ||A||_F eps) below 30 (eps the machine epsilon of the parts'
 *   type: 2^-52, 2^-23).
 * The file's kernels are compiled at once before the first case. Skips with one line where no GPU
 * is usable.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { newReferenceContext } from '../../src/api/context.js';
import { list, strided, type Batch } from '../../src/core/batch.js';
import { DTYPE_EPS, type ComplexDType } from '../../src/core/dtype.js';
import type { Storage } from '../../src/core/storage.js';
import { get, op, place, set, zeros, type Layout, type Z } from '../helpers/complex.js';
import { gpuContext, gpuSkipReason, warmFileKernels } from '../helpers/gpu.js';
import { GENERAL_KINDS, generalCase, svdResidual, unitaryResidual } from '../helpers/zjacobi-cases.js';
import { Rng } from '../helpers/random.js';
import { gesvdCall, gesvdOn, placeS, poisoned, roundTo } from '../helpers/zgesvd-cases.js';

const skip = gpuSkipReason();
const TYPES: readonly ComplexDType[] = ['complex128', 'complex64'];
const SHAPES: readonly (readonly [number, number])[] = [
  [1, 1], [2, 2], [3, 3], [5, 5], [8, 8], [16, 16], [31, 31], [32, 32], [32, 7], [7, 32], [5, 3], [3, 5], [20, 13], [13, 20],
  [32, 1], [1, 32], [31, 17], [33, 33], [33, 5],
];
const THRESHOLD = 30;
const SENTINEL = -777.25;

type Vectors = 'both' | 'one' | 'none';
interface Case { dtype: ComplexDType; m: number; n: number; wantU: boolean; wantVt: boolean; layout: Layout; where: 'device' | 'host'; count: number }

function casesOf(dtype: ComplexDType, vectors: Vectors): Case[] {
  return SHAPES.map(([m, n], i) => ({
    dtype, m, n,
    wantU: vectors === 'both' || (vectors === 'one' && i % 2 === 0),
    wantVt: vectors === 'both' || (vectors === 'one' && i % 2 === 1),
    layout: i % 3 === 2 ? { kind: 'list', pad: 1 + (i % 2), gap: 0, offset: 3 } : { kind: 'strided', pad: 1 + (i % 3), gap: 5, offset: 7 },
    where: (i + (dtype === 'complex64' ? 1 : 0)) % 2 === 0 ? 'device' : 'host',
    count: Math.max(m, n) <= 8 ? 40 : 15,
  }));
}


/** The members: the kinds in turn, member 4 (mod 9) with NaN and member 6 (mod 11) with -Inf at a random element. */
function members(c: Case, rng: Rng): { as: Z[]; failing: boolean[] } {
  const as: Z[] = [], failing: boolean[] = [];
  for (let q = 0; q < c.count; q++) {
    const g = generalCase(rng, GENERAL_KINDS[q % GENERAL_KINDS.length]!, c.m, c.n);
    const z = zeros(c.m, c.n);
    for (let j = 0; j < c.n; j++) for (let i = 0; i < c.m; i++) { const [re, im] = get(g, i, j); set(z, i, j, roundTo(c.dtype, re), roundTo(c.dtype, im)); }
    const bad = q % 9 === 4 ? NaN : q % 11 === 6 ? -Infinity : undefined;
    if (bad !== undefined) {
      const i = rng.int(0, c.m - 1), j = rng.int(0, c.n - 1);
      if (q % 2 === 0) set(z, i, j, bad, get(z, i, j)[1]);
      else set(z, i, j, get(z, i, j)[0], bad);
    }
    as.push(z);
    failing.push(bad !== undefined);
  }
  return { as, failing };
}

/** Every kernel of the file, compiled at once (the calls made on a device that runs nothing). */
before(() => (skip !== undefined ? undefined : warmFileKernels('zgesvd', (ctx, planning) => {
  if (planning === undefined) return;
  const dev = planning.device;
  for (const dtype of TYPES) for (const vectors of ['both', 'one', 'none'] as const) for (const c of casesOf(dtype, vectors)) {
    if (Math.max(c.m, c.n) > 32 && Math.min(c.m, c.n) < 33) continue;
    const part = dtype === 'complex128' ? 'float64' : 'float32';
    const k = Math.min(c.m, c.n);
    const cx = (rows: number, cols: number): Batch<Storage> => {
      const ld = rows + c.layout.pad;
      return c.layout.kind === 'list'
        ? list(Array.from({ length: c.count }, () => dev.alloc(part, 2 * (ld * cols + c.layout.offset))), { rows, cols, ld, dtype })
        : strided(dev.alloc(part, 2 * (c.layout.offset + (ld * cols + c.layout.gap) * c.count)), { rows, cols, ld, stride: ld * cols + c.layout.gap, offset: c.layout.offset, count: c.count, dtype });
    };
    const s = c.layout.kind === 'list'
      ? list(Array.from({ length: c.count }, () => dev.alloc(part, k + 1)), { rows: k, cols: 1 })
      : strided(dev.alloc(part, 3 + (k + 2) * c.count), { rows: k, cols: 1, stride: k + 2, offset: 3, count: c.count });
    gesvdCall(ctx, cx(c.m, c.n), s, c.wantU ? cx(c.m, k) : undefined, c.wantVt ? cx(k, c.n) : undefined);
  }
})));

for (const dtype of TYPES) for (const vectors of ['both', 'one', 'none'] as const) {
  test(`gesvd ${dtype}, vectors ${vectors}: 1 x 1 ... 32 x 32 and 33, strided and list, device and host data, NaN and Inf among good matrices`, { skip, timeout: 300_000 }, () => {
    const { ctx } = gpuContext();
    const eps = DTYPE_EPS[dtype === 'complex128' ? 'float64' : 'float32'];
    for (const c of casesOf(dtype, vectors)) {
      const { m, n } = c;
      const k = Math.min(m, n);
      const name = `gesvd ${dtype} ${m}x${n} ${c.wantU ? 'U' : '-'}${c.wantVt ? 'VT' : '-'}, ${c.count} ${c.layout.kind} on the ${c.where}`;
      const rng = new Rng(m * 131 + n * 7 + (dtype === 'complex64' ? 1 : 0) + { both: 0, one: 2, none: 4 }[vectors]);
      const { as, failing } = members(c, rng);
      const A = place(as, m, n, dtype, c.layout, SENTINEL);
      const S = placeS(c, k, SENTINEL);
      const U = c.wantU ? place(poisoned(c.count, m, k), m, k, dtype, c.layout, SENTINEL) : undefined;
      const VT = c.wantVt ? place(poisoned(c.count, k, n), k, n, dtype, c.layout, SENTINEL) : undefined;
      const inputs = as.map((_, p) => A.read(p));
      const outside = [A.outside(), S.outside(), U?.outside() ?? [], VT?.outside() ?? []].map((xs) => xs.map(String));

      const refA = place(as, m, n, dtype, c.layout, SENTINEL);
      const refS = placeS(c, k, SENTINEL);
      const ref = newReferenceContext();
      const wantInfo = [...(gesvdCall(ref, refA.batch, refS.batch, undefined, undefined) as Int32Array)];
      ref.dispose();
      assert.deepEqual(wantInfo, failing.map((f) => (f ? k + 2 : 0)), `${name}: the reference's info`);

      const info = gesvdOn(ctx, c.where, A, S, U, VT);
      assert.deepEqual(ctx.lastRoute, Math.max(m, n) <= 32 ? { op: 'gesvd', route: 'jacobi', gpu: true } : k >= 33 ? { op: 'gesvd', route: 'bidiag', gpu: true } : { op: 'gesvd', route: 'cpu', gpu: false }, name);
      assert.deepEqual(info, wantInfo, `${name}: info`);
      assert.deepEqual([A.outside(), S.outside(), U?.outside() ?? [], VT?.outside() ?? []].map((xs) => xs.map(String)), outside, `${name}: the floats around A, S, U, VT changed`);

      for (let p = 0; p < c.count; p++) {
        const at = `${name}: matrix ${p}`;
        assert.deepEqual([...A.read(p).d].map(String), [...inputs[p]!.d].map(String), `${at}: A changed`);
        const s = S.read(p);
        const u = U?.read(p);
        const vt = VT?.read(p);
        if (failing[p]) {
          assert.ok(s.every(Number.isNaN) && (u?.d.every(Number.isNaN) ?? true) && (vt?.d.every(Number.isNaN) ?? true), `${at}: S, U, VT NaN`);
          continue;
        }
        const a = inputs[p]!;
        let anorm = 0;
        for (const x of a.d) anorm += x * x;
        anorm = Math.sqrt(anorm);
        const sRef = refS.read(p);
        for (let j = 0; j < k; j++) {
          assert.ok(Math.abs(s[j]! - sRef[j]!) <= THRESHOLD * Math.max(m, n) * eps * anorm, `${at}: s[${j}] = ${s[j]}, the reference's ${sRef[j]}`);
          if (j > 0) assert.ok(s[j - 1]! >= s[j]!, `${at}: s descending at ${j}`);
        }
        if (u) { const r = unitaryResidual(u, eps); assert.ok(r < THRESHOLD, `${at}: ||U^H U - I|| / (k eps) = ${r}`); }
        if (vt) { const r = unitaryResidual(op(vt, 'C'), eps); assert.ok(r < THRESHOLD, `${at}: ||VT VT^H - I|| / (k eps) = ${r}`); }
        if (u && vt) { const r = svdResidual(a, u, s, vt, eps); assert.ok(r < THRESHOLD, `${at}: ||A - U S VT|| / (max(m, n) ||A|| eps) = ${r}`); }
      }
    }
  });
}

/**
 * Wide and tall complex matrices whose entries cycle every 220 floats (rank 11 of 30): the one-sided
 * Jacobi rotates the dependent columns down to rounding noise and below, where |g| carries a few
 * bits and g / |g| is no unit: the rotation's phase must come from g's scaled parts there, or U and VT
 * lose orthonormality (3e-3 on the CPU reference before its fix). Beside them a random matrix.
 */
test('gesvd of wide and tall complex matrices with repeated columns (many exactly zero singular values): U and VT unitary', { skip, timeout: 120_000 }, () => {
  const { ctx } = gpuContext();
  let seed = 7;
  const cycle = Array.from({ length: 220 }, () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 - 0.5; });
  for (const dtype of TYPES) for (const [m, n] of [[30, 32], [32, 30], [20, 31]] as const) {
    const eps = DTYPE_EPS[dtype === 'complex128' ? 'float64' : 'float32'];
    const k = Math.min(m, n);
    const cyclic = zeros(m, n);
    for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) {
      const at = 2 * (i + j * m);
      set(cyclic, i, j, roundTo(dtype, cycle[at % 220]!), roundTo(dtype, cycle[(at + 1) % 220]!));
    }
    const as = [cyclic, generalCase(new Rng(m + n), 'random', m, n)];
    const c = { dtype, count: as.length, layout: { kind: 'strided', pad: 1, gap: 3, offset: 2 } as Layout };
    const A = place(as, m, n, dtype, c.layout, SENTINEL);
    const S = placeS(c, k, SENTINEL);
    const U = place(poisoned(c.count, m, k), m, k, dtype, c.layout, SENTINEL);
    const VT = place(poisoned(c.count, k, n), k, n, dtype, c.layout, SENTINEL);
    const info = gesvdOn(ctx, 'device', A, S, U, VT);
    const name = `${dtype} ${m} x ${n}`;
    assert.deepEqual(ctx.lastRoute, { op: 'gesvd', route: 'jacobi', gpu: true }, name);
    assert.deepEqual(info, [0, 0], name);
    for (let p = 0; p < c.count; p++) {
      const u = U.read(p), vt = VT.read(p), s = S.read(p);
      const ru = unitaryResidual(u, eps), rv = unitaryResidual(op(vt, 'C'), eps), ra = svdResidual(as[p]!, u, s, vt, eps);
      assert.ok(ru < THRESHOLD && rv < THRESHOLD && ra < THRESHOLD, `${name} matrix ${p}: ||U^H U - I|| / (k eps) = ${ru}, ||VT VT^H - I|| / (k eps) = ${rv}, the residual ${ra}`);
    }
  }
});
