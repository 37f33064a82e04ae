// What a call routed to cuBLAS costs beyond cuBLAS itself: the same product through the API (ctx.gemm,
// its route the card's vendor table's) and cuBLAS called directly on the same device data, CUDA events
// around one call (median of 9 after 3 warm-ups), and the host's time a call (100 calls enqueued back
// to back, performance.now, then one wait: the larger of host and device time a call).
//   node scripts/probe/vendor-route-cost.mjs
import { open, strided } from '../../dist/src/index.js';
import { Random, randomMatrices } from '../../dist/src/bench/data.js';
import { vendorBlas } from '../../dist/src/cuda/vendor/native.js';

const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const blas = vendorBlas(dev);
const rng = new Random(3);
const median = (f) => { for (let i = 0; i < 3; i++) f(); const ms = []; for (let r = 0; r < 9; r++) ms.push(ctx.time(f)); ms.sort((x, y) => x - y); return ms[4]; };
const perCall = (f) => { f(); dev.synchronize(); const t = performance.now(); for (let i = 0; i < 100; i++) f(); const host = (performance.now() - t) / 100; dev.synchronize(); const all = (performance.now() - t) / 100; return `host ${(host * 1000).toFixed(1)} us, with the wait ${(all * 1000).toFixed(1)} us`; };
const cases = [
  { dtype: 'complex128', real: 'float64', n: 32, count: 21845 },
  { dtype: 'complex64', real: 'float32', n: 64, count: 5461 },
  { dtype: 'float64', real: 'float64', n: 128, count: 682 },
  { dtype: 'float64', real: 'float64', n: 96, count: 1213 },
];
for (const c of cases) {
  const complex = c.dtype.startsWith('complex');
  const rows = complex ? 2 * c.n : c.n;
  const [a, b, d] = [0, 1, 2].map(() => ctx.upload(randomMatrices(c.real, rows, c.n, c.count, rng)));
  const batch = (x) => strided(x, { rows: c.n, cols: c.n, count: c.count, ...(complex ? { dtype: c.dtype } : {}) });
  const api = () => ctx.gemm({ a: batch(a), b: batch(b), c: batch(d), alpha: complex ? [1, 0] : 1, beta: complex ? [0, 0] : 0 });
  const n = c.n;
  const direct = complex
    ? () => blas.complexGemmAt('strided', c.real, 'N', 'N', n, n, n, [1, 0], a.ptr, n, n * n, b.ptr, n, n * n, [0, 0], d.ptr, n, n * n, c.count)
    : () => blas.gemmStridedAt(c.real, 'N', 'N', n, n, n, 1, a.ptr, n, n * n, b.ptr, n, n * n, 0, d.ptr, n, n * n, c.count);
  const apiMs = median(api);
  const directMs = median(direct);
  console.log(`${c.dtype} ${n} x ${c.count}: API ${apiMs.toFixed(3)} ms (${perCall(api)}), cuBLAS direct ${directMs.toFixed(3)} ms (${perCall(direct)})`);
  for (const x of [a, b, d]) x.dispose?.();
}
ctx.dispose();
