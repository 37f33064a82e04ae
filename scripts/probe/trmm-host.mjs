// Where trmm's time goes at small orders: the call's CUDA-event time against the host's enqueue time
// (performance.now around the call, no synchronisation) and ten calls in one timing, by leaf.
// Usage: MYRIAD_QUICK_FIRST=0 node scripts/probe/trmm-host.mjs [n=32] [dtype=float64]
import { open, strided } from '../../dist/src/index.js';
import { trmmCuda } from '../../dist/src/cuda/kernels/trsm/index.js';
import { gpuBenchBatch } from '../../dist/src/core/bench-batch.js';
import { randomMatrices, Random } from '../../dist/src/bench/data.js';

const n = Number(process.argv[2] ?? 32), dtype = process.argv[3] ?? 'float64';
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const count = gpuBenchBatch('trmm', dtype, n);
const hostA = randomMatrices(dtype, n, n, count, new Random(5));
for (let i = 0; i < count; i++) for (let j = 0; j < n; j++) hostA[i * n * n + j + j * n] = 1;
const A = strided(ctx.upload(hostA), { rows: n, cols: n, count }), B = strided(ctx.upload(randomMatrices(dtype, n, n, count, new Random(6))), { rows: n, cols: n, count });
for (const trmmLeaf of ['product', 'register']) {
  const call = () => trmmCuda(dev, { side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', alpha: 1 / n, a: A, b: B }, { force: { trmmLeaf } });
  call(); call(); dev.synchronize();
  const one = [], ten = [], host = [];
  for (let r = 0; r < 7; r++) {
    one.push(ctx.time(call));
    ten.push(ctx.time(() => { for (let i = 0; i < 10; i++) call(); }) / 10);
    dev.synchronize();
    const t0 = performance.now(); call(); host.push(performance.now() - t0); dev.synchronize();
  }
  const med = (x) => x.sort((a, b) => a - b)[3].toFixed(3);
  console.log(`${dtype} n=${n} count=${count} ${trmmLeaf}: one call ${med(one)} ms, ten calls ${med(ten)} ms a call, host enqueue ${med(host)} ms`);
}
ctx.dispose();
