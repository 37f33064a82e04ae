// gesv / getrf float64 n = 16 x 8192 through serialKernels (the bench's data), one thread:
// median ms of calls 20..20+R (steady state), process CPU time. Usage:
//   taskset -c 1 node scripts/probe/gesv16-parts.mjs [dist dir, default dist] [op gesv|getrf] [repeats]
import { resolve } from 'node:path';
const dist = resolve(process.argv[2] ?? 'dist'), op = process.argv[3] ?? 'gesv', R = Number(process.argv[4] ?? 60);
const { serialKernels } = await import(`${dist}/src/cpu-fast/backend.js`);
const { strided } = await import(`${dist}/src/core/batch.js`);
const { Random, randomGeneral, randomMatrices } = await import(`${dist}/src/bench/data.js`);
const n = Number(process.env.N ?? 16), count = Number(process.env.COUNT ?? 8192);
const rng = new Random(1);
const a0 = randomGeneral('float64', n, count, rng), b0 = randomMatrices('float64', n, 1, count, rng);
const a = a0.slice(), b = b0.slice(), ipiv = new Int32Array(count * n), info = new Int32Array(count);
const A = strided(a, { rows: n, cols: n, count }), B = strided(b, { rows: n, cols: 1, count });
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const t = [];
for (let r = 0; r < 20 + R; r++) {
  a.set(a0); b.set(b0);
  const t0 = cpu();
  if (op === 'gesv') serialKernels.gesv({ a: A, b: B, ipiv, pivotStride: n, info });
  else serialKernels.getrf({ a: A, ipiv, pivotStride: n, info });
  if (r >= 20) t.push(cpu() - t0);
}
t.sort((x, y) => x - y);
console.log(`${op} n=${n} x ${count} (${dist}): median ${t[t.length >> 1].toFixed(3)} ms, q1 ${t[t.length >> 2].toFixed(3)}, min ${t[0].toFixed(3)}`);
