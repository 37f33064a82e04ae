// getrf of large matrices: the recursion (tall panels, laswp, trsm, gemm; off by default) against the
// default path and cuSOLVER dense, by n and count (float64; A reset from a pristine copy before each
// timed call, outside the timing). Usage: node scripts/probe/getrf-recursion.mjs 1024,2048,4096 1
// CHECK=1: first compare the recursion's factors, pivots and info with cuSOLVER's on the same matrices
// (no ties in random data: partial pivoting picks the same rows), the largest |difference| / ||A||_max;
// the first matrix of the batch only.
import { open, strided } from '../../dist/src/index.js';
import { Random, randomMatrices } from '../../dist/src/bench/data.js';
import { getrfCuda } from '../../dist/src/cuda/kernels/getrf/index.js';
import { Cusolver } from '../../dist/src/cuda/baselines/index.js';
const sizes = (process.argv[2] ?? '1024,2048,4096').split(',').map(Number);
const count = Number(process.argv[3] ?? 1);
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const solver = new Cusolver(dev);
const rng = new Random(3);
const median = (f, reset) => { const t = []; for (let r = 0; r < 7; r++) { reset(); const ms = ctx.time(f); if (r >= 2) t.push(ms); } t.sort((x, y) => x - y); return t[2]; };
for (const n of sizes) {
  const a0 = ctx.upload(randomMatrices('float64', n, n, count, rng)), a = ctx.alloc('float64', n * n * count);
  const ipiv = ctx.alloc('int32', n * count), info = ctx.alloc('int32', count);
  const reset = () => dev.copy(a0, 0, a, 0, n * n * count);
  const req = { a: strided(a, { rows: n, cols: n, count }), ipiv, pivotStride: n, info };
  const row = [];
  if (process.env.CHECK === '1') {
    reset();
    getrfCuda(dev, req, { force: { recursive: true } });
    const mine = dev.download(a), myPiv = dev.download(ipiv), myInfo = dev.download(info);
    // cuSOLVER one matrix at a time (count 1 here) on the pristine copy a0.
    const refA = ctx.alloc('float64', n * n), refPiv = ctx.alloc('int32', n), refInfo = ctx.alloc('int32', 1);
    dev.copy(a0, 0, refA, 0, n * n);
    const ref = solver.getrf('float64', n, n, refA, n, refPiv, refInfo);
    ref.run();
    const theirs = dev.download(refA), theirPiv = dev.download(refPiv), theirInfo = dev.download(refInfo);
    ref.dispose(); refA.dispose(); refPiv.dispose(); refInfo.dispose();
    let diff = 0, amax = 0;
    const host = dev.download(a0);
    for (let i = 0; i < host.length; i++) amax = Math.max(amax, Math.abs(host[i]));
    for (let i = 0; i < n * n; i++) diff = Math.max(diff, Math.abs(mine[i] - theirs[i]));
    let pivSame = true;
    for (let i = 0; i < n; i++) if (myPiv[i] + 1 !== theirPiv[i]) pivSame = false;   // ours 0-based, LAPACK's 1-based
    console.log(`check n=${n} x ${count}: max|LU - LU_cusolver| / max|A| = ${(diff / amax).toExponential(2)}, pivots ${pivSame ? 'equal' : 'DIFFER'}, info ${myInfo[0]} vs ${[...theirInfo].join(',')}`);
  }
  for (const [name, force] of [['default', undefined], ['recursion', { recursive: true }]]) {
    const ms = median(() => getrfCuda(dev, req, force ? { force } : {}), reset);
    row.push(`${name} ${ms.toFixed(3)} ms (${(2 / 3 * n ** 3 * count / ms / 1e9).toFixed(2)} TFLOP/s)`);
  }
  const vendor = solver.dense('float64', 'getrf', n, a, count);
  row.push(`cuSOLVER ${median(() => vendor.run(), reset).toFixed(3)} ms`);
  vendor.dispose();
  console.log(`getrf float64 n=${n} x ${count}: ${row.join(', ')}`);
  for (const x of [a0, a, ipiv, info]) x.dispose();
}
solver.dispose();
ctx.dispose();
