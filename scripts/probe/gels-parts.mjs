// gels (m = n, one right-hand side) and its parts timed alone on the same shapes: geqrf, ormqr
// (left, Q^T B) and trsm (left, upper, R X = B), by n (float64 unless DTYPE; inputs reset outside
// the timing). Usage: node scripts/probe/gels-parts.mjs 8,32,128
import { open, strided } from '../../dist/src/index.js';
import { Random, randomMatrices } from '../../dist/src/bench/data.js';
import { gelsCuda } from '../../dist/src/cuda/kernels/gels/index.js';
import { geqrfCuda } from '../../dist/src/cuda/kernels/qr/index.js';
import { ormqrCuda } from '../../dist/src/cuda/kernels/ormqr/index.js';
import { trsmCuda } from '../../dist/src/cuda/kernels/trsm/index.js';
const dtype = process.env.DTYPE ?? 'float64';
const sizes = (process.argv[2] ?? '8,32,128').split(',').map(Number);
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const rng = new Random(5);
for (const n of sizes) {
  const count = Math.floor((64 << 20) / (n * n * (dtype === 'float64' ? 8 : 4)));
  const a0 = ctx.upload(randomMatrices(dtype, n, n, count, rng)), b0 = ctx.upload(randomMatrices(dtype, n, 1, count, rng));
  const a = ctx.alloc(dtype, n * n * count), b = ctx.alloc(dtype, n * count), tau = ctx.alloc(dtype, n * count), info = ctx.alloc('int32', count);
  const A = strided(a, { rows: n, cols: n, count }), B = strided(b, { rows: n, cols: 1, count }), T = strided(tau, { rows: n, cols: 1, count });
  const reset = () => { dev.copy(a0, 0, a, 0, n * n * count); dev.copy(b0, 0, b, 0, n * count); };
  const time = (f) => { const t = []; for (let r = 0; r < 7; r++) { reset(); const ms = ctx.time(f); if (r >= 2) t.push(ms); } t.sort((x, y) => x - y); return t[2].toFixed(3); };
  const parts = [
    ['gels', () => gelsCuda(dev, { a: A, b: B, info })],
    ['geqrf', () => geqrfCuda(dev, { a: A, tau: T, info })],
    ['ormqr', () => ormqrCuda(dev, { side: 'left', trans: 'T', a: A, tau: T, c: B })],
    ['trsm', () => trsmCuda(dev, { side: 'left', uplo: 'upper', transA: 'N', diag: 'non-unit', alpha: 1, a: A, b: B })],
  ];
  console.log(`${dtype} n=${n} x ${count}: ${parts.map(([name, f]) => `${name} ${time(f)} ms`).join(', ')}`);
  for (const x of [a0, b0, a, b, tau, info]) x.dispose();
}
ctx.dispose();
