// Variable-size gemm by size class: workload a's members (200,000 square, log-uniform in 1-64)
// split by class, each part timed alone on the device form (variableDevice: classification +
// the class kernel), beside cuBLAS's per-size loop over the same members and the uniform batched
// gemm of the class bound over as many members (what masking inside the class costs).
// float64, C += A B (beta 1). Usage: MYRIAD_QUICK_FIRST=0 node scripts/probe/vbatched-classes.mjs [a|b]
// (MYRIAD_QUICK_FIRST=0: every kernel its optimised build before it runs; the timings are of those).
import { open, strided } from '../../dist/src/index.js';
import { logUniformSizes, VBATCHED_WORKLOADS, vbatchedRequest } from '../../dist/src/bench/vbatched.js';
import { deviceFormCall } from '../../dist/src/bench/vbatched-device.js';
import { vendorGemm } from '../../dist/src/bench/vbatched-vendor.js';
import { fillUniform } from '../../dist/src/cuda/tune/tsm2-bench.js';
import { timeMs } from '../../dist/src/cuda/tune/measure.js';
import { VBATCH_CLASSES } from '../../dist/src/cuda/kernels/common/vbatch.js';
const workload = process.argv[2] ?? 'a';
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const dtype = 'float64';
const { count, max } = VBATCHED_WORKLOADS[workload];
const all = logUniformSizes(count, max, workload === 'a' ? 1 : 2);
let lo = 0;
console.log('| class | members | flops G | bytes MB | device ms | GB/s | vendor loop ms | uniform ms (n = bound) |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const bound of VBATCH_CLASSES) {
  const sizes = all.filter((n) => n > lo && n <= bound);
  const from = lo; lo = bound;
  if (sizes.length === 0) continue;
  const elements = sizes.reduce((s, n) => s + n * n, 0);
  const data = [0, 1, 2].map((i) => { const d = dev.alloc(dtype, elements); fillUniform(dev, d, 11 + i); return d; });
  const info = dev.alloc('int32', sizes.length);
  const request = vbatchedRequest('gemm', sizes, data, info);
  const device = deviceFormCall(ctx, dev, 'gemm', sizes, data, info, dtype);
  const ms = timeMs(dev, device.run, 7);
  const vendor = vendorGemm(dev, request, false);
  const vms = vendor === undefined ? NaN : timeMs(dev, () => vendor.run(), 7);
  const u = [0, 1, 2].map(() => dev.alloc(dtype, bound * bound * sizes.length));
  const batch = (d) => strided(d, { rows: bound, cols: bound, count: sizes.length });
  const ums = timeMs(dev, () => ctx.gemm({ transA: 'N', transB: 'N', alpha: 1, beta: 1, a: batch(u[0]), b: batch(u[1]), c: batch(u[2]) }), 7);
  const flops = sizes.reduce((s, n) => s + 2 * n ** 3, 0) / 1e9, bytes = 4 * elements * 8 / 1e6;
  console.log(`| ${from + 1}-${bound} | ${sizes.length} | ${flops.toFixed(2)} | ${bytes.toFixed(0)} | ${ms.toFixed(3)} | ${(bytes / ms).toFixed(0)} | ${vms.toFixed(3)} | ${ums.toFixed(3)} |`);
  dev.synchronize();
  vendor?.dispose(); for (const a of [...data, info, ...u, ...device.arrays]) a.dispose();
}
ctx.dispose();
