// geqrf + orgqr (Q formed) of n x n batches: ours against the vendor's two routes, cublas geqrfBatched
// + cusolverDn orgqr per matrix (the bench's) and cusolverDn geqrf + orgqr per matrix (the single-matrix
// routines a user loops), in the same run; ms, median of 3, inputs reset outside the timing.
import { open, strided } from '../../dist/src/index.js';
import { Random, randomMatrices } from '../../dist/src/bench/data.js';
import { geqrfCuda, orgqrCuda } from '../../dist/src/cuda/kernels/qr/index.js';
import { Cusolver } from '../../dist/src/cuda/baselines/index.js';
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const solver = new Cusolver(dev);
const rng = new Random(8);
const cases = (process.argv[2] ?? '64:2000,128:500,256:100,512:20').split(',').map((s) => s.split(':').map(Number));
for (const dtype of ['float64', 'float32']) for (const [n, count] of cases) {
  const host = randomMatrices(dtype, n, n, count, rng);
  const a0 = ctx.upload(host), a = ctx.alloc(dtype, n * n * count), tau = ctx.alloc(dtype, n * count), info = ctx.alloc('int32', count);
  const A = strided(a, { rows: n, cols: n, count }), T = strided(tau, { rows: n, cols: 1, count });
  const reset = () => dev.copy(a0, 0, a, 0, n * n * count);
  const time = (f, rs) => { const t = []; for (let r = 0; r < 5; r++) { rs(); const ms = ctx.time(f); if (r >= 2) t.push(ms); } t.sort((x, y) => x - y); return t[1]; };
  const ours = time(() => { geqrfCuda(dev, { a: A, tau: T, info }); orgqrCuda(dev, { a: A, tau: T }); }, reset);
  // One device array per matrix for the single-matrix routines.
  const mats = Array.from({ length: count }, () => ctx.alloc(dtype, n * n));
  const calls = mats.map((m) => solver.geqrfOrgqr(dtype, n, n, m, n));
  const resetMats = () => mats.forEach((m, i) => dev.copy(a0, i * n * n, m, 0, n * n));
  const single = time(() => { for (const c of calls) c.run(); }, resetMats);
  console.log(`${dtype} n=${n} x ${count}: ours ${ours.toFixed(3)} ms, cusolverDn geqrf + orgqr per matrix ${single.toFixed(3)} ms (${(single / ours).toFixed(1)}x)`);
  calls.forEach((c) => c.dispose()); mats.forEach((m) => m.dispose());
  for (const x of [a0, a, tau, info]) x.dispose();
}
solver.dispose();
ctx.dispose();
