/**
 * potrf/posv ('lower') above the unrolled sizes: chunks of matrices packed as float64 into the
 * WebAssembly memory, factored by the generated kernel (kernels/potrf-wasm.ts), the lower
 * triangle unpacked; posv then solves each matrix that factored from the packed factor.
 * Bitwise the reference's results.
 */
import { matrixAt, type Batch, type MatrixView } from '../../core/batch.js';
import { dtypeOfArray, type DType, type FloatArray } from '../../core/dtype.js';
import type { PotrfRequest } from '../../core/ops.js';
import { kernelFactory, moduleFactory } from '../jit/compile.js';
import { generatePotrsJs, type PotrsJsKernel } from '../kernels/potrs-js.js';
import { generatePack, type PackKernel, type PackParams } from '../kernels/pack.js';
import { cholLd, generatePotrfWasm, type PotrfWasmParams } from '../kernels/potrf-wasm.js';
import { cpuScratch, fmaFor, wasmChunk } from '../context.js';
import { stridedView } from './run-batch.js';
import { heap, heapInts, loadModule } from '../wasm/runtime.js';

type WasmPotrf = (a: number, info: number, count: number) => void;
const kernel = moduleFactory<PotrfWasmParams, WasmPotrf>(generatePotrfWasm, 'potrf', loadModule);
const packKernel = kernelFactory<PackParams, PackKernel>(generatePack);
const solveKernel = kernelFactory<{ dtype: DType }, PotrsJsKernel>(generatePotrsJs);

/**
 * Factors `count` matrices from matrix p0 (an 'upper' one through its transpose: the packed copy
 * holds U^T = L, so the same kernel and the same solve serve); with `b` (posv) solves those with info = 0.
 */
export function potrfWasm(r: PotrfRequest<FloatArray, Int32Array>, first: MatrixView<FloatArray>, p0: number, count: number, b?: Batch<FloatArray>): void {
  const n = first.rows;
  const dtype = dtypeOfArray(first.data, 'a.data');
  const ld = cholLd(n);
  const per = ld * n * 8 + 4;
  const chunk = wasmChunk(count, per);
  const infoBase = chunk * ld * n * 8;
  const { f64 } = heap(infoBase + chunk * 4 + 16);
  const ints = heapInts();
  const fn = kernel({ n, fma: fmaFor('potrf', n) });
  const solve = solveKernel({ dtype });
  // 'upper': the kernel factors the packed transpose (A = U^T U, U^T = L), written back transposed
  const upper = r.uplo === 'upper';
  const packIn = packKernel({ dtype, trans: upper ? 'T' : 'N', direction: 'in', packed: 'float64' });
  const packOut = packKernel(upper ? { dtype, trans: 'T', direction: 'out', packed: 'float64', upper: true }
    : { dtype, trans: 'N', direction: 'out', packed: 'float64', lower: true });
  const scratch = cpuScratch().f64('potrfWasmSolve', n);
  for (let q = p0; q < p0 + count; q += chunk) {
    const c = Math.min(chunk, p0 + count - q);
    const A = stridedView(r.a, q);
    packIn(A.data, A.offset, A.ld, A.stride, f64, 0, ld, ld * n, n, n, c);
    fn(0, infoBase, c);
    packOut(f64, 0, ld, ld * n, A.data, A.offset, A.ld, A.stride, n, n, c);
    for (let t = 0; t < c; t++) {
      const info = ints[infoBase / 4 + t]!;
      r.info[q + t] = info;
      if (b && info === 0) {
        const B = matrixAt(b, q + t);
        solve(f64, t * ld * n, ld, n, B.data, B.offset, B.ld, B.cols, scratch);
      }
    }
  }
}
