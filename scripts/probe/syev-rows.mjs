// syev n <= 32: the rows design (a lane per row, registers) against the per-thread and warp designs,
// vectors, lower, random symmetric; A reset from a pristine copy before each timed call (outside the
// timing). Each design's eigenvalues against the first design's (max |dw| / (n eps max|w|)) and its
// info count, as a first check. SIZES=n:count,... DTYPES=float64,float32
// DATA=spd: the bench's diagonally dominant SPD matrices (src/bench/data.ts randomSpd) instead.
import { open, strided } from '../../dist/src/index.js';
import { Random, randomSpd, randomSymmetric } from '../../dist/src/bench/data.js';
import { syevCuda } from '../../dist/src/cuda/kernels/jacobi/index.js';
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const rng = new Random(17);
const sizes = (process.env.SIZES ?? '4:1000000,8:1000000,16:20000,32:10000').split(',').map((s) => s.split(':').map(Number));
for (const dtype of (process.env.DTYPES ?? 'float64,float32').split(',')) for (const [n, count] of sizes) {
  const host = (process.env.DATA === 'spd' ? randomSpd : randomSymmetric)(dtype, n, count, rng);
  const a0 = ctx.upload(host), a = ctx.alloc(dtype, n * n * count), w = ctx.alloc(dtype, n * count), info = ctx.alloc('int32', count);
  const eps = dtype === 'float64' ? 2 ** -52 : 2 ** -23;
  const row = [];
  let w0;
  for (const design of (process.env.DESIGNS ?? 'rows,thread,warp').split(',')) {
    if (design === 'thread' && n > 8) continue;
    const f = () => syevCuda(dev, { jobz: 'vectors', uplo: 'lower', a: strided(a, { rows: n, cols: n, count }), w: strided(w, { rows: n, cols: 1, count }), info }, { force: { design } });
    const ms = [];
    for (let r = 0; r < 7; r++) { dev.copy(a0, 0, a, 0, n * n * count); const t = ctx.time(f); if (r >= 2) ms.push(t); }
    ms.sort((x, y) => x - y);
    const wv = dev.download(w), iv = dev.download(info);
    let bad = 0; for (const x of iv) if (x !== 0) bad++;
    let dev_ = 0;
    if (w0 === undefined) w0 = wv;
    else for (let k = 0; k < count; k++) {
      let m = 0; for (let j = 0; j < n; j++) m = Math.max(m, Math.abs(w0[k * n + j]));
      for (let j = 0; j < n; j++) dev_ = Math.max(dev_, Math.abs(wv[k * n + j] - w0[k * n + j]) / (n * eps * (m || 1)));
    }
    const bytes = count * (2 * n * n + n) * (dtype === 'float64' ? 8 : 4);
    row.push(`${design} ${ms[2].toFixed(3)} ms (${(bytes / ms[2] / 1e6).toFixed(0)} GB/s, info!=0 ${bad}${design === 'rows' ? '' : `, dw ${dev_.toFixed(2)}`})`);
  }
  console.log(`${dtype} n=${n} x ${count}: ${row.join(', ')}`);
  for (const x of [a0, a, w, info]) x.dispose();
}
ctx.dispose();
