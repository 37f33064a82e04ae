// syev and gesvd n = 16, 32: the warp design's matrices per block (force.perBlock), by dtype
// (vectors; A reset from a pristine copy before each timed call, outside the timing).
import { open, strided } from '../../dist/src/index.js';
import { Random, randomSymmetric } from '../../dist/src/bench/data.js';
import { gesvdCuda, syevCuda, planSyev, planGesvd } from '../../dist/src/cuda/kernels/jacobi/index.js';
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const rng = new Random(11);
for (const dtype of ['float64', 'float32']) for (const [n, count] of [[16, 20000], [32, 10000]]) {
  const host = randomSymmetric(dtype, n, count, rng);
  const a0 = ctx.upload(host), a = ctx.alloc(dtype, n * n * count), w = ctx.alloc(dtype, n * count), info = ctx.alloc('int32', count);
  const u = ctx.alloc(dtype, n * n * count), vt = ctx.alloc(dtype, n * n * count);
  const pr = { dtype, n, uplo: 'lower', vectors: true, kind: 'strided' };
  const unit = 32 / planSyev(pr).threads;
  const rows = [];
  for (const op of ['syev', 'gesvd']) {
    const def = op === 'syev' ? planSyev(pr).perBlock : planGesvd({ dtype, m: n, n, wantU: true, wantVt: true, kind: 'strided' }).perBlock;
    const out = [`default ${def}`];
    for (let perBlock = unit; perBlock <= 16; perBlock += unit) {
      const f = op === 'syev'
        ? () => syevCuda(dev, { jobz: 'vectors', uplo: 'lower', a: strided(a, { rows: n, cols: n, count }), w: strided(w, { rows: n, cols: 1, count }), info }, { force: { design: 'warp', perBlock } })
        : () => gesvdCuda(dev, { a: strided(a, { rows: n, cols: n, count }), s: strided(w, { rows: n, cols: 1, count }), u: strided(u, { rows: n, cols: n, count }), vt: strided(vt, { rows: n, cols: n, count }), info }, { force: { design: 'warp', perBlock } });
      try {
        const ms = [];
        for (let r = 0; r < 7; r++) { dev.copy(a0, 0, a, 0, n * n * count); const t = ctx.time(f); if (r >= 2) ms.push(t); }
        ms.sort((x, y) => x - y);
        out.push(`${perBlock}: ${ms[2].toFixed(3)}`);
      } catch (e) { break; }
    }
    rows.push(`${op} ${out.join(', ')}`);
  }
  console.log(`${dtype} n=${n} x ${count} (ms by perBlock): ${rows.join(' | ')}`);
  for (const x of [a0, a, w, info, u, vt]) x.dispose();
}
ctx.dispose();
