// The whole LU with the spread leaf's cluster form from MINROWS rows (a table copy),
// against the table's own plan and cuSOLVER, CUDA events, median of 5 after 2 warm-ups, A reset
// before each call; pivots against cuSOLVER's. A first float32 call on a cold kernel cache spends
// its time compiling the float32 wide leaves (NVRTC, seconds each), not on the GPU: TRACE shows it.
// Usage: N=1100,2048,4096 DTYPE=float32 MINROWS=1024,1e9 LOOKAHEAD=1 node scripts/probe/getrf-cluster-f32.mjs
// [TRACE=file: every launch appended to the file, synchronously: the last line survives a kill].
import { open, strided } from '../../dist/src/index.js';
import { CudaKernel } from '../../dist/src/cuda/runtime/index.js';
import { Random, randomMatrices } from '../../dist/src/bench/data.js';
import { getrfCuda } from '../../dist/src/cuda/kernels/getrf/index.js';
import { tuningFor } from '../../dist/src/cuda/model/tuning/index.js';
import { Cusolver } from '../../dist/src/cuda/baselines/index.js';

const sizes = (process.env.N ?? '1100').split(',').map(Number), dtype = process.env.DTYPE ?? 'float32';
const lookahead = process.env.LOOKAHEAD === undefined ? undefined : process.env.LOOKAHEAD !== '0';
const minRowsList = (process.env.MINROWS ?? '1024,1e9').split(',').map(Number);
// WIDEST: the register sub-block of the leaves (force.tallWidest; 'table': the table's), e.g. WIDEST=table,16
const widestList = (process.env.WIDEST ?? 'table').split(',').map((x) => (x === 'table' ? undefined : Number(x)));
if (process.env.TRACE) {
  const { appendFileSync } = await import('node:fs');
  const file = process.env.TRACE;
  const orig = CudaKernel.prototype.launch;
  CudaKernel.prototype.launch = function (c, a) { appendFileSync(file, `launch ${this.name} ${JSON.stringify(c)}\n`); const r = orig.call(this, c, a); appendFileSync(file, '  returned\n'); return r; };
}
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const base = tuningFor(dev.info.arch, 'getrf');
const sl = base.blocked.spreadLeaf;
const tableWith = (minRows) => ({ ...base, blocked: { ...base.blocked, spreadLeaf: { ...sl, cluster: { ...sl.cluster, minRows: { float32: minRows, float64: minRows } } } } });
const solver = new Cusolver(dev);
const rng = new Random(7);
const median = (f, reset) => { const t = []; for (let r = 0; r < 7; r++) { reset(); const ms = ctx.time(f); if (r >= 2) t.push(ms); } t.sort((x, y) => x - y); return t[2]; };
for (const n of sizes) {
  const a0 = ctx.upload(randomMatrices(dtype, n, n, 1, rng)), a = ctx.alloc(dtype, n * n);
  const ipiv = ctx.alloc('int32', n), info = ctx.alloc('int32', 1);
  const reset = () => dev.copy(a0, 0, a, 0, n * n);
  reset();
  const refPiv = ctx.alloc('int32', n), refInfo = ctx.alloc('int32', 1);
  const ref = solver.getrf(dtype, n, n, a, n, refPiv, refInfo);
  ref.run();
  const theirPiv = dev.download(refPiv);
  ref.dispose();
  const vendor = solver.dense(dtype, 'getrf', n, a, 1);
  const vendorMs = median(() => vendor.run(), reset);
  vendor.dispose();
  console.log(`getrf ${dtype} n = ${n}: cuSOLVER ${vendorMs.toFixed(3)} ms`);
  for (const minRows of minRowsList) for (const tallWidest of widestList) {
    const force = { ...(lookahead === undefined ? {} : { lookahead }), ...(tallWidest === undefined ? {} : { tallWidest }) };
    const opts = { tuning: tableWith(minRows), force };
    const req = { a: strided(a, { rows: n, cols: n, count: 1 }), ipiv, pivotStride: n, info };
    const t0 = performance.now();
    reset();
    getrfCuda(dev, req, opts);
    await ctx.synchronize();
    const first = performance.now() - t0;
    const myPiv = dev.download(ipiv);
    let same = 0;
    for (let i = 0; i < n; i++) if (myPiv[i] + 1 === theirPiv[i]) same++;
    const ms = median(() => getrfCuda(dev, req, opts), reset);
    console.log(`  cluster from ${minRows} rows, sub-block ${tallWidest ?? 'table'}: ${ms.toFixed(3)} ms (${(vendorMs / ms).toFixed(2)}x cuSOLVER; first call ${first.toFixed(0)} ms); pivots equal to cuSOLVER's ${same}/${n}; info ${dev.download(info)[0]}`);
  }
  for (const x of [a0, a, ipiv, info, refPiv, refInfo]) x.dispose();
}
solver.dispose();
ctx.dispose();
