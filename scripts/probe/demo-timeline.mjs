/**
 * The demo's cold start as a timeline (GPU machine): when its cases' compiles were started ahead,
 * when each settled, when the context was open, when each case's data was made and its call ran.
 * Run with empty caches to see a first run: MYRIAD_CACHE_DIR=$(mktemp -d) CUDA_CACHE_PATH=$(mktemp -d)
 * (CUDA_CACHE_PATH also empties NVRTC's own cache, which lives in the driver's).
 *
 *   node scripts/probe/demo-timeline.mjs
 */
const at = () => `${(process.uptime() * 1000).toFixed(0).padStart(6)} ms`;
console.log(`${at()}  script started`);
const { warmAhead } = await import('../../dist/src/api/warm-ahead.js');
const { planWarmCalls } = await import('../../dist/src/api/warm.js');
const { open } = await import('../../dist/src/api/open.js');
const { runDemo, DEMO_CASES } = await import('../../dist/src/bench/demo.js');
console.log(`${at()}  modules imported`);
for (const c of DEMO_CASES) {
  const p = warmAhead((planning) => planWarmCalls(planning, c.name, 'float64', [{ n: c.n, count: c.batch }], { sizes: [c.n], nrhs: c.nrhs }));
  console.log(`${at()}  ${c.name} ${c.n}: compiles started ahead${p ? '' : ' (no GPU: none)'}`);
  p?.then(() => console.log(`${at()}  ${c.name} ${c.n}: ahead builds stored`));
}
const ctx = open();
console.log(`${at()}  context open: ${ctx.describe()}`);
// The demo's progress lines, stamped.
process.stderr.write = ((write) => (chunk, ...rest) => write(`${at()}  ${String(chunk)}`, ...rest))(process.stderr.write.bind(process.stderr));
const rows = await runDemo(ctx);
console.log(`${at()}  demo done: ${rows.map((r) => `${r.workload} ${r.ms.toFixed(2)} ms`).join(', ')}`);
ctx.dispose();
