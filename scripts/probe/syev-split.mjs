// syev with vectors, the tridiagonal family's split design (record the chain's
// rotations, apply them by blocks of rows over all SMs, finish: kernels/tridiag/generate-apply.ts)
// against its one-kernel design and cusolverDnXsyevBatched, per dtype, ms (median of 5 after 2
// warm-ups; A reset from a pristine copy before each timed call, outside the timing). Columns:
// the one-kernel design (forced), the split design as planned, with 8 and 32 apply rows, with one
// rotation at a time (applyUnroll 1), the vendor; then the split design's three kernels timed one by one (record, apply, finish:
// launched here by hand on a workspace of this script's own, one chunk) and the rotations recorded
// per matrix (mean / n^2; chains resumed by the finish kernel). The table's splitFrom, applyRows
// and capFactor (tuning/tridiag-default.ts) come from these rows.
//   node scripts/probe/syev-split.mjs [float64|float32|both] [64:2000,128:500,...]
import { strided } from '../../dist/src/index.js';
import { syevProbe } from './syev-setup.mjs';
import { randomSymmetric } from '../../dist/src/bench/data.js';
import { syevTridiagCuda, planSyevSplit, syevTridiagSource, tridiagApplySource, tridiagLayout, applySharedBytes, splitSlice } from '../../dist/src/cuda/kernels/tridiag/index.js';
import { tuningFor } from '../../dist/src/cuda/model/tuning/index.js';
import { arg } from '../../dist/src/cuda/runtime/types.js';

const { ctx, dev, solver, rng, dtypes, cases, median } = await syevProbe('64:2000,96:1000,128:500,192:200,256:100,384:40,512:20');
const tuning = tuningFor(dev.info.arch, 'tridiag');
for (const dtype of dtypes) for (const [n, count] of cases) {
  const host = randomSymmetric(dtype, n, count, rng);
  const a0 = ctx.upload(host), a = ctx.alloc(dtype, n * n * count), w = ctx.alloc(dtype, n * count), info = ctx.alloc('int32', count);
  const timed = (f) => median(() => { dev.copy(a0, 0, a, 0, n * n * count); return ctx.time(f); });
  const req = { jobz: 'vectors', uplo: 'lower', a: strided(a, { rows: n, cols: n, count }), w: strided(w, { rows: n, cols: 1, count }), info };
  const t = (force) => { try { return timed(() => syevTridiagCuda(dev, req, { force })).toFixed(3); } catch (e) { return `(${e.message.slice(0, 60)})`; } };
  const row = [`one kernel ${t({ split: false })}`, `split ${t({ split: true })}`, `r8 ${t({ split: true, applyRows: 8 })}`, `r32 ${t({ split: true, applyRows: 32 })}`,
    `u1 ${t({ split: true, applyUnroll: 1 })}`];
  if (solver.hasSyevBatched) {
    const b = solver.syevBatched(dtype, n, a, w, info, count);
    try { row.push(`vendor ${timed(() => b.run()).toFixed(3)}`); } finally { b.dispose(); }
  }
  // The three kernels one by one, on one chunk of this script's own slices.
  const p = planSyevSplit({ dtype, n, uplo: 'lower', vectors: true, kind: 'strided', sharedLimit: dev.info.sharedPerBlockOptin - 1024 }, tuning);
  const slice = splitSlice(n, p.apply.cap);
  let parts = '';
  let ws;
  try {
    ws = dev.alloc('float64', slice.slice * count);
    const [rec, app, fin] = [syevTridiagSource(p.record), tridiagApplySource(p.apply), syevTridiagSource(p.finish)].map((s) => dev.kernel(s));
    const head = [arg.ptr(a), arg.i64(0), arg.i64(n * n), arg.i32(n), arg.ptr(w), arg.i64(0), arg.i64(n), arg.i32(n)];
    const tail = [arg.ptr(info), arg.ptr(0n), arg.i32(count)];
    const launch = {
      record: () => rec.launch({ grid: [count, 1, 1], block: [p.record.threads, 1, 1], sharedBytes: tridiagLayout(p.record).sharedBytes }, [...head, arg.ptr(ws), arg.i64(0), ...tail]),
      apply: () => app.launch({ grid: [Math.ceil(n / p.apply.rows), count, 1], block: [p.apply.rows, 1, 1], sharedBytes: applySharedBytes(p.apply) }, [arg.ptr(ws), arg.i64(0), arg.i32(count)]),
      finish: () => fin.launch({ grid: [count, 1, 1], block: [p.finish.threads, 1, 1], sharedBytes: tridiagLayout(p.finish).sharedBytes }, [...head, arg.ptr(ws), arg.i64(0), ...tail]),
    };
    // Each part after the ones before it (apply needs the record's slices; finish the applied Z).
    const ms = {};
    for (const part of ['record', 'apply', 'finish']) {
      const before = ['record', 'apply', 'finish'].slice(0, ['record', 'apply', 'finish'].indexOf(part));
      ms[part] = median(() => { dev.copy(a0, 0, a, 0, n * n * count); for (const b of before) launch[b](); return ctx.time(launch[part]); });
    }
    const rotations = [];
    const all = dev.download(ws);
    const ints = new Int32Array(all.buffer);
    let resumed = 0;
    for (let k = 0; k < count; k++) {
      const h = (k * slice.slice + slice.hdr) * 2;
      rotations.push(ints[h] / (n * n));
      if (ints[h + 1] === 0) resumed++;
    }
    const mean = rotations.reduce((x, y) => x + y, 0) / count;
    parts = ` | record ${ms.record.toFixed(3)}, apply ${ms.apply.toFixed(3)} (rows ${p.apply.rows}), finish ${ms.finish.toFixed(3)}; rotations ${mean.toFixed(3)} n^2 (max ${Math.max(...rotations).toFixed(3)}), ${resumed} resumed`;
  } catch (e) {
    parts = ` | parts: (${e.message.slice(0, 80)})`;
  } finally {
    ws?.dispose();
  }
  console.log(`${dtype} n=${n} x ${count} (ms): ${row.join(', ')}${parts}`);
  for (const x of [a0, a, w, info]) x.dispose();
}
solver.dispose();
ctx.dispose();
