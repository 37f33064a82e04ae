// How many kernels a large single potrf launches, how long the host takes, and the breakdown by kernel name.
import { open, strided } from '../../dist/src/index.js';
import { CudaKernel } from '../../dist/src/cuda/runtime/index.js';
import { randomSpd, Random } from '../../dist/src/bench/data.js';
const counts = new Map();
let counting = false;
const orig = CudaKernel.prototype.launch;
CudaKernel.prototype.launch = function (config, args) {
  if (counting) counts.set(this.name.replace(/_[0-9a-f]{6,}$/,''), (counts.get(this.name) ?? 0) + 1);
  return orig.call(this, config, args);
};
const ctx = await open({ backend: 'cuda' });
const rng = new Random(7);
for (const n of (process.argv[2] ?? '1024,4096').split(',').map(Number)) {
  const host = randomSpd('float64', n, 1, rng);
  const a0 = ctx.upload(host), a = ctx.alloc('float64', n * n), info = ctx.alloc('int32', 1);
  const run = () => { ctx.copy(a0, a); ctx.potrf({ a: strided(a, { rows: n, cols: n, count: 1 }), uplo: 'lower', info }); };
  run(); run();
  counts.clear(); counting = true;
  const t0 = performance.now(); run(); await ctx.synchronize(); const t1 = performance.now();
  counting = false;
  const ms = []; for (let r = 0; r < 5; r++) ms.push(ctx.time(run));
  ms.sort((x, y) => x - y);
  const total = [...counts.values()].reduce((s, x) => s + x, 0);
  console.log(`n=${n}: ${total} launches, wall ${(t1 - t0).toFixed(2)} ms, event median ${ms[2].toFixed(2)} ms`);
  console.log([...counts.entries()].sort((x, y) => y[1] - x[1]).slice(0, 12).map(([k, v]) => `  ${v} ${k}`).join('\n'));
}
ctx.dispose();
