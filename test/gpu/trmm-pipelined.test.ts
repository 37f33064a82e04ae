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

import type { DType } from '../../src/core/dtype.js';
import { trmmCuda, type TrsmOptions } from '../../src/cuda/kernels/trsm/index.js';
import type { GpuDevice } from '../../src/cuda/runtime/index.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';
import { checkTrmmList, checkTrmmStrided, type TrmmStridedOptions } from '../helpers/trmm-gpu-checks.js';
import { TRSM_VARIANTS, type TrsmCase } from '../helpers/trsm-data.js';

const skip = gpuSkipReason();
const DTYPES: DType[] = ['float64', 'float32'];
const ORDERS = [1, 7, 32, 33, 64, 100, 128, 257];
const LEFT = TRSM_VARIANTS.filter((c) => c.side === 'left');
const PIPELINED: TrsmOptions = { force: { trmmLeaf: 'pipelined' } };

function checkStrided(dev: GpuDevice, rng: Rng, c: TrsmCase, dtype: DType, m: number, n: number, alpha: number, opts: TrsmOptions | undefined, over: TrmmStridedOptions = {}): void {
  checkTrmmStrided(dev, rng, c, dtype, m, n, alpha, (a, b) => trmmCuda(dev, { ...c, alpha, a, b }, opts), `trmm (${opts === undefined ? 'default' : 'pipelined'})`, over);
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
    checkTrmmList(dev, rng, c, dtype, t, w, (a, b) => trmmCuda(dev, { ...c, alpha: -2.5, a, b }, PIPELINED), 'trmm pipelined');
  }
});
