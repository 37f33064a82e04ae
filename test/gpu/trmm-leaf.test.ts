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

import type { DType } from '../../src/core/dtype.js';
import { trmmCuda, type TrsmOptions } from '../../src/cuda/kernels/trsm/index.js';
import type { GpuDevice } from '../../src/cuda/runtime/index.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';
import { checkTrmmList, checkTrmmStrided } from '../helpers/trmm-gpu-checks.js';
import { TRSM_VARIANTS, type TrsmCase } from '../helpers/trsm-data.js';

const skip = gpuSkipReason();
const DTYPES: DType[] = ['float64', 'float32'];
const ORDERS = [...Array.from({ length: 40 }, (_, i) => i + 1), 47, 63, 65, 127, 129, 255, 257, 511, 513];
const LEAVES: [string, TrsmOptions | undefined][] = [
  ['default', undefined], ['register', { force: { trmmLeaf: 'register' } }], ['product', { force: { trmmLeaf: 'product' } }], ['shared', { force: { trmmLeaf: 'shared' } }],
];
/** The leaves of 32 and below that are not the default's choice alone: each forced in the edge cases. */
const FORCED_SMALL = [LEAVES[1]!, LEAVES[2]!];

function checkStrided(dev: GpuDevice, rng: Rng, c: TrsmCase, dtype: DType, m: number, n: number, alpha: number, broadcast: boolean, leaf: [string, TrsmOptions | undefined]): void {
  checkTrmmStrided(dev, rng, c, dtype, m, n, alpha, (a, b) => trmmCuda(dev, { ...c, alpha, a, b }, leaf[1]), `trmm (${leaf[0]} leaf)`, { broadcast });
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
      checkTrmmList(dev, rng, c, dtype, t, w, (a, b) => trmmCuda(dev, { ...c, alpha: -2.5, a, b }, leaf[1]), `trmm ${leaf[0]} leaf`);
    }
  }
});
