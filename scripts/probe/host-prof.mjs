// Probe: host cost of one Context.gemm call on a real device (tiny batch: host-bound).
import { open } from '../../dist/src/index.js';
const ctx = open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
for (const [dtype, n, count] of [['float64', 2, 11184810], ['float64', 2, 1000], ['float64', 16, 1000]]) {
  const arrays = [0, 1, 2].map(() => dev.alloc(dtype, count * n * n));
  const sb = (data) => ({ kind: 'strided', data, rows: n, cols: n, count, ld: n, stride: n * n, offset: 0, order: 'col' });
  const [a, b, c] = arrays.map(sb);
  for (let i = 0; i < 200; i++) ctx.gemm({ a, b, c, beta: 0 });
  await ctx.synchronize();
  const calls = count > 1e6 ? 40 : 5000;
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) ctx.gemm({ a, b, c, beta: 0 });
  const t1 = performance.now();
  await ctx.synchronize();
  console.log(`${dtype} n=${n} count=${count}: ${(((t1 - t0) / calls) * 1000).toFixed(1)} us/call host`);
  for (const x of arrays) x.dispose();
}
