// A call's host time through the API on cuBLAS's route (float64 gemm 128 x 682 and 128 x 64), the
// route forced and by the router's choice, each way timed twice in the orders forced-default and
// default-forced in one process: 300 untimed calls, then 300 calls back to back (each timed alone,
// the median) and 300 each after a wait. Shows how long V8's warm-up of the API's JavaScript lasts:
// the way timed first reads higher, whichever it is.
//   MYRIAD_QUICK_FIRST=0 node scripts/probe/api-warmup-order.mjs
import { open, strided } from '../../dist/src/index.js';
import { Random, randomMatrices } from '../../dist/src/bench/data.js';
const ctx = await open({ backend: 'cuda' });
const backend = ctx.deviceBackend, dev = backend.device;
const rng = new Random(3);
const median = (xs) => { const s = [...xs].sort((x, y) => x - y); return s[s.length >> 1]; };
for (const [n, count] of [[128, 682], [128, 64]]) {
  const [a, b, d] = [0, 1, 2].map(() => ctx.upload(randomMatrices('float64', n, n, count, rng)));
  const batch = (x) => strided(x, { rows: n, cols: n, count });
  const request = { transA: 'N', transB: 'N', a: batch(a), b: batch(b), c: batch(d), alpha: 1, beta: 0 };
  const ways = {
    forced: () => { backend.force = { gemm: 'cublas' }; try { ctx.gemm(request); } finally { backend.force = {}; } },
    default: () => ctx.gemm(request),
  };
  for (const order of [['forced', 'default'], ['default', 'forced']]) for (const name of order) {
    const f = ways[name];
    for (let i = 0; i < 300; i++) f();
    dev.synchronize();
    const each = [], eachSync = [];
    for (let i = 0; i < 300; i++) { const t = performance.now(); f(); each.push(performance.now() - t); }
    dev.synchronize();
    for (let i = 0; i < 300; i++) { const t = performance.now(); f(); eachSync.push(performance.now() - t); dev.synchronize(); }
    console.log(`${n}x${count} ${name.padEnd(8)} back to back ${(median(each) * 1000).toFixed(1)} us; each after a wait ${(median(eachSync) * 1000).toFixed(1)} us; route ${ctx.lastRoute?.route}`);
  }
}
ctx.dispose();
