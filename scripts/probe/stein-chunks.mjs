// The inverse-iteration syev (tridiag family, forced) at large batch counts, where its workspace chunks decide the time:
// vectors and values only, ms (median of 5 after 2 warm-ups), against cusolverDnXsyevBatched with vectors.
//   node scripts/probe/stein-chunks.mjs [float64|float32|both] [512:264,384:300,...]
import { strided } from '../../dist/src/index.js';
import { syevProbe } from './syev-setup.mjs';
import { randomSymmetric } from '../../dist/src/bench/data.js';
import { syevTridiagCuda } from '../../dist/src/cuda/kernels/tridiag/index.js';
const { ctx, dev, solver, rng, dtypes, cases, median } = await syevProbe('512:264,384:300,256:600');
for (const dtype of dtypes) for (const [n, count] of cases) {
  const host = randomSymmetric(dtype, n, count, rng);
  const a0 = ctx.upload(host), a = ctx.alloc(dtype, n * n * count), w = ctx.alloc(dtype, n * count), info = ctx.alloc('int32', count);
  const timed = (f) => median(() => { dev.copy(a0, 0, a, 0, n * n * count); return ctx.time(f); });
  const req = (jobz) => ({ jobz, uplo: 'lower', a: strided(a, { rows: n, cols: n, count }), w: strided(w, { rows: n, cols: 1, count }), info });
  const row = [`vectors ${timed(() => syevTridiagCuda(dev, req('vectors'), { force: { stein: true } })).toFixed(2)}`, `values ${timed(() => syevTridiagCuda(dev, req('values'), { force: { stein: true } })).toFixed(2)}`];
  if (solver.hasSyevBatched) { const b = solver.syevBatched(dtype, n, a, w, info, count); try { row.push(`vendor ${timed(() => b.run()).toFixed(2)}`); } finally { b.dispose(); } }
  console.log(`${dtype} ${n} x ${count}: ${row.join(' | ')}`);
  for (const x of [a0, a, w, info]) x.dispose?.();
}
