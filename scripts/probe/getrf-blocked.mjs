// getrf's blocked large-path driver (panels by the wide leaf or by the recursion's
// tall leaves, one swaps launch a panel, trsm and GEMM, lookahead on a side stream) against the recursion by halves and cuSOLVER's
// dense getrf (cusolverDn?getrf), one matrix by default, CUDA events (ctx.time), median of 5 after 2
// warm-ups, A reset from a pristine copy before each timed call (outside the timing).
// Also per path: launches of one call, and its factors, pivots and info against cuSOLVER's on the
// same matrix (no ties in random data: partial pivoting picks the same rows), so a fast wrong path
// shows.
// Usage (after npx tsc -p .):
//   N=4096 node scripts/probe/getrf-blocked.mjs            (N: sizes, comma-separated; default 4096)
//   N=1024,2048,4096 COUNT=1 DTYPE=float64 PATHS=blocked,default node scripts/probe/getrf-blocked.mjs
// $OUT set: the rows also go to $OUT/getrf-blocked.json.
import { open, strided } from '../../dist/src/index.js';
import { CudaKernel } from '../../dist/src/cuda/runtime/index.js';
import { Random, randomMatrices } from '../../dist/src/bench/data.js';
import { getrfCuda } from '../../dist/src/cuda/kernels/getrf/index.js';
import { applyMmaBand } from './mma-band.mjs';
import { Cusolver } from '../../dist/src/cuda/baselines/index.js';

let launches = 0;
const names = new Map();
const orig = CudaKernel.prototype.launch;
CudaKernel.prototype.launch = function (c, a) {
  launches++;
  const k = this.name.replace(/_t\d+_r\d+|_nb\d+/g, '');
  names.set(k, (names.get(k) ?? 0) + 1);
  return orig.call(this, c, a);
};

const sizes = (process.env.N ?? '4096').split(',').map(Number);
const count = Number(process.env.COUNT ?? 1);
const dtype = process.env.DTYPE ?? 'float64';
const ALL_PATHS = [
  ['default plan', undefined],
  ['per-matrix kernels', { recursive: false }],
  ['recursion by halves', { recursive: true, panels: false }],
  ['blocked 64, tall leaves', { recursive: true, panels: true, panelWidth: 64, wideLeaf: 0, lookahead: false }],
  ['blocked 64, wide 64', { recursive: true, panels: true, panelWidth: 64, wideLeaf: 64, lookahead: false, spreadLeaf: false }],
  ['blocked 64, wide 64, lookahead', { recursive: true, panels: true, panelWidth: 64, wideLeaf: 64, lookahead: true, spreadLeaf: false }],
  ['blocked 64, spread 64', { recursive: true, panels: true, panelWidth: 64, wideLeaf: 64, lookahead: false, spreadLeaf: true }],
  ['blocked 64, spread 64, lookahead', { recursive: true, panels: true, panelWidth: 64, wideLeaf: 64, lookahead: true, spreadLeaf: true }],
  ['blocked 64, grid-spread 64, lookahead', { recursive: true, panels: true, panelWidth: 64, wideLeaf: 64, lookahead: true, spreadLeaf: true, spreadCluster: false }],
  // The cluster form's exchanges and the fused search.
  ['default, push', { spreadExchange: 'push' }],
  ['default, signal', { spreadExchange: 'signal' }],
  ['default, fused', { spreadFusedSearch: true }],
  ['default, signal, fused', { spreadExchange: 'signal', spreadFusedSearch: true }],
  ['default, push, fused', { spreadExchange: 'push', spreadFusedSearch: true }],
  ['default, pull', { spreadExchange: 'pull', spreadFusedSearch: false }],
  ['blocked 64, wide 32', { recursive: true, panels: true, panelWidth: 64, wideLeaf: 32, lookahead: false }],
  ['blocked 128, wide 64', { recursive: true, panels: true, panelWidth: 128, wideLeaf: 64, lookahead: false, spreadLeaf: false }],
  ['blocked 128, wide 64, lookahead', { recursive: true, panels: true, panelWidth: 128, wideLeaf: 64, lookahead: true, spreadLeaf: false }],
  ['blocked 128, spread 64, lookahead', { recursive: true, panels: true, panelWidth: 128, wideLeaf: 64, lookahead: true, spreadLeaf: true }],
  ['blocked 256, spread 64, lookahead', { recursive: true, panels: true, panelWidth: 256, wideLeaf: 64, lookahead: true, spreadLeaf: true }],
];
const PATHS = process.env.PATHS ? ALL_PATHS.filter(([name]) => process.env.PATHS.split(',').some((p) => name.includes(p))) : ALL_PATHS;

const ctx = await open({ backend: 'cuda' });
applyMmaBand(ctx);   // MMA_BAND: see mma-band.mjs
const dev = ctx.deviceBackend.device;
const solver = new Cusolver(dev);
const rng = new Random(13);
const median = (f, reset) => { const t = []; for (let r = 0; r < 7; r++) { reset(); const ms = ctx.time(f); if (r >= 2) t.push(ms); } t.sort((x, y) => x - y); return t[2]; };
const rows = [];
for (const n of sizes) {
  const a0 = ctx.upload(randomMatrices(dtype, n, n, count, rng)), a = ctx.alloc(dtype, n * n * count);
  const ipiv = ctx.alloc('int32', n * count), info = ctx.alloc('int32', count);
  const reset = () => dev.copy(a0, 0, a, 0, n * n * count);
  const req = { a: strided(a, { rows: n, cols: n, count }), ipiv, pivotStride: n, info };
  // cuSOLVER on the first matrix: the reference factors and pivots (1-based there).
  const refA = ctx.alloc(dtype, n * n), refPiv = ctx.alloc('int32', n), refInfo = ctx.alloc('int32', 1);
  dev.copy(a0, 0, refA, 0, n * n);
  const ref = solver.getrf(dtype, n, n, refA, n, refPiv, refInfo);
  ref.run();
  const theirs = dev.download(refA), theirPiv = dev.download(refPiv);
  ref.dispose(); refA.dispose(); refPiv.dispose(); refInfo.dispose();
  const host = dev.download(a0);
  let amax = 0;
  for (let i = 0; i < n * n; i++) amax = Math.max(amax, Math.abs(host[i]));
  const vendor = solver.dense(dtype, 'getrf', n, a, count);
  const vendorMs = median(() => vendor.run(), reset);
  vendor.dispose();
  const flops = (2 / 3) * n ** 3 * count / 1e9;
  console.log(`getrf ${dtype} n = ${n} x ${count}: cuSOLVER ${vendorMs.toFixed(3)} ms (${(flops / vendorMs).toFixed(2)} TFLOP/s)`);
  rows.push({ n, count, dtype, path: 'cuSOLVER dense', ms: vendorMs });
  for (const [name, force] of PATHS) {
    const opts = force ? { force } : {};
    const ms = median(() => getrfCuda(dev, req, opts), reset);
    reset();
    launches = 0; names.clear();
    const t0 = performance.now();
    getrfCuda(dev, req, opts);
    const hostMs = performance.now() - t0;
    await ctx.synchronize();
    const perCall = launches;
    const mine = dev.download(a), myPiv = dev.download(ipiv), myInfo = dev.download(info);
    let diff = 0, pivSame = true;
    for (let i = 0; i < n * n; i++) diff = Math.max(diff, Number.isNaN(mine[i]) ? Infinity : Math.abs(mine[i] - theirs[i]));
    for (let i = 0; i < n; i++) if (myPiv[i] + 1 !== theirPiv[i]) pivSame = false;
    const top = [...names.entries()].sort((x, y) => y[1] - x[1]).slice(0, 4).map(([k, v]) => `${v} ${k}`).join(', ');
    console.log(`  ${name.padEnd(24)} ${ms.toFixed(3)} ms  ${(flops / ms).toFixed(2)} TFLOP/s  ${(vendorMs / ms).toFixed(2)}x cuSOLVER  ${perCall} launches (host enqueue ${hostMs.toFixed(1)} ms; ${top})  max|LU - LU_cusolver|/max|A| ${(diff / amax).toExponential(2)}  pivots ${pivSame ? 'equal' : 'DIFFER'}  info ${myInfo[0]}`);
    rows.push({ n, count, dtype, path: name, ms, launches: perCall, hostMs, maxDiff: diff / amax, pivotsEqual: pivSame });
  }
  for (const x of [a0, a, ipiv, info]) x.dispose();
}
if (process.env.OUT) {
  const { writeFileSync } = await import('node:fs');
  writeFileSync(`${process.env.OUT}/getrf-blocked.json`, JSON.stringify(rows, null, 1));
}
solver.dispose();
ctx.dispose();
