/**
 * Batched lauum on a real GPU (skipped where none is usable) against the CPU reference
 * (src/cpu/lapack/inverse.ts) on fresh random triangles: both uplo at n = 1..40, then 47, 64, 100,
 * 127, 128, 200, 256, 300, 512 (leaf, and the recursion over syrk and trmm), forced small and
 * large leaves, the register leaf forced at every accumulator shape (with NaN in A's other triangle
 * and infinities and NaN in its triangle), odd ld, stride and offset, list and variable batches,
 * both precisions. A's other triangle holds random values (NaN where said) and its padding and gaps
 * NaN: everything outside the triangle is checked bit for bit. info (poisoned) must come back 0. Last, a CUDA context's lauum on device
 * data runs on the GPU with no host copy.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { list, strided, variable, type Batch } from '../../src/core/batch.js';
import type { DType, FloatArray } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import { cpuLauum } from '../../src/cpu/lapack/index.js';
import { lauumCuda, type LauumOptions } from '../../src/cuda/kernels/lauum/index.js';
import { hasGpuOp } from '../../src/cuda/router.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/index.js';
import { countingContext, gpu, gpuSkipReason } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';
import { inTriangle, syrkTolerance } from '../helpers/syrk-data.js';
import { compareOutput, inStrided, layoutLength, oddLayout, randomBuffer, type Layout } from '../helpers/trsm-data.js';

const skip = gpuSkipReason();
const DTYPES: DType[] = ['float64', 'float32'];
const UPLOS: Uplo[] = ['lower', 'upper'];
const SMALL = [1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 23, 31, 32, 33, 37, 40];
const LARGE = [47, 64, 100, 127, 128, 200, 256, 300, 512];

/** Downloads info and checks every entry is 0. */
function checkInfo(dev: GpuDevice, info: DeviceArray, what: string): void {
  const got = dev.download(info) as Int32Array;
  got.forEach((x, i) => assert.equal(x, 0, `${what}: info[${i}]`));
}

/**
 * One strided case on the GPU against the CPU reference. `special`: NaN in A's other triangle too,
 * and +inf, NaN and -inf in the last matrix's triangle (they must reach exactly the reference's elements).
 */
function checkStrided(dev: GpuDevice, rng: Rng, dtype: DType, uplo: Uplo, n: number, count: number, opts?: LauumOptions, special = false): void {
  const l: Layout = oddLayout(n, n, count);
  const A = randomBuffer(rng, dtype, layoutLength(l));
  const inside = special ? inTriangle(l, uplo) : inStrided(l);
  for (let e = 0; e < A.length; e++) if (!inside(e)) A[e] = NaN;
  if (special && n >= 5) for (const [i, j, v] of [[n - 1, 1, Infinity], [3, 2, NaN], [4, 4, -Infinity]] as const) {
    const [r, c] = uplo === 'lower' ? [i, j] : [j, i];
    A[l.offset + (count - 1) * l.stride + r + c * l.ld] = v;
  }
  const batch = <S extends FloatArray | DeviceArray>(data: S): Batch<S> => strided(data, { rows: n, cols: n, count, ld: l.ld, stride: l.stride, offset: l.offset });
  const want = A.slice();
  cpuLauum({ uplo, a: batch(want), info: new Int32Array(count) });
  const dA = dev.upload(A);
  const info = dev.upload(new Int32Array(count).fill(-7));
  try {
    lauumCuda(dev, { uplo, a: batch(dA), info }, opts);
    const what = `lauum ${dtype} ${uplo} n=${n} count=${count}${opts?.force ? ` force ${JSON.stringify(opts.force)}` : ''}`;
    compareOutput(dev.download(dA) as FloatArray, want, inTriangle(l, uplo), syrkTolerance(dtype, n), what);
    checkInfo(dev, info, what);
  } finally {
    dA.dispose();
    info.dispose();
  }
}

test('lauum, both uplo, n = 1..40 (the leaf, and one split above 32)', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1231);
  for (const dtype of DTYPES) for (const uplo of UPLOS) for (const n of SMALL) checkStrided(dev, rng, dtype, uplo, n, Math.max(1, Math.min(40, Math.floor(20_000 / (n * n)))));
});

test('lauum, both uplo, n = 47 ... 512 (the recursion over syrk and trmm)', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1232);
  for (const dtype of DTYPES) for (const uplo of UPLOS) for (const n of LARGE) checkStrided(dev, rng, dtype, uplo, n, n >= 256 ? 1 : 3);
});

test('lauum with forced leaves: deep recursion (leaves of 4 and 16), one leaf of 64, the shared-memory leaf', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1233);
  for (const dtype of DTYPES) for (const uplo of UPLOS) {
    checkStrided(dev, rng, dtype, uplo, 47, 3, { force: { leafMax: 4 } });
    checkStrided(dev, rng, dtype, uplo, 100, 2, { force: { leafMax: 16 } });
    checkStrided(dev, rng, dtype, uplo, 64, 5, { force: { leafMax: 64 } });
    // The shared-memory leaf (the register leaf is the table's choice): alone and under the recursion.
    for (const n of [1, 7, 32]) checkStrided(dev, rng, dtype, uplo, n, 9, { force: { leaf: 'shared' } });
    checkStrided(dev, rng, dtype, uplo, 64, 5, { force: { leaf: 'shared', leafMax: 64 } });
    checkStrided(dev, rng, dtype, uplo, 100, 3, { force: { leaf: 'shared', leafMax: 32 } });
  }
});

test('lauum\'s register leaf, forced: every accumulator shape, plain and pipelined, square and packed, leaves of 32 and 64, NaN outside the triangle, infinities in it', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1236);
  for (const dtype of DTYPES) for (const uplo of UPLOS) for (const [leafMax, reg] of [[32, 1], [32, 2], [32, 4], [64, 2], [64, 4], [64, 8]] as const) for (const pipelined of [false, true]) {
    for (const n of [1, 5, 16, 31, 32, 33, 47, 64, 100]) {
      const packed = (n + reg) % 3 === 0;
      checkStrided(dev, rng, dtype, uplo, n, Math.max(2, Math.min(40, Math.floor(20_000 / (n * n)))), { force: { leaf: 'register', reg, leafMax, pipelined, packed } }, true);
    }
  }
  // Many groups a persistent block (the pipelined form's loop) in the bench's kind of batch.
  for (const dtype of DTYPES) for (const n of [32, 64]) for (const packed of [false, true]) checkStrided(dev, rng, dtype, 'lower', n, n === 32 ? 8_000 : 3_000, { force: { leaf: 'register', reg: n === 32 ? 4 : 8, leafMax: 64, pipelined: true, packed } });
});

test('lauum on list and variable batches (shape groups, pointer arrays, zero-size members)', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1234);
  for (const dtype of DTYPES) for (const uplo of UPLOS) {
    const sizes = [5, 40, 100, 5, 1, 0, 70, 5, 33];
    const off: number[] = [], ld: number[] = [];
    let len = 3;
    for (const n of sizes) { ld.push(n + 2); off.push(len); len += (n + 2) * n + 5; }
    const A = randomBuffer(rng, dtype, len + 4);
    const at = (e: number, i: number): [number, number] | undefined => {
      const q = e - off[i]!, n = sizes[i]!;
      if (q < 0 || q >= ld[i]! * n || q % ld[i]! >= n) return undefined;
      return [q % ld[i]!, Math.floor(q / ld[i]!)];
    };
    const inside = (e: number): boolean => sizes.some((_, i) => at(e, i) !== undefined);
    for (let e = 0; e < A.length; e++) if (!inside(e)) A[e] = NaN;
    const varBatch = <S extends FloatArray | DeviceArray>(a: S): Batch<S> => variable(sizes.map((n, i) => ({ data: a, rows: n, cols: n, ld: ld[i]!, offset: off[i]! })));
    // A list batch: the three 5 x 5 members (indices 0, 3, 7) in reverse order.
    const listBatch = <S extends FloatArray | DeviceArray>(a: S): Batch<S> => list([7, 3, 0].map((i) => ({ data: a, offset: off[i]! })), { rows: 5, ld: ld[0]! });
    const inTri = (members: readonly number[]) => (e: number): boolean =>
      members.some((i) => { const p = at(e, i); return p !== undefined && (uplo === 'lower' ? p[0] >= p[1] : p[0] <= p[1]); });
    for (const [form, make, members] of [['variable', varBatch, sizes.map((_, i) => i)], ['list', listBatch, [7, 3, 0]]] as const) {
      const want = A.slice();
      cpuLauum({ uplo, a: make(want), info: new Int32Array(members.length) });
      const dA = dev.upload(A);
      const info = dev.upload(new Int32Array(members.length).fill(-7));
      try {
        lauumCuda(dev, { uplo, a: make(dA), info });
        const what = `lauum ${dtype} ${uplo} ${form}`;
        compareOutput(dev.download(dA) as FloatArray, want, inTri(members), syrkTolerance(dtype, 100), what);
        checkInfo(dev, info, what);
      } finally {
        dA.dispose();
        info.dispose();
      }
    }
  }
});

test('a CUDA context runs lauum on device-resident batches on the GPU: no CPU fallback, no host copy', { skip }, () => {
  assert.ok(hasGpuOp('lauum'), 'lauum has a GPU kernel');
  const dev = gpu();
  const { ctx, copies } = countingContext(dev);
  const rng = new Rng(1235);
  const n = 100, count = 9;
  const l = oddLayout(n, n, count);
  const A = randomBuffer(rng, 'float64', layoutLength(l));
  const batch = <S extends FloatArray | DeviceArray>(data: S): Batch<S> => strided(data, { rows: n, cols: n, count, ld: l.ld, stride: l.stride, offset: l.offset });
  const dA = dev.upload(A);
  const info = dev.upload(new Int32Array(count).fill(-7));
  try {
    ctx.lauum({ uplo: 'lower', a: batch(dA), info });
    dev.synchronize();
    assert.equal(copies(), 0, 'lauum on device data copied to or from the host');
    const want = A.slice();
    cpuLauum({ uplo: 'lower', a: batch(want), info: new Int32Array(count) });
    compareOutput(dev.download(dA) as FloatArray, want, inTriangle(l, 'lower'), syrkTolerance('float64', n), 'context lauum');
    checkInfo(dev, info, 'context lauum');
  } finally {
    dA.dispose();
    info.dispose();
  }
});
