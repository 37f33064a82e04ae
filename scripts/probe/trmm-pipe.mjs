// trmm (left, lower, N, non-unit, B n x n) with the register leaf, the product leaf, the pipelined
// kernel (generate-pipelined.ts: leaves of 64 with two stages and with three, and leaves of 128 from n = 128), and cuBLAS's
// gemmStridedBatched of the same full product (the bench's vendor: twice the flops), at the bench's
// counts (gpuBenchBatch), CUDA events (ctx.time), median of 7 after 2 warm-ups; the bytes a call must
// move (A's triangle, B in and out) against the card's bandwidth. Markdown table on stdout; under
// three minutes on an H200 with a cold kernel cache.
// Usage: MYRIAD_QUICK_FIRST=0 node scripts/probe/trmm-pipe.mjs [sizes=16,32,64,128,256,512] [dtypes=float64,float32] [bandwidthGBs=4200]
import { open, strided } from '../../dist/src/index.js';
import { trmmCuda } from '../../dist/src/cuda/kernels/trsm/index.js';
import { Cublas } from '../../dist/src/cuda/baselines/index.js';
import { gpuBenchBatch } from '../../dist/src/core/bench-batch.js';
import { randomMatrices, Random } from '../../dist/src/bench/data.js';

const sizes = (process.argv[2] ?? '16,32,64,128,256,512').split(',').map(Number);
const dtypes = (process.argv[3] ?? 'float64,float32').split(',');
const bandwidth = Number(process.argv[4] ?? 4200) * 1e9;
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const blas = new Cublas(dev);
const median = (f) => { f(); f(); const ms = []; for (let r = 0; r < 7; r++) ms.push(ctx.time(f)); ms.sort((x, y) => x - y); return ms[3]; };
const rng = new Random(5);
const cell = (ms) => (ms === undefined ? '-' : ms.toFixed(3));
console.log('| dtype | n | count | register ms | product ms | pipelined ms | pipelined, 3 stages ms | pipelined, leaves of 128 ms | cuBLAS gemm ms | best pipelined vs cuBLAS | best pipelined vs best other | roofline ms | best pipelined % roofline |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const dtype of dtypes) for (const n of sizes) {
  const count = gpuBenchBatch('trmm', dtype, n);
  const bytes = dtype === 'float64' ? 8 : 4;
  const hostA = randomMatrices(dtype, n, n, count, rng);
  for (let i = 0; i < count; i++) for (let j = 0; j < n; j++) hostA[i * n * n + j + j * n] = 1;   // bounded products: B stays finite over the repeats
  const a = ctx.upload(hostA);
  const b = ctx.upload(randomMatrices(dtype, n, n, count, rng));
  const c = dev.alloc(dtype, n * n * count);
  const A = strided(a, { rows: n, cols: n, count }), B = strided(b, { rows: n, cols: n, count });
  const run = (trmmLeaf, leafMax, pipelinedStages) => median(() => trmmCuda(dev, { side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', alpha: 1 / n, a: A, b: B }, { force: { trmmLeaf, leafMax, pipelinedStages } }));
  const reg = run('register'), product = run('product'), pipe = run('pipelined'), pipe3 = run('pipelined', undefined, 3), pipe128 = n >= 128 ? run('pipelined', 128) : undefined;
  const vendor = median(() => blas.gemmStridedBatched(dtype, 'N', 'N', n, n, n, 1, a, n, n * n, b, n, n * n, 0, c, n, n * n, count));
  const best = Math.min(pipe, pipe3, pipe128 ?? Infinity);
  // A's triangle (n (n + 1) / 2) in, B in and out.
  const roofline = ((n * (n + 1) / 2 + 2 * n * n) * bytes * count / bandwidth) * 1e3;
  console.log(`| ${dtype} | ${n} | ${count} | ${cell(reg)} | ${cell(product)} | ${cell(pipe)} | ${cell(pipe3)} | ${cell(pipe128)} | ${cell(vendor)} | ${(vendor / best).toFixed(2)}x | ${(Math.min(reg, product) / best).toFixed(2)}x | ${roofline.toFixed(3)} | ${(100 * roofline / best).toFixed(0)} % |`);
  a.dispose?.(); b.dispose?.(); c.dispose();
}
ctx.dispose();
