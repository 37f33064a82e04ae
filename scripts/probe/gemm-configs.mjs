// The FP64 tensor-core GEMM's configurations on the large Cholesky's trailing-update shape
// (C n x n -= A A^T, A n x k, 'N','T', beta = 1), the largest mma band of the tuning table replaced
// by each, CUDA events, median of 5 after 2 warm-ups; cuBLAS's gemm of the same shape beside.
// Usage: node scripts/probe/gemm-configs.mjs [n=8192] [ks=512] [dtype=float64]
import { open, strided } from '../../dist/src/index.js';
import { gemmCuda } from '../../dist/src/cuda/kernels/gemm/index.js';
import { MMA_CONFIGS } from '../../dist/src/cuda/tune/gemm-sweep.js';
import { tuningFor } from '../../dist/src/cuda/model/tuning/index.js';
import { Cublas } from '../../dist/src/cuda/baselines/index.js';
import { randomMatrices, Random } from '../../dist/src/bench/data.js';

const n = Number(process.argv[2] ?? 8192);
const ks = (process.argv[3] ?? '512').split(',').map(Number);
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const blas = new Cublas(dev);
const base = tuningFor(dev.info.arch, 'gemm');
const median = (f) => { f(); f(); const ms = []; for (let r = 0; r < 5; r++) ms.push(ctx.time(f)); ms.sort((x, y) => x - y); return ms[2]; };
const extra = [
  { bm: 128, bn: 128, bk: 32, wm: 2, wn: 4, stages: 3 }, { bm: 128, bn: 128, bk: 16, wm: 2, wn: 4, stages: 3, mmaK: 16 },
  { bm: 128, bn: 64, bk: 16, wm: 2, wn: 2, stages: 4 }, { bm: 64, bn: 128, bk: 16, wm: 2, wn: 2, stages: 3 },
  { bm: 128, bn: 64, bk: 32, wm: 2, wn: 2, stages: 3 }, { bm: 128, bn: 128, bk: 32, wm: 2, wn: 4, stages: 2, mmaK: 16 },
];
// The register double buffer (doubleBuffer) with and without a cap on registers (minBlocks).
const db = (bm, bn, bk, wm, wn, stages, mmaK, minBlocks) => ({ bm, bn, bk, wm, wn, stages, mmaK, doubleBuffer: true, ...(minBlocks ? { minBlocks } : {}) });
extra.push(
  db(64, 64, 8, 2, 2, 4, 8), db(64, 64, 8, 2, 2, 4, 8, 3), db(64, 64, 16, 2, 2, 3, 8), db(64, 64, 16, 2, 2, 3, 8, 3),
  db(64, 64, 16, 2, 2, 4, 8), db(64, 64, 16, 2, 2, 4, 8, 3), db(64, 64, 32, 2, 2, 3, 8), db(64, 64, 32, 2, 2, 3, 8, 2),
  db(64, 64, 16, 2, 2, 3, 16), db(128, 128, 16, 2, 4, 3, 8), db(128, 128, 8, 2, 4, 4, 8), db(128, 64, 16, 2, 2, 3, 8),
  db(64, 64, 16, 4, 2, 3, 8), db(64, 64, 32, 4, 2, 3, 8), db(64, 64, 16, 4, 2, 4, 8), db(128, 64, 16, 4, 2, 3, 8),
);
// EXTRA='[[bm, bn, bk, wm, wn, stages, mmaK, doubleBuffer, minBlocks, tileGroup], ...]' replaces the list above.
if (process.env.EXTRA) {
  extra.length = 0;
  for (const [bm, bn, bk, wm, wn, stages, mmaK, d, minBlocks, tileGroup] of JSON.parse(process.env.EXTRA)) {
    extra.push({ bm, bn, bk, wm, wn, stages, mmaK, ...(d ? { doubleBuffer: true } : {}), ...(minBlocks ? { minBlocks } : {}), ...(tileGroup ? { tileGroup } : {}) });
  }
}
const label = (c) => `${c.bm}x${c.bn}x${c.bk} w${c.wm}x${c.wn} s${c.stages}${c.doubleBuffer ? 'd' : ''}${c.minBlocks ? `b${c.minBlocks}` : ''}${c.tileGroup ? `g${c.tileGroup}` : ''} k${c.mmaK ?? 8}`;
// ONLY=label,label (exact labels) times those alone (for Nsight Compute runs).
const only = process.env.ONLY?.split(',');
const configs = [...(process.env.DBONLY ? [MMA_CONFIGS.find((c) => c.bm === 64 && c.bk === 8)] : MMA_CONFIGS.filter((c) => c.bm >= 64 && c.bn >= 64)), ...extra].filter((c) => only === undefined || only.includes(label(c)));
const rng = new Random(5);
// Correctness first: every configuration against cuBLAS on an odd shape (edges in m, n and k),
// C poisoned where the triangle excludes it; max |ours - cuBLAS| / (k eps max|C|).
{
  const m = 1100, kk = 333;   // 18 tile rows of 64: the block order's groups of 16, the last one short
  const a = ctx.upload(randomMatrices('float64', m, kk, 1, rng));
  const c0 = randomMatrices('float64', m, m, 1, rng);
  const ref = ctx.upload(c0);
  blas.gemmStridedBatched('float64', 'N', 'T', m, m, kk, -1, a, m, m * kk, a, m, m * kk, 1, ref, m, m * m, 1);
  const want = dev.download(ref);
  let scale = 0; for (const v of want) scale = Math.max(scale, Math.abs(v));
  const A = strided(a, { rows: m, cols: kk, count: 1 });
  for (const config of configs) {
    const tuning = { ...base, mma: [...base.mma.slice(0, -1), { maxDim: Infinity, config }] };
    const c = ctx.upload(c0);
    try {
      gemmCuda(dev, { transA: 'N', transB: 'T', alpha: -1, a: A, b: A, beta: 1, c: strided(c, { rows: m, cols: m, count: 1 }) }, { tuning });
      const got = dev.download(c);
      let err = 0; for (let i = 0; i < got.length; i++) err = Math.max(err, Math.abs(got[i] - want[i]));
      const rel = err / (kk * 2.2e-16 * scale);
      console.log(`check ${label(config).padEnd(28)} ${rel < 1 ? 'ok' : 'WRONG'} (${rel.toExponential(2)})`);
    } catch (e) { console.log(`check ${label(config).padEnd(28)} failed: ${e.message.split('\n')[0]}`); }
    c.dispose?.();
  }
}
const c = ctx.upload(randomMatrices('float64', n, n, 1, rng));
const C = strided(c, { rows: n, cols: n, count: 1 });
for (const k of ks) {
  const a = ctx.upload(randomMatrices('float64', n, k, 1, rng));
  const A = strided(a, { rows: n, cols: k, count: 1 });
  const flops = 2 * n * n * k;
  // TRANSB=N: C -= A B with B k x n (its own matrix) instead of A A^T, to tell the layouts apart.
  const tb = process.env.TRANSB ?? 'T';
  const bm = tb === 'N' ? ctx.upload(randomMatrices('float64', k, n, 1, rng)) : a;
  const B = tb === 'N' ? strided(bm, { rows: k, cols: n, count: 1 }) : A;
  const vendor = median(() => blas.gemmStridedBatched('float64', 'N', tb, n, n, k, -1, a, n, n * k, bm, tb === 'N' ? k : n, n * k, 1, c, n, n * n, 1));
  console.log(`N${tb} n ${n} k ${k}: cuBLAS ${vendor.toFixed(3)} ms ${(flops / vendor / 1e9).toFixed(1)} TF/s`);
  for (const config of configs) {
    const tuning = { ...base, mma: [...base.mma.slice(0, -1), { maxDim: Infinity, config }] };
    try {
      const ms = median(() => gemmCuda(dev, { transA: 'N', transB: tb, alpha: -1, a: A, b: B, beta: 1, c: C }, { tuning }));
      const tri = median(() => gemmCuda(dev, { transA: 'N', transB: tb, alpha: -1, a: A, b: B, beta: 1, c: C }, { tuning, triangle: 'lower' }));
      console.log(`  ${label(config).padEnd(28)} ${ms.toFixed(3)} ms ${(flops / ms / 1e9).toFixed(1)} TF/s; lower triangle ${tri.toFixed(3)} ms ${(flops / 2 / tri / 1e9).toFixed(1)} TF/s useful`);
    } catch (e) {
      console.log(`  ${label(config).padEnd(28)} failed: ${e.message.split('\n')[0]}`);
    }
  }
  a.dispose?.();
}
ctx.dispose();
