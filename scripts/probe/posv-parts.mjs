// posv of one matrix with one right-hand side, in parts (where a posv's time goes beside its potrf:
// docs/large-factorizations.md): the whole call, potrf
// alone, the two triangular solves alone (on the factor), each by CUDA events (median of 5 after 2),
// and the host's time to enqueue the whole call (performance.now, no synchronisation; median).
// Usage: N=1024,2048,4096 DTYPE=float64 node scripts/probe/posv-parts.mjs
import { open, strided } from '../../dist/src/index.js';
import { Random, randomMatrices, randomSpd } from '../../dist/src/bench/data.js';
import { potrfCuda } from '../../dist/src/cuda/kernels/potrf/index.js';
import { trsmCuda } from '../../dist/src/cuda/kernels/trsm/index.js';

const sizes = (process.env.N ?? '1024,2048,4096').split(',').map(Number), dtype = process.env.DTYPE ?? 'float64';
const nrhs = Number(process.env.NRHS ?? 1);
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const rng = new Random(5);
const med = (xs) => xs.sort((x, y) => x - y)[xs.length >> 1];
const median = (f, reset) => { const t = []; for (let r = 0; r < 7; r++) { reset(); const ms = ctx.time(f); if (r >= 2) t.push(ms); } return med(t); };
for (const n of sizes) {
  const a0 = ctx.upload(randomSpd(dtype, n, 1, rng)), a = ctx.alloc(dtype, n * n);
  const b0 = ctx.upload(randomMatrices(dtype, n, nrhs, 1, rng)), b = ctx.alloc(dtype, n * nrhs), info = ctx.alloc('int32', 1);
  const reset = () => { dev.copy(a0, 0, a, 0, n * n); dev.copy(b0, 0, b, 0, n * nrhs); };
  const A = strided(a, { rows: n, cols: n, count: 1 }), B = strided(b, { rows: n, cols: nrhs, count: 1 });
  const posv = () => ctx.posv({ a: A, b: B, uplo: 'lower', info });
  const potrf = () => potrfCuda(dev, { uplo: 'lower', a: A, info });
  const solve = (transA) => () => trsmCuda(dev, { side: 'left', uplo: 'lower', transA, diag: 'nonunit', alpha: 1, a: A, b: B });
  posv(); await ctx.synchronize();
  const whole = median(posv, reset), factor = median(potrf, reset);
  const resetB = () => { dev.copy(b0, 0, b, 0, n * nrhs); };
  reset(); potrf();
  const lower = median(solve('N'), resetB), upper = median(solve('T'), resetB);
  const host = [];
  for (let r = 0; r < 9; r++) { reset(); await ctx.synchronize(); const t0 = performance.now(); posv(); host.push(performance.now() - t0); await ctx.synchronize(); }
  console.log(`posv ${dtype} n = ${n} nrhs = ${nrhs}: whole ${whole.toFixed(3)} ms; potrf ${factor.toFixed(3)}; trsm N ${lower.toFixed(3)}, T ${upper.toFixed(3)}; host enqueue of the whole ${med(host).toFixed(3)} ms`);
  for (const x of [a0, a, b0, b, info]) x.dispose();
}
ctx.dispose();
