// Where a single large potrf/getrf spends its time. For each n: cuSOLVER's dense call;
// ours as enqueued (CUDA events); the host time of the enqueue alone; ours replayed from a CUDA
// graph (no host work between kernels: the bound of removing host cost); and the GPU time of each
// kernel (events around every launch, summed by kernel name), so the gaps show.
// Usage: node scripts/probe/large-breakdown.mjs [op=potrf] [sizes=1024,4096] [dtype=float64]
import { open, strided } from '../../dist/src/index.js';
import { CudaKernel } from '../../dist/src/cuda/runtime/index.js';
import { randomSpd, randomMatrices, Random } from '../../dist/src/bench/data.js';
import { potrfCuda } from '../../dist/src/cuda/kernels/potrf/index.js';
import { getrfCuda } from '../../dist/src/cuda/kernels/getrf/index.js';
import { Cusolver } from '../../dist/src/cuda/baselines/index.js';

const op = process.argv[2] ?? 'potrf';
const sizes = (process.argv[3] ?? '1024,4096').split(',').map(Number);
const dtype = process.argv[4] ?? 'float64';
// FORCE='{"diagonal":128}' passes a force object to our call.
const opts = process.env.FORCE ? { force: JSON.parse(process.env.FORCE) } : {};
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const solver = new Cusolver(dev);
const rng = new Random(5);
const median = (f) => { f(); f(); const ms = []; for (let r = 0; r < 7; r++) ms.push(ctx.time(f)); ms.sort((x, y) => x - y); return ms[3]; };

let timing = null;
const orig = CudaKernel.prototype.launch;
CudaKernel.prototype.launch = function (c, a) {
  if (!timing) return orig.call(this, c, a);
  const e0 = dev.event(), e1 = dev.event();
  e0.record(); orig.call(this, c, a); e1.record();
  timing.push([this.name.replace(/_[0-9a-f]{6,}$/, ''), e0, e1]);
};

for (const n of sizes) {
  const host = op === 'potrf' ? randomSpd(dtype, n, 1, rng) : randomMatrices(dtype, n, n, 1, rng);
  const a0 = ctx.upload(host), a = ctx.alloc(dtype, n * n), info = ctx.alloc('int32', 1), piv = ctx.alloc('int32', n);
  const A = strided(a, { rows: n, cols: n, count: 1 });
  const ours = () => op === 'potrf'
    ? potrfCuda(dev, { a: A, uplo: 'lower', info }, opts)
    : getrfCuda(dev, { a: A, ipiv: piv, pivotStride: n, info }, opts);
  const dense = solver.dense(dtype, op, n, a, 1);
  const copyMs = median(() => ctx.copy(a0, a));
  const vendorMs = median(() => { ctx.copy(a0, a); dense.run(); }) - copyMs;
  const directMs = median(() => { ctx.copy(a0, a); ours(); }) - copyMs;
  // host enqueue alone (the GPU may still be running when it returns)
  const hosts = [];
  for (let r = 0; r < 5; r++) { await ctx.synchronize(); ctx.copy(a0, a); const t0 = performance.now(); ours(); hosts.push(performance.now() - t0); await ctx.synchronize(); }
  hosts.sort((x, y) => x - y);
  ctx.copy(a0, a);
  const graph = dev.capture(ours);
  const graphMs = median(() => { ctx.copy(a0, a); graph.launch(); }) - copyMs;
  graph.dispose();
  ctx.copy(a0, a); await ctx.synchronize();
  timing = []; ours(); await ctx.synchronize();
  const byName = new Map(); let sum = 0;
  for (const [name, e0, e1] of timing) { const ms = e1.elapsedSince(e0); sum += ms; const v = byName.get(name) ?? [0, 0]; byName.set(name, [v[0] + 1, v[1] + ms]); e0.dispose(); e1.dispose(); }
  const launches = timing.length; timing = null;
  const flops = (op === 'potrf' ? n ** 3 / 3 : (2 * n ** 3) / 3) / 1e9;
  console.log(`${op} ${dtype} n=${n}: cuSOLVER ${vendorMs.toFixed(3)} ms (${(flops / vendorMs).toFixed(1)} TF/s) | ours ${directMs.toFixed(3)} ms (${(flops / directMs).toFixed(1)} TF/s), host enqueue ${hosts[2].toFixed(3)} ms, graph replay ${graphMs.toFixed(3)} ms, ${launches} launches, kernels alone ${sum.toFixed(3)} ms`);
  for (const [name, [c, ms]] of [...byName.entries()].sort((x, y) => y[1][1] - x[1][1]).slice(0, 10)) console.log(`   ${ms.toFixed(3)} ms  ${c}x  ${name}`);
  dense.dispose();
}
solver.dispose();
ctx.dispose();
