// syev with jobz 'values' (eigvalsh) on the default route (per-thread, rows,
// tridiagonal + bisection by n; from the tridiag table's steinPanelFrom the blocked reduction), the
// one-kernel tridiagonal design forced from 33, beside cusolverDnXsyevBatched with and without vectors, ms (median of
// 5 after 2 warm-ups; A reset from a pristine copy before each timed call, outside the timing).
//   node scripts/probe/syev-values.mjs [float64|float32|both] [16:20000,32:10000,...]
import { strided } from '../../dist/src/index.js';
import { syevProbe } from './syev-setup.mjs';
import { randomSymmetric } from '../../dist/src/bench/data.js';
import { runRouted } from '../../dist/src/cuda/router.js';
import { syevTridiagCuda } from '../../dist/src/cuda/kernels/tridiag/index.js';

const { ctx, dev, solver, rng, dtypes, cases, median } = await syevProbe('16:20000,32:10000,64:2000,128:500,256:100,512:20');
for (const dtype of dtypes) for (const [n, count] of cases) {
  const host = randomSymmetric(dtype, n, count, rng);
  const a0 = ctx.upload(host), a = ctx.alloc(dtype, n * n * count), w = ctx.alloc(dtype, n * count), info = ctx.alloc('int32', count);
  const timed = (f) => median(() => { dev.copy(a0, 0, a, 0, n * n * count); return ctx.time(f); });
  const req = { jobz: 'values', uplo: 'lower', a: strided(a, { rows: n, cols: n, count }), w: strided(w, { rows: n, cols: 1, count }), info };
  const row = [`values ${timed(() => runRouted('syev', dev, req)).toFixed(3)}`];
  // From 33: the tridiagonal family's one-kernel design (dsytd2 and bisection) forced, beside the route.
  if (n >= 33) row.push(`one kernel ${timed(() => syevTridiagCuda(dev, req, { force: { stein: false } })).toFixed(3)}`);
  for (const vectors of [false, true]) {
    try {
      const b = solver.syevBatched(dtype, n, a, w, info, count, vectors);
      try { row.push(`XsyevBatched ${vectors ? 'vectors' : 'values'} ${timed(() => b.run()).toFixed(3)}`); } finally { b.dispose(); }
    } catch (e) { row.push(`XsyevBatched ${vectors ? 'vectors' : 'values'}: ${e.message.slice(0, 60)}`); }
  }
  console.log(`${dtype} n=${n} x ${count} (ms): ${row.join(' | ')}`);
  for (const x of [a0, a, w, info]) x.dispose();
}
solver.dispose?.();
ctx.dispose();
