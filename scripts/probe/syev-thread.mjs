// syev n = 2 ... 8: the per-thread design (registers) against the warp design, by dtype and n
// (vectors, lower; A reset from a pristine copy before each timed call, outside the timing).
import { open, strided } from '../../dist/src/index.js';
import { Random, randomSymmetric } from '../../dist/src/bench/data.js';
import { syevCuda } from '../../dist/src/cuda/kernels/jacobi/index.js';
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const rng = new Random(9);
const count = Number(process.env.COUNT ?? 100000);
for (const dtype of ['float64', 'float32']) for (const n of [2, 3, 4, 5, 6, 7, 8]) {
  const host = randomSymmetric(dtype, n, count, rng);
  const a0 = ctx.upload(host), a = ctx.alloc(dtype, n * n * count), w = ctx.alloc(dtype, n * count), info = ctx.alloc('int32', count);
  const row = [];
  for (const design of ['thread', 'warp']) {
    if (design === 'thread' && n > 8) { row.push('-'); continue; }
    const f = () => syevCuda(dev, { jobz: 'vectors', uplo: 'lower', a: strided(a, { rows: n, cols: n, count }), w: strided(w, { rows: n, cols: 1, count }), info }, { force: { design } });
    const ms = [];
    for (let r = 0; r < 9; r++) { dev.copy(a0, 0, a, 0, n * n * count); const t = ctx.time(f); if (r >= 2) ms.push(t); }
    ms.sort((x, y) => x - y);
    const bytes = count * (2 * n * n + n) * (dtype === 'float64' ? 8 : 4);
    row.push(`${design} ${ms[3].toFixed(3)} ms (${(bytes / ms[3] / 1e6).toFixed(0)} GB/s)`);
  }
  console.log(`${dtype} n=${n} count=${count}: ${row.join(', ')}`);
  a0.dispose?.(); a.dispose?.(); w.dispose?.(); info.dispose?.();
}
ctx.dispose();
