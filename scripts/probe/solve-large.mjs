// posv / gesv of one large matrix with 1 ... 64 right-hand sides against
// cuSOLVER's dense factor + solve (cusolverDn?potrf + ?potrs, ?getrf + ?getrs) on the same data in
// the same process. CUDA events (ctx.time), median of 5 after 2 warm-ups, A and B reset from
// pristine copies before each timed call (outside the timing). Each path's solution is checked
// by its relative residual max|A x - b| / (max|A| max|x| n) on the first right-hand side (computed
// here on the host from the pristine A), so a fast wrong path shows.
// Usage (after npx tsc -p .):
//   N=1024,4096 NRHS=1,64 DTYPE=float64 OPS=posv,gesv node scripts/probe/solve-large.mjs
import { open, strided } from '../../dist/src/index.js';
import { Random, randomGeneral, randomMatrices, randomSpd } from '../../dist/src/bench/data.js';
import { Cusolver } from '../../dist/src/cuda/baselines/index.js';

const list = (name, fallback) => (process.env[name] ?? fallback).split(',');
const sizes = list('N', '1024,4096').map(Number), rhsCounts = list('NRHS', '1,64').map(Number);
const dtype = process.env.DTYPE ?? 'float64', ops = list('OPS', 'posv,gesv');

const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const solver = new Cusolver(dev);
const rng = new Random(12);
const median = (f, reset) => { const t = []; for (let r = 0; r < 7; r++) { reset(); const ms = ctx.time(f); if (r >= 2) t.push(ms); } t.sort((x, y) => x - y); return t[2]; };

/** max|A x - b| / (max|A| max|x| n) for the first column of x and b (column-major, ld n). */
function residual(A, x, b, n) {
  let amax = 0, xmax = 0, worst = 0;
  for (let i = 0; i < n * n; i++) amax = Math.max(amax, Math.abs(A[i]));
  for (let i = 0; i < n; i++) xmax = Math.max(xmax, Math.abs(x[i]));
  const r = new Float64Array(n);
  for (let i = 0; i < n; i++) r[i] = -b[i];
  for (let j = 0; j < n; j++) { const xj = x[j]; for (let i = 0; i < n; i++) r[i] += A[i + j * n] * xj; }
  for (let i = 0; i < n; i++) worst = Math.max(worst, Number.isNaN(r[i]) ? Infinity : Math.abs(r[i]));
  return worst / (amax * xmax * n);
}

const rows = [];
for (const op of ops) for (const n of sizes) {
  const hostA = op === 'posv' ? randomSpd(dtype, n, 1, rng) : randomGeneral(dtype, n, 1, rng);
  const a0 = ctx.upload(hostA), a = ctx.alloc(dtype, n * n);
  for (const nrhs of rhsCounts) {
    const hostB = randomMatrices(dtype, n, nrhs, 1, rng);
    const b0 = ctx.upload(hostB), b = ctx.alloc(dtype, n * nrhs);
    const info = ctx.alloc('int32', 1), ipiv = ctx.alloc('int32', n);
    const reset = () => { dev.copy(a0, 0, a, 0, n * n); dev.copy(b0, 0, b, 0, n * nrhs); };
    const vendor = solver.dense(dtype, op === 'posv' ? 'potrf' : 'getrf', n, a, 1, { B: b, nrhs });
    const vendorMs = median(() => vendor.run(), reset);
    reset(); vendor.run();   // its solution, from the pristine A and B
    await ctx.synchronize();
    const vendorRes = residual(hostA, dev.download(b), hostB, n);
    vendor.dispose();
    const A = strided(a, { rows: n, cols: n, count: 1 }), B = strided(b, { rows: n, cols: nrhs, count: 1 });
    const mine = op === 'posv' ? () => ctx.posv({ a: A, b: B, uplo: 'lower', info }) : () => ctx.gesv({ a: A, b: B, info, ipiv });
    for (let w = 0; w < 3; w++) { reset(); mine(); }   // plan, compile and warm the host's code outside the timing
    await ctx.synchronize();
    const ms = median(mine, reset);
    reset(); mine();
    await ctx.synchronize();
    const res = residual(hostA, dev.download(b), hostB, n), myInfo = dev.download(info)[0];
    const flops = ((op === 'posv' ? n ** 3 / 3 : 2 * n ** 3 / 3) + 2 * n * n * nrhs * (op === 'posv' ? 2 : 1)) / 1e9;
    console.log(`${op} ${dtype} n = ${n} nrhs = ${nrhs}: cuSOLVER ${vendorMs.toFixed(3)} ms (residual ${vendorRes.toExponential(1)})  myriad ${ms.toFixed(3)} ms  ${(flops / ms).toFixed(2)} TFLOP/s  ${(vendorMs / ms).toFixed(2)}x  residual ${res.toExponential(1)}  info ${myInfo}`);
    rows.push({ op, dtype, n, nrhs, vendorMs, ms, speedup: vendorMs / ms, residual: res, vendorResidual: vendorRes, info: myInfo });
    for (const x of [b0, b, info, ipiv]) x.dispose();
  }
  a0.dispose(); a.dispose();
}
if (process.env.OUT) {
  const { writeFileSync } = await import('node:fs');
  writeFileSync(`${process.env.OUT}/solve-large-${dtype}.json`, JSON.stringify(rows, null, 1));
}
solver.dispose();
ctx.dispose();
