// syev n = 2 ... 8: the per-thread QL design (kernels/ql-thread) in float64 arithmetic and, for
// float32 data, in float32 arithmetic (each forced) against the per-thread Jacobi
// (kernels/jacobi/generate-thread.ts, the data's arithmetic), each unstaged and staged through shared
// memory ('staged', where a block's slots fit 48 KiB), by dtype, n and job (JOBS=vectors,values; uplo 'lower'; A
// reset from a pristine copy before each timed call, outside the timing). Per design: ms (median of
// 7 after 2 warm-ups), GB/s of the bytes syev must move (A read, V and w written; values only: A
// read, w written) and that as a % of PEAK_GBS (default 4800, an H200's HBM3e); the work per matrix
// (syev-small-count.mjs: FP instructions counted from the generators, the QL iterations and Jacobi
// rotations of these matrices measured on a sample by a CPU mirror of each kernel), GFLOP/s, and
// the % of the FP issue limit of the design's arithmetic (the device's SMs x FMA lanes x clock, H200:
// 132 x 64 FP64 / 128 FP32 x 1.98 GHz; divisions and square roots counted as one instruction: a lower bound). The last
// columns: the fastest design, and Jacobi's time over each QL variant's. The bands of
// model/tuning/ql-thread-default.ts (syev, float32Arithmetic) follow from them.
//   node scripts/probe/syev-small.mjs   (COUNT=1000000 matrices, PEAK_GBS=4800, SAMPLE=2000 counted)
import { open, strided } from '../../dist/src/index.js';
import { Random, randomSymmetric } from '../../dist/src/bench/data.js';
import { STAGED_SHARED_MAX } from '../../dist/src/cuda/kernels/common/span-stage.js';
import { syevCuda, syevThreadSharedBytes } from '../../dist/src/cuda/kernels/jacobi/index.js';
import { syevQlThreadCuda } from '../../dist/src/cuda/kernels/ql-thread/index.js';
import { fmaLanesPerSM } from '../../dist/src/cuda/model/roofline.js';
import { flops, instructions, jacobiCounts, meanWork, qlCounts } from './syev-small-count.mjs';

// Every kernel runs its optimised build: the timed calls go to the launchers, which with quick builds
// on would keep a kernel missing from the disk cache on its quick build for the whole timing.
process.env.MYRIAD_QUICK_FIRST ??= '0';
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const rng = new Random(9);
const count = Number(process.env.COUNT ?? 1000000);
const peak = Number(process.env.PEAK_GBS ?? 4800);
const sample = Number(process.env.SAMPLE ?? 2000);
const EPS = { float64: 2 ** -52, float32: 2 ** -23 };
// FP instructions a second at full issue, per arithmetic: SMs x FMA lanes an SM x clock (H200: 132 x 64 / 128 x 1.98 GHz).
const info = dev.info;
const ISSUE = Object.fromEntries(['float64', 'float32'].map((d) => [d, info.smCount * fmaLanesPerSM(info, d) * info.clockKHz * 1e3]));
console.log(`${info.name}: ${info.smCount} SMs at ${(info.clockKHz / 1e6).toFixed(2)} GHz: FP issue limit ${(ISSUE.float64 / 1e12).toFixed(2)} T FP64, ${(ISSUE.float32 / 1e12).toFixed(2)} T FP32 instructions/s; ${count} matrices, ${sample} counted\n`);

/** The table's columns, declared once. */
const COLUMNS = [
  ['dtype', (r) => r.dtype], ['job', (r) => r.jobz], ['n', (r) => r.n], ['design', (r) => r.design],
  ['ms', (r) => r.ms.toFixed(3)], ['GB/s', (r) => r.gbs.toFixed(0)], ['% roof', (r) => `${((100 * r.gbs) / peak).toFixed(0)}%`],
  ['flops/matrix', (r) => r.flops.toFixed(0)], ['FP instr/matrix', (r) => r.instr.toFixed(0)], ['GFLOP/s', (r) => ((r.flops * count) / r.ms / 1e6).toFixed(0)],
  ['% FP issue', (r) => `${((100 * r.instr * count) / (r.ms * 1e-3 * ISSUE[r.arithmetic])).toFixed(0)}% ${r.arithmetic === 'float64' ? 'FP64' : 'FP32'}`],
];
console.log(`| ${COLUMNS.map(([h]) => h).join(' | ')} |`);
console.log(`| ${COLUMNS.map(([h]) => (['dtype', 'job', 'design'].includes(h) ? '---' : '---:')).join(' | ')} |`);
const summary = [];
for (const jobz of (process.env.JOBS ?? 'vectors,values').split(',')) for (const dtype of ['float64', 'float32']) for (const n of [2, 3, 4, 5, 6, 7, 8]) {
  const vectors = jobz === 'vectors';
  const host = randomSymmetric(dtype, n, count, rng);
  const a0 = ctx.upload(host), a = ctx.alloc(dtype, n * n * count), w = ctx.alloc(dtype, n * count), info = ctx.alloc('int32', count);
  const request = { jobz, uplo: 'lower', a: strided(a, { rows: n, cols: n, count }), w: strided(w, { rows: n, cols: 1, count }), info };
  // The work per matrix: the QL design's iterations at its arithmetic's eps, Jacobi's at the data's.
  const wide = meanWork(host, n, sample, EPS.float64), own = meanWork(host, n, sample, EPS[dtype]);
  // Each per-thread design unstaged and staged through shared memory (where the block's slots fit).
  const fits = syevThreadSharedBytes({ dtype, n, staged: true }) <= STAGED_SHARED_MAX;
  const ql = (arithmetic, counts) => [false, ...(fits ? [true] : [])].map((stage) => ({
    design: `ql${arithmetic === dtype && dtype === 'float32' ? ' f32' : ''}${stage ? ' staged' : ''}`, arithmetic, counts,
    run: () => syevQlThreadCuda(dev, request, { force: { arithmetic, stage } }),
  }));
  const designs = [
    ...ql('float64', qlCounts(n, vectors, wide.ql, false)),
    ...(dtype === 'float32' ? ql('float32', qlCounts(n, vectors, own.ql, true)) : []),
    { design: 'jacobi', arithmetic: dtype, counts: jacobiCounts(n, vectors, own.jacobi), run: () => syevCuda(dev, request, { force: { design: 'thread', stage: false } }) },
    // Staged through shared memory (coalesced block copies of A and W) where the block's slots fit.
    ...(fits
      ? [{ design: 'jacobi staged', arithmetic: dtype, counts: jacobiCounts(n, vectors, own.jacobi), run: () => syevCuda(dev, request, { force: { design: 'thread', stage: true } }) }] : []),
  ];
  const bytes = count * ((vectors ? 2 * n * n : n * n) + n) * (dtype === 'float64' ? 8 : 4);
  const times = {};
  for (const d of designs) {
    const ms = [];
    for (let r = 0; r < 9; r++) { dev.copy(a0, 0, a, 0, n * n * count); const t = ctx.time(d.run); if (r >= 2) ms.push(t); }
    ms.sort((x, y) => x - y);
    times[d.design] = ms[3];
    const row = { dtype, jobz, n, design: d.design, arithmetic: d.arithmetic, ms: ms[3], gbs: bytes / ms[3] / 1e6, flops: flops(d.counts), instr: instructions(d.counts) };
    console.log(`| ${COLUMNS.map(([, value]) => value(row)).join(' | ')} |`);
  }
  const fastest = Object.entries(times).sort((x, y) => x[1] - y[1])[0][0];
  const ratios = Object.keys(times).filter((k) => k !== 'jacobi').map((k) => `Jacobi / ${k} ${(times.jacobi / times[k]).toFixed(2)}`).join(', ');
  summary.push(`${jobz} ${dtype} n=${n}: fastest ${fastest}; ${ratios}`);
  a0.dispose?.(); a.dispose?.(); w.dispose?.(); info.dispose?.();
}
console.log('');
for (const line of summary) console.log(line);
ctx.dispose();
