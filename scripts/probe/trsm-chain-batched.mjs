// Batched trsm side left with few right-hand sides at mid orders: the flag-chained substitution
// (forced) against the default route (its plan made once and kept, as the router's calls run; where the
// card's table already takes the chain, the chain) and cuBLAS's trsmBatched, on the same data, at the
// vendor sweep's counts (its bytes a call; COUNT=k: k matrices at every order), lower, op(A) = A and
// A^T; CUDA events, median of 7 after 2 warm-ups; ms, and cuBLAS / chain in parentheses; 'no chain':
// the route the planner takes with the chain forced off (the recursion).
// Usage: [COUNT=4096] MYRIAD_QUICK_FIRST=0 node scripts/probe/trsm-chain-batched.mjs [orders=64,96,128,192,256,384,512] [rhs=1,4,16,64] [dtypes=float64,float32]
import { open, strided } from '../../dist/src/index.js';
import { trsmCuda } from '../../dist/src/cuda/kernels/trsm/index.js';
import { Cublas, batchPointers } from '../../dist/src/cuda/baselines/index.js';
import { randomMatrices, Random } from '../../dist/src/bench/data.js';
import { vendorGrid } from '../../dist/src/bench/vendor-sweep.js';

const orders = (process.argv[2] ?? '64,96,128,192,256,384,512').split(',').map(Number);
const rhsList = (process.argv[3] ?? '1,4,16,64').split(',').map(Number);
const dtypes = (process.argv[4] ?? 'float64,float32').split(',');
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const blas = new Cublas(dev);
const median = (f) => { f(); f(); const ms = []; for (let r = 0; r < 7; r++) ms.push(ctx.time(f)); ms.sort((x, y) => x - y); return ms[3]; };
const rng = new Random(5);
const grid = vendorGrid(['trsm'], dtypes);
console.log(`card: ${dev.info.name}; trsm left lower non-unit; ms (cuBLAS / chain)\n`);
console.log('| dtype | n | count | rhs | op | chain | default | no chain | cuBLAS |');
console.log('| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |');
for (const dtype of dtypes) for (const m of orders) {
  const count = Number(process.env.COUNT ?? 0) || (grid.find((c) => c.dtype === dtype && c.n === m && c.nrhs === 1)?.count ?? Math.max(1, Math.floor(2 ** 21 / (m * m))));
  const host = randomMatrices(dtype, m, m, count, rng);
  for (let i = 0; i < count; i++) for (let j = 0; j < m; j++) host[i * m * m + j + j * m] = m;   // well conditioned
  const a = ctx.upload(host);
  const A = strided(a, { rows: m, cols: m, count });
  const pa = batchPointers(dev, a, count, m * m);
  for (const n of rhsList) {
    const b = ctx.upload(randomMatrices(dtype, m, n, count, rng));
    const B = strided(b, { rows: m, cols: n, count });
    const pb = batchPointers(dev, b, count, m * n);
    for (const transA of ['N', 'T']) {
      const r = { side: 'left', uplo: 'lower', transA, diag: 'nonunit', alpha: 1, a: A, b: B };
      const chain = median(() => trsmCuda(dev, r, { force: { chain: true } }));
      const plan = median(() => trsmCuda(dev, r));
      const unchained = median(() => trsmCuda(dev, r, { force: { chain: false } }));
      const vendor = median(() => blas.trsmBatched(dtype, 'left', 'lower', transA, 'nonunit', m, n, 1, pa, m, pb, m, count));
      console.log(`| ${dtype} | ${m} | ${count} | ${n} | ${transA} | ${chain.toFixed(3)} (${(vendor / chain).toFixed(2)}) | ${plan.toFixed(3)} | ${unchained.toFixed(3)} | ${vendor.toFixed(3)} |`);
    }
    pb.dispose(); b.dispose?.();
  }
  pa.dispose(); a.dispose?.();
}
ctx.dispose();
