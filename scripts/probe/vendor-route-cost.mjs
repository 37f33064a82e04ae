// What a call routed to cuBLAS costs beyond cuBLAS itself, on one product at a time: cuBLAS called
// directly (the handle the route uses), the route's function (vendor/gemm.ts) called directly, and the
// API call (ctx.gemm) on its default route and with the route forced, own kernel forced beside. For
// each, after 200 warm-up calls: CUDA events around one call (median of 9), the host's time a call (each
// of 200 calls back to back timed alone by performance.now, the median; then one wait), and, in a second
// pass, inside the library (the handle's `call` wrapped: its median time a call, and how many handles
// served the calls). The ways timed first in a process read higher: V8's warm-up of the API's JavaScript
// lasts more than a few hundred calls (scripts/probe/api-warmup-order.mjs).
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
// Each way warmed up by 200 calls first (V8 compiles the API's JavaScript by then), for the events as for the host.
const warm = (f) => { for (let i = 0; i < 200; i++) f(); dev.synchronize(); };
const eventMs = (f) => { warm(f); const ms = []; for (let r = 0; r < 9; r++) ms.push(ctx.time(f)); return median(ms); };

// The library's own time a call, and which handles made the calls: cuBLAS's binding wrapped for a
// second pass only, so that the host's time a call is measured without the wrapper.
const inside = [];
const handles = new Set();
const call = Cublas.prototype.call;
const wrapped = function (...args) {
  handles.add(this);
  const t = performance.now();
  try { return call.apply(this, args); } finally { inside.push(performance.now() - t); }
};
const hostUs = (f) => {
  warm(f);
  const each = [];
  for (let i = 0; i < 200; i++) { const t = performance.now(); f(); each.push(performance.now() - t); }
  dev.synchronize();
  inside.length = 0; handles.clear();
  Cublas.prototype.call = wrapped;
  try { for (let i = 0; i < 200; i++) f(); } finally { Cublas.prototype.call = call; }
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
