/**
 * The contracts of every LAPACK-level call (test/helpers/contracts.ts) on a multi-device context
 * over fake GPUs (test/helpers/fake-gpus.ts): host batches of random layouts are split among the
 * devices, staged, run and copied back; results, untouched elements, errors and overlap checks
 * must be those of the CPU context. Fixed seeds, bounded runs.
 */
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { referenceContext } from '../../src/api/context.js';
import { CONTRACT_OPS, callArb, checkOverlapCall, checkValidCall, runs } from '../helpers/contracts.js';
import { rig } from '../helpers/fake-gpus.js';

describe('contracts on two and three fake GPUs (fast-check, fixed seed)', () => {
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
