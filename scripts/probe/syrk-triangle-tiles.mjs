// syrk's triangle GEMM (the route float64 takes from 33: one launch of the gemm family's tensor-core
// kernel over C's lower triangle, tiles outside it exiting at once) under forced tile shapes, against
// syrk's default route and cuBLAS's gemmStridedBatched of the full product A A^T (the bench's vendor),
// at the bench's counts (gpuBenchBatch), lower, N or T, k = n, beta 0; CUDA events, median of 7 after 2
// warm-ups. Smaller tiles waste less of C outside the triangle (n = 40 in 32 x 32 tiles computes 3 x
// 1,024 elements of C for the triangle's 820; in 16 x 16 tiles, 6 x 256). Each forced shape's C is
// compared with the default route's on the triangle (max |difference| printed). Markdown on stdout.
// Usage: MYRIAD_QUICK_FIRST=0 node scripts/probe/syrk-triangle-tiles.mjs [sizes=40,48,56,64,96,128] [dtype=float64] [trans=N]
// (trans T: C = A^T A, as lauum's steps take it).
import { open, strided } from '../../dist/src/index.js';
import { syrkCuda } from '../../dist/src/cuda/kernels/syrk/index.js';
import { gemmCuda } from '../../dist/src/cuda/kernels/gemm/index.js';
import { Cublas } from '../../dist/src/cuda/baselines/index.js';
import { gpuBenchBatch } from '../../dist/src/core/bench-batch.js';
import { randomMatrices, Random } from '../../dist/src/bench/data.js';
import { mmaShapeTag, parseMmaShapes } from './mma-shapes.mjs';

const sizes = (process.argv[2] ?? '40,48,56,64,96,128').split(',').map(Number);
const dtype = process.argv[3] ?? 'float64';
const trans = process.argv[4] ?? 'N';
const [opA, opB] = trans === 'N' ? ['N', 'T'] : ['T', 'N'];
const SHAPES = [
  { bm: 16, bn: 16, bk: 16, wm: 1, wn: 1, stages: 3 },
  { bm: 16, bn: 16, bk: 8, wm: 1, wn: 1, stages: 4 },
  { bm: 32, bn: 32, bk: 16, wm: 1, wn: 1, stages: 3 },
  { bm: 32, bn: 32, bk: 16, wm: 2, wn: 2, stages: 3 },
  { bm: 32, bn: 32, bk: 8, wm: 2, wn: 2, stages: 4 },
  { bm: 32, bn: 32, bk: 8, wm: 1, wn: 1, stages: 4 },
  { bm: 64, bn: 64, bk: 16, wm: 2, wn: 2, stages: 3 },
  { bm: 64, bn: 64, bk: 8, wm: 2, wn: 2, stages: 4 },
];
// SHAPES=32x32x8w2x2s6,32x32x8w2x2s4d,... replaces the list (mma-shapes.mjs).
if (process.env.SHAPES) SHAPES.splice(0, SHAPES.length, ...parseMmaShapes(process.env.SHAPES));
const tag = mmaShapeTag;
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const blas = new Cublas(dev);
const median = (f) => { f(); f(); const ms = []; for (let r = 0; r < 7; r++) ms.push(ctx.time(f)); ms.sort((x, y) => x - y); return ms[3]; };
const rng = new Random(9);
const st = { kind: 'strided', dense: false };
console.log(`syrk lower ${trans}, k = n, ${dtype}; ms (max |C - default| on the triangle)`);
console.log(`| n | count | default | ${SHAPES.map(tag).join(' | ')} | cuBLAS gemm | vendor / default | vendor / best | best |`);
console.log(`|---|---|---|${SHAPES.map(() => '---|').join('')}---|---|---|---|`);
for (const n of sizes) {
  const count = gpuBenchBatch('syrk', dtype, n);
  const a = ctx.upload(randomMatrices(dtype, n, n, count, rng));
  const c = ctx.upload(randomMatrices(dtype, n, n, count, rng));
  const full = dev.alloc(dtype, n * n * count);
  const A = strided(a, { rows: n, cols: n, count }), C = strided(c, { rows: n, cols: n, count });
  const lowerOf = (x) => { const h = ctx.download(x); const out = []; for (let p = 0; p < count; p += Math.max(1, Math.floor(count / 64))) for (let j = 0; j < n; j++) for (let i = j; i < n; i++) out.push(h[p * n * n + i + j * n]); return out; };
  const def = median(() => syrkCuda(dev, { uplo: 'lower', trans, alpha: 1, beta: 0, a: A, c: C }));
  const want = lowerOf(c);
  const cells = SHAPES.map((s) => {
    // One parameter object a shape: the launcher's triangle variant of it is made once (by identity).
    const variant = { variant: 'mma', dtype, transA: opA, transB: opB, betaZero: true, layouts: { a: st, b: st, c: st }, ...s };
    const run = () => gemmCuda(dev, { transA: opA, transB: opB, alpha: 1, beta: 0, a: A, b: A, c: C }, { variant, triangle: 'lower' });
    try {
      const ms = median(run);
      const got = lowerOf(c);
      let diff = 0;
      for (let i = 0; i < got.length; i++) diff = Math.max(diff, Math.abs(got[i] - want[i]));
      return { ms, text: `${ms.toFixed(3)} (${diff.toExponential(0)})` };
    } catch (e) {
      return { ms: Infinity, text: `refused: ${String(e.message).split('\n')[0].slice(0, 60)}` };
    }
  });
  const vendor = median(() => blas.gemmStridedBatched(dtype, opA, opB, n, n, n, 1, a, n, n * n, a, n, n * n, 0, full, n, n * n, count));
  const best = Math.min(...cells.map((x) => x.ms));
  console.log(`| ${n} | ${count} | ${def.toFixed(3)} | ${cells.map((x) => x.text).join(' | ')} | ${vendor.toFixed(3)} | ${(vendor / def).toFixed(2)} | ${(vendor / best).toFixed(2)} | ${tag(SHAPES[cells.findIndex((x) => x.ms === best)])} |`);
  a.dispose?.(); c.dispose?.(); full.dispose();
}
ctx.dispose();
