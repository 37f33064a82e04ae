/**
 * LU on the GPU of float32 / complex64 matrices whose pivot stores as zero in single precision
 * (test/helpers/rounded-pivot.ts: exact tiny powers of two that round to +-0 or to 2^-149), as the
 * CPU backends are held to in test/cpu/lu-rounded-pivot.test.ts: getrf and gesv through a CUDA
 * context, orders that reach the register, warp, tall/wide, blocked and single-matrix designs, one
 * matrix and batches whose members 1 and 2 are special among dense neighbours. Checked: info of
 * every member (k + 2 where the pivot stores as zero, else 0), the special members' pivots and
 * stored U(k+1, k+1), a failed member's B bit for bit untouched, the others' residuals (a stored pivot
 * that is subnormal, not zero, solves: X finite); float64 and complex128 as the control (the same
 * matrices regular); the real types on the vendor routes forced too. Skips with one line where no
 * GPU is usable.
 */
import { test } from 'node:test';
import { COMPLEX_KINDS, REAL_KINDS, check, isComplex, viaContext, type Case } from '../helpers/rounded-pivot.js';
import { vendorUsable } from '../../src/cuda/vendor/index.js';
import { gpu, gpuContext, gpuSkipReason } from '../helpers/gpu.js';

const skip = gpuSkipReason();

const ORDERS = [2, 3, 8, 16, 17, 24, 32, 33, 48, 64, 100, 130, 256];

/** Every kind at each order, one matrix and batches, getrf and gesv; `force` pins routes (a vendor's). */
function checkOrders(dtype: Case['dtype'], orders: readonly number[], force: Partial<Record<'getrf' | 'gesv', string>> = {}, nrhs?: number): void {
  const { ctx, backend } = gpuContext();
  const gpu = viaContext(ctx);
  const saved = backend.force;
  backend.force = { ...saved, ...force };
  const label = Object.keys(force).length === 0 ? 'cuda' : `cuda (forced ${JSON.stringify(force)})`;
  try {
    for (const n of orders) for (const kind of isComplex(dtype) ? COMPLEX_KINDS : REAL_KINDS) {
      if (kind.size > n) continue;
      for (const count of n <= 64 ? [1, 5, 64] : [1, 5]) {
        const c: Case = { dtype, n, kind, count, nrhs: nrhs ?? 1 + (n % 2) };
        for (const op of ['getrf', 'gesv'] as const) check(label, c, op, gpu);
      }
    }
  } finally {
    backend.force = saved;
  }
}

// From 256, one float32 or float64 matrix takes the card's cuSOLVER route (model/tuning/vendor-h200.ts),
// which multiplies by a pivot's reciprocal however small: its matrices with such a pivot go to the own
// route (vendor/getrf.ts).
for (const dtype of ['float32', 'complex64', 'float64', 'complex128'] as const) {
  test(`GPU ${dtype} getrf and gesv: a pivot that stores as zero in single precision is zero`, { skip, timeout: 300_000 }, () => checkOrders(dtype, ORDERS));
}

// The vendor routes forced at every order: cuSOLVER's getrf (gesv's factor too, through the router) and
// cuBLAS's gesv (the routed getrf, then cublas?getrsBatched on a factor whose U may hold a subnormal pivot).
for (const dtype of ['float32', 'float64'] as const) {
  test(`GPU ${dtype} getrf and gesv on the vendor routes (forced): a pivot that stores as zero is zero, a subnormal one solves`, { skip, timeout: 300_000 }, (t) => {
    if (!vendorUsable(gpu(), 'cusolver') || !vendorUsable(gpu(), 'cublas')) { t.skip('cuSOLVER or cuBLAS does not load on this machine'); return; }
    checkOrders(dtype, [3, 8, 33, 64, 130, 256], { getrf: 'cusolver', gesv: 'cublas' });
  });
}

// Many right-hand sides: the solves' blocked routes (trsm's recursion and its leaves) on a U whose
// stored pivot is subnormal.
for (const dtype of ['float32', 'complex64'] as const) {
  test(`GPU ${dtype} gesv with 16 and 40 right-hand sides: a subnormal stored pivot solves`, { skip, timeout: 300_000 }, () => {
    for (const nrhs of [16, 40]) checkOrders(dtype, [8, 33, 64, 130, 256], {}, nrhs);
  });
}
