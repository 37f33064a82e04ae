// The fast CPU kernels of the ops `myriad bench` does not cover (trmm, trtri, lauum, potri; trsm
// too) against the reference, one thread, float64, process CPU time (which other jobs on a
// shared machine do not inflate): 16 MiB of matrices per call, the median of 9 calls (the first
// ones compile). Usage (after npm run build):
//   node scripts/bench-cpu-ops.mjs [ops, default trtri,lauum,potri,trmm,trsm] [sizes, default 4,8,16,32,64,128,256]
import { serialKernels } from '../dist/src/cpu-fast/backend.js';
import { cpuBackend } from '../dist/src/cpu/backend.js';
import { strided } from '../dist/src/core/batch.js';

const ops = (process.argv[2] ?? 'trtri,lauum,potri,trmm,trsm').split(',');
const sizes = (process.argv[3] ?? '4,8,16,32,64,128,256').split(',').map(Number);
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const FLOPS = { trtri: (n) => n ** 3 / 3, lauum: (n) => n ** 3 / 3, potri: (n) => (2 * n ** 3) / 3, trmm: (n) => n ** 3, trsm: (n) => n ** 3 };

for (const op of ops) for (const n of sizes) {
  const count = Math.max(1, Math.floor((16 << 20) / (n * n * 8)));
  // Lower triangles with a dominant diagonal (well conditioned), B square.
  const a0 = new Float64Array(n * n * count).map((_, i) => Math.sin(i * 0.37));
  for (let p = 0; p < count; p++) for (let i = 0; i < n; i++) a0[p * n * n + i * n + i] = n + 1;
  const b0 = new Float64Array(n * n * count).map((_, i) => Math.cos(i));
  const median = {};
  for (const [name, backend] of [['reference', cpuBackend], ['fast', serialKernels]]) {
    const times = [];
    for (let rep = 0; rep < 9; rep++) {
      const a = strided(a0.slice(), { rows: n, count });
      const t0 = cpuMs();
      if (op === 'trmm' || op === 'trsm') {
        backend[op]({ side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', alpha: 1, a, b: strided(b0.slice(), { rows: n, cols: n, count }) });
      } else backend[op]({ uplo: 'lower', diag: 'nonunit', a, info: new Int32Array(count) });
      times.push(cpuMs() - t0);
    }
    median[name] = times.sort((x, y) => x - y)[4];
  }
  const gflops = (ms) => ((FLOPS[op](n) * count) / ms / 1e6).toFixed(2);
  console.log(`| ${op} | ${n} | ${count} | ${gflops(median.reference)} | ${gflops(median.fast)} | ${(median.reference / median.fast).toFixed(2)} |`);
}
