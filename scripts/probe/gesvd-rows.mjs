// gesvd n x n, n <= 32, thin U and VT: the rows design (a lane per row, G and V in registers) against
// the shared-memory warp design and cuSOLVER ?gesvdjBatched (default tolerance and sweeps, as the
// bench calls it; A restored from a pristine copy before each of its calls, outside the timing), on
// the bench's random general matrices at the bench's batch counts. CUDA events, one warm-up call, the
// median of 5. Each design's singular values against the rows design's (max |ds| / (n eps max s))
// and its count of info != 0, as a first check. Prints a markdown table.
// SIZES=n[:count],... (default 9,12,16,24,32 at the bench's counts) DTYPES=float64,float32 DESIGNS=rows,warp,gesvdj
import { open, strided } from '../../dist/src/index.js';
import { Random, randomGeneral } from '../../dist/src/bench/data.js';
import { defaultBatch } from '../../dist/src/bench/run.js';
import { gesvdCuda } from '../../dist/src/cuda/kernels/jacobi/index.js';
import { Cusolver, cusolverMissing } from '../../dist/src/cuda/baselines/cusolver.js';

const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const rng = new Random(23);
const REPEATS = 5;
const designs = (process.env.DESIGNS ?? 'rows,warp,gesvdj').split(',');
const missing = cusolverMissing();
const solver = designs.includes('gesvdj') && missing === undefined ? new Cusolver(dev) : undefined;
if (designs.includes('gesvdj') && solver === undefined) console.error(`cuSOLVER not loaded (${missing}): no gesvdj column`);

function median(f, before) {
  before?.(); f(); dev.synchronize?.();
  const ms = [];
  for (let r = 0; r < REPEATS; r++) { before?.(); ms.push(ctx.time(f)); }
  return ms.sort((x, y) => x - y)[REPEATS >> 1];
}

const rows = [];
for (const dtype of (process.env.DTYPES ?? 'float64,float32').split(',')) {
  for (const spec of (process.env.SIZES ?? '9,12,16,24,32').split(',')) {
    const [n, given] = spec.split(':').map(Number);
    const count = given || defaultBatch('gesvd', dtype, n, 64 << 20);
    const len = n * n * count;
    const a0 = ctx.upload(randomGeneral(dtype, n, count, rng));
    const a = ctx.alloc(dtype, len), s = ctx.alloc(dtype, n * count), u = ctx.alloc(dtype, len), vt = ctx.alloc(dtype, len), info = ctx.alloc('int32', count);
    dev.copy(a0, 0, a, 0, len);
    const eps = dtype === 'float64' ? 2 ** -52 : 2 ** -23;
    const row = { dtype, n, count };
    let s0;
    for (const design of designs) {
      let ms;
      if (design === 'gesvdj') {
        if (solver === undefined) continue;
        const call = solver.gesvdjBatched(dtype, n, n, a, s, u, vt, info, count);
        ms = median(() => call.run(), () => dev.copy(a0, 0, a, 0, len));
        call.dispose();
        dev.copy(a0, 0, a, 0, len);
      } else {
        const f = () => gesvdCuda(dev, {
          a: strided(a, { rows: n, cols: n, count }), s: strided(s, { rows: n, cols: 1, count }),
          u: strided(u, { rows: n, cols: n, count }), vt: strided(vt, { rows: n, cols: n, count }), info,
        }, { force: { design } });
        ms = median(f);
      }
      const sv = dev.download(s), iv = dev.download(info);
      let bad = 0;
      for (const x of iv) if (x !== 0) bad++;
      let ds = 0;
      if (s0 === undefined) s0 = sv;
      else for (let k = 0; k < count; k++) {
        const top = Math.abs(s0[k * n]) || 1;
        for (let j = 0; j < n; j++) ds = Math.max(ds, Math.abs(sv[k * n + j] - s0[k * n + j]) / (n * eps * top));
      }
      row[design] = { ms, bad, ds };
    }
    rows.push(row);
    console.error(`${dtype} n=${n} x ${count}: ${designs.filter((d) => row[d]).map((d) => `${d} ${row[d].ms.toFixed(3)} ms`).join(', ')}`);
    for (const x of [a0, a, s, u, vt, info]) x.dispose();
  }
}
solver?.dispose?.();

const shown = designs.filter((d) => rows.some((r) => r[d]));
const cell = (r, d) => (r[d] ? r[d].ms.toFixed(3) : '-');
const ratio = (r, d) => (r[d] && r.rows ? (r[d].ms / r.rows.ms).toFixed(2) : '-');
const others = shown.filter((d) => d !== 'rows');
console.log(`| dtype | n | count | ${shown.map((d) => `${d} ms`).join(' | ')} | ${others.map((d) => `${d} / rows`).join(' | ')} | info != 0 (${shown.join(' / ')}) | max ds vs first (n eps) |`);
console.log(`|---|---|---|${shown.map(() => '---|').join('')}${others.map(() => '---|').join('')}---|---|`);
for (const r of rows) {
  console.log(`| ${r.dtype} | ${r.n} | ${r.count} | ${shown.map((d) => cell(r, d)).join(' | ')} | ${others.map((d) => ratio(r, d)).join(' | ')} | ${shown.map((d) => (r[d] ? r[d].bad : '-')).join(' / ')} | ${others.map((d) => (r[d] ? r[d].ds.toFixed(2) : '-')).join(' / ')} |`);
}
ctx.dispose();
