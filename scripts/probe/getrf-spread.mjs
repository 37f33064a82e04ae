// One LU panel (m x 64, the blocked driver's leaf) by the wide leaf (one block,
// generate-wide.ts) against the spread leaf (generate-spread.ts: the panel over G blocks) at several
// blocks a matrix (the tuning's maxBlocks), CUDA events (ctx.time), median of 5 after 2 warm-ups,
// A reset before each call (outside the timing). Also the largest difference of the factors and
// whether the pivots agree with the wide leaf's (random data: no ties).
// BLOCKS entries cN or cNtT take the cluster form (a matrix's blocks one cluster of N, sm_90; T threads a block);
// a suffix pull / push / signal picks its exchange (c16t512signal); a final fs fuses the search
// into the previous column's update (32fs, c16t512fs, c16t512signalfs).
// Usage (after npx tsc -p .): M=1024,4096 DTYPE=float64 BLOCKS=32,64,128,c8,c16 node scripts/probe/getrf-spread.mjs
import { open, strided } from '../../dist/src/index.js';
import { Random, randomMatrices } from '../../dist/src/bench/data.js';
import { getrfCuda } from '../../dist/src/cuda/kernels/getrf/index.js';
import { tuningFor } from '../../dist/src/cuda/model/tuning/index.js';

const sizes = (process.env.M ?? '1024,2048,4096,8192').split(',').map(Number);
const dtype = process.env.DTYPE ?? 'float64';
const count = Number(process.env.COUNT ?? 1);
const blocksList = (process.env.BLOCKS ?? '32,64,128').split(',');
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const base = tuningFor(dev.info.arch, 'getrf');
const rng = new Random(17);
const median = (f, reset) => { const t = []; for (let r = 0; r < 7; r++) { reset(); const ms = ctx.time(f); if (r >= 2) t.push(ms); } t.sort((x, y) => x - y); return t[2]; };
const force = { recursive: true, panels: true, panelWidth: 64, wideLeaf: 64, lookahead: false };
for (const m of sizes) {
  const n = 64;
  const a0 = ctx.upload(randomMatrices(dtype, m, n, count, rng)), a = ctx.alloc(dtype, m * n * count);
  const ipiv = ctx.alloc('int32', n * count), info = ctx.alloc('int32', count);
  const reset = () => dev.copy(a0, 0, a, 0, m * n * count);
  const req = { a: strided(a, { rows: m, cols: n, count }), ipiv, pivotStride: n, info };
  const run = (opts) => { reset(); getrfCuda(dev, req, opts); return [dev.download(a), dev.download(ipiv), dev.download(info)]; };
  const wideOpts = { force: { ...force, spreadLeaf: false } };
  const wideMs = median(() => getrfCuda(dev, req, wideOpts), reset);
  const [wa, wp] = run(wideOpts);
  const line = [`${dtype} ${m} x 64 x ${count}: wide ${wideMs.toFixed(3)} ms`];
  for (const entry of blocksList) {
    const fused = entry.endsWith('fs');
    const [, c, t, exchange] = /^c(\d+)(?:t(\d+))?(pull|push|signal)?$/.exec(entry.replace(/fs$/, '')) ?? [];
    const cluster = Number(c ?? 0), threads = Number(t ?? base.blocked.spreadLeaf.cluster.threads);
    const blocks = cluster > 0 ? base.blocked.spreadLeaf.maxBlocks : Number(entry.replace(/fs$/, ''));
    const spreadLeaf = { ...base.blocked.spreadLeaf, maxBlocks: blocks, cluster: { ...base.blocked.spreadLeaf.cluster, blocks: cluster, threads } };
    const opts = { force: { ...force, spreadLeaf: true, spreadCluster: cluster > 0, ...(exchange ? { spreadExchange: exchange } : {}), spreadFusedSearch: fused }, tuning: { ...base, blocked: { ...base.blocked, spreadLeaf } } };
    const ms = median(() => getrfCuda(dev, req, opts), reset);
    const [sa, sp, si] = run(opts);
    let diff = 0, same = true;
    for (let i = 0; i < sa.length; i++) diff = Math.max(diff, Number.isNaN(sa[i]) ? Infinity : Math.abs(sa[i] - wa[i]));
    for (let i = 0; i < sp.length; i++) if (sp[i] !== wp[i]) same = false;
    line.push(`${cluster > 0 ? `cluster ${cluster} x ${threads}${exchange ? ` ${exchange}` : ''}` : `spread<=${blocks}`}${fused ? ' fused' : ''} ${ms.toFixed(3)} ms (${(wideMs / ms).toFixed(2)}x, diff ${diff.toExponential(1)}, pivots ${same ? 'equal' : 'DIFFER'}, info ${si[0]})`);
  }
  console.log(line.join('  '));
  for (const x of [a0, a, ipiv, info]) x.dispose();
}
ctx.dispose();
