// getrf's register design (generate-register.ts) for n = 33..128 under several block shapes
// (warps, panel width nb, blocks an SM asked of the compiler): each shape's NVRTC compile time
// (optimised, one kernel alone on this thread, a fresh tag so no cache answers) and its run time
// on a batch (CUDA events; after a second of runs for the clocks to settle, five rounds over the
// shapes, each a median of 5 calls, A reset from a pristine copy outside the timing; the median of
// the rounds), factors checked equal to the first shape's bit for bit.
// Usage (after npx tsc -p .):
//   N=48,64 COUNT=10000 DTYPE=float64 SHAPES=4x8x4,8x8x2 node scripts/probe/getrf-register-shapes.mjs
import { open, strided } from '../../dist/src/index.js';
import { Random, randomMatrices } from '../../dist/src/bench/data.js';
import { getrfCuda, getrfRegisterSource } from '../../dist/src/cuda/kernels/getrf/index.js';
import { openNvrtc, compileOptions, targetOption } from '../../dist/src/cuda/runtime/compiler.js';

const sizes = (process.env.N ?? '64').split(',').map(Number);
const count = Number(process.env.COUNT ?? 10000);
const dtype = process.env.DTYPE ?? 'float64';
const shapes = (process.env.SHAPES ?? '4x8x4,8x8x2,8x8x1,4x4x4,8x4x2').split(',').map((s) => {
  const [warps, nb, minBlocks] = s.split('x').map(Number);
  return { warps, nb, minBlocks };
});
const ctx = open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const nvrtc = openNvrtc();
const options = compileOptions(targetOption(dev.info.arch, nvrtc.supportedArchs));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const n of sizes) {
  const a = randomMatrices(dtype, n, n, count, new Random(n));
  const da = ctx.upload(a);
  const pristine = ctx.upload(a);
  const ipiv = ctx.alloc('int32', n * count), info = ctx.alloc('int32', count);
  // Compile times first (the GPU idles meanwhile), then the runs, shapes interleaved round by round
  // after a warm-up long enough for the clocks to settle.
  const compiled = [];
  for (const shape of shapes) {
    const src = getrfRegisterSource({ dtype, rows: n, cols: n, kind: 'strided', ...shape });
    const tag = `_${process.pid}_${Date.now()}`;
    const t0 = performance.now();
    try {
      nvrtc.compile({ name: src.name, source: src.source.replaceAll(src.entry, src.entry + tag), options });
      compiled.push({ shape, compileMs: performance.now() - t0, times: [] });
    } catch (e) {
      console.log(`n ${n} ${JSON.stringify(shape)}: compile failed: ${String(e).slice(0, 200)}`);
    }
  }
  const run = (shape) => getrfCuda(dev, { a: strided(da, { rows: n, count }), ipiv, pivotStride: n, info }, { force: { variant: 'register', register: shape } });
  const timed = (shape) => { dev.copy(pristine, 0, da, 0, n * n * count); return ctx.time(() => run(shape)); };
  for (const c of compiled) timed(c.shape);
  const settle = performance.now();
  while (performance.now() - settle < 1000) timed(compiled[0].shape);
  let reference;
  for (let round = 0; round < 5; round++) {
    for (const c of compiled) {
      const ts = [];
      for (let i = 0; i < 5; i++) ts.push(timed(c.shape));
      c.times.push(median(ts));
      const out = ctx.download(da);
      if (reference === undefined) reference = out;
      else if (!out.every((v, i) => Object.is(v, reference[i]))) c.differs = true;
    }
  }
  for (const c of compiled) {
    const { shape } = c;
    console.log(`n ${n} ${dtype} x ${count} warps ${shape.warps} nb ${shape.nb} blocks ${shape.minBlocks}: compile ${c.compileMs.toFixed(0)} ms, run ${median(c.times).toFixed(3)} ms (rounds ${c.times.map((t) => t.toFixed(2)).join(' ')})${c.differs ? ' DIFFERS from the first shape' : ''}`);
  }
  for (const d of [da, pristine, ipiv, info]) d.dispose();
}
ctx.dispose();
