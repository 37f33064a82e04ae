// syev with vectors, the tridiagonal family's inverse-iteration design (reduce, vectors by bisection
// and dstein, V := Q V by ormqr, store: kernels/tridiag/generate-stein.ts) against the QL designs
// (one kernel, split) and cusolverDnXsyevBatched; its tridiagonalization unblocked (dsytd2 in one
// kernel) and blocked (panels and GEMMs) forced; values only as routed and on the one-kernel design, per dtype, ms (median of 5 after 2 warm-ups; A reset
// from a pristine copy before each timed call, outside the timing); values only beside. Then the
// inverse-iteration design's launches (unblocked reduction) timed one by one (by hand on a workspace of this
// script's own, one chunk), and the largest ||V^T V - I|| / (n eps) and ||A V - V W|| / (n eps ||A||)
// over the first matrices. The table's steinFrom (tuning/tridiag-default.ts) comes from these rows.
//   node scripts/probe/syev-stein.mjs [float64|float32|both] [64:2000,128:500,...]
import { strided } from '../../dist/src/index.js';
import { syevProbe } from './syev-setup.mjs';
import { randomSymmetric } from '../../dist/src/bench/data.js';
import { syevTridiagCuda, planSyevStein, syevTridiagSource, tridiagSteinSource, tridiagLayout, steinSlice, steinParts } from '../../dist/src/cuda/kernels/tridiag/index.js';
import { ormqrCuda } from '../../dist/src/cuda/kernels/ormqr/index.js';
import { tuningFor } from '../../dist/src/cuda/model/tuning/index.js';
import { arg } from '../../dist/src/cuda/runtime/types.js';

const { ctx, dev, solver, rng, dtypes, cases, median } = await syevProbe('33:10000,48:5000,64:2000,96:1000,128:500,192:200,256:100,384:40,512:20');
const tuning = tuningFor(dev.info.arch, 'tridiag');
for (const dtype of dtypes) for (const [n, count] of cases) {
  const host = randomSymmetric(dtype, n, count, rng);
  const a0 = ctx.upload(host), a = ctx.alloc(dtype, n * n * count), w = ctx.alloc(dtype, n * count), info = ctx.alloc('int32', count);
  const timed = (f) => median(() => { dev.copy(a0, 0, a, 0, n * n * count); return ctx.time(f); });
  const req = (jobz) => ({ jobz, uplo: 'lower', a: strided(a, { rows: n, cols: n, count }), w: strided(w, { rows: n, cols: 1, count }), info });
  const t = (force, jobz = 'vectors') => { try { return timed(() => syevTridiagCuda(dev, req(jobz), { force })).toFixed(3); } catch (e) { return `(${e.message.slice(0, 60)})`; } };
  const enqueue = () => { const ms = []; for (let r = 0; r < 5; r++) { dev.copy(a0, 0, a, 0, n * n * count); dev.synchronize(); const t0 = performance.now(); syevTridiagCuda(dev, req('vectors'), { force: { stein: true } }); ms.push(performance.now() - t0); dev.synchronize(); } ms.sort((x, y) => x - y); return ms[2].toFixed(3); };
  const row = [`stein ${t({ stein: true })} (host enqueue ${enqueue()})`, `dsytd2 ${t({ stein: true, steinPanel: false })}`, `panels ${t({ stein: true, steinPanel: true })}`, `one kernel ${t({ stein: false, split: false })}`, `split ${t({ stein: false, split: true })}`, `values ${t({}, 'values')} (one kernel ${t({ stein: false }, 'values')})`];
  if (solver.hasSyevBatched) {
    const b = solver.syevBatched(dtype, n, a, w, info, count);
    try { row.push(`vendor ${timed(() => b.run()).toFixed(3)}`); } finally { b.dispose(); }
  }
  // Accuracy of the stein design on the first matrices (float64 arithmetic on the host).
  let acc = '';
  try {
    dev.copy(a0, 0, a, 0, n * n * count);
    syevTridiagCuda(dev, req('vectors'), { force: { stein: true } });
    const V = dev.download(a), W = dev.download(w), I = dev.download(info);
    const eps = dtype === 'float64' ? 2 ** -52 : 2 ** -23;
    let orth = 0, res = 0, bad = 0;
    for (let k = 0; k < Math.min(count, 3); k++) {
      if (I[k] !== 0) bad++;
      const o = k * n * n;
      let anorm = 0;
      for (let e = 0; e < n * n; e++) anorm += host[o + e] ** 2;
      anorm = Math.sqrt(anorm);
      for (let j = 0; j < n; j++) {
        for (let i = 0; i < n; i++) {
          let s = 0, r = 0;
          for (let l = 0; l < n; l++) { s += V[o + l + i * n] * V[o + l + j * n]; r += (l >= i ? host[o + l + i * n] : host[o + i + l * n]) * V[o + l + j * n]; }
          orth = Math.max(orth, Math.abs(s - (i === j ? 1 : 0)) / (n * eps));
          res = Math.max(res, Math.abs(r - W[k * n + j] * V[o + i + j * n]) / (n * eps * anorm));
        }
      }
    }
    acc = ` | max |V^T V - I| / (n eps) ${orth.toFixed(2)}, max |AV - VW| / (n eps ||A||) ${res.toFixed(3)}${bad ? `, info != 0 on ${bad}` : ''}`;
  } catch (e) { acc = ` | check: (${e.message.slice(0, 60)})`; }
  // The four launches one by one, on one chunk of this script's own slices.
  const p = planSyevStein({ dtype, n, uplo: 'lower', vectors: true, kind: 'strided', sharedLimit: dev.info.sharedPerBlockOptin - 1024 }, tuning, { force: { steinPanel: false } });
  const l = steinSlice(n);
  let parts = '';
  let ws;
  try {
    ws = dev.alloc('float64', p.slice * count);
    const [red, val, vec, sto] = [syevTridiagSource(p.reduce), tridiagSteinSource(p.values), tridiagSteinSource(p.vectors), syevTridiagSource(p.store)].map((s) => dev.kernel(s));
    const grid = [count * steinParts(p.vectors), 1, 1];
    const head = [arg.ptr(a), arg.i64(0), arg.i64(n * n), arg.i32(n), arg.ptr(w), arg.i64(0), arg.i64(n), arg.i32(n)];
    const tail = [arg.ptr(info), arg.ptr(0n), arg.i32(count)];
    const part = (rows, cols, offset) => ({ kind: 'strided', data: ws, rows, cols, count, ld: n, stride: p.slice, offset, order: 'col' });
    const launch = {
      reduce: () => red.launch({ grid: [count, 1, 1], block: [p.reduce.threads, 1, 1], sharedBytes: tridiagLayout(p.reduce).sharedBytes }, [...head, arg.ptr(ws), arg.i64(0), ...tail]),
      values: () => val.launch({ grid, block: [p.values.threads, 1, 1], sharedBytes: 0 }, [arg.ptr(ws), arg.i64(0), arg.i32(count)]),
      vectors: () => vec.launch({ grid, block: [p.vectors.threads, 1, 1], sharedBytes: 0 }, [arg.ptr(ws), arg.i64(0), arg.i32(count)]),
      ormqr: () => ormqrCuda(dev, { side: 'left', trans: 'N', a: part(n - 1, n - 2, 1), tau: part(n - 2, 1, l.tau), c: part(n - 1, n, l.v + 1) }),
      store: () => sto.launch({ grid: [count, 1, 1], block: [p.store.threads, 1, 1], sharedBytes: tridiagLayout(p.store).sharedBytes }, [...head, arg.ptr(ws), arg.i64(0), ...tail]),
    };
    const order = ['reduce', 'values', 'vectors', 'ormqr', 'store'];
    const ms = {};
    for (const k of order) {
      const before = order.slice(0, order.indexOf(k));
      ms[k] = median(() => { dev.copy(a0, 0, a, 0, n * n * count); for (const b of before) launch[b](); return ctx.time(launch[k]); });
    }
    parts = ` | ${order.map((k) => `${k} ${ms[k].toFixed(3)}`).join(', ')}`;
  } catch (e) {
    parts = ` | parts: (${e.message.slice(0, 80)})`;
  } finally {
    ws?.dispose();
  }
  console.log(`${dtype} n=${n} x ${count} (ms): ${row.join(', ')}${acc}${parts}`);
  for (const x of [a0, a, w, info]) x.dispose();
}
solver.dispose();
ctx.dispose();
