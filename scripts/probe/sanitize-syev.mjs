// syev's rows design (n = 9 ... 32) once each for compute-sanitizer (memcheck, racecheck):
// strided batches whose count leaves a block's slots empty, idle lanes (n2 not dividing 32), both
// dtypes, vectors and values, and list batches (the pointer array read only for live matrices).
// Exits non-zero if any info is unexpected.
// Usage: compute-sanitizer --tool memcheck node scripts/probe/sanitize-syev.mjs
import { open, strided, list } from '../../dist/src/index.js';
import { syevCuda } from '../../dist/src/cuda/kernels/jacobi/index.js';
import { randomSymmetric, Random } from '../../dist/src/bench/data.js';

const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const rng = new Random(5);
let bad = 0;
const expectZero = (what, info) => { const v = [...ctx.download(info)]; if (v.some((x) => x !== 0)) { bad++; console.log(`${what}: info ${v}`); } else console.log(`${what}: ok`); };
for (const dtype of ['float64', 'float32']) for (const [n, count] of [[9, 13], [12, 5], [16, 9], [17, 3], [32, 5]]) for (const jobz of ['vectors', 'values']) {
  const a = ctx.upload(randomSymmetric(dtype, n, count, rng)), w = ctx.alloc(dtype, n * count), info = ctx.alloc('int32', count);
  syevCuda(dev, { jobz, uplo: 'lower', a: strided(a, { rows: n, cols: n, count }), w: strided(w, { rows: n, cols: 1, count }), info });
  expectZero(`syev ${dtype} ${n} x ${count} ${jobz}`, info);
  const arrays = [0, 1].map(() => ctx.upload(randomSymmetric(dtype, n, 1, rng)));
  const info2 = ctx.alloc('int32', 2);
  syevCuda(dev, { jobz, uplo: 'upper', a: list(arrays, { rows: n }), w: strided(w, { rows: n, cols: 1, count: 2 }), info: info2 });
  expectZero(`syev list ${dtype} ${n} x 2 ${jobz}`, info2);
  for (const x of [a, w, info, info2, ...arrays]) x.dispose();
}
ctx.dispose();
if (bad > 0) process.exit(1);
