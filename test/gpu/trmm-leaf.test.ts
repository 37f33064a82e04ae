/**
 * trmm's register leaf (generate-register-leaf.ts) and product leaf (generate-product-leaf.ts) on a
 * real GPU (skipped where none is usable) against the CPU reference (src/cpu/trmm.ts), forced and by
 * default, beside the shared-memory leaf forced: every variant at ragged orders (1 ... 40 a quarter of them a variant, every order on four), 63, 65, 127, 129, 255, 257, 511, 513 (the
 * leaf alone, and the recursion over GEMM updates with leaves of every size up to 32), square and
 * thin B, alpha 1 and -2.5 (0: the family's zero kernel), odd ld, stride and offset; NaN in A's
 * other triangle, on the unit diagonal and all around B's matrices (checked bit for bit), stride-0
 * A; list batches (pointer arrays) with matrices in reverse order and A broadcast.
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
const ORDERS = [...Array.from({ length: 40 }, (_, i) => i + 1), 47, 63, 65, 127, 129, 255, 257, 511, 513];
const LEAVES: [string, TrsmOptions | undefined][] = [
  ['default', undefined], ['register', { force: { trmmLeaf: 'register' } }], ['product', { force: { trmmLeaf: 'product' } }], ['shared', { force: { trmmLeaf: 'shared' } }],
];
/** The leaves of 32 and below that are not the default's choice alone: each forced in the edge cases. */
const FORCED_SMALL = [LEAVES[1]!, LEAVES[2]!];

function poisonOutside(buf: FloatArray, l: Layout): void {
  const inside = inStrided(l);
  for (let e = 0; e < buf.length; e++) if (!inside(e)) buf[e] = NaN;
}

/** Matrices for about 2^16 elements of B a case, 1 ... 64. */
const countFor = (m: number, n: number): number => Math.max(1, Math.min(64, Math.floor(65_536 / (m * n))));

function checkStrided(dev: GpuDevice, rng: Rng, c: TrsmCase, dtype: DType, m: number, n: number, alpha: number, broadcast: boolean, leaf: [string, TrsmOptions | undefined]): void {
  const t = c.side === 'left' ? m : n;
  const count = countFor(m, n);
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
    trmmCuda(dev, { ...c, alpha, a: batch(dA, la, t, t), b: batch(dB, lb, m, n) }, leaf[1]);
    const what = `trmm (${leaf[0]} leaf) ${dtype} ${caseName(c)} m=${m} n=${n} count=${count} alpha=${alpha}${broadcast ? ' stride-0 A' : ''}`;
    compareOutput(dev.download(dB) as FloatArray, want, inStrided(lb), trsmTolerance(dtype, t), what);
    compareOutput(dev.download(dA) as FloatArray, A, () => false, 0, `${what}: A`);
  } finally {
    dA.dispose();
    dB.dispose();
  }
}

for (const dtype of DTYPES) test(`trmm leaves (default, register, product, shared forced), ${dtype}: every variant, ragged orders, square and thin B, odd ld, poison around B`, { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(dtype === 'float64' ? 1301 : 1303);
  for (const [vi, c] of TRSM_VARIANTS.entries()) for (const t of ORDERS) for (const leaf of LEAVES) {
    // Orders to 40 a quarter of them a variant (each order on 4 variants: a register leaf is a compile per order).
    if (t <= 40 && (t + vi) % 4 !== 0) continue;
    // The product leaf forced on half the variants (float32's default takes it from 32 on all of them).
    if (leaf[0] === 'product' && vi % 2 === 1) continue;
    // Square B to 129, then thin (3 and 33 vectors: a ragged chunk, two chunks).
    const widths = t <= 129 ? [t] : [3, 33];
    for (const w of widths) {
      const [m, n] = c.side === 'left' ? [t, w] : [w, t];
      checkStrided(dev, rng, c, dtype, m, n, (t + vi) % 2 === 0 ? 1 : -2.5, t % 7 === 3, leaf);
    }
  }
});

test('trmm register and product leaves: alpha 0 zeroes B; one vector; list batches in reverse order with A broadcast', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1302);
  for (const dtype of DTYPES) for (const c of TRSM_VARIANTS) for (const leaf of FORCED_SMALL) {
    for (const t of [1, 17, 32, 65]) {
      checkStrided(dev, rng, c, dtype, c.side === 'left' ? t : 1, c.side === 'left' ? 1 : t, -2.5, false, leaf);
      checkStrided(dev, rng, c, dtype, t, t, 0, false, LEAVES[0]!);
    }
    for (const [t, w] of [[32, 32], [31, 45], [100, 7]] as const) {
      const [m, n] = c.side === 'left' ? [t, w] : [w, t];
      const count = 5;
      const la = oddLayout(t, t, count), lb = oddLayout(m, n, count);
      const A = randomBuffer(rng, dtype, layoutLength(la));
      fillTriangle(rng, A, la.offset, la.ld, t, c.uplo, c.diag);
      poisonOutside(A, la);
      const B = randomBuffer(rng, dtype, layoutLength(lb));
      poisonOutside(B, lb);
      const batches = <S extends FloatArray | DeviceArray>(a: S, b: S) => ({
        a: list(Array.from({ length: count }, () => ({ data: a, offset: la.offset })), { rows: t, ld: la.ld }),
        b: list(Array.from({ length: count }, (_, i) => ({ data: b, offset: lb.offset + (count - 1 - i) * lb.stride })), { rows: m, cols: n, ld: lb.ld }),
      });
      const want = B.slice();
      cpuTrmm({ ...c, alpha: -2.5, ...batches(A, want) });
      const dA = dev.upload(A), dB = dev.upload(B);
      try {
        trmmCuda(dev, { ...c, alpha: -2.5, ...batches(dA, dB) }, leaf[1]);
        compareOutput(dev.download(dB) as FloatArray, want, inStrided(lb), trsmTolerance(dtype, t), `trmm ${leaf[0]} leaf ${dtype} ${caseName(c)} list m=${m} n=${n}`);
      } finally {
        dA.dispose();
        dB.dispose();
      }
    }
  }
});
