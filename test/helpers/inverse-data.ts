/**
 * GPU test cases of the in-place inverses (trtri, potri, poti): one buffer of matrices with odd ld,
 * gaps and offset, everything a call must not read or write NaN (the other triangle, the diagonal
 * where unit, padding, gaps), run on the GPU and on the CPU reference with info poisoned, then
 * compared: the written triangle within a tolerance, every other element bit for bit, info exact.
 */
import assert from 'node:assert/strict';
import { list, strided, variable, type Batch } from '../../src/core/batch.js';
import type { Diag, Uplo } from '../../src/core/enums.js';
import type { DType, FloatArray } from '../../src/core/dtype.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/index.js';
import { Rng, randomSpd } from './random.js';
import { compareOutput, fillTriangle, randomBuffer } from './trsm-data.js';

/** What a matrix of the case holds: a triangle (trtri, potri) or an SPD matrix's `uplo` triangle (poti). */
export type Content = 'triangle' | 'spd';

/** A matrix that must fail: its diagonal element `at` (0-based) set to `value` (0: singular; < 0: not positive definite). */
export interface Failure { matrix: number; at: number; value: number }

export interface InverseCase {
  dtype: DType;
  uplo: Uplo;
  diag: Diag;
  content: Content;
  /** Sizes of the matrices (all equal for 'strided' and 'list'). */
  sizes: number[];
  form: 'strided' | 'list' | 'variable';
  failures?: Failure[];
}

type Request<S> = { uplo: Uplo; diag: Diag; a: Batch<S>; info: S extends FloatArray ? Int32Array : DeviceArray };

/**
 * Runs `gpu` and `cpu` on the same data and compares. `gpu` gets device batches and a device info
 * array poisoned with -7; `cpu` the host ones.
 */
export function checkInverse(
  dev: GpuDevice, rng: Rng, c: InverseCase,
  cpu: (r: Request<FloatArray>) => void, gpu: (r: Request<DeviceArray>) => void, what: string,
): void {
  const count = c.sizes.length;
  const varying = c.form === 'variable';
  if (!varying) assert.ok(c.sizes.every((n) => n === c.sizes[0]), 'strided and list cases have matrices of one size');
  // Odd leading dimensions (one per batch unless variable), gaps between matrices (uneven in lists).
  const lds = c.sizes.map((n, i) => n + 1 + ((n + (varying ? i : 0)) % 3));
  const offs: number[] = [];
  let len = 5;
  c.sizes.forEach((n, i) => { offs.push(len); len += lds[i]! * n + 3 + (c.form === 'strided' ? 0 : i % 2); });
  const A = randomBuffer(rng, c.dtype, len + 4);
  c.sizes.forEach((n, i) => {
    const off = offs[i]!, ld = lds[i]!;
    if (c.content === 'triangle') fillTriangle(rng, A, off, ld, n, c.uplo, c.diag);
    else {
      const s = randomSpd(rng, 'float64', n);
      for (let j = 0; j < n; j++) for (let r = 0; r < n; r++)
        A[off + r + j * ld] = (c.uplo === 'lower' ? r >= j : r <= j) ? s.data[s.offset + r + j * s.ld]! : NaN;
    }
  });
  for (const f of c.failures ?? []) {
    assert.ok(f.at < (c.sizes[f.matrix] ?? 0), `failure at ${f.at} outside matrix ${f.matrix}`);
    A[offs[f.matrix]! + f.at * (lds[f.matrix]! + 1)] = f.value;
  }
  const inside = (e: number): boolean => c.sizes.some((n, i) => {
    const q = e - offs[i]!;
    if (q < 0 || q >= lds[i]! * n) return false;
    const r = q % lds[i]!, j = Math.floor(q / lds[i]!);
    return r < n && (c.uplo === 'lower' ? r >= j : r <= j) && !(c.diag === 'unit' && r === j);
  });
  for (let e = 0; e < A.length; e++) if (!inside(e)) A[e] = NaN;
  const batch = <S extends FloatArray | DeviceArray>(data: S): Batch<S> => {
    if (c.form === 'strided') {
      const n = c.sizes[0]!;
      return strided(data, { rows: n, cols: n, count, ld: lds[0]!, stride: lds[0]! * n + 3, offset: offs[0]! });
    }
    if (c.form === 'list') return list(offs.map((o) => ({ data, offset: o })), { rows: c.sizes[0]!, ld: lds[0]! });
    return variable(c.sizes.map((n, i) => ({ data, rows: n, cols: n, ld: lds[i]!, offset: offs[i]! })));
  };
  const want = A.slice();
  const refInfo = new Int32Array(count).fill(-7);
  cpu({ uplo: c.uplo, diag: c.diag, a: batch(want), info: refInfo });
  const dA = dev.upload(A);
  const dInfo = dev.upload(new Int32Array(count + 2).fill(-7));
  try {
    gpu({ uplo: c.uplo, diag: c.diag, a: batch(dA), info: dInfo });
    const info = dev.download(dInfo) as Int32Array;
    assert.deepEqual([...info.subarray(0, count)], [...refInfo], `${what}: info`);
    assert.deepEqual([...info.subarray(count)], [-7, -7], `${what}: info beyond the batch`);
    const nmax = Math.max(8, ...c.sizes);
    const eps = c.dtype === 'float64' ? 2.220446049250313e-16 : 1.1920928955078125e-7;
    // A Cholesky that fails (poti: info > 0 from potrf) leaves its completed columns (before
    // info - 1) as LAPACK does; from the failing column on, what a blocked factorisation leaves is
    // its own (potrf's GPU test skips failed matrices whole), so only the completed columns are compared.
    const failedFrom = (e: number): boolean => c.content === 'spd' && c.sizes.some((n, i) => {
      const q = e - offs[i]!;
      return refInfo[i]! > 0 && q >= 0 && q < lds[i]! * n && Math.floor(q / lds[i]!) >= refInfo[i]! - 1;
    });
    const got = dev.download(dA) as FloatArray;
    for (let e = 0; e < got.length; e++) if (inside(e) && failedFrom(e)) want[e] = got[e]!;
    compareOutput(got, want, inside, eps * 64 * nmax * (c.content === 'spd' ? 4 : 1), what);
  } finally {
    dA.dispose();
    dInfo.dispose();
  }
}

/** Sizes for strided and list batches: every matrix at the same ld and stride. */
export function uniformCase<C extends Omit<Partial<InverseCase>, 'sizes'>>(c: C & { n: number; count: number }): C & { sizes: number[] } {
  return { ...c, sizes: Array.from({ length: c.count }, () => c.n) };
}
