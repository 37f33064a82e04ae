/**
 * The contracts of every LAPACK-level call (test/helpers/contracts.ts) on a multi-device context
 * over fake GPUs (test/helpers/fake-gpus.ts): host batches of random layouts are split among the
 * devices, staged, run and copied back; results, untouched elements, errors and overlap checks
 * must be those of the CPU context. Fixed seeds, bounded runs.
 */
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { referenceContext } from '../../src/api/context.js';
import { CONTRACT_OPS, callArb, checkOverlapCall, checkValidCall, runs, type CallSpec } from '../helpers/contracts.js';
import type { LayoutSpec } from '../helpers/contract-calls.js';
import { rig } from '../helpers/fake-gpus.js';

/**
 * Counterexamples found on the GPU machine, pinned: the random runs here need not meet them.
 * gels with min(m, n) = 0 (B := 0, as dgels): device calls reached the CPU fallback and zeroed B
 * while host calls (and so the reference) stopped at the context's empty-call shortcut.
 */
const COL: LayoutSpec = { kind: 'strided', order: 'col', ldPad: 0, offset: 0, gap: 0, tail: 0 };
const PINNED: readonly CallSpec[] = [[1, 0, 1], [0, 1, 1], [2, 0, 2], [1, 0, 0], [0, 0, 1]].map(([m, n, k]) => ({
  op: 'gels', dtype: 'float64', uplo: 'lower', transA: 'N', transB: 'N', side: 'left', diag: 'unit', jobz: 'values',
  alpha: 1, beta: 0, giveInts: false, seed: 0, dims: [{ m: m!, n: n!, k: k! }], layouts: { a: COL, b: COL },
}));

describe('contracts on two and three fake GPUs (fast-check, fixed seed)', () => {
  it('pinned counterexamples agree with the CPU reference, host and device-resident', () => {
    for (const spec of PINNED) {
      checkValidCall(rig(1).ctx, referenceContext, spec);
      checkValidCall(rig(1).ctx, referenceContext, spec, 'device');
    }
  });
  it('valid calls of every op agree with the CPU reference and write nothing else', () => {
    const two = rig(2).ctx;
    const three = rig(3, [1, 2, 1]).ctx;
    fc.assert(fc.property(callArb(CONTRACT_OPS, 5, 6), fc.boolean(), (spec, pickTwo) => checkValidCall(pickTwo ? two : three, referenceContext, spec)), runs(300, 3400));
  });
  it('valid calls on device-resident batches (upload, run, download) on one fake GPU', () => {
    const one = rig(1).ctx;
    fc.assert(fc.property(callArb(CONTRACT_OPS, 5, 4), (spec) => checkValidCall(one, referenceContext, spec, 'device')), runs(150, 3401));
  });
  it('an output sharing a byte with another argument is rejected; the same placement without one is not', () => {
    const { ctx } = rig(2);
    fc.assert(fc.property(callArb(CONTRACT_OPS, 4, 3), fc.nat(11), fc.nat(40), (spec, pick, shift) => {
      checkOverlapCall(ctx, spec, pick, shift);
    }), runs(200, 3415));
  });
});
