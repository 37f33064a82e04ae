/**
 * The vendor's loops of `myriad bench --vbatched` (bench/vbatched-vendor-solve.ts) on the GPU, so
 * that the bench's vendor columns time calls that do the work: getrf (cublas?getrfBatched per
 * order), trsm (cublas?trsmBatched, left lower), posv (cusolverDn?potrfBatched and cublas?trsmBatched
 * twice) and gesv (cublas?getrfBatched and ?getrsBatched), both precisions, on a fresh variable
 * batch of the bench's layout (square members packed, orders 1-100 log-uniform and a few of 256,
 * 513 and 600, so groups beyond the classes too; B n x n per member), A = U[0,1) + n I (strictly
 * diagonally dominant by columns, so partial pivoting keeps the diagonal and L U = A). Checked on
 * the host: getrf's L U against A, and the solves' residuals |A X - B| (trsm with A's lower
 * triangle) within a backward-stable bound. The calls write in place, so a member left unwritten
 * fails its check (A's L U is not A, B's residual is A B - B). A library that does not load here
 * skips with the reason.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allocate, DTYPE_EPS, type DType, type FloatArray } from '../../src/core/dtype.js';
import type { GesvRequest, GetrfRequest, PosvRequest, TrsmRequest } from '../../src/core/ops.js';
import { logUniformSizes, vbatchedRequest } from '../../src/bench/vbatched.js';
import { vendorGesv, vendorGetrf, vendorPosv, vendorTrsm } from '../../src/bench/vbatched-vendor-solve.js';
import type { VendorRun } from '../../src/bench/vbatched-vendor.js';
import type { DeviceArray } from '../../src/cuda/runtime/types.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';

const skip = gpuSkipReason();
const SIZES = [...logUniformSizes(400, 100, 9), 256, 513, 600, 513];
const OFFSETS = SIZES.reduce<number[]>((o, n, i) => { o.push(i === 0 ? 0 : o[i - 1]! + SIZES[i - 1]! ** 2); return o; }, []);
const ELEMENTS = SIZES.reduce((s, n) => s + n * n, 0);

/** Host data: A = U[0,1) + n I per member, B U[-1, 1). */
function hostData(dtype: DType, rng: Rng): { a: FloatArray; b: FloatArray } {
  const a = allocate(dtype, ELEMENTS), b = allocate(dtype, ELEMENTS);
  for (let e = 0; e < ELEMENTS; e++) { a[e] = rng.uniform(0, 1); b[e] = rng.uniform(-1, 1); }
  SIZES.forEach((n, i) => { for (let j = 0; j < n; j++) a[OFFSETS[i]! + j * (n + 1)] += n; });
  return { a, b };
}

/** Runs `make`'s loop on device copies of a and b; the results downloaded (undefined: the library is not here). */
function runLoop(dtype: DType, a: FloatArray, b: FloatArray, make: (r: Record<string, unknown>) => VendorRun | undefined): { a: FloatArray; b: FloatArray } | undefined {
  const dev = gpu();
  const arrays: DeviceArray[] = [dev.upload(a), dev.upload(b), dev.alloc('int32', SIZES.length), dev.alloc('int32', SIZES.length * 600)];
  try {
    const run = make(vbatchedRequest('gesv', SIZES, [arrays[0]!, arrays[1]!], arrays[2]!, arrays[3]!));
    if (run === undefined) return undefined;
    try {
      run.run();
      dev.synchronize();
    } finally {
      run.dispose();
    }
    return { a: dev.download(arrays[0]!) as FloatArray, b: dev.download(arrays[1]!) as FloatArray };
  } finally {
    for (const x of arrays) x.dispose();
  }
}

/** max over the member's entries of |M X - B| / (n eps (|M| |X| + |B|)) with M = tri(A) (`lower`: its lower triangle; else all of A). */
function residual(dtype: DType, i: number, a: FloatArray, x: FloatArray, b: FloatArray, lower: boolean): number {
  const n = SIZES[i]!, o = OFFSETS[i]!;
  let worst = 0;
  for (let c = 0; c < n; c++) for (let r = 0; r < n; r++) {
    let s = 0, bound = 0;
    for (let k = 0; k < (lower ? r + 1 : n); k++) {
      const m = a[o + r + k * n]!, v = x[o + k + c * n]!;
      s += m * v;
      bound += Math.abs(m * v);
    }
    const e = Math.abs(s - b[o + r + c * n]!) / (n * DTYPE_EPS[dtype] * (bound + Math.abs(b[o + r + c * n]!)));
    worst = Number.isNaN(e) ? Infinity : Math.max(worst, e);
  }
  return worst;
}

for (const dtype of ['float64', 'float32'] as const) {
  test(`vendor loop getrf ${dtype}: L U = A per member (no interchanges on column-dominant A)`, { skip, timeout: 300_000 }, (t) => {
    const { a } = hostData(dtype, new Rng(1));
    const out = runLoop(dtype, a, allocate(dtype, ELEMENTS), (r) => vendorGetrf(gpu(), r as unknown as GetrfRequest<DeviceArray, DeviceArray>));
    if (out === undefined) { t.skip('cuBLAS does not load here'); return; }
    SIZES.forEach((n, i) => {
      const o = OFFSETS[i]!;
      let worst = 0;
      for (let c = 0; c < n; c++) for (let r = 0; r < n; r++) {
        let s = 0, bound = 0;
        for (let k = 0; k <= Math.min(r, c); k++) {
          const l = k === r ? 1 : out.a[o + r + k * n]!, u = out.a[o + k + c * n]!;
          s += l * u;
          bound += Math.abs(l * u);
        }
        const e = Math.abs(s - a[o + r + c * n]!) / (n * DTYPE_EPS[dtype] * bound);
        worst = Number.isNaN(e) ? Infinity : Math.max(worst, e);
      }
      assert.ok(worst <= 4, `member ${i} (n ${n}): |L U - A| is ${worst.toFixed(1)} n eps |L| |U|`);
    });
  });

  for (const op of ['trsm', 'posv', 'gesv'] as const) {
    test(`vendor loop ${op} ${dtype}: |A X - B| within a backward-stable bound for every member`, { skip, timeout: 300_000 }, (t) => {
      const { a, b } = hostData(dtype, new Rng(op.length + (dtype === 'float64' ? 0 : 10)));
      const request = (r: Record<string, unknown>): Record<string, unknown> =>
        op === 'trsm' ? { side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', alpha: 1, a: r['a'], b: r['b'] } : op === 'posv' ? { uplo: 'lower', a: r['a'], b: r['b'], info: r['info'] } : r;
      const out = runLoop(dtype, a, b, (r) => {
        const q = request(r) as never;
        return op === 'trsm' ? vendorTrsm(gpu(), q as TrsmRequest<DeviceArray>) : op === 'posv' ? vendorPosv(gpu(), q as PosvRequest<DeviceArray, DeviceArray>) : vendorGesv(gpu(), q as GesvRequest<DeviceArray, DeviceArray>);
      });
      if (out === undefined) { t.skip('cuBLAS or cuSOLVER does not load here'); return; }
      // posv's A is SPD only in its lower triangle as read: the residual is with the symmetric A the
      // lower triangle stands for; trsm's with the triangle; gesv's with A.
      const full = op === 'posv' ? symmetricFromLower(a) : a;
      SIZES.forEach((n, i) => {
        const worst = residual(dtype, i, full, out.b, b, op === 'trsm');
        // posv: A's condition is small (diagonally dominant), so the forward error of the two
        // triangular solves after Cholesky stays within a few units too.
        assert.ok(worst <= 8, `member ${i} (n ${n}): |A X - B| is ${worst.toFixed(1)} n eps (|A| |X| + |B|)`);
      });
    });
  }
}

/** Every member's symmetric matrix whose lower triangle is a's. */
function symmetricFromLower(a: FloatArray): FloatArray {
  const s = a.slice();
  SIZES.forEach((n, i) => {
    const o = OFFSETS[i]!;
    for (let c = 0; c < n; c++) for (let r = 0; r < c; r++) s[o + r + c * n] = a[o + c + r * n]!;
  });
  return s;
}
