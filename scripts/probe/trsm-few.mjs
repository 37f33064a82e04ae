// trsm side left with few right-hand sides on one large triangle (the solves after a large
// factorization): the flag-chained substitution against the other paths (inverted diagonal blocks,
// the recursion) and cuBLAS's trsm on the same data, CUDA events, median of 7 after 2 warm-ups.
// Usage: node scripts/probe/trsm-few.mjs [sizes=1024,4096,16384] [rhs=1,16,64] [dtype=float64]
import { open, strided } from '../../dist/src/index.js';
import { trsmCuda } from '../../dist/src/cuda/kernels/trsm/index.js';
import { Cublas, batchPointers } from '../../dist/src/cuda/baselines/index.js';
import { randomMatrices, Random } from '../../dist/src/bench/data.js';

const sizes = (process.argv[2] ?? '1024,4096,16384').split(',').map(Number);
const rhsList = (process.argv[3] ?? '1,16,64').split(',').map(Number);
const dtype = process.argv[4] ?? 'float64';
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const blas = new Cublas(dev);
const median = (f) => { f(); f(); const ms = []; for (let r = 0; r < 7; r++) ms.push(ctx.time(f)); ms.sort((x, y) => x - y); return ms[3]; };
const rng = new Random(3);
for (const m of sizes) {
  const host = randomMatrices(dtype, m, m, 1, rng);
  for (let j = 0; j < m; j++) host[j + j * m] = m;   // well conditioned
  const a = ctx.upload(host);
  const A = strided(a, { rows: m, cols: m, count: 1 });
  for (const n of rhsList) {
    const b = ctx.upload(randomMatrices(dtype, m, n, 1, rng));
    const B = strided(b, { rows: m, cols: n, count: 1 });
    const row = [];
    for (const [name, force] of [['chain', { chain: true }], ['inverted', { chain: false, invertFrom: 0 }], ['recursion', { chain: false, invertFrom: Infinity }]]) {
      for (const transA of ['N', 'T']) {
        const ms = median(() => trsmCuda(dev, { side: 'left', uplo: 'lower', transA, diag: 'nonunit', alpha: 1, a: A, b: B }, { force }));
        row.push(`${name} ${transA} ${ms.toFixed(3)}`);
      }
    }
    // cuBLAS's batched trsm with a batch of one (its single-matrix trsm is not bound here).
    const pa = batchPointers(dev, a, 1, m * m), pb = batchPointers(dev, b, 1, m * n);
    for (const transA of ['N', 'T']) {
      const ms = median(() => blas.trsmBatched(dtype, 'left', 'lower', transA, 'nonunit', m, n, 1, pa, m, pb, m, 1));
      row.push(`cuBLAS batched ${transA} ${ms.toFixed(3)}`);
    }
    pa.dispose(); pb.dispose();
    console.log(`m ${m} n ${n} ${dtype} ms: ${row.join(', ')}`);
    b.dispose?.();
  }
  a.dispose?.();
}
ctx.dispose();
