// Batched square gemm of small orders with C read (C = A B + C): the planned small kernel, the same
// kernel with C staged through shared memory up front (stageC) and without, and cuBLAS's strided
// batched call, on the same data (256 MiB of A, B and C). CUDA events, median of 7 after a warm-up.
// Prints markdown: ms, and cuBLAS ms / ms.
// Usage: MYRIAD_QUICK_FIRST=0 node scripts/probe/gemm-small-beta.mjs [dtype=float64] [orders=4,8,12,16,20,24,28,32]
import { Cublas } from '../../dist/src/cuda/baselines/index.js';
import { gemmCuda, planGemm } from '../../dist/src/cuda/kernels/gemm/index.js';
import { gemmLabel } from '../../dist/src/cuda/tune/gemm-sweep.js';
import { timeMs } from '../../dist/src/cuda/tune/measure.js';
import { openDevice } from '../../dist/src/cuda/runtime/index.js';

const dtype = process.argv[2] ?? 'float64';
const orders = (process.argv[3] ?? '4,8,12,16,20,24,28,32').split(',').map(Number);
const bytes = dtype === 'float64' ? 8 : 4;
const dev = openDevice(0);
const blas = new Cublas(dev);
const stridedOf = (data, n, count) => ({ kind: 'strided', data, rows: n, cols: n, count, ld: n, stride: n * n, offset: 0, order: 'col' });
console.log(`card: ${dev.info.name}; ${dtype}; C = A B + C; ms (cuBLAS ms / ms)\n`);
console.log('| n | count | cuBLAS | planned | stageC | no stageC |');
console.log('| ---: | ---: | ---: | --- | ---: | ---: |');
for (const n of orders) {
  const count = Math.floor((256 * 2 ** 20) / (3 * n * n * bytes));
  const arrays = [0, 1, 2].map(() => dev.alloc(dtype, count * n * n));
  for (const x of arrays) dev.fill(x, 0x3f);
  const [A, B, C] = arrays;
  const req = { transA: 'N', transB: 'N', alpha: 1, beta: 1, a: stridedOf(A, n, count), b: stridedOf(B, n, count), c: stridedOf(C, n, count) };
  const time = (f) => timeMs(dev, f, 7);
  const vendor = time(() => blas.gemmStridedBatched(dtype, 'N', 'N', n, n, n, 1, A, n, n * n, B, n, n * n, 1, C, n, n * n, count));
  const planned = planGemm(dev.info, { dtype, transA: 'N', transB: 'N', m: n, n, k: n, count, batchKind: 'strided', betaZero: false });
  const cell = (ms) => `${ms.toFixed(3)} (${(vendor / ms).toFixed(2)})`;
  const plannedMs = time(() => gemmCuda(dev, req));
  const forced = (stageC) => planned.variant === 'small' ? cell(time(() => gemmCuda(dev, req, { variant: { ...planned, stageC } }))) : '-';
  console.log(`| ${n} | ${count} | ${vendor.toFixed(3)} | ${gemmLabel(planned)} ${cell(plannedMs)} | ${forced(true)} | ${forced(false)} |`);
  for (const x of arrays) x.dispose();
}
blas.dispose();
dev.dispose();
