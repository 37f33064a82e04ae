// syev for n = 33 ... 512, the tridiagonal-QL kernel (kernels/tridiag) against the
// Jacobi block design and cusolverDnXsyevBatched, per dtype, vectors and values, ms (median of 5
// after 2 warm-ups; A reset from a pristine copy before each timed call, outside the timing).
// Tridiag shapes: the plan's, the working matrix forced into the global workspace, half the
// threads. The crossover (tuning/tridiag-default.ts syevFrom) and sharedMax come from these rows.
//   node scripts/probe/syev-tridiag.mjs [float64|float32|both] [64:2000,128:500,...]
import { strided } from '../../dist/src/index.js';
import { syevProbe } from './syev-setup.mjs';
import { randomSymmetric } from '../../dist/src/bench/data.js';
import { syevCuda } from '../../dist/src/cuda/kernels/jacobi/index.js';
import { syevTridiagCuda } from '../../dist/src/cuda/kernels/tridiag/index.js';

const { ctx, dev, solver, rng, dtypes, cases, median } = await syevProbe('33:4000,40:4000,48:3000,64:2000,96:1000,128:500,192:200,256:100,384:40,512:20');
for (const dtype of dtypes) for (const [n, count] of cases) {
  const host = randomSymmetric(dtype, n, count, rng);
  const a0 = ctx.upload(host), a = ctx.alloc(dtype, n * n * count), w = ctx.alloc(dtype, n * count), info = ctx.alloc('int32', count);
  const timed = (f) => median(() => { dev.copy(a0, 0, a, 0, n * n * count); return ctx.time(f); });
  const row = [];
  for (const jobz of ['vectors', 'values']) {
    const req = { jobz, uplo: 'lower', a: strided(a, { rows: n, cols: n, count }), w: strided(w, { rows: n, cols: 1, count }), info };
    const t = (f) => { try { return timed(f).toFixed(3); } catch (e) { return `(${e.message.slice(0, 40)})`; } };
    const tridiag = (force) => () => syevTridiagCuda(dev, req, { force });
    const half = Math.max(32, 32 * Math.ceil(Math.min(512, n) / 64));   // about half the plan's threads
    row.push(`${jobz}: tridiag ${t(tridiag(undefined))}, global ${t(tridiag({ global: true }))}, t${half} ${t(tridiag({ threads: half }))}, jacobi ${t(() => syevCuda(dev, req))}`);
  }
  if (solver.hasSyevBatched) {
    const b = solver.syevBatched(dtype, n, a, w, info, count);
    try { row.push(`vendor (vectors) ${timed(() => b.run()).toFixed(3)}`); } finally { b.dispose(); }
  }
  console.log(`${dtype} n=${n} x ${count} (ms): ${row.join(' | ')}`);
  for (const x of [a0, a, w, info]) x.dispose();
}
solver.dispose();
ctx.dispose();
