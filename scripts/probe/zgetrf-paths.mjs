// Complex getrf at orders 16-64: the register design (n <= 32) against the blocked steps (panel
// kernel, interchanges, trsm, gemm; launch-blocked.ts) on the same data, both called directly.
// Prints ms (median of 7 after 2 warm-ups), A reset from a pristine copy outside the timing.
//   node scripts/probe/zgetrf-paths.mjs            (BYTES=268435456 of A per call)
import { open, strided } from '../../dist/src/index.js';
import { Random, randomComplexGeneral } from '../../dist/src/bench/data.js';
import { complexGetrfCuda } from '../../dist/src/cuda/kernels/complex-lu/index.js';
import { complexGetrfBlocked } from '../../dist/src/cuda/kernels/complex-lu/launch-blocked.js';
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const rng = new Random(5);
const budget = Number(process.env.BYTES ?? 2 ** 28);
for (const dtype of ['complex128', 'complex64']) for (const n of [16, 24, 32, 40, 64]) {
  const real = dtype === 'complex128' ? 'float64' : 'float32';
  const count = Math.floor(budget / (n * n * (dtype === 'complex128' ? 16 : 8)));
  const a0 = ctx.upload(randomComplexGeneral(real, n, count, rng)), a = ctx.alloc(real, 2 * n * n * count);
  const ipiv = ctx.alloc('int32', n * count), info = ctx.alloc('int32', count);
  const batch = strided(a, { rows: n, cols: n, count, dtype });
  const designs = {
    register: n <= 32 ? () => complexGetrfCuda(dev, { a: batch, ipiv, pivotStride: n, info }) : undefined,
    blocked: () => { const uploads = []; complexGetrfBlocked(dev, real, batch, { ipiv, pivotStride: n, info }, count, uploads); if (uploads.length > 0) throw new Error('uploads on a strided batch'); },
  };
  const row = [];
  for (const [name, f] of Object.entries(designs)) {
    if (f === undefined) continue;
    const ms = [];
    for (let r = 0; r < 9; r++) { dev.copy(a0, 0, a, 0, 2 * n * n * count); const t = ctx.time(f); if (r >= 2) ms.push(t); }
    ms.sort((x, y) => x - y);
    row.push(`${name} ${ms[3].toFixed(3)} ms`);
  }
  console.log(`getrf ${dtype} n=${n} count=${count}: ${row.join(', ')}`);
  for (const x of [a0, a, ipiv, info]) x.dispose?.();
}
ctx.dispose();
