/**
 * Householder QR at float64's limits on the GPU (test/helpers/qr-extremes.ts, as the CPU backends'
 * test/cpu/qr-extremes.test.ts): geqrf's R and gels's X of a matrix scaled by 2^700, 2^-700 and
 * 2^-1030 (subnormal elements) against the unscaled matrix's, float64 and complex128, at orders that
 * reach the per-thread, shared-memory and blocked designs. Skips with one line where no GPU is usable.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gpuContext, gpuSkipReason } from '../helpers/gpu.js';
import { scaledQrFailures } from '../helpers/qr-extremes.js';

const skip = gpuSkipReason();
const ORDERS = [5, 20, 48, 100];

for (const complex of [false, true]) {
  test(`GPU ${complex ? 'complex128' : 'float64'} geqrf and gels: R scales with A and X does not, at 2^700, 2^-700 and subnormal 2^-1030`, { skip, timeout: 300_000 }, () => {
    const { ctx } = gpuContext();
    assert.deepEqual(ORDERS.flatMap((n) => scaledQrFailures(ctx, complex, n)), []);
  });
}
