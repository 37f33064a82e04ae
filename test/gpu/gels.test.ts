/**
 * Batched gels on a real GPU (skipped where none is usable): least squares (m >= n) and minimum
 * norm (m < n) through the composition of geqrf, ormqr and trsm, both dtypes, tall, square and
 * wide, 1 and 7 right-hand sides. Checked without a second implementation where it can be:
 * m >= n by the normal equations, ||A^T (A X - B)|| / (max(m, n) eps ||A|| (||A|| ||X|| + ||B||));
 * m < n by A X = B, ||A X - B|| / (max(m, n) eps (||A|| ||X|| + ||B||)), and, for random A, X in
 * A's row space (X's part outside it, through a float64 QR of A^T, in units of n eps ||X||); all
 * below 30 (the CPU reference's test uses the same ratios). Against the CPU reference on the same
 * buffers: info (poisoned before the call) for every matrix, B bit for bit where info > 0 (B as
 * given) and where A is zero (X = 0), and the factors left in A for random matrices. Matrices:
 * random, ill-conditioned (U diag(s) V^T with s from 1 to 1e-6), rank-deficient (a zero column,
 * tall, or a zero row, wide: info > 0), zero, and NaN in one matrix of a good batch (the others
 * unaffected). Odd ld, stride and offset with NaN padding that must come back untouched; list
 * batches (pointer arrays, reverse order) and variable batches mixing tall and wide shapes; a CUDA
 * context's calls on host arrays, one size beyond the QR tile falling back to the CPU reference;
 * cuBLAS's gelsBatched (the benchmark's baseline) on the same data.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Context } from '../../src/api/context.js';
import { list, strided, variable, type Batch } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import { cpuGels, geqr2, org2r } from '../../src/cpu/lapack/qr.js';
import { Cublas, batchPointers } from '../../src/cuda/baselines/index.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { gelsCovers, gelsCuda } from '../../src/cuda/kernels/gels/index.js';
import { gpuCovers } from '../../src/cuda/router.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/index.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';

const skip = gpuSkipReason();
const EPS: Record<DType, number> = { float64: 2 ** -52, float32: 2 ** -23 };
const LIMIT = 30;
const DTYPES: DType[] = ['float64', 'float32'];

type Kind = 'random' | 'ill' | 'rank' | 'zero' | 'nan';
const MIX: readonly Kind[] = ['random', 'ill', 'random', 'rank', 'zero', 'random'];

const fro = (a: ArrayLike<number>): number => { let s = 0; for (let q = 0; q < a.length; q++) s += a[q]! * a[q]!; return Math.sqrt(s); };
const round = (dtype: DType) => (v: number): number => (dtype === 'float32' ? Math.fround(v) : v);

/** C (m x p) = op(A) B with A m x k ('N') or k x m ('T'), all dense column-major float64. */
function matmul(a: ArrayLike<number>, b: ArrayLike<number>, m: number, k: number, p: number, transA = false): Float64Array {
  const c = new Float64Array(m * p);
  for (let j = 0; j < p; j++) for (let i = 0; i < m; i++) {
    let s = 0;
    for (let q = 0; q < k; q++) s += (transA ? a[q + i * k]! : a[i + q * m]!) * b[q + j * k]!;
    c[i + j * m] = s;
  }
  return c;
}

/** The first k columns of Q of a random rows x k matrix (orthonormal), float64. */
function orthonormal(rng: Rng, rows: number, k: number): Float64Array {
  const f = Float64Array.from({ length: rows * k }, () => rng.uniform());
  const tau = new Float64Array(k);
  geqr2(f, tau, rows, k);
  org2r(f, tau, rows, k, k);
  return f;
}

/** One m x n matrix of `kind` (dense, ld m), rounded to dtype. */
function matrix(rng: Rng, kind: Kind, m: number, n: number, dtype: DType): Float64Array {
  const k = Math.min(m, n);
  let a: Float64Array;
  if (kind === 'ill' && k > 1) {
    // U diag(s) V^T, s_j = 10^(-6 j / (k - 1)): cond 1e6.
    const u = orthonormal(rng, m, k), v = orthonormal(rng, n, k);
    a = new Float64Array(m * n);
    for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) {
      let s = 0;
      for (let p = 0; p < k; p++) s += u[i + p * m]! * 10 ** (-6 * p / (k - 1)) * v[j + p * n]!;
      a[i + j * m] = s;
    }
  } else {
    a = Float64Array.from({ length: m * n }, () => rng.uniform());
  }
  if (kind === 'zero') a.fill(0);
  // A zero column (tall: R(j, j) = 0 exactly) or row (wide: the column of A^T), j = k / 2.
  if (kind === 'rank') for (let q = 0; q < (m >= n ? m : n); q++) a[m >= n ? q + Math.floor(k / 2) * m : Math.floor(k / 2) + q * m] = 0;
  if (kind === 'nan') a[Math.floor((m * n) / 2)] = NaN;
  return a.map(round(dtype));
}

interface System { m: number; n: number; nrhs: number; kind: Kind }
type Form = 'strided' | 'list' | 'variable';

/**
 * One batch of systems on the GPU (gelsCuda) against cpuGels on the same buffers and the ratios.
 * 'strided' and 'list' need one shape; 'variable' takes any mix.
 */
function check(dev: GpuDevice, rng: Rng, dtype: DType, systems: readonly System[], form: Form, what: string): void {
  const count = systems.length;
  const eps = EPS[dtype];
  // One buffer per operand; each matrix with an odd ld and a gap, NaN everywhere else.
  const aLd = systems.map((s) => s.m + 1 + (s.m % 2)), bLd = systems.map((s) => Math.max(s.m, s.n) + 1 + (Math.max(s.m, s.n) % 2));
  const aOff: number[] = [], bOff: number[] = [];
  let aLen = 5, bLen = 3;
  // 'list' puts the matrices in reverse order in memory.
  const order = form === 'list' ? [...systems.keys()].reverse() : [...systems.keys()];
  for (const i of order) { aOff[i] = aLen; aLen += aLd[i]! * systems[i]!.n + 3; bOff[i] = bLen; bLen += bLd[i]! * systems[i]!.nrhs + 2; }
  const A = allocate(dtype, aLen + 2).fill(NaN), B = allocate(dtype, bLen + 2).fill(NaN);
  const mats = systems.map((s) => matrix(rng, s.kind, s.m, s.n, dtype));
  const rhs = systems.map((s) => Float64Array.from({ length: Math.max(s.m, s.n) * s.nrhs }, () => rng.uniform()).map(round(dtype)));
  systems.forEach((s, i) => {
    const rows = Math.max(s.m, s.n);
    for (let j = 0; j < s.n; j++) for (let p = 0; p < s.m; p++) A[aOff[i]! + p + j * aLd[i]!] = mats[i]![p + j * s.m]!;
    for (let j = 0; j < s.nrhs; j++) for (let p = 0; p < rows; p++) B[bOff[i]! + p + j * bLd[i]!] = rhs[i]![p + j * rows]!;
  });
  const batches = <S extends FloatArray | DeviceArray>(a: S, b: S): { a: Batch<S>; b: Batch<S> } => {
    const s0 = systems[0]!;
    if (form === 'strided') {
      const [aStride, bStride] = [aLd[0]! * s0.n + 3, bLd[0]! * s0.nrhs + 2];
      return {
        a: strided(a, { rows: s0.m, cols: s0.n, count, ld: aLd[0]!, stride: aStride, offset: aOff[0]! }),
        b: strided(b, { rows: Math.max(s0.m, s0.n), cols: s0.nrhs, count, ld: bLd[0]!, stride: bStride, offset: bOff[0]! }),
      };
    }
    if (form === 'list') {
      return {
        a: list(aOff.map((offset) => ({ data: a, offset })), { rows: s0.m, cols: s0.n, ld: aLd[0]! }),
        b: list(bOff.map((offset) => ({ data: b, offset })), { rows: Math.max(s0.m, s0.n), cols: s0.nrhs, ld: bLd[0]! }),
      };
    }
    return {
      a: variable(systems.map((s, i) => ({ data: a, offset: aOff[i]!, rows: s.m, cols: s.n, ld: aLd[i]! }))),
      b: variable(systems.map((s, i) => ({ data: b, offset: bOff[i]!, rows: Math.max(s.m, s.n), cols: s.nrhs, ld: bLd[i]! }))),
    };
  };
  const [wantA, wantB, wantInfo] = [A.slice(), B.slice(), new Int32Array(count)];
  cpuGels({ ...batches(wantA, wantB), info: wantInfo });
  const dA = dev.upload(A), dB = dev.upload(B), dInfo = dev.upload(new Int32Array(count).fill(-7));
  try {
    gelsCuda(dev, { ...batches(dA, dB), info: dInfo });
    const [gotA, gotB] = [dev.download(dA) as FloatArray, dev.download(dB) as FloatArray];
    const info = Array.from(dev.download(dInfo) as Int32Array);
    // info of every matrix as the reference's (a NaN matrix's info is whatever its NaN R gives: not compared).
    const known = (x: ArrayLike<number>): number[] => Array.from(x, (v, i) => (systems[i]!.kind === 'nan' ? 0 : v));
    assert.deepEqual(known(info), known(wantInfo), `${what}: info`);
    // Nothing written outside the matrices.
    const insideA = new Uint8Array(gotA.length), insideB = new Uint8Array(gotB.length);
    systems.forEach((s, i) => {
      for (let j = 0; j < s.n; j++) insideA.fill(1, aOff[i]! + j * aLd[i]!, aOff[i]! + j * aLd[i]! + s.m);
      for (let j = 0; j < s.nrhs; j++) insideB.fill(1, bOff[i]! + j * bLd[i]!, bOff[i]! + j * bLd[i]! + Math.max(s.m, s.n));
    });
    for (let e = 0; e < gotA.length; e++) if (!insideA[e]) assert.ok(Number.isNaN(gotA[e]), `${what}: A's padding ${e} written`);
    for (let e = 0; e < gotB.length; e++) if (!insideB[e]) assert.ok(Number.isNaN(gotB[e]), `${what}: B's padding ${e} written`);
    systems.forEach((s, i) => {
      const { m, n, nrhs, kind } = s;
      const rows = Math.max(m, n);
      const at = `${what} #${i} (${m}x${n}, nrhs ${nrhs}, ${kind})`;
      const read = (buf: FloatArray, off: number, ld: number, r: number, c: number): Float64Array => {
        const x = new Float64Array(r * c);
        for (let j = 0; j < c; j++) for (let p = 0; p < r; p++) x[p + j * r] = buf[off + p + j * ld]!;
        return x;
      };
      const gB = read(gotB, bOff[i]!, bLd[i]!, rows, nrhs), wB = read(wantB, bOff[i]!, bLd[i]!, rows, nrhs);
      if (kind === 'nan') { assert.ok(info[i]! >= 0, `${at}: info written`); return; }
      assert.ok(gB.every(Number.isFinite) || info[i]! > 0, `${at}: finite (NaN spread?)`);
      // A rank-deficient 1 x n or m x 1 is all zero: dgels's X = 0.
      const zero = mats[i]!.every((v) => v === 0);
      if (info[i]! > 0 || zero) {
        // B as given (info > 0) or X = 0 (A = 0), as the CPU reference leaves it.
        assert.deepEqual(gB, wB, `${at}: B as the CPU reference leaves it`);
        if (zero) assert.ok(gB.every((v) => v === 0), `${at}: X = 0`);
        else assert.ok(kind === 'rank', `${at}: info ${info[i]} for a full-rank matrix`);
        return;
      }
      const a = mats[i]!, b = rhs[i]!;
      const x = new Float64Array(n * nrhs);
      for (let j = 0; j < nrhs; j++) for (let p = 0; p < n; p++) x[p + j * n] = gB[p + j * rows]!;
      const bm = new Float64Array(m * nrhs);
      for (let j = 0; j < nrhs; j++) for (let p = 0; p < m; p++) bm[p + j * m] = b[p + j * rows]!;
      const r = matmul(a, x, m, n, nrhs).map((v, q) => v - bm[q]!);
      const scale = Math.max(m, n) * eps * (fro(a) * fro(x) + fro(bm));
      if (m >= n) {
        const g = matmul(a, r, n, m, nrhs, true);
        assert.ok(fro(g) / (scale * fro(a)) < LIMIT, `${at}: ||A^T (A X - B)|| ratio ${fro(g) / (scale * fro(a))}`);
      } else {
        assert.ok(fro(r) / scale < LIMIT, `${at}: ||A X - B|| ratio ${fro(r) / scale}`);
        if (kind === 'random' && 2 * m <= n) {
          // Random and at least twice as wide as tall: well conditioned, so the perturbed row space is close to A's.
          const q = orthonormalOf(a, m, n);
          const proj = matmul(q, matmul(q, x, m, n, nrhs, true), n, m, nrhs);
          const out = fro(proj.map((v, e) => v - x[e]!)) / (n * eps * fro(x));
          assert.ok(out < LIMIT, `${at}: X outside A's row space: ratio ${out}`);
        }
      }
      if (kind === 'random') {
        // The factors left in A against the reference's (R, or R^T when wide, and the reflectors).
        const gA = read(gotA, aOff[i]!, aLd[i]!, m, n), wA = read(wantA, aOff[i]!, aLd[i]!, m, n);
        let d = 0;
        for (let e = 0; e < gA.length; e++) d = Math.max(d, Math.abs(gA[e]! - wA[e]!));
        const gap = d / (Math.max(m, n) * eps * Math.max(1, fro(a)));
        assert.ok(gap < LIMIT, `${at}: A's factors against the reference: gap ${gap}`);
      }
    });
  } finally {
    dA.dispose(); dB.dispose(); dInfo.dispose();
  }
}

/** An orthonormal basis (n x m) of the row space of A (m x n, m < n, full rank): Q of A^T, float64. */
function orthonormalOf(a: Float64Array, m: number, n: number): Float64Array {
  const f = new Float64Array(n * m);
  for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) f[j + i * n] = a[i + j * m]!;
  const tau = new Float64Array(m);
  geqr2(f, tau, n, m);
  org2r(f, tau, n, m, m);
  return f;
}

const systems = (m: number, n: number, nrhs: number, count: number, kinds: readonly Kind[] = MIX): System[] =>
  Array.from({ length: count }, (_, i) => ({ m, n, nrhs, kind: kinds[i % kinds.length]! }));

const TALL: readonly [number, number][] = [[1, 1], [2, 2], [2, 1], [5, 3], [8, 8], [9, 4], [17, 9], [32, 32], [33, 20], [40, 7], [64, 64], [100, 50], [128, 128]];
const WIDE: readonly [number, number][] = [[1, 2], [1, 5], [3, 7], [4, 8], [9, 17], [16, 40], [31, 32], [20, 64], [50, 100], [64, 128]];

test('gels on the GPU, m >= n: least squares by the normal equations and against the CPU reference, 1 and 7 right-hand sides', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1818);
  for (const dtype of DTYPES) for (const [m, n] of TALL) for (const nrhs of [1, 7]) {
    check(dev, rng, dtype, systems(m, n, nrhs, 6), 'strided', `gels ${dtype} ${m}x${n} nrhs=${nrhs}`);
  }
});

test('gels on the GPU, m < n: minimum norm (A X = B, X in the row space of A) and against the CPU reference', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1819);
  for (const dtype of DTYPES) for (const [m, n] of WIDE) for (const nrhs of [1, 7]) {
    check(dev, rng, dtype, systems(m, n, nrhs, 6), 'strided', `gels ${dtype} ${m}x${n} nrhs=${nrhs}`);
  }
});

test('gels on the GPU: NaN in one matrix stays there; a large batch; list and variable batches', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1820);
  for (const dtype of DTYPES) {
    for (const [m, n] of [[12, 7], [7, 12], [30, 30]] as const) {
      const batch = systems(m, n, 3, 20, ['random']);
      batch[7] = { ...batch[7]!, kind: 'nan' };
      check(dev, rng, dtype, batch, 'strided', `gels ${dtype} ${m}x${n} NaN in #7`);
    }
    check(dev, rng, dtype, systems(6, 4, 2, 3000, ['random', 'random', 'rank', 'random', 'zero']), 'strided', `gels ${dtype} 6x4 x 3000`);
    check(dev, rng, dtype, systems(10, 6, 7, 9), 'list', `gels ${dtype} 10x6 list`);
    check(dev, rng, dtype, systems(6, 10, 1, 9), 'list', `gels ${dtype} 6x10 list`);
    const mixed: System[] = [[5, 3], [3, 5], [5, 3], [8, 8], [1, 4], [3, 5], [20, 11]].map(([m, n], i) => ({ m: m!, n: n!, nrhs: 1 + (i % 3), kind: MIX[i % MIX.length]! }));
    check(dev, rng, dtype, mixed, 'variable', `gels ${dtype} variable`);
  }
});

test('gels in a CUDA context: host arrays through the GPU; beyond the QR tile on the CPU reference', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const backend = new CudaBackend(dev, 'test');
  const ctx = new Context('cuda', backend, backend);
  const rng = new Rng(5);
  // 8000 x 10 (float64): not even an 8000 x 8 panel of the blocked QR fits the shared memory.
  for (const [dtype, m, n] of [['float64', 24, 10], ['float32', 10, 24], ['float64', 8000, 10]] as const) {
    const count = 3;
    const rows = Math.max(m, n);
    const a = allocate(dtype, m * n * count).map(() => rng.uniform());
    const b = allocate(dtype, rows * 2 * count).map(() => rng.uniform());
    const [wa, wb, ga, gb] = [a.slice(), b.slice(), a.slice(), b.slice()];
    const args = (x: FloatArray, y: FloatArray) => ({ a: strided(x, { rows: m, cols: n, count }), b: strided(y, { rows, cols: 2, count }) });
    const wantInfo = new Int32Array(count);
    cpuGels({ ...args(wa, wb), info: wantInfo });
    const { info } = ctx.gels(args(ga, gb));
    const covered = gpuCovers('gels', { ...args(ga, gb), info }, dev);
    assert.equal(covered, gelsCovers(args(ga, gb), dev));
    assert.equal(covered, m !== 8000, `${m}x${n}: covered ${covered}`);
    assert.deepEqual(Array.from(info), Array.from(wantInfo));
    if (!covered) {
      assert.deepEqual(gb, wb, 'the CPU fallback is the reference');
      continue;
    }
    const tol = 1e3 * EPS[dtype];
    for (let e = 0; e < gb.length; e++) {
      if (e % rows >= n) continue;
      assert.ok(Math.abs(gb[e]! - wb[e]!) <= tol * Math.max(1, Math.abs(wb[e]!)), `${dtype} ${m}x${n}: X[${e}] ${gb[e]} vs ${wb[e]}`);
    }
  }
});

test('cuBLAS gelsBatched (the benchmark baseline) on the same data agrees with gels', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(7);
  const blas = new Cublas(dev);
  try {
    for (const dtype of DTYPES) for (const [m, n, nrhs] of [[20, 10, 3], [32, 8, 1]] as const) {
      const count = 50;
      const a = allocate(dtype, m * n * count).map(() => rng.uniform());
      const b = allocate(dtype, m * nrhs * count).map(() => rng.uniform());
      const [dA1, dB1, dA2, dB2] = [dev.upload(a), dev.upload(b), dev.upload(a), dev.upload(b)];
      const info = dev.alloc('int32', count);
      const [pa, pb] = [batchPointers(dev, dA2, count, m * n), batchPointers(dev, dB2, count, m * nrhs)];
      try {
        gelsCuda(dev, { a: strided(dA1, { rows: m, cols: n, count }), b: strided(dB1, { rows: m, cols: nrhs, count }), info });
        assert.equal(blas.gelsBatched(dtype, m, n, nrhs, pa, m, pb, m, info, count), 0, 'cuBLAS host info');
        const [ours, theirs] = [dev.download(dB1) as FloatArray, dev.download(dB2) as FloatArray];
        assert.deepEqual(Array.from(dev.download(info) as Int32Array), new Array(count).fill(0));
        const tol = 1e3 * EPS[dtype];
        for (let e = 0; e < ours.length; e++) {
          if (e % m >= n) continue;
          assert.ok(Math.abs(ours[e]! - theirs[e]!) <= tol * Math.max(1, Math.abs(theirs[e]!)), `${dtype} ${m}x${n}: X[${e}] ${ours[e]} vs cuBLAS ${theirs[e]}`);
        }
      } finally {
        for (const x of [dA1, dB1, dA2, dB2, info]) x.dispose();
        pa.dispose(); pb.dispose();
      }
    }
  } finally {
    blas.dispose();
  }
});
