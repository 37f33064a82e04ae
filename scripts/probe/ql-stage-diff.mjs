// The per-thread QL syev staged and unstaged on the same batch (float32 data in float32 arithmetic, vectors): how many
// outputs differ and by how much (ulps of float32), dense and ragged layouts.
//   node scripts/probe/ql-stage-diff.mjs
import { open, strided } from '../../dist/src/index.js';
import { syevQlThreadCuda } from '../../dist/src/cuda/kernels/ql-thread/index.js';
import { syevCuda } from '../../dist/src/cuda/kernels/jacobi/index.js';
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const count = 300;
let seed = 5;
const next = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 - 0.5; };
const ulps = (x, y) => { const b = new Float32Array([x, y]); const i = new Int32Array(b.buffer); return Math.abs(i[0] - i[1]); };
for (const n of [3, 4, 5]) for (const dense of [true, false]) for (const [label, run] of [
  ['ql f32', (stage) => (r) => syevQlThreadCuda(dev, r, { force: { arithmetic: 'float32', stage } })],
  ['ql f64', (stage) => (r) => syevQlThreadCuda(dev, r, { force: { arithmetic: 'float64', stage } })],
  ['jacobi', (stage) => (r) => syevCuda(dev, r, { force: { design: 'thread', stage } })]]) {
  const ld = dense ? n : n + 2, stride = dense ? n * n : ld * n + 3;
  const host = new Float32Array(stride * count).fill(NaN);
  for (let k = 0; k < count; k++) for (let j = 0; j < n; j++) for (let i = j; i < n; i++) { const x = next(); host[k * stride + i + j * ld] = x; host[k * stride + j + i * ld] = x; }
  const out = [false, true].map((stage) => {
    const a = dev.upload(host), w = dev.upload(new Float32Array(n * count).fill(-1)), info = dev.upload(new Int32Array(count));
    run(stage)({ jobz: 'vectors', uplo: 'upper', a: strided(a, { rows: n, count, ld, stride }), w: strided(w, { rows: n, cols: 1, count }), info });
    const r = [dev.download(w), dev.download(a)];
    a.dispose(); w.dispose(); info.dispose();
    return r;
  });
  let diff = 0, worst = 0, first = '';
  for (const part of [0, 1]) for (let e = 0; e < out[0][part].length; e++) {
    const x = out[0][part][e], y = out[1][part][e];
    if (!Object.is(x, y)) { diff++; worst = Math.max(worst, ulps(x, y)); if (!first) first = `${part ? 'A' : 'W'}[${e}] ${x} / ${y}`; }
  }
  console.log(`${label} n=${n} ${dense ? 'dense' : 'ragged'}: ${diff} of ${out[0][0].length + out[0][1].length} differ, at most ${worst} ulps; first ${first}`);
}
ctx.dispose();
