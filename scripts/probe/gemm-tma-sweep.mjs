// The TMA-fed FP64 GEMM's variants (src/cuda/tune/gemm-tma-variants.ts) on single products against
// the planned mma kernel and cuBLAS's dgemm, in one process: the numbers behind the card's TMA
// routes (src/cuda/model/tuning/gemm-tma-routes.ts).
// 1. Every kernel compiled at once on the compile workers (optimised builds: MYRIAD_QUICK_FIRST=0).
// 2. Each variant on each op pair checked against cuBLAS on a ragged product (1100 x 1000 x 334,
//    C -= op(A) op(B)); a wrong one, or one that did not run the tma kernel, is not timed.
// 3. C -= op(A) op(B) (beta = 1, the trailing update's form) for op pairs NN, NT, TN at n = 4096,
//    8192, 16384 with k = n, and at 8192 with k = 512: CUDA events, one warm-up, median of 5.
//    cuBLAS's first call (handle, workspace) is made before any timing.
// Prints a markdown table (TF/s and the ratio to cuBLAS per variant), the best variant per row,
// and per op pair the variant with the best worst ratio over the k = n rows (a route candidate).
// Rows stop being timed once the run passes LIMIT_S seconds (default 270), so it ends within five
// minutes on one H200.
// Usage: node scripts/probe/gemm-tma-sweep.mjs [sizes=4096,8192,16384] [ops=NN,NT,TN]
// VARIANTS='0,3,5' times only those entries of the list; KS='512' the extra depths (default 512,
// at the middle size).
import { open, strided } from '../../dist/src/index.js';
import { gemmCuda, gemmSource, planGemm } from '../../dist/src/cuda/kernels/gemm/index.js';
import { tuningFor } from '../../dist/src/cuda/model/tuning/index.js';
import { TMA_SWEEP_VARIANTS } from '../../dist/src/cuda/tune/gemm-tma-variants.js';
import { Cublas } from '../../dist/src/cuda/baselines/index.js';
import { randomMatrices, Random } from '../../dist/src/bench/data.js';

process.env.MYRIAD_QUICK_FIRST ??= '0';
const t0 = performance.now();
const seconds = () => (performance.now() - t0) / 1000;
const LIMIT_S = Number(process.env.LIMIT_S ?? 270);
const sizes = (process.argv[2] ?? '4096,8192,16384').split(',').map(Number);
const ops = (process.argv[3] ?? 'NN,NT,TN').split(',').map((o) => [o[0], o[1]]);
const picked = process.env.VARIANTS ? new Set(process.env.VARIANTS.split(',').map(Number)) : undefined;
const variants = TMA_SWEEP_VARIANTS.map((v, i) => ({ ...v, id: `v${i}` })).filter((_, i) => picked === undefined || picked.has(i));
const middle = sizes[Math.floor(sizes.length / 2)];
const extraKs = (process.env.KS ?? '512').split(',').filter((x) => x !== '').map(Number);

const ctx = await open({ backend: 'cuda' });
const device = ctx.deviceBackend.device;
// The device as the launcher sees it, recording the entry of each kernel launched.
let lastEntry = '';
const dev = new Proxy(device, {
  get: (t, p) => {
    if (p === 'kernel') return (src) => new Proxy(t.kernel(src), { get: (k, q) => (q === 'launch' ? (...args) => { lastEntry = src.entry; k.launch(...args); } : Reflect.get(k, q, k)) });
    const v = Reflect.get(t, p, t);
    return typeof v === 'function' ? v.bind(t) : v;
  },
});
const blas = new Cublas(device);
const base = tuningFor(dev.info.arch, 'gemm');
const tmaOptions = (v) => ({ variant: 'tma', tuning: { ...base, tma: [{ maxDim: Infinity, config: v.config }] } });
const LOOSE = { a: { kind: 'strided', dense: false }, b: { kind: 'strided', dense: false }, c: { kind: 'strided', dense: false } };
const rng = new Random(13);
const stored = (t, rows, cols) => (t === 'N' ? [rows, cols] : [cols, rows]);
const attempt = (what, f) => {
  try { return f(); } catch (e) { console.log(`  ${what} failed: ${String(e.message).split('\n')[0]}`); return undefined; }
};
console.log(`${dev.info.name}, ${dev.info.smCount} SMs; variants: ${variants.map((v) => `${v.id} ${v.name}`).join('; ')}`);

// 1. Every kernel at once: each variant on each op pair, and the mma kernel the plan takes at each size.
{
  const sources = [];
  for (const [transA, transB] of [...ops, ['N', 'N'], ['N', 'T'], ['T', 'N']]) {
    for (const v of variants) sources.push(gemmSource({ variant: 'tma', dtype: 'float64', transA, transB, betaZero: false, layouts: LOOSE, ...v.config }));
    for (const n of sizes) for (const k of [n, ...extraKs]) {
      sources.push(gemmSource(planGemm(dev.info, { dtype: 'float64', transA, transB, m: n, n, k, count: 1, batchKind: 'strided', betaZero: false, layouts: LOOSE })));
    }
  }
  const unique = [...new Map(sources.map((s) => [s.entry, s])).values()];
  const report = device.prefetch?.(unique);
  console.log(`compiled ${unique.length} kernels (${report === undefined ? 'no prefetch' : `${report.compiled} compiled, ${report.failed} failed`}) in ${seconds().toFixed(0)} s`);
}

// 2. Correctness against cuBLAS on a ragged product; `good[op]` holds the variants that passed.
const good = new Map();
{
  const m = 1100, n = 1000, k = 334;
  for (const [ta, tb] of ops) {
    const [ar, ac] = stored(ta, m, k), [br, bc] = stored(tb, k, n);
    const a = ctx.upload(randomMatrices('float64', ar, ac, 1, rng)), b = ctx.upload(randomMatrices('float64', br, bc, 1, rng));
    const c0 = randomMatrices('float64', m, n, 1, rng);
    const ref = ctx.upload(c0);
    blas.gemmStridedBatched('float64', ta, tb, m, n, k, -1, a, ar, ar * ac, b, br, br * bc, 1, ref, m, m * n, 1);
    const want = dev.download(ref);
    let scale = 0; for (const x of want) scale = Math.max(scale, Math.abs(x));
    const passed = [];
    const wrong = [];
    for (const v of variants) {
      const c = ctx.upload(c0);
      const ok = attempt(`check ${ta}${tb} ${v.name}`, () => {
        lastEntry = '';
        gemmCuda(dev, { transA: ta, transB: tb, alpha: -1, a: strided(a, { rows: ar, cols: ac, count: 1 }), b: strided(b, { rows: br, cols: bc, count: 1 }), beta: 1, c: strided(c, { rows: m, cols: n, count: 1 }) }, tmaOptions(v));
        const got = dev.download(c);
        let err = 0; for (let i = 0; i < got.length; i++) err = Math.max(err, Math.abs(got[i] - want[i]));
        const rel = err / (k * 2.2e-16 * scale);
        const ranTma = lastEntry.startsWith('gemm_tma_');
        if (!(rel < 1) || !ranTma) wrong.push(`${v.id} ${v.name}: error ${rel.toExponential(2)} x k eps, ran ${lastEntry}`);
        return rel < 1 && ranTma;
      });
      if (ok) passed.push(v);
      c.dispose();
    }
    for (const x of [a, b, ref]) x.dispose();
    good.set(`${ta}${tb}`, passed);
    console.log(`check ${ta}${tb}: ${passed.length} of ${variants.length} right${wrong.length > 0 ? `; WRONG: ${wrong.join('; ')}` : ''}`);
  }
  console.log(`checks done (${seconds().toFixed(0)} s)`);
}

// 3. Timings. One warm-up, then the median of 5 (CUDA events around each call).
const median = (f) => { f(); const ms = []; for (let r = 0; r < 5; r++) ms.push(ctx.time(f)); ms.sort((x, y) => x - y); return ms[2]; };
const rows = [];
let skipped = 0;
function row(title, op, k, n, flops, vendor, ours) {
  if (seconds() > LIMIT_S) { skipped++; return; }
  const tf = (ms) => (ms === undefined ? undefined : flops / ms / 1e9);
  const cublas = tf(attempt('cuBLAS', () => median(vendor)));
  const mma = tf(attempt('mma', () => median(() => ours(undefined))));
  const tma = new Map();
  for (const v of good.get(op) ?? []) {
    const opts = tmaOptions(v);
    const t = tf(attempt(v.name, () => { lastEntry = ''; const ms = median(() => ours(opts)); return lastEntry.startsWith('gemm_tma_') ? ms : undefined; }));
    if (t !== undefined) tma.set(v.id, t);
  }
  rows.push({ title, op, square: k === n, cublas, mma, tma });
  const best = [...tma].sort((x, y) => y[1] - x[1])[0];
  console.log(`${title} (${seconds().toFixed(0)} s): cuBLAS ${cublas?.toFixed(1)}, mma ${mma?.toFixed(1)}, best ${best ? `${best[0]} ${best[1].toFixed(1)}` : '-'} TF/s`);
}

// cuBLAS's first call (handle and workspace) before any timing.
{
  const x = ctx.upload(randomMatrices('float64', 256, 256, 1, rng));
  blas.gemmStridedBatched('float64', 'N', 'N', 256, 256, 256, 1, x, 256, 65536, x, 256, 65536, 0, x, 256, 65536, 1);
  device.synchronize();
  x.dispose();
}
const chunk = randomMatrices('float64', 4096, 4096, 1, rng);
for (const n of sizes) {
  if (seconds() > LIMIT_S) { skipped += ops.length * (1 + (n === middle ? extraKs.length : 0)); continue; }
  // One n x n matrix uploaded three times: A, B, C (the timings need no distinct values), tiled
  // from 2^24 random doubles (drawing 16384^2 in JavaScript takes the better part of a minute).
  const host = new Float64Array(n * n);
  for (let at = 0; at < host.length; at += chunk.length) host.set(chunk.subarray(0, Math.min(chunk.length, host.length - at)), at);
  const a = ctx.upload(host), b = ctx.upload(host), c = ctx.upload(host);
  const C = strided(c, { rows: n, cols: n, count: 1 });
  for (const k of [n, ...(n === middle ? extraKs : [])]) {
    // k < n: A and B are views of the first n k elements of the n x n buffers (ld = their rows).
    for (const [ta, tb] of ops) {
      const [ar, ac] = stored(ta, n, k), [br, bc] = stored(tb, k, n);
      const A = strided(a, { rows: ar, cols: ac, count: 1 }), B = strided(b, { rows: br, cols: bc, count: 1 });
      row(`${ta}${tb} ${n} k ${k}`, `${ta}${tb}`, k, n, 2 * n * n * k,
        () => blas.gemmStridedBatched('float64', ta, tb, n, n, k, -1, a, ar, ar * ac, b, br, br * bc, 1, c, n, n * n, 1),
        (opts) => gemmCuda(dev, { transA: ta, transB: tb, alpha: -1, a: A, b: B, beta: 1, c: C }, opts));
    }
  }
  for (const x of [a, b, c]) x.dispose();
}

// The table: TF/s (ratio to cuBLAS); the best variant per row.
const fmt = (t, ref) => (t === undefined ? '-' : `${t.toFixed(1)}${ref === undefined ? '' : ` (${(t / ref).toFixed(2)})`}`);
console.log(`\n${variants.map((v) => `${v.id}: ${v.name}`).join('; ')}\n`);
console.log(`| product | cuBLAS | mma | ${variants.map((v) => v.id).join(' | ')} | best |`);
console.log(`| --- | ---: | ---: | ${variants.map(() => '---:').join(' | ')} | --- |`);
for (const r of rows) {
  const best = [...r.tma].sort((x, y) => y[1] - x[1])[0];
  const bestText = best === undefined ? '-' : `${best[0]} ${variants.find((v) => v.id === best[0]).name}: ${fmt(best[1], r.cublas)}`;
  console.log(`| ${r.title} | ${fmt(r.cublas)} | ${fmt(r.mma, r.cublas)} | ${variants.map((v) => fmt(r.tma.get(v.id), r.cublas)).join(' | ')} | ${bestText} |`);
}
// Per op pair, over its k = n rows: the variant whose worst ratio to cuBLAS is highest (a route's candidate: 0.95 is the target).
console.log('');
for (const [ta, tb] of ops) {
  const op = `${ta}${tb}`;
  const square = rows.filter((r) => r.op === op && r.square && r.cublas !== undefined);
  let pick;
  for (const v of variants) {
    const ratios = square.map((r) => (r.tma.get(v.id) ?? 0) / r.cublas);
    const worst = ratios.length === 0 ? 0 : Math.min(...ratios);
    if (pick === undefined || worst > pick.worst) pick = { v, worst, ratios };
  }
  if (pick !== undefined) console.log(`${op} k = n: ${pick.v.id} ${pick.v.name} worst ${pick.worst.toFixed(2)} of cuBLAS (${pick.ratios.map((x) => x.toFixed(2)).join(', ')}) ${JSON.stringify(pick.v.config)}`);
}
console.log(`done in ${seconds().toFixed(0)} s${skipped > 0 ? `; ${skipped} rows not timed (past ${LIMIT_S} s)` : ''}`);
ctx.dispose();
