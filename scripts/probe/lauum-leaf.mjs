// lauum lower (the bench's workload) with its leaves: the shared-memory leaf (the recursion's
// default before the register leaf), and the register leaf (generate-register-leaf.ts) at each
// accumulator shape, plain and pipelined, square and packed, and the largest leaf (leafMax) 32 and 64, forced; beside cuBLAS's
// gemmStridedBatched of L^T L (the bench's vendor: the full product, twice the flops), at the
// bench's counts (gpuBenchBatch), CUDA events (ctx.time), median of 7 after 2 warm-ups, fresh data
// per size. Markdown table on stdout, ms.
// Usage: MYRIAD_QUICK_FIRST=0 [DTYPE=float32] node scripts/probe/lauum-leaf.mjs [sizes=16,32,48,64,96,128,256]
import { open, strided } from '../../dist/src/index.js';
import { lauumCuda } from '../../dist/src/cuda/kernels/lauum/index.js';
import { Cublas } from '../../dist/src/cuda/baselines/index.js';
import { gpuBenchBatch } from '../../dist/src/core/bench-batch.js';
import { randomMatrices, Random } from '../../dist/src/bench/data.js';

const sizes = (process.argv[2] ?? '16,32,48,64,96,128,256').split(',').map(Number);
const dtype = process.env.DTYPE === 'float32' ? 'float32' : 'float64';
const WAYS = [
  { tag: 'shared leaf', force: { leaf: 'shared' } },
  { tag: 'default', force: undefined },
  ...[32, 64].flatMap((leafMax) => [2, 4, 8].map((reg) => ({ tag: `reg ${reg} leafMax ${leafMax}`, force: { leaf: 'register', reg, leafMax, pipelined: false, packed: false } }))),
  ...[32, 64].flatMap((leafMax) => [4, 8].map((reg) => ({ tag: `reg ${reg} leafMax ${leafMax} pipelined`, force: { leaf: 'register', reg, leafMax, pipelined: true, packed: false } }))),
  ...[32, 64].flatMap((leafMax) => [4, 8].flatMap((reg) => [false, true].map((pipelined) => ({ tag: `reg ${reg} leafMax ${leafMax}${pipelined ? ' pipelined' : ''} packed`, force: { leaf: 'register', reg, leafMax, pipelined, packed: true } })))),
];
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const blas = new Cublas(dev);
const median = (f) => { f(); f(); const ms = []; for (let r = 0; r < 7; r++) ms.push(ctx.time(f)); ms.sort((x, y) => x - y); return ms[3]; };
const rng = new Random(6);
console.log(`lauum lower, ${dtype}; ms`);
console.log(`| n | count | ${WAYS.map((w) => w.tag).join(' | ')} | cuBLAS gemm | vendor / default | vendor / best | best |`);
console.log(`|---|---|${WAYS.map(() => '---|').join('')}---|---|---|---|`);
for (const n of sizes) {
  const count = gpuBenchBatch('lauum', dtype, n);
  // Entries of order 1 / n: lauum in place, repeated, then shrinks the values instead of overflowing
  // them (an infinity would send the trmm steps down their slower non-finite path).
  const host = randomMatrices(dtype, n, n, count, rng);
  for (let e = 0; e < host.length; e++) host[e] /= n;
  const a = ctx.upload(host);
  const c = dev.alloc(dtype, n * n * count);
  const info = dev.alloc('int32', count);
  const A = strided(a, { rows: n, cols: n, count });
  const times = WAYS.map((w) => {
    try { return median(() => lauumCuda(dev, { uplo: 'lower', a: A, info }, w.force === undefined ? {} : { force: w.force })); } catch { return NaN; }
  });
  const vendor = median(() => blas.gemmStridedBatched(dtype, 'T', 'N', n, n, n, 1, a, n, n * n, a, n, n * n, 0, c, n, n * n, count));
  const best = Math.min(...times.filter((x) => Number.isFinite(x)));
  console.log(`| ${n} | ${count} | ${times.map((x) => (Number.isFinite(x) ? x.toFixed(3) : '-')).join(' | ')} | ${vendor.toFixed(3)} | ${(vendor / times[1]).toFixed(2)} | ${(vendor / best).toFixed(2)} | ${WAYS[times.indexOf(best)].tag} |`);
  a.dispose?.(); c.dispose(); info.dispose();
}
ctx.dispose();
