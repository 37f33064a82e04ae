/**
 * Batched getri on a real GPU (skipped where none is usable): inv(A) from getrf's factors through
 * the composition of the getri family (prepare, trtri, trsm, finish), against the CPU reference
 * on the same buffers and, independently of it, by LAPACK's ratio ||A X - I||_1 / (n ||A||_1
 * ||X||_1 eps) < 30 with A the matrix before getrf. Fresh random matrices, factored by the CPU
 * getrf: uniform (pivots anywhere), rows of a diagonally dominant matrix shuffled (pivots that
 * undo the shuffle), ill-conditioned (U diag(s) V^T, cond 1e3); the difference to the reference
 * within 64 n eps cond_1(A) in the 1-norm. Singular matrices among good ones (an exact zero on U's
 * diagonal, -0 and two zeros included): info as the reference (the first zero), the matrix bit for
 * bit as it was. A NaN on U's diagonal: info 0, the NaN kept inside its matrix. Everything outside
 * the matrices (ld > n, gaps between them, the offset) is NaN and must come back bit for bit; info
 * is poisoned before the call and checked past the count too. Strided n = 1 ... 40 (sampled), 64,
 * 100, 128, 256 and 520 (trsm's inverted diagonal blocks); a variable batch of every n from 0 to 40
 * shuffled; list batches in reverse order; forced launch shapes and runs of matrices; n = 0 and
 * count = 0; both dtypes. Through a CUDA context: the GPU route, host and device data, and a
 * captured getri replaying the plain call bit for bit.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { open } from '../../src/api/open.js';
import { list, strided, variable, type Batch } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import { cpuGetrf, cpuGetri, geqr2, org2r } from '../../src/cpu/lapack/index.js';
import { getriCuda, type GetriOptions } from '../../src/cuda/kernels/getri/index.js';
import { choose } from '../../src/cuda/router.js';
import type { DeviceArray } from '../../src/cuda/runtime/index.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';

const skip = gpuSkipReason();
const EPS: Record<DType, number> = { float64: 2 ** -52, float32: 2 ** -23 };
const LIMIT = 30;
const DTYPES: DType[] = ['float64', 'float32'];

/** What a matrix is: before getrf (random, shuffled, ill), or after it (a zero or two on U's diagonal, a NaN there). */
type Kind = 'random' | 'shuffled' | 'ill' | 'singular' | 'first' | 'nan';
const MIX: readonly Kind[] = ['random', 'shuffled', 'singular', 'random', 'ill', 'first', 'shuffled', 'nan', 'random'];

const same = (x: number, y: number): boolean => Object.is(x, y) || (Number.isNaN(x) && Number.isNaN(y));

/** An orthonormal n x n matrix (Q of a random matrix), float64. */
function orthonormal(rng: Rng, n: number): Float64Array {
  const f = Float64Array.from({ length: n * n }, () => rng.uniform());
  const tau = new Float64Array(n);
  geqr2(f, tau, n, n);
  org2r(f, tau, n, n, n);
  return f;
}

/** One n x n matrix (dense, ld n) before getrf, rounded to dtype. */
function matrix(rng: Rng, kind: Kind, n: number, dtype: DType): Float64Array {
  let a: Float64Array;
  if (kind === 'shuffled') {
    const perm = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) { const j = rng.int(0, i); [perm[i], perm[j]] = [perm[j]!, perm[i]!]; }
    a = new Float64Array(n * n);
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) a[perm[i]! + j * n] = i === j ? (rng.uniform() < 0 ? -1 : 1) * (n + rng.uniform(1, 2)) : rng.uniform();
  } else if (kind === 'ill' && n > 1) {
    const u = orthonormal(rng, n), v = orthonormal(rng, n);
    a = new Float64Array(n * n);
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
      let s = 0;
      for (let p = 0; p < n; p++) s += u[i + p * n]! * 10 ** (-3 * p / (n - 1)) * v[j + p * n]!;
      a[i + j * n] = s;
    }
  } else {
    a = Float64Array.from({ length: n * n }, () => rng.uniform());
  }
  return dtype === 'float32' ? a.map(Math.fround) : a;
}

interface Case {
  readonly dtype: DType;
  readonly form: 'strided' | 'list' | 'variable';
  readonly sizes: readonly number[];
  readonly kinds: readonly Kind[];
}

/** Where matrix i lies in the buffer: offset and ld; the buffer's length. */
interface Placement { readonly offs: readonly number[]; readonly lds: readonly number[]; readonly length: number; readonly stride: number }

function place(c: Case): Placement {
  const count = c.sizes.length;
  const n0 = c.sizes[0] ?? 0;
  if (c.form === 'strided') {
    const ld = n0 + 1 + (n0 % 3), stride = ld * Math.max(1, n0) + 3, offset = 5;
    return { offs: c.sizes.map((_, i) => offset + i * stride), lds: c.sizes.map(() => ld), length: offset + count * stride + 4, stride };
  }
  // List: one ld, the matrices in reverse order in the buffer (so the pointer array runs backwards); variable: an ld each.
  const lds = c.sizes.map((n, i) => (c.form === 'list' ? n0 + 2 : n + 1 + ((n + i) % 3)));
  const offs = new Array<number>(count);
  let at = 3;
  for (let q = 0; q < count; q++) {
    const i = c.form === 'list' ? count - 1 - q : q;
    offs[i] = at;
    at += lds[i]! * Math.max(1, c.sizes[i]!) + 2 + (q % 2);
  }
  return { offs, lds, length: at + 3, stride: 0 };
}

function batchOf<S extends FloatArray | DeviceArray>(c: Case, p: Placement, data: S): Batch<S> {
  const count = c.sizes.length;
  const n0 = c.sizes[0] ?? 0;
  if (c.form === 'strided') return strided(data, { rows: n0, cols: n0, count, ld: p.lds[0] ?? 1, stride: p.stride, offset: p.offs[0] ?? 0 });
  if (c.form === 'list') return list(p.offs.map((offset) => ({ data, offset })), { rows: n0, cols: n0, ld: p.lds[0]! });
  return variable(c.sizes.map((n, i) => ({ data, rows: n, cols: n, ld: p.lds[i]!, offset: p.offs[i]! })));
}

/** ||M||_1 of an n x n matrix read by `at(i, j)`. */
function norm1(n: number, at: (i: number, j: number) => number): number {
  let best = 0;
  for (let j = 0; j < n; j++) { let s = 0; for (let i = 0; i < n; i++) s += Math.abs(at(i, j)); best = Math.max(best, s); }
  return best;
}

/**
 * Runs the case on the GPU (getriCuda with `opts`, the router's choice checked) and on the CPU
 * reference, and compares as the header says.
 */
function check(rng: Rng, c: Case, what: string, opts: GetriOptions = {}): void {
  const dev = gpu();
  const count = c.sizes.length;
  const p = place(c);
  const pivotStride = Math.max(0, ...c.sizes);
  const buffer = allocate(c.dtype, p.length).fill(NaN);
  const originals = c.sizes.map((n, i) => {
    const a = matrix(rng, c.kinds[i]!, n, c.dtype);
    for (let j = 0; j < n; j++) for (let r = 0; r < n; r++) buffer[p.offs[i]! + r + j * p.lds[i]!] = a[r + j * n]!;
    return a;
  });
  const ipiv = new Int32Array(count * pivotStride + 2).fill(-5);
  const factorInfo = new Int32Array(count);
  cpuGetrf({ a: batchOf(c, p, buffer), ipiv, pivotStride, info: factorInfo });
  assert.deepEqual([...factorInfo], new Array(count).fill(0), `${what}: the test matrices factor`);
  c.sizes.forEach((n, i) => {
    if (n === 0) return;
    const diag = (j: number): number => p.offs[i]! + j * (p.lds[i]! + 1);
    const kind = c.kinds[i]!;
    if (kind === 'singular') buffer[diag(rng.int(0, n - 1))] = 0;
    if (kind === 'first') { buffer[diag(n - 1)] = 0; buffer[diag(Math.floor(n / 2))] = -0; }
    if (kind === 'nan') buffer[diag(rng.int(0, n - 1))] = NaN;
  });
  const want = buffer.slice();
  const refInfo = new Int32Array(count);
  cpuGetri({ a: batchOf(c, p, want), ipiv, pivotStride, info: refInfo });

  const dA = dev.upload(buffer), dPiv = dev.upload(ipiv), dInfo = dev.upload(new Int32Array(count + 2).fill(-7));
  try {
    const r = { a: batchOf(c, p, dA), ipiv: dPiv, pivotStride, info: dInfo };
    assert.equal(choose('getri', r, dev).name, 'getri', `${what}: the router's choice`);
    getriCuda(dev, r, opts);
    const info = dev.download(dInfo) as Int32Array;
    assert.deepEqual([...info], [...refInfo, -7, -7], `${what}: info (and past the count)`);
    const got = dev.download(dA) as FloatArray;
    const owner = new Int32Array(p.length).fill(-1);
    c.sizes.forEach((n, i) => { for (let j = 0; j < n; j++) for (let r0 = 0; r0 < n; r0++) owner[p.offs[i]! + r0 + j * p.lds[i]!] = i; });
    for (let e = 0; e < p.length; e++) {
      const i = owner[e]!;
      if (i >= 0 && refInfo[i] === 0) continue;
      assert.ok(same(got[e]!, want[e]!), `${what}: element ${e} is ${got[e]}, expected ${want[e]} (${i < 0 ? 'outside the matrices' : `singular matrix ${i}`}: unchanged)`);
    }
    const eps = EPS[c.dtype];
    c.sizes.forEach((n, i) => {
      if (refInfo[i] !== 0 || n === 0) return;
      const x = (q: number, j: number): number => got[p.offs[i]! + q + j * p.lds[i]!]!;
      const xr = (q: number, j: number): number => want[p.offs[i]! + q + j * p.lds[i]!]!;
      if (c.kinds[i] === 'nan') {
        let nan = false;
        for (let j = 0; j < n; j++) for (let q = 0; q < n; q++) nan ||= Number.isNaN(x(q, j));
        assert.ok(nan, `${what}: matrix ${i}'s NaN on U's diagonal shows in its inverse`);
        return;
      }
      const a0 = originals[i]!;
      const normA = norm1(n, (q, j) => a0[q + j * n]!);
      const normRef = norm1(n, xr);
      const diff = norm1(n, (q, j) => x(q, j) - xr(q, j));
      const cond = normA * normRef;
      assert.ok(diff <= 64 * n * eps * cond * normRef, `${what}: matrix ${i} (${c.kinds[i]}): ||X - Xref||_1 = ${diff}, ||Xref||_1 = ${normRef}, cond ${cond}`);
      // A X - I, in float64.
      const ax = new Float64Array(n * n);
      for (let j = 0; j < n; j++) for (let k = 0; k < n; k++) {
        const xkj = x(k, j);
        for (let q = 0; q < n; q++) ax[q + j * n] += a0[q + k * n]! * xkj;
      }
      for (let j = 0; j < n; j++) ax[j + j * n] -= 1;
      const ratio = norm1(n, (q, j) => ax[q + j * n]!) / (n * normA * norm1(n, x) * eps);
      assert.ok(ratio < LIMIT, `${what}: matrix ${i} (${c.kinds[i]}): ||A X - I|| / (n ||A|| ||X|| eps) = ${ratio}`);
    });
  } finally {
    dA.dispose(); dPiv.dispose(); dInfo.dispose();
  }
}

const mix = (count: number, offset = 0): Kind[] => Array.from({ length: count }, (_, i) => MIX[(i + offset) % MIX.length]!);

test('getri, strided: n = 1 ... 40 sampled, 64, 100, 128, 256, 520; both dtypes; singular and NaN members; NaN padding', { skip, timeout: 600_000 }, () => {
  const rng = new Rng(3101);
  for (const dtype of DTYPES) {
    for (const n of [1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 23, 31, 32, 33, 40, 64, 100, 128, 256, 520]) {
      const count = n <= 40 ? 11 : n <= 128 ? 5 : n <= 256 ? 3 : 2;
      const kinds = n <= 256 ? mix(count, n) : (['shuffled', 'singular'] as Kind[]);
      check(rng, { dtype, form: 'strided', sizes: new Array<number>(count).fill(n), kinds }, `${dtype} strided n=${n} count=${count}`);
    }
  }
});

test('getri, ragged: a variable batch of every n from 0 to 40, shuffled, with singular and NaN members; list batches in reverse order', { skip, timeout: 300_000 }, () => {
  const rng = new Rng(3102);
  for (const dtype of DTYPES) {
    const sizes = Array.from({ length: 41 }, (_, n) => n);
    for (let i = sizes.length - 1; i > 0; i--) { const j = rng.int(0, i); [sizes[i], sizes[j]] = [sizes[j]!, sizes[i]!]; }
    check(rng, { dtype, form: 'variable', sizes, kinds: mix(sizes.length) }, `${dtype} variable 0..40`);
    check(rng, { dtype, form: 'variable', sizes: [3, 100, 3, 64, 1, 100], kinds: mix(6, 2) }, `${dtype} variable 3, 100, 64`);
    for (const n of [9, 33, 100]) check(rng, { dtype, form: 'list', sizes: new Array<number>(6).fill(n), kinds: mix(6, n) }, `${dtype} list n=${n}`);
  }
});

test('getri: forced launch shapes (several matrices a block, columns split) and runs of matrices; n = 0; count = 0', { skip, timeout: 300_000 }, () => {
  const rng = new Rng(3103);
  for (const dtype of DTYPES) {
    const shape = { threads: 32, matrices: 3, columns: 2, columnBlocks: 0 };
    check(rng, { dtype, form: 'strided', sizes: new Array<number>(10).fill(7), kinds: mix(10) }, `${dtype} n=7 shape ${JSON.stringify(shape)}`, { force: { shape } });
    check(rng, { dtype, form: 'strided', sizes: new Array<number>(4).fill(50), kinds: mix(4) }, `${dtype} n=50, columns of 5`, { force: { shape: { ...shape, threads: 64, matrices: 1, columns: 5 } } });
    const bytes = dtype === 'float64' ? 8 : 4;
    check(rng, { dtype, form: 'strided', sizes: new Array<number>(7).fill(50), kinds: mix(7, 1) }, `${dtype} n=50 runs of 2`, { force: { workspaceBytes: 2 * 50 * 50 * bytes } });
    check(rng, { dtype, form: 'variable', sizes: [20, 5, 30, 0, 30, 8, 20], kinds: mix(7, 3) }, `${dtype} variable, runs within 1000 elements`, { force: { workspaceBytes: 1000 * bytes } });
    check(rng, { dtype, form: 'strided', sizes: [0, 0, 0], kinds: mix(3) }, `${dtype} n=0`);
    check(rng, { dtype, form: 'strided', sizes: [], kinds: [] }, `${dtype} count=0`);
  }
});

test('getri through a CUDA context: the GPU route on host and device data; a captured getri replays the plain call bit for bit', { skip, timeout: 120_000 }, async () => {
  const rng = new Rng(3104);
  const ctx = open({ backend: 'cuda' });
  try {
    for (const n of [24, 100]) {
      const count = 4;
      const host = new Float64Array(n * n * count);
      for (let m = 0; m < count; m++) host.set(matrix(rng, 'random', n, 'float64'), m * n * n);
      const ipiv = new Int32Array(n * count);
      cpuGetrf({ a: strided(host, { rows: n, count }), ipiv, pivotStride: n, info: new Int32Array(count) });
      const want = host.slice();
      cpuGetri({ a: strided(want, { rows: n, count }), ipiv, pivotStride: n, info: new Int32Array(count) });
      const tol = 1e-9;
      const close = (got: ArrayLike<number>, what: string): void => {
        for (let e = 0; e < want.length; e++) assert.ok(Math.abs(got[e]! - want[e]!) <= tol * Math.max(1, Math.abs(want[e]!)), `${what} n=${n}: element ${e}`);
      };

      const onHost = host.slice();
      const r = ctx.getri({ a: strided(onHost, { rows: n, count }), ipiv });
      assert.deepEqual(ctx.lastRoute, { op: 'getri', route: 'getri', gpu: true });
      assert.deepEqual([...(r.info as Int32Array)], [0, 0, 0, 0]);
      close(onHost, 'host data');

      const lu = ctx.upload(host), a = ctx.alloc('float64', host.length), dPiv = ctx.upload(ipiv), info = ctx.alloc('int32', count);
      const call = (): void => { ctx.getri({ a: strided(a, { rows: n, count }), ipiv: dPiv, info }); };
      ctx.copy(lu, a);
      call();
      assert.deepEqual(ctx.lastRoute, { op: 'getri', route: 'getri', gpu: true });
      await ctx.synchronize();
      const plain = ctx.download(a) as Float64Array;
      close(plain, 'device data');
      ctx.copy(lu, a);
      const pipeline = ctx.capture(call);
      await ctx.synchronize();
      assert.deepEqual(ctx.download(a), plain, 'the first run of capture()');
      for (let k = 0; k < 2; k++) {
        ctx.copy(lu, a);
        pipeline.replay();
        await ctx.synchronize();
        assert.deepEqual(ctx.download(a), plain, `replay ${k}`);
        assert.deepEqual([...(ctx.download(info) as Int32Array)], [0, 0, 0, 0]);
      }
      pipeline.dispose();
    }
  } finally {
    ctx.dispose();
  }
});
