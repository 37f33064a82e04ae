// Complex trsm of order <= 32 (kernels/ztrsm/): the warp design and the columns design's variants
// (matrices a block, vectors a thread; 'late': B's first pass loaded after the triangles) against
// cuBLAS's z/ctrsmBatched on the same data, the benchmark's workload (side left unless SIDE=right,
// lower, 'N', non-unit, alpha 1, B n x n, strided, about BYTES of A per call). Every kernel is
// compiled at once first (backend.warm); B is reset from a pristine copy before each run, outside
// the timing; CUDA events, median of 7 after 2 warm-ups. Per row: ms, GB/s over A read and B read
// and written, and the ratio to cuBLAS (> 1: faster); the last column names the fastest, to set
// plan.ts's ZTRSM_COLUMNS_FROM, COLUMNS_MIN_VECTORS and the columns design's choices (COLUMNS_RHS,
// columnsBlockThreads, COLUMNS_EARLY) per dtype and order.
//   node scripts/probe/ztrsm-small.mjs [orders=8,9,12,16,20,24,28,32] [dtypes=complex128,complex64]
//   SIDE=right BYTES=268435456 NRHS=<vectors, default n> node scripts/probe/ztrsm-small.mjs
import { open, strided } from '../../dist/src/index.js';
import { Random, randomMatrices } from '../../dist/src/bench/data.js';
import { Cublas, batchPointers } from '../../dist/src/cuda/baselines/index.js';
import { columnsMatricesMax, complexTrsmCuda, planZtrsmColumns, ztrsmColumnsSource } from '../../dist/src/cuda/kernels/ztrsm/index.js';

const orders = (process.argv[2] ?? '8,9,12,16,20,24,28,32').split(',').map(Number);
const dtypes = (process.argv[3] ?? 'complex128,complex64').split(',');
const side = process.env.SIDE === 'right' ? 'right' : 'left';
const budget = Number(process.env.BYTES ?? 2 ** 28);
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const blas = new Cublas(dev);
const rng = new Random(11);

/** Median of 7 timed runs after 2 warm-ups, B reset before each outside the timing. */
function timed(reset, f) {
  const ms = [];
  for (let r = 0; r < 9; r++) { reset(); const t = ctx.time(f); if (r >= 2) ms.push(t); }
  ms.sort((x, y) => x - y);
  return ms[3];
}

/** The forces timed for one problem (the warp design first); columns variants the generator refuses are left out. */
function variants(real, n, vectors) {
  const pair = real === 'float64' ? 16 : 8;
  const problem = { dtype: real, n, vectors, side, uplo: 'lower', transA: 'N', diag: 'nonunit', kindA: 'strided', kindB: 'strided' };
  const most = columnsMatricesMax(real, n);
  const out = [['warp', { design: 'warp' }]];
  // Vectors a thread whose pairs fit 192 registers (beyond, ptxas spills).
  for (const rhs of [1, 2, 4].filter((r) => r === 1 || r * n * (pair / 4) <= 192)) {
    for (const matrices of [...new Set([1, 2, 4, 8, 16, most].filter((m) => m <= most))]) {
      const force = { design: 'columns', matrices, rhs };
      try {
        ztrsmColumnsSource(planZtrsmColumns(problem, force));   // refuses shapes past a block's threads
      } catch {
        continue;
      }
      out.push([`cols m${matrices} r${rhs}`, force]);
    }
    out.push([`cols planned r${rhs}`, { design: 'columns', rhs }]);
    out.push([`cols planned r${rhs} late`, { design: 'columns', rhs, early: false }]);
  }
  return out;
}

/** Every kernel of the run compiled at once (the calls made on a device that runs nothing), before any timing. */
const t0 = performance.now();
const warmed = await ctx.deviceBackend.warm((planning) => {
  const pdev = planning.device;
  for (const dtype of dtypes) for (const n of orders) {
    const real = dtype === 'complex128' ? 'float64' : 'float32';
    const nrhs = Number(process.env.NRHS ?? n);
    const [rows, cols] = side === 'left' ? [n, nrhs] : [nrhs, n];
    const A = strided(pdev.alloc(real, 2 * n * n), { rows: n, cols: n, count: 1, dtype });
    const B = strided(pdev.alloc(real, 2 * rows * cols), { rows, cols, count: 1, dtype });
    for (const [, force] of variants(real, n, side === 'left' ? cols : rows)) {
      complexTrsmCuda(pdev, { side, uplo: 'lower', transA: 'N', diag: 'nonunit', alpha: [1, 0], a: A, b: B }, { force });
    }
  }
});
console.log(`${warmed.sources.length} kernels compiled in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

for (const dtype of dtypes) for (const n of orders) {
  const real = dtype === 'complex128' ? 'float64' : 'float32';
  const pair = dtype === 'complex128' ? 16 : 8;
  const nrhs = Number(process.env.NRHS ?? n);
  const [rows, cols] = side === 'left' ? [n, nrhs] : [nrhs, n];
  const count = Math.floor(budget / (n * n * pair));
  // A: random pairs, the diagonal made dominant (well conditioned); B: random pairs.
  const hostA = randomMatrices(real, 2 * n, n, count, rng);
  for (let q = 0; q < count; q++) for (let k = 0; k < n; k++) hostA[2 * (q * n * n + k + k * n)] = n + 1;
  const a = ctx.upload(hostA);
  const b0 = ctx.upload(randomMatrices(real, 2 * rows, cols, count, rng));
  const b = ctx.alloc(real, 2 * rows * cols * count);
  const A = strided(a, { rows: n, cols: n, count, dtype });
  const B = strided(b, { rows, cols, count, dtype });
  const reset = () => dev.copy(b0, 0, b, 0, 2 * rows * cols * count);
  const request = { side, uplo: 'lower', transA: 'N', diag: 'nonunit', alpha: [1, 0], a: A, b: B };
  const gbs = (ms) => ((count * (n * n + 2 * rows * cols) * pair) / (ms * 1e6)).toFixed(0);

  const pa = batchPointers(dev, a, count, 2 * n * n), pb = batchPointers(dev, b, count, 2 * rows * cols);
  const vendor = timed(reset, () => blas.complexTrsmBatched(dtype, side, 'lower', 'N', 'nonunit', rows, cols, [1, 0], pa, n, pb, rows, count));
  const results = [['cublas', vendor]];
  for (const [name, force] of variants(real, n, side === 'left' ? cols : rows)) results.push([name, timed(reset, () => complexTrsmCuda(dev, request, { force }))]);
  const best = results.slice(1).reduce((x, y) => (y[1] < x[1] ? y : x));
  console.log(`${dtype} ${side} n=${n} nrhs=${nrhs} count=${count}: ` +
    results.map(([name, ms]) => `${name} ${ms.toFixed(3)} ms ${gbs(ms)} GB/s${name === 'cublas' ? '' : ` x${(vendor / ms).toFixed(2)}`}`).join(', ') +
    ` | best ${best[0]} x${(vendor / best[1]).toFixed(2)}`);
  for (const x of [a, b0, b, pa, pb]) x.dispose?.();
}
ctx.dispose();
