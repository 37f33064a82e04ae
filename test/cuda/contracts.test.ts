/**
 * The contracts of every LAPACK-level call (test/helpers/contracts.ts) on a multi-device context
 * over fake GPUs (test/helpers/fake-gpus.ts): host batches of random layouts are split among the
 * devices, staged, run and copied back; results, untouched elements, errors and overlap checks
 * must be those of the CPU context. Fixed seeds, bounded runs.
 */
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { referenceContext } from '../../src/api/context.js';
import { COMPLEX_CONTRACT_OPS, CONTRACT_OPS, callArb, checkOverlapCall, checkValidCall, runs, type CallSpec } from '../helpers/contracts.js';
import { BATCH_NAMES, type LayoutSpec } from '../helpers/contract-calls.js';
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

/**
 * Every op at every size with a zero among m, n, k in 0..2 (two matrices, padded layouts, both
 * settings of each enum): where the context's empty-call shortcut and the backend's CPU fallback
 * meet, so host and device-resident calls must agree with the reference exactly there.
 */
const PADDED: LayoutSpec = { kind: 'strided', order: 'col', ldPad: 1, offset: 1, gap: 1, tail: 1 };
const ZERO_DIMS = [0, 1, 2].flatMap((m) => [0, 1, 2].flatMap((n) => [0, 1, 2].map((k) => ({ m, n, k })))).filter((d) => d.m * d.n * d.k === 0);
const zeroSpecs = (op: CallSpec['op']): CallSpec[] => ZERO_DIMS.flatMap((d) => ([['lower', 'N', 'left', 'values'], ['upper', 'T', 'right', 'vectors']] as const).map(([uplo, t, side, jobz]) => ({
  op, dtype: 'float64' as const, uplo, transA: t, transB: t, side, diag: 'nonunit' as const, jobz, alpha: 1, beta: 0.5, giveInts: true, seed: 7,
  dims: [d, d], layouts: Object.fromEntries(BATCH_NAMES.map((name) => [name, PADDED])),
})));

describe('contracts on two and three fake GPUs (fast-check, fixed seed)', () => {
  it('every op with m, n or k = 0 agrees with the CPU reference, host and device-resident', () => {
    const one = rig(1).ctx;
    for (const op of CONTRACT_OPS) for (const spec of zeroSpecs(op)) {
      checkValidCall(one, referenceContext, spec);
      checkValidCall(one, referenceContext, spec, 'device');
    }
  });
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
  it('valid calls of every op on complex128 and complex64 host batches agree with the CPU reference and write nothing else', () => {
    const two = rig(2).ctx;
    const three = rig(3, [1, 2, 1]).ctx;
    fc.assert(fc.property(callArb(COMPLEX_CONTRACT_OPS, 5, 6, 'complex'), fc.boolean(), (spec, pickTwo) => checkValidCall(pickTwo ? two : three, referenceContext, spec)), runs(150, 3420));
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
