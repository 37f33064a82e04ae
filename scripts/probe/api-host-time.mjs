// A call's host time through the API (ctx.gemm), steady state: 10,000 calls of one request after 200
// untimed, each timed alone by performance.now (the median). Run under V8's sampling profiler (node's
// --cpu-prof at 25 us, as below), it leaves one profile of the whole run (every case) in ./prof, for a
// look at where the time goes. Also one call timed by CUDA events, the API against the route's
// function (vendor/gemm.ts cublasGemm) called directly. Cases: float64 128 x 682 and 128 x 64 and
// complex128 96 x 32 (cuBLAS's route on an H200) and float64 16 x 64 (own kernel).
// (scripts/probe/vendor-route-cost.mjs times each way after 200 calls: its first ways still include
// V8's warm-up, scripts/probe/api-warmup-order.mjs.)
//   MYRIAD_QUICK_FIRST=0 node --cpu-prof --cpu-prof-interval 25 --cpu-prof-dir prof scripts/probe/api-host-time.mjs
import { open, strided } from '../../dist/src/index.js';
import { Random, randomMatrices } from '../../dist/src/bench/data.js';
import { cublasGemm } from '../../dist/src/cuda/vendor/gemm.js';
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const rng = new Random(3);
const median = (xs) => { const s = [...xs].sort((x, y) => x - y); return s[s.length >> 1]; };
const eventMs = (f) => { for (let i = 0; i < 3; i++) f(); const ms = []; for (let r = 0; r < 9; r++) ms.push(ctx.time(f)); return median(ms); };
const cases = [{ dtype: 'float64', real: 'float64', n: 128, count: 682 }, { dtype: 'float64', real: 'float64', n: 128, count: 64 }, { dtype: 'complex128', real: 'float64', n: 96, count: 32 }, { dtype: 'float64', real: 'float64', n: 16, count: 64 }];
for (const c of cases) {
  const complex = c.dtype.startsWith('complex'); const n = c.n;
  const [a, b, d] = [0, 1, 2].map(() => ctx.upload(randomMatrices(c.real, complex ? 2 * n : n, n, c.count, rng)));
  const batch = (x) => strided(x, { rows: n, cols: n, count: c.count, ...(complex ? { dtype: c.dtype } : {}) });
  const one = complex ? [1, 0] : 1, zero = complex ? [0, 0] : 0;
  const request = { transA: 'N', transB: 'N', a: batch(a), b: batch(b), c: batch(d), alpha: one, beta: zero };
  const api = () => ctx.gemm(request);
  for (let i = 0; i < 200; i++) api();
  dev.synchronize();
  const label = `${c.dtype} ${n} x ${c.count} route ${ctx.lastRoute?.route}`;
  let line = `${label}: event ms api ${eventMs(api).toFixed(4)}`;
  if (!complex) { const rr = { ...request, a: strided(a, { rows: n, cols: n, count: c.count }), b: strided(b, { rows: n, cols: n, count: c.count }), c: strided(d, { rows: n, cols: n, count: c.count }) }; line += ` route-fn ${eventMs(() => cublasGemm(dev, rr)).toFixed(4)}`; }
  // host time per call, steady state
  const each = [];
  for (let k = 0; k < 40; k++) { for (let i = 0; i < 250; i++) { const t = performance.now(); api(); each.push(performance.now() - t); } dev.synchronize(); }
  console.log(`${line}; host us/call median ${(median(each) * 1000).toFixed(1)}`);
  for (const x of [a, b, d]) x.dispose?.();
}
ctx.dispose();
