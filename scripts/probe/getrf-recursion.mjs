// getrf of large matrices: the recursion (tall panels, laswp, trsm, gemm; off by default) against the
// default path and cuSOLVER dense, by n and count (float64; A reset from a pristine copy before each
// timed call, outside the timing). Usage: node scripts/probe/getrf-recursion.mjs 1024,2048,4096 1
import { open, strided } from '../../dist/src/index.js';
import { Random, randomMatrices } from '../../dist/src/bench/data.js';
import { getrfCuda } from '../../dist/src/cuda/kernels/getrf/index.js';
import { Cusolver } from '../../dist/src/cuda/baselines/index.js';
const sizes = (process.argv[2] ?? '1024,2048,4096').split(',').map(Number);
const count = Number(process.argv[3] ?? 1);
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const solver = new Cusolver(dev);
const rng = new Random(3);
const median = (f, reset) => { const t = []; for (let r = 0; r < 7; r++) { reset(); const ms = ctx.time(f); if (r >= 2) t.push(ms); } t.sort((x, y) => x - y); return t[2]; };
for (const n of sizes) {
  const a0 = ctx.upload(randomMatrices('float64', n, n, count, rng)), a = ctx.alloc('float64', n * n * count);
  const ipiv = ctx.alloc('int32', n * count), info = ctx.alloc('int32', count);
  const reset = () => dev.copy(a0, 0, a, 0, n * n * count);
  const req = { a: strided(a, { rows: n, cols: n, count }), ipiv, pivotStride: n, info };
  const row = [];
  for (const [name, force] of [['default', undefined], ['recursion', { recursive: true }]]) {
    const ms = median(() => getrfCuda(dev, req, force ? { force } : {}), reset);
    row.push(`${name} ${ms.toFixed(3)} ms (${(2 / 3 * n ** 3 * count / ms / 1e9).toFixed(2)} TFLOP/s)`);
  }
  const vendor = solver.dense('float64', 'getrf', n, a, count);
  row.push(`cuSOLVER ${median(() => vendor.run(), reset).toFixed(3)} ms`);
  vendor.dispose();
  console.log(`getrf float64 n=${n} x ${count}: ${row.join(', ')}`);
  for (const x of [a0, a, ipiv, info]) x.dispose();
}
solver.dispose();
ctx.dispose();
