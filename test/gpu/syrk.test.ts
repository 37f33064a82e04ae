/**
 * Batched syrk on a real GPU (skipped where none is usable) against the CPU reference
 * (src/cpu/syrk.ts) on fresh random inputs: both uplo x trans at n = 1..40 (k = n, 1, or an odd
 * k > n), then 47, 64, 100, 127, 128, 200, 256, 300, 512 (leaf and recursion over GEMM; from 256 one GEMM
 * over the triangle, also forced at small odd n), alpha 0 /
 * 1 / -2.5, beta 0 (the written triangle poisoned with NaN: C must not be read) and nonzero, k = 0,
 * odd ld, stride and offset, stride-0 broadcast of A, forced small leaves and chunks, list and
 * variable batches, both precisions. C's other triangle holds random values and its padding and
 * gaps NaN: everything outside the written triangle is checked bit for bit, and A must come back
 * unchanged. Last, a CUDA context's syrk on device data runs on the GPU with no host copy.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { list, strided, variable, type Batch } from '../../src/core/batch.js';
import type { DType, FloatArray } from '../../src/core/dtype.js';
import type { SyrkRequest } from '../../src/core/ops.js';
import { cpuSyrk } from '../../src/cpu/syrk.js';
import { syrkCuda, type SyrkOptions, type SyrkVariant } from '../../src/cuda/kernels/syrk/index.js';
import { hasGpuOp } from '../../src/cuda/router.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/index.js';
import { countingContext, gpu, gpuSkipReason } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';
import { inTriangle, syrkTolerance } from '../helpers/syrk-data.js';
import { compareOutput, inStrided, layoutLength, oddLayout, randomBuffer, type Layout } from '../helpers/trsm-data.js';

const skip = gpuSkipReason();
const DTYPES: DType[] = ['float64', 'float32'];
const VARIANTS: readonly SyrkVariant[] = (['lower', 'upper'] as const).flatMap((uplo) => (['N', 'T'] as const).map((trans) => ({ uplo, trans })));
const LARGE = [47, 64, 100, 127, 128, 200, 256, 300, 512];
const name = (v: SyrkVariant): string => `${v.uplo}/${v.trans}`;

interface Setup { v: SyrkVariant; dtype: DType; n: number; k: number; count: number; alpha: number; beta: number; broadcast?: boolean; opts?: SyrkOptions }

/** C's buffer: random, NaN outside the matrices, and NaN over the written triangle where beta = 0. */
function cBuffer(rng: Rng, dtype: DType, l: Layout, uplo: SyrkVariant['uplo'], beta: number): FloatArray {
  const C = randomBuffer(rng, dtype, layoutLength(l));
  const inside = inStrided(l), written = inTriangle(l, uplo);
  for (let e = 0; e < C.length; e++) if (!inside(e) || (beta === 0 && written(e))) C[e] = NaN;
  return C;
}

/** One strided case on the GPU against the CPU reference. */
function checkStrided(dev: GpuDevice, rng: Rng, s: Setup): void {
  const { v, dtype, n, k, count, alpha, beta } = s;
  const [ar, ac] = v.trans === 'N' ? [n, k] : [k, n];
  const la = oddLayout(ar, ac, count, s.broadcast === true);
  const lc = oddLayout(n, n, count);
  const A = randomBuffer(rng, dtype, layoutLength(la));
  const inA = inStrided(la);
  for (let e = 0; e < A.length; e++) if (!inA(e)) A[e] = NaN;
  const C = cBuffer(rng, dtype, lc, v.uplo, beta);
  const batch = <S extends FloatArray | DeviceArray>(data: S, l: Layout, rows: number, cols: number): Batch<S> =>
    strided(data, { rows, cols, count, ld: l.ld, stride: l.stride, offset: l.offset });
  const want = C.slice();
  cpuSyrk({ ...v, alpha, beta, a: batch(A, la, ar, ac), c: batch(want, lc, n, n) });
  const dA = dev.upload(A);
  const dC = dev.upload(C);
  try {
    syrkCuda(dev, { ...v, alpha, beta, a: batch(dA, la, ar, ac), c: batch(dC, lc, n, n) }, s.opts);
    const what = `syrk ${dtype} ${name(v)} n=${n} k=${k} count=${count} alpha=${alpha} beta=${beta}${s.broadcast === true ? ' stride-0 A' : ''}`;
    compareOutput(dev.download(dC) as FloatArray, want, inTriangle(lc, v.uplo), syrkTolerance(dtype, k), what);
    compareOutput(dev.download(dA) as FloatArray, A, () => false, 0, `${what}: A`);
  } finally {
    dA.dispose();
    dC.dispose();
  }
}

const ALPHAS = [1, -2.5, 0];
const BETAS = [0, 0.5, 1, -2.5];

test('syrk, both uplo x trans, n = 1..40: k = n, 1 or odd k > n; alpha 0 / 1 / -2.5, beta 0 / 0.5 / 1 / -2.5', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1211);
  for (const dtype of DTYPES) for (const [q, v] of VARIANTS.entries()) {
    for (let n = 1; n <= 40; n++) {
      const k = [n, 1, n + 1 + ((n * 7) % 37)][n % 3]!;
      checkStrided(dev, rng, { v, dtype, n, k, count: Math.max(1, Math.min(32, Math.floor(40_000 / (n * n * k)))), alpha: ALPHAS[(n + q) % 3]!, beta: BETAS[(n + q) % 4]! });
    }
  }
});

test('syrk, both uplo x trans, n = 47 ... 512 (one GEMM over the triangle; the recursion is forced below): k = 1, a few, n and more', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1212);
  for (const dtype of DTYPES) for (const [q, v] of VARIANTS.entries()) {
    for (const [p, n] of LARGE.entries()) {
      const k = [1, 17, n, n + 33][(p + q) % 4]!;
      checkStrided(dev, rng, { v, dtype, n, k, count: n >= 256 ? 1 : 3, alpha: [1, -2.5][(p + q) % 2]!, beta: BETAS[(p + q) % 4]! });
    }
  }
});

test('syrk as one GEMM over the triangle (forced at small and odd n; the recursion forced where the table picks the triangle)', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1215);
  const triangle: SyrkOptions = { force: { triangle: true } };
  const recursion: SyrkOptions = { force: { triangle: false } };
  for (const dtype of DTYPES) for (const [q, v] of VARIANTS.entries()) {
    for (const [p, n] of [1, 2, 3, 7, 16, 17, 33, 47, 64, 65, 100, 129, 200].entries()) {
      const k = [1, 5, n, n + 33][(p + q) % 4]!;
      checkStrided(dev, rng, { v, dtype, n, k, count: n > 100 ? 1 : 3, alpha: [1, -2.5][(p + q) % 2]!, beta: BETAS[(p + q) % 4]!, opts: triangle });
    }
    checkStrided(dev, rng, { v, dtype, n: 70, k: 9, count: 2, alpha: 0, beta: -2.5, opts: triangle });
    checkStrided(dev, rng, { v, dtype, n: 300, k: 40, count: 2, alpha: -2.5, beta: 0, opts: recursion });
    checkStrided(dev, rng, { v, dtype, n: 512, k: 64, count: 1, alpha: 1, beta: 0.5, opts: recursion });
  }
});

test('syrk: alpha = 0 and k = 0 scale the triangle without reading A; stride-0 A; forced small leaves and chunks', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1213);
  for (const dtype of DTYPES) for (const v of VARIANTS) {
    for (const n of [5, 70]) {
      checkStrided(dev, rng, { v, dtype, n, k: 9, count: 4, alpha: 0, beta: 0 });
      checkStrided(dev, rng, { v, dtype, n, k: 9, count: 4, alpha: 0, beta: -2.5 });
      checkStrided(dev, rng, { v, dtype, n, k: 0, count: 4, alpha: 1, beta: 0.5 });
      checkStrided(dev, rng, { v, dtype, n, k: 0, count: 4, alpha: -2.5, beta: 0 });
    }
    checkStrided(dev, rng, { v, dtype, n: 20, k: 13, count: 7, alpha: -2.5, beta: 1, broadcast: true });
    checkStrided(dev, rng, { v, dtype, n: 150, k: 70, count: 3, alpha: 1, beta: 0, broadcast: true });
    checkStrided(dev, rng, { v, dtype, n: 47, k: 33, count: 3, alpha: -2.5, beta: 0.5, opts: { force: { leafMax: 5, chunk: 8 } } });
    checkStrided(dev, rng, { v, dtype, n: 100, k: 300, count: 2, alpha: 1, beta: 0, opts: { force: { leafMax: 64, chunk: 64 } } });
  }
});

test('syrk on list and variable batches (shape groups, pointer arrays, zero-size members)', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1214);
  for (const dtype of DTYPES) for (const v of VARIANTS) for (const beta of [0, 0.5]) {
    const shapes: [number, number][] = [[5, 3], [40, 7], [100, 2], [5, 3], [1, 1], [0, 4], [3, 0], [70, 70], [5, 3], [33, 1]];
    const aShape = ([n, k]: [number, number]): [number, number] => (v.trans === 'N' ? [n, k] : [k, n]);
    // One buffer per operand, matrices packed with odd lds and gaps.
    const aOff: number[] = [], cOff: number[] = [], lda: number[] = [], ldc: number[] = [];
    let la = 3, lc = 7;
    for (const s of shapes) {
      const [r, c] = aShape(s);
      lda.push(r + 2); aOff.push(la); la += (r + 2) * c + 5;
      ldc.push(s[0] + 1); cOff.push(lc); lc += (s[0] + 1) * s[0] + 3;
    }
    const A = randomBuffer(rng, dtype, la + 4);
    const C = randomBuffer(rng, dtype, lc + 4);
    const at = (e: number, i: number): [number, number] | undefined => {
      const q = e - cOff[i]!, n = shapes[i]![0];
      if (q < 0 || q >= ldc[i]! * n || q % ldc[i]! >= n) return undefined;
      return [q % ldc[i]!, Math.floor(q / ldc[i]!)];
    };
    const inTri = (e: number): boolean => shapes.some((_, i) => { const p = at(e, i); return p !== undefined && (v.uplo === 'lower' ? p[0] >= p[1] : p[0] <= p[1]); });
    const inC = (e: number): boolean => shapes.some((_, i) => at(e, i) !== undefined);
    for (let e = 0; e < C.length; e++) if (!inC(e) || (beta === 0 && inTri(e))) C[e] = NaN;
    const varBatches = <S extends FloatArray | DeviceArray>(a: S, c: S) => ({
      a: variable(shapes.map((s, i) => { const [r, cc] = aShape(s); return { data: a, rows: r, cols: cc, ld: lda[i]!, offset: aOff[i]! }; })),
      c: variable(shapes.map(([n], i) => ({ data: c, rows: n, cols: n, ld: ldc[i]!, offset: cOff[i]! }))),
    });
    // A list batch: the three 5 x 3 members (indices 0, 3, 8) in reverse order, A of member 0 for all.
    const listBatches = <S extends FloatArray | DeviceArray>(a: S, c: S) => {
      const [r, cc] = aShape([5, 3]);
      return {
        a: list([0, 0, 0].map((i) => ({ data: a, offset: aOff[i]! })), { rows: r, cols: cc, ld: lda[0]! }),
        c: list([8, 3, 0].map((i) => ({ data: c, offset: cOff[i]! })), { rows: 5, ld: ldc[0]! }),
      };
    };
    for (const [form, make] of [['variable', varBatches], ['list', listBatches]] as const) {
      const want = C.slice();
      cpuSyrk({ ...v, alpha: -2.5, beta, ...make(A, want) } as SyrkRequest<FloatArray>);
      const dA = dev.upload(A);
      const dC = dev.upload(C);
      try {
        syrkCuda(dev, { ...v, alpha: -2.5, beta, ...make(dA, dC) } as SyrkRequest<DeviceArray>);
        compareOutput(dev.download(dC) as FloatArray, want, inTri, syrkTolerance(dtype, 70), `syrk ${dtype} ${name(v)} beta=${beta} ${form}`);
      } finally {
        dA.dispose();
        dC.dispose();
      }
    }
  }
});

test('a CUDA context runs syrk on device-resident batches on the GPU: no CPU fallback, no host copy', { skip }, () => {
  assert.ok(hasGpuOp('syrk'), 'syrk has a GPU kernel');
  const dev = gpu();
  const { ctx, copies } = countingContext(dev);
  const rng = new Rng(1215);
  const n = 100, k = 37, count = 9;
  const la = oddLayout(n, k, count), lc = oddLayout(n, n, count);
  const A = randomBuffer(rng, 'float64', layoutLength(la));
  const C = randomBuffer(rng, 'float64', layoutLength(lc));
  const batch = <S extends FloatArray | DeviceArray>(data: S, l: Layout): Batch<S> => strided(data, { rows: l.rows, cols: l.cols, count, ld: l.ld, stride: l.stride, offset: l.offset });
  const dA = dev.upload(A);
  const dC = dev.upload(C);
  try {
    ctx.syrk({ uplo: 'upper', trans: 'N', alpha: -2.5, a: batch(dA, la), beta: 0.5, c: batch(dC, lc) });
    dev.synchronize();
    assert.equal(copies(), 0, 'syrk on device data copied to or from the host');
    const want = C.slice();
    cpuSyrk({ uplo: 'upper', trans: 'N', alpha: -2.5, a: batch(A, la), beta: 0.5, c: batch(want, lc) });
    compareOutput(dev.download(dC) as FloatArray, want, inTriangle(lc, 'upper'), syrkTolerance('float64', k), 'context syrk');
  } finally {
    dA.dispose();
    dC.dispose();
  }
});
