// What a call routed to cuBLAS costs beyond cuBLAS itself, on one product at a time: cuBLAS called
// directly (the handle the route uses), the route's function (vendor/gemm.ts) called directly, and the
// API call (ctx.gemm) on its default route and with the route forced, own kernel forced beside. For
// each: CUDA events around one call (median of 9 after 3 warm-ups), the host's time a call (each of
// 200 calls back to back timed alone by performance.now, the median; then one wait), and inside the
// library (the handle's `call` wrapped: its median time a call, and how many handles served the calls).
//   node scripts/probe/vendor-route-cost.mjs
import { open, strided } from '../../dist/src/index.js';
import { Random, randomMatrices } from '../../dist/src/bench/data.js';
import { Cublas } from '../../dist/src/cuda/baselines/cublas.js';
import { cublasComplexGemm, cublasGemm } from '../../dist/src/cuda/vendor/gemm.js';
import { vendorBlas } from '../../dist/src/cuda/vendor/native.js';

const ctx = await open({ backend: 'cuda' });
const backend = ctx.deviceBackend;
const dev = backend.device;
const blas = vendorBlas(dev);
const rng = new Random(3);
const median = (xs) => { const s = [...xs].sort((x, y) => x - y); return s[s.length >> 1]; };
const eventMs = (f) => { for (let i = 0; i < 3; i++) f(); const ms = []; for (let r = 0; r < 9; r++) ms.push(ctx.time(f)); return median(ms); };

// The library's own time a call, and which handles made the calls.
const inside = [];
const handles = new Set();
const call = Cublas.prototype.call;
Cublas.prototype.call = function (...args) {
  handles.add(this);
  const t = performance.now();
  try { return call.apply(this, args); } finally { inside.push(performance.now() - t); }
};
const hostUs = (f) => {
  f(); dev.synchronize();
  inside.length = 0; handles.clear();
  const each = [];
  for (let i = 0; i < 200; i++) { const t = performance.now(); f(); each.push(performance.now() - t); }
  dev.synchronize();
  return `host ${(median(each) * 1000).toFixed(1)} us, in cuBLAS ${inside.length ? (median(inside) * 1000).toFixed(1) : '-'} us (${handles.size} handle(s), ${inside.length} calls)`;
};

const cases = [
  { dtype: 'float64', real: 'float64', n: 128, count: 682 },
  { dtype: 'complex128', real: 'float64', n: 32, count: 21845 },
];
for (const c of cases) {
  const complex = c.dtype.startsWith('complex');
  const n = c.n;
  const [a, b, d] = [0, 1, 2].map(() => ctx.upload(randomMatrices(c.real, complex ? 2 * n : n, n, c.count, rng)));
  const batch = (x) => strided(x, { rows: n, cols: n, count: c.count, ...(complex ? { dtype: c.dtype } : {}) });
  const one = complex ? [1, 0] : 1, zero = complex ? [0, 0] : 0;
  const request = { transA: 'N', transB: 'N', a: batch(a), b: batch(b), c: batch(d), alpha: one, beta: zero };
  // The route's own request: batches in pairs over the parts' arrays, as the router hands it (vendor/gemm.ts).
  const pairs = (x) => strided(x, { rows: n, cols: n, count: c.count });
  const routeRequest = { transA: 'N', transB: 'N', a: pairs(a), b: pairs(b), c: pairs(d), alpha: one, beta: zero };
  const ways = {
    direct: complex
      ? () => blas.complexGemmAt('strided', c.real, 'N', 'N', n, n, n, [1, 0], a.ptr, n, n * n, b.ptr, n, n * n, [0, 0], d.ptr, n, n * n, c.count)
      : () => blas.gemmStridedAt(c.real, 'N', 'N', n, n, n, 1, a.ptr, n, n * n, b.ptr, n, n * n, 0, d.ptr, n, n * n, c.count),
    route: complex ? () => cublasComplexGemm(dev, routeRequest) : () => cublasGemm(dev, routeRequest),
    api: () => ctx.gemm(request),
    'api, cublas forced': () => { backend.force = { gemm: 'cublas' }; try { ctx.gemm(request); } finally { backend.force = {}; } },
    'api, own forced': () => { backend.force = { gemm: 'gemm' }; try { ctx.gemm(request); } finally { backend.force = {}; } },
  };
  ctx.gemm(request);
  console.log(`${c.dtype} ${n} x ${c.count} (the API's route: ${ctx.lastRoute?.route})`);
  for (const [name, f] of Object.entries(ways)) {
    try {
      const ms = eventMs(f);
      console.log(`  ${name.padEnd(20)} ${ms.toFixed(3)} ms; ${hostUs(f)}`);
    } catch (e) {
      console.log(`  ${name.padEnd(20)} failed: ${String(e.message).split('\n')[0]}`);
    }
  }
  for (const x of [a, b, d]) x.dispose?.();
}
ctx.dispose();
