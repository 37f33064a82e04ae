// syev n = 2 ... 8: the per-thread QL design (kernels/ql-thread) against the per-thread Jacobi
// (kernels/jacobi/generate-thread.ts), by dtype, n and job (uplo 'lower'; A reset from a pristine
// copy before each timed call, outside the timing). Prints ms (median of 7 after 2 warm-ups), GB/s
// of the bytes syev must move (A read, V and w written; values only: A read, w written), that as a
// fraction of PEAK_GBS (default 4800, an H200's HBM3e), and the faster design: the band of
// model/tuning/ql-thread-default.ts follows from the last column.
//   node scripts/probe/syev-small.mjs            (COUNT=1000000 matrices, PEAK_GBS=4800)
import { open, strided } from '../../dist/src/index.js';
import { Random, randomSymmetric } from '../../dist/src/bench/data.js';
import { syevCuda } from '../../dist/src/cuda/kernels/jacobi/index.js';
import { syevQlThreadCuda } from '../../dist/src/cuda/kernels/ql-thread/index.js';
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const rng = new Random(9);
const count = Number(process.env.COUNT ?? 1000000);
const peak = Number(process.env.PEAK_GBS ?? 4800);
for (const jobz of ['vectors', 'values']) for (const dtype of ['float64', 'float32']) for (const n of [2, 3, 4, 5, 6, 7, 8]) {
  const host = randomSymmetric(dtype, n, count, rng);
  const a0 = ctx.upload(host), a = ctx.alloc(dtype, n * n * count), w = ctx.alloc(dtype, n * count), info = ctx.alloc('int32', count);
  const request = { jobz, uplo: 'lower', a: strided(a, { rows: n, cols: n, count }), w: strided(w, { rows: n, cols: 1, count }), info };
  const designs = { ql: () => syevQlThreadCuda(dev, request), jacobi: () => syevCuda(dev, request, { force: { design: 'thread' } }) };
  const bytes = count * ((jobz === 'vectors' ? 2 * n * n : n * n) + n) * (dtype === 'float64' ? 8 : 4);
  const row = [];
  const times = {};
  for (const [name, f] of Object.entries(designs)) {
    const ms = [];
    for (let r = 0; r < 9; r++) { dev.copy(a0, 0, a, 0, n * n * count); const t = ctx.time(f); if (r >= 2) ms.push(t); }
    ms.sort((x, y) => x - y);
    times[name] = ms[3];
    const gbs = bytes / ms[3] / 1e6;
    row.push(`${name} ${ms[3].toFixed(3)} ms (${gbs.toFixed(0)} GB/s, ${((100 * gbs) / peak).toFixed(0)}%)`);
  }
  console.log(`${jobz} ${dtype} n=${n} count=${count}: ${row.join(', ')}; faster: ${times.ql <= times.jacobi ? 'ql' : 'jacobi'}`);
  a0.dispose?.(); a.dispose?.(); w.dispose?.(); info.dispose?.();
}
ctx.dispose();
