// Probe (not part of the package): small-gemm plans at f64 n=2 etc., API vs launcher timing.
import { open } from '../../dist/src/index.js';
import { gemmCuda } from '../../dist/src/cuda/kernels/gemm/launch.js';
import { planGemm } from '../../dist/src/cuda/kernels/gemm/planner.js';
import { gemmTuningFor } from '../../dist/src/cuda/model/tuning/index.js';
import { timeMs } from '../../dist/src/cuda/measure.js';
const ctx = open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device ?? ctx.deviceBackend.dev;
const cases = (process.env.CASES ?? 'float64:2,float64:4').split(',').map((c) => { const [d, n] = c.split(':'); return [d, +n]; });
for (const [dtype, n] of cases) {
  const bytes = dtype === 'float64' ? 8 : 4;
  const count = Math.floor((1 << 30) / (3 * n * n * bytes));
  const arrays = [0, 1, 2].map(() => dev.alloc(dtype, count * n * n));
  for (const x of arrays) dev.fill(x, 0x3f);
  const sb = (data) => ({ kind: 'strided', data, rows: n, cols: n, count, ld: n, stride: n * n, offset: 0, order: 'col' });
  const req = { transA: 'N', transB: 'N', alpha: 1, beta: 0, a: sb(arrays[0]), b: sb(arrays[1]), c: sb(arrays[2]) };
  const gb = (ms) => ((3 * n * n * bytes * count) / (ms * 1e6)).toFixed(0);
  const api = timeMs(dev, () => ctx.gemm({ a: req.a, b: req.b, c: req.c, beta: 0 }), 7);
  const h0 = performance.now(); for (let i = 0; i < 50; i++) ctx.gemm({ a: req.a, b: req.b, c: req.c, beta: 0 }); const host = (performance.now() - h0) / 50;
  await ctx.synchronize();
  console.log(`${dtype} n=${n} count=${count} api ${api.toFixed(3)} ms ${gb(api)} GB/s; host enqueue ${(host * 1000).toFixed(0)} us/call (queue-bound if ~ kernel)`);
  const problem = { dtype, transA: 'N', transB: 'N', m: n, n, k: n, count, batchKind: 'strided', betaZero: true };
  const seen = new Set();
  for (const tpb of [64, 128, 256, 512]) for (const ipt of [1, 2, 4]) for (const sc of [0, 1024]) {
    const t = { ...gemmTuningFor(dev.info.arch), smallThreadsPerBlock: tpb, smallItemsPerThread: ipt, smallStageCBelowBytes: sc, smallWinners: [] };
    const p = planGemm(dev.info, problem, { variant: 'small', tuning: t });
    const key = JSON.stringify(p); if (seen.has(key)) continue; seen.add(key);
    const ms = timeMs(dev, () => gemmCuda(dev, req, { variant: p }), 7);
    console.log(`  tbc${p.tbc} t${p.threads} rn${p.rn}${p.stageC ? ' sc' : ''}: ${ms.toFixed(3)} ms ${gb(ms)} GB/s`);
  }
  for (const x of arrays) x.dispose();
}
