// geqrf of n x n batches, n = 2..8: the per-thread kernel's classic and fast variants
// (kernels/qr/generate-thread.ts, generate-thread-fast.ts; forced), the library call the bench times
// (ctx.geqrf: validation, routing, the table's variant), and cuBLAS's geqrfBatched on the same densely
// packed data, at the bench's counts (core/bench-batch.ts gpuBenchBatch) and at 1,000,000 matrices.
// ms by CUDA events, median of 7 after 2 warm-ups, A reset from a pristine copy outside the timing.
// 'fast x10' times 10 back-to-back calls in one event pair (per call): the kernel's throughput with the
// host's work per call hidden behind the previous kernel; 'host us' is the host time to enqueue one
// fast call. GB/s counts A read and written, tau and info written; % of the copy rate measured here
// (1 GiB device-to-device, read + write). Prints a markdown table. Under 2 minutes on an H200.
// Usage (after npx tsc -p .):
//   node scripts/probe/geqrf-tiny.mjs
//   N=4,8 COUNTS=1000000 DTYPES=float32 node scripts/probe/geqrf-tiny.mjs      (COUNTS=bench: the bench's counts only)
import { open, strided } from '../../dist/src/index.js';
import { Random, randomMatrices } from '../../dist/src/bench/data.js';
import { gpuBenchBatch } from '../../dist/src/core/bench-batch.js';
import { Cublas, batchPointers } from '../../dist/src/cuda/baselines/index.js';
import { geqrfCuda } from '../../dist/src/cuda/kernels/qr/index.js';
import { measureCopyBandwidth } from '../../dist/src/cuda/tune/measure.js';

process.env.MYRIAD_QUICK_FIRST ??= '0';

const sizes = (process.env.N ?? '2,3,4,5,6,7,8').split(',').map(Number);
const countsOf = (dtype, n) => {
  const spec = process.env.COUNTS ?? 'bench,1000000';
  return [...new Set(spec.split(',').map((c) => (c === 'bench' ? gpuBenchBatch('geqrf', dtype, n) : Number(c))))];
};
const dtypes = (process.env.DTYPES ?? 'float64,float32').split(',');
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const blas = new Cublas(dev);
const copyGBs = measureCopyBandwidth(dev) / 1e9;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const POOL = 65536;   // distinct random matrices, tiled over the batch on the device
const rows = [];
for (const dtype of dtypes) for (const n of sizes) {
  const bytes = dtype === 'float64' ? 8 : 4;
  const pool = ctx.upload(randomMatrices(dtype, n, n, POOL, new Random(n * 31 + bytes)));
  for (const count of countsOf(dtype, n)) {
    const len = n * n * count;
    const a0 = ctx.alloc(dtype, len);
    for (let q = 0; q < count; q += POOL) dev.copy(pool, 0, a0, q * n * n, Math.min(POOL, count - q) * n * n);
    const a = ctx.alloc(dtype, len), tau = ctx.alloc(dtype, n * count), info = ctx.alloc('int32', count);
    const A = strided(a, { rows: n, cols: n, count }), T = strided(tau, { rows: n, cols: 1, count });
    const reset = () => dev.copy(a0, 0, a, 0, len);
    const timed = (f) => {
      const ts = [];
      for (let r = 0; r < 9; r++) { reset(); const t = ctx.time(f); if (r >= 2) ts.push(t); }
      return median(ts);
    };
    const force = (threadVariant) => ({ force: { design: 'thread', threadVariant } });
    const classic = timed(() => geqrfCuda(dev, { a: A, tau: T, info }, force('classic')));
    const fast = timed(() => geqrfCuda(dev, { a: A, tau: T, info }, force('fast')));
    const library = timed(() => { ctx.geqrf({ a: A, tau: T, info }); });
    const route = ctx.lastRoute ? `${ctx.lastRoute.route}` : '?';
    const Ap = batchPointers(dev, a, count, n * n), Tp = batchPointers(dev, tau, count, n);
    const vendor = timed(() => blas.geqrfBatched(dtype, n, n, Ap, n, Tp, count));
    // 10 calls back to back (the data already factored: the same work per matrix), and the host's enqueue time.
    let hostUs = 0;
    const burst = median([0, 1, 2].map(() => {
      reset();
      return ctx.time(() => {
        const t0 = performance.now();
        for (let r = 0; r < 10; r++) geqrfCuda(dev, { a: A, tau: T, info }, force('fast'));
        hostUs = ((performance.now() - t0) * 1000) / 10;
      }) / 10;
    }));
    const moved = count * ((2 * n * n + n) * bytes + 4);
    const gbs = (ms) => moved / (ms * 1e6);
    rows.push(`| ${dtype} | ${n} | ${count} | ${classic.toFixed(4)} | ${fast.toFixed(4)} | ${library.toFixed(4)} | ${vendor.toFixed(4)} | ${burst.toFixed(4)} | ${hostUs.toFixed(1)} | ${gbs(fast).toFixed(0)} (${((100 * gbs(fast)) / copyGBs).toFixed(0)}%) | ${gbs(burst).toFixed(0)} (${((100 * gbs(burst)) / copyGBs).toFixed(0)}%) | ${(vendor / fast).toFixed(2)} | ${(vendor / library).toFixed(2)} | ${(classic / fast).toFixed(2)} | ${route} |`);
    console.error(rows.at(-1));
    for (const x of [a0, a, tau, info, Ap, Tp]) x.dispose?.();
  }
  pool.dispose?.();
}
console.log(`${dev.info.name}: geqrf of n x n densely packed batches, ms (median of 7, CUDA events); copy rate ${copyGBs.toFixed(0)} GB/s\n`);
console.log('| dtype | n | matrices | classic | fast | ctx.geqrf | cuBLAS geqrfBatched | fast x10 (per call) | host us | fast GB/s (% copy) | fast x10 GB/s (% copy) | cuBLAS / fast | cuBLAS / ctx.geqrf | classic / fast | route |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) console.log(r);
blas.dispose?.();
ctx.dispose();
