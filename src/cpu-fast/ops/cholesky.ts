/**
 * potrf, posv, potrs: generated unrolled kernels up to UNROLL_MAX; above, WebAssembly (either
 * triangle: 'upper' through its transpose) up to CHOLESKY_WASM_MAX (ops/cholesky-wasm.ts; potrs
 * to TRI_SOLVE_WASM_MAX, ops/tri-solve-wasm.ts); the reference for the rest. A blocked right-looking Cholesky in the caller's arrays (trsm and syrk
 * on the fast kernels, each call packing its operands) was tried and measured 1-2.5 GFLOP/s at
 * n = 128-512 against this unblocked kernel's 5.5-9.5: not kept.
 * potrf and posv of strided runs may take the interleaved layout at small n
 * (ops/cholesky-interleaved.ts, where tuning.ts's CHOLESKY_INTERLEAVED / POSV_INTERLEAVED enable
 * it and the layout suits); posv n = 9 ... 16 as that potrf, then the WebAssembly potrs on the
 * matrices that factored (POSV_COMPOSED).
 */
import { matrixAt, type MatrixView } from '../../core/batch.js';
import type { DType, FloatArray } from '../../core/dtype.js';
import type { PosvRequest, PotrfRequest, PotrsRequest } from '../../core/ops.js';
import { cpuPosv, cpuPotrf, cpuPotrs } from '../../cpu/lapack/index.js';
import { kernelFactory } from '../jit/compile.js';
import { generateCholesky, type CholeskyKernel, type CholeskyOp, type CholeskyParams } from '../kernels/cholesky.js';
import { CHOLESKY_INTERLEAVED, CHOLESKY_WASM_MAX, POSV_COMPOSED, POSV_INTERLEAVED, TRI_SOLVE_WASM_MAX, UNROLL_MAX } from '../tuning.js';
import { posvInterleaved, potrfInterleaved } from './cholesky-interleaved.js';
import { potrfWasm } from './cholesky-wasm.js';
import { runBatch, stridedView } from './run-batch.js';
import { potrsWasm } from './tri-solve-wasm.js';

type Req = PotrsRequest<FloatArray, Int32Array>;
const kernelFor = kernelFactory<CholeskyParams, CholeskyKernel>(generateCholesky);

const dtypeOf = (a: FloatArray): DType => (a instanceof Float32Array ? 'float32' : 'float64');

function run(op: CholeskyOp, r: Req, fallback: (r: Req) => void): void {
  runBatch(r, {
    shapeOf: r.a,
    kernel(m: MatrixView<FloatArray>, p0: number, count: number): boolean {
      const n = m.rows;
      if (op === 'potrs' && n > UNROLL_MAX.potrs) {
        if (n > TRI_SOLVE_WASM_MAX) return false;
        potrsWasm(r, m, p0, count);
        return true;
      }
      if (n > UNROLL_MAX.cholesky) {
        if (n > CHOLESKY_WASM_MAX) return false;
        potrfWasm(r, m, p0, count, op === 'posv' ? r.b : undefined);
        return true;
      }
      const dtype = dtypeOf(m.data);
      if (op === 'posv' && count >= 2 && n >= POSV_COMPOSED.min && n <= POSV_COMPOSED.max && posvComposed(r, m, p0, count)) return true;
      const interleaved = op === 'potrf' ? CHOLESKY_INTERLEAVED[dtype] : op === 'posv' ? POSV_INTERLEAVED : null;
      if (interleaved && count >= 2 && n >= interleaved.min && n <= interleaved.max) {
        if (op === 'potrf' ? potrfInterleaved(r, m, p0, count) : posvInterleaved(r, m, p0, count)) return true;
      }
      const k = kernelFor({ op, n, uplo: r.uplo, dtype });
      const aStride = r.a.kind === 'strided' ? r.a.stride : 0;
      if (op === 'potrf') {
        k(m.data, m.offset, m.ld, aStride, null, 0, 1, 0, 0, r.info, p0, count);
        return true;
      }
      const b = stridedView(r.b, p0);
      k(m.data, m.offset, m.ld, aStride, b.data, b.offset, b.ld, b.stride, b.cols, r.info, p0, count);
      return true;
    },
    fallback,
  });
}

/**
 * posv as the interleaved potrf, then the WebAssembly potrs on each run of matrices that
 * factored (the reference's posv is potrf then potrs on the stored factor: bitwise the same); B
 * of a failed matrix untouched. False (nothing done) where the interleaved layout does not suit.
 */
function posvComposed(r: Req, m: MatrixView<FloatArray>, p0: number, count: number): boolean {
  if (m.rows > TRI_SOLVE_WASM_MAX || !potrfInterleaved(r, m, p0, count)) return false;
  for (let q = p0, end = p0 + count; q < end;) {
    if (r.info[q] !== 0) { q++; continue; }
    let e = q + 1;
    while (e < end && r.info[e] === 0) e++;
    potrsWasm(r, q === p0 ? m : matrixAt(r.a, q), q, e - q);
    q = e;
  }
  return true;
}

export const fastPotrf = (r: PotrfRequest<FloatArray, Int32Array>): void =>
  run('potrf', { ...r, b: r.a }, (s) => cpuPotrf({ uplo: s.uplo, a: s.a, info: s.info }));
export const fastPosv = (r: PosvRequest<FloatArray, Int32Array>): void => run('posv', r, cpuPosv);
export const fastPotrs = (r: PotrsRequest<FloatArray, Int32Array>): void => run('potrs', r, cpuPotrs);
