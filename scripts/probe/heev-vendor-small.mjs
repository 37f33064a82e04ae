// Complex heev with vectors at n <= 32 and just above: the own route (the Jacobi warp design to 32, the
// tridiagonal design above) against cusolverDnXsyevBatched on the complex type (route 'cusolver', which
// the card's table takes from 128 in complex128 and 64 in complex64), each forced on the same data, in
// two alternating rounds, each route's best median of 5 kept; A reset outside the timing.
//   node scripts/probe/heev-vendor-small.mjs [n:count,...]
import { open } from '../../dist/src/index.js';
import { Random } from '../../dist/src/bench/data.js';
import { COMPLEX_WORKLOADS } from '../../dist/src/bench/complex-workloads.js';
import { timeMs } from '../../dist/src/cuda/tune/measure.js';

const ctx = await open({ backend: 'cuda' });
const backend = ctx.deviceBackend;
const dev = backend.device;
const cases = (process.argv[2] ?? '16:20000,24:10000,32:10000,48:4000,64:2000').split(',').map((s) => s.split(':').map(Number));
console.log('| dtype | n | count | own route | own ms | XsyevBatched ms | vendor / own |');
console.log('| --- | ---: | ---: | --- | ---: | ---: | ---: |');
for (const dtype of ['complex128', 'complex64']) for (const [n, count] of cases) {
  const p = COMPLEX_WORKLOADS.heev.prepare(ctx, dtype, n, count, new Random(n));
  try {
    backend.force = {};
    p.reset(); p.run();
    const own = ctx.lastRoute.route;
    const time = (route) => { backend.force = { heev: route }; return timeMs(dev, () => p.run(), 5, () => p.reset()); };
    let ownMs = Infinity, vendorMs = Infinity;
    for (let round = 0; round < 2; round++) { ownMs = Math.min(ownMs, time(own)); vendorMs = Math.min(vendorMs, time('cusolver')); }
    console.log(`| ${dtype} | ${n} | ${count} | ${own} | ${ownMs.toFixed(3)} | ${vendorMs.toFixed(3)} | ${(vendorMs / ownMs).toFixed(2)} |`);
  } finally {
    backend.force = {};
    p.dispose();
  }
}
ctx.dispose();
