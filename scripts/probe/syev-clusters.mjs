// syev with vectors on the bench's diagonally dominant matrices (most of the spectrum one cluster in
// dstein's sense: the tridiag design's clusters kernel) and on random symmetric ones, as routed, against
// cusolverDnXsyevBatched and syevd a matrix per call (counts of 100 and fewer); ms, median of 5 after 2
// warm-ups, A reset outside the timing. SERIAL=8,1 also times the inverse-iteration design forced with
// each largest cluster computed on one thread in turn (force.steinSerialCluster; larger ones a thread a
// vector, orthogonalised by the clusters kernel), and prints the worst residual and orthogonality
// ratios (in n eps ||A|| and n eps) over the first 4 matrices of the last of them, against the inputs.
// THREADS=256,512 alike times the design with the clusters kernel's block forced (force.steinClusterThreads).
//   [SERIAL=8,1] [THREADS=256,512] node scripts/probe/syev-clusters.mjs [float64|float32|both] [128:500,256:100,512:20]
import { strided } from '../../dist/src/index.js';
import { syevProbe } from './syev-setup.mjs';
import { randomSymmetric, randomSpd } from '../../dist/src/bench/data.js';
import { syevTridiagCuda } from '../../dist/src/cuda/kernels/tridiag/index.js';
const list = (name) => (process.env[name] ?? '').split(',').filter((x) => x !== '').map(Number);
const SERIAL = list('SERIAL'), THREADS = list('THREADS');

/** The worst ||A v - w v|| / (n eps ||A||_F) and ||V^T V - I||_max / (n eps) over the first `m` matrices. */
function ratios(host, v, w, n, m, eps) {
  let res = 0, orth = 0;
  for (let k = 0; k < m; k++) {
    const A = (i, j) => host[k * n * n + (i >= j ? i + j * n : j + i * n)];   // lower triangle
    let fro = 0;
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) fro += A(i, j) ** 2;
    fro = Math.sqrt(fro);
    const V = (i, j) => v[k * n * n + i + j * n];
    for (let j = 0; j < n; j++) {
      let r = 0;
      for (let i = 0; i < n; i++) { let s = -w[k * n + j] * V(i, j); for (let l = 0; l < n; l++) s += A(i, l) * V(l, j); r += s * s; }
      res = Math.max(res, Math.sqrt(r) / (n * eps * fro));
      for (let jj = 0; jj <= j; jj++) { let s = 0; for (let i = 0; i < n; i++) s += V(i, j) * V(i, jj); orth = Math.max(orth, Math.abs(s - (j === jj ? 1 : 0)) / (n * eps)); }
    }
  }
  return `residual ${res.toFixed(3)}, orthogonality ${orth.toFixed(3)}`;
}
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
  const req = { jobz: 'vectors', uplo: 'lower', a: strided(a, { rows: n, cols: n, count }), w: strided(w, { rows: n, cols: 1, count }), info };
  const serial = [
    ...SERIAL.map((s) => `serial ${s}: ${timed(() => syevTridiagCuda(dev, req, { force: { stein: true, steinSerialCluster: s } })).toFixed(3)} ms`),
    ...THREADS.map((t) => `clusters block ${t}: ${timed(() => syevTridiagCuda(dev, req, { force: { stein: true, steinClusterThreads: t } })).toFixed(3)} ms`)];
  const check = serial.length > 0 ? ` (${ratios(host, dev.download(a), dev.download(w), n, 4, dtype === 'float64' ? 2 ** -52 : 2 ** -23)}, info!=0 ${Array.from(dev.download(info)).filter((x) => x !== 0).length})` : '';
  say(`${dtype} ${n} x ${count} ${data}: ${serial.join(' | ')}${check}`);
  const x = solver.syevBatched(dtype, n, a, w, info, count, true);
  const xs = timed(() => x.run()); x.dispose();
  let sd = NaN;
  if (count <= 100) { const d = solver.syevdLoop(dtype, n, a, w, info, count, true); sd = timed(() => d.run()); d.dispose(); }
  say(`${dtype} ${n} x ${count} ${data}: own ${own.toFixed(3)} ms (${route}, info!=0 ${bad}) | XsyevBatched ${xs.toFixed(3)} | syevd loop ${sd.toFixed(3)} | best vendor / own ${(Math.min(xs, sd || Infinity) / own).toFixed(2)}`);
  for (const b of [a0, a, w, info]) b.dispose?.();
}
say('done');
