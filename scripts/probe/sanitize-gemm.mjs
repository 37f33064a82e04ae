// The TMA-fed FP64 GEMM's route configurations (generate-tma.ts: the pipelined 64 x 64 kernel with
// the refill one and two steps behind, the 128 x 128 kernels of the H200's routes, 128 x 64) and the
// blocked bidiagonal reduction's panels (bidiag/generate-panel.ts), once each at small ragged shapes,
// for compute-sanitizer (memcheck, racecheck). Each TMA product is compared with the mma kernel's
// (the default route of the same request) within k eps max|C|; the panels' gesvd with the unblocked
// reduction's singular values within n eps max s. Exits non-zero on a mismatch, an unexpected info or
// a kernel that fell back from the TMA design.
// Usage: compute-sanitizer --tool memcheck|racecheck node scripts/probe/sanitize-gemm.mjs
import { open, strided } from '../../dist/src/index.js';
import { gemmCuda } from '../../dist/src/cuda/kernels/gemm/index.js';
import { gesvdBidiagCuda } from '../../dist/src/cuda/kernels/bidiag/index.js';
import { tuningFor } from '../../dist/src/cuda/model/tuning/index.js';
import { randomMatrices, Random } from '../../dist/src/bench/data.js';

process.env.MYRIAD_QUICK_FIRST ??= '0';
const ctx = await open({ backend: 'cuda' });
const device = ctx.deviceBackend.device;
let lastEntry = '';
const dev = new Proxy(device, {
  get: (t, p) => {
    if (p === 'kernel') return (src) => new Proxy(t.kernel(src), { get: (k, q) => (q === 'launch' ? (...args) => { lastEntry = src.entry; k.launch(...args); } : Reflect.get(k, q, k)) });
    const v = Reflect.get(t, p, t);
    return typeof v === 'function' ? v.bind(t) : v;
  },
});
const base = tuningFor(dev.info.arch, 'gemm');
const rng = new Random(23);
let bad = 0;
const view = (data, rows, cols, count) => strided(data, { rows, cols, count });

const CONFIGS = [
  { bm: 64, bn: 64, wm: 2, wn: 2, tileGroup: 16, stages: 4, pipelined: true },
  { bm: 64, bn: 64, wm: 2, wn: 2, tileGroup: 16, stages: 4, pipelined: true, refillLag: 2 },
  { bm: 128, bn: 128, wm: 2, wn: 4, tileGroup: 16, stages: 4, mmaK: 16 },
  { bm: 128, bn: 128, wm: 4, wn: 2, tileGroup: 16, stages: 4 },
  { bm: 128, bn: 64, wm: 2, wn: 2, stages: 4 },
];
// Ragged: m, n not multiples of the tiles, k not a multiple of the stage depth; even leading dimensions (TMA).
const m = 202, n = 138, k = 70, count = 2;
for (const [ta, tb] of [['N', 'N'], ['N', 'T'], ['T', 'N']]) {
  const [ar, ac] = ta === 'N' ? [m, k] : [k, m];
  const [br, bc] = tb === 'N' ? [k, n] : [n, k];
  const a = ctx.upload(randomMatrices('float64', ar, ac, count, rng)), b = ctx.upload(randomMatrices('float64', br, bc, count, rng));
  const c0 = randomMatrices('float64', m, n, count, rng);
  const ref = ctx.upload(c0);
  const req = (c) => ({ transA: ta, transB: tb, alpha: -1, a: view(a, ar, ac, count), b: view(b, br, bc, count), beta: 1, c: view(c, m, n, count) });
  gemmCuda(dev, req(ref));
  const want = ctx.download(ref);
  let scale = 0; for (const v of want) scale = Math.max(scale, Math.abs(v));
  for (const config of CONFIGS) {
    const c = ctx.upload(c0);
    gemmCuda(dev, req(c), { variant: 'tma', tuning: { ...base, tma: [{ maxDim: Infinity, config }] } });
    const got = ctx.download(c);
    let err = 0; for (let i = 0; i < got.length; i++) err = Math.max(err, Math.abs(got[i] - want[i]));
    const ok = err / (k * 2.2e-16 * scale) < 1 && lastEntry.startsWith('gemm_tma_');
    if (!ok) bad++;
    console.log(`gemm ${ta}${tb} ${m}x${n}x${k} x ${count} ${JSON.stringify(config)}: ${ok ? 'ok' : `WRONG (${err}, ${lastEntry})`}`);
    c.dispose();
  }
  for (const x of [a, b, ref]) x.dispose();
}

// gesvd's blocked reduction (panels of nb columns) against the unblocked one, both dtypes.
for (const dtype of ['float64', 'float32']) {
  const nn = 100, cnt = 2, size = nn * nn * cnt;
  const a0 = ctx.upload(randomMatrices(dtype, nn, nn, cnt, rng));
  const run = (force) => {
    const a = ctx.alloc(dtype, size), s = ctx.alloc(dtype, nn * cnt), u = ctx.alloc(dtype, size), vt = ctx.alloc(dtype, size), info = ctx.alloc('int32', cnt);
    dev.copy(a0, 0, a, 0, size);
    gesvdBidiagCuda(dev, { a: view(a, nn, nn, cnt), s: strided(s, { rows: nn, cols: 1, count: cnt }), u: view(u, nn, nn, cnt), vt: view(vt, nn, nn, cnt), info }, { force });
    const out = { s: ctx.download(s), info: [...ctx.download(info)] };
    for (const x of [a, s, u, vt, info]) x.dispose();
    return out;
  };
  const ub = run({ reduction: 'unblocked' }), pn = run({ reduction: 'panels', nb: 32 });
  let err = 0, top = 0;
  for (let i = 0; i < ub.s.length; i++) { err = Math.max(err, Math.abs(ub.s[i] - pn.s[i])); top = Math.max(top, Math.abs(ub.s[i])); }
  const eps = dtype === 'float64' ? 2.2e-16 : 1.2e-7;
  const ok = err <= 30 * nn * eps * top && ub.info.every((x) => x === 0) && pn.info.every((x) => x === 0);
  if (!ok) bad++;
  console.log(`gesvd panels ${dtype} ${nn} x ${cnt}: ${ok ? 'ok' : `WRONG (${err / (nn * eps * top)} n eps, info ${ub.info} / ${pn.info})`}`);
  a0.dispose();
}
await ctx.synchronize();
ctx.dispose();
if (bad > 0) process.exit(1);
