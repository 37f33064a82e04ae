// The very-small gemm kernel on complex data (kernels/gemm/generate-small.ts over pairs): its thread
// shapes swept on the bench's workload (bench/complex-workloads.ts: C = A B, beta 0, strided batches
// of about 1 GiB of A, B and C together), each shape first checked against cuBLAS's
// z/cgemmStridedBatched on the same data, then timed: CUDA events, median of 5 after 2 warm-ups;
// GB/s of A and B read and C written, % of the copy rate measured in the run. The grid: threads a
// block x work items a thread x threads a matrix (kernels/gemm/plan.ts planSmall, its tuning fields),
// each with C staged in shared memory and without. The plan's shape is marked '*'. GRID=plan: the
// plan's shape and the default rules' (the card's complex winners left out) only; GRID=wide: the
// very-small kernel above its bound (17-32, where the plan takes the tiled or mma kernel), on a
// smaller grid (128 or 256 threads a block, 1 or 2 items a thread, C as the rules stage it).
// Every kernel runs its optimised build (MYRIAD_QUICK_FIRST=0, set here).
// Usage (after npx tsc -p .):
//   node scripts/probe/zgemm-small.mjs                       (n = 8, 12, 16; complex128 and complex64)
//   N=16 DTYPES=complex64 node scripts/probe/zgemm-small.mjs
//   GRID=plan N=9,10,11,12,13,14,15,16 node scripts/probe/zgemm-small.mjs
//   GRID=wide N=24,32 node scripts/probe/zgemm-small.mjs
import { open, strided } from '../../dist/src/index.js';
import { Random, randomMatrices } from '../../dist/src/bench/data.js';
import { complexGemmCuda, gemmSource, planGemm } from '../../dist/src/cuda/kernels/gemm/index.js';
import { tuningFor } from '../../dist/src/cuda/model/tuning/index.js';
import { measureCopyBandwidth } from '../../dist/src/cuda/tune/measure.js';
import { vendorBlas } from '../../dist/src/cuda/vendor/native.js';

process.env.MYRIAD_QUICK_FIRST ??= '0';

const sizes = (process.env.N ?? '8,12,16').split(',').map(Number);
const dtypes = (process.env.DTYPES ?? 'complex128,complex64').split(',');
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const blas = vendorBlas(dev);
const tuning = tuningFor(dev.info.arch, 'gemm');
const copyGBs = measureCopyBandwidth(dev) / 1e9;
console.log(`${dev.info.name}: copy rate ${copyGBs.toFixed(0)} GB/s`);
const median = (f) => { f(); f(); const ms = []; for (let r = 0; r < 5; r++) ms.push(ctx.time(f)); ms.sort((x, y) => x - y); return ms[2]; };
const label = (p) => `tbc${p.tbc} rn${p.rn} t${p.threads}${p.stageC ? ' sc' : ''}`;
const rng = new Random(11);

for (const dtype of dtypes) {
  const real = dtype === 'complex128' ? 'float64' : 'float32';
  const pairBytes = dtype === 'complex128' ? 16 : 8;
  for (const n of sizes) {
    const count = Math.floor(2 ** 30 / (3 * n * n * pairBytes));
    const [a, b, c, want] = [0, 1, 2, 3].map(() => ctx.upload(randomMatrices(real, 2 * n, n, count, rng)));
    const pairs = (d) => strided(d, { rows: n, cols: n, count });
    const request = { transA: 'N', transB: 'N', alpha: [1, 0], a: pairs(a), b: pairs(b), beta: [0, 0], c: pairs(c) };
    blas.complexGemmAt('strided', real, 'N', 'N', n, n, n, [1, 0], a.ptr, n, n * n, b.ptr, n, n * n, [0, 0], want.ptr, n, n * n, count);
    const expected = dev.download(want);
    const vendorMs = median(() => blas.complexGemmAt('strided', real, 'N', 'N', n, n, n, [1, 0], a.ptr, n, n * n, b.ptr, n, n * n, [0, 0], want.ptr, n, n * n, count));
    const bytes = 3 * count * n * n * pairBytes;
    console.log(`\n${dtype} n = ${n} x ${count}: cuBLAS ${vendorMs.toFixed(3)} ms`);
    const problem = { dtype: real, transA: 'N', transB: 'N', m: n, n, k: n, count, batchKind: 'strided', betaZero: true, complex: { conjA: false, conjB: false } };
    const planned = planGemm(dev.info, problem);
    const candidates = [planned];
    const add = (p) => { if (!candidates.some((q) => JSON.stringify(q) === JSON.stringify(p))) candidates.push(p); };
    add(planGemm(dev.info, problem, { tuning: { ...tuning, complex: { ...tuning.complex, smallWinners: [] } } }));
    const wide = process.env.GRID === 'wide';
    if (process.env.GRID !== 'plan') {
      for (const smallThreadsPerBlock of wide ? [128, 256] : [64, 128, 256]) for (const smallItemsPerThread of wide ? [1, 2] : [1, 2, 4]) {
        for (const smallMaxThreadsPerMatrix of wide ? [64, 128, 256] : [32, 64, 128, 256]) {
          const p = planGemm(dev.info, problem, { variant: 'small', tuning: { ...tuning, smallThreadsPerBlock, smallItemsPerThread, smallMaxThreadsPerMatrix } });
          add(p);
          if (!wide) add({ ...p, stageC: !p.stageC });
        }
      }
    }
    const rows = [];
    for (const p of candidates) {
      try {
        gemmSource(p);   // refused shapes (too much shared memory) throw here
        dev.fill(c, 0xff);
        complexGemmCuda(dev, request, { variant: p });
        const got = dev.download(c);
        let err = 0, scale = 0;
        for (let i = 0; i < got.length; i++) { err = Math.max(err, Math.abs(got[i] - expected[i])); scale = Math.max(scale, Math.abs(expected[i])); }
        const rel = err / (n * (real === 'float64' ? 2.2e-16 : 1.2e-7) * scale);
        if (!(rel < 4)) { console.log(`  ${label(p).padEnd(24)} WRONG (${rel.toExponential(2)})`); continue; }
        const ms = median(() => complexGemmCuda(dev, request, { variant: p }));
        const gbs = bytes / ms / 1e6;
        rows.push({ p, ms });
        console.log(`  ${p === planned ? '*' : ' '} ${label(p).padEnd(24)} ${ms.toFixed(3)} ms ${gbs.toFixed(0)} GB/s ${(100 * gbs / copyGBs).toFixed(1)}% vendor/own ${(vendorMs / ms).toFixed(2)}`);
      } catch (e) {
        console.log(`    ${label(p).padEnd(24)} refused: ${String(e.message).split('\n')[0].slice(0, 100)}`);
      }
    }
    rows.sort((x, y) => x.ms - y.ms);
    const best = rows[0];
    if (best !== undefined) console.log(`best ${dtype} ${n}: ${label(best.p)} ${best.ms.toFixed(3)} ms (${(100 * bytes / best.ms / 1e6 / copyGBs).toFixed(1)}%), the plan's ${rows.find((r) => r.p === planned)?.ms.toFixed(3) ?? '-'} ms`);
    for (const x of [a, b, c, want]) x.dispose?.();
  }
}
ctx.dispose();
