// The solves' vendor crossover at batch counts the sweep does not reach: the sweep times each order
// at one count (64 MiB of A), and the own routes change with the count (kernels/solve/plan.ts
// CHAIN_SOLVE_MAX_PER_SM). Each case goes through the sweep's own measurement (measureCase: the own
// route a capture takes against the vendor route, each forced, CUDA events, two alternating rounds),
// then prints the rows and the rules they imply in the table's source form (rulesFromRows).
// Usage (after npm run build):
//   OPS=getrs,gesv DTYPE=float64,float32 N=128,192,256,384,512 NRHS=1 COUNT=4096 node scripts/probe/solve-counts.mjs
import { Context } from '../../dist/src/api/context.js';
import { CudaBackend } from '../../dist/src/cuda/backend.js';
import { openDevice } from '../../dist/src/cuda/runtime/index.js';
import { measureCase, rowsMarkdown, rulesFromRows, tableSource } from '../../dist/src/bench/vendor-sweep.js';

const list = (name, fallback) => (process.env[name] ?? fallback).split(',');
const ops = list('OPS', 'getrs,gesv'), dtypes = list('DTYPE', 'float64,float32');
const sizes = list('N', '128,192,256,384,512').map(Number), rhsCounts = list('NRHS', '1').map(Number);
const count = Number(process.env.COUNT ?? 4096), repeats = Number(process.env.REPEATS ?? 5);

const dev = openDevice(0);
const backend = new CudaBackend(dev, 'solve counts');
const ctx = new Context('cuda', backend, backend);
const rows = [];
for (const op of ops) for (const dtype of dtypes) for (const nrhs of rhsCounts) for (const n of sizes) {
  const row = measureCase(ctx, backend, dev, { op, route: 'cublas', dtype, series: 'batched', n, count, nrhs, ...(op === 'trsm' ? { side: 'left' } : {}) }, repeats);
  rows.push(row);
  process.stderr.write(`${op} ${dtype} n=${n} nrhs=${nrhs} x ${count}: own ${row.own} ${row.ownMs.toFixed(3)} ms, vendor ${row.vendorMs.toFixed(3)} ms, ${row.error ?? row.ratio.toFixed(2)}\n`);
}
process.stdout.write(`${rowsMarkdown(rows)}\n\n`);
process.stdout.write(tableSource(dev.info.name, `${dev.info.name}, count ${count}`, 'scripts/probe/solve-counts.mjs', rulesFromRows(rows)));
backend.dispose();
