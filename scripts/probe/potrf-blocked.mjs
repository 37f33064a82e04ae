// The large Cholesky's paths against each other and cuSOLVER, one matrix (float64 by
// default), CUDA events, median of 7 after 2 warm-ups, all in one process on one device:
//   recursion (the old path: by halves, leaves of 128 by the panel design, trsm by substitution
//   leaves), with register leaves (the table's registerLeavesFew), with inverted trsm from t = 512
//   blocked 256 / 512 (panel by panel), panel or register leaves, the panel's trsm by substitution
//   leaves or by its inverted diagonal block (the table's invertPanel)
//   cuSOLVER dense potrf (Cusolver.dense)
// Also: each path's result against cuSOLVER's (max |L - L_cusolver| over the lower triangle) and
// the launch count of one call, so a fast wrong path shows.
// Usage (after npx tsc -p .): node scripts/probe/potrf-blocked.mjs [sizes=1024,2048,4096] [count=1] [dtype=float64]
import { open, strided } from '../../dist/src/index.js';
import { CudaKernel } from '../../dist/src/cuda/runtime/index.js';
import { randomSpd, Random } from '../../dist/src/bench/data.js';
import { potrfCuda } from '../../dist/src/cuda/kernels/potrf/index.js';
import { Cusolver } from '../../dist/src/cuda/baselines/index.js';
import { applyMmaBand } from './mma-band.mjs';
import { Workspace } from '../../dist/src/cuda/runtime/workspace.js';

let launches = 0;
const orig = CudaKernel.prototype.launch;
CudaKernel.prototype.launch = function (c, a) { launches++; return orig.call(this, c, a); };

const sizes = (process.argv[2] ?? '1024,2048,4096').split(',').map(Number);
const count = Number(process.argv[3] ?? 1);
const dtype = process.argv[4] ?? 'float64';
const ctx = await open({ backend: 'cuda' });
applyMmaBand(ctx);   // MMA_BAND: see mma-band.mjs
const dev = ctx.deviceBackend.device;
const solver = new Cusolver(dev);
const rng = new Random(11);
const median = (f) => { f(); f(); const ms = []; for (let r = 0; r < 7; r++) ms.push(ctx.time(f)); ms.sort((x, y) => x - y); return ms[3]; };

const ALL_PATHS = [
  // The old path exactly: leaves of 128 by the panel design (the table's choice before), substitution trsm.
  ['recursion (old)', { recursive: true, blocked: false, variant: 'panel', trsm: { invertFrom: Infinity } }],
  ['recursion, register leaves', { recursive: true, blocked: false, trsm: { invertFrom: Infinity } }],
  ['recursion + inverted trsm', { recursive: true, blocked: false, trsm: { invertFrom: 512 } }],
  ['blocked 256, panel leaves', { recursive: true, blocked: true, panel: 256, variant: 'panel', trsm: { invertFrom: Infinity } }],
  ['blocked 256, recursive diagonal blocks', { recursive: true, blocked: true, panel: 256, diagonal: 0 }],
  ['blocked 256, inverted panel', { recursive: true, blocked: true, panel: 256, trsm: { invertFrom: 256 } }],
  ['blocked 512', { recursive: true, blocked: true, panel: 512 }],
  ['blocked 512, inverted panel', { recursive: true, blocked: true, panel: 512, trsm: { invertFrom: 512 } }],
  // Panels by the fused factor-and-inverse diagonal kernel (generate-diagonal.ts).
  ['fused diagonal 32', { recursive: true, blocked: true, diagonal: 32 }],
  ['fused diagonal 64', { recursive: true, blocked: true, diagonal: 64 }],
  ['fused diagonal 96', { recursive: true, blocked: true, diagonal: 96 }],
  ['fused diagonal 128', { recursive: true, blocked: true, diagonal: 128 }],
  ['fused diagonal 64, no lookahead', { recursive: true, blocked: true, diagonal: 64, lookahead: false }],
  ['fused diagonal 96, no lookahead', { recursive: true, blocked: true, diagonal: 96, lookahead: false }],
  ['fused diagonal 128, no lookahead', { recursive: true, blocked: true, diagonal: 128, lookahead: false }],
  // Two levels: outer panels of k inner ones (the trailing update's k = k x nb).
  ['fused 96 outer 2', { recursive: true, blocked: true, diagonal: 96, outerPanels: 2 }],
  ['fused 96 outer 4', { recursive: true, blocked: true, diagonal: 96, outerPanels: 4 }],
  ['fused 96 outer 6', { recursive: true, blocked: true, diagonal: 96, outerPanels: 6 }],
  ['fused 128 outer 1', { recursive: true, blocked: true, diagonal: 128, outerPanels: 1 }],
  ['fused 128 outer 2', { recursive: true, blocked: true, diagonal: 128, outerPanels: 2 }],
  ['fused 128 outer 4', { recursive: true, blocked: true, diagonal: 128, outerPanels: 4 }],
  // The one-block-per-matrix designs.
  ['per-matrix kernels', { recursive: false }],
  // The fused driver's panel in two launches (diagonal, then the solve) against one (generate-fused-panel.ts).
  ['default plan, two-launch panels', { fusedPanel: false }],
  ['default plan', undefined],
];
// PATHS=name,name (substrings) picks rows; default: every row.
const PATHS = process.env.PATHS ? ALL_PATHS.filter(([name]) => process.env.PATHS.split(',').some((p) => name.includes(p))) : ALL_PATHS;

const rows = [];
for (const n of sizes) {
  const host = randomSpd(dtype, n, count, rng);
  const a0 = ctx.upload(host), a = ctx.alloc(dtype, n * n * count), info = ctx.alloc('int32', count);
  const A = strided(a, { rows: n, cols: n, count });
  // cuSOLVER first: its factor is the reference of the others.
  const dense = solver.dense(dtype, 'potrf', n, a, count);
  const vendorMs = median(() => { ctx.copy(a0, a); dense.run(); });
  ctx.copy(a0, a); dense.run();
  const ref = ctx.download(a);
  const copyMs = median(() => ctx.copy(a0, a));
  console.log(`n = ${n} x ${count} ${dtype}: cuSOLVER ${(vendorMs - copyMs).toFixed(3)} ms (copy of A ${copyMs.toFixed(3)} ms, subtracted from every row)`);
  rows.push({ n, count, dtype, path: 'cuSOLVER dense', ms: vendorMs - copyMs });
  for (const [name, force] of PATHS) {
    const run = () => { ctx.copy(a0, a); potrfCuda(dev, { a: A, uplo: 'lower', info }, force ? { force } : {}); };
    const ms = median(run) - copyMs;
    launches = 0; run(); const perCall = launches; await ctx.synchronize();
    const got = ctx.download(a);
    const inf = ctx.download(info);
    let err = 0;
    for (let q = 0; q < count; q++) for (let j = 0; j < n; j++) for (let i = j; i < n; i++) {
      const e = q * n * n + i + j * n;
      err = Math.max(err, Math.abs(got[e] - ref[e]));
      if (Number.isNaN(got[e])) err = NaN;
    }
    const flops = (count * n ** 3) / 3 / 1e9;
    console.log(`  ${name.padEnd(28)} ${ms.toFixed(3)} ms  ${(flops / ms).toFixed(2)} TFLOP/s  ${(vendorMs - copyMs) / ms > 0 ? ((vendorMs - copyMs) / ms).toFixed(2) : '-'}x cuSOLVER  ${perCall} launches  max|L - L_cusolver| ${err.toExponential(2)}  info ${[...inf].some((x) => x !== 0) ? 'NONZERO' : '0'}`);
    rows.push({ n, count, dtype, path: name, ms, launches: perCall, maxDiff: err });
  }
  dense.dispose();
  a0.dispose?.(); a.dispose?.(); info.dispose?.();
}
console.log(`workspace: ${Workspace.of(dev).bytes} bytes, grown ${Workspace.of(dev).grows} times`);
if (process.env.OUT) {
  const { writeFileSync } = await import('node:fs');
  writeFileSync(`${process.env.OUT}/potrf-blocked.json`, JSON.stringify(rows, null, 1));
}
solver.dispose();
ctx.dispose();
