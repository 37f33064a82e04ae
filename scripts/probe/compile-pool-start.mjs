/**
 * What starting the compile workers costs a first call (GPU machine with NVRTC; no GPU work):
 * a batch of small distinct kernels on a pool started by the batch itself, against the same batch
 * on a pool prestarted (as a CUDA context does when it opens) some time before. Each source carries
 * a fresh tag, so NVRTC's own compile cache never answers.
 *
 *   node scripts/probe/compile-pool-start.mjs [jobs=15] [rounds=3]
 */
import { CompilePool } from '../../dist/src/cuda/runtime/compile-pool.js';
import { compileOptions } from '../../dist/src/cuda/runtime/compiler.js';

const jobs = Number(process.argv[2] ?? 15);
const rounds = Number(process.argv[3] ?? 3);
const options = compileOptions('--gpu-architecture=sm_90');
let serial = 0;
const batch = () => Array.from({ length: jobs }, () => {
  const tag = `${process.pid}_${Date.now()}_${++serial}`;
  return { name: `k${tag}.cu`, source: `extern "C" __global__ void k${tag}(double* a, int n) {\n  for (int i = threadIdx.x; i < n; i += blockDim.x) a[i] = a[i] * 2.0 + ${serial}.0;\n}\n`, options };
});
const timed = (pool) => {
  const t0 = performance.now();
  const out = pool.compileSync(batch());
  const failed = out.filter((o) => o.error).length;
  if (failed) throw new Error(`${failed} compiles failed: ${out.find((o) => o.error).error}`);
  return performance.now() - t0;
};
for (let r = 0; r < rounds; r++) {
  const cold = new CompilePool();
  const coldMs = timed(cold);
  const againMs = timed(cold);
  await cold.close();
  const pre = new CompilePool();
  pre.prestart();
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const preMs = timed(pre);
  await pre.close();
  console.log(`round ${r + 1}: ${jobs} kernels, ${cold.limit} workers: started by the batch ${coldMs.toFixed(0)} ms, the next batch ${againMs.toFixed(0)} ms, prestarted 1.5 s before ${preMs.toFixed(0)} ms`);
}
