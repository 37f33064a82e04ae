// The FP64 tensor-core GEMM on the recursions' update shapes (trmm / trsm left: C m x n += A m x k
// B k x n with m = k = half the order, n the order; and batched squares), every candidate mma
// configuration forced (the table's bands replaced by one), against cuBLAS gemmStridedBatched on
// the same data; counts from gpuBenchBatch('trmm', float64, order). CUDA events, median of 5 after
// 2 warm-ups. Each configuration checked against cuBLAS first. Markdown on stdout.
// `default` is the call as planned (no force); `band of max(m, n)` the plan without mmaSmallSide. TRANSB=T: C += A B^T (B n x k; the syrk and Cholesky
// updates' layout). CONFIGS=all times every candidate; otherwise only the default and cuBLAS.
// Usage: MYRIAD_QUICK_FIRST=0 [TRANSB=T] [CONFIGS=all] node scripts/probe/gemm-update-shapes.mjs
import { open, strided } from '../../dist/src/index.js';
import { gemmCuda } from '../../dist/src/cuda/kernels/gemm/index.js';
import { planGemm } from '../../dist/src/cuda/kernels/gemm/plan.js';
import { tuningFor } from '../../dist/src/cuda/model/tuning/index.js';
import { Cublas } from '../../dist/src/cuda/baselines/index.js';
import { gpuBenchBatch } from '../../dist/src/core/bench-batch.js';
import { randomMatrices, Random } from '../../dist/src/bench/data.js';

const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const blas = new Cublas(dev);
const base = tuningFor(dev.info.arch, 'gemm');
const median = (f) => { f(); f(); const ms = []; for (let r = 0; r < 5; r++) ms.push(ctx.time(f)); ms.sort((x, y) => x - y); return ms[2]; };
const cfg = (bm, bn, bk, wm, wn, stages) => ({ bm, bn, bk, wm, wn, stages });
const configs = [cfg(32, 32, 32, 2, 2, 2), cfg(32, 32, 16, 2, 2, 3), cfg(64, 32, 16, 2, 2, 2), cfg(64, 64, 16, 4, 2, 3), cfg(64, 64, 8, 2, 2, 4),
  cfg(128, 64, 16, 2, 2, 4), cfg(64, 128, 16, 2, 2, 3), cfg(128, 128, 16, 2, 4, 3)];
const label = (c) => `${c.bm}x${c.bn}x${c.bk} w${c.wm}x${c.wn} s${c.stages}`;
const tb = process.env.TRANSB ?? 'N';
if (process.env.CONFIGS !== 'all') configs.length = 0;
const shapes = [32, 48].map((order) => ({ m: order, n: order, k: order, count: gpuBenchBatch('trmm', 'float64', order), order }));
for (const order of [64, 128, 256, 512]) {
  const count = gpuBenchBatch('trmm', 'float64', order);
  for (let h = order / 2; h >= 32; h /= 2) shapes.push({ m: h, n: order, k: h, count, order });
  shapes.push({ m: order, n: order, k: order, count: Math.max(1, Math.round(count / 2)), order });
}
const rng = new Random(7);
console.log(`| order | m x n x k (${tb === 'N' ? 'NN' : 'NT'}) | count | planned | cuBLAS ms | default ms | default / cuBLAS | band of max(m, n) | its ms | ${configs.map(label).join(' | ')} | best / cuBLAS |`);
console.log(`|---|---|---|---|---|---|---|---|---|${configs.map(() => '---').join('|')}|---|`);
for (const s of shapes) {
  const { m, n, k, count } = s;
  const a = ctx.upload(randomMatrices('float64', m, k, count, rng));
  const b = ctx.upload(randomMatrices('float64', k, n, count, rng));
  const ldb = tb === 'N' ? k : n;
  const c0 = randomMatrices('float64', m, n, count, rng);
  const c = ctx.upload(c0), ref = ctx.upload(c0);
  const A = strided(a, { rows: m, cols: k, count }), B = strided(b, tb === 'N' ? { rows: k, cols: n, count } : { rows: n, cols: k, count }), C = strided(c, { rows: m, cols: n, count });
  blas.gemmStridedBatched('float64', 'N', tb, m, n, k, -1, a, m, m * k, b, ldb, k * n, 1, ref, m, m * n, count);
  const want = dev.download(ref);
  let scale = 0; for (let i = 0; i < Math.min(want.length, 1 << 20); i++) scale = Math.max(scale, Math.abs(want[i]));
  const vendor = median(() => blas.gemmStridedBatched('float64', 'N', tb, m, n, k, -1, a, m, m * k, b, ldb, k * n, 1, c, m, m * n, count));
  const oldPlan = planGemm(dev.info, { dtype: 'float64', m, n, k, transA: 'N', transB: tb, count, batchKind: 'strided', betaZero: false }, { tuning: { ...base, mmaSmallSide: undefined } });
  const old = median(() => gemmCuda(dev, { transA: 'N', transB: tb, alpha: -1, a: A, b: B, beta: 1, c: C }, { variant: oldPlan }));
  const planned = planGemm(dev.info, { dtype: 'float64', m, n, k, transA: 'N', transB: tb, count, batchKind: 'strided', betaZero: false });
  const cells = [];
  const own = median(() => gemmCuda(dev, { transA: 'N', transB: tb, alpha: -1, a: A, b: B, beta: 1, c: C }));
  let best = own;
  for (const config of configs) {
    const tuning = { ...base, mmaSmallSide: undefined, mma: [{ maxDim: Infinity, config }] };
    const call = () => gemmCuda(dev, { transA: 'N', transB: tb, alpha: -1, a: A, b: B, beta: 1, c: C }, { tuning, variant: 'mma' });
    try {
      const cc = ctx.upload(c0);
      gemmCuda(dev, { transA: 'N', transB: tb, alpha: -1, a: A, b: B, beta: 1, c: strided(cc, { rows: m, cols: n, count }) }, { tuning, variant: 'mma' });
      const got = dev.download(cc);
      let err = 0; for (let i = 0; i < Math.min(got.length, 1 << 20); i++) err = Math.max(err, Math.abs(got[i] - want[i]));
      cc.dispose?.();
      const ms = median(call);
      best = Math.min(best, ms);
      cells.push(`${ms.toFixed(3)}${err / (k * 2.2e-16 * scale) < 4 ? '' : ' WRONG'}`);
    } catch (e) { cells.push(`fail: ${String(e.message).split('\n')[0].slice(0, 40)}`); }
  }
  console.log(`| ${s.order} | ${m}x${n}x${k} | ${count} | ${planned.bm ?? '-'}x${planned.bn ?? '-'} ${planned.variant} | ${vendor.toFixed(3)} | ${own.toFixed(3)} | ${(vendor / own).toFixed(2)} | ${oldPlan.bm}x${oldPlan.bn}x${oldPlan.bk} s${oldPlan.stages} | ${old.toFixed(3)} | ${cells.join(' | ')} | ${(vendor / best).toFixed(2)} |`);
  a.dispose?.(); b.dispose?.(); c.dispose?.(); ref.dispose?.();
}
ctx.dispose();
