// The rows design (kernels/jacobi/generate-rows.ts) with __launch_bounds__'s minimum blocks per SM
// raised (fewer registers, more warps; ptxas may spill): the kernel text of the plan with only that
// changed, launched as syevCuda launches it. Vectors, lower, random symmetric; ms, median of 5.
//   MIN=3,4 SIZES=16:20000,32:10000 node scripts/probe/syev-rows-occupancy.mjs
import { open, strided } from '../../dist/src/index.js';
import { Random, randomSymmetric } from '../../dist/src/bench/data.js';
import { ROWS_WARPS, rowsShape, syevRowsSource } from '../../dist/src/cuda/kernels/jacobi/index.js';
import { indexArgs, operandArgs, stridedArgs } from '../../dist/src/cuda/kernels/common/operands.js';
import { arg } from '../../dist/src/cuda/runtime/types.js';
import { MAX_SWEEPS } from '../../dist/src/cpu/lapack/index.js';
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const rng = new Random(17);
const sizes = (process.env.SIZES ?? '16:20000,32:10000').split(',').map((s) => s.split(':').map(Number));
for (const dtype of ['float64', 'float32']) for (const [n, count] of sizes) {
  const host = randomSymmetric(dtype, n, count, rng);
  const a0 = ctx.upload(host), a = ctx.alloc(dtype, n * n * count), w = ctx.alloc(dtype, n * count), info = ctx.alloc('int32', count);
  const base = syevRowsSource({ dtype, n, uplo: 'lower', vectors: true, kind: 'strided', maxSweeps: MAX_SWEEPS });
  const args = [...stridedArgs(strided(a, { rows: n, cols: n, count })), ...operandArgs({ pointer: w.ptr, offset: 0, stride: n, ld: n }), arg.ptr(info.ptr), ...indexArgs(null, count)];
  const row = [];
  for (const min of ['', ...(process.env.MIN ?? '3,4').split(',')]) {
    const bounds = `__launch_bounds__(${32 * ROWS_WARPS})`;
    if (!base.source.includes(bounds)) throw new Error(`the rows kernel no longer says ${bounds}`);
    const src = min === '' ? base : { ...base, name: `${base.entry}_m${min}.cu`, source: base.source.replace(bounds, `__launch_bounds__(${32 * ROWS_WARPS}, ${min})`) };
    const k = dev.kernel(src);
    const f = () => k.launch({ grid: [Math.ceil(count / rowsShape(n).perBlock), 1, 1], block: [32 * ROWS_WARPS, 1, 1] }, args);
    const ms = [];
    for (let r = 0; r < 7; r++) { dev.copy(a0, 0, a, 0, n * n * count); const t = ctx.time(f); if (r >= 2) ms.push(t); }
    ms.sort((x, y) => x - y);
    let bad = 0; for (const x of dev.download(info)) if (x !== 0) bad++;
    row.push(`min ${min || '-'} ${ms[2].toFixed(3)} (info!=0 ${bad})`);
  }
  console.log(`${dtype} n=${n} x ${count} ms: ${row.join(', ')}`);
  for (const x of [a0, a, w, info]) x.dispose();
}
ctx.dispose();
