/**
 * LU on the GPU of float32 / complex64 matrices whose pivot stores as zero in single precision
 * (test/helpers/rounded-pivot.ts: exact tiny powers of two that round to +-0 or to 2^-149), as the
 * CPU backends are held to in test/cpu/lu-rounded-pivot.test.ts: getrf and gesv through a CUDA
 * context, orders that reach the register, warp, tall/wide, blocked and single-matrix designs, one
 * matrix and batches whose members 1 and 2 are special among dense neighbours. Checked: info of
 * every member (k + 2 where the pivot stores as zero, else 0), the special members' pivots and
 * stored U(k+1, k+1), a failed member's B bit for bit untouched, the others' residuals; float64 and
 * complex128 as the control (the same matrices regular). Skips with one line where no GPU is usable.
 */
import { test } from 'node:test';
import { COMPLEX_KINDS, REAL_KINDS, check, isComplex, viaContext, type Case } from '../helpers/rounded-pivot.js';
import { gpuContext, gpuSkipReason } from '../helpers/gpu.js';

const skip = gpuSkipReason();

const ORDERS = [2, 3, 8, 16, 17, 24, 32, 33, 48, 64, 100, 130, 256];

for (const dtype of ['float32', 'complex64', 'float64', 'complex128'] as const) {
  test(`GPU ${dtype} getrf and gesv: a pivot that stores as zero in single precision is zero`, { skip, timeout: 300_000 }, () => {
    const { ctx } = gpuContext();
    const gpu = viaContext(ctx);
    for (const n of ORDERS) for (const kind of isComplex(dtype) ? COMPLEX_KINDS : REAL_KINDS) {
      if (kind.size > n) continue;
      for (const count of n <= 64 ? [1, 5, 64] : [1, 5]) {
        const c: Case = { dtype, n, kind, count, nrhs: 1 + (n % 2) };
        for (const op of ['getrf', 'gesv'] as const) check('cuda', c, op, gpu);
      }
    }
  });
}
