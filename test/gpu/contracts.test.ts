/**
 * The contracts of every LAPACK-level call (test/helpers/contracts.ts) on a CUDA context, with
 * host batches (staged to the GPU and back) and device-resident ones, against the CPU
 * reference: random shapes, layouts, dtypes and enums; agreement, nothing written outside what
 * a call may write, invalid calls named and harmless, overlaps rejected. Fixed seeds and bounded runs: small sizes (the unrolled
 * kernels) many times, where every operation with a GPU design must take it (ctx.lastRoute), sizes
 * up to 40 (the blocked paths) a few times. The same properties on each vendor route (cuBLAS,
 * cuSOLVER), forced, over the calls it takes. Skips with one line where no GPU is usable.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Context, referenceContext } from '../../src/api/context.js';
import { open } from '../../src/api/open.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { hasGpuOp } from '../../src/cuda/router.js';
import { vendorUsable, type VendorLibrary } from '../../src/cuda/vendor/index.js';
import { BREAKAGES, COMPLEX_CONTRACT_OPS, CONTRACT_OPS, callArb, checkInvalidCall, checkOverlapCall, checkValidCall, runs, type CallSpec, type ContractOp } from '../helpers/contracts.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';

const skip = gpuSkipReason();

describe('contracts on the CUDA context (fast-check, fixed seed)', { skip }, () => {
  for (const op of CONTRACT_OPS) {
    it(`${op}: small sizes agree with the CPU reference and write nothing else, on the GPU route`, () => {
      const gpu = open({ backend: 'cuda' });
      let onGpu = 0;
      fc.assert(fc.property(callArb([op], 6, 5), (spec) => {
        checkValidCall(gpu, referenceContext, spec);
        if (gpu.lastRoute?.op === op && gpu.lastRoute.gpu) onGpu++;
      }), runs(40, 2400 + CONTRACT_OPS.indexOf(op)));
      // Every operation with a GPU design takes it at these sizes: the suite checks that design, not the CPU fallback.
      if (hasGpuOp(op)) assert.ok(onGpu > 0, `${op}: no call took a GPU route`);
    });
    it(`${op}: device-resident batches (upload, run, download)`, () => {
      const gpu = open({ backend: 'cuda' });
      fc.assert(fc.property(callArb([op], 6, 5), (spec) => checkValidCall(gpu, referenceContext, spec, 'device')), runs(20, 2600 + CONTRACT_OPS.indexOf(op)));
    });
    it(`${op}: sizes up to 40`, () => {
      const gpu = open({ backend: 'cuda' });
      fc.assert(fc.property(callArb([op], 40, 3), (spec) => checkValidCall(gpu, referenceContext, spec)), runs(6, 2500 + CONTRACT_OPS.indexOf(op)));
    });
  }
  for (const op of COMPLEX_CONTRACT_OPS) {
    it(`${op} on complex128 and complex64: host and device-resident batches agree with the CPU reference and write nothing else`, () => {
      const gpu = open({ backend: 'cuda' });
      fc.assert(fc.property(callArb([op], 6, 5, 'complex'), (spec) => checkValidCall(gpu, referenceContext, spec)), runs(30, 3500 + CONTRACT_OPS.indexOf(op)));
      fc.assert(fc.property(callArb([op], 6, 5, 'complex'), (spec) => checkValidCall(gpu, referenceContext, spec, 'device')), runs(15, 3600 + CONTRACT_OPS.indexOf(op)));
      fc.assert(fc.property(callArb([op], 40, 3, 'complex'), (spec) => checkValidCall(gpu, referenceContext, spec)), runs(4, 3700 + CONTRACT_OPS.indexOf(op)));
    });
  }
  it('invalid calls throw a MyriadError naming an argument and change no buffer', () => {
    const gpu = open({ backend: 'cuda' });
    fc.assert(fc.property(callArb(), fc.constantFrom(...BREAKAGES), fc.nat(11), (spec, how, pick) => {
      checkInvalidCall(gpu, spec, how, pick);
    }), runs(200, 2414));
  });
  it('pivots that getrs and getri read: missing, short or out of [j, n) are rejected naming ipiv', () => {
    const gpu = open({ backend: 'cuda' });
    let applied = 0;
    fc.assert(fc.property(callArb(['getrs', 'getri']), fc.nat(11), (spec, pick) => {
      if (checkInvalidCall(gpu, spec, 'ipiv', pick)) applied++;
    }), runs(100, 2416));
    assert.ok(applied >= 50, `only ${applied} of 100 calls could be broken`);
  });
  it('an output sharing a byte with another argument is rejected; the same placement without one is not', () => {
    const gpu = open({ backend: 'cuda' });
    fc.assert(fc.property(callArb(CONTRACT_OPS, 4, 3), fc.nat(11), fc.nat(40), (spec, pick, shift) => {
      checkOverlapCall(gpu, spec, pick, shift);
    }), runs(200, 2415));
  });
});

/** The vendor routes, each with the library it needs and the calls it takes when forced (cuBLAS gemm: alpha != 0, k > 0; cuBLAS getrf: square). */
const VENDOR_ROUTES: readonly { op: ContractOp; route: string; library: VendorLibrary; takes: (s: CallSpec) => boolean }[] = [
  { op: 'gemm', route: 'cublas', library: 'cublas', takes: (s) => s.alpha !== 0 && s.dims.every((d) => d.k > 0) },
  { op: 'potrf', route: 'cusolver', library: 'cusolver', takes: () => true },
  { op: 'getrf', route: 'cusolver', library: 'cusolver', takes: () => true },
  { op: 'syev', route: 'cusolver', library: 'syevBatched', takes: () => true },
];

describe('contracts on the vendor routes, each forced (fast-check, fixed seed)', { skip }, () => {
  VENDOR_ROUTES.forEach(({ op, route, library, takes }, v) => {
    const forced = (): Context | undefined => {
      const dev = gpu();
      if (!vendorUsable(dev, library)) return undefined;
      const backend = new CudaBackend(dev, 'test');
      backend.force = { [op]: route };
      return new Context('cuda', backend, backend);
    };
    it(`${op} on '${route}': small sizes agree with the CPU reference and write nothing else`, (t) => {
      const ctx = forced();
      if (ctx === undefined) { t.skip(`${library} does not load on this machine`); return; }
      fc.assert(fc.property(callArb([op], 6, 5), (spec) => { fc.pre(takes(spec)); checkValidCall(ctx, referenceContext, spec); }), runs(40, 2700 + v));
    });
    it(`${op} on '${route}': device-resident batches, sizes up to 40`, (t) => {
      const ctx = forced();
      if (ctx === undefined) { t.skip(`${library} does not load on this machine`); return; }
      fc.assert(fc.property(callArb([op], 6, 5), (spec) => { fc.pre(takes(spec)); checkValidCall(ctx, referenceContext, spec, 'device'); }), runs(20, 2800 + v));
      fc.assert(fc.property(callArb([op], 40, 3), (spec) => { fc.pre(takes(spec)); checkValidCall(ctx, referenceContext, spec); }), runs(6, 2900 + v));
    });
  });
});
