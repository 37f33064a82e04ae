// syrk (lower, N, beta 0, k = n: the bench's workload) at small n: the design the table had before
// the tile design (the leaf below triangleFrom, one GEMM over the triangle from it: force
// { tiles: false }), the tile design with the table's shape for n (force { tiles: true }), any extra
// tile shapes given, and cuBLAS's gemmStridedBatched of the full product A A^T (the bench's vendor:
// twice the flops, all of C written), at the bench's counts (gpuBenchBatch), CUDA events, median
// of 7 after 2 warm-ups. Bytes a call must move: syrk A in and C's triangle out, the vendor A in
// and all of C out; their roofline times at the given bandwidth. Markdown table on stdout.
// Usage: MYRIAD_QUICK_FIRST=0 node scripts/probe/syrk-small.mjs [sizes=16,24,32,48,64,96,128] [dtypes=float64,float32]
//          [bandwidthGBs=4200] [extra shapes, tile x reg k chunk [b minBlocks], e.g. 16x1k16,32x2k32,64x4k16b2]
import { open, strided } from '../../dist/src/index.js';
import { syrkCuda } from '../../dist/src/cuda/kernels/syrk/index.js';
import { Cublas } from '../../dist/src/cuda/baselines/index.js';
import { gpuBenchBatch } from '../../dist/src/core/bench-batch.js';
import { randomMatrices, Random } from '../../dist/src/bench/data.js';

const sizes = (process.argv[2] ?? '16,24,32,48,64,96,128').split(',').map(Number);
const dtypes = (process.argv[3] ?? 'float64,float32').split(',');
const bandwidth = Number(process.argv[4] ?? 4200) * 1e9;
const extra = (process.argv[5] ?? '').split(',').filter((s) => s !== '').map((s) => {
  const m = /^(\d+)x(\d+)k(\d+)(?:b(\d+))?$/.exec(s);
  if (m === null) throw new Error(`shape ${s}: expected TILExREGkCHUNK[bMINBLOCKS]`);
  return { label: s, shape: { tile: Number(m[1]), reg: Number(m[2]), chunk: Number(m[3]), minBlocks: Number(m[4] ?? 0) } };
});
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const blas = new Cublas(dev);
const median = (f) => { f(); f(); const ms = []; for (let r = 0; r < 7; r++) ms.push(ctx.time(f)); ms.sort((x, y) => x - y); return ms[3]; };
const rng = new Random(7);
const fmt = (v) => v.toFixed(3);
console.log(`| dtype | n | count | old ms | tiles ms |${extra.map((e) => ` ${e.label} ms |`).join('')} cuBLAS gemm ms | vendor / old | vendor / tiles |${extra.map((e) => ` vendor / ${e.label} |`).join('')} syrk roofline ms | vendor roofline ms | tiles % roofline |`);
console.log(`|---|---|---|---|---|${extra.map(() => '---|').join('')}---|---|---|${extra.map(() => '---|').join('')}---|---|---|`);
for (const dtype of dtypes) for (const n of sizes) {
  const count = gpuBenchBatch('syrk', dtype, n);
  const bytes = dtype === 'float64' ? 8 : 4;
  const a = ctx.upload(randomMatrices(dtype, n, n, count, rng));
  const c = ctx.upload(randomMatrices(dtype, n, n, count, rng));
  const A = strided(a, { rows: n, cols: n, count }), C = strided(c, { rows: n, cols: n, count });
  const run = (tiles) => median(() => syrkCuda(dev, { uplo: 'lower', trans: 'N', alpha: 1, beta: 0, a: A, c: C }, { force: { tiles } }));
  const old = run(false), tiles = run(true), more = extra.map((e) => run(e.shape));
  const vendor = median(() => blas.gemmStridedBatched(dtype, 'N', 'T', n, n, n, 1, a, n, n * n, a, n, n * n, 0, c, n, n * n, count));
  const syrkRoof = ((n * n + (n * (n + 1)) / 2) * bytes * count / bandwidth) * 1e3;
  const vendorRoof = (2 * n * n * bytes * count / bandwidth) * 1e3;
  console.log(`| ${dtype} | ${n} | ${count} | ${fmt(old)} | ${fmt(tiles)} |${more.map((m) => ` ${fmt(m)} |`).join('')} ${fmt(vendor)} | ${(vendor / old).toFixed(2)}x | ${(vendor / tiles).toFixed(2)}x |${more.map((m) => ` ${(vendor / m).toFixed(2)}x |`).join('')} ${fmt(syrkRoof)} | ${fmt(vendorRoof)} | ${(100 * syrkRoof / tiles).toFixed(0)} % |`);
  a.dispose?.(); c.dispose?.();
}
ctx.dispose();
