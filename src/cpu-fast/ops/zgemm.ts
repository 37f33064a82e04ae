/**
 * gemm on complex batches: the WebAssembly kernels (kernels/zgemm-wasm.ts) or the generated
 * JavaScript kernels (kernels/zgemm-js.ts) where plan/complex.ts says so, the complex reference
 * (src/cpu/complex/zgemm.ts) for the rest; all three bitwise equal. Strided runs go to a kernel
 * in one call (the WebAssembly one a chunk at a time, copied into its memory as float64 pairs);
 * list batches one matrix at a time (ops/run-batch.ts). The JavaScript kernels take offsets in
 * floats: twice the complex counts.
 */
import { matrixAt } from '../../core/batch.js';
import { isFloat32Array, type ComplexDType, type DType, type FloatArray } from '../../core/dtype.js';
import type { ComplexGemmRequest } from '../../core/op-specs.js';
import { complexReference } from '../../cpu/complex/backend.js';
import { cpuTuning, wasmChunk } from '../context.js';
import { kernelFactory, moduleFactory } from '../jit/compile.js';
import { generatePack, type PackKernel, type PackParams } from '../kernels/pack.js';
import { generateZgemmJs, type ZgemmJsKernel, type ZgemmJsParams } from '../kernels/zgemm-js.js';
import { generateZgemmWasm, type ZgemmWasmParams } from '../kernels/zgemm-wasm.js';
import { planComplexGemm, type ComplexGemmForce } from '../plan/complex.js';
import type { OpOptions } from '../tuning.js';
import { heap, loadModule } from '../wasm/runtime.js';
import { runBatch, stridedView } from './run-batch.js';

type WasmZgemm = (a: number, b: number, c: number, count: number, ar: number, ai: number, br: number, bi: number) => void;
const gemmFor = kernelFactory<ZgemmJsParams, ZgemmJsKernel>(generateZgemmJs);
const wasmFor = moduleFactory<ZgemmWasmParams, WasmZgemm>(generateZgemmWasm, 'zgemm', loadModule);
const packFor = kernelFactory<PackParams, PackKernel>(generatePack);


interface Shape { readonly m: number; readonly n: number; readonly k: number }

/**
 * The WebAssembly kernel on `count` matrices from p0 (one strided run, or one matrix of a list):
 * each operand copied in as a float64 matrix of twice the rows, C copied back (rounded to float32
 * for complex64).
 */
function zgemmWasm(r: ComplexGemmRequest<FloatArray>, s: Shape, p0: number, count: number, betaZero: boolean): void {
  const { m, n, k } = s;
  const av = stridedView(r.a, p0), bv = stridedView(r.b, p0), cv = stridedView(r.c, p0);
  const dtype: DType = isFloat32Array(av.data) ? 'float32' : 'float64';
  const copyIn = packFor({ dtype, trans: 'N', direction: 'in', packed: 'float64' });
  const copyOut = packFor({ dtype, trans: 'N', direction: 'out', packed: 'float64' });
  const fn = wasmFor({ m, n, k, transA: r.transA, transB: r.transB, betaZero, ...cpuTuning().complexGemmWasmBlock });
  // floats of each operand (rows twice the complex rows)
  const [aRows, aCols] = r.transA === 'N' ? [m, k] : [k, m];
  const [bRows, bCols] = r.transB === 'N' ? [k, n] : [n, k];
  const aPer = 2 * m * k, bPer = 2 * k * n, cPer = 2 * m * n;
  const per = aPer + bPer + cPer;
  const chunk = wasmChunk(count, per * 8);
  const mem = heap(chunk * per * 8).f64;
  const aBase = 0, bBase = chunk * aPer, cBase = bBase + chunk * bPer;
  const [ar, ai] = r.alpha;
  const [br, bi] = r.beta;
  for (let q = 0; q < count; q += chunk) {
    const c = Math.min(chunk, count - q);
    copyIn(av.data, 2 * (av.offset + q * av.stride), 2 * av.ld, 2 * av.stride, mem, aBase, 2 * aRows, aPer, 2 * aRows, aCols, c);
    copyIn(bv.data, 2 * (bv.offset + q * bv.stride), 2 * bv.ld, 2 * bv.stride, mem, bBase, 2 * bRows, bPer, 2 * bRows, bCols, c);
    if (!betaZero) copyIn(cv.data, 2 * (cv.offset + q * cv.stride), 2 * cv.ld, 2 * cv.stride, mem, cBase, 2 * m, cPer, 2 * m, n, c);
    fn(aBase * 8, bBase * 8, cBase * 8, c, ar, ai, br, bi);
    copyOut(mem, cBase, 2 * m, cPer, cv.data, 2 * (cv.offset + q * cv.stride), 2 * cv.ld, 2 * cv.stride, 2 * m, n, c);
  }
}

export function fastGemmComplex(r: ComplexGemmRequest<FloatArray>, options: OpOptions<ComplexGemmForce> = {}): void {
  const dtype: ComplexDType = r.c.dtype ?? 'complex128';
  const [ar, ai] = r.alpha;
  const [br, bi] = r.beta;
  const alphaZero = ar === 0 && ai === 0;
  const betaZero = br === 0 && bi === 0;
  runBatch(r, {
    shapeOf: r.c,
    kernel(c, p0, count): boolean {
      const a = matrixAt(r.a, p0);
      const m = c.rows, n = c.cols, k = r.transA === 'N' ? a.cols : a.rows;
      const variant = planComplexGemm({ m, n, k, alphaZero, dtype }, options.tuning ?? cpuTuning(), options.force);
      if (variant === 'reference') return false;
      // The reference's quick return: nothing to add and C scaled by one.
      if ((alphaZero || k === 0) && br === 1 && bi === 0) return true;
      if (variant === 'wasm') {
        zgemmWasm(r, { m, n, k }, p0, count, betaZero);
        return true;
      }
      const kernel = gemmFor({ m, n, k, transA: r.transA, transB: r.transB, alphaZero, betaZero, dtype });
      const av = stridedView(r.a, p0), bv = stridedView(r.b, p0), cv = stridedView(r.c, p0);
      kernel(av.data, 2 * av.offset, 2 * av.ld, 2 * av.stride, bv.data, 2 * bv.offset, 2 * bv.ld, 2 * bv.stride,
        cv.data, 2 * cv.offset, 2 * cv.ld, 2 * cv.stride, ar, ai, br, bi, count);
      return true;
    },
    fallback: complexReference.gemm,
  });
}
