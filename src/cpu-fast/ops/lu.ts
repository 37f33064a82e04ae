/**
 * getrf, gesv, getrs: generated unrolled kernels up to UNROLL_MAX; getrf/gesv above, the
 * WebAssembly LU (ops/lu-wasm.ts: unblocked, then from LU_WASM_BLOCK.min the delayed-update
 * kernel) up to LU_WASM_MAX and the recursive blocked one (ops/lu-blocked.ts) from
 * LU_BLOCKED.min, at any size; getrs ('N') above UNROLL_MAX up to LU_WASM_MAX on that kernel's
 * solve (ops/lu-wasm.ts getrsWasm); getrs 'T' above UNROLL_MAX.getrsTrans up to TRI_SOLVE_WASM_MAX
 * on the WebAssembly solves (ops/tri-solve-wasm.ts); empty shapes on the reference. gesv of
 * strided runs takes the interleaved LU (ops/lu-interleaved.ts) where tuning.ts's
 * GESV_INTERLEAVED enables it and the layout suits.
 */
import type { DType, FloatArray } from '../../core/dtype.js';
import type { GesvRequest, GetrfRequest, GetrsRequest, Op } from '../../core/ops.js';
import { cpuGesv, cpuGetrf, cpuGetrs } from '../../cpu/lapack/index.js';
import { kernelFactory } from '../jit/compile.js';
import { generateLu, type LuKernel, type LuOp, type LuParams } from '../kernels/lu.js';
import { GESV_INTERLEAVED, LU_BLOCKED, LU_WASM_MAX, TRI_SOLVE_WASM_MAX, UNROLL_MAX } from '../tuning.js';
import { gesvInterleaved } from './lu-interleaved.js';
import { getrfBlocked } from './lu-blocked.js';
import { getrfWasm, getrsWasm } from './lu-wasm.js';
import { runBatch, stridedView } from './run-batch.js';
import { getrsTransWasm } from './tri-solve-wasm.js';

type Req = GetrsRequest<FloatArray, Int32Array>;
let scratch = new Float64Array(UNROLL_MAX.lu * UNROLL_MAX.lu);
let rhs = new Float64Array(UNROLL_MAX.lu);

const kernelFor = kernelFactory<LuParams, LuKernel>(generateLu);

const dtypeOf = (a: FloatArray): DType => (a instanceof Float32Array ? 'float32' : 'float64');

function run(op: LuOp, r: Req, fallback: (r: Req) => void): void {
  runBatch(r, {
    shapeOf: r.a,
    kernel(m, p0, count): boolean {
      if (op === 'gesv' && count >= 2 && m.rows === m.cols) {
        const range = GESV_INTERLEAVED[dtypeOf(m.data)];
        if (m.rows >= range.min && m.rows <= range.max && gesvInterleaved(r, m, p0, count)) return true;
      }
      if (op === 'getrs' && r.trans === 'T' && m.rows > UNROLL_MAX.getrsTrans && m.rows <= TRI_SOLVE_WASM_MAX) {
        getrsTransWasm(r, m, p0, count);
        return true;
      }
      if (m.rows > UNROLL_MAX.lu || m.cols > UNROLL_MAX.lu) {
        if (m.rows === 0 || m.cols === 0) return false;
        if (op === 'getrs') {
          if (r.trans !== 'N' || m.rows > LU_WASM_MAX) return false;
          getrsWasm(r, m, p0, count);
          return true;
        }
        if (Math.min(m.rows, m.cols) >= LU_BLOCKED.min) {
          getrfBlocked(r, m, p0, count, op === 'gesv' ? r.b : undefined);
          return true;
        }
        if (Math.max(m.rows, m.cols) > LU_WASM_MAX) return false;
        getrfWasm(r, m, p0, count, op === 'gesv' ? r.b : undefined);
        return true;
      }
      if (scratch.length < m.rows * m.cols) scratch = new Float64Array(m.rows * m.cols);
      if (rhs.length < m.rows) rhs = new Float64Array(m.rows);
      const trans: Op = op === 'getrs' ? r.trans : 'N';
      const k = kernelFor({ op, m: m.rows, n: m.cols, trans, dtype: dtypeOf(m.data) });
      const aStride = r.a.kind === 'strided' ? r.a.stride : 0;
      const b = op === 'getrf' ? null : stridedView(r.b, p0);
      k(m.data, m.offset, m.ld, aStride, b ? b.data : null, b ? b.offset : 0, b ? b.ld : 1, b ? b.stride : 0, b ? b.cols : 0,
        r.info, p0, r.ipiv, p0 * r.pivotStride, r.pivotStride, count, scratch, rhs);
      return true;
    },
    fallback,
  });
}

export const fastGetrf = (r: GetrfRequest<FloatArray, Int32Array>): void =>
  run('getrf', { ...r, trans: 'N', b: r.a }, (s) => cpuGetrf({ a: s.a, ipiv: s.ipiv, pivotStride: s.pivotStride, info: s.info }));
export const fastGesv = (r: GesvRequest<FloatArray, Int32Array>): void =>
  run('gesv', { ...r, trans: 'N' }, (s) => cpuGesv({ a: s.a, b: s.b, ipiv: s.ipiv, pivotStride: s.pivotStride, info: s.info }));
export const fastGetrs = (r: GetrsRequest<FloatArray, Int32Array>): void => run('getrs', r, cpuGetrs);
