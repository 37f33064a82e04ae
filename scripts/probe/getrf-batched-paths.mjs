// Batched LU of mid sizes (n = 65 ... 512): the register design (one block a matrix) against the
// blocked driver over the whole batch (panels by the recursion's tall leaves or the wide leaf,
// swaps, trsm and GEMM launches) and cuBLAS's getrfBatched on the same data. The bench's counts
// (512 MiB of A) unless COUNT is set (a list: each in turn); CUDA events (ctx.time), median of 5 after 2 warm-ups,
// A reset from a pristine copy before each timed call (outside the timing). Each path's factors,
// pivots and info are compared with the first path's on the same data, so a fast wrong path shows.
// Usage (after the build):
//   N=96,128 DTYPE=float64 node scripts/probe/getrf-batched-paths.mjs
//   N=128 PATHS='register|tall' node scripts/probe/getrf-batched-paths.mjs    (PATHS: substrings of the names, | between)
//   N=72,96 COUNT=264,1056,10000 REGISTER=8x2x2,4x4x3 PATHS='register|128, tall' node scripts/probe/getrf-batched-paths.mjs
//   DATA=bench: the bench's matrices (randomGeneral: the diagonal raised by n / 2, so partial pivoting
//   swaps no rows); default: entries uniform in [-1, 1) (rows swapped at most steps).
// $OUT set: the rows also go to $OUT/getrf-batched-paths-<dtypes>-<data>.json, rewritten after every size.
import { writeFileSync } from 'node:fs';
import { open, strided } from '../../dist/src/index.js';
import { Cublas, batchPointers } from '../../dist/src/cuda/baselines/index.js';
import { gpuBenchBatch } from '../../dist/src/core/bench-batch.js';
import { Random, randomGeneral, randomMatrices } from '../../dist/src/bench/data.js';
import { getrfCuda } from '../../dist/src/cuda/kernels/getrf/index.js';

const blocked = (nb, wide, tall = undefined) => ({ recursive: true, panels: true, panelWidth: nb, wideLeaf: wide, lookahead: false, spreadLeaf: false, ...(tall ? { tallWidest: tall } : {}) });
const ALL_PATHS = [
  ['default plan', undefined],
  ['register', { recursive: false }],
  ['blocked 32, tall', blocked(32, 0)],
  ['blocked 64, tall', blocked(64, 0)],
  ['blocked 64, tall 8', blocked(64, 0, 8)],
  ['blocked 64, tall 32', blocked(64, 0, 32)],
  ['blocked 128, tall', blocked(128, 0)],
  ['blocked 64, wide 32', blocked(64, 32)],
  ['blocked 64, wide 64', blocked(64, 64)],
  ['recursion by halves', { recursive: true, panels: false }],
  // REGISTER=8x2x2,4x4x3: the register design in these shapes (warps x panel width x blocks an SM) too
  ...(process.env.REGISTER ?? '').split(',').filter((x) => x !== '').map((x) => {
    const [warps, nb, minBlocks] = x.split('x').map(Number);
    return [`register ${x}`, { recursive: false, variant: 'register', register: { warps, nb, minBlocks } }];
  }),
];
const PATHS = process.env.PATHS ? ALL_PATHS.filter(([name]) => process.env.PATHS.split('|').some((p) => name.includes(p))) : ALL_PATHS;
const sizes = (process.env.N ?? '96,128').split(',').map(Number);
const dtypes = (process.env.DTYPE ?? 'float64').split(',');
const data = process.env.DATA ?? 'random';
const matrices = data === 'bench' ? randomGeneral : randomMatrices;

const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const blas = new Cublas(dev);
const rng = new Random(29);
const median = (f, reset) => { const t = []; for (let r = 0; r < 7; r++) { reset(); const ms = ctx.time(f); if (r >= 2) t.push(ms); } t.sort((x, y) => x - y); return t[2]; };
const rows = [];
const counts = process.env.COUNT ? process.env.COUNT.split(',').map(Number) : [undefined];
for (const dtype of dtypes) for (const n of sizes) for (const c of counts) {
  const count = c ?? gpuBenchBatch('getrf', dtype, n);
  const len = n * n * count;
  const a0 = ctx.upload(data === 'bench' ? matrices(dtype, n, count, rng) : matrices(dtype, n, n, count, rng)), a = ctx.alloc(dtype, len);
  const ipiv = ctx.alloc('int32', n * count), info = ctx.alloc('int32', count);
  const reset = () => dev.copy(a0, 0, a, 0, len);
  const req = { a: strided(a, { rows: n, cols: n, count }), ipiv, pivotStride: n, info };
  const ptrs = batchPointers(dev, a, count, n * n);
  const vpiv = ctx.alloc('int32', n * count), vinfo = ctx.alloc('int32', count);
  const vendorMs = median(() => blas.getrfBatched(dtype, n, ptrs, n, vpiv, vinfo, count), reset);
  const flops = (2 / 3) * n ** 3 * count / 1e9;
  console.log(`getrf ${dtype} ${data} n = ${n} x ${count}: cuBLAS getrfBatched ${vendorMs.toFixed(3)} ms (${(flops / vendorMs).toFixed(2)} TFLOP/s)`);
  rows.push({ dtype, data, n, count, path: 'cuBLAS getrfBatched', ms: vendorMs });
  let refA = null, refPiv = null, refInfo = null;
  for (const [name, force] of PATHS) {
    const opts = force ? { force } : {};
    let ms;
    try { ms = median(() => getrfCuda(dev, req, opts), reset); } catch (e) { console.log(`  ${name.padEnd(22)} refused: ${e.message}`); continue; }
    reset();
    getrfCuda(dev, req, opts);
    await ctx.synchronize();
    const mine = dev.download(a), myPiv = dev.download(ipiv), myInfo = dev.download(info);
    let diff = 0, pivDiffer = 0, infoDiffer = 0, amax = 0;
    if (refA === null) { refA = mine; refPiv = myPiv; refInfo = myInfo; }
    for (let i = 0; i < len; i++) { amax = Math.max(amax, Math.abs(refA[i])); diff = Math.max(diff, Number.isNaN(mine[i]) ? Infinity : Math.abs(mine[i] - refA[i])); }
    for (let i = 0; i < n * count; i++) if (myPiv[i] !== refPiv[i]) pivDiffer++;
    for (let i = 0; i < count; i++) if (myInfo[i] !== refInfo[i]) infoDiffer++;
    console.log(`  ${name.padEnd(22)} ${ms.toFixed(3)} ms  ${(flops / ms).toFixed(2)} TFLOP/s  cuBLAS / this ${(vendorMs / ms).toFixed(2)}  max|LU - LU_first|/max|LU| ${(diff / amax).toExponential(2)}  pivots differing ${pivDiffer}  info differing ${infoDiffer}`);
    rows.push({ dtype, data, n, count, path: name, ms, maxDiff: diff / amax, pivDiffer, infoDiffer });
  }
  for (const x of [a0, a, ipiv, info, vpiv, vinfo]) x.dispose();
  ptrs.dispose();
  // (after every size: a run cut short keeps what it measured)
  if (process.env.OUT) writeFileSync(`${process.env.OUT}/getrf-batched-paths-${dtypes.join('-')}-${data}.json`, JSON.stringify(rows, null, 1));
}
blas.dispose();
ctx.dispose();
