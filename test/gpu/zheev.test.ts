/**
 * Complex heev on the GPU (zjacobi/: the warp Jacobi design, n <= 32; complex128 and complex64)
 * against the complex reference (cpu/complex/zheev.ts) on fresh random data: n = 1, 2, 3, 5, 8, 16,
 * 31, 32 and 33 (the tridiagonal design, route 'tridiag': test/gpu/zheev-large.test.ts has its orders), with and without vectors, lower and upper,
 * strided batches with ragged leading dimensions (ld = n + 1 ... n + 3), gaps and an offset, and
 * list batches of separate arrays (W a list too); device data and host data (staged) in turn. Each
 * batch mixes random, clustered, repeated, diagonal (converged from the start), zero, graded and
 * positive definite Hermitian matrices with ones holding NaN or Inf in their triangle; every matrix
 * carries NaN in the diagonal's imaginary parts and in the triangle not referenced (neither may be
 * read). W is poisoned with NaN before the call. Checked:
 * - ctx.lastRoute: 'jacobi' on the GPU for n <= 32, 'tridiag' at 33;
 * - info per matrix exactly the reference's (n + 2 for NaN and Inf, 0 for the rest);
 * - every float outside the matrices and outside W unchanged; with 'values' A unchanged bit for bit;
 *   a failed matrix's W (and with vectors its A) NaN;
 * - the eigenvalues ascending and within n eps ||A||_F of the reference's;
 * - with vectors, ||A V - V diag(w)||_F / (n ||A||_F eps) and ||V^H V - I||_F / (n eps) below 30
 *   (eps the machine epsilon of the parts' type: 2^-52, 2^-23).
 * The file's kernels are compiled at once before the first case. Skips with one line where no GPU
 * is usable.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { newReferenceContext } from '../../src/api/context.js';
import { list, strided, type Batch } from '../../src/core/batch.js';
import { DTYPE_EPS, type ComplexDType } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import type { DeviceStorage } from '../../src/core/storage.js';
import { get, hermitianFrom, place, set, zeros, type Layout, type Z } from '../helpers/complex.js';
import { gpuContext, gpuSkipReason, onDevice, warmFileKernels } from '../helpers/gpu.js';
import { HERMITIAN_KINDS, hermitianCase, heevResidual, unitaryResidual } from '../helpers/zjacobi-cases.js';
import { Rng } from '../helpers/random.js';

const skip = gpuSkipReason();
const TYPES: readonly ComplexDType[] = ['complex128', 'complex64'];
const ORDERS = [1, 2, 3, 5, 8, 16, 31, 32, 33];
const THRESHOLD = 30;
const SENTINEL = -777.25;

type Jobz = 'vectors' | 'values';
interface Case { dtype: ComplexDType; n: number; jobz: Jobz; uplo: Uplo; layout: Layout; where: 'device' | 'host'; count: number }

function casesOf(dtype: ComplexDType, jobz: Jobz): Case[] {
  return ORDERS.map((n, i) => ({
    dtype, n, jobz,
    uplo: (i + (jobz === 'values' ? 1 : 0)) % 2 === 0 ? 'lower' : 'upper',
    layout: i % 3 === 2 ? { kind: 'list', pad: 1 + (n % 2), gap: 0, offset: 3 } : { kind: 'strided', pad: 1 + (n % 3), gap: 5, offset: 7 },
    where: (i + (dtype === 'complex64' ? 1 : 0)) % 2 === 0 ? 'device' : 'host',
    count: n <= 8 ? 40 : 15,
  }));
}

const inTriangle = (uplo: Uplo, i: number, j: number): boolean => (uplo === 'lower' ? i >= j : i <= j);
const roundTo = (dtype: ComplexDType, x: number): number => (dtype === 'complex64' ? Math.fround(x) : x);

/** The members as stored: the kinds in turn, member 4 (mod 9) with NaN and member 6 (mod 11) with Inf in the triangle; junk where heev must not read. */
function members(c: Case, rng: Rng): { stored: Z[]; hermitian: Z[]; failing: boolean[] } {
  const stored: Z[] = [], hermitian: Z[] = [], failing: boolean[] = [];
  for (let q = 0; q < c.count; q++) {
    const h = hermitianCase(rng, HERMITIAN_KINDS[q % HERMITIAN_KINDS.length]!, c.n);
    const m = zeros(c.n, c.n);
    for (let j = 0; j < c.n; j++) for (let i = 0; i < c.n; i++) {
      const [re, im] = get(h, i, j);
      if (!inTriangle(c.uplo, i, j)) set(m, i, j, NaN, NaN);
      else set(m, i, j, roundTo(c.dtype, re), i === j ? NaN : roundTo(c.dtype, im));
    }
    hermitian.push(hermitianFrom(m, c.uplo));
    const bad = q % 9 === 4 ? NaN : q % 11 === 6 ? -Infinity : undefined;
    if (bad !== undefined) {
      const i = rng.int(0, c.n - 1), j = rng.int(0, c.n - 1);
      const [r, s] = inTriangle(c.uplo, i, j) ? [i, j] : [j, i];
      if (r === s) set(m, r, r, bad, get(m, r, r)[1]);
      else set(m, r, s, get(m, r, s)[0], bad);
    }
    stored.push(m);
    failing.push(bad !== undefined);
  }
  return { stored, hermitian, failing };
}

/** W: a real batch of the parts' type, NaN inside (poisoned), SENTINEL around; strided at an offset and stride, or a list of arrays. */
function placeW(c: Case): { batch: Batch<Float64Array | Float32Array>; read(p: number): number[]; outside(): number[] } {
  const make = (len: number): Float64Array | Float32Array => (c.dtype === 'complex64' ? new Float32Array(len) : new Float64Array(len)).fill(SENTINEL);
  if (c.layout.kind === 'strided') {
    const stride = c.n + 2;
    const data = make(3 + stride * c.count + 1);
    for (let p = 0; p < c.count; p++) data.fill(NaN, 3 + p * stride, 3 + p * stride + c.n);
    const inside = (k: number): boolean => k >= 3 && (k - 3) % stride < c.n && k < 3 + stride * c.count;
    return {
      batch: strided(data, { rows: c.n, cols: 1, stride, offset: 3, count: c.count }),
      read: (p) => [...data.subarray(3 + p * stride, 3 + p * stride + c.n)],
      outside: () => [...data].filter((_, k) => !inside(k)),
    };
  }
  const arrays = Array.from({ length: c.count }, () => { const d = make(c.n + 3); d.fill(NaN, 1, 1 + c.n); return d; });
  return {
    batch: list(arrays.map((data) => ({ data, offset: 1 })), { rows: c.n, cols: 1 }),
    read: (p) => [...arrays[p]!.subarray(1, 1 + c.n)],
    outside: () => arrays.flatMap((d) => [...d].filter((_, k) => k < 1 || k >= 1 + c.n)),
  };
}

/** Every kernel of the file, compiled at once (the calls made on a device that runs nothing). */
before(() => warmFileKernels('zheev', (ctx, planning) => {
  if (planning === undefined) return;
  const dev = planning.device;
  for (const dtype of TYPES) for (const jobz of ['vectors', 'values'] as const) for (const c of casesOf(dtype, jobz)) {
    const part = dtype === 'complex128' ? 'float64' : 'float32';
    const ld = c.n + c.layout.pad;
    const a = c.layout.kind === 'list'
      ? list(Array.from({ length: c.count }, () => dev.alloc(part, 2 * (ld * c.n + c.layout.offset))), { rows: c.n, ld, dtype })
      : strided(dev.alloc(part, 2 * (c.layout.offset + (ld * c.n + c.layout.gap) * c.count)), { rows: c.n, ld, stride: ld * c.n + c.layout.gap, offset: c.layout.offset, count: c.count, dtype });
    const w = c.layout.kind === 'list'
      ? list(Array.from({ length: c.count }, () => dev.alloc(part, c.n + 1)), { rows: c.n, cols: 1 })
      : strided(dev.alloc(part, 3 + (c.n + 2) * c.count), { rows: c.n, cols: 1, stride: c.n + 2, offset: 3, count: c.count });
    ctx.heev({ jobz: c.jobz, uplo: c.uplo, a, w });
  }
}));

for (const dtype of TYPES) for (const jobz of ['vectors', 'values'] as const) {
  test(`heev ${dtype} ${jobz}: n = ${ORDERS.join(', ')}, strided and list, device and host data, NaN and Inf among good matrices`, { skip, timeout: 300_000 }, () => {
    const { ctx } = gpuContext();
    const eps = DTYPE_EPS[dtype === 'complex128' ? 'float64' : 'float32'];
    for (const c of casesOf(dtype, jobz)) {
      const name = `heev ${dtype} ${jobz} ${c.uplo} n = ${c.n}, ${c.count} ${c.layout.kind} on the ${c.where}`;
      const rng = new Rng(c.n * 131 + (dtype === 'complex64' ? 1 : 0) + (jobz === 'values' ? 2 : 0));
      const { stored, hermitian, failing } = members(c, rng);
      const A = place(stored, c.n, c.n, dtype, c.layout, SENTINEL);
      const W = placeW(c);
      const inputs = stored.map((_, p) => A.read(p));
      const [outsideA, outsideW] = [A.outside(), W.outside()];

      // The reference on its own copies.
      const refA = place(stored, c.n, c.n, dtype, c.layout, SENTINEL);
      const refW = placeW(c);
      const ref = newReferenceContext();
      const wantInfo = [...(ref.heev({ jobz: 'values', uplo: c.uplo, a: refA.batch, w: refW.batch }).info as Int32Array)];
      ref.dispose();
      assert.deepEqual(wantInfo, failing.map((f) => (f ? c.n + 2 : 0)), `${name}: the reference's info`);

      let info: number[];
      if (c.where === 'host') {
        info = [...(ctx.heev({ jobz, uplo: c.uplo, a: A.batch, w: W.batch }).info as Int32Array)];
      } else {
        const dA = onDevice(ctx, A.batch), dW = onDevice(ctx, W.batch);
        try {
          info = [...(ctx.download(ctx.heev({ jobz, uplo: c.uplo, a: dA.batch, w: dW.batch }).info as DeviceStorage) as Int32Array)];
          dA.back();
          dW.back();
        } finally {
          dA.dispose();
          dW.dispose();
        }
      }
      assert.deepEqual(ctx.lastRoute, { op: 'heev', route: c.n <= 32 ? 'jacobi' : 'tridiag', gpu: true }, name);
      assert.deepEqual(info, wantInfo, `${name}: info`);
      assert.deepEqual(A.outside().map(String), outsideA.map(String), `${name}: A's padding and gaps changed`);
      assert.deepEqual(W.outside().map(String), outsideW.map(String), `${name}: W's surroundings changed`);

      for (let p = 0; p < c.count; p++) {
        const at = `${name}: matrix ${p}`;
        const w = W.read(p);
        const out = A.read(p);
        if (jobz === 'values') assert.deepEqual([...out.d].map(String), [...inputs[p]!.d].map(String), `${at}: A changed with 'values'`);
        if (failing[p]) {
          assert.ok(w.every(Number.isNaN), `${at}: W NaN`);
          if (jobz === 'vectors') assert.ok(out.d.every(Number.isNaN), `${at}: A NaN`);
          continue;
        }
        const a = hermitian[p]!;
        let anorm = 0;
        for (const x of a.d) anorm += x * x;
        anorm = Math.sqrt(anorm);
        const wRef = refW.read(p);
        for (let j = 0; j < c.n; j++) {
          assert.ok(Math.abs(w[j]! - wRef[j]!) <= c.n * eps * anorm, `${at}: w[${j}] = ${w[j]}, the reference's ${wRef[j]} (n eps ||A|| = ${c.n * eps * anorm})`);
          if (j > 0) assert.ok(w[j - 1]! <= w[j]!, `${at}: w ascending at ${j}`);
        }
        if (jobz === 'values') continue;
        const res = heevResidual(a, out, w, eps);
        const orth = unitaryResidual(out, eps);
        assert.ok(res < THRESHOLD, `${at}: ||A V - V diag(w)|| / (n ||A|| eps) = ${res}`);
        assert.ok(orth < THRESHOLD, `${at}: ||V^H V - I|| / (n eps) = ${orth}`);
      }
    }
  });
}
