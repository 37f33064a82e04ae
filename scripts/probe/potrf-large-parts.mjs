// Time the top-level parts of a 4096 Cholesky alone: trsm (right, L^T, 2048 x 2048), syrk (2048, k 2048), gemm of the same shape, potrf leaf 128.
import { open, strided } from '../../dist/src/index.js';
import { randomSpd, Random, randomMatrices } from '../../dist/src/bench/data.js';
import { potrfCuda } from '../../dist/src/cuda/kernels/potrf/index.js';
import { trsmCuda } from '../../dist/src/cuda/kernels/trsm/index.js';
import { syrkCuda } from '../../dist/src/cuda/kernels/syrk/index.js';
import { gemmCuda } from '../../dist/src/cuda/kernels/gemm/index.js';
import { block } from '../../dist/src/cuda/kernels/common/sub-blocks.js';
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const rng = new Random(3);
const med = (f) => { f(); f(); const ms = []; for (let r = 0; r < 7; r++) ms.push(ctx.time(f)); ms.sort((x, y) => x - y); return ms[3]; };
for (const h of [256, 1024, 2048]) {
  const n = 2 * h;
  const spd = ctx.upload(randomSpd('float64', n, 1, rng));
  const info = ctx.alloc('int32', 1);
  const A = strided(spd, { rows: n, cols: n, count: 1 });
  potrfCuda(dev, { a: A, uplo: 'lower', info });   // A holds L
  const b = ctx.upload(randomMatrices('float64', h, h, 1, rng)), c = ctx.upload(randomMatrices('float64', h, h, 1, rng));
  const B = strided(b, { rows: h, cols: h, count: 1 }), C = strided(c, { rows: h, cols: h, count: 1 });
  const L11 = block(A, 0, 0, h, h);
  const gf = (2 * h * h * h) / 1e9;
  for (const t of [32, 64]) {
    const ms = med(() => trsmCuda(dev, { side: 'right', uplo: 'lower', transA: 'T', diag: 'nonunit', alpha: 1, a: L11, b: B }, { force: { leafMax: t } }));
    console.log(`h=${h} trsm right leaf ${t}: ${ms.toFixed(3)} ms, ${(gf / 2 / ms).toFixed(2)} TFLOP/s`);
  }
  const ms2 = med(() => syrkCuda(dev, { uplo: 'lower', trans: 'N', alpha: -1, a: B, beta: 1, c: C }));
  console.log(`h=${h} syrk: ${ms2.toFixed(3)} ms, ${(gf / 2 / ms2).toFixed(2)} TFLOP/s`);
  const ms3 = med(() => gemmCuda(dev, { transA: 'N', transB: 'T', alpha: -1, a: B, b: B, beta: 1, c: C }));
  console.log(`h=${h} gemm NT: ${ms3.toFixed(3)} ms, ${(gf / ms3).toFixed(2)} TFLOP/s`);
  const s0 = ctx.upload(randomSpd('float64', 128, 1, rng)), s1 = ctx.alloc('float64', 128 * 128);
  const L = strided(s1, { rows: 128, cols: 128, count: 1 });
  for (const v of ['register', 'panel']) {
    const ms4 = med(() => { ctx.copy(s0, s1); potrfCuda(dev, { a: L, uplo: 'lower', info }, { force: { recursive: false, variant: v } }); });
    console.log(`potrf leaf 128 ${v}: ${ms4.toFixed(3)} ms`);
  }
}
ctx.dispose();
