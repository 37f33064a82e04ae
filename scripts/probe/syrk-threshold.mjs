// syrk: the recursion against one GEMM over the triangle, by n (C = A A^T, lower, beta 0, k = n).
import { open, strided } from '../../dist/src/index.js';
import { Random, randomMatrices } from '../../dist/src/bench/data.js';
import { syrkCuda } from '../../dist/src/cuda/kernels/syrk/index.js';
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const rng = new Random(5);
for (const dtype of ['float64', 'float32']) for (const n of [32, 48, 64, 96, 128, 192, 256]) {
  const count = Math.floor((dtype === 'float64' ? 2 ** 26 : 2 ** 27) / (n * n));
  const a = ctx.upload(randomMatrices(dtype, n, n, count, rng)), c = ctx.alloc(dtype, n * n * count);
  const A = strided(a, { rows: n, cols: n, count }), C = strided(c, { rows: n, cols: n, count });
  const row = [];
  for (const triangle of [false, true]) {
    const f = () => syrkCuda(dev, { uplo: 'lower', trans: 'N', alpha: 1, beta: 0, a: A, c: C }, { force: { triangle } });
    f(); f(); const ms = []; for (let r = 0; r < 7; r++) ms.push(ctx.time(f)); ms.sort((x, y) => x - y);
    row.push(ms[3].toFixed(3));
  }
  console.log(`${dtype} n=${n} count=${count}: recursion ${row[0]} ms, triangle ${row[1]} ms`);
  a.dispose?.(); c.dispose?.();
}
ctx.dispose();
