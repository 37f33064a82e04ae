/**
 * The GPU syev check both designs' tests share (test/gpu/jacobi-*.test.ts, test/gpu/tridiag.test.ts):
 * matrices placed with ld = rows + 1, a gap of 3 between them and NaN everywhere else (the triangle
 * syev must not read included), syev through the caller's launcher, then info and w against the
 * CPU reference, nothing written outside A's matrices and w, and the residual and orthogonality
 * ratios (LAPACK's test ratios, < 30).
 */
import assert from 'node:assert/strict';

import { strided } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import type { SyevRequest } from '../../src/core/ops.js';
import { cpuSyev } from '../../src/cpu/lapack/index.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/index.js';
import { eigenResidual, frob, mat, orthoResidual, symmetricCase, type Mat, type SymKind } from './jacobi-checks.js';
import type { Rng } from './random.js';

export const EPS: Record<DType, number> = { float64: 2 ** -52, float32: 2 ** -23 };
/** LAPACK's test ratio threshold. */
export const LIMIT = 30;

/** `a` as float32 data holds it (float64 unchanged). */
export const rounded = (a: Mat, dtype: DType): Mat => ({ ...a, d: dtype === 'float32' ? Float64Array.from(new Float32Array(a.d)) : a.d });

/** `count` packed symmetric n x n matrices, entries uniform in [-1, 1) (large batches: no reference, residuals of a few). */
export function randomSymmetricBatch(rng: Rng, dtype: DType, n: number, count: number): FloatArray {
  const host = allocate(dtype, n * n * count);
  for (let k = 0; k < count; k++) for (let j = 0; j < n; j++) for (let i = j; i < n; i++) {
    const x = rng.uniform();
    host[k * n * n + i + j * n] = x;
    host[k * n * n + j + i * n] = x;
  }
  return host;
}

/** Matrices (all m x n) in one buffer: ld = m + 1, a gap of 3 between them, NaN everywhere else. */
export function place(mats: Mat[], dtype: DType): { data: FloatArray; ld: number; stride: number; inside: (e: number) => boolean } {
  const { m, n } = mats[0]!;
  const ld = m + 1;
  const stride = ld * n + 3;
  const data = allocate(dtype, stride * mats.length + 2).fill(NaN);
  mats.forEach((a, k) => { for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) data[k * stride + i + j * ld] = a.d[i + j * m]!; });
  const inside = (e: number): boolean => {
    const r = e % stride;
    return Math.floor(e / stride) < mats.length && r < ld * n && r % ld < m;
  };
  return { data, ld, stride, inside };
}

/** The m x n matrix at `off` (leading dimension ld) as a dense Mat. */
export function read(data: FloatArray, off: number, ld: number, m: number, n: number): Mat {
  const out = mat(m, n);
  for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) out.d[i + j * m] = data[off + i + j * ld]!;
  return out;
}

export interface SyevCheckOptions {
  /** The matrix kinds, in turn. */
  readonly kinds: readonly SymKind[];
  /** Eigenvalues within valueLimit n eps ||A|| of the reference (default LIMIT). */
  readonly valueLimit?: number;
  /** Also require NaN vectors from the matrix with a NaN (the tridiagonal kernel's promise). */
  readonly nanVectors?: boolean;
  /** Names the design in messages. */
  readonly label: string;
}

/**
 * `count` matrices of the kinds in turn (#2 with a NaN on its last diagonal element where count > 2)
 * through `run`, then every check.
 */
export function checkSyevOnGpu(dev: GpuDevice, rng: Rng, dtype: DType, n: number, count: number, vectors: boolean, uplo: Uplo,
  run: (r: SyevRequest<DeviceArray, DeviceArray>) => void, o: SyevCheckOptions): void {
  const eps = EPS[dtype];
  const valueLimit = o.valueLimit ?? LIMIT;
  const mats = Array.from({ length: count }, (_, i) => rounded(symmetricCase(rng, o.kinds[i % o.kinds.length]!, n).a, dtype));
  const bad = count > 2 ? 2 : -1;
  if (bad >= 0) mats[bad]!.d[n * n - 1] = NaN;   // on the diagonal: read whatever the triangle
  const p = place(mats, dtype);
  mats.forEach((_, k) => { for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) if (uplo === 'lower' ? i < j : i > j) p.data[k * p.stride + i + j * p.ld] = NaN; });
  const A = p.data.slice();
  const refW = allocate(dtype, n * count);
  const refInfo = new Int32Array(count);
  cpuSyev({ jobz: 'values', uplo, a: strided(A.slice(), { rows: n, count, ld: p.ld, stride: p.stride }), w: strided(refW, { rows: n, cols: 1, count }), info: refInfo });
  const dA = dev.upload(A);
  const dW = dev.upload(allocate(dtype, n * count + 1).fill(NaN));
  const dInfo = dev.upload(new Int32Array(count).fill(-7));
  try {
    run({ jobz: vectors ? 'vectors' : 'values', uplo, a: strided(dA, { rows: n, count, ld: p.ld, stride: p.stride }), w: strided(dW, { rows: n, cols: 1, count }), info: dInfo });
    const a = dev.download(dA) as FloatArray;
    const w = dev.download(dW) as FloatArray;
    const info = dev.download(dInfo) as Int32Array;
    const what = `${o.label} syev ${dtype} n=${n} count=${count} ${vectors ? 'vectors' : 'values'} ${uplo}`;
    for (let e = 0; e < A.length; e++) {
      if (p.inside(e) && vectors) continue;
      assert.ok(Object.is(a[e], A[e]), `${what}: element ${e} outside the written region changed`);
    }
    assert.ok(Number.isNaN(w[n * count]!), `${what}: wrote past w`);
    mats.forEach((m0, k) => {
      const at = `${what} #${k}`;
      assert.equal(info[k], refInfo[k], `${at}: info`);
      const wk = Array.from(w.subarray(k * n, (k + 1) * n));
      if (k === bad) {
        assert.equal(info[k], n + 2);
        assert.ok(wk.every(Number.isNaN), `${at}: w NaN`);
        if (vectors && o.nanVectors === true) for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) assert.ok(Number.isNaN(a[k * p.stride + i + j * p.ld]!), `${at}: vectors NaN`);
        return;
      }
      const norm = frob(m0);
      wk.forEach((x, j) => assert.ok(Math.abs(x - refW[k * n + j]!) <= valueLimit * n * eps * norm, `${at}: w[${j}] = ${x}, reference ${refW[k * n + j]}`));
      wk.forEach((x, j) => assert.ok(j === 0 || wk[j - 1]! <= x, `${at}: w ascending at ${j} (${wk[j - 1]}, ${x})`));
      if (!vectors) return;
      const v = read(a, k * p.stride, p.ld, n, n);
      const r1 = eigenResidual(m0, v, wk, eps), r2 = orthoResidual(v, eps);
      assert.ok(r1 < LIMIT && r2 < LIMIT, `${at}: ||AV - VW|| ratio ${r1}, ||V^T V - I|| ratio ${r2}`);
    });
  } finally {
    dA.dispose(); dW.dispose(); dInfo.dispose();
  }
}
