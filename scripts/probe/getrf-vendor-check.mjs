// Whether cuBLAS's batched LU (cublas?getrfBatched) could be a route for getrf, and where: its info,
// pivots and factors against the CPU reference (LAPACK's semantics: info = the first exactly zero
// U(k, k), the factorisation completed; 0-based pivots here, the vendor's 1-based ones shifted), on
// batches that mix random matrices, matrices with an exactly zero column (singular at that column),
// a zero first column, duplicated rows, a NaN, and a huge entry; beside it the own route (ctx.getrf)
// on the same data. Counts per order: mismatched info, mismatched pivots (matrices whose info agrees),
// the largest |factor difference| / max|A| among matrices without NaN whose pivots agree, and
// matrices without NaN in A that came back with NaN. Then the time of both at the bench's counts.
//   MYRIAD_QUICK_FIRST=0 node scripts/probe/getrf-vendor-check.mjs [sizes=7,16,32,64,96,128] [dtypes=float64,float32]
import { open, strided } from '../../dist/src/index.js';
import { cpuGetrf } from '../../dist/src/cpu/lapack/index.js';
import { Cublas, batchPointers } from '../../dist/src/cuda/baselines/index.js';
import { gpuBenchBatch } from '../../dist/src/core/bench-batch.js';
import { randomMatrices, Random } from '../../dist/src/bench/data.js';

const sizes = (process.argv[2] ?? '7,16,32,64,96,128').split(',').map(Number);
const dtypes = (process.argv[3] ?? 'float64,float32').split(',');
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const blas = new Cublas(dev);
const rng = new Random(11);
const median = (f) => { f(); f(); const ms = []; for (let r = 0; r < 7; r++) ms.push(ctx.time(f)); ms.sort((x, y) => x - y); return ms[3]; };
const KINDS = ['random', 'zero column', 'zero first column', 'duplicate rows', 'NaN', 'huge entry'];

function makeBatch(dtype, n, count) {
  const a = randomMatrices(dtype, n, n, count, rng);
  for (let p = 0; p < count; p++) {
    const o = p * n * n, kind = KINDS[p % KINDS.length];
    if (kind === 'zero column') for (let i = 0; i < n; i++) a[o + i + Math.floor(n / 2) * n] = 0;
    if (kind === 'zero first column') for (let i = 0; i < n; i++) a[o + i] = 0;
    if (kind === 'duplicate rows' && n >= 2) for (let j = 0; j < n; j++) a[o + 1 + j * n] = a[o + j * n];
    if (kind === 'NaN') a[o + (n >> 1) + (n >> 2) * n] = NaN;
    if (kind === 'huge entry') a[o + (n - 1) * n] = dtype === 'float32' ? 3e38 : 1e300;
  }
  return a;
}

console.log('| dtype | n | kind | matrices | info differs (vendor / own) | pivots differ (vendor / own) | max factor diff / max|A| (vendor / own) | NaN out of NaN-free A (vendor / own) |');
console.log('|---|---|---|---|---|---|---|---|');
for (const dtype of dtypes) for (const n of sizes) {
  const count = 6 * 40;
  const host = makeBatch(dtype, n, count);
  // The reference.
  const ref = host.slice(), refPiv = new Int32Array(n * count), refInfo = new Int32Array(count);
  cpuGetrf({ a: strided(ref, { rows: n, count }), ipiv: refPiv, pivotStride: n, info: refInfo });
  // The vendor.
  const dA = ctx.upload(host.slice());
  const A = batchPointers(dev, dA, count, n * n);
  const dPiv = ctx.alloc('int32', n * count), dInfo = ctx.alloc('int32', count);
  blas.getrfBatched(dtype, n, A, n, dPiv, dInfo, count);
  const ven = ctx.download(dA), venPiv = ctx.download(dPiv).map((x) => x - 1), venInfo = ctx.download(dInfo);
  // The own route, host data through the context.
  const own = host.slice(), ownPiv = new Int32Array(n * count), ownInfo = new Int32Array(count);
  ctx.getrf({ a: strided(own, { rows: n, count }), ipiv: ownPiv, info: ownInfo });
  for (const [k, kind] of KINDS.entries()) {
    const stats = [[ven, venPiv, venInfo], [own, ownPiv, ownInfo]].map(([x, piv, info]) => {
      let infoDiff = 0, pivDiff = 0, worst = 0, nanOut = 0, members = 0;
      for (let p = k; p < count; p += KINDS.length) {
        members++;
        const o = p * n * n;
        if (info[p] !== refInfo[p]) infoDiff++;
        let samePiv = true;
        for (let j = 0; j < n; j++) if (piv[p * n + j] !== refPiv[p * n + j]) samePiv = false;
        if (info[p] === refInfo[p] && !samePiv) pivDiff++;
        let hasNaN = false, outNaN = false, scale = 0, diff = 0;
        for (let e = 0; e < n * n; e++) {
          if (Number.isNaN(host[o + e])) hasNaN = true;
          if (Number.isNaN(x[o + e])) outNaN = true;
          scale = Math.max(scale, Math.abs(host[o + e]));
          if (Number.isFinite(ref[o + e]) && Number.isFinite(x[o + e])) diff = Math.max(diff, Math.abs(x[o + e] - ref[o + e]));
          else if (Number.isFinite(ref[o + e]) !== Number.isFinite(x[o + e])) diff = Infinity;
        }
        if (!hasNaN && outNaN) nanOut++;
        if (!hasNaN && samePiv) worst = Math.max(worst, diff / (scale || 1));
      }
      return { infoDiff, pivDiff, worst, nanOut, members };
    });
    const [v, o] = stats;
    console.log(`| ${dtype} | ${n} | ${kind} | ${v.members} | ${v.infoDiff} / ${o.infoDiff} | ${v.pivDiff} / ${o.pivDiff} | ${v.worst.toExponential(1)} / ${o.worst.toExponential(1)} | ${v.nanOut} / ${o.nanOut} |`);
  }
  A.dispose(); dA.dispose?.(); dPiv.dispose?.(); dInfo.dispose?.();
}

console.log('\n| dtype | n | count | own ms | cuBLAS getrfBatched ms | vendor / own |');
console.log('|---|---|---|---|---|---|');
for (const dtype of dtypes) for (const n of sizes.filter((x) => x >= 64)) {
  const count = gpuBenchBatch('getrf', dtype, n);
  const host = randomMatrices(dtype, n, n, count, rng);
  for (let p = 0; p < count; p++) for (let i = 0; i < n; i++) host[p * n * n + i + i * n] += n;
  const dA = ctx.upload(host);
  const A = batchPointers(dev, dA, count, n * n);
  const dPiv = ctx.alloc('int32', n * count), dInfo = ctx.alloc('int32', count);
  const batch = strided(dA, { rows: n, count });
  const own = median(() => ctx.getrf({ a: batch, ipiv: dPiv, info: dInfo }));
  const ven = median(() => blas.getrfBatched(dtype, n, A, n, dPiv, dInfo, count));
  console.log(`| ${dtype} | ${n} | ${count} | ${own.toFixed(3)} | ${ven.toFixed(3)} | ${(ven / own).toFixed(2)} |`);
  A.dispose(); dA.dispose?.(); dPiv.dispose?.(); dInfo.dispose?.();
}
ctx.dispose();
