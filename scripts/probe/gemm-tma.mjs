// The TMA-fed FP64 tensor-core GEMM (generate-tma.ts) beside the current mma kernel (the planned
// route of gemmCuda) and cuBLAS's dgemmStridedBatched: first each tma configuration against cuBLAS
// on a ragged batch (every op pair), then CUDA-event timings (2 warm-ups, median of 5) on one C of
// n = 4096, 8192, 16384 (NN and NT; k = n and k = 512, beta = 1: the trailing update's form) and on
// batched squares n = 128, 256, 512 of about 1 GB (beta = 0). A configuration that fails to compile
// or launch is reported and the probe goes on. Prints TFLOP/s and the ratio to cuBLAS.
// Usage: node scripts/probe/gemm-tma.mjs [sizes=4096,8192,16384] [squares=128,256,512]
// CONFIGS='[[bm, bn, wm, wn, stages, tileGroup, producerWarp, pipelined, refillLag], ...]' replaces the list below;
// KS='512' replaces the depths of the one-C rows (default: n and 512).
import { open, strided } from '../../dist/src/index.js';
import { gemmCuda } from '../../dist/src/cuda/kernels/gemm/index.js';
import { tuningFor } from '../../dist/src/cuda/model/tuning/index.js';
import { Cublas } from '../../dist/src/cuda/baselines/index.js';
import { randomMatrices, Random } from '../../dist/src/bench/data.js';

// Every call waits for the optimised build: no timing of a quick build (runtime/tiered.ts).
process.env.MYRIAD_QUICK_FIRST ??= '0';
const sizes = (process.argv[2] ?? '4096,8192,16384').split(',').map(Number);
const squares = (process.argv[3] ?? '128,256,512').split(',').map(Number);
const ctx = await open({ backend: 'cuda' });
const device = ctx.deviceBackend.device;
// The device as the launcher sees it, recording the entry of each kernel launched (a tma
// configuration that fell back to the mma kernel must not be timed as tma).
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
const t0 = performance.now();
const elapsed = () => `${((performance.now() - t0) / 1000).toFixed(0)} s`;

const cfg = (bm, bn, wm, wn, stages, tileGroup, producerWarp, pipelined, refillLag) => ({ bm, bn, wm, wn, stages, ...(tileGroup ? { tileGroup } : {}), ...(producerWarp ? { producerWarp: true } : {}), ...(pipelined ? { pipelined: true } : {}), ...(refillLag === 2 ? { refillLag: 2 } : {}) });
let configs = [
  cfg(128, 128, 2, 4, 4, 16), cfg(128, 128, 2, 4, 3, 16), cfg(128, 128, 2, 4, 5, 16), cfg(128, 128, 4, 2, 4, 16),
  cfg(128, 64, 2, 2, 4), cfg(128, 64, 2, 2, 6), cfg(128, 64, 2, 2, 4, 0, true),
];
if (process.env.CONFIGS) configs = JSON.parse(process.env.CONFIGS).map((c) => cfg(...c));
const label = (c) => `tma ${c.bm}x${c.bn} w${c.wm}x${c.wn} s${c.stages}${c.tileGroup ? ` g${c.tileGroup}` : ''}${c.producerWarp ? ' p' : ''}${c.pipelined ? ' F' : ''}${c.refillLag === 2 ? ' L2' : ''}`;
const tmaOptions = (c) => ({ variant: 'tma', tuning: { ...base, tma: [{ maxDim: Infinity, config: c }] } });
/** Median of 5 after 2 warm-ups (CUDA events around each call). */
const median = (f) => { f(); f(); const ms = []; for (let r = 0; r < 5; r++) ms.push(ctx.time(f)); ms.sort((x, y) => x - y); return ms[2]; };
const failed = new Set();
const attempt = (what, f) => {
  try { return f(); } catch (e) { console.log(`  ${what} failed: ${String(e.message).split('\n')[0]}`); return undefined; }
};
const rng = new Random(11);
const upload = (rows, cols, count) => ctx.upload(randomMatrices('float64', rows, cols, count, rng));
const view = (data, rows, cols, count) => strided(data, { rows, cols, count });

// Correctness: m x n x k ragged, a batch of 2, beta = 1, every op pair; max |ours - cuBLAS| / (k eps max |C|).
{
  const m = 1100, n = 1000, k = 334, count = 2;   // even leading dimensions: TMA addresses every op pair (an odd one falls back to mma)
  for (const [ta, tb] of [['N', 'N'], ['N', 'T'], ['T', 'N'], ['T', 'T']]) {
    const [ar, ac] = ta === 'N' ? [m, k] : [k, m];
    const [br, bc] = tb === 'N' ? [k, n] : [n, k];
    const a = upload(ar, ac, count), b = upload(br, bc, count);
    const c0 = randomMatrices('float64', m, n, count, rng);
    const ref = ctx.upload(c0);
    blas.gemmStridedBatched('float64', ta, tb, m, n, k, -1, a, ar, ar * ac, b, br, br * bc, 1, ref, m, m * n, count);
    const want = dev.download(ref);
    let scale = 0; for (const v of want) scale = Math.max(scale, Math.abs(v));
    for (const config of configs) {
      const c = ctx.upload(c0);
      attempt(`check ${ta}${tb} ${label(config)}`, () => {
        gemmCuda(dev, { transA: ta, transB: tb, alpha: -1, a: view(a, ar, ac, count), b: view(b, br, bc, count), beta: 1, c: view(c, m, n, count) }, tmaOptions(config));
        const got = dev.download(c);
        let err = 0; for (let i = 0; i < got.length; i++) err = Math.max(err, Math.abs(got[i] - want[i]));
        const rel = err / (k * 2.2e-16 * scale);
        const ranTma = lastEntry.startsWith('gemm_tma_');
        if (!(rel < 1) || !ranTma) failed.add(label(config));
        console.log(`check ${ta}${tb} ${label(config).padEnd(30)} ${rel < 1 ? 'ok' : 'WRONG'} (${rel.toExponential(2)}) ${lastEntry}${ranTma ? '' : ': NOT the tma kernel'}`);
        return true;
      }) ?? failed.add(label(config));   // threw (compile or launch)
      c.dispose();
    }
    for (const x of [a, b, ref]) x.dispose();
  }
}
console.log(`checks done (${elapsed()}); timing without: ${[...failed].join(', ') || 'none failed'}`);
const timed = configs.filter((c) => !failed.has(label(c)));

/** One problem: cuBLAS, the planned mma kernel, each tma configuration; TFLOP/s and the ratio to cuBLAS. */
function row(title, flops, vendor, ours) {
  const vms = attempt('cuBLAS', () => median(vendor));
  const tf = (ms) => flops / ms / 1e9;
  console.log(`${title}: cuBLAS ${vms === undefined ? '-' : `${vms.toFixed(3)} ms ${tf(vms).toFixed(1)} TF/s`}`);
  for (const [name, f] of [['mma (planned)', () => ours(undefined)], ...timed.map((c) => [label(c), () => ours(tmaOptions(c))])]) {
    const ms = attempt(name, () => median(f));
    if (ms !== undefined) console.log(`  ${name.padEnd(30)} ${ms.toFixed(3)} ms ${tf(ms).toFixed(1).padStart(5)} TF/s  ${vms === undefined ? '' : `${(vms / ms).toFixed(2)}x cuBLAS`}`);
  }
}

// One large C: C -= op(A) op(B), beta = 1, A n x k, B k x n (NN) or n x k (NT).
for (const n of sizes) {
  const c = upload(n, n, 1);
  const C = view(c, n, n, 1);
  for (const k of (process.env.KS ?? 'n,512').split(',').map((x) => (x === 'n' ? n : Number(x)))) {
    const a = upload(n, k, 1), b = upload(n, k, 1);   // B as k x n (NN) or n x k (NT): n k elements either way
    for (const tb of ['N', 'T']) {
      const B = tb === 'N' ? view(b, k, n, 1) : view(b, n, k, 1);
      const ldb = tb === 'N' ? k : n;
      row(`N${tb} one C n ${n} k ${k} (${elapsed()})`, 2 * n * n * k,
        () => blas.gemmStridedBatched('float64', 'N', tb, n, n, k, -1, a, n, n * k, b, ldb, n * k, 1, c, n, n * n, 1),
        (opts) => gemmCuda(dev, { transA: 'N', transB: tb, alpha: -1, a: view(a, n, k, 1), b: B, beta: 1, c: C }, opts));
    }
    a.dispose(); b.dispose();
  }
  c.dispose();
}

// Batched squares of about 1 GB, beta = 0.
for (const n of squares) {
  const count = Math.floor(1e9 / (3 * n * n * 8));
  const a = upload(n, n, count), b = upload(n, n, count), c = upload(n, n, count);
  for (const tb of ['N', 'T']) {
    row(`N${tb} squares n ${n} x ${count} (${elapsed()})`, 2 * n * n * n * count,
      () => blas.gemmStridedBatched('float64', 'N', tb, n, n, n, 1, a, n, n * n, b, n, n * n, 0, c, n, n * n, count),
      (opts) => gemmCuda(dev, { transA: 'N', transB: tb, alpha: 1, a: view(a, n, n, count), b: view(b, n, n, count), beta: 0, c: view(c, n, n, count) }, opts));
  }
  for (const x of [a, b, c]) x.dispose();
}
console.log(`done (${elapsed()})`);
ctx.dispose();
