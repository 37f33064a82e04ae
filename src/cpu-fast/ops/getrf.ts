/**
 * getrf, gesv, getrs: generated unrolled kernels up to unrollMax; getrf/gesv above, the
 * WebAssembly LU (ops/getrf-wasm.ts: unblocked, then from luWasmBlock.min the delayed-update
 * kernel) up to luWasmMax and the recursive blocked one (ops/getrf-blocked.ts) from
 * luBlocked.min, at any size; getrs ('N') above unrollMax up to luWasmMax on that kernel's
 * solve (ops/getrf-wasm.ts getrsWasm); getrs 'T' above unrollMax.getrsTrans up to triSolveWasmMax
 * on the WebAssembly solves (ops/trsm-wasm.ts); empty shapes on the reference. gesv of
 * strided runs takes the interleaved LU (ops/gesv-interleaved.ts) where tuning.ts's
 * gesvInterleaved enables it and the layout suits.
 */
import { dtypeOfArray, type FloatArray } from '../../core/dtype.js';
import type { GesvRequest, GetrfRequest, GetrsRequest, Op } from '../../core/ops.js';
import { cpuGesv, cpuGetrf, cpuGetrs } from '../../cpu/lapack/index.js';
import { kernelFactory } from '../jit/compile.js';
import { generateGetrfJs, type GetrfJsKernel, type GetrfJsParams } from '../kernels/getrf-js.js';
import { planGetrf, type GetrfForce, type LuOp } from '../plan/getrf.js';
import { cpuScratch, cpuTuning } from '../context.js';
import type { OpOptions } from '../tuning.js';
import { gesvInterleaved } from './gesv-interleaved.js';
import { getrfBlocked } from './getrf-blocked.js';
import { getrfBlockWasm, getrfWasm, getrsWasm } from './getrf-wasm.js';
import { runBatch, stridedView } from './run-batch.js';
import { getrsTransWasm } from './trsm-wasm.js';

type Req = GetrsRequest<FloatArray, Int32Array>;

const kernelFor = kernelFactory<GetrfJsParams, GetrfJsKernel>(generateGetrfJs);


export type GetrfOptions = OpOptions<GetrfForce>;

function run(op: LuOp, r: Req, fallback: (r: Req) => void, options: GetrfOptions = {}): void {
  runBatch(r, {
    shapeOf: r.a,
    kernel(m, p0, count): boolean {
      const dtype = dtypeOfArray(m.data, 'a.data');
      const plan = planGetrf({ op, m: m.rows, n: m.cols, trans: r.trans, dtype, count }, options.tuning ?? cpuTuning(), options.force);
      let variant = plan.variant;
      if (variant === 'interleaved' && !gesvInterleaved(r, m, p0, count)) variant = plan.otherwise;
      switch (variant) {
        case 'reference': return false;
        case 'interleaved': return true;
        case 'solveTransWasm': getrsTransWasm(r, m, p0, count); return true;
        case 'solveWasm': getrsWasm(r, m, p0, count); return true;
        case 'blocked': getrfBlocked(r, m, p0, count, op === 'gesv' ? r.b : undefined); return true;
        case 'wasm': getrfWasm(r, m, p0, count, op === 'gesv' ? r.b : undefined); return true;
        case 'wasmBlock': getrfBlockWasm(r, m, p0, count, op === 'gesv' ? r.b : undefined); return true;
        case 'unrolled': break;
      }
      const scratch = cpuScratch().f64('getrfJs', m.rows * m.cols);
      const rhs = cpuScratch().f64('getrfJsRhs', m.rows);
      const trans: Op = op === 'getrs' ? r.trans : 'N';
      const k = kernelFor({ op, m: m.rows, n: m.cols, trans, dtype });
      const aStride = r.a.kind === 'strided' ? r.a.stride : 0;
      const b = op === 'getrf' ? null : stridedView(r.b, p0);
      k(m.data, m.offset, m.ld, aStride, b ? b.data : null, b ? b.offset : 0, b ? b.ld : 1, b ? b.stride : 0, b ? b.cols : 0,
        r.info, p0, r.ipiv, p0 * r.pivotStride, r.pivotStride, count, scratch, rhs);
      return true;
    },
    fallback,
  });
}

export const fastGetrf = (r: GetrfRequest<FloatArray, Int32Array>, options?: GetrfOptions): void =>
  run('getrf', { ...r, trans: 'N', b: r.a }, (s) => cpuGetrf({ a: s.a, ipiv: s.ipiv, pivotStride: s.pivotStride, info: s.info }), options);
export const fastGesv = (r: GesvRequest<FloatArray, Int32Array>, options?: GetrfOptions): void =>
  run('gesv', { ...r, trans: 'N' }, (s) => cpuGesv({ a: s.a, b: s.b, ipiv: s.ipiv, pivotStride: s.pivotStride, info: s.info }), options);
export const fastGetrs = (r: GetrsRequest<FloatArray, Int32Array>, options?: GetrfOptions): void => run('getrs', r, cpuGetrs, options);
