/**
 * Complex gesvd above 32 on the GPU (zbidiag/: zgebd2's reduction to a real bidiagonal, the tridiag
 * family's values and vectors kernels on its Golub-Kahan tridiagonal, the bidiag family's vectors
 * kernel, U = Q_B U_B and V = P_B V_B by the zqr family's unmqr; route 'bidiag'; complex128 and
 * complex64) against the complex reference (cpu/complex/zgesvd.ts) on fresh random data: the routed
 * shapes (zbidiagServes: k = min(m, n) from 33 to 150, max(m, n) to 200), square, tall and wide (33 x 33,
 * 40 x 33, 33 x 40, 47 x 60, 64 x 64, 100 x 65, 65 x 100, 128 x 128, 200 x 150, 150 x 200); U and VT both,
 * one of them, or neither; strided batches with ragged leading dimensions, gaps and an offset, and
 * list batches of separate arrays (S a list too); device data and host data (staged) in turn. Each
 * batch mixes random, repeated, zero, graded and rank-deficient matrices with ones holding NaN or
 * Inf. S, U and VT are poisoned with NaN before the call. Checked:
 * - ctx.lastRoute: 'bidiag' on the GPU;
 * - info per matrix k + 2 for NaN and Inf, 0 for the rest (the reference's too, but for its Jacobi
 *   sweep limit, k + 1, on a graded matrix: its singular values are then not compared);
 * - A unchanged bit for bit, and every float around A, S, U and VT unchanged; a failed matrix's S, U
 *   and VT NaN;
 * - the singular values descending and within 30 max(m, n) eps ||A||_F of the reference's (where
 *   it converged);
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
  [33, 33], [40, 33], [33, 40], [47, 60], [64, 64], [100, 65], [65, 100], [128, 128], [200, 150], [150, 200],
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
    // The reference is Jacobi: its time grows fast with k.
    count: Math.min(m, n) <= 100 ? 8 : 5,
  }));
}


/** The members: the kinds in turn, the last with NaN (even k) or -Inf (odd k) at a random element. */
function members(c: Case, rng: Rng): { as: Z[]; failing: boolean[] } {
  const as: Z[] = [], failing: boolean[] = [];
  for (let q = 0; q < c.count; q++) {
    const g = generalCase(rng, GENERAL_KINDS[q % GENERAL_KINDS.length]!, c.m, c.n);
    const z = zeros(c.m, c.n);
    for (let j = 0; j < c.n; j++) for (let i = 0; i < c.m; i++) { const [re, im] = get(g, i, j); set(z, i, j, roundTo(c.dtype, re), roundTo(c.dtype, im)); }
    const bad = q === c.count - 1 ? (Math.min(c.m, c.n) % 2 === 0 ? NaN : -Infinity) : undefined;
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
before(() => (skip !== undefined ? undefined : warmFileKernels('zgesvd-large', (ctx, planning) => {
  if (planning === undefined) return;
  const dev = planning.device;
  for (const dtype of TYPES) for (const vectors of ['both', 'one', 'none'] as const) for (const c of casesOf(dtype, vectors)) {
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
  test(`gesvd ${dtype}, vectors ${vectors}: k = 33 ... 150, tall, wide and square, strided and list, device and host data, NaN and Inf among good matrices`, { skip, timeout: 1_800_000 }, () => {
    const { ctx } = gpuContext();
    const eps = DTYPE_EPS[dtype === 'complex128' ? 'float64' : 'float32'];
    for (const c of casesOf(dtype, vectors)) {
      const { m, n } = c;
      const k = Math.min(m, n);
      const name = `gesvd ${dtype} ${m}x${n} ${c.wantU ? 'U' : '-'}${c.wantVt ? 'VT' : '-'}, ${c.count} ${c.layout.kind} on the ${c.where}`;
      const rng = new Rng(m * 131 + n * 7 + 5003 + (dtype === 'complex64' ? 1 : 0) + { both: 0, one: 2, none: 4 }[vectors]);
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
      // On a graded matrix the reference (one-sided Jacobi) may stop at its sweep limit (k + 1) where
      // the bidiagonalization converges; its values are then not the yardstick.
      wantInfo.forEach((x, p) => assert.ok(failing[p] ? x === k + 2 : x === 0 || x === k + 1, `${name}: the reference's info ${x} for matrix ${p}`));

      const info = gesvdOn(ctx, c.where, A, S, U, VT);
      assert.deepEqual(ctx.lastRoute, { op: 'gesvd', route: 'bidiag', gpu: true }, name);
      assert.deepEqual(info, failing.map((f) => (f ? k + 2 : 0)), `${name}: info`);
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
          if (wantInfo[p] === 0) assert.ok(Math.abs(s[j]! - sRef[j]!) <= THRESHOLD * Math.max(m, n) * eps * anorm, `${at}: s[${j}] = ${s[j]}, the reference's ${sRef[j]}`);
          if (j > 0) assert.ok(s[j - 1]! >= s[j]!, `${at}: s descending at ${j}`);
        }
        if (u) { const r = unitaryResidual(u, eps); assert.ok(r < THRESHOLD, `${at}: ||U^H U - I|| / (k eps) = ${r}`); }
        if (vt) { const r = unitaryResidual(op(vt, 'C'), eps); assert.ok(r < THRESHOLD, `${at}: ||VT VT^H - I|| / (k eps) = ${r}`); }
        if (u && vt) { const r = svdResidual(a, u, s, vt, eps); assert.ok(r < THRESHOLD, `${at}: ||A - U S VT|| / (max(m, n) ||A|| eps) = ${r}`); }
      }
    }
  });
}
