/**
 * The large sizes on a real GPU (skipped where none is usable): one matrix of n = 4096 ...
 * 10240 is too large for the CPU reference in a test, so the factors are checked by LAPACK's
 * residual ratio computed with the GPU's GEMM (a family tested on its own against the CPU):
 *   potrf: ||A - L L^T||_1 / (n eps ||A||_1) < 30 (U^T U for upper),
 *   getrf: ||P A - L U||_1 / (n eps ||A||_1) < 30,
 * the product formed on the device from the factor read back (the other triangle zeroed on the
 * host, L's unit diagonal written), the norms taken on the host. Planted failures: info names the
 * column, and the leading block before it is a complete factor (its residual likewise). Odd ld
 * throughout (ld = n + 1 or n + 3). One test() per case, so a slow or stuck size shows by name.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { strided, type StridedBatch } from '../../src/core/batch.js';
import { allocate, DTYPE_EPS, type DType, type FloatArray } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import { mirrorLower } from '../../src/bench/data.js';
import { gemmCuda } from '../../src/cuda/kernels/gemm/index.js';
import { getrfCuda } from '../../src/cuda/kernels/getrf/index.js';
import { potrfCuda } from '../../src/cuda/kernels/potrf/index.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/index.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';

const skip = gpuSkipReason();
const THRESHOLD = 30;   // LAPACK's test ratio threshold

/** One n x n matrix with leading dimension ld, column-major, in a host buffer of ld * n. */
interface Square { readonly n: number; readonly ld: number; readonly data: FloatArray }

function square(dtype: DType, n: number, ld: number): Square {
  return { n, ld, data: allocate(dtype, ld * n) };
}

/** Symmetric entries uniform in [-1, 1), diagonal n + [0.5, 1): strictly diagonally dominant, so SPD. */
function spd(rng: Rng, dtype: DType, n: number, ld: number): Square {
  const s = square(dtype, n, ld);
  const a = s.data;
  for (let j = 0; j < n; j++) {
    a[j + j * ld] = n + rng.uniform(0.5, 1);
    for (let i = j + 1; i < n; i++) a[i + j * ld] = rng.uniform();
  }
  mirrorLower(a, 0, n, ld);
  return s;
}

/** Uniform entries in [-1, 1): random LU needs pivoting (no dominant diagonal). */
function general(rng: Rng, dtype: DType, n: number, ld: number): Square {
  const s = square(dtype, n, ld);
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) s.data[i + j * ld] = rng.uniform();
  return s;
}

function norm1(s: Square, size = s.n): number {
  let worst = 0;
  for (let j = 0; j < size; j++) {
    let sum = 0;
    for (let i = 0; i < size; i++) sum += Math.abs(s.data[i + j * s.ld]!);
    if (Number.isNaN(sum)) return NaN;
    worst = Math.max(worst, sum);
  }
  return worst;
}

function batchOf<T extends FloatArray | DeviceArray>(data: T, s: { n: number; ld: number }, size = s.n): StridedBatch<T> {
  return strided(data, { rows: size, cols: size, count: 1, ld: s.ld, stride: s.ld * s.n }) as StridedBatch<T>;
}

/**
 * The leading `size` x `size` block of `target` minus the product `left` x `right` of the two
 * factors (each read with its transposition), on the device; the 1-norm of the difference over
 * (size eps ||target||_1): LAPACK's ratio.
 */
function residualRatio(dev: GpuDevice, dtype: DType, target: Square, left: Square, transLeft: 'N' | 'T', right: Square, transRight: 'N' | 'T', size: number): number {
  const dC = dev.upload(target.data), dL = dev.upload(left.data), dR = dev.upload(right.data);
  try {
    gemmCuda(dev, { transA: transLeft, transB: transRight, alpha: -1, beta: 1, a: batchOf(dL, left, size), b: batchOf(dR, right, size), c: batchOf(dC, target, size) });
    const diff: Square = { ...target, data: dev.download(dC) as FloatArray };
    return norm1(diff, size) / (size * DTYPE_EPS[dtype] * norm1(target, size));
  } finally {
    dC.dispose(); dL.dispose(); dR.dispose();
  }
}

/** The factor's triangle of `got` with the other triangle zeroed (and, for L of an LU, a unit diagonal). */
function triangle(got: Square, uplo: Uplo, unitDiagonal = false): Square {
  const t = { ...got, data: got.data.slice() };
  for (let j = 0; j < got.n; j++) {
    for (let i = 0; i < got.n; i++) if (uplo === 'lower' ? i < j : i > j) t.data[i + j * got.ld] = 0;
    if (unitDiagonal) t.data[j + j * got.ld] = 1;
  }
  return t;
}

function potrfOnDevice(dev: GpuDevice, s: Square, uplo: Uplo): { got: Square; info: number } {
  const dA = dev.upload(s.data), dInfo = dev.alloc('int32', 1);
  dev.fill(dInfo, 0xff);
  try {
    potrfCuda(dev, { uplo, a: batchOf(dA, s), info: dInfo });
    return { got: { ...s, data: dev.download(dA) as FloatArray }, info: (dev.download(dInfo) as Int32Array)[0]! };
  } finally {
    dA.dispose(); dInfo.dispose();
  }
}

/** ||A - L L^T|| (lower) or ||A - U^T U|| (upper) over the leading `size` block, as LAPACK's ratio. */
function choleskyRatio(dev: GpuDevice, dtype: DType, a: Square, got: Square, uplo: Uplo, size: number): number {
  const f = triangle(got, uplo);
  return uplo === 'lower' ? residualRatio(dev, dtype, a, f, 'N', f, 'T', size) : residualRatio(dev, dtype, a, f, 'T', f, 'N', size);
}

for (const [dtype, uplo, n, ld] of [
  ['float64', 'lower', 4096, 4097], ['float64', 'upper', 8191, 8194], ['float64', 'lower', 10240, 10241],
  ['float32', 'lower', 4096, 4099], ['float32', 'upper', 8191, 8192], ['float32', 'lower', 10240, 10243],
] as const) {
  test(`potrf, one matrix ${dtype} ${uplo} n = ${n} (ld ${ld}): info 0, residual on the GPU < ${THRESHOLD}`, { skip, timeout: 300_000 }, () => {
    const dev = gpu();
    const a = spd(new Rng(n + ld), dtype, n, ld);
    const { got, info } = potrfOnDevice(dev, a, uplo);
    assert.equal(info, 0, 'info');
    const ratio = choleskyRatio(dev, dtype, a, got, uplo, n);
    assert.ok(ratio < THRESHOLD, `residual ratio ${ratio}`);
  });
}

for (const [dtype, uplo, column] of [['float64', 'lower', 5001], ['float32', 'upper', 8192], ['float64', 'upper', 97]] as const) {
  const n = 8192, ld = n + 1;
  test(`potrf ${dtype} ${uplo} n = ${n}, leading minor ${column} not positive: info ${column}, the leading block factored`, { skip, timeout: 300_000 }, () => {
    const dev = gpu();
    const a = spd(new Rng(column), dtype, n, ld);
    a.data[(column - 1) * (ld + 1)] = -1;
    const { got, info } = potrfOnDevice(dev, a, uplo);
    assert.equal(info, column, 'info names the planted column');
    const ratio = choleskyRatio(dev, dtype, a, got, uplo, column - 1);
    assert.ok(ratio < THRESHOLD, `the leading ${column - 1} block: residual ratio ${ratio}`);
  });
}

function getrfOnDevice(dev: GpuDevice, s: Square): { got: Square; ipiv: Int32Array; info: number } {
  const dA = dev.upload(s.data), dInfo = dev.alloc('int32', 1), dPiv = dev.alloc('int32', s.n);
  dev.fill(dInfo, 0xff); dev.fill(dPiv, 0xff);
  try {
    getrfCuda(dev, { a: batchOf(dA, s), ipiv: dPiv, pivotStride: s.n, info: dInfo });
    return { got: { ...s, data: dev.download(dA) as FloatArray }, ipiv: dev.download(dPiv) as Int32Array, info: (dev.download(dInfo) as Int32Array)[0]! };
  } finally {
    dA.dispose(); dInfo.dispose(); dPiv.dispose();
  }
}

/** P A: A's rows interchanged as ipiv says (myriad's pivots are 0-based: row j with row ipiv[j], in order). */
function permuted(a: Square, ipiv: Int32Array): Square {
  const p = { ...a, data: a.data.slice() };
  for (let j = 0; j < a.n; j++) {
    const r = ipiv[j]!;
    assert.ok(r >= j && r < a.n, `ipiv[${j}] = ${r} is a row at or below ${j}`);
    if (r === j) continue;
    for (let c = 0; c < a.n; c++) {
      const x = p.data[j + c * a.ld]!;
      p.data[j + c * a.ld] = p.data[r + c * a.ld]!;
      p.data[r + c * a.ld] = x;
    }
  }
  return p;
}

for (const [dtype, n, ld] of [['float64', 4096, 4099], ['float64', 8191, 8192], ['float64', 10240, 10243], ['float32', 4096, 4097], ['float32', 1500, 1501]] as const) {
  test(`getrf, one matrix ${dtype} n = ${n} (ld ${ld}): info 0, ||PA - LU|| on the GPU < ${THRESHOLD}`, { skip, timeout: 300_000 }, () => {
    const dev = gpu();
    const a = general(new Rng(n), dtype, n, ld);
    const { got, ipiv, info } = getrfOnDevice(dev, a);
    assert.equal(info, 0, 'info');
    const ratio = residualRatio(dev, dtype, permuted(a, ipiv), triangle(got, 'lower', true), 'N', triangle(got, 'upper'), 'N', n);
    assert.ok(ratio < THRESHOLD, `residual ratio ${ratio}`);
  });
}

test('getrf float64 n = 4096 with a zero column: info as LAPACK (that column), the factor still P A = L U', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const n = 4096, ld = n + 1, column = 1235;
  const a = general(new Rng(77), 'float64', n, ld);
  a.data.fill(0, (column - 1) * ld, (column - 1) * ld + n);
  const { got, ipiv, info } = getrfOnDevice(dev, a);
  assert.equal(info, column, 'info is the zero column (its U diagonal is the first zero pivot)');
  assert.equal(ipiv[column - 1], column - 1, 'a zero column pivots on its diagonal (idamax takes the first of equal magnitudes)');
  // dgetrf goes on past a zero pivot (no swap, no scaling there), so P A = L U still holds.
  const ratio = residualRatio(dev, 'float64', permuted(a, ipiv), triangle(got, 'lower', true), 'N', triangle(got, 'upper'), 'N', n);
  assert.ok(ratio < THRESHOLD, `residual ratio ${ratio}`);
});
