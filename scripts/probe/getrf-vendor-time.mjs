// One matrix's getrf on the cuSOLVER route (forced) and the own route, device-resident, CUDA events,
// median of 5 after 2 warm-ups, fresh copy of A restored (untimed) before each call.
//   node scripts/probe/getrf-vendor-time.mjs [orders=256,1024,4096,8192] [dtypes=float64,float32]
import { open, strided } from '../../dist/src/index.js';
import { randomMatrices, Random } from '../../dist/src/bench/data.js';

const orders = (process.argv[2] ?? '256,1024,4096,8192').split(',').map(Number);
const dtypes = (process.argv[3] ?? 'float64,float32').split(',');
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const median = (f, reset) => { const t = []; for (let r = 0; r < 7; r++) { reset(); const ms = ctx.time(f); if (r >= 2) t.push(ms); } t.sort((x, y) => x - y); return t[2]; };
for (const dtype of dtypes) for (const n of orders) {
  const host = randomMatrices(dtype, n, n, 1, new Random(n));
  const a0 = ctx.upload(host), a = ctx.alloc(dtype, n * n);
  const ipiv = ctx.alloc('int32', n), info = ctx.alloc('int32', 1);
  const row = [dtype, n];
  for (const route of ['cusolver', 'getrf']) {
    ctx.deviceBackend.force = { getrf: route };
    const ms = median(() => ctx.getrf({ a: strided(a, { rows: n, cols: n, count: 1 }), ipiv, info }), () => dev.copy(a0, 0, a, 0, n * n));
    row.push(`${route} ${ms.toFixed(3)} ms`);
  }
  console.log(row.join(' | '));
}
