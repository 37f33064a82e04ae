/**
 * trmm's pipelined kernel (generate-pipelined.ts) on a real GPU (skipped where none is usable)
 * against the CPU reference (src/cpu/trmm.ts), forced (trmmLeaf 'pipelined') and by default, at few
 * orders so a cold kernel cache compiles little: 1, 7, 32, 33, 64, 100, 128 (leaves of 64 and the
 * GEMM updates) and 257, every side-left variant at 32 and 33 and a quarter of them at the others;
 * square B to 128, thin above (3 and 33 vectors); alpha 1, -2.5 and 0; odd ld, stride and offset;
 * NaN in A's other triangle, on the unit diagonal and all around B's matrices (checked bit for
 * bit); stride-0 A; many more tasks than the persistent grid's blocks (two stages and three); list batches (pointer arrays,
 * matrices in reverse order, A broadcast); side right forced (it takes another leaf).
 */
import { test } from 'node:test';

import { list, strided, type Batch } from '../../src/core/batch.js';
import type { DType, FloatArray } from '../../src/core/dtype.js';
import { cpuTrmm } from '../../src/cpu/trmm.js';
import { trmmCuda, type TrsmOptions } from '../../src/cuda/kernels/trsm/index.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/index.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';
import {
  TRSM_VARIANTS, caseName, compareOutput, fillTriangle, inStrided, layoutLength, oddLayout, randomBuffer, trsmTolerance, type Layout, type TrsmCase,
} from '../helpers/trsm-data.js';

const skip = gpuSkipReason();
const DTYPES: DType[] = ['float64', 'float32'];
const ORDERS = [1, 7, 32, 33, 64, 100, 128, 257];
const LEFT = TRSM_VARIANTS.filter((c) => c.side === 'left');
const PIPELINED: TrsmOptions = { force: { trmmLeaf: 'pipelined' } };

function poisonOutside(buf: FloatArray, l: Layout): void {
  const inside = inStrided(l);
  for (let e = 0; e < buf.length; e++) if (!inside(e)) buf[e] = NaN;
}

/** Matrices for about 2^16 elements of B a case, 1 ... 64. */
const countFor = (m: number, n: number): number => Math.max(1, Math.min(64, Math.floor(65_536 / (m * n))));

function checkStrided(dev: GpuDevice, rng: Rng, c: TrsmCase, dtype: DType, m: number, n: number, alpha: number, opts: TrsmOptions | undefined, over: { count?: number; broadcast?: boolean } = {}): void {
  const t = c.side === 'left' ? m : n;
  const count = over.count ?? countFor(m, n);
  const broadcast = over.broadcast ?? false;
  const la = oddLayout(t, t, count, broadcast), lb = oddLayout(m, n, count);
  const A = randomBuffer(rng, dtype, layoutLength(la));
  for (let i = 0; i < (broadcast ? 1 : count); i++) fillTriangle(rng, A, la.offset + i * la.stride, la.ld, t, c.uplo, c.diag);
  poisonOutside(A, la);
  const B = randomBuffer(rng, dtype, layoutLength(lb));
  poisonOutside(B, lb);
  const batch = <S extends FloatArray | DeviceArray>(data: S, l: Layout, rows: number, cols: number): Batch<S> =>
    strided(data, { rows, cols, count, ld: l.ld, stride: l.stride, offset: l.offset });
  const want = B.slice();
  cpuTrmm({ ...c, alpha, a: batch(A, la, t, t), b: batch(want, lb, m, n) });
  const dA = dev.upload(A), dB = dev.upload(B);
  try {
    trmmCuda(dev, { ...c, alpha, a: batch(dA, la, t, t), b: batch(dB, lb, m, n) }, opts);
    const what = `trmm (${opts === undefined ? 'default' : 'pipelined'}) ${dtype} ${caseName(c)} m=${m} n=${n} count=${count} alpha=${alpha}${broadcast ? ' stride-0 A' : ''}`;
    compareOutput(dev.download(dB) as FloatArray, want, inStrided(lb), trsmTolerance(dtype, t), what);
    compareOutput(dev.download(dA) as FloatArray, A, () => false, 0, `${what}: A`);
  } finally {
    dA.dispose();
    dB.dispose();
  }
}

for (const dtype of DTYPES) test(`trmm pipelined kernel forced, ${dtype}: side-left variants, orders 1 ... 257, square and thin B, odd ld, poison around B`, { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(dtype === 'float64' ? 1401 : 1403);
  for (const [vi, c] of LEFT.entries()) for (const t of ORDERS) {
    if (t !== 32 && t !== 33 && (t + vi) % 4 !== 0) continue;
    for (const w of t <= 128 ? [t] : [3, 33]) checkStrided(dev, rng, c, dtype, t, w, (t + vi) % 2 === 0 ? 1 : -2.5, PIPELINED, { broadcast: t % 7 === 2 || t === 7 });
  }
});

test('trmm pipelined kernel: many tasks a persistent block, three stages, alpha 0, one vector, by default, side right forced', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1402);
  for (const dtype of DTYPES) {
    // 2,000 matrices of 3 panels (the last ragged): thousands of tasks over the resident blocks.
    checkStrided(dev, rng, LEFT[0]!, dtype, 33, 70, -2.5, PIPELINED, { count: 2000 });
    checkStrided(dev, rng, LEFT[7]!, dtype, 7, 32, 1, PIPELINED, { count: 5000 });
    checkStrided(dev, rng, LEFT[2]!, dtype, 64, 100, -2.5, { force: { trmmLeaf: 'pipelined', pipelinedStages: 3 } }, { count: 500 });
    for (const c of LEFT) {
      checkStrided(dev, rng, c, dtype, 32, 32, 0, PIPELINED);
      checkStrided(dev, rng, c, dtype, 33, 1, -2.5, PIPELINED);
    }
    checkStrided(dev, rng, LEFT[0]!, dtype, 33, 33, -2.5, undefined);
    checkStrided(dev, rng, LEFT[5]!, dtype, 100, 100, 1, undefined);
    checkStrided(dev, rng, TRSM_VARIANTS.find((c) => c.side === 'right')!, dtype, 40, 33, -2.5, PIPELINED);
  }
});

test('trmm pipelined kernel: list batches in reverse order with A broadcast', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1404);
  for (const dtype of DTYPES) for (const [vi, c] of LEFT.entries()) for (const [t, w] of [[32, 32], [33, 45], [100, 7]] as const) {
    if (t === 100 && vi % 4 !== 0) continue;
    const count = 5;
    const la = oddLayout(t, t, count), lb = oddLayout(t, w, count);
    const A = randomBuffer(rng, dtype, layoutLength(la));
    fillTriangle(rng, A, la.offset, la.ld, t, c.uplo, c.diag);
    poisonOutside(A, la);
    const B = randomBuffer(rng, dtype, layoutLength(lb));
    poisonOutside(B, lb);
    const batches = <S extends FloatArray | DeviceArray>(a: S, b: S) => ({
      a: list(Array.from({ length: count }, () => ({ data: a, offset: la.offset })), { rows: t, ld: la.ld }),
      b: list(Array.from({ length: count }, (_, i) => ({ data: b, offset: lb.offset + (count - 1 - i) * lb.stride })), { rows: t, cols: w, ld: lb.ld }),
    });
    const want = B.slice();
    cpuTrmm({ ...c, alpha: -2.5, ...batches(A, want) });
    const dA = dev.upload(A), dB = dev.upload(B);
    try {
      trmmCuda(dev, { ...c, alpha: -2.5, ...batches(dA, dB) }, PIPELINED);
      compareOutput(dev.download(dB) as FloatArray, want, inStrided(lb), trsmTolerance(dtype, t), `trmm pipelined ${dtype} ${caseName(c)} list t=${t} w=${w}`);
    } finally {
      dA.dispose();
      dB.dispose();
    }
  }
});
