// geqrf (and orgqr) of n x n batches, n = 2..8: the per-thread kernel (kernels/qr/generate-thread.ts:
// staged through shared memory, the plan's choice for densely packed batches, and unstaged by force)
// against the shared-memory kernel (force 'shared') and cuBLAS's geqrfBatched on the same data
// (the bench's: uniform random, densely packed); orgqr per-thread against shared (no batched vendor
// orgqr). ms by CUDA events, median of 5 after 2 warm-ups, A reset from a pristine copy outside the
// timing; GB/s counts A read and written once and tau written (orgqr: tau read); the speed-up of the
// per-thread kernel over cuBLAS and over the shared kernel. Every kernel runs its optimised build
// (MYRIAD_QUICK_FIRST=0, set here: a quick build would be timed otherwise). Prints a markdown table.
// Usage (after npx tsc -p .):
//   node scripts/probe/qr-thread.mjs                       (n = 2..8, 100,000 and 1,000,000 matrices, both dtypes)
//   N=4,8 COUNTS=1000000 DTYPES=float32 node scripts/probe/qr-thread.mjs
import { open, strided } from '../../dist/src/index.js';
import { Random, randomMatrices } from '../../dist/src/bench/data.js';
import { Cublas, batchPointers } from '../../dist/src/cuda/baselines/index.js';
import { geqrfCuda, orgqrCuda } from '../../dist/src/cuda/kernels/qr/index.js';

process.env.MYRIAD_QUICK_FIRST ??= '0';

const sizes = (process.env.N ?? '2,3,4,5,6,7,8').split(',').map(Number);
const counts = (process.env.COUNTS ?? '100000,1000000').split(',').map(Number);
const dtypes = (process.env.DTYPES ?? 'float64,float32').split(',');
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const blas = new Cublas(dev);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
for (const dtype of dtypes) for (const n of sizes) for (const count of counts) {
  const bytes = dtype === 'float64' ? 8 : 4;
  const len = n * n * count;
  const rng = new Random(n * 31 + count);
  const a0 = ctx.upload(randomMatrices(dtype, n, n, count, rng));
  const a = ctx.alloc(dtype, len), tau = ctx.alloc(dtype, n * count), info = ctx.alloc('int32', count);
  const A = strided(a, { rows: n, cols: n, count }), T = strided(tau, { rows: n, cols: 1, count });
  const reset = () => dev.copy(a0, 0, a, 0, len);
  const timed = (f) => {
    const ts = [];
    for (let r = 0; r < 7; r++) { reset(); const t = ctx.time(f); if (r >= 2) ts.push(t); }
    return median(ts);
  };
  const geqrf = (force) => timed(() => geqrfCuda(dev, { a: A, tau: T, info }, { force }));
  const thread = geqrf({ design: 'thread' });
  const direct = geqrf({ design: 'thread', stage: false });
  const shared = geqrf({ design: 'shared' });
  const Ap = batchPointers(dev, a, count, n * n), Tp = batchPointers(dev, tau, count, n);
  const vendor = timed(() => blas.geqrfBatched(dtype, n, n, Ap, n, Tp, count));
  // orgqr on geqrf's output (the same factors for both designs: A reset to them before each call).
  reset();
  geqrfCuda(dev, { a: A, tau: T, info });
  const f0 = ctx.alloc(dtype, len);
  dev.copy(a, 0, f0, 0, len);
  const timedQ = (force) => {
    const ts = [];
    for (let r = 0; r < 7; r++) { dev.copy(f0, 0, a, 0, len); const t = ctx.time(() => orgqrCuda(dev, { a: A, tau: T }, { force })); if (r >= 2) ts.push(t); }
    return median(ts);
  };
  const qThread = timedQ({ design: 'thread' });
  const qShared = timedQ({ design: 'shared' });
  const gbs = (ms, moved) => (moved / (ms * 1e6)).toFixed(0);
  const moved = count * (2 * n * n + n) * bytes;
  rows.push(`| ${dtype} | ${n} | ${count} | ${thread.toFixed(3)} (${gbs(thread, moved)} GB/s) | ${direct.toFixed(3)} | ${shared.toFixed(3)} | ${vendor.toFixed(3)} | ${(vendor / thread).toFixed(2)} | ${(shared / thread).toFixed(2)} | ${qThread.toFixed(3)} | ${qShared.toFixed(3)} | ${(qShared / qThread).toFixed(2)} |`);
  console.error(rows.at(-1));
  for (const x of [a0, a, tau, info, Ap, Tp, f0]) x.dispose?.();
}
console.log(`${dev.info.name}: geqrf and orgqr of n x n batches, ms (median of 5, CUDA events)\n`);
console.log('| dtype | n | matrices | geqrf thread (staged) | thread unstaged | shared | cuBLAS geqrfBatched | cuBLAS / thread | shared / thread | orgqr thread | orgqr shared | shared / thread |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) console.log(r);
blas.dispose?.();
ctx.dispose();
