/**
 * potrf, posv, potrs: generated unrolled kernels up to unrollMax; above, WebAssembly (either
 * triangle: 'upper' through its transpose) up to choleskyWasmMax (ops/potrf-wasm.ts; potrs
 * to triSolveWasmMax, ops/trsm-wasm.ts); the reference for the rest. A blocked right-looking Cholesky in the caller's arrays (trsm and syrk
 * on the fast kernels, each call packing its operands) was tried and measured 1-2.5 GFLOP/s at
 * n = 128-512 against this unblocked kernel's 5.5-9.5: not kept.
 * potrf and posv of strided runs may take the interleaved layout at small n
 * (ops/potrf-interleaved.ts, where tuning.ts's choleskyInterleaved / posvInterleaved enable
 * it and the layout suits); posv n = 9 ... 16 as that potrf, then the WebAssembly potrs on the
 * matrices that factored (posvComposed).
 */
import { matrixAt, type MatrixView } from '../../core/batch.js';
import { dtypeOfArray, type FloatArray } from '../../core/dtype.js';
import { byPrecision } from '../../core/dtype-table.js';
import type { PosvRequest, PotrfRequest, PotrsRequest } from '../../core/ops.js';
import { cpuPosv, cpuPotrf, cpuPotrs } from '../../cpu/lapack/index.js';
import { kernelFactory } from '../jit/compile.js';
import { generatePotrfJs, type PotrfJsKernel, type PotrfJsParams } from '../kernels/potrf-js.js';
import { planPotrf, type PotrfForce, type CholeskyOp } from '../plan/potrf.js';
import type { OpOptions } from '../tuning.js';
import { cpuTuning } from '../context.js';
import { posvInterleaved, potrfInterleaved } from './potrf-interleaved.js';
import { potrfWasm } from './potrf-wasm.js';
import { runBatch, stridedView } from './run-batch.js';
import { potrsInPlace, potrsWasm } from './trsm-wasm.js';

type Req = PotrsRequest<FloatArray, Int32Array>;
const kernelFor = kernelFactory<PotrfJsParams, PotrfJsKernel>(generatePotrfJs);


export type PotrfOptions = OpOptions<PotrfForce>;

function run(op: CholeskyOp, r: Req, fallback: (r: Req) => void, options: PotrfOptions = {}): void {
  runBatch(r, {
    shapeOf: r.a,
    kernel(m: MatrixView<FloatArray>, p0: number, count: number): boolean {
      const n = m.rows;
      const dtype = dtypeOfArray(m.data, 'a.data');
      const plan = planPotrf({ op, n, dtype, count }, options.tuning ?? cpuTuning(), options.force);
      let variant = plan.variant;
      if (variant === 'composed' && !posvComposed(r, m, p0, count)) variant = plan.otherwise;
      if (variant === 'interleaved' && !(op === 'potrf' ? potrfInterleaved(r, m, p0, count) : posvInterleaved(r, m, p0, count))) variant = plan.otherwise;
      switch (variant) {
        case 'reference': return false;
        case 'composed': case 'interleaved': return true;
        case 'solveWasm': potrsWasm(r, m, p0, count); return true;
        case 'wasm': potrfWasm(r, m, p0, count, op === 'posv' ? r.b : undefined); return true;
        case 'unrolled': break;
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
 * factored (the reference's posv is potrf then potrs on the stored factor: bitwise the same),
 * chunk by chunk, on the factors still in the wasm memory where it can; B of a failed matrix
 * untouched. False (nothing done) where the interleaved layout does not suit.
 */
function posvComposed(r: Req, m: MatrixView<FloatArray>, p0: number, count: number): boolean {
  if (m.rows > cpuTuning().triSolveWasmMax) return false;
  /** The matrices of [q, end) that factored, in runs, through the caller's arrays. */
  const solveRuns = (q: number, end: number): void => {
    while (q < end) {
      if (r.info[q] !== 0) { q++; continue; }
      let e = q + 1;
      while (e < end && r.info[e] === 0) e++;
      potrsWasm(r, q === p0 ? m : matrixAt(r.a, q), q, e - q);
      q = e;
    }
  };
  // Each chunk solved as soon as it is factored, on the factors the potrf kernel left in the
  // wasm memory where every matrix of it factored (float64: one copy of A fewer than potrf then
  // potrs); other chunks through the caller's arrays.
  let plan: ReturnType<typeof potrsInPlace> | null = byPrecision<null | undefined>(dtypeOfArray(m.data, 'a.data'), { double: null, single: undefined });
  return potrfInterleaved(r, m, p0, count, undefined, undefined, (q, c) => {
    const q0 = p0 + q;
    // (planned at the first chunk: after potrf has sized the memory)
    if (plan === null) plan = potrsInPlace(r, m.rows, p0, count);
    let ok = plan !== undefined && c <= plan.chunk;
    for (let t = q0; ok && t < q0 + c; t++) ok = r.info[t] === 0;
    if (ok) plan!.run(q, c); else solveRuns(q0, q0 + c);
  });
}

export const fastPotrf = (r: PotrfRequest<FloatArray, Int32Array>, options?: PotrfOptions): void =>
  run('potrf', { ...r, b: r.a }, (s) => cpuPotrf({ uplo: s.uplo, a: s.a, info: s.info }), options);
export const fastPosv = (r: PosvRequest<FloatArray, Int32Array>, options?: PotrfOptions): void => run('posv', r, cpuPosv, options);
export const fastPotrs = (r: PotrsRequest<FloatArray, Int32Array>, options?: PotrfOptions): void => run('potrs', r, cpuPotrs, options);
