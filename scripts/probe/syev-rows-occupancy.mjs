// The rows design (kernels/jacobi/generate-rows.ts, syev n = 9 ... 32) over the blocks an SM asked of
// ptxas through __launch_bounds__ (`minBlocks`: fewer registers a thread, more warps to hide each
// round's angle; ptxas may spill), with the half-angle rotation the planner takes, and the tangent
// rotation at no request and at the winning one. Each kernel launched as syevCuda launches it, on
// random symmetric matrices, lower, A reset from a pristine copy before each timed call (outside
// the timing); ms the median of 5 after 2 warm-ups. Checks per variant: info != 0 count, and the
// eigenvalues against the first variant's in units of n eps max|w| ("dw").
// Prints the card's table (model/tuning/syev-rows-occupancy.ts) to paste: an entry where a request
// beat no request by more than 3%; then a markdown table of ms (registers a thread, spill bytes).
//   node scripts/probe/syev-rows-occupancy.mjs
//   SIZES=9,16,24,32 MIN=2,3,4,5,6,8 DTYPES=float64,float32 JOBS=vectors,values COUNT=20000 node scripts/probe/syev-rows-occupancy.mjs
import { open, strided } from '../../dist/src/index.js';
import { Random, randomSymmetric } from '../../dist/src/bench/data.js';
import { ROWS_WARPS, rowsShape, syevRowsSource } from '../../dist/src/cuda/kernels/jacobi/index.js';
import { indexArgs, operandArgs, stridedArgs } from '../../dist/src/cuda/kernels/common/operands.js';
import { arg } from '../../dist/src/cuda/runtime/types.js';
import { MAX_SWEEPS } from '../../dist/src/core/algorithms.js';

const list = (name, fallback) => (process.env[name] ?? fallback).split(',').filter((x) => x !== '');
const sizes = process.env.SIZES ? list('SIZES', '').map(Number) : Array.from({ length: 24 }, (_, i) => 9 + i);
const requests = list('MIN', '2,3,4,5,6,8').map(Number);
const dtypes = list('DTYPES', 'float64,float32');
const jobs = list('JOBS', 'vectors');
// About a millisecond or more of work at each size (H200, float64).
const countFor = (n) => Number(process.env.COUNT ?? (n <= 12 ? 100000 : n <= 16 ? 40000 : n <= 24 ? 20000 : 10000));
const KEEP = 0.97;

const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const card = dev.info.name;
const rng = new Random(17);
const entries = [];
const rows = [];
const fmt = (r) => (r === undefined ? '-' : `${r.ms.toFixed(3)} (${r.registers}r${r.localBytes ? `, ${r.localBytes}B spill` : ''})`);
for (const dtype of dtypes) for (const job of jobs) for (const n of sizes) {
  const vectors = job === 'vectors';
  const count = countFor(n);
  const eps = dtype === 'float64' ? 2 ** -52 : 2 ** -23;
  const host = randomSymmetric(dtype, n, count, rng);
  const a0 = ctx.upload(host), a = ctx.alloc(dtype, n * n * count), w = ctx.alloc(dtype, n * count), info = ctx.alloc('int32', count);
  const args = [...stridedArgs(strided(a, { rows: n, cols: n, count })), ...operandArgs({ pointer: w.ptr, offset: 0, stride: n, ld: n }), arg.ptr(info.ptr), ...indexArgs(null, count)];
  let w0;
  const run = (angle, minBlocks) => {
    const k = dev.kernel(syevRowsSource({ dtype, n, uplo: 'lower', vectors, kind: 'strided', maxSweeps: MAX_SWEEPS, angle, ...(minBlocks === undefined ? {} : { minBlocks }) }));
    const f = () => k.launch({ grid: [Math.ceil(count / rowsShape(n).perBlock), 1, 1], block: [32 * ROWS_WARPS, 1, 1] }, args);
    const ms = [];
    for (let r = 0; r < 7; r++) { dev.copy(a0, 0, a, 0, n * n * count); const t = ctx.time(f); if (r >= 2) ms.push(t); }
    ms.sort((x, y) => x - y);
    let bad = 0; for (const x of dev.download(info)) if (x !== 0) bad++;
    const wv = dev.download(w);
    let dw = 0;
    if (w0 === undefined) w0 = wv;
    else for (let m = 0; m < count; m++) {
      let big = 0; for (let j = 0; j < n; j++) big = Math.max(big, Math.abs(w0[m * n + j]));
      for (let j = 0; j < n; j++) dw = Math.max(dw, Math.abs(wv[m * n + j] - w0[m * n + j]) / (n * eps * (big || 1)));
    }
    if (bad !== 0 || !(dw <= 64)) console.log(`  ${dtype} ${job} n=${n} ${angle} min ${minBlocks ?? '-'}: info != 0 ${bad}, dw ${dw.toFixed(2)}`);
    return { ms: ms[2], registers: k.registers, localBytes: k.localBytes, bad, dw };
  };
  const none = run('halfAngle', undefined);
  const byRequest = new Map(requests.map((m) => [m, run('halfAngle', m)]));
  let best;
  for (const [m, r] of byRequest) if (r.bad === 0 && (best === undefined || r.ms < best[1].ms)) best = [m, r];
  const wins = best !== undefined && best[1].ms < KEEP * none.ms;
  const tangentNone = run('tangent', undefined);
  const tangentBest = wins ? run('tangent', best[0]) : undefined;
  if (wins) entries.push(`    { dtype: '${dtype}', vectors: ${vectors}, n: ${n}, minBlocks: ${best[0]}, measured: '${best[1].ms.toFixed(3)} / ${none.ms.toFixed(3)} ms (${count.toLocaleString('en-US')})' },`);
  rows.push([dtype, job, n, count.toLocaleString('en-US'), fmt(none), ...requests.map((m) => fmt(byRequest.get(m))), wins ? `${best[0]}` : '-',
    fmt(tangentNone), fmt(tangentBest), (tangentNone.ms / none.ms).toFixed(2)]);
  console.log(`${dtype} ${job} n=${n} x ${count}: none ${none.ms.toFixed(3)}, ${requests.map((m) => `${m} ${byRequest.get(m).ms.toFixed(3)}`).join(', ')}; tangent ${tangentNone.ms.toFixed(3)}`);
  for (const x of [a0, a, w, info]) x.dispose();
}
ctx.dispose();

const date = new Date().toISOString().slice(0, 10);
console.log(`\n// ${card}, ${date}, \`node scripts/probe/syev-rows-occupancy.mjs\` (SIZES=${sizes.join(',')} MIN=${requests.join(',')} DTYPES=${dtypes.join(',')} JOBS=${jobs.join(',')}):`);
console.log('// the half-angle rotation with no request against the fastest request, a request kept where it took under');
console.log(`// ${KEEP} of the time of none; ms of the request / of none (batch count).`);
const name = card.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '').toUpperCase();
console.log(`const ${name}: RowsOccupancyTable = {\n  card: '${card}',\n  entries: [`);
for (const e of entries) console.log(e);
console.log(`  ],\n};\n// and ${name} in TABLES (sweeps of one dtype or job each: their entries in one table).\n`);
const header = ['dtype', 'job', 'n', 'count', 'none', ...requests.map((m) => `min ${m}`), 'kept', 'tangent none', 'tangent kept', 'tangent / half'];
console.log(`| ${header.join(' | ')} |`);
console.log(`| ${header.map(() => '---').join(' | ')} |`);
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
