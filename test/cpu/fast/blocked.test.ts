/**
 * The recursive blocked getrf/gesv of the fast CPU backend (ops/getrf-blocked.ts, forced on from
 * n = 48 here) and its WebAssembly potrf/posv of either triangle ('upper' through the transpose)
 * against the reference at n = 47 (still unblocked), 64, 65, 100, 128, 256 (Cholesky to 100),
 * plus rectangular getrf, both dtypes: a strided batch with
 * padded ld, an offset and gaps, a failing (singular, or not positive definite) matrix between
 * good ones. info and pivots exact (pivots poisoned before the call, their gap slots kept);
 * factors and solutions within a rounding bound; everything else (padding, gaps, the other
 * triangle, B of a failed matrix) bit for bit.
 *
 * The matrices keep every pivot choice far from a tie (so the blocked order of additions, or
 * float32 rounding between block steps, cannot change it): LU on row-permuted, column
 * diagonally dominant matrices (partial pivoting then picks the permuted diagonal at every step,
 * through real interchanges across block boundaries), plus in float64 one general random matrix
 * (near ties there are ~1e-13 likely per step); Cholesky on diagonally dominant SPD matrices.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { strided, type StridedBatch } from '../../../src/core/batch.js';
import { DTYPE_EPS, type DType, type FloatArray } from '../../../src/core/dtype.js';
import type { Uplo } from '../../../src/core/enums.js';
import { cpuBackend } from '../../../src/cpu/backend.js';
import { Rng, randomArray } from '../../helpers/random.js';

// The blocked LU from n = 48 here (leaves of 32, as by default; odd splits at 65 and 100),
// whatever the default crossover (tuning.ts): read once, when the backend first asks (context.ts).
process.env.MYRIAD_CPU_LU_BLOCKED = '48,32';
const { serialKernels } = await import('../../../src/cpu-fast/backend.js');
const { cpuTuning } = await import('../../../src/cpu-fast/context.js');
const { conform } = await import('./harness.js');
const { lu } = await import('./cases.js');
assert.deepEqual(cpuTuning().luBlocked, { min: 48, leaf: 32 });

const SIZES = [47, 64, 65, 100, 128, 256] as const;
const DTYPES: readonly DType[] = ['float64', 'float32'];
const POISON_INFO = -7, POISON_PIV = -9;

interface Layout { n: number; count: number; ld: number; stride: number; offset: number }
const layoutFor = (n: number, count: number): Layout => ({ n, count, ld: n + 1, stride: (n + 1) * n + 3, offset: 2 });
const index = (l: Layout, p: number, i: number, j: number): number => l.offset + p * l.stride + i + j * l.ld;

function batchOf(data: FloatArray, l: Layout, cols = l.n): StridedBatch<FloatArray> {
  return strided(data, { rows: l.n, cols, count: l.count, ld: l.ld, stride: l.ld * cols + 3, offset: l.offset });
}

/** |x - y| <= c n eps max|reference| for every element where `loose(i)`, and bit for bit elsewhere. */
function compare(label: string, x: FloatArray, y: FloatArray, dtype: DType, n: number, loose: (i: number) => boolean, scale: number): number {
  const tol = 8 * n * DTYPE_EPS[dtype] * scale;
  let worst = 0;
  for (let i = 0; i < x.length; i++) {
    if (loose(i)) {
      const d = Math.abs(x[i]! - y[i]!);
      // the message built only for a failure (per element it cost most of this file's time)
      if (!(Number.isFinite(x[i]!) && d <= tol)) assert.fail(`${label}: [${i}] is ${x[i]}, the reference has ${y[i]} (bound ${tol})`);
      worst = Math.max(worst, d / tol);
    } else if (!Object.is(x[i], y[i])) assert.fail(`${label}: untouched [${i}] is ${x[i]}, the reference has ${y[i]}`);
  }
  return worst;
}

/** The largest magnitude among the elements where `pred` (the scale of a solution). */
function maxWhere(y: FloatArray, pred: (i: number) => boolean): number {
  let m = 0;
  for (let i = 0; i < y.length; i++) if (pred(i)) m = Math.max(m, Math.abs(y[i]!));
  return m;
}

/** Matrix p of a batch as a membership test over its array: element (i, j) with pred(p, i, j). */
function within(l: Layout, cols: number, pred: (p: number, i: number, j: number) => boolean): (k: number) => boolean {
  const stride = l.ld * cols + 3;
  return (k) => {
    const r = k - l.offset;
    if (r < 0) return false;
    const p = Math.floor(r / stride), q = r - p * stride;
    const j = Math.floor(q / l.ld), i = q - j * l.ld;
    return p < l.count && i < l.n && j < cols && pred(p, i, j);
  };
}

/** A row-permuted column diagonally dominant matrix (or a general random one where `general`), column `zero` >= 0 zeroed. */
function fillLu(rng: Rng, a: FloatArray, l: Layout, p: number, general: boolean, zero: number): void {
  const n = l.n;
  const perm = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) { const k = rng.int(0, i); [perm[i], perm[k]] = [perm[k]!, perm[i]!]; }
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
    const v = i === j && !general ? (rng.next() < 0.5 ? -1 : 1) * (n + 1 + rng.next()) : rng.uniform();
    a[index(l, p, perm[i]!, j)] = j === zero ? 0 : v;
  }
}

interface LuCase { a: StridedBatch<FloatArray>; b: StridedBatch<FloatArray>; ipiv: Int32Array; info: Int32Array }
function buildLu(seed: number, dtype: DType, n: number): LuCase & { l: Layout } {
  const rng = new Rng(seed);
  const count = n >= 256 ? 3 : 4;
  const l = layoutFor(n, count);
  const a = randomArray(rng, dtype, l.offset + count * l.stride + 2);
  // matrix 1 is singular (a zero column past the first block: info = its index + 1); matrix 3 general (float64)
  for (let p = 0; p < count; p++) fillLu(rng, a, l, p, p === 3 && dtype === 'float64', p === 1 ? n - 5 : -1);
  const b = randomArray(rng, dtype, l.offset + count * (l.ld * 2 + 3) + 2);
  return {
    l, a: batchOf(a, l), b: batchOf(b, l, 2),
    ipiv: new Int32Array(count * (n + 1)).fill(POISON_PIV), info: new Int32Array(count).fill(POISON_INFO),
  };
}

function checkLu(dtype: DType, n: number, op: 'getrf' | 'gesv', seed: number): void {
  const mine = buildLu(seed, dtype, n), theirs = buildLu(seed, dtype, n);
  const run = (be: typeof serialKernels, c: LuCase): void => {
    const r = { a: c.a, ipiv: c.ipiv, pivotStride: n + 1, info: c.info };
    if (op === 'getrf') be.getrf(r); else be.gesv({ ...r, b: c.b });
  };
  run(serialKernels, mine);
  run(cpuBackend, theirs);
  const label = `${op} ${dtype} n=${n}`;
  const { l } = mine;
  assert.deepEqual([...mine.info], Array.from({ length: l.count }, (_, p) => (p === 1 ? n - 4 : 0)), `${label}: info`);
  assert.deepEqual([...mine.info], [...theirs.info], `${label}: info against the reference`);
  assert.deepEqual([...mine.ipiv], [...theirs.ipiv], `${label}: pivots (gap slots poisoned)`);
  compare(`${label} A`, mine.a.data, theirs.a.data, dtype, n, within(l, n, () => true), n + 2);
  if (op === 'gesv') {
    // X of the diagonally dominant (well-conditioned) matrices within rounding of the reference's;
    // of the general one (float64, matrix 3) a small backward error against the original A and B;
    // B of the singular one untouched
    const orig = buildLu(seed, dtype, n);
    const x = mine.b.data.slice();
    if (l.count > 3) {
      const p = 3, ldb = l.ld, bOff = l.offset + p * (l.ld * 2 + 3);
      let anorm = 0, xnorm = 0, bnorm = 0, res = 0;
      for (let i = 0; i < n; i++) {
        let row = 0;
        for (let j = 0; j < n; j++) row += Math.abs(orig.a.data[index(l, p, i, j)]!);
        anorm = Math.max(anorm, row);
      }
      for (let c = 0; c < 2; c++) for (let i = 0; i < n; i++) {
        let s = -orig.b.data[bOff + i + c * ldb]!;
        for (let j = 0; j < n; j++) s += orig.a.data[index(l, p, i, j)]! * x[bOff + j + c * ldb]!;
        res = Math.max(res, Math.abs(s));
        xnorm = Math.max(xnorm, Math.abs(x[bOff + i + c * ldb]!));
        bnorm = Math.max(bnorm, Math.abs(orig.b.data[bOff + i + c * ldb]!));
      }
      assert.ok(res <= 8 * n * DTYPE_EPS[dtype] * (anorm * xnorm + bnorm), `${label}: residual ${res} of the general matrix`);
      // its elements then compared as equal, so that compare() checks the rest bitwise
      for (let c = 0; c < 2; c++) for (let i = 0; i < n; i++) x[bOff + i + c * ldb] = theirs.b.data[bOff + i + c * ldb]!;
    }
    const good = within(l, 2, (p) => p === 0 || p === 2);
    compare(`${label} B`, x, theirs.b.data, dtype, n, good, maxWhere(theirs.b.data, good));
  }
}

/** Rectangular getrf (general random float64: tall, wide): info, pivots, and factors within rounding. */
function checkRectangular(m: number, n: number, seed: number): void {
  const build = (): { a: StridedBatch<FloatArray>; ipiv: Int32Array; info: Int32Array } => {
    const rng = new Rng(seed);
    const count = 2, ld = m + 1, stride = ld * n + 3;
    const data = randomArray(rng, 'float64', 2 + count * stride + 2);
    return {
      a: strided(data, { rows: m, cols: n, count, ld, stride, offset: 2 }),
      ipiv: new Int32Array(count * (Math.min(m, n) + 1)).fill(POISON_PIV), info: new Int32Array(count).fill(POISON_INFO),
    };
  };
  const mine = build(), theirs = build();
  serialKernels.getrf({ a: mine.a, ipiv: mine.ipiv, pivotStride: Math.min(m, n) + 1, info: mine.info });
  cpuBackend.getrf({ a: theirs.a, ipiv: theirs.ipiv, pivotStride: Math.min(m, n) + 1, info: theirs.info });
  const label = `getrf float64 ${m}x${n}`;
  assert.deepEqual([...mine.info], [0, 0], `${label}: info`);
  assert.deepEqual([...mine.ipiv], [...theirs.ipiv], `${label}: pivots`);
  const l: Layout = { n: m, count: 2, ld: m + 1, stride: (m + 1) * n + 3, offset: 2 };
  const inside = (k: number): boolean => {
    const r = k - 2, p = Math.floor(r / l.stride), q = r - p * l.stride, j = Math.floor(q / l.ld), i = q - j * l.ld;
    return r >= 0 && p < 2 && i < m && j < n;
  };
  compare(label, mine.a.data, theirs.a.data, 'float64', Math.max(m, n), inside, maxWhere(theirs.a.data, inside));
}

function buildChol(seed: number, dtype: DType, n: number, failAt: number): { l: Layout; a: StridedBatch<FloatArray>; b: StridedBatch<FloatArray>; info: Int32Array } {
  const rng = new Rng(seed);
  const count = n >= 256 ? 3 : 4;
  const l = layoutFor(n, count);
  const a = randomArray(rng, dtype, l.offset + count * l.stride + 2);
  for (let p = 0; p < count; p++) {
    for (let i = 0; i < n; i++) a[index(l, p, i, i)] = n + 1 + (i % 3);
    if (p === 1) a[index(l, p, failAt, failAt)] = -0.5;
  }
  const b = randomArray(rng, dtype, l.offset + count * (l.ld * 2 + 3) + 2);
  return { l, a: batchOf(a, l), b: batchOf(b, l, 2), info: new Int32Array(count).fill(POISON_INFO) };
}

function checkChol(dtype: DType, n: number, uplo: Uplo, op: 'potrf' | 'posv', seed: number): void {
  const failAt = n - 7;
  const mine = buildChol(seed, dtype, n, failAt), theirs = buildChol(seed, dtype, n, failAt);
  if (op === 'potrf') {
    serialKernels.potrf({ uplo, a: mine.a, info: mine.info });
    cpuBackend.potrf({ uplo, a: theirs.a, info: theirs.info });
  } else {
    serialKernels.posv({ uplo, a: mine.a, b: mine.b, info: mine.info });
    cpuBackend.posv({ uplo, a: theirs.a, b: theirs.b, info: theirs.info });
  }
  const label = `${op} ${dtype} n=${n} ${uplo}`;
  const { l } = mine;
  assert.deepEqual([...mine.info], Array.from({ length: l.count }, (_, p) => (p === 1 ? failAt + 1 : 0)), `${label}: info`);
  assert.deepEqual([...mine.info], [...theirs.info], `${label}: info against the reference`);
  // (row, col) of the stored triangle as (i, j) with i >= j
  const tri = (i: number, j: number): [number, number] | null => (uplo === 'lower' ? (i >= j ? [i, j] : null) : (i <= j ? [j, i] : null));
  // the failed matrix: the factor of its leading minor of order failAt and the failed diagonal value
  // (row failAt) are the reference's; the rest of its triangle holds dpotrf's partial updates (checked finite)
  const compared = within(l, n, (p, i, j) => {
    const t = tri(i, j);
    return t !== null && (p !== 1 || t[0] <= failAt);
  });
  const rest = within(l, n, (p, i, j) => p === 1 && tri(i, j) !== null);
  const x = mine.a.data, y = theirs.a.data;
  for (let k = 0; k < x.length; k++) if (rest(k) && !compared(k) && !Number.isFinite(x[k]!)) assert.fail(`${label}: failed matrix [${k}] is ${x[k]}`);
  // copy the failed matrix's partial triangle over so that compare() checks everything else bitwise
  const x2 = x.slice();
  for (let k = 0; k < x.length; k++) if (rest(k) && !compared(k)) x2[k] = y[k]!;
  compare(`${label} A`, x2, y, dtype, n, (k) => compared(k), n + 3);
  if (op === 'posv') {
    const good = within(l, 2, (p) => p !== 1);
    compare(`${label} B`, mine.b.data, theirs.b.data, dtype, n, good, maxWhere(theirs.b.data, good));
  }
}

describe('cpu-fast blocked LU and Cholesky match the reference', () => {
  for (const dtype of DTYPES) {
    test(`getrf/gesv ${dtype}`, () => {
      for (const n of SIZES) for (const op of ['getrf', 'gesv'] as const) checkLu(dtype, n, op, n * 7 + (op === 'gesv' ? 1 : 0));
      if (dtype === 'float64') {
        for (const [m, n] of [[100, 70], [70, 100], [130, 49]] as const) checkRectangular(m, n, m * 3 + n);
        // list and variable batches (one matrix per call, sizes 62 ... 66 mixed with the unblocked 47)
        for (const kind of ['list', 'variable'] as const)
          conform(serialKernels, { ...lu(kind, dtype, 64, 'getrf'), tolerance: { keys: ['a'], eps: 8 * 66, scale: 66 } }, 64, dtype);
      }
    });
    test(`potrf/posv ${dtype}`, () => {
      // 'upper' runs the WebAssembly kernel on the transpose; 128 and 256 are in test/gpu/factor-cases.ts
      for (const n of SIZES.filter((s) => s <= 100)) for (const uplo of ['lower', 'upper'] as const) for (const op of ['potrf', 'posv'] as const)
        checkChol(dtype, n, uplo, op, n * 11 + (uplo === 'upper' ? 2 : 0) + (op === 'posv' ? 1 : 0));
    });
  }
});
