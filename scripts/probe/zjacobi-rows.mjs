// Complex heev with vectors, n <= 32: the rows design (zjacobi/generate-heev-rows.ts: a lane per row, A
// and V in registers, or V in shared memory where the plan puts it) against the shared-memory warp design
// and cusolverDnXsyevBatched on the complex type (route 'cusolver'), on the bench's random Hermitian
// matrices (lower) at the bench's counts, A restored from its pristine copy before every call, outside
// the timing. Each variant runs once before its timing with MYRIAD_QUICK_FIRST=0 (its optimised build
// compiled then, not timed); CUDA events, the warm-up of tune/measure.ts, the median of 5. Each design's
// eigenvalues against the rows design's (max |dw| / (n eps max |w|)) and its count of info != 0, as a
// first check. 'rows-shared' and 'rows-registers' force V's place (where the plan already puts V there
// the row repeats the rows design). Prints a markdown table.
//   MYRIAD_QUICK_FIRST=0 node scripts/probe/zjacobi-rows.mjs
// SIZES=n[:count],... (default 9,12,16,24,32 at the bench's counts) DTYPES=complex128,complex64
// DESIGNS=rows,warp,cusolver,rows-shared,rows-registers (default rows,warp,cusolver,rows-shared)
import { open, strided } from '../../dist/src/index.js';
import { Random } from '../../dist/src/bench/data.js';
import { COMPLEX_WORKLOADS } from '../../dist/src/bench/complex-workloads.js';
import { defaultBatch } from '../../dist/src/bench/run.js';
import { complexHeevCuda } from '../../dist/src/cuda/kernels/zjacobi/index.js';
import { timeMs } from '../../dist/src/cuda/tune/measure.js';

if (process.env.MYRIAD_QUICK_FIRST !== '0') console.error('MYRIAD_QUICK_FIRST is not 0: a first call may time a quick build');
const ctx = await open({ backend: 'cuda' });
const backend = ctx.deviceBackend;
const dev = backend.device;
const REPEATS = 5;
const designs = (process.env.DESIGNS ?? 'rows,warp,cusolver,rows-shared').split(',');
const force = {
  rows: { design: 'rows' }, warp: { design: 'warp' }, 'rows-shared': { design: 'rows', vShared: true }, 'rows-registers': { design: 'rows', vShared: false },
};

const rows = [];
for (const dtype of (process.env.DTYPES ?? 'complex128,complex64').split(',')) {
  for (const spec of (process.env.SIZES ?? '9,12,16,24,32').split(',')) {
    const [n, given] = spec.split(':').map(Number);
    const count = given || defaultBatch('heev', dtype, n, 64 << 20);
    const p = COMPLEX_WORKLOADS.heev.prepare(ctx, dtype, n, count, new Random(n));
    const info = ctx.alloc('int32', count);
    const eps = dtype === 'complex128' ? 2 ** -52 : 2 ** -23;
    const row = { dtype, n, count };
    let w0;
    try {
      for (const design of designs) {
        let run;
        if (design === 'cusolver') {
          run = () => { backend.force = { heev: 'cusolver' }; try { p.run(); } finally { backend.force = {}; } };
        } else {
          const a = strided(p.arrays.a, { rows: n, cols: n, count, dtype });
          const w = strided(p.arrays.w, { rows: n, cols: 1, count });
          run = () => complexHeevCuda(dev, { jobz: 'vectors', uplo: 'lower', a, w, info }, { force: force[design] });
        }
        try {
          p.reset(); run(); dev.synchronize?.();
        } catch (e) {
          console.error(`${dtype} n=${n} ${design}: ${e.message}`);
          continue;
        }
        const ms = timeMs(dev, run, REPEATS, () => p.reset());
        const wv = dev.download(p.arrays.w);
        let bad = 0;
        if (design !== 'cusolver') for (const x of dev.download(info)) if (x !== 0) bad++;
        let dw = 0;
        if (w0 === undefined) w0 = wv;
        else for (let k = 0; k < count; k++) {
          const top = Math.max(Math.abs(w0[k * n]), Math.abs(w0[k * n + n - 1])) || 1;
          for (let j = 0; j < n; j++) dw = Math.max(dw, Math.abs(wv[k * n + j] - w0[k * n + j]) / (n * eps * top));
        }
        row[design] = { ms, bad, dw };
      }
    } finally {
      p.dispose();
      info.dispose();
    }
    rows.push(row);
    console.error(`${dtype} n=${n} x ${count}: ${designs.filter((d) => row[d]).map((d) => `${d} ${row[d].ms.toFixed(3)} ms`).join(', ')}`);
  }
}

const shown = designs.filter((d) => rows.some((r) => r[d]));
const first = shown[0];
const others = shown.filter((d) => d !== first);
const cell = (r, d) => (r[d] ? r[d].ms.toFixed(3) : '-');
const ratio = (r, d) => (r[d] && r[first] ? (r[d].ms / r[first].ms).toFixed(2) : '-');
console.log(`| dtype | n | count | ${shown.map((d) => `${d} ms`).join(' | ')} | ${others.map((d) => `${d} / ${first}`).join(' | ')} | info != 0 (${shown.filter((d) => d !== 'cusolver').join(' / ')}) | max dw vs ${first} (n eps) |`);
console.log(`|---|---|---|${shown.map(() => '---|').join('')}${others.map(() => '---|').join('')}---|---|`);
for (const r of rows) {
  console.log(`| ${r.dtype} | ${r.n} | ${r.count} | ${shown.map((d) => cell(r, d)).join(' | ')} | ${others.map((d) => ratio(r, d)).join(' | ')} | ${shown.filter((d) => d !== 'cusolver').map((d) => (r[d] ? r[d].bad : '-')).join(' / ')} | ${others.map((d) => (r[d] ? r[d].dw.toFixed(2) : '-')).join(' / ')} |`);
}
ctx.dispose();
