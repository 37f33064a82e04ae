/**
 * syrk at small n on a real GPU (skipped where none is usable) against the CPU reference, for the
 * tile design (generate-tiles.ts) forced with the table's shapes and with a forced 64 x 64 tile,
 * and for whatever the table picks by default (float32 at 33-96 by its bands): both uplo x trans, both precisions, n = 1 ... 128
 * with k != n, alpha 1 / -2.5 / 0, beta 0 (the written triangle poisoned with NaN: C must not be
 * read) / 1 / 0.5, k = 0, odd ld, stride and offset, one NaN inside A (spreading as in the
 * reference), list batches (pointer arrays, repeated A). C's other triangle, padding and gaps hold
 * NaN and must come back bit for bit, and A unchanged. Few compiled kernels: about a minute.
 */
import { test } from 'node:test';

import { list, strided, type Batch } from '../../src/core/batch.js';
import type { DType, FloatArray } from '../../src/core/dtype.js';
import { cpuSyrk } from '../../src/cpu/syrk.js';
import { syrkCuda, type SyrkOptions, type SyrkVariant } from '../../src/cuda/kernels/syrk/index.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/index.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';
import { inTriangle, syrkTolerance } from '../helpers/syrk-data.js';
import { compareOutput, layoutLength, oddLayout, randomBuffer, type Layout } from '../helpers/trsm-data.js';

const skip = gpuSkipReason();
const DTYPES: DType[] = ['float64', 'float32'];
const VARIANTS: readonly SyrkVariant[] = (['lower', 'upper'] as const).flatMap((uplo) => (['N', 'T'] as const).map((trans) => ({ uplo, trans })));
const SIZES = [1, 2, 15, 16, 17, 31, 32, 33, 47, 64, 72, 96, 100, 128];
const TILES: SyrkOptions = { force: { tiles: true } };
const TILE64: SyrkOptions = { force: { tiles: { tile: 64, reg: 4, chunk: 16, minBlocks: 0 } } };

interface Setup { v: SyrkVariant; dtype: DType; n: number; k: number; count: number; alpha: number; beta: number; nanInA?: boolean; opts?: SyrkOptions; label: string }

/** One strided case: C NaN everywhere but its written triangle (NaN there too where beta = 0). */
function check(dev: GpuDevice, rng: Rng, s: Setup): void {
  const { v, dtype, n, k, count, alpha, beta } = s;
  const [ar, ac] = v.trans === 'N' ? [n, k] : [k, n];
  const la = oddLayout(ar, ac, count), lc = oddLayout(n, n, count);
  const A = randomBuffer(rng, dtype, layoutLength(la));
  const inA = (e: number): boolean => { const q = e - la.offset; if (q < 0) return false; const m = Math.floor(q / la.stride), w = q - m * la.stride; return m < count && w < la.ld * ac && w % la.ld < ar; };
  for (let e = 0; e < A.length; e++) if (!inA(e)) A[e] = NaN;
  if (s.nanInA === true && n > 0 && k > 0) {
    const i0 = Math.floor(n / 3), l0 = Math.floor(k / 2);
    A[la.offset + (count - 1) * la.stride + (v.trans === 'N' ? i0 + l0 * la.ld : l0 + i0 * la.ld)] = NaN;
  }
  const written = inTriangle(lc, v.uplo);
  const C = randomBuffer(rng, dtype, layoutLength(lc));
  for (let e = 0; e < C.length; e++) if (!written(e) || beta === 0) C[e] = NaN;
  const batch = <S extends FloatArray | DeviceArray>(data: S, l: Layout, rows: number, cols: number): Batch<S> =>
    strided(data, { rows, cols, count, ld: l.ld, stride: l.stride, offset: l.offset });
  const want = C.slice();
  cpuSyrk({ ...v, alpha, beta, a: batch(A, la, ar, ac), c: batch(want, lc, n, n) });
  const dA = dev.upload(A), dC = dev.upload(C);
  try {
    syrkCuda(dev, { ...v, alpha, beta, a: batch(dA, la, ar, ac), c: batch(dC, lc, n, n) }, s.opts);
    const what = `syrk ${s.label} ${dtype} ${v.uplo}/${v.trans} n=${n} k=${k} count=${count} alpha=${alpha} beta=${beta}`;
    compareOutput(dev.download(dC) as FloatArray, want, written, syrkTolerance(dtype, k), what);
    compareOutput(dev.download(dA) as FloatArray, A, () => false, 0, `${what}: A`);
  } finally {
    dA.dispose();
    dC.dispose();
  }
}

const BETAS = [0, 1, 0.5];

for (const [label, opts] of [['tiles (forced)', TILES], ['default', undefined]] as const) {
  test(`syrk small n, ${label}: both uplo x trans, n = 1 ... 128, k != n, beta 0 / 1 / 0.5, NaN in A`, { skip, timeout: 300_000 }, () => {
    const dev = gpu();
    const rng = new Rng(label === 'default' ? 3301 : 3302);
    for (const dtype of DTYPES) for (const [q, v] of VARIANTS.entries()) {
      for (const [p, n] of SIZES.entries()) {
        const k = [n + 3, Math.max(1, n - 7), 2 * n + 5][(p + q) % 3]!;
        const count = Math.max(5, Math.min(40, Math.floor(200_000 / (n * n + n * k))));
        for (const beta of BETAS) check(dev, rng, { v, dtype, n, k, count, alpha: beta === 1 ? -2.5 : 1, beta, nanInA: beta === 0.5, opts, label });
      }
      check(dev, rng, { v, dtype, n: 40, k: 0, count: 6, alpha: 1, beta: 0.5, opts, label: `${label} k=0` });
      check(dev, rng, { v, dtype, n: 40, k: 9, count: 6, alpha: 0, beta: 0, opts, label: `${label} alpha=0` });
    }
  });
}

test('syrk small n, forced 64 x 64 tiles: one tile and the triangle of several', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(3303);
  for (const dtype of DTYPES) for (const [q, v] of VARIANTS.entries()) {
    for (const [p, n] of [33, 64, 65, 100, 128].entries()) {
      check(dev, rng, { v, dtype, n, k: [n + 9, 20][(p + q) % 2]!, count: 7, alpha: -2.5, beta: BETAS[(p + q) % 3]!, opts: TILE64, label: 'tiles 64' });
    }
  }
});

test('syrk small n, forced tiles on list batches (pointer arrays, repeated A, reverse order)', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(3304);
  for (const dtype of DTYPES) for (const v of VARIANTS) for (const [n, k, beta] of [[16, 11, 0], [45, 50, 0.5]] as const) {
    const count = 6;
    const [ar, ac] = v.trans === 'N' ? [n, k] : [k, n];
    const la = oddLayout(ar, ac, count), lc = oddLayout(n, n, count);
    const A = randomBuffer(rng, dtype, layoutLength(la));
    const written = inTriangle(lc, v.uplo);
    const C = randomBuffer(rng, dtype, layoutLength(lc));
    for (let e = 0; e < C.length; e++) if (!written(e) || beta === 0) C[e] = NaN;
    // C's matrices in reverse order; A's first three matrices, each twice.
    const batches = <S extends FloatArray | DeviceArray>(a: S, c: S) => ({
      a: list(Array.from({ length: count }, (_, i) => ({ data: a, offset: la.offset + (i % 3) * la.stride })), { rows: ar, cols: ac, ld: la.ld }),
      c: list(Array.from({ length: count }, (_, i) => ({ data: c, offset: lc.offset + (count - 1 - i) * lc.stride })), { rows: n, ld: lc.ld }),
    });
    const want = C.slice();
    cpuSyrk({ ...v, alpha: 1.5, beta, ...batches(A, want) });
    const dA = dev.upload(A), dC = dev.upload(C);
    try {
      syrkCuda(dev, { ...v, alpha: 1.5, beta, ...batches(dA, dC) }, TILES);
      compareOutput(dev.download(dC) as FloatArray, want, written, syrkTolerance(dtype, k), `syrk tiles list ${dtype} ${v.uplo}/${v.trans} n=${n} k=${k} beta=${beta}`);
    } finally {
      dA.dispose();
      dC.dispose();
    }
  }
});
