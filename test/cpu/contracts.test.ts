/**
 * The contracts of every LAPACK-level call as properties (test/helpers/contracts.ts), on the CPU
 * context: fixed seeds, bounded runs (a few seconds in all). The reference is the same CPU
 * backend on packed column-major copies, so these check the layout handling (ld, stride,
 * offset, order, list and variable batches, the row-major mapping and copies), what a call may
 * write, and argument checking. test/gpu/contracts.test.ts runs the same on CUDA.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { open } from '../../src/api/open.js';
import { referenceContext } from '../../src/api/context.js';
import { OP_NAMES } from '../../src/core/ops.js';
import { BREAKAGES, COMPLEX_CONTRACT_OPS, CONTRACT_OPS, callArb, checkInvalidCall, checkOverlapCall, checkValidCall, runs } from '../helpers/contracts.js';

const subject = open({ backend: 'cpu' });

describe('contracts on the CPU context (fast-check, fixed seed)', () => {
  it('cover every operation of the API', () => {
    assert.deepEqual([...CONTRACT_OPS].sort(), [...OP_NAMES].sort());
  });
  for (const op of CONTRACT_OPS) {
    it(`${op}: valid calls agree with the reference and write nothing else`, () => {
      fc.assert(fc.property(callArb([op]), (spec) => checkValidCall(subject, referenceContext, spec)), runs(60, 1400 + CONTRACT_OPS.indexOf(op)));
    });
  }
  for (const op of COMPLEX_CONTRACT_OPS) {
    it(`${op} on complex128 and complex64: valid calls agree with the reference and write nothing else`, () => {
      fc.assert(fc.property(callArb([op], 5, 4, 'complex'), (spec) => checkValidCall(subject, referenceContext, spec)), runs(40, 1500 + CONTRACT_OPS.indexOf(op)));
    });
  }
  it('invalid calls throw a MyriadError naming an argument and change no buffer', () => {
    fc.assert(fc.property(callArb(), fc.constantFrom(...BREAKAGES), fc.nat(11), (spec, how, pick) => {
      checkInvalidCall(subject, spec, how, pick);
    }), runs(400, 1414));
  });
  it('pivots that getrs and getri read: missing, short or out of [j, n) are rejected naming ipiv', () => {
    let applied = 0;
    fc.assert(fc.property(callArb(['getrs', 'getri']), fc.nat(11), (spec, pick) => {
      if (checkInvalidCall(subject, spec, 'ipiv', pick)) applied++;
    }), runs(100, 1416));
    assert.ok(applied >= 50, `only ${applied} of 100 calls could be broken`);
  });
  it('an output sharing a byte with another argument is rejected; the same placement without one is not', () => {
    fc.assert(fc.property(callArb(CONTRACT_OPS, 4, 3), fc.nat(11), fc.nat(40), (spec, pick, shift) => {
      checkOverlapCall(subject, spec, pick, shift);
    }), runs(400, 1415));
  });
});
