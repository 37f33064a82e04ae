// Issue 13, session 7: batched square float64 GEMM (C = A B, 'N','N', beta 0, about 1 GB per call)
// at the sizes whose largest mma band a tuning change would move, for configurations given as
// BANDS='[[bm, bn, bk, wm, wn, stages, mmaK, doubleBuffer, minBlocks], ...]' (each the largest band
// in turn; [] = the table as built), cuBLAS gemmStridedBatched beside; CUDA events, median of 5.
// Usage: BANDS='[[],[64,64,16,4,2,3,8,1,2]]' node scripts/probe/gemm-square.mjs [sizes=192,256,512,1024]
import { open, strided } from '../../dist/src/index.js';
import { gemmCuda } from '../../dist/src/cuda/kernels/gemm/index.js';
import { tuningFor } from '../../dist/src/cuda/model/tuning/index.js';
import { Cublas } from '../../dist/src/cuda/baselines/index.js';
import { randomMatrices, Random } from '../../dist/src/bench/data.js';

const sizes = (process.argv[2] ?? '192,256,512,1024').split(',').map(Number);
const bands = JSON.parse(process.env.BANDS ?? '[[]]');
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const blas = new Cublas(dev);
const table = tuningFor(dev.info.arch, 'gemm');
const built = table.mma;
const median = (f) => { f(); f(); const ms = []; for (let r = 0; r < 5; r++) ms.push(ctx.time(f)); ms.sort((x, y) => x - y); return ms[2]; };
const rng = new Random(3);
for (const n of sizes) {
  const count = Math.max(1, Math.floor(1e9 / (3 * n * n * 8)));
  const a = ctx.upload(randomMatrices('float64', n, n, count, rng)), b = ctx.upload(randomMatrices('float64', n, n, count, rng));
  const c = ctx.alloc('float64', n * n * count);
  const flops = 2 * n * n * n * count;
  const vendor = median(() => blas.gemmStridedBatched('float64', 'N', 'N', n, n, n, 1, a, n, n * n, b, n, n * n, 0, c, n, n * n, count));
  const row = [`n ${n} x ${count}: cuBLAS ${(flops / vendor / 1e9).toFixed(1)} TF/s`];
  for (const band of bands) {
    const [bm, bn, bk, wm, wn, stages, mmaK, d, minBlocks] = band;
    // An explicit tuning (launches memoise the plans of the built table per problem).
    const tuning = { ...table, mma: band.length === 0 ? built : [...built.slice(0, -1), { maxDim: Infinity, config: { bm, bn, bk, wm, wn, stages, mmaK, ...(d ? { doubleBuffer: true } : {}), ...(minBlocks ? { minBlocks } : {}) } }] };
    const ms = median(() => gemmCuda(dev, { transA: 'N', transB: 'N', alpha: 1, a: strided(a, { rows: n, cols: n, count }), b: strided(b, { rows: n, cols: n, count }), beta: 0, c: strided(c, { rows: n, cols: n, count }) }, { tuning }));
    row.push(`${band.length ? band.join(',') : 'table'} ${(flops / ms / 1e9).toFixed(1)}`);
  }
  console.log(row.join(' | '));
  a.dispose?.(); b.dispose?.(); c.dispose?.();
}
ctx.dispose();
