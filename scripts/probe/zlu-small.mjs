// Complex getrf and gesv (one right-hand side) at n <= 32: the in-register LU's steps and warps per
// block (complex-lu/plan.ts: the group step, the warp step of warp-step.ts, 'rc' its reciprocal out
// of line, 'pf' its L2 prefetch of a later round's matrix, 'sa' gesv's LU of A alone then the sweeps) against cuBLAS's
// z/cgetrfBatched and z/cgetrfBatched + z/cgetrsBatched on the same data, the bench's (a dominant
// diagonal, bench/data.ts randomComplexGeneral), strided batches of about BYTES of A. Each variant:
// ms by CUDA events, median of 7 after 2 warm-ups, A (and B) reset from pristine copies outside the
// timing; %roof of the copy bandwidth (A read and written once, B likewise); the speed-up over the
// vendor; info checked 0 and the factors equal to the plan's variant's (the steps' rounding differs
// only in the reciprocal: reported as the largest difference, not bit for bit).
// The plan's choice is marked '*'. Prints one line per variant, then the best per (op, dtype, n).
// Every kernel runs its optimised build (MYRIAD_QUICK_FIRST=0, set here): with quick builds on, a
// kernel missing from the disk cache is served by its --Ofast-compile=mid build (loops rolled, the
// rows in local memory: getrf complex128 n = 20 60 registers and a 320-byte stack frame) until its
// background build is done, and the launchers called directly begin no call that would switch it,
// so the 9 runs timed that build: 2-2.5x slower, 1.0-2.0 ms whatever the design (the steps and
// warps per block first timed here were exactly those no test had compiled before).
// Usage (after npx tsc -p .):
//   node scripts/probe/zlu-small.mjs                       (n = 8, 16, 17, 20, 24, 28, 32; both dtypes; BYTES=268435456)
//   N=24,32 DTYPES=complex128 OPS=getrf node scripts/probe/zlu-small.mjs
import { open, strided } from '../../dist/src/index.js';
import { Random, randomComplexGeneral } from '../../dist/src/bench/data.js';
import { Cublas, batchPointers } from '../../dist/src/cuda/baselines/index.js';
import { complexGesvCuda, complexGesvSource, complexGetrfCuda, complexGetrfSource, planComplexGesv, planComplexGetrf } from '../../dist/src/cuda/kernels/complex-lu/index.js';

process.env.MYRIAD_QUICK_FIRST ??= '0';

const sizes = (process.env.N ?? '8,16,17,20,24,28,32').split(',').map(Number);
const dtypes = (process.env.DTYPES ?? 'complex128,complex64').split(',');
const ops = (process.env.OPS ?? 'getrf,gesv').split(',');
const budget = Number(process.env.BYTES ?? 2 ** 28);
const VARIANTS = [
  { name: 'group w4', force: { step: 'group', warps: 4 } },
  { name: 'group w2', force: { step: 'group', warps: 2 } },
  { name: 'warp w1', force: { step: 'warp', warps: 1 } },
  { name: 'warp w2', force: { step: 'warp', warps: 2 } },
  { name: 'warp w4', force: { step: 'warp', warps: 4 } },
  { name: 'warp w1 rc', force: { step: 'warp', warps: 1, reciprocalCall: true } },
  { name: 'warp w2 rc', force: { step: 'warp', warps: 2, reciprocalCall: true } },
  // The L2 prefetch of the matrix 10 or 16 warps an SM ahead.
  { name: 'warp w2 pf10', force: { step: 'warp', warps: 2, prefetchWarps: 10 } },
  { name: 'warp w2 pf16', force: { step: 'warp', warps: 2, prefetchWarps: 16 } },
  // gesv only: the LU of A alone, then the sweeps (no bordered column).
  { name: 'warp w1 sa', force: { step: 'warp', warps: 1, solveAfter: true }, gesvOnly: true },
  { name: 'warp w2 sa', force: { step: 'warp', warps: 2, solveAfter: true }, gesvOnly: true },
];

const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const blas = new Cublas(dev);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// The copy bandwidth the roofline uses: a device-to-device copy of the batch, timed as the variants.
const copyGBs = (() => {
  const bytes = budget;
  const x = dev.alloc('float64', bytes / 8), y = dev.alloc('float64', bytes / 8);
  const ts = [];
  for (let r = 0; r < 9; r++) { const t = ctx.time(() => dev.copy(x, 0, y, 0, bytes / 8)); if (r >= 2) ts.push(t); }
  x.dispose(); y.dispose();
  return (2 * bytes) / (median(ts) * 1e6);
})();
console.log(`${dev.info.name}: copy ${copyGBs.toFixed(0)} GB/s`);

// Every variant's kernel compiled at once on the compile workers (their first calls then load them).
{
  const t0 = performance.now();
  const sources = [];
  for (const op of ops) for (const dtype of dtypes) for (const n of sizes) for (const v of VARIANTS) {
    if (v.gesvOnly && op !== 'gesv') continue;
    const real = dtype === 'complex128' ? 'float64' : 'float32';
    try {
      sources.push(op === 'getrf'
        ? complexGetrfSource(planComplexGetrf(real, n, n, 'strided', v.force))
        : complexGesvSource(planComplexGesv(real, n, 1, 'strided', 'strided', v.force)));
    } catch { /* a variant the plan refuses: reported when timed */ }
  }
  const report = dev.prefetch?.(sources);
  console.log(`kernels: ${sources.length} (${report === undefined ? 'no prefetch' : `${report.compiled} compiled, ${report.failed} failed`}) in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
}

const best = [];
for (const op of ops) for (const dtype of dtypes) for (const n of sizes) {
  const real = dtype === 'complex128' ? 'float64' : 'float32';
  const pair = dtype === 'complex128' ? 16 : 8;
  const count = Math.floor(budget / (n * n * pair));
  const rng = new Random(n * 7 + (real === 'float32' ? 1 : 0));
  const len = 2 * n * n * count;
  const a0 = ctx.upload(randomComplexGeneral(real, n, count, rng)), a = ctx.alloc(real, len);
  const b0 = ctx.upload(rng.fill(real === 'float64' ? new Float64Array(2 * n * count) : new Float32Array(2 * n * count))), b = ctx.alloc(real, 2 * n * count);
  const ipiv = ctx.alloc('int32', n * count), info = ctx.alloc('int32', count);
  const A = strided(a, { rows: n, cols: n, count, dtype }), B = strided(b, { rows: n, cols: 1, count, dtype });
  const bytes = 2 * count * n * (n + (op === 'gesv' ? 1 : 0)) * pair;
  const reset = () => { dev.copy(a0, 0, a, 0, len); if (op === 'gesv') dev.copy(b0, 0, b, 0, 2 * n * count); };
  const timed = (f) => {
    const ts = [];
    for (let r = 0; r < 9; r++) { reset(); const t = ctx.time(f); if (r >= 2) ts.push(t); }
    return median(ts);
  };
  // The vendor on the same data.
  const Ap = batchPointers(dev, a, count, 2 * n * n), Bp = batchPointers(dev, b, count, 2 * n);
  const vendor = timed(() => {
    blas.complexGetrfBatched(dtype, n, Ap, n, ipiv, info, count);
    if (op === 'gesv') blas.complexGetrsBatched(dtype, 'N', n, 1, Ap, n, ipiv, Bp, n, count);
  });
  const planned = op === 'getrf' ? planComplexGetrf(real, n, n, 'strided') : planComplexGesv(real, n, 1, 'strided', 'strided');
  const planName = `${planned.step ?? 'group'} w${planned.warps}${planned.reciprocalCall ? ' rc' : ''}${planned.prefetchWarps ? ` pf${planned.prefetchWarps}` : ''}${planned.solveAfter ? ' sa' : ''}`;
  let reference;
  const rows = [];
  for (const v of VARIANTS) {
    if (v.gesvOnly && op !== 'gesv') continue;
    const run = op === 'getrf'
      ? () => complexGetrfCuda(dev, { a: A, ipiv, pivotStride: n, info }, { force: v.force })
      : () => complexGesvCuda(dev, { a: A, b: B, ipiv, pivotStride: n, info }, { force: v.force });
    let ms;
    try {
      ms = timed(run);
    } catch (e) {
      console.log(`${op} ${dtype} n=${n} ${v.name}: failed: ${String(e).slice(0, 200)}`);
      continue;
    }
    const infos = ctx.download(info);
    const bad = infos.findIndex((x) => x !== 0);
    const out = ctx.download(op === 'getrf' ? a : b);
    let diff = 0;
    if (reference === undefined) reference = out;
    else for (let i = 0; i < out.length; i++) diff = Math.max(diff, Math.abs(out[i] - reference[i]));
    const roof = (100 * bytes) / (ms * 1e6 * copyGBs);
    const mark = v.name === planName ? '*' : ' ';
    rows.push({ name: v.name, ms });
    console.log(`${op} ${dtype} n=${n} count=${count} ${mark}${v.name.padEnd(10)} ${ms.toFixed(3)} ms ${roof.toFixed(1).padStart(5)}% roof  vendor ${vendor.toFixed(3)} ms  ${(vendor / ms).toFixed(2)}x${bad >= 0 ? `  INFO ${infos[bad]} at ${bad}` : ''}  max |diff| ${diff.toExponential(1)}`);
  }
  rows.sort((x, y) => x.ms - y.ms);
  if (rows.length > 0) best.push(`${op} ${dtype} n=${n}: best ${rows[0].name} ${rows[0].ms.toFixed(3)} ms (${(vendor / rows[0].ms).toFixed(2)}x the vendor), plan ${planName}`);
  for (const x of [a0, a, b0, b, ipiv, info, Ap, Bp]) x.dispose?.();
}
console.log(best.join('\n'));
ctx.dispose();
