// The large paths at small sizes, once each, for compute-sanitizer (memcheck, racecheck):
// potrf's fused-diagonal driver (one and two levels, lookahead, both uplo and dtypes), the getrf large
// path (forced), the register design's shapes of several blocks an SM, the chained trsm (every left variant), posv and gesv through the trsm route. Exits
// non-zero if any info is unexpected. Usage: compute-sanitizer --tool memcheck node scripts/probe/sanitize.mjs
import { open, strided } from '../../dist/src/index.js';
import { potrfCuda } from '../../dist/src/cuda/kernels/potrf/index.js';
import { getrfCuda } from '../../dist/src/cuda/kernels/getrf/index.js';
import { trsmCuda } from '../../dist/src/cuda/kernels/trsm/index.js';
import { posvCuda, gesvCuda } from '../../dist/src/cuda/kernels/solve/index.js';
import { randomSpd, randomGeneral, randomMatrices, Random } from '../../dist/src/bench/data.js';

const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const rng = new Random(9);
let bad = 0;
const expectZero = (what, info) => { const v = [...ctx.download(info)]; if (v.some((x) => x !== 0)) { bad++; console.log(`${what}: info ${v}`); } else console.log(`${what}: ok`); };
const batch = (x, rows, cols, count = 1) => strided(x, { rows, cols, count });

for (const [dtype, uplo, n, count, force] of [
  ['float64', 'lower', 500, 2, { recursive: true, blocked: true, diagonal: 96, lookahead: true }],
  ['float64', 'upper', 500, 1, { recursive: true, blocked: true, diagonal: 64, outerPanels: 3, lookahead: true }],
  ['float32', 'lower', 700, 1, { recursive: true, blocked: true, diagonal: 128, outerPanels: 2, lookahead: false }],
  ['float32', 'upper', 300, 3, {}],
]) {
  const a = ctx.upload(randomSpd(dtype, n, count, rng)), info = ctx.alloc('int32', count);
  potrfCuda(dev, { uplo, a: batch(a, n, n, count), info }, { force });
  expectZero(`potrf ${dtype} ${uplo} ${n} x ${count} ${JSON.stringify(force)}`, info);
}
{
  const n = 600, a = ctx.upload(randomGeneral('float64', n, 1, rng)), info = ctx.alloc('int32', 1), ipiv = ctx.alloc('int32', n);
  getrfCuda(dev, { a: batch(a, n, n), ipiv, pivotStride: n, info }, { force: { recursive: true } });
  expectZero('getrf float64 600 (large path forced)', info);
}
// The spread leaf: the table's cluster form (float64 push, float32 push with the fused
// search), the grid form, and the signalling exchange, each on a blocked LU of 1100 rows.
for (const [dtype, force, what] of [
  ['float64', {}, 'the table'], ['float32', {}, 'the table'],
  ['float64', { spreadLeaf: true, spreadCluster: false, spreadFusedSearch: true }, 'grid form, fused search'],
  ['float64', { spreadExchange: 'signal' }, 'signalling exchange'],
]) {
  const n = 1100, a = ctx.upload(randomGeneral(dtype, n, 1, rng)), info = ctx.alloc('int32', 1), ipiv = ctx.alloc('int32', n);
  getrfCuda(dev, { a: batch(a, n, n), ipiv, pivotStride: n, info }, { force });
  expectZero(`getrf ${dtype} 1100, spread leaves: ${what}`, info);
}
// The register design in the getrf table's shapes of several blocks an SM and their few-matrix
// shapes (warps x panel width x blocks an SM), square and ragged, on a few matrices each.
for (const [dtype, rows, cols, warps, nb, minBlocks] of [
  ['float64', 72, 72, 4, 2, 4], ['float64', 80, 77, 8, 2, 2], ['float64', 96, 96, 8, 2, 2],
  ['float32', 96, 90, 4, 4, 4], ['float32', 104, 104, 8, 1, 3], ['float32', 112, 112, 8, 2, 2],
]) {
  const count = 3, k = Math.min(rows, cols), a = ctx.upload(randomMatrices(dtype, rows, cols, count, rng));
  const info = ctx.alloc('int32', count), ipiv = ctx.alloc('int32', k * count);
  getrfCuda(dev, { a: batch(a, rows, cols, count), ipiv, pivotStride: k, info }, { force: { recursive: false, variant: 'register', register: { warps, nb, minBlocks } } });
  expectZero(`getrf ${dtype} ${rows} x ${cols}, register ${warps}x${nb}x${minBlocks}`, info);
}
for (const uplo of ['lower', 'upper']) for (const transA of ['N', 'T']) for (const diag of ['unit', 'nonunit']) {
  const m = 300, n = 5, h = randomMatrices('float64', m, m, 1, rng);
  for (let j = 0; j < m; j++) h[j + j * m] = m;
  const a = ctx.upload(h), b = ctx.upload(randomMatrices('float64', m, n, 1, rng));
  trsmCuda(dev, { side: 'left', uplo, transA, diag, alpha: -2, a: batch(a, m, m), b: batch(b, m, n) }, { force: { chain: true } });
  console.log(`trsm chain ${uplo} ${transA} ${diag}: ran`);
}
{
  const n = 1100, a = ctx.upload(randomSpd('float64', n, 1, rng)), b = ctx.upload(randomMatrices('float64', n, 2, 1, rng)), info = ctx.alloc('int32', 1);
  posvCuda(dev, { uplo: 'lower', a: batch(a, n, n), b: batch(b, n, 2), info });
  expectZero('posv float64 1100, 2 columns', info);
  const g = ctx.upload(randomGeneral('float64', n, 1, rng)), c = ctx.upload(randomMatrices('float64', n, 3, 1, rng)), info2 = ctx.alloc('int32', 1), ipiv = ctx.alloc('int32', n);
  gesvCuda(dev, { a: batch(g, n, n), ipiv, pivotStride: n, b: batch(c, n, 3), info: info2 });
  expectZero('gesv float64 1100, 3 columns', info2);
}
await ctx.synchronize();
ctx.dispose();
console.log(bad === 0 ? 'sanitize probe: all ran' : `sanitize probe: ${bad} unexpected info`);
process.exit(bad === 0 ? 0 : 1);
