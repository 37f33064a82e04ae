// The delayed-update LU kernel alone (kernels/getrf-block-wasm.ts, gesv with one right-hand side)
// on 8 matrices in cache, two builds of its generator alternating in one process (so that load
// from other jobs on a shared machine falls on both alike): us per matrix, best and median of 40
// batches of 20 calls, and whether both wrote the same bytes. Usage (after npm run build; copy
// the other build's dist somewhere first, e.g. `git stash; npx tsc -p .; cp -r dist /tmp/old`):
//   node scripts/bench-lu-kernel.mjs /tmp/old/src/cpu-fast/kernels/getrf-block-wasm.js [n, default 64] [nb, default 8]
import { generateGetrfBlockWasm as current } from '../dist/src/cpu-fast/kernels/getrf-block-wasm.js';
import { Random, randomGeneral, randomMatrices } from '../dist/src/bench/data.js';

const other = process.argv[2];
const n = Number(process.argv[3] ?? 64), nb = Number(process.argv[4] ?? 8), nrhs = 1, chunk = 8;
const builds = [{ name: 'this build', generate: current }];
if (other) builds.unshift({ name: other, generate: (await import(new URL(other, `file://${process.cwd()}/`).href)).generateGetrfBlockWasm });
const mem = new WebAssembly.Memory({ initial: 1024 });
const fns = builds.map((b) => new WebAssembly.Instance(new WebAssembly.Module(b.generate({ m: n, n, nb, nrhs, roundFactor: false, zeroMax: 0 })), { env: { mem } }).exports.getrf);
const ld = n + (n & 1);
const f64 = new Float64Array(mem.buffer);
const rng = new Random(3);
const a = randomGeneral('float64', n, chunk, rng), b = randomMatrices('float64', n, nrhs, chunk, rng);
const bBase = chunk * ld * n * 8, piv = bBase + chunk * ld * nrhs * 8, info = piv + chunk * n * 4;
const fill = () => {
  for (let t = 0; t < chunk; t++) for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) f64[t * ld * n + j * ld + i] = a[t * n * n + j * n + i];
  for (let i = 0; i < chunk * ld * nrhs; i++) f64[bBase / 8 + i] = b[i];
};
const times = fns.map(() => []);
const outputs = [];
for (let rep = 0; rep < 40; rep++) for (let k = 0; k < fns.length; k++) {
  let total = 0;
  for (let r = 0; r < 20; r++) { fill(); const t0 = performance.now(); fns[k](0, piv, info, chunk, bBase); total += performance.now() - t0; }
  times[k].push((total * 1000) / (20 * chunk));
  if (rep === 0) outputs.push(f64.slice(0, bBase / 8 + chunk * ld).join(','));
}
if (outputs.length === 2) console.log(`same output: ${outputs[0] === outputs[1]}`);
builds.forEach((b, k) => {
  const s = times[k].sort((x, y) => x - y);
  console.log(`${b.name}: n = ${n}, nb = ${nb}: best ${s[0].toFixed(2)}, median ${s[s.length >> 1].toFixed(2)} us a matrix`);
});
