/**
 * Batched potrf/getrf/potrs/posv/getrs/gesv on a real GPU (skipped where none is usable), against
 * the CPU reference (src/cpu/lapack) and LAPACK's residual ratios, on fresh random data: every n
 * 1..40, then 47, 64, 100, 128, 256, 512; every variant (warp, block-register, panel/blocked) by
 * size and forced; both uplo and precisions; odd ld, stride and offset;
 * info/ipiv poisoned before the run; every element outside what a routine may write is checked
 * bit for bit (padding, gaps, the other triangle filled with NaN so that reading it shows).
 * Mixed batches (SPD / not SPD / NaN, regular / singular) must give LAPACK's info for each matrix
 * and leave the good ones correct. With MYRIAD_FACTOR_TIMING=1 a last test times potrf/getrf f64
 * against cuSOLVER/cuBLAS (CUDA events, median after warm-up) and writes $OUT/factor-timing.json.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestOptions } from 'node:test';

import { batchCount, list, matrixAt, strided, variable, type Batch } from '../../src/core/batch.js';
import { allocate, DTYPE_EPS, type DType, type FloatArray } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import { counts } from '../../src/core/counts.js';
import { cpuGesv, cpuGetrf, cpuGetrs, cpuPosv, cpuPotrf, cpuPotrs } from '../../src/cpu/lapack/index.js';
import { getrfCuda, getrfMidBand, getrfRecursive, type GetrfOptions, type GetrfVariant } from '../../src/cuda/kernels/getrf/index.js';
import { potrfCuda, potrfRecursive, type PotrfOptions, type PotrfVariant } from '../../src/cuda/kernels/potrf/index.js';
import { gesvCuda, getrsCuda, posvCuda, potrsCuda } from '../../src/cuda/kernels/solve/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/index.js';
import { Cublas, Cusolver, batchPointers } from '../../src/cuda/baselines/index.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';
import { choleskyRatios, choleskyResidualByProducts, luResidual, readDense, readSymmetric, readTriangle, solveResidual, zeros } from '../helpers/lapack-checks.js';
import { Rng } from '../helpers/random.js';
import { timeMs } from '../../src/cuda/tune/measure.js';

/**
 * The cases run from five files (factor-*.test.ts), so that the GPU suite's runner takes them in
 * parallel processes: each file registers one part.
 */
export type FactorPart = 'potrf' | 'getrf' | 'large-potrf' | 'large-getrf' | 'blocked-getrf-a' | 'blocked-getrf-b' | 'spread-getrf-a' | 'spread-getrf-b' | 'batches' | 'batches-mid' | 'solve';
const CASES: { part: FactorPart; name: string; options: TestOptions; body: () => void | Promise<void> }[] = [];
/** A case of one part. Never call node:test's test() at this module's top level: every factor-*.test file imports it, so such a test would run in all of them. */
function partTest(part: FactorPart, name: string, options: TestOptions, body: () => void | Promise<void>): void {
  CASES.push({ part, name, options, body });
}
/** Registers with node:test the cases of one part. */
export function registerFactorTests(part: FactorPart): void {
  for (const c of CASES) if (c.part === part) test(c.name, c.options, c.body);
}

const skip = gpuSkipReason();

/** What checkPotrf / checkGetrf force on the launchers (withVariants sets it for a block of checks). */
let forced: { potrf: PotrfOptions; getrf: GetrfOptions } = { potrf: {}, getrf: {} };
const SIZES = [...Array.from({ length: 40 }, (_, i) => i + 1), 47, 64, 100, 128, 256, 512];
const DTYPES: DType[] = ['float64', 'float32'];
const UPLOS: Uplo[] = ['lower', 'upper'];
const THRESHOLD = 30; // LAPACK's test ratio threshold

/** Odd leading dimension > n, odd stride gap, odd offset: nothing lines up by accident. */
interface Layout { n: number; cols: number; count: number; ld: number; stride: number; offset: number }
function layout(n: number, count: number, cols = n): Layout {
  const ld = n % 2 === 0 ? n + 1 : n + 2;
  return { n, cols, count, ld, stride: ld * cols + 3, offset: 5 };
}
function hostBuffer(rng: Rng, dtype: DType, l: Layout): FloatArray {
  const a = allocate(dtype, l.offset + Math.max(0, l.count - 1) * l.stride + l.ld * l.cols + 2);
  for (let i = 0; i < a.length; i++) a[i] = rng.uniform();
  return a;
}
const batchOf = <S extends FloatArray | DeviceArray>(data: S, l: Layout, rows = l.n): Batch<S> =>
  strided(data, { rows, cols: l.cols, count: l.count, ld: l.ld, stride: l.stride, offset: l.offset });
const countFor = (n: number): number => (n <= 8 ? 200 : n <= 40 ? 48 : n <= 128 ? 6 : 2);

type Kind = 'spd' | 'notSpd' | 'nan' | 'general' | 'singular';
/** Fills matrix i of a host batch (a symmetric diagonally dominant SPD matrix, or a variant). */
function fill(rng: Rng, a: FloatArray, off: number, ld: number, n: number, kind: Kind, uplo: Uplo | null): void {
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) a[off + i + j * ld] = rng.uniform();
  if (kind === 'general' || kind === 'singular') {
    if (kind === 'singular') { const k = rng.int(0, n - 1); for (let i = 0; i < n; i++) a[off + i + k * ld] = 0; }
    return;
  }
  for (let j = 0; j < n; j++) {
    for (let i = j + 1; i < n; i++) a[off + j + i * ld] = a[off + i + j * ld]!;
    a[off + j + j * ld] = n + rng.uniform(0.5, 1);
  }
  if (kind === 'notSpd') { const k = rng.int(0, n - 1); a[off + k + k * ld] = -rng.uniform(0.1, 1); }
  if (kind === 'nan') { const i = rng.int(0, n - 1); const j = rng.int(0, i); a[off + i + j * ld] = NaN; a[off + j + i * ld] = NaN; }
  if (uplo) for (let j = 0; j < n; j++) for (let i = 0; i < n; i++)   // the unreferenced triangle: NaN
    if (uplo === 'lower' ? i < j : i > j) a[off + i + j * ld] = NaN;
}

const same = (x: number, y: number): boolean => x === y || (Number.isNaN(x) && Number.isNaN(y));
type Check = 'exact' | 'close' | 'skip';
const closeWhere = (inside: (e: number) => boolean) => (e: number): Check => (inside(e) ? 'close' : 'exact');
/** Compares a GPU output buffer with the CPU reference element by element: 'close' within tol, 'exact' bit for bit (NaN = NaN). */
function compareBuffers(got: FloatArray, want: FloatArray, check: (e: number) => Check, tolerance: number | ((e: number) => number), what: string): void {
  const tolOf = typeof tolerance === 'number' ? () => tolerance : tolerance;
  for (let e = 0; e < got.length; e++) {
    const g = got[e]!, w = want[e]!;
    if (same(g, w)) continue;
    const c = check(e);
    if (c === 'skip') continue;
    assert.ok(c === 'close' && !Number.isNaN(g) && !Number.isNaN(w) && Math.abs(g - w) <= tolOf(e),
      `${what}: element ${e} is ${g}, expected ${w}${c === 'exact' ? ' (must be unchanged or exact)' : ''}`);
  }
}
/** The matrix index of buffer element e (or -1 outside every matrix's span). */
const matrixOf = (l: Layout, e: number): number => { const q = e - l.offset; const m = Math.floor(q / l.stride); return q < 0 || m >= l.count ? -1 : m; };
/** Element e belongs to matrix (e - offset) / stride at (i, j); true when it lies in a matrix and `region` says so. */
function regionOf(l: Layout, rows: number, region: (i: number, j: number) => boolean): (e: number) => boolean {
  return (e) => {
    const q = e - l.offset;
    if (q < 0) return false;
    const m = Math.floor(q / l.stride);
    if (m >= l.count) return false;
    const w = q - m * l.stride;
    const j = Math.floor(w / l.ld), i = w - j * l.ld;
    return i < rows && j < l.cols && region(i, j);
  };
}
const maxAbs = (a: FloatArray): number => { let s = 0; for (const x of a) if (Number.isFinite(x)) s = Math.max(s, Math.abs(x)); return s; };

function upload(dev: GpuDevice, host: FloatArray | Int32Array): DeviceArray { return dev.upload(host); }
function poisonedInts(dev: GpuDevice, n: number): DeviceArray { const d = dev.alloc('int32', Math.max(1, n)); dev.fill(d, 0xff); return d; }

/**
 * `leadingOnly`: a failing matrix (info k) is compared on its leading (k - 1) x (k - 1) block alone,
 * as the README promises for the blocked drivers (they go on updating the rest); the per-matrix
 * designs leave it as the CPU does, so the other tests compare all of it.
 */
function checkPotrf(dev: GpuDevice, rng: Rng, dtype: DType, uplo: Uplo, n: number, count: number, kinds: (i: number) => Kind, leadingOnly = false): void {
  const l = layout(n, count);
  const host = hostBuffer(rng, dtype, l);
  for (let i = 0; i < count; i++) fill(rng, host, l.offset + i * l.stride, l.ld, n, kinds(i), uplo);
  const ref = host.slice();
  const refInfo = new Int32Array(count);
  cpuPotrf({ uplo, a: batchOf(ref, l), info: refInfo });
  const dA = upload(dev, host);
  const dInfo = poisonedInts(dev, count);
  potrfCuda(dev, { uplo, a: batchOf(dA, l), info: dInfo }, forced.potrf);
  const got = dev.download(dA) as FloatArray;
  const info = (dev.download(dInfo) as Int32Array).subarray(0, count);
  dA.dispose(); dInfo.dispose();
  const what = `potrf ${dtype} ${uplo} n=${n}`;
  assert.deepEqual([...info], [...refInfo], `${what}: info`);
  const tol = factorTolerance(ref, l, uplo, dtype);
  const inTriangle = closeWhere(regionOf(l, n, (i, j) => (uplo === 'lower' ? i >= j : i <= j)));
  const check = !leadingOnly ? inTriangle : (e: number): Check => {
    const m = matrixOf(l, e);
    const k = m < 0 ? 0 : refInfo[m]!;
    if (k === 0) return inTriangle(e);
    const w = e - l.offset - m * l.stride, j = Math.floor(w / l.ld), i = w - j * l.ld;
    if (i >= n || j >= n) return inTriangle(e);   // padding and gaps: unchanged
    return i < k - 1 && j < k - 1 ? inTriangle(e) : 'skip';
  };
  compareBuffers(got, ref, check, tol, what);
  checkCholeskyResiduals(host, got, l, uplo, dtype, info, what);
}

/**
 * Per matrix, the element tolerance against the CPU's factor: 40 (n + 1) eps max|L| of that
 * matrix (the reference's triangle), not 40 n (n + 1) eps absolute (float32 at n = 512: 1.25,
 * where L's off-diagonal entries are about 0.02, so any value passed).
 */
function factorTolerance(ref: FloatArray, l: Layout, uplo: Uplo, dtype: DType, c = 40): (e: number) => number {
  const scale = new Float64Array(l.count);
  for (let m = 0; m < l.count; m++) {
    const v = matrixAt(batchOf(ref, l), m);
    let s = 0;
    for (let j = 0; j < l.n; j++) for (let i = uplo === 'lower' ? j : 0; i <= (uplo === 'lower' ? l.n - 1 : j); i++) {
      const x = Math.abs(v.data[v.offset + i + j * v.ld]!);
      if (Number.isFinite(x)) s = Math.max(s, x);
    }
    scale[m] = s;
  }
  const base = c * (l.n + 1) * DTYPE_EPS[dtype];
  return (e) => { const m = matrixOf(l, e); return m < 0 ? 0 : base * scale[m]!; };
}

/**
 * Every matrix that factored (info 0): LAPACK's normwise ratio ||A - L L^T||_1 / (n ||A||_1 eps)
 * and the componentwise one (choleskyRatios) below THRESHOLD. Up to n = 128 every matrix; above,
 * where the n^3 products in JavaScript would make the file outlast the suite's limit, the first
 * two in full and the others by products with random vectors (a lower bound of the normwise
 * ratio, O(n^2)).
 */
function checkCholeskyResiduals(host: FloatArray, got: FloatArray, l: Layout, uplo: Uplo, dtype: DType, info: Int32Array, what: string): void {
  const eps = DTYPE_EPS[dtype];
  const rng = new Rng(l.n * 7 + l.count);
  for (let m = 0; m < l.count; m++) {
    if (info[m] !== 0) continue;
    const a = readSymmetric(matrixAt(batchOf(host, l), m), uplo), f = readTriangle(matrixAt(batchOf(got, l), m), uplo);
    if (l.n <= 128 || m < 2) {
      const r = choleskyRatios(a, f, uplo, eps);
      assert.ok(r.normwise < THRESHOLD, `${what}: matrix ${m}: residual ratio ${r.normwise}`);
      assert.ok(r.componentwise < THRESHOLD, `${what}: matrix ${m}: componentwise residual ratio ${r.componentwise}`);
    } else {
      const x = zeros(l.n, 3);
      for (let e = 0; e < x.data.length; e++) x.data[e] = rng.uniform(-1, 1);
      const r = choleskyResidualByProducts(a, f, uplo, eps, x);
      assert.ok(r < THRESHOLD, `${what}: matrix ${m}: residual ratio by products ${r}`);
    }
  }
}

/**
 * `nearTies`: float32 at large n, where the blocked order of the sums may pick the other of two
 * nearly equal pivots in any matrix: those matrices are judged by their residuals instead.
 */
function checkGetrf(dev: GpuDevice, rng: Rng, dtype: DType, rows: number, cols: number, count: number, kinds: (i: number) => Kind, nearTies = false): void {
  const l = layout(rows, count, cols);
  const host = hostBuffer(rng, dtype, l);
  for (let i = 0; i < count; i++) {
    const off = l.offset + i * l.stride;
    if (rows === cols) fill(rng, host, off, l.ld, rows, kinds(i), null);
    if (kinds(i) === 'nan') host[off + rng.int(0, rows - 1) + rng.int(0, cols - 1) * l.ld] = NaN;
  }
  const k = Math.min(rows, cols);
  const ref = host.slice();
  const refInfo = new Int32Array(count), refPiv = new Int32Array(count * k);
  cpuGetrf({ a: batchOf(ref, l, rows), ipiv: refPiv, pivotStride: k, info: refInfo });
  const dA = upload(dev, host);
  const dInfo = poisonedInts(dev, count), dPiv = poisonedInts(dev, count * k);
  getrfCuda(dev, { a: batchOf(dA, l, rows), ipiv: dPiv, pivotStride: k, info: dInfo }, forced.getrf);
  const got = dev.download(dA) as FloatArray;
  const info = (dev.download(dInfo) as Int32Array).subarray(0, count);
  const piv = (dev.download(dPiv) as Int32Array).subarray(0, count * k);
  dA.dispose(); dInfo.dispose(); dPiv.dispose();
  const what = `getrf ${dtype} ${rows}x${cols}`;
  assert.deepEqual([...info], [...refInfo], `${what}: info`);
  let mismatched = 0;
  const samePivots = (m: number): boolean => piv.subarray(m * k, (m + 1) * k).every((p, j) => p === refPiv[m * k + j]);
  for (let m = 0; m < count; m++) if (!samePivots(m)) mismatched++;
  if (!nearTies) assert.ok(mismatched <= Math.floor(count / 20), `${what}: ${mismatched} of ${count} matrices pivot differently`);
  const tol = 60 * Math.max(rows, cols) * DTYPE_EPS[dtype] * Math.max(1, maxAbs(ref));
  const inMatrix = regionOf(l, rows, () => true);
  compareBuffers(got, ref, (e) => (!inMatrix(e) ? 'exact' : samePivots(matrixOf(l, e)) ? 'close' : 'skip'), tol, what);
  for (let m = 0; m < count; m++) {
    if (info[m] !== 0 || (m >= Math.min(count, rows > 100 ? 1 : 3) && !(nearTies && !samePivots(m)))) continue;
    const ratio = luResidual(readDense(matrixAt(batchOf(host, l, rows), m)), readDense(matrixAt(batchOf(got, l, rows), m)), piv, m * k, DTYPE_EPS[dtype]);
    assert.ok(ratio < THRESHOLD, `${what}: residual ratio ${ratio}`);
  }
}

partTest('potrf', 'potrf: every n, both uplo and precisions, odd layouts, vs CPU and residuals', { skip }, () => {
  const dev = gpu();
  const rng = new Rng(1);
  for (const dtype of DTYPES) for (const uplo of UPLOS) for (const n of SIZES) checkPotrf(dev, rng, dtype, uplo, n, countFor(n), () => 'spd');
});

partTest('large-potrf', 'potrf on large matrices: the recursion over trsm and syrk (single matrices and small batches, failures)', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(13);
  // Single matrices (the whole GPU on one matrix) and a forced small case: vs CPU and by residual.
  for (const [dtype, uplo, n] of [['float64', 'lower', 1000], ['float64', 'upper', 1025], ['float32', 'lower', 1536], ['float64', 'lower', 2048]] as const) {
    assert.ok(potrfRecursive(n, 1, dev.info.smCount), `n = ${n} takes the recursion`);
    checkPotrf(dev, rng, dtype, uplo, n, 1, () => 'spd');
  }
  // A batch with failures: info exact (the first failing leading minor, wherever the recursion
  // finds it), the factor's completed columns of a failed matrix as the CPU's, the others whole.
  for (const uplo of UPLOS) for (const [n, count] of [[256, 4], [300, 3], [600, 3], [700, 2]] as const) {
    assert.ok(potrfRecursive(n, count, dev.info.smCount));
    const l = layout(n, count);
    const host = hostBuffer(rng, 'float64', l);
    for (let i = 0; i < count; i++) fill(rng, host, l.offset + i * l.stride, l.ld, n, 'spd', uplo);
    const fails = [[1, 455], [0, n - 3]] as const;   // (matrix, 0-based column of a negative pivot)
    for (const [m, k] of fails) if (m < count) host[l.offset + m * l.stride + k + k * l.ld] = -1;
    const ref = host.slice();
    const refInfo = new Int32Array(count);
    cpuPotrf({ uplo, a: batchOf(ref, l), info: refInfo });
    const dA = upload(dev, host), dInfo = poisonedInts(dev, count);
    potrfCuda(dev, { uplo, a: batchOf(dA, l), info: dInfo });
    const got = dev.download(dA) as FloatArray;
    const info = (dev.download(dInfo) as Int32Array).subarray(0, count);
    dA.dispose(); dInfo.dispose();
    const what = `recursive potrf ${uplo} n=${n} count=${count}`;
    assert.deepEqual([...info], [...refInfo], `${what}: info`);
    assert.ok(refInfo.some((x) => x > 0), `${what}: a failure was planted`);
    // Completed columns (j < info - 1) of failed matrices; every element of the others.
    const completed = completedFactor(l, count, refInfo, uplo);
    const inTriangle = regionOf(l, n, (i, j) => (uplo === 'lower' ? i >= j : i <= j));
    compareBuffers(got, ref, (e) => (!inTriangle(e) ? 'exact' : completed(e) ? 'close' : 'skip'), factorTolerance(ref, l, uplo, 'float64'), what);
  }
});

/**
 * Whether element e of a batch (layout l) is part of a complete factor as README's convention has
 * it: every element of a matrix whose info is 0; of a failed one (info k > 0), the factor's
 * columns before k (what the rest holds is unspecified: the GPU's large paths go on updating it).
 */
function completedFactor(l: ReturnType<typeof layout>, count: number, info: Int32Array, uplo: Uplo): (e: number) => boolean {
  return (e) => {
    const m = Math.floor((e - l.offset) / l.stride);
    if (m < 0 || m >= count || info[m] === 0) return true;
    const q = e - l.offset - m * l.stride, j = Math.floor(q / l.ld), i = q % l.ld;
    return uplo === 'lower' ? j < info[m]! - 1 : i < info[m]! - 1 && j < info[m]! - 1;
  };
}

/** The large Cholesky paths, forced one by one (the default plan is one of them). */
const LARGE_PATHS: readonly [string, PotrfOptions][] = [
  ['recursion, panel leaves, substitution trsm', { force: { recursive: true, blocked: false, variant: 'panel', trsm: { invertFrom: Infinity } } }],
  ['recursion, inverted trsm', { force: { recursive: true, blocked: false, trsm: { invertFrom: 512 } } }],
  ['blocked 256, substitution trsm', { force: { recursive: true, blocked: true, diagonal: 0, panel: 256, trsm: { invertFrom: Infinity } } }],
  ['blocked 256, inverted panel trsm', { force: { recursive: true, blocked: true, diagonal: 0, panel: 256, trsm: { invertFrom: 256 } } }],
  ['blocked 512, all inverted', { force: { recursive: true, blocked: true, diagonal: 0, panel: 512, trsm: { invertFrom: 0 } } }],
  // The fused factor-and-inverse diagonal kernel (generate-diagonal.ts): panels of 64 (threads per
  // triangle) and 128 (one thread per tile pair), the padded last panel included.
  ['blocked, fused diagonal 64', { force: { recursive: true, blocked: true, diagonal: 64 } }],
  ['blocked, fused diagonal 128', { force: { recursive: true, blocked: true, diagonal: 128 } }],
  ['blocked, fused diagonal 96, no lookahead', { force: { recursive: true, blocked: true, diagonal: 96, lookahead: false } }],
  // Two levels: the trailing update once per outer panel of 3 or 4 inner ones (k = 192, 384).
  ['blocked, fused diagonal 64, outer panels of 3, lookahead', { force: { recursive: true, blocked: true, diagonal: 64, outerPanels: 3, lookahead: true } }],
  ['blocked, fused diagonal 96, outer panels of 4, no lookahead', { force: { recursive: true, blocked: true, diagonal: 96, outerPanels: 4, lookahead: false } }],
  ['the default plan', {}],
];

/** potrf of a copy of `host` (layout `l`) on the device with `opts`: the factor and info read back (info poisoned before). */
function potrfOnce(dev: GpuDevice, host: FloatArray, l: ReturnType<typeof layout>, uplo: Uplo, count: number, opts: PotrfOptions): { got: FloatArray; info: Int32Array } {
  const dA = upload(dev, host), dInfo = poisonedInts(dev, count);
  try {
    potrfCuda(dev, { uplo, a: batchOf(dA, l), info: dInfo }, opts);
    return { got: dev.download(dA) as FloatArray, info: (dev.download(dInfo) as Int32Array).subarray(0, count) };
  } finally {
    dA.dispose(); dInfo.dispose();
  }
}

partTest('large-potrf', 'potrf on large matrices, every large path (recursion / blocked, substitution / inverted trsm / fused diagonal): vs the CPU, planted failures', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1313);
  // One CPU reference per case, every path against it; a residual for the default plan.
  const cases = [['float64', 'lower', 1000, 1], ['float64', 'upper', 1025, 1], ['float32', 'lower', 1536, 1], ['float64', 'upper', 2048, 1], ['float64', 'lower', 1100, 2]] as const;
  for (const [dtype, uplo, n, count] of cases) {
    const l = layout(n, count);
    const host = hostBuffer(rng, dtype, l);
    for (let i = 0; i < count; i++) fill(rng, host, l.offset + i * l.stride, l.ld, n, 'spd', uplo);
    const ref = host.slice();
    const refInfo = new Int32Array(count);
    cpuPotrf({ uplo, a: batchOf(ref, l), info: refInfo });
    for (const [name, opts] of LARGE_PATHS) {
      const { got, info } = potrfOnce(dev, host, l, uplo, count, opts);
      const what = `potrf ${name} ${dtype} ${uplo} n=${n} count=${count}`;
      assert.deepEqual([...info], [...refInfo], `${what}: info`);
      compareBuffers(got, ref, closeWhere(regionOf(l, n, (i, j) => (uplo === 'lower' ? i >= j : i <= j))), factorTolerance(ref, l, uplo, dtype), what);
      // Every path, every matrix: the residual by products (O(n^2)); the default plan's also in full.
      for (let m = 0; m < count; m++) {
        const a = readSymmetric(matrixAt(batchOf(host, l), m), uplo), f = readTriangle(matrixAt(batchOf(got, l), m), uplo);
        const x = zeros(n, 3);
        for (let e = 0; e < x.data.length; e++) x.data[e] = rng.uniform(-1, 1);
        const byProducts = choleskyResidualByProducts(a, f, uplo, DTYPE_EPS[dtype], x);
        assert.ok(byProducts < THRESHOLD, `${what}: matrix ${m}: residual ratio by products ${byProducts}`);
        if (name === 'the default plan' && n <= 1100 && m === 0) {
          const r = choleskyRatios(a, f, uplo, DTYPE_EPS[dtype]);
          assert.ok(r.normwise < THRESHOLD && r.componentwise < THRESHOLD, `${what}: matrix ${m}: residual ratios ${JSON.stringify(r)}`);
        }
      }
    }
  }
  // Planted failures at large n: info is the first failing column wherever it falls (inside a panel,
  // on a panel's first column, in the last panel), the other matrix whole.
  for (const [uplo, column] of [['lower', 1301], ['upper', 512], ['lower', 1536]] as const) {
    const n = 1536, count = 2;
    const l = layout(n, count);
    {
      const host = hostBuffer(rng, 'float64', l);
      for (let i = 0; i < count; i++) fill(rng, host, l.offset + i * l.stride, l.ld, n, 'spd', uplo);
      host[l.offset + 1 * l.stride + (column - 1) * (l.ld + 1)] = -1;   // matrix 1's pivot `column` (1-based) negative
      const ref = host.slice();
      const refInfo = new Int32Array(count);
      cpuPotrf({ uplo, a: batchOf(ref, l), info: refInfo });
      assert.equal(refInfo[1], column, 'the CPU finds the planted column');
      for (const [name, opts] of LARGE_PATHS) {
        const { got, info } = potrfOnce(dev, host, l, uplo, count, opts);
        const what = `potrf ${name} ${uplo} n=${n}, column ${column} planted`;
        assert.deepEqual([...info], [0, column], `${what}: info`);
        // Matrix 0 whole; matrix 1 not compared (its content past the failure is unspecified).
        const inMatrix0 = regionOf({ ...l, count: 1 }, n, (i, j) => (uplo === 'lower' ? i >= j : i <= j));
        compareBuffers(got, ref, (e) => (inMatrix0(e) ? 'close' : matrixOf(l, e) === 1 ? 'skip' : 'exact'), factorTolerance(ref, l, uplo, 'float64'), what);
      }
    }
  }
});

partTest('large-potrf', 'potrf with lookahead (a side stream): inside a graph capture, bitwise the direct call; against the path without it', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(2718);
  for (const [dtype, uplo, n, count] of [['float64', 'lower', 2048, 1], ['float64', 'upper', 1800, 2], ['float32', 'lower', 1500, 1]] as const) {
    const l = layout(n, count);
    const host = hostBuffer(rng, dtype, l);
    for (let i = 0; i < count; i++) fill(rng, host, l.offset + i * l.stride, l.ld, n, 'spd', uplo);
    const what = `potrf ${dtype} ${uplo} n=${n} count=${count}`;
    const withLookahead: PotrfOptions = { force: { recursive: true, blocked: true, diagonal: 96, lookahead: true } };
    const direct = potrfOnce(dev, host, l, uplo, count, withLookahead);
    const without = potrfOnce(dev, host, l, uplo, count, { force: { ...withLookahead.force, lookahead: false } });
    assert.deepEqual([...direct.info], new Array(count).fill(0), `${what}: info`);
    compareBuffers(direct.got, without.got, closeWhere(regionOf(l, n, (i, j) => (uplo === 'lower' ? i >= j : i <= j))), factorTolerance(without.got, l, uplo, dtype), `${what}: with and without lookahead`);
    for (let m = 0; m < count; m++) {
      const x = zeros(n, 3);
      for (let e = 0; e < x.data.length; e++) x.data[e] = rng.uniform(-1, 1);
      const r = choleskyResidualByProducts(readSymmetric(matrixAt(batchOf(host, l), m), uplo), readTriangle(matrixAt(batchOf(direct.got, l), m), uplo), uplo, DTYPE_EPS[dtype], x);
      assert.ok(r < THRESHOLD, `${what}: matrix ${m}: residual ratio by products ${r}`);
    }
    // Recorded into a graph (the side stream joins the capture at its first fork), then replayed.
    const dA = upload(dev, host), dInfo = poisonedInts(dev, count);
    try {
      const graph = dev.capture!(() => potrfCuda(dev, { uplo, a: batchOf(dA, l), info: dInfo }, withLookahead));
      graph.launch();
      const replayed = dev.download(dA) as FloatArray;
      graph.dispose();
      assert.deepEqual([...(dev.download(dInfo) as Int32Array).subarray(0, count)], new Array(count).fill(0), `${what}: info from the graph`);
      for (let e = 0; e < replayed.length; e++) if (!Object.is(replayed[e], direct.got[e])) assert.fail(`${what}: the graph's factor differs at ${e}: ${replayed[e]} vs ${direct.got[e]}`);
    } finally {
      dA.dispose(); dInfo.dispose();
    }
  }
});

// The recursive getrf is off by default (model/tuning/factor-sm_90.ts): this test did not finish
// within 250 s on an H100 (2026-11-26), so it runs only when asked, with the recursion forced.
const recursionSkip = skip ?? (process.env['MYRIAD_GETRF_RECURSION'] === '1' ? undefined : 'opt-in: MYRIAD_GETRF_RECURSION=1 runs the recursive getrf (off until it passes on a GPU)');

/** Runs `body` with the recursive getrf forced on (by halves: not the blocked driver). */
function withRecursion(body: () => void): void {
  const saved = forced;
  forced = { ...forced, getrf: { force: { recursive: true, panels: false } } };
  try { body(); } finally { forced = saved; }
}

// Single matrices (the whole GPU on one matrix), one test each so that a slow or stuck size shows:
// A and ipiv as the CPU's dgetf2 (no ties in random data), info 0, and the residual
// ||PA - LU|| / (n eps ||A||) < 30 (checkGetrf: one matrix).
for (const n of [256, 300, 512, 1000, 1025, 2048]) {
  partTest('large-getrf', `getrf on one large matrix, the recursion forced: n = ${n}`, { skip: recursionSkip, timeout: 600_000 }, () => {
    withRecursion(() => checkGetrf(gpu(), new Rng(14 + n), 'float64', n, n, 1, () => 'general'));
  });
}

partTest('large-getrf', 'getrf on large matrices: the recursion (tall panels, laswp, trsm, gemm) vs the CPU, singular and mixed batches', { skip: recursionSkip, timeout: 600_000 }, () => {
  withRecursion(() => recursionCases(gpu(), new Rng(14)));
});

function recursionCases(dev: GpuDevice, rng: Rng): void {
  // A zero column planted at j (fill's 'singular'): info = j + 1 as LAPACK, the factors as the CPU's.
  for (const n of [300, 1025]) checkGetrf(dev, rng, 'float64', n, n, 2, () => 'singular');
  // Batches mixing good, singular and NaN matrices: fewer than the SMs, and more (n = 256 always recurses).
  const mixed = (i: number): Kind => (['general', 'singular', 'general', 'nan', 'general'] as const)[i % 5]!;
  checkGetrf(dev, rng, 'float64', 300, 300, 5, mixed);
  checkGetrf(dev, rng, 'float64', 256, 256, dev.info.smCount + 8, mixed);
  // Rectangular: tall and wide.
  checkGetrf(dev, rng, 'float64', 700, 300, 2, () => 'general');
  checkGetrf(dev, rng, 'float64', 300, 700, 2, () => 'general');
  // float32: a matrix that pivots differently from the CPU on a near tie is judged by its residual.
  checkGetrf(dev, rng, 'float32', 256, 256, 20, (i) => (i % 3 === 1 ? 'singular' : 'general'), true);
  checkGetrf(dev, rng, 'float32', 1025, 1025, 1, () => 'general', true);
  // The vendor binding the benchmark uses for one matrix (cusolverDnDgetrf): the same pivots (1-based there) and factors.
  {
    const n = 700, ld = n;
    const host = new Float64Array(ld * n);
    for (let e = 0; e < host.length; e++) host[e] = rng.uniform();
    const ours = dev.upload(host), theirs = dev.upload(host);
    const piv = poisonedInts(dev, n), info = poisonedInts(dev, 1), vPiv = poisonedInts(dev, n), vInfo = poisonedInts(dev, 1);
    const solver = new Cusolver(dev);
    try {
      getrfCuda(dev, { a: strided(ours, { rows: n, cols: n, count: 1, ld, stride: ld * n }), ipiv: piv, pivotStride: n, info });
      const call = solver.getrf('float64', n, n, theirs, ld, vPiv, vInfo);
      call.run();
      call.dispose();
      const p = dev.download(piv) as Int32Array, vp = dev.download(vPiv) as Int32Array;
      assert.deepEqual([...(dev.download(info) as Int32Array)], [0]);
      assert.deepEqual([...(dev.download(vInfo) as Int32Array)], [0]);
      assert.deepEqual([...p].map((x) => x + 1), [...vp], 'cuSOLVER pivots are ours + 1');
      const a = dev.download(ours) as Float64Array, b = dev.download(theirs) as Float64Array;
      const scale = maxAbs(b);
      for (let e = 0; e < a.length; e++) assert.ok(Math.abs(a[e]! - b[e]!) <= 60 * n * DTYPE_EPS.float64 * scale, `vs cuSOLVER: element ${e}`);
    } finally {
      solver.dispose();
      for (const d of [ours, theirs, piv, info, vPiv, vInfo]) d.dispose();
    }
  }
  // Forced off: the blocked design still serves these sizes.
  const saved = forced;
  forced = { ...forced, getrf: { force: { recursive: false } } };
  try { checkGetrf(dev, rng, 'float64', 300, 300, 3, mixed); } finally { forced = saved; }
}

// getrf's blocked large-path driver (kernels/getrf/launch.ts getrfPanels):
// panels by the wide leaf (generate-wide.ts) or the recursion's tall leaves, one swaps launch a
// panel for the other columns, trsm and GEMM; with and without lookahead (the side stream). Written without a GPU: one test() per case so that a slow
// or stuck one shows. Against the CPU's dgetrf (A, pivots, info) where it is cheap enough here
// (n <= 1536), by residuals otherwise. Odd ld, stride gaps and offsets throughout (layout()).
const BLOCKED: GetrfOptions = { force: { recursive: true, panels: true } };
function withBlocked(extra: GetrfOptions['force'], body: () => void): void {
  const saved = forced;
  forced = { ...forced, getrf: { force: { ...BLOCKED.force, ...extra } } };
  try { body(); } finally { forced = saved; }
}
const BLOCKED_CASES: readonly [string, GetrfOptions['force'], (dev: GpuDevice, rng: Rng) => void][] = [
  ['float64 n = 1000, the table\'s panel and wide leaf', {}, (dev, rng) => checkGetrf(dev, rng, 'float64', 1000, 1000, 1, () => 'general')],
  ['float64 n = 1000, tall leaves only (the recursion inside each panel)', { wideLeaf: 0, panelWidth: 64 }, (dev, rng) => checkGetrf(dev, rng, 'float64', 1000, 1000, 1, () => 'general')],
  ['float64 n = 1025, panels of 128 with wide leaves of 32, lookahead', { panelWidth: 128, wideLeaf: 32, lookahead: true }, (dev, rng) => checkGetrf(dev, rng, 'float64', 1025, 1025, 1, () => 'general')],
  ['float64 n = 1025, panels of 128 with lookahead', { panelWidth: 128, lookahead: true }, (dev, rng) => checkGetrf(dev, rng, 'float64', 1025, 1025, 1, () => 'general')],
  ['float64 n = 1536, panels of 64 with lookahead', { panelWidth: 64, lookahead: true }, (dev, rng) => checkGetrf(dev, rng, 'float64', 1536, 1536, 1, () => 'general')],
  ['float32 n = 1025, panels of 64', { panelWidth: 64, lookahead: false }, (dev, rng) => checkGetrf(dev, rng, 'float32', 1025, 1025, 1, () => 'general', true)],
  ['float32 n = 1536, panels of 128 with lookahead', { panelWidth: 128, lookahead: true }, (dev, rng) => checkGetrf(dev, rng, 'float32', 1536, 1536, 1, () => 'general', true)],
  ['float64 tall 1300 x 700, lookahead', { panelWidth: 64, lookahead: true }, (dev, rng) => checkGetrf(dev, rng, 'float64', 1300, 700, 1, () => 'general')],
  ['float64 wide 700 x 1300, lookahead', { panelWidth: 64, lookahead: true }, (dev, rng) => checkGetrf(dev, rng, 'float64', 700, 1300, 1, () => 'general')],
  // fill's 'singular': a zero column at a random index: info = that column + 1, pivots and factors as dgetrf.
  ['float64 singular n = 1025 (two matrices, zero columns)', { panelWidth: 64, lookahead: true }, (dev, rng) => checkGetrf(dev, rng, 'float64', 1025, 1025, 2, () => 'singular')],
  ['float64 batch of 3 mixing singular and good, n = 1000', { panelWidth: 128, lookahead: true }, (dev, rng) => checkGetrf(dev, rng, 'float64', 1000, 1000, 3, (i) => (i === 1 ? 'singular' : 'general'))],
  ['float64 batch of 5 with NaN and singular matrices, n = 600', { panelWidth: 64 }, (dev, rng) =>
    checkGetrf(dev, rng, 'float64', 600, 600, 5, (i) => (['general', 'singular', 'nan', 'general', 'singular'] as const)[i]!)],
  // The spread leaf (generate-spread.ts: a panel over many blocks), forced wherever its shape allows
  // (float64: the cluster form first on sm_90), and once in the grid form alone.
  ['float64 n = 1000, spread leaves, lookahead', { panelWidth: 64, spreadLeaf: true, lookahead: true }, (dev, rng) => checkGetrf(dev, rng, 'float64', 1000, 1000, 1, () => 'general')],
  ['float64 n = 1536, panels of 128 (two spread leaves a panel)', { panelWidth: 128, spreadLeaf: true }, (dev, rng) => checkGetrf(dev, rng, 'float64', 1536, 1536, 1, () => 'general')],
  ['float64 n = 1100, spread leaves in the grid form, lookahead', { panelWidth: 64, spreadLeaf: true, spreadCluster: false, lookahead: true }, (dev, rng) => checkGetrf(dev, rng, 'float64', 1100, 1100, 2, () => 'general')],
  ['float64 n = 1100, spread leaves with the signalling exchange, lookahead', { panelWidth: 64, spreadLeaf: true, spreadExchange: 'signal', lookahead: true }, (dev, rng) => checkGetrf(dev, rng, 'float64', 1100, 1100, 2, () => 'general')],
  ['float32 n = 1025, spread leaves', { panelWidth: 64, spreadLeaf: true }, (dev, rng) => checkGetrf(dev, rng, 'float32', 1025, 1025, 1, () => 'general', true)],
  ['float64 tall 1300 x 700 and wide 700 x 1300, spread leaves', { panelWidth: 64, spreadLeaf: true, lookahead: true }, (dev, rng) => {
    checkGetrf(dev, rng, 'float64', 1300, 700, 1, () => 'general');
    checkGetrf(dev, rng, 'float64', 700, 1300, 1, () => 'general');
  }],
  ['float64 batch of 5 with NaN and singular matrices, n = 600, spread leaves', { panelWidth: 64, spreadLeaf: true }, (dev, rng) =>
    checkGetrf(dev, rng, 'float64', 600, 600, 5, (i) => (['general', 'singular', 'nan', 'general', 'singular'] as const)[i]!)],
  ['float64 singular n = 1025 (three matrices, zero columns), spread leaves', { panelWidth: 64, spreadLeaf: true, lookahead: true }, (dev, rng) =>
    checkGetrf(dev, rng, 'float64', 1025, 1025, 3, (i) => (i === 1 ? 'general' : 'singular'))],
];
BLOCKED_CASES.forEach(([name, extra, body], i) => {
  // Four files, the spread-leaf cases in two of them (each case's CPU reference takes seconds).
  const half = i % 2 === 0 ? 'a' : 'b';
  partTest(extra?.spreadLeaf === true ? `spread-getrf-${half}` : `blocked-getrf-${half}`, `getrf's blocked driver: ${name}`, { skip, timeout: 600_000 }, () => withBlocked(extra, () => body(gpu(), new Rng(1300 + name.length))));
});

// A planted zero column exactly at a panel boundary and inside a later panel, the pivots and info
// as dgetrf; and the factors of a large matrix (no CPU reference: residual) with the default table.
partTest('large-getrf', 'getrf\'s blocked driver: zero columns at a panel boundary (64) and at 1000 of 1100', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1313);
  for (const zero of [64, 1000]) {
    const n = 1100;
    const l = layout(n, 1);
    const host = hostBuffer(rng, 'float64', l);
    for (let i = 0; i < n; i++) host[l.offset + i + zero * l.ld] = 0;
    const ref = host.slice(), refPiv = new Int32Array(n), refInfo = new Int32Array(1);
    cpuGetrf({ a: batchOf(ref, l), ipiv: refPiv, pivotStride: n, info: refInfo });
    const dA = upload(dev, host), dPiv = poisonedInts(dev, n), dInfo = poisonedInts(dev, 1);
    getrfCuda(dev, { a: batchOf(dA, l), ipiv: dPiv, pivotStride: n, info: dInfo }, { force: { ...BLOCKED.force, panelWidth: 64, lookahead: true } });
    const info = dev.download(dInfo) as Int32Array, piv = dev.download(dPiv) as Int32Array, got = dev.download(dA) as Float64Array;
    for (const d of [dA, dPiv, dInfo]) d.dispose();
    assert.equal(info[0], zero + 1, 'info: the zero column, 1-based');
    assert.deepEqual([...piv.subarray(0, n)], [...refPiv], 'pivots as dgetrf');
    const inMatrix = regionOf(l, n, () => true);
    compareBuffers(got, ref, (e) => (inMatrix(e) ? 'close' : 'exact'), 60 * n * DTYPE_EPS.float64 * Math.max(1, maxAbs(ref)), `blocked getrf zero column ${zero}`);
  }
});

partTest('large-getrf', 'getrf\'s blocked driver at n = 3000 (the default large path), and gesv through it: residuals', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1314);
  const n = 3000;
  const l = layout(n, 1);
  const host = hostBuffer(rng, 'float64', l);
  const dA = upload(dev, host), dPiv = poisonedInts(dev, n), dInfo = poisonedInts(dev, 1);
  getrfCuda(dev, { a: batchOf(dA, l), ipiv: dPiv, pivotStride: n, info: dInfo });
  const info = dev.download(dInfo) as Int32Array, piv = dev.download(dPiv) as Int32Array, got = dev.download(dA) as Float64Array;
  for (const d of [dA, dPiv, dInfo]) d.dispose();
  assert.equal(info[0], 0);
  for (let j = 0; j < n; j++) assert.ok(piv[j]! >= j && piv[j]! < n, `pivot ${j} is ${piv[j]}`);
  // ||P A x - L U x|| / (n eps ||A||_1 ||x||_1) for a random x: O(n^2) here, where the whole L U is ~18 GFLOP.
  const at = (buf: FloatArray, i: number, j: number): number => buf[l.offset + i + j * l.ld]!;
  const x = Float64Array.from({ length: n }, () => rng.uniform());
  const ux = new Float64Array(n), lux = new Float64Array(n), pax = new Float64Array(n);
  for (let j = 0; j < n; j++) for (let i = 0; i <= j; i++) ux[i] += at(got, i, j) * x[j]!;
  for (let j = 0; j < n; j++) { lux[j] += ux[j]!; for (let i = j + 1; i < n; i++) lux[i] += at(got, i, j) * ux[j]!; }
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) pax[i] += at(host, i, j) * x[j]!;
  for (let j = 0; j < n; j++) { const p = piv[j]!, t = pax[j]!; pax[j] = pax[p]!; pax[p] = t; }
  let normA = 0, normX = 0, normR = 0;
  for (let j = 0; j < n; j++) { let c = 0; for (let i = 0; i < n; i++) c += Math.abs(at(host, i, j)); normA = Math.max(normA, c); normX += Math.abs(x[j]!); normR += Math.abs(pax[j]! - lux[j]!); }
  const ratio = normR / (n * DTYPE_EPS.float64 * normA * normX);
  assert.ok(ratio < THRESHOLD, `residual ratio ${ratio}`);
  // gesv (the large path factors through getrfCuda, then two trsm): the solution's residual.
  const lb = layout(n, 1, 3);
  const b = hostBuffer(rng, 'float64', lb);
  const gA = upload(dev, host), gB = upload(dev, b), gPiv = poisonedInts(dev, n), gInfo = poisonedInts(dev, 1);
  gesvCuda(dev, { a: batchOf(gA, l), b: batchOf(gB, lb, n), ipiv: gPiv, pivotStride: n, info: gInfo });
  const sol = dev.download(gB) as Float64Array, gi = dev.download(gInfo) as Int32Array, gp = dev.download(gPiv) as Int32Array;
  for (const d of [gA, gB, gPiv, gInfo]) d.dispose();
  assert.equal(gi[0], 0);
  assert.deepEqual([...gp.subarray(0, n)], [...piv.subarray(0, n)], 'gesv pivots as getrf\'s');
  const sr = solveResidual(readDense(matrixAt(batchOf(host, l), 0)), readDense(matrixAt(batchOf(sol, lb, n), 0)), readDense(matrixAt(batchOf(b, lb, n), 0)), 'N', DTYPE_EPS.float64);
  assert.ok(sr < THRESHOLD, `gesv residual ratio ${sr}`);
});

function getrfOnce(dev: GpuDevice, host: FloatArray, l: Layout, rows: number, opts: GetrfOptions): { got: FloatArray; piv: Int32Array; info: Int32Array } {
  const k = Math.min(rows, l.cols);
  const dA = upload(dev, host), dPiv = poisonedInts(dev, l.count * k), dInfo = poisonedInts(dev, l.count);
  try {
    getrfCuda(dev, { a: batchOf(dA, l, rows), ipiv: dPiv, pivotStride: k, info: dInfo }, opts);
    return { got: dev.download(dA) as FloatArray, piv: (dev.download(dPiv) as Int32Array).slice(0, l.count * k), info: (dev.download(dInfo) as Int32Array).slice(0, l.count) };
  } finally {
    dA.dispose(); dPiv.dispose(); dInfo.dispose();
  }
}

partTest('large-getrf', 'getrf\'s blocked driver with lookahead: inside a graph capture, bitwise the direct call; against the path without it', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(2719);
  for (const [dtype, rows, cols, count] of [['float64', 1600, 1600, 2], ['float64', 1200, 900, 1], ['float32', 1300, 1300, 1]] as const) {
    const l = layout(rows, count, cols);
    const host = hostBuffer(rng, dtype, l);
    const what = `getrf ${dtype} ${rows}x${cols} count=${count}`;
    const withLookahead: GetrfOptions = { force: { recursive: true, panels: true, panelWidth: 64, lookahead: true } };
    const direct = getrfOnce(dev, host, l, rows, withLookahead);
    const without = getrfOnce(dev, host, l, rows, { force: { ...withLookahead.force, lookahead: false } });
    assert.deepEqual([...direct.info], new Array(count).fill(0), `${what}: info`);
    // The trailing GEMM split in two (other tiles, maybe another summation order): in float64 the
    // same pivots (no near ties in random data) and the factors to rounding; float32 may tie.
    if (dtype === 'float64') {
      assert.deepEqual([...direct.piv], [...without.piv], `${what}: pivots with and without lookahead`);
      compareBuffers(direct.got, without.got, closeWhere(regionOf(l, rows, () => true)), 60 * Math.max(rows, cols) * DTYPE_EPS[dtype] * Math.max(1, maxAbs(host)), `${what}: with and without lookahead`);
    }
    // Recorded into a graph (the side stream joins the capture at its first fork), then replayed.
    const k = Math.min(rows, cols);
    const dA = upload(dev, host), dPiv = poisonedInts(dev, count * k), dInfo = poisonedInts(dev, count);
    try {
      const graph = dev.capture!(() => getrfCuda(dev, { a: batchOf(dA, l, rows), ipiv: dPiv, pivotStride: k, info: dInfo }, withLookahead));
      graph.launch();
      const replayed = dev.download(dA) as FloatArray;
      graph.dispose();
      assert.deepEqual([...(dev.download(dInfo) as Int32Array).subarray(0, count)], new Array(count).fill(0), `${what}: info from the graph`);
      assert.deepEqual([...(dev.download(dPiv) as Int32Array).subarray(0, count * k)], [...direct.piv], `${what}: pivots from the graph`);
      for (let e = 0; e < replayed.length; e++) if (!Object.is(replayed[e], direct.got[e])) assert.fail(`${what}: the graph's factor differs at ${e}: ${replayed[e]} vs ${direct.got[e]}`);
    } finally {
      dA.dispose(); dPiv.dispose(); dInfo.dispose();
    }
  }
});

/** Runs `body` with the potrf/getrf variants forced (null: by size), restoring the defaults after. */
function withVariants(potrf: PotrfVariant | null, getrf: GetrfVariant | null, body: () => void, potrfPanelWidest?: number): void {
  const saved = forced;
  forced = { potrf: { force: { variant: potrf ?? undefined, panelWidest: potrfPanelWidest } }, getrf: { force: { variant: getrf ?? undefined } } };
  try { body(); } finally { forced = saved; }
}

partTest('potrf', 'potrf: every n > 32 with 8-column panels (the paper\'s width, the benchmarked alternative)', { skip }, () => {
  const dev = gpu();
  const rng = new Rng(7);
  // 'panel': sizes the register design serves by default, too.
  withVariants('panel', null, () => {
    for (const dtype of DTYPES) for (const uplo of UPLOS) for (const n of [33, 40, 47, 64, 100, 128, 256]) {
      checkPotrf(dev, rng, dtype, uplo, n, countFor(n), (i) => (i % 3 === 1 ? 'notSpd' : 'spd'));
    }
  }, 8);
});

// The register designs (one block per matrix, the matrix in registers): by size up to the
// threshold, the boundary on both sides (128 register, 129 the old paths), forced at sizes the
// warp kernels serve by default (one row register, fewer columns than warps), mixed failures.
// Each band of the table's register shapes (sm_90: float64 65-80, 81-112, 113-120, 121-128; float32 65-96, 97-112, 113-128) at both ends.
const REGISTER_SIZES = [33, 47, 64, 65, 80, 81, 96, 97, 100, 112, 113, 120, 121, 127, 128];
const registerMax = (dtype: DType): number =>
  Math.max(tuningFor(gpu().info.arch, 'potrf').registerMax[dtype], tuningFor(gpu().info.arch, 'getrf').registerMax[dtype]);

partTest('potrf', 'register designs: potrf and getrf 33..128 by size, boundary 128/129, mixed failures', { skip }, () => {
  const dev = gpu();
  const rng = new Rng(8);
  const cholMix = (i: number): Kind => (['spd', 'notSpd', 'spd', 'nan', 'spd'] as const)[i % 5]!;
  const luMix = (i: number): Kind => (['general', 'singular', 'general', 'nan', 'general'] as const)[i % 5]!;
  for (const dtype of DTYPES) {
    const sizes = [...REGISTER_SIZES, registerMax(dtype) + 1];
    for (const n of sizes) {
      for (const uplo of UPLOS) checkPotrf(dev, rng, dtype, uplo, n, 10, cholMix);
      checkGetrf(dev, rng, dtype, n, n, 20, luMix);   // 20: one matrix may pivot differently on a near tie
    }
    for (const [r, c] of [[128, 33], [33, 128], [100, 64]] as const) checkGetrf(dev, rng, dtype, r, c, 6, () => 'general');
  }
});

partTest('potrf', 'register designs forced at small n and old paths forced at medium n', { skip }, () => {
  const dev = gpu();
  const rng = new Rng(9);
  const cholMix = (i: number): Kind => (i % 4 === 1 ? 'notSpd' : 'spd');
  const luMix = (i: number): Kind => (i % 4 === 1 ? 'singular' : 'general');
  for (const dtype of DTYPES) {
    withVariants('register', 'register', () => {
      for (const n of [1, 5, 32]) {   // (each size is an NVRTC compile: a few, to keep the file fast)
        for (const uplo of UPLOS) checkPotrf(dev, rng, dtype, uplo, n, 12, cholMix);
        checkGetrf(dev, rng, dtype, n, n, 20, luMix);
      }
      for (const [r, c] of [[7, 3], [3, 7]] as const) checkGetrf(dev, rng, dtype, r, c, 6, () => 'general');
    });
    withVariants('panel', 'blocked', () => {
      for (const n of [33, 64, 128]) {
        checkPotrf(dev, rng, dtype, 'lower', n, 6, cholMix);
        checkGetrf(dev, rng, dtype, n, n, 20, luMix);
      }
    });
  }
  assert.throws(() => withVariants('register', null, () => checkPotrf(dev, rng, 'float64', 'lower', 129, 1, () => 'spd')), /does not accept/);
});

partTest('potrf', 'potrf: mixed batches (SPD, not SPD, NaN) give LAPACK info, partial factors, good ones intact', { skip }, () => {
  const dev = gpu();
  const rng = new Rng(2);
  const kinds = (i: number): Kind => (['spd', 'notSpd', 'spd', 'nan', 'spd'] as const)[i % 5]!;
  for (const dtype of DTYPES) for (const uplo of UPLOS) for (const n of [1, 2, 3, 7, 8, 13, 16, 17, 31, 32, 33, 40, 64, 100]) {
    checkPotrf(dev, rng, dtype, uplo, n, n > 40 ? 10 : 40, kinds);
  }
});

partTest('getrf', 'getrf: every n, both precisions, rectangular, mixed regular/singular/NaN', { skip }, () => {
  const dev = gpu();
  const rng = new Rng(3);
  const mixed = (i: number): Kind => (['general', 'singular', 'general', 'nan'] as const)[i % 4]!;
  for (const dtype of DTYPES) {
    for (const n of SIZES) checkGetrf(dev, rng, dtype, n, n, countFor(n), () => 'general');
    for (const n of [1, 2, 5, 8, 16, 17, 32, 33, 64, 100]) checkGetrf(dev, rng, dtype, n, n, n > 40 ? 8 : 40, mixed);
    for (const [r, c] of [[7, 3], [3, 7], [32, 20], [20, 32], [70, 33], [33, 70]] as const) checkGetrf(dev, rng, dtype, r, c, 12, () => 'general');
  }
});

// Batches of as many matrices as SMs or more take the blocked drivers from n = 256 (the
// tables' crossovers; potrf panels of 64 to 640, getrf panels of 128 from 385): the default plan on
// such batches, mixed with failing matrices, against the CPU.
partTest('batches', 'batches of SMs or more at n >= 256 (the blocked drivers by default): mixed failures, against the CPU', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(7);
  const count = dev.info.smCount + 3;
  const spdMix = (i: number): Kind => (i === 5 ? 'notSpd' : i === count - 1 ? 'nan' : 'spd');
  const luMix = (i: number): Kind => (i === 7 ? 'singular' : i === count - 2 ? 'nan' : 'general');
  checkPotrf(dev, rng, 'float64', 'lower', 300, count, spdMix, true);
  checkPotrf(dev, rng, 'float32', 'upper', 256, count, spdMix, true);
  checkGetrf(dev, rng, 'float64', 260, 260, count, luMix);
  checkGetrf(dev, rng, 'float32', 400, 400, count, luMix, true);
});

// Batches of mid sizes with the table's matrices an SM or more (recursion.mid; sm_90: float64 15 an SM at
// 65-96, 10 at 97-112 and 6 from 113, float32 15 at 113-128 and 6 from 129) take the LU over the whole batch (one panel
// of 128 with tall leaves in float64, panels of 64 with wide leaves of 32 in float32 from 129): the
// default plan, mixed with failing matrices, against the CPU; gesv through it.
partTest('batches-mid', 'batches of mid sizes with the table\'s matrices an SM (the LU over the whole batch by default): failures, against the CPU', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(17);
  const t = tuningFor(dev.info.arch, 'getrf').recursion;
  const countFor = (dtype: DType, n: number): number => getrfMidBand(t, dtype, n)!.perSm * dev.info.smCount + 1;
  const luMix = (i: number): Kind => (i % 97 === 7 ? 'singular' : i % 89 === 3 ? 'nan' : 'general');
  for (const [dtype, n] of [['float64', 65], ['float64', 96], ['float64', 104], ['float64', 200], ['float32', 128], ['float32', 160]] as const) {
    const count = countFor(dtype, n);
    assert.ok(getrfRecursive(dtype, n, n, count, dev.info.smCount, t), `${dtype} ${n} x ${count} takes the LU over the batch`);
    assert.ok(!getrfRecursive(dtype, n, n, count - 2, dev.info.smCount, t), `${dtype} ${n} x ${count - 2}: one block a matrix`);
    checkGetrf(dev, rng, dtype, n, n, count, luMix, dtype === 'float32');
  }
  // Below the recursion's count, a register band with a few shape takes its own shape above the few
  // matrices an SM (the few shape, with 20 matrices, is the register sizes' test's): sm_90's float64
  // 65-80 and float32 97-112.
  for (const [dtype, n] of [['float64', 72], ['float32', 112]] as const) {
    const band = tuningFor(dev.info.arch, 'getrf').registerShapes[dtype].find((b) => n <= b.maxN)!;
    const several = (band.few?.maxPerSm ?? 0) * dev.info.smCount + 1;
    assert.ok(!getrfRecursive(dtype, n, n, several, dev.info.smCount, t));
    checkGetrf(dev, rng, dtype, n, n, several, luMix, dtype === 'float32');
  }
  // Several matrices an SM below the recursion's count on a band of several blocks an SM (sm_90's float64
  // 81-112: 8 warps, 2 blocks), with failures.
  const threeAnSm = 3 * dev.info.smCount + 1;
  assert.ok(!getrfRecursive('float64', 104, 104, threeAnSm, dev.info.smCount, t));
  checkGetrf(dev, rng, 'float64', 104, 104, threeAnSm, luMix);
  // (no NaN here: checkSolve judges every solved system by its residual)
  checkSolve(dev, rng, 'float64', 'gesv', 96, 1, 'lower', (i) => (i % 97 === 7 ? 'singular' : 'general'), countFor('float64', 96));
  checkSolve(dev, rng, 'float64', 'gesv', 104, 1, 'lower', (i) => (i % 97 === 7 ? 'singular' : 'general'), threeAnSm);
});

partTest('batches', 'batches of 70000 matrices (beyond a 65535 grid dimension)', { skip }, () => {
  const dev = gpu();
  const rng = new Rng(4);
  checkPotrf(dev, rng, 'float64', 'lower', 2, 70000, (i) => (i % 7 === 3 ? 'notSpd' : 'spd'));
  checkGetrf(dev, rng, 'float32', 3, 3, 70000, (i) => (i % 5 === 1 ? 'singular' : 'general'));
});

/** posv / gesv / potrs / getrs on one layout, against the CPU and by residuals. */
function checkSolve(
  dev: GpuDevice, rng: Rng, dtype: DType, op: 'posv' | 'gesv' | 'potrs' | 'getrsN' | 'getrsT', n: number, nrhs: number, uplo: Uplo, kinds: (i: number) => Kind,
  count = n > 64 ? 4 : 24,
): void {
  const la = layout(n, count), lb = layout(n, count, nrhs);
  const a = hostBuffer(rng, dtype, la), b = hostBuffer(rng, dtype, lb);
  const chol = op === 'posv' || op === 'potrs';
  for (let i = 0; i < count; i++) fill(rng, a, la.offset + i * la.stride, la.ld, n, kinds(i), chol ? uplo : null);
  const k = n;
  const factored = a.slice();
  const ipiv = new Int32Array(count * k), info0 = new Int32Array(count);
  if (op === 'potrs') cpuPotrf({ uplo, a: batchOf(factored, la), info: info0 });
  if (op === 'getrsN' || op === 'getrsT') cpuGetrf({ a: batchOf(factored, la), ipiv, pivotStride: k, info: info0 });
  const refA = factored.slice(), refB = b.slice(), refInfo = new Int32Array(count), refPiv = ipiv.slice();
  const A = batchOf(refA, la), B = batchOf(refB, lb, n);
  if (op === 'posv') cpuPosv({ uplo, a: A, b: B, info: refInfo });
  else if (op === 'gesv') cpuGesv({ a: A, b: B, ipiv: refPiv, pivotStride: k, info: refInfo });
  else if (op === 'potrs') cpuPotrs({ uplo, a: A, b: B, info: refInfo });
  else cpuGetrs({ trans: op === 'getrsN' ? 'N' : 'T', a: A, b: B, ipiv: refPiv, pivotStride: k, info: refInfo });
  const dA = upload(dev, factored), dB = upload(dev, b), dInfo = poisonedInts(dev, count);
  const dPiv = op === 'gesv' ? poisonedInts(dev, count * k) : upload(dev, ipiv);
  const GA = batchOf(dA, la), GB = batchOf(dB, lb, n);
  if (op === 'posv') posvCuda(dev, { uplo, a: GA, b: GB, info: dInfo });
  else if (op === 'gesv') gesvCuda(dev, { a: GA, b: GB, ipiv: dPiv, pivotStride: k, info: dInfo });
  else if (op === 'potrs') potrsCuda(dev, { uplo, a: GA, b: GB, info: dInfo });
  else getrsCuda(dev, { trans: op === 'getrsN' ? 'N' : 'T', a: GA, b: GB, ipiv: dPiv, pivotStride: k, info: dInfo });
  const gotB = dev.download(dB) as FloatArray, gotA = dev.download(dA) as FloatArray;
  const info = (dev.download(dInfo) as Int32Array).subarray(0, count);
  const gotPiv = (dev.download(dPiv) as Int32Array).subarray(0, count * k);
  for (const d of [dA, dB, dInfo, dPiv]) d.dispose();
  const what = `${op} ${dtype} ${chol ? uplo : ''} n=${n} nrhs=${nrhs}`;
  assert.deepEqual([...info], [...refInfo], `${what}: info`);
  if (op === 'gesv') assert.deepEqual([...gotPiv], [...refPiv], `${what}: ipiv`);
  const eps = DTYPE_EPS[dtype];
  const writesA = op === 'posv' || op === 'gesv';
  // A: posv's factor of a failed matrix is compared only as far as README promises it (complete
  // columns before info); gesv's whole LU (LAPACK completes it).
  const inA = regionOf(la, n, (i, j) => !chol || (uplo === 'lower' ? i >= j : i <= j));
  const completeA = chol ? completedFactor(la, count, refInfo, uplo) : () => true;
  compareBuffers(gotA, refA, writesA ? (e) => (!inA(e) ? 'exact' : completeA(e) ? 'close' : 'skip') : () => 'exact',
    op === 'posv' ? factorTolerance(refA, la, uplo, dtype, 60) : 60 * n * eps * (n + 1), `${what}: A`);
  // B: exact where the factorisation failed (LAPACK leaves it) and outside the matrices; close to
  // the CPU for the well-conditioned SPD systems; general systems are judged by their residuals.
  const inB = regionOf(lb, n, () => true);
  compareBuffers(gotB, refB, (e) => (!inB(e) || refInfo[matrixOf(lb, e)] !== 0 ? 'exact' : chol ? 'close' : 'skip'),
    1e3 * n * eps * Math.max(1, maxAbs(refB)), `${what}: B`);
  for (let m = 0; m < count; m++) {
    if (info[m] !== 0 || info0[m] !== 0) continue;
    const a0 = matrixAt(batchOf(a, la), m);
    const full = chol ? readSymmetric(a0, uplo) : readDense(a0);
    const ratio = solveResidual(full, readDense(matrixAt(batchOf(gotB, lb, n), m)), readDense(matrixAt(batchOf(b, lb, n), m)), op === 'getrsT' ? 'T' : 'N', eps);
    assert.ok(ratio < THRESHOLD, `${what}: matrix ${m} residual ratio ${ratio}`);
  }
}

partTest('solve', 'posv, gesv, potrs, getrs (N and T): sizes across both designs, several nrhs, mixed batches', { skip }, () => {
  const dev = gpu();
  const rng = new Rng(5);
  const cholMix = (i: number): Kind => (i % 6 === 2 ? 'notSpd' : i % 6 === 4 ? 'nan' : 'spd');
  const luMix = (i: number): Kind => (i % 6 === 2 ? 'singular' : 'general');
  for (const dtype of DTYPES) {
    for (const n of [1, 2, 3, 5, 8, 12, 16, 17, 24, 31, 32, 33, 40, 47, 64, 100]) {
      for (const nrhs of n % 3 === 0 ? [1, 5] : [3]) {
        for (const uplo of UPLOS) { checkSolve(dev, rng, dtype, 'posv', n, nrhs, uplo, cholMix); checkSolve(dev, rng, dtype, 'potrs', n, nrhs, uplo, () => 'spd'); }
        checkSolve(dev, rng, dtype, 'gesv', n, nrhs, 'lower', luMix);
        checkSolve(dev, rng, dtype, 'getrsN', n, nrhs, 'lower', () => 'general');
        checkSolve(dev, rng, dtype, 'getrsT', n, nrhs, 'lower', () => 'general');
      }
    }
  }
});

partTest('solve', 'many right-hand sides (n > 32: the trsm route), failing matrices keep B', { skip }, () => {
  const dev = gpu();
  const rng = new Rng(15);
  const cholMix = (i: number): Kind => (i % 4 === 2 ? 'notSpd' : i % 4 === 3 ? 'nan' : 'spd');
  const luMix = (i: number): Kind => (i % 4 === 1 ? 'singular' : 'general');
  for (const dtype of DTYPES) {
    for (const [n, nrhs] of [[33, 8], [47, 40], [64, 16], [100, 25], [200, 9], [256, 64]] as const) {
      for (const uplo of UPLOS) { checkSolve(dev, rng, dtype, 'posv', n, nrhs, uplo, cholMix); checkSolve(dev, rng, dtype, 'potrs', n, nrhs, uplo, () => 'spd'); }
      checkSolve(dev, rng, dtype, 'gesv', n, nrhs, 'lower', luMix);
      checkSolve(dev, rng, dtype, 'getrsN', n, nrhs, 'lower', () => 'general');
      checkSolve(dev, rng, dtype, 'getrsT', n, nrhs, 'lower', () => 'general');
    }
  }
});

// (gesv takes the large LU the same way from float64 n = 2560, where a CPU reference is too slow here.)
partTest('solve', 'posv with one right-hand side on the large Cholesky (few large matrices), failing matrices keep B', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1101);
  const cholMix = (i: number): Kind => (i % 4 === 2 ? 'notSpd' : 'spd');
  for (const dtype of DTYPES) for (const uplo of UPLOS) checkSolve(dev, rng, dtype, 'posv', 1100, 1, uplo, cholMix);
});

partTest('batches', 'list and variable batches (pointer form, grouping by size) for potrf, getrf, gesv', { skip }, () => {
  const dev = gpu();
  const rng = new Rng(6);
  const sizes = [3, 8, 3, 40, 8, 1, 40, 33];
  const hosts = sizes.map((n) => { const h = allocate('float64', n * (n + 2) + 4); for (let i = 0; i < h.length; i++) h[i] = rng.uniform(); fill(rng, h, 2, n + 2, n, 'spd', 'lower'); return h; });
  const devs = hosts.map((h) => dev.upload(h));
  const info = poisonedInts(dev, sizes.length);
  const view = <S extends FloatArray | DeviceArray>(arr: S[]): Batch<S> => variable(arr.map((data, i) => ({ data, rows: sizes[i]!, ld: sizes[i]! + 2, offset: 2 })));
  potrfCuda(dev, { uplo: 'lower', a: view(devs), info });
  const refInfo = new Int32Array(sizes.length);
  cpuPotrf({ uplo: 'lower', a: view(hosts), info: refInfo });
  assert.deepEqual([...(dev.download(info) as Int32Array)], [...refInfo]);
  devs.forEach((d, i) => compareBuffers(dev.download(d) as FloatArray, hosts[i]!, () => 'close', 1e-11 * sizes[i]! * sizes[i]!, `variable potrf #${i}`));
  // a list batch of 5 x 5 matrices in separate buffers, LU and gesv
  const n = 5;
  const mats = Array.from({ length: 9 }, () => { const h = allocate('float32', n * n); for (let i = 0; i < h.length; i++) h[i] = rng.uniform(); return h; });
  const rhs = Array.from({ length: 9 }, () => { const h = allocate('float32', n * 2); for (let i = 0; i < h.length; i++) h[i] = rng.uniform(); return h; });
  const dm = mats.map((h) => dev.upload(h)), dr = rhs.map((h) => dev.upload(h));
  const piv = poisonedInts(dev, 9 * n), inf2 = poisonedInts(dev, 9);
  gesvCuda(dev, { a: list(dm, { rows: n }), b: list(dr, { rows: n, cols: 2 }), ipiv: piv, pivotStride: n, info: inf2 });
  const refPiv = new Int32Array(9 * n), refInf = new Int32Array(9);
  cpuGesv({ a: list(mats, { rows: n }), b: list(rhs, { rows: n, cols: 2 }), ipiv: refPiv, pivotStride: n, info: refInf });
  assert.deepEqual([...(dev.download(piv) as Int32Array)], [...refPiv]);
  assert.deepEqual([...(dev.download(inf2) as Int32Array)], [...refInf]);
  dr.forEach((d, i) => compareBuffers(dev.download(d) as FloatArray, rhs[i]!, () => 'close', 1e-3 * Math.max(1, maxAbs(rhs[i]!)), `list gesv B #${i}`));
  for (const d of [...devs, ...dm, ...dr, info, piv, inf2]) d.dispose();
  assert.equal(batchCount(list(dm, { rows: n })), 9);
});

// ---------------------------------------------------------------------------------------------
// Timing (opt-in): ours vs cuSOLVER potrfBatched / cuBLAS getrfBatched, f64, ~0.5 GB of matrices.

const timing = process.env['MYRIAD_FACTOR_TIMING'] === '1';
partTest('solve', 'timing: potrf and getrf f64 vs cuSOLVER / cuBLAS', { skip: skip ?? (timing ? undefined : 'opt-in: MYRIAD_FACTOR_TIMING=1 prints the timing table') }, () => {
  const dev = gpu();
  const rows: Record<string, string | number>[] = [];
  const timeIt = (restore: () => void, run: () => void, reps = 7): number => timeMs(dev, run, reps, restore);
  const cusolver = new Cusolver(dev), cublas = new Cublas(dev);
  // potrf-panel / getrf-blocked: the old paths forced at the sizes the register designs now serve.
  for (const op of ['potrf', 'getrf', 'potrf-ib8', 'potrf-panel', 'getrf-blocked'] as const) {
    const sizes = op === 'potrf-ib8' ? [64, 128, 256, 512] : op === 'potrf-panel' || op === 'getrf-blocked' ? [48, 64, 96, 128] : [4, 8, 16, 32, 48, 64, 96, 128, 256, 512];
    for (const n of sizes) {
      const potrfOpts: PotrfOptions = { force: { panelWidest: op === 'potrf-ib8' ? 8 : undefined, variant: op === 'potrf-panel' ? 'panel' : undefined } };
      const getrfOpts: GetrfOptions = { force: { variant: op === 'getrf-blocked' ? 'blocked' : undefined } };
      const count = Math.max(64, Math.floor(0.5e9 / (n * n * 8)));
      const l: Layout = { n, cols: n, count, ld: n, stride: n * n, offset: 0 };
      const rng = new Rng(n);
      const distinct = Math.min(count, 512);
      const host = new Float64Array(count * n * n);
      const chol = op !== 'getrf' && op !== 'getrf-blocked';
      for (let i = 0; i < distinct; i++) fill(rng, host, i * n * n, n, n, chol ? 'spd' : 'general', null);
      for (let i = distinct; i < count; i += distinct) host.copyWithin(i * n * n, 0, Math.min(distinct, count - i) * n * n);
      const pristine = dev.upload(host), work = dev.alloc('float64', host.length);
      const info = dev.alloc('int32', count), piv = dev.alloc('int32', count * n);
      const restore = (): void => dev.copy(pristine, 0, work, 0, host.length);
      const ours = timeIt(restore, () => (chol
        ? potrfCuda(dev, { uplo: 'lower', a: batchOf(work, l), info }, potrfOpts)
        : getrfCuda(dev, { a: batchOf(work, l), ipiv: piv, pivotStride: n, info }, getrfOpts)));
      const oursInfo = dev.download(info) as Int32Array;
      assert.ok(oursInfo.every((x) => x === 0 || !chol), `${op} n=${n}: unexpected failures`);
      const ptrs = batchPointers(dev, work, count, n * n);
      const vendor = timeIt(restore, () => (chol
        ? cusolver.potrfBatched('float64', 'lower', n, ptrs, n, info, count)
        : cublas.getrfBatched('float64', n, ptrs, n, piv, info, count)));
      ptrs.dispose();
      for (const d of [pristine, work, info, piv]) d.dispose();
      const cost = chol ? counts.potrf('float64', n) : counts.getrf('float64', n);
      const gf = (ms: number): number => (cost.flops * count) / (ms * 1e6);
      const roof = (cost.flops / cost.bytes) * 3000;
      rows.push({ op, n, count, ours_ms: +ours.toFixed(4), ours_gflops: +gf(ours).toFixed(1), ours_GBps: +((cost.bytes * count) / (ours * 1e6)).toFixed(0),
        roofline_gflops: +roof.toFixed(0), pct_roofline: +((100 * gf(ours)) / roof).toFixed(1),
        vendor_ms: +vendor.toFixed(4), vendor_gflops: +gf(vendor).toFixed(1), speedup: +(vendor / ours).toFixed(2) });
    }
  }
  const table = [`device: ${dev.info.name}`, Object.keys(rows[0]!).join('\t'), ...rows.map((r) => Object.values(r).join('\t'))].join('\n');
  console.log(table);
  const out = process.env['OUT'];
  if (out) writeFileSync(join(out, 'factor-timing.json'), JSON.stringify({ device: dev.info.name, rows }, null, 1));
});
