// Batched square gemm of mid orders (C = A B, or + C with BETA=1): the planned kernel, each candidate tile
// forced, and cuBLAS's strided batched call, on the same data, at several batch counts (how many
// matrices it takes before one tile per matrix beats smaller tiles). CUDA events, median of 7 after
// a warm-up. Prints markdown: ms, and each candidate's ratio cuBLAS ms / its ms.
// Usage: MYRIAD_QUICK_FIRST=0 [MMA=...] node scripts/probe/gemm-mid-tiles.mjs [dtype=float64] [orders=33,40,48,56,64] [counts=132,528,2112,bytes]
//   ('bytes': the vendor sweep's count, 256 MiB of A, B and C); BETA=1: C = A B + C (default beta 0)
import { Cublas } from '../../dist/src/cuda/baselines/index.js';
import { gemmCuda, planGemm } from '../../dist/src/cuda/kernels/gemm/index.js';
import { gemmLabel } from '../../dist/src/cuda/tune/gemm-sweep.js';
import { timeMs } from '../../dist/src/cuda/tune/measure.js';
import { openDevice } from '../../dist/src/cuda/runtime/index.js';

const dtype = process.argv[2] ?? 'float64';
const orders = (process.argv[3] ?? '33,40,48,56,64').split(',').map(Number);
const countsArg = (process.argv[4] ?? '132,528,2112,bytes').split(',');
const bytes = dtype === 'float64' ? 8 : 4;
const mma = (bm, bn, bk, wm, wn, stages, minBlocks, mmaK = 8, prefetchC = 1) => ({ variant: 'mma', bm, bn, bk, wm, wn, stages, mmaK, ...(minBlocks ? { minBlocks } : {}), ...(prefetchC === 0 ? { prefetchC: false } : {}) });
const beta = Number(process.env.BETA ?? 0);
const tiled = (bm, bn, bk, tm, tn, prefetchC = 1) => ({ variant: 'tiled', bm, bn, bk, tm, tn, ...(prefetchC === 0 ? { prefetchC: false } : {}) });
// MMA='[[bm, bn, bk, wm, wn, stages, minBlocks, mmaK, prefetchC], ...]' replaces float64's list (minBlocks 0: none; mmaK 8 unless given; prefetchC 0: C's tile not prefetched (by default it is)).
// TILED='[[bm, bn, bk, tm, tn, prefetchC], ...]' replaces float32's list.
const CANDIDATES = dtype === 'float64' && process.env.MMA ? JSON.parse(process.env.MMA).map((c) => mma(...c))
  : dtype === 'float32' && process.env.TILED ? JSON.parse(process.env.TILED).map((c) => tiled(...c)) : dtype === 'float64'
  ? [mma(32, 32, 16, 2, 2, 3), mma(64, 64, 8, 2, 2, 4), mma(64, 64, 16, 4, 2, 3), mma(64, 64, 8, 2, 2, 3), mma(128, 128, 8, 2, 4, 4), mma(128, 64, 8, 2, 2, 4)]
  : [tiled(32, 32, 16, 4, 4), tiled(64, 64, 16, 8, 8), tiled(64, 64, 16, 4, 4), tiled(64, 64, 8, 8, 8), tiled(128, 128, 8, 8, 8), tiled(128, 64, 8, 8, 4), tiled(64, 128, 8, 4, 8)];

const dev = openDevice(0);
const blas = new Cublas(dev);
const stridedOf = (data, n, count) => ({ kind: 'strided', data, rows: n, cols: n, count, ld: n, stride: n * n, offset: 0, order: 'col' });
const plain = { kind: 'strided', dense: false };
console.log(`card: ${dev.info.name}; ${dtype}; ms (cuBLAS ms / ms)\n`);
console.log(`| n | count | cuBLAS | planned | ${CANDIDATES.map(gemmLabel).join(' | ')} |`);
console.log(`| ---: | ---: | ---: | --- | ${CANDIDATES.map(() => '---:').join(' | ')} |`);
for (const n of orders) {
  for (const c of countsArg) {
    const count = c === 'bytes' ? Math.floor((256 * 2 ** 20) / (3 * n * n * bytes)) : Number(c);
    const arrays = [0, 1, 2].map(() => dev.alloc(dtype, count * n * n));
    for (const x of arrays) dev.fill(x, 0x3f);
    const [A, B, C] = arrays;
    const req = { transA: 'N', transB: 'N', alpha: 1, beta, a: stridedOf(A, n, count), b: stridedOf(B, n, count), c: stridedOf(C, n, count) };
    const time = (f) => timeMs(dev, f, 7);
    const vendor = time(() => blas.gemmStridedBatched(dtype, 'N', 'N', n, n, n, 1, A, n, n * n, B, n, n * n, beta, C, n, n * n, count));
    const planned = planGemm(dev.info, { dtype, transA: 'N', transB: 'N', m: n, n, k: n, count, batchKind: 'strided', betaZero: beta === 0 });
    const cell = (ms) => `${ms.toFixed(3)} (${(vendor / ms).toFixed(2)})`;
    const plannedMs = time(() => gemmCuda(dev, req));
    const cells = CANDIDATES.map((cand) => {
      const p = { ...cand, dtype, transA: 'N', transB: 'N', betaZero: beta === 0, layouts: { a: plain, b: plain, c: plain } };
      try { return cell(time(() => gemmCuda(dev, req, { variant: p }))); } catch (e) { return `failed: ${String(e.message ?? e).slice(0, 40)}`; }
    });
    console.log(`| ${n} | ${count} | ${vendor.toFixed(3)} | ${gemmLabel(planned)} ${cell(plannedMs)} | ${cells.join(' | ')} |`);
    for (const x of arrays) x.dispose();
  }
}
blas.dispose();
dev.dispose();
