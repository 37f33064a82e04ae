// Probe (GPU machine): microseconds per synchronous call on small host batches (< 1 MB), the
// host path's "no slower than today" check. Usage: node scripts/probe-small-host.mjs [dist dir]
// (run it on two builds in one call to compare them on the same card).
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
const dist = resolve(process.argv[2] ?? 'dist');
const m = await import(pathToFileURL(`${dist}/src/index.js`).href);
const data = await import(pathToFileURL(`${dist}/src/bench/data.js`).href);
const ctx = m.open({ backend: 'cuda' });
const rng = new data.Random(5);
const cases = [
  ['potrf n=8 x100', 8, 100, (a, n, c) => ctx.potrf({ a: m.strided(a, { rows: n, count: c }) })],
  ['getrf n=16 x100', 16, 100, (a, n, c) => ctx.getrf({ a: m.strided(a, { rows: n, count: c }) })],
  ['gemm n=4 x1000', 4, 1000, (a, n, c) => ctx.gemm({ a: m.strided(a, { rows: n, count: c }), b: m.strided(a, { rows: n, count: c }), c: m.strided(new Float64Array(n * n * c), { rows: n, count: c }), beta: 0 })],
  ['posv n=32 x200', 32, 200, (a, n, c) => ctx.posv({ a: m.strided(a, { rows: n, count: c }), b: m.strided(new Float64Array(n * c), { rows: n, cols: 1, count: c }) })],
];
const rows = [];
for (const [name, n, count, call] of cases) {
  const a0 = data.randomSpd('float64', n, count, rng);
  const a = a0.slice();
  const times = [];
  for (let r = 0; r < 220; r++) {
    a.set(a0);
    const t = performance.now();
    call(a, n, count);
    if (r >= 20) times.push(performance.now() - t);
  }
  times.sort((x, y) => x - y);
  rows.push(`${name}: ${(times[times.length >> 1] * 1000).toFixed(1)} us (p10 ${(times[Math.floor(times.length / 10)] * 1000).toFixed(1)})`);
}
console.log(`${dist}\n  ${rows.join('\n  ')}`);
