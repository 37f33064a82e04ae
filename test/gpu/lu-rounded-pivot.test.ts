/**
 * LU on the GPU of float32 / complex64 matrices whose pivot stores as zero in single precision
 * (test/helpers/rounded-pivot.ts: exact tiny powers of two that round to +-0 or to 2^-149), as the
 * CPU backends are held to in test/cpu/lu-rounded-pivot.test.ts: getrf and gesv through a CUDA
 * context, orders that reach the register, warp, tall/wide, blocked and single-matrix designs, one
 * matrix and batches whose members 1 and 2 are special among dense neighbours. Checked: info of
 * every member (k + 2 where the pivot stores as zero, else 0), the special members' pivots and
 * stored U(k+1, k+1), a failed member's B bit for bit untouched, the others' residuals (a stored pivot
 * that is subnormal, not zero, solves: X finite); float64 and complex128 as the control (the same
 * matrices regular). float32 from 256 is a todo (the cuSOLVER route's info, below). Skips with one
 * line where no GPU is usable.
 */
import { test } from 'node:test';
import { COMPLEX_KINDS, REAL_KINDS, check, isComplex, viaContext, type Case } from '../helpers/rounded-pivot.js';
import { gpuContext, gpuSkipReason } from '../helpers/gpu.js';

const skip = gpuSkipReason();

const ORDERS = [2, 3, 8, 16, 17, 24, 32, 33, 48, 64, 100, 130, 256];

/** Every kind at each order, one matrix and batches, getrf and gesv. */
function checkOrders(dtype: Case['dtype'], orders: readonly number[]): void {
  const { ctx } = gpuContext();
  const gpu = viaContext(ctx);
  for (const n of orders) for (const kind of isComplex(dtype) ? COMPLEX_KINDS : REAL_KINDS) {
    if (kind.size > n) continue;
    for (const count of n <= 64 ? [1, 5, 64] : [1, 5]) {
      const c: Case = { dtype, n, kind, count, nrhs: 1 + (n % 2) };
      for (const op of ['getrf', 'gesv'] as const) check('cuda', c, op, gpu);
    }
  }
}

for (const dtype of ['float32', 'complex64', 'float64', 'complex128'] as const) {
  // float32 from 256: one matrix takes the card's cuSOLVER route (model/tuning/vendor-h200.ts), which
  // reported the tie member's info one step late on an H200 (68 against 67): an open defect of that
  // route's info, kept as a todo until it is fixed.
  const orders = dtype === 'float32' ? ORDERS.filter((n) => n < 256) : ORDERS;
  test(`GPU ${dtype} getrf and gesv: a pivot that stores as zero in single precision is zero`, { skip, timeout: 300_000 }, () => checkOrders(dtype, orders));
}
test('GPU float32 getrf and gesv from 256 (one matrix on the cuSOLVER route): a pivot that stores as zero is zero', {
  skip, timeout: 300_000, todo: 'the cuSOLVER route reported the tie member\'s info as 68 against 67 (H200)',
}, () => checkOrders('float32', ORDERS.filter((n) => n >= 256)));
