// trmm side left (B n x n, float64) as one launch of the tensor-core product with a triangular op(A)
// (generate-mma.ts triangularFrame; trsm plan `mma`) against the default route (the recursion and
// its leaves) and cuBLAS's gemmStridedBatched of the same full product (the bench's vendor: twice
// the flops), at the bench's counts (gpuBenchBatch), CUDA events (ctx.time), median of 7 after 2
// warm-ups; every candidate tile shape forced through the gemm family's face (`plan`: the shape the
// gemm plan gives the same product). The variants: lower N (the bench's), and with TRANS=T lower T
// (lauum's). Markdown table on stdout.
// Usage: MYRIAD_QUICK_FIRST=0 [TRANS=T] [SHAPES=table] node scripts/probe/trmm-mma.mjs [sizes=32,48,64,96,128,192,256,384,512]
import { open, strided } from '../../dist/src/index.js';
import { trmmCuda } from '../../dist/src/cuda/kernels/trsm/index.js';
import { gemmCuda } from '../../dist/src/cuda/kernels/gemm/index.js';
import { Cublas } from '../../dist/src/cuda/baselines/index.js';
import { gpuBenchBatch } from '../../dist/src/core/bench-batch.js';
import { randomMatrices, Random } from '../../dist/src/bench/data.js';

const sizes = (process.argv[2] ?? '32,48,64,96,128,192,256,384,512').split(',').map(Number);
const transA = process.env.TRANS === 'T' ? 'T' : 'N';
const ALL_SHAPES = [
  { bm: 32, bn: 32, bk: 16, wm: 2, wn: 2, stages: 3 },
  { bm: 32, bn: 64, bk: 16, wm: 2, wn: 2, stages: 3 },
  { bm: 64, bn: 32, bk: 16, wm: 2, wn: 2, stages: 3 },
  { bm: 64, bn: 64, bk: 16, wm: 4, wn: 2, stages: 3 },
  { bm: 64, bn: 64, bk: 8, wm: 2, wn: 2, stages: 4 },
  { bm: 64, bn: 64, bk: 16, wm: 2, wn: 2, stages: 4 },
  { bm: 128, bn: 64, bk: 16, wm: 4, wn: 2, stages: 3 },
  { bm: 128, bn: 128, bk: 16, wm: 2, wn: 4, stages: 3 },
];
const tag = (s) => `${s.bm}x${s.bn}x${s.bk} w${s.wm}x${s.wn} s${s.stages}`;
// SHAPES=table: only the sm_90 table's three (model/tuning/trsm-sm_90.ts).
const SHAPES = process.env.SHAPES === 'table' ? ALL_SHAPES.filter((s) => ['32x32x16 w2x2 s3', '32x64x16 w2x2 s3', '64x64x16 w2x2 s4'].includes(tag(s))) : ALL_SHAPES;
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const blas = new Cublas(dev);
const median = (f) => { f(); f(); const ms = []; for (let r = 0; r < 7; r++) ms.push(ctx.time(f)); ms.sort((x, y) => x - y); return ms[3]; };
const rng = new Random(5);
const st = { kind: 'strided', dense: false };
console.log(`trmm left lower ${transA} non-unit, float64, B n x n; ms`);
console.log(`| n | count | default | mma (plan) | ${SHAPES.map(tag).join(' | ')} | cuBLAS gemm | vendor / default | vendor / best mma | best |`);
console.log(`|---|---|---|---|${SHAPES.map(() => '---|').join('')}---|---|---|---|`);
for (const n of sizes) {
  const count = gpuBenchBatch('trmm', 'float64', n);
  const hostA = randomMatrices('float64', n, n, count, rng);
  for (let i = 0; i < count; i++) for (let j = 0; j < n; j++) hostA[i * n * n + j + j * n] = 1;   // bounded products: B stays finite over the repeats
  const a = ctx.upload(hostA);
  const b = ctx.upload(randomMatrices('float64', n, n, count, rng));
  const c = dev.alloc('float64', n * n * count);
  const A = strided(a, { rows: n, cols: n, count }), B = strided(b, { rows: n, cols: n, count });
  const r = { side: 'left', uplo: 'lower', transA, diag: 'nonunit', alpha: 1 / n, a: A, b: B };
  const lower = transA === 'N';
  const def = median(() => trmmCuda(dev, r, { force: { trmmMma: false } }));
  const plan = median(() => trmmCuda(dev, r, { force: { trmmMma: true } }));
  const shaped = SHAPES.map((s) => median(() => gemmCuda(dev, { transA, transB: 'N', alpha: 1 / n, beta: 0, a: A, b: B, c: B }, {
    variant: { variant: 'mma', dtype: 'float64', transA, transB: 'N', betaZero: true, layouts: { a: st, b: st, c: st }, ...s }, triangularA: { lower, unit: false },
  })));
  const vendor = median(() => blas.gemmStridedBatched('float64', transA, 'N', n, n, n, 1, a, n, n * n, b, n, n * n, 0, c, n, n * n, count));
  const best = Math.min(plan, ...shaped);
  const bestTag = best === plan ? 'plan' : tag(SHAPES[shaped.indexOf(best)]);
  console.log(`| ${n} | ${count} | ${def.toFixed(3)} | ${plan.toFixed(3)} | ${shaped.map((x) => x.toFixed(3)).join(' | ')} | ${vendor.toFixed(3)} | ${(vendor / def).toFixed(2)} | ${(vendor / best).toFixed(2)} | ${bestTag} |`);
  a.dispose?.(); b.dispose?.(); c.dispose();
}
ctx.dispose();
