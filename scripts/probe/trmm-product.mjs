// trmm side left (B n x n) as one launch of the gemm family's product with a triangular op(A)
// (generate-mma.ts / generate-tiled.ts in the tile walk of tile-prologue.ts; trsm plan `product`):
// float64 on the tensor cores, float32 (DTYPE=float32) on the CUDA cores; against the default route
// without it (the recursion and its leaves) and cuBLAS's gemmStridedBatched of the same full product
// (the bench's vendor: twice the flops), at the bench's counts (gpuBenchBatch), CUDA events
// (ctx.time), median of 7 after 2 warm-ups; every candidate tile shape forced through the gemm
// family's face (`plan`: the route's own, from the table or the gemm plan). The variants: lower N
// (the bench's), and with TRANS=T lower T (lauum's). Markdown table on stdout.
// Usage: MYRIAD_QUICK_FIRST=0 [DTYPE=float32] [TRANS=T] [SHAPES=table|32x32x8w2x2s4,...] node scripts/probe/trmm-product.mjs [sizes=32,48,64,96,128,192,256,384,512]
import { open, strided } from '../../dist/src/index.js';
import { trmmCuda } from '../../dist/src/cuda/kernels/trsm/index.js';
import { gemmCuda } from '../../dist/src/cuda/kernels/gemm/index.js';
import { Cublas } from '../../dist/src/cuda/baselines/index.js';
import { gpuBenchBatch } from '../../dist/src/core/bench-batch.js';
import { randomMatrices, Random } from '../../dist/src/bench/data.js';
import { tuningFor } from '../../dist/src/cuda/model/tuning/index.js';
import { mmaShapeTag, parseMmaShapes } from './mma-shapes.mjs';

const sizes = (process.argv[2] ?? '32,48,64,96,128,192,256,384,512').split(',').map(Number);
const transA = process.env.TRANS === 'T' ? 'T' : 'N';
const dtype = process.env.DTYPE === 'float32' ? 'float32' : 'float64';
const variant = dtype === 'float64' ? 'mma' : 'tiled';
const MMA_SHAPES = [
  { bm: 32, bn: 32, bk: 16, wm: 2, wn: 2, stages: 3 },
  { bm: 32, bn: 64, bk: 16, wm: 2, wn: 2, stages: 3 },
  { bm: 64, bn: 32, bk: 16, wm: 2, wn: 2, stages: 3 },
  { bm: 64, bn: 64, bk: 16, wm: 4, wn: 2, stages: 3 },
  { bm: 64, bn: 64, bk: 8, wm: 2, wn: 2, stages: 4 },
  { bm: 64, bn: 64, bk: 16, wm: 2, wn: 2, stages: 4 },
  { bm: 128, bn: 64, bk: 16, wm: 4, wn: 2, stages: 3 },
  { bm: 128, bn: 128, bk: 16, wm: 2, wn: 4, stages: 3 },
];
// The tiled kernel's (float32: tm, tn multiples of 4; bk divides bm).
const TILED_SHAPES = [
  { bm: 32, bn: 32, bk: 16, tm: 4, tn: 4 },
  { bm: 32, bn: 32, bk: 8, tm: 4, tn: 4 },
  { bm: 32, bn: 64, bk: 16, tm: 4, tn: 4 },
  { bm: 64, bn: 32, bk: 16, tm: 4, tn: 4 },
  { bm: 48, bn: 48, bk: 16, tm: 4, tn: 4 },
  { bm: 64, bn: 64, bk: 16, tm: 4, tn: 4 },
  { bm: 64, bn: 64, bk: 16, tm: 8, tn: 8 },
  { bm: 64, bn: 64, bk: 8, tm: 8, tn: 4 },
  { bm: 64, bn: 128, bk: 8, tm: 8, tn: 8 },
  { bm: 128, bn: 64, bk: 8, tm: 8, tn: 8 },
  { bm: 128, bn: 128, bk: 8, tm: 8, tn: 8 },
];
const tag = (s) => (s.tm === undefined ? mmaShapeTag(s) : `${s.bm}x${s.bn}x${s.bk} t${s.tm}x${s.tn}`);
// SHAPES=table: only the card's table's (model/tuning/trsm-sm_90.ts, both ops' bands);
// SHAPES=32x32x8w2x2s4,...: these mma shapes instead (mma-shapes.mjs).
const ALL_SHAPES = variant === 'mma' ? MMA_SHAPES : TILED_SHAPES;
const tableTiles = tuningFor('sm_90', 'trsm').trmmProduct?.[dtype === 'float64' ? 'double' : 'single']?.tiles;
const tableShapes = () => {
  const configs = [...(tableTiles?.N ?? []), ...(tableTiles?.T ?? [])].map((b) => b.config);
  return configs.filter((c, i) => configs.findIndex((d) => tag(d) === tag(c)) === i);
};
const SHAPES = process.env.SHAPES === 'table' ? tableShapes() : process.env.SHAPES ? parseMmaShapes(process.env.SHAPES) : ALL_SHAPES;
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const blas = new Cublas(dev);
const median = (f) => { f(); f(); const ms = []; for (let r = 0; r < 7; r++) ms.push(ctx.time(f)); ms.sort((x, y) => x - y); return ms[3]; };
const rng = new Random(5);
const st = { kind: 'strided', dense: false };
console.log(`trmm left lower ${transA} non-unit, ${dtype}, B n x n; ms`);
console.log(`| n | count | default | product (plan) | ${SHAPES.map(tag).join(' | ')} | cuBLAS gemm | vendor / default | vendor / best product | best |`);
console.log(`|---|---|---|---|${SHAPES.map(() => '---|').join('')}---|---|---|---|`);
for (const n of sizes) {
  const count = gpuBenchBatch('trmm', dtype, n);
  const hostA = randomMatrices(dtype, n, n, count, rng);
  for (let i = 0; i < count; i++) for (let j = 0; j < n; j++) hostA[i * n * n + j + j * n] = 1;   // bounded products: B stays finite over the repeats
  const a = ctx.upload(hostA);
  const b = ctx.upload(randomMatrices(dtype, n, n, count, rng));
  const c = dev.alloc(dtype, n * n * count);
  const A = strided(a, { rows: n, cols: n, count }), B = strided(b, { rows: n, cols: n, count });
  const r = { side: 'left', uplo: 'lower', transA, diag: 'nonunit', alpha: 1 / n, a: A, b: B };
  const lower = transA === 'N';
  const def = median(() => trmmCuda(dev, r, { force: { trmmProduct: false } }));
  const plan = median(() => trmmCuda(dev, r, { force: { trmmProduct: true } }));
  const shaped = SHAPES.map((s) => median(() => gemmCuda(dev, { transA, transB: 'N', alpha: 1 / n, beta: 0, a: A, b: B, c: B }, {
    variant: { variant, dtype, transA, transB: 'N', betaZero: true, layouts: { a: st, b: st, c: st }, ...s }, triangularA: { lower, unit: false },
  })));
  const vendor = median(() => blas.gemmStridedBatched(dtype, transA, 'N', n, n, n, 1, a, n, n * n, b, n, n * n, 0, c, n, n * n, count));
  const best = Math.min(plan, ...shaped);
  const bestTag = best === plan ? 'plan' : tag(SHAPES[shaped.indexOf(best)]);
  console.log(`| ${n} | ${count} | ${def.toFixed(3)} | ${plan.toFixed(3)} | ${shaped.map((x) => x.toFixed(3)).join(' | ')} | ${vendor.toFixed(3)} | ${(vendor / def).toFixed(2)} | ${(vendor / best).toFixed(2)} | ${bestTag} |`);
  a.dispose?.(); b.dispose?.(); c.dispose();
}
ctx.dispose();
