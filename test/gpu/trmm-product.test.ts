/**
 * trmm side left as one launch of the gemm family's product with a triangular op(A) (the tile walk
 * of gemm/tile-prologue.ts: generate-mma.ts on the tensor cores for float64, generate-tiled.ts on
 * the CUDA cores for float32; trsm plan `product`), on a real GPU (skipped where none is usable),
 * against the CPU reference (src/cpu/trmm.ts), both precisions: every side-left variant at orders
 * 32, 33 and 100 and a quarter of them at 1, 7, 64, 128, 200, 257 and 512 (the tables' tile shapes,
 * ragged last row tiles, triangles of one tile and of eight); square B to 128, thin and ragged above
 * (3 and 70 vectors); alpha 1, -2.5 and 0; odd and even ld, stride and offset; NaN in A's other
 * triangle, on the unit diagonal and all around B's matrices (checked bit for bit); infinities and
 * NaN in B (where they spread: exactly the reference's elements); stride-0 A; list batches (pointer
 * arrays, B's matrices in reverse order, A broadcast); every tile shape of both kernels forced
 * through the gemm family's face, both transposes of A (the mma kernel's k-contiguous stage's
 * swizzle with BK 16 and 32, none with BK 8).
 */
import { test } from 'node:test';

import type { Batch } from '../../src/core/batch.js';
import type { DType } from '../../src/core/dtype.js';
import { gemmCuda, type MmaGemmParams, type TiledGemmParams } from '../../src/cuda/kernels/gemm/index.js';
import { opLower, trmmCuda, type TrsmOptions } from '../../src/cuda/kernels/trsm/index.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/index.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';
import { checkTrmmList, checkTrmmStrided, trmmCount, type TrmmStridedOptions } from '../helpers/trmm-gpu-checks.js';
import { TRSM_VARIANTS, type TrsmCase } from '../helpers/trsm-data.js';

const skip = gpuSkipReason();
const ORDERS = [1, 7, 32, 33, 64, 100, 128, 200, 257, 512];
const LEFT = TRSM_VARIANTS.filter((c) => c.side === 'left');
const PRODUCT: TrsmOptions = { force: { trmmProduct: true } };
const DTYPES: readonly DType[] = ['float64', 'float32'];

/** trmm's check (test/helpers/trmm-gpu-checks.ts), about 2^17 elements of B a case unless `over` says. */
function checkStrided(
  dev: GpuDevice, rng: Rng, c: TrsmCase, dtype: DType, m: number, n: number, alpha: number,
  run: (a: Batch<DeviceArray>, b: Batch<DeviceArray>) => void, what: string, over: TrmmStridedOptions = {},
): void {
  checkTrmmStrided(dev, rng, c, dtype, m, n, alpha, run, what, { count: trmmCount(m, n, 131_072), ...over });
}

const trmmProduct = (dev: GpuDevice, c: TrsmCase, alpha: number) => (a: Batch<DeviceArray>, b: Batch<DeviceArray>): void =>
  trmmCuda(dev, { ...c, alpha, a, b }, PRODUCT);

test('trmm in one product, both precisions: side-left variants, orders 1 ... 512, square and thin B, odd ld, poison around B', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1501);
  for (const dtype of DTYPES) for (const [vi, c] of LEFT.entries()) for (const t of ORDERS) {
    if (t !== 32 && t !== 33 && t !== 100 && (t + vi) % 4 !== 0) continue;
    const alpha = (t + vi) % 2 === 0 ? 1 : -2.5;
    for (const w of t <= 128 ? [t] : [3, 70]) checkStrided(dev, rng, c, dtype, t, w, alpha, trmmProduct(dev, c, alpha), `trmm product ${dtype}`, { broadcast: t % 7 === 2 || t === 7, aligned: (t + vi + w) % 3 !== 0 });
  }
});

test('trmm in one product: alpha 0, one vector, many matrices, infinities and NaN in B, and the default route', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1502);
  for (const dtype of DTYPES) {
    const what = `trmm product ${dtype}`;
    for (const c of LEFT) {
      checkStrided(dev, rng, c, dtype, 64, 64, 0, trmmProduct(dev, c, 0), what, { aligned: true });
      checkStrided(dev, rng, c, dtype, 65, 1, -2.5, trmmProduct(dev, c, -2.5), what);
      checkStrided(dev, rng, c, dtype, 64, 2, -2.5, trmmProduct(dev, c, -2.5), what, { aligned: true });
      for (const [t, w] of [[33, 5], [64, 4], [130, 70], [200, 6]] as const) {
        checkStrided(dev, rng, c, dtype, t, w, -2.5, trmmProduct(dev, c, -2.5), what, { aligned: t !== 33, special: true, count: 9 });
      }
    }
    checkStrided(dev, rng, LEFT[1]!, dtype, 96, 96, -2.5, trmmProduct(dev, LEFT[1]!, -2.5), what, { count: 3000, aligned: true });
    checkStrided(dev, rng, LEFT[6]!, dtype, 256, 256, 1, trmmProduct(dev, LEFT[6]!, 1), what, { count: 200, aligned: true });
    for (const t of [64, 128, 256]) checkStrided(dev, rng, LEFT[2]!, dtype, t, t, -2.5, (a, b) => trmmCuda(dev, { ...LEFT[2]!, alpha: -2.5, a, b }), `trmm default ${dtype}`, { count: Math.ceil(2_000_000 / (t * t)), aligned: true });
  }
});

test('trmm in one product: list batches in reverse order with A broadcast', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1503);
  for (const dtype of DTYPES) for (const [vi, c] of LEFT.entries()) for (const [t, w] of [[32, 32], [33, 45], [100, 7], [160, 130]] as const) {
    if (t >= 100 && vi % 4 !== 0) continue;
    checkTrmmList(dev, rng, c, dtype, t, w, (a, b) => trmmCuda(dev, { ...c, alpha: -2.5, a, b }, PRODUCT), `trmm product ${dtype}`, t === 160);
  }
});

/** Each kernel's tile shapes, every one forced through the gemm family's face with a triangular op(A). */
const MMA_SHAPES: readonly Pick<MmaGemmParams, 'bm' | 'bn' | 'bk' | 'wm' | 'wn' | 'stages'>[] = [
  { bm: 16, bn: 16, bk: 8, wm: 1, wn: 1, stages: 4 },
  { bm: 32, bn: 32, bk: 16, wm: 2, wn: 2, stages: 3 },
  { bm: 32, bn: 32, bk: 32, wm: 2, wn: 2, stages: 2 },
  { bm: 64, bn: 64, bk: 16, wm: 4, wn: 2, stages: 3 },
  { bm: 64, bn: 64, bk: 8, wm: 2, wn: 2, stages: 4 },
  { bm: 64, bn: 64, bk: 8, wm: 2, wn: 2, stages: 1 },
  { bm: 128, bn: 128, bk: 16, wm: 2, wn: 4, stages: 3 },
];
const TILED_SHAPES: readonly Pick<TiledGemmParams, 'bm' | 'bn' | 'bk' | 'tm' | 'tn'>[] = [
  { bm: 32, bn: 32, bk: 16, tm: 4, tn: 4 },
  { bm: 32, bn: 64, bk: 8, tm: 4, tn: 4 },
  { bm: 64, bn: 64, bk: 16, tm: 8, tn: 8 },
  { bm: 64, bn: 64, bk: 8, tm: 8, tn: 4 },
  { bm: 128, bn: 64, bk: 8, tm: 8, tn: 8 },
  { bm: 128, bn: 128, bk: 8, tm: 8, tn: 8 },
];

test('trmm in one product: every tile shape forced, both transposes, both triangles, unit and not', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1504);
  const strided1 = { kind: 'strided' as const, dense: false };
  const shapes = [
    ...MMA_SHAPES.map((shape) => ({ dtype: 'float64' as const, shape, tag: `mma ${shape.bm}x${shape.bn}x${shape.bk} s${shape.stages}`, params: (transA: 'N' | 'T'): MmaGemmParams => ({ variant: 'mma', dtype: 'float64', transA, transB: 'N', betaZero: true, layouts: { a: strided1, b: strided1, c: strided1 }, ...shape }) })),
    ...TILED_SHAPES.map((shape) => ({ dtype: 'float32' as const, shape, tag: `tiled ${shape.bm}x${shape.bn}x${shape.bk} t${shape.tm}x${shape.tn}`, params: (transA: 'N' | 'T'): TiledGemmParams => ({ variant: 'tiled', dtype: 'float32', transA, transB: 'N', betaZero: true, layouts: { a: strided1, b: strided1, c: strided1 }, ...shape }) })),
  ];
  for (const [si, { dtype, shape, tag, params }] of shapes.entries()) for (const [vi, c] of LEFT.entries()) {
    if ((si + vi) % 2 !== 0) continue;
    for (const [t, w, aligned] of [[shape.bm + 5, 2 * shape.bn + 3, false], [3 * shape.bm, shape.bn - 1, true], [2 * shape.bm, 2 * shape.bn, true]] as const) {
      checkStrided(dev, rng, c, dtype, t, w, -2.5, (a, b) => gemmCuda(dev, { transA: c.transA, transB: 'N', alpha: -2.5, beta: 0, a, b, c: b }, {
        variant: params(c.transA), triangularA: { lower: opLower(c), unit: c.diag === 'unit' },
      }), `gemm triangular ${tag}`, { count: 7, aligned });
    }
  }
});
