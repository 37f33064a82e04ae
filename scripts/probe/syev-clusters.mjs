// syev with vectors on the bench's diagonally dominant matrices (most of the spectrum one cluster in
// dstein's sense: the tridiag design's clusters kernel) and on random symmetric ones, as routed, against
// cusolverDnXsyevBatched and syevd a matrix per call (counts of 100 and fewer); ms, median of 5 after 2
// warm-ups, A reset outside the timing.
//   node scripts/probe/syev-clusters.mjs [float64|float32|both] [128:500,256:100,512:20]
import { strided } from '../../dist/src/index.js';
import { syevProbe } from './syev-setup.mjs';
import { randomSymmetric, randomSpd } from '../../dist/src/bench/data.js';
const { ctx, dev, solver, rng, dtypes, cases, median } = await syevProbe('128:500,256:100,512:20');
const T0 = performance.now();
const say = (s) => console.log(`[${((performance.now() - T0) / 1000).toFixed(1)} s] ${s}`);
for (const dtype of dtypes) for (const [n, count] of cases) for (const data of ['dominant', 'random']) {
  const host = data === 'dominant' ? randomSpd(dtype, n, count, rng) : randomSymmetric(dtype, n, count, rng);
  const a0 = ctx.upload(host), a = ctx.alloc(dtype, n * n * count), w = ctx.alloc(dtype, n * count), info = ctx.alloc('int32', count);
  const timed = (f) => median(() => { dev.copy(a0, 0, a, 0, n * n * count); dev.synchronize(); return ctx.time(f); });
  const own = timed(() => ctx.syev({ jobz: 'vectors', uplo: 'lower', a: strided(a, { rows: n, cols: n, count }), w: strided(w, { rows: n, cols: 1, count }), info }));
  const route = ctx.lastRoute?.route;
  const bad = Array.from(dev.download(info)).filter((x) => x !== 0).length;
  const x = solver.syevBatched(dtype, n, a, w, info, count, true);
  const xs = timed(() => x.run()); x.dispose();
  let sd = NaN;
  if (count <= 100) { const d = solver.syevdLoop(dtype, n, a, w, info, count, true); sd = timed(() => d.run()); d.dispose(); }
  say(`${dtype} ${n} x ${count} ${data}: own ${own.toFixed(3)} ms (${route}, info!=0 ${bad}) | XsyevBatched ${xs.toFixed(3)} | syevd loop ${sd.toFixed(3)} | best vendor / own ${(Math.min(xs, sd || Infinity) / own).toFixed(2)}`);
  for (const b of [a0, a, w, info]) b.dispose?.();
}
say('done');
