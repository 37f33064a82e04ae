// Issue 13: the rate of the large Cholesky's trailing update alone: C (n x n) -= A A^T with A n x k,
// as our SYRK (gemm restricted to the lower triangle), our full GEMM, and cuBLAS's GEMM of the same
// full product (twice the SYRK's flops), CUDA events, median of 7 after 2 warm-ups.
// Usage: node scripts/probe/gemm-k.mjs [n=16384] [ks=128,256,512] [dtype=float64]
import { open, strided } from '../../dist/src/index.js';
import { gemmCuda } from '../../dist/src/cuda/kernels/gemm/index.js';
import { syrkCuda } from '../../dist/src/cuda/kernels/syrk/index.js';
import { Cublas } from '../../dist/src/cuda/baselines/index.js';
import { randomMatrices, Random } from '../../dist/src/bench/data.js';

const n = Number(process.argv[2] ?? 16384);
const ks = (process.argv[3] ?? '128,256,512').split(',').map(Number);
const dtype = process.argv[4] ?? 'float64';
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const blas = new Cublas(dev);
const median = (f) => { f(); f(); const ms = []; for (let r = 0; r < 7; r++) ms.push(ctx.time(f)); ms.sort((x, y) => x - y); return ms[3]; };
const rng = new Random(5);
const c = ctx.upload(randomMatrices(dtype, n, n, 1, rng));
const C = strided(c, { rows: n, cols: n, count: 1 });
for (const k of ks) {
  const a = ctx.upload(randomMatrices(dtype, n, k, 1, rng));
  const A = strided(a, { rows: n, cols: k, count: 1 });
  const tf = (flops, ms) => (flops / ms / 1e9).toFixed(1);
  const full = 2 * n * n * k;
  const syrk = median(() => syrkCuda(dev, { uplo: 'lower', trans: 'N', alpha: -1, a: A, beta: 1, c: C }));
  const gemm = median(() => gemmCuda(dev, { transA: 'N', transB: 'T', alpha: -1, a: A, b: A, beta: 1, c: C }));
  const vendor = median(() => blas.gemmStridedBatched(dtype, 'N', 'T', n, n, k, -1, a, n, n * k, a, n, n * k, 1, c, n, n * n, 1));
  console.log(`n ${n} k ${k} ${dtype}: syrk ${syrk.toFixed(3)} ms (${tf(full / 2, syrk)} TF/s useful), gemm ${gemm.toFixed(3)} ms (${tf(full, gemm)}), cuBLAS gemm ${vendor.toFixed(3)} ms (${tf(full, vendor)})`);
  a.dispose?.();
}
blas.dispose?.();
ctx.dispose();
