/**
 * gemm: unrolled JavaScript for tiny sizes (bitwise the reference), WebAssembly SIMD register
 * blocks on packed chunks for the rest (kernels/gemm-wasm.ts); alpha = 0 and k = 0 go to the
 * reference.
 */
import { matrixAt } from '../../core/batch.js';
import type { DType, FloatArray } from '../../core/dtype.js';
import type { GemmRequest, Op } from '../../core/ops.js';
import { cpuGemm } from '../../cpu/blas3.js';
import { kernelFactory, moduleFactory } from '../jit/compile.js';
import { generateGemmJs, type GemmJsKernel, type GemmJsParams } from '../kernels/gemm-js.js';
import { generateGemmWasm, paddedRows, type GemmWasmParams } from '../kernels/gemm-wasm.js';
import { generatePack, type PackKernel, type PackParams } from '../kernels/pack.js';
import { GEMM_WASM_CHUNK_BYTES, UNROLL_MAX } from '../tuning.js';
import { heap, instantiate } from '../wasm/runtime.js';
import { runBatch, stridedView } from './run-batch.js';

type WasmGemm = (a: number, b: number, c: number, count: number, alpha: number, beta: number) => void;
const jsKernel = kernelFactory<GemmJsParams, GemmJsKernel>(generateGemmJs);
const wasmKernel = moduleFactory<GemmWasmParams, WasmGemm>(generateGemmWasm, 'gemm', instantiate);
const packKernel = kernelFactory<PackParams, PackKernel>(generatePack);

const pack = (dtype: DType, trans: Op, direction: 'in' | 'out' = 'in'): PackKernel =>
  packKernel({ dtype, trans, direction, packed: dtype });
const dtypeOf = (a: FloatArray): DType => (a instanceof Float32Array ? 'float32' : 'float64');

/** Packs a chunk of matrices into the wasm memory, runs the kernel, unpacks C. */
function gemmWasm(r: GemmRequest<FloatArray>, m: number, n: number, k: number, p0: number, count: number): void {
  const dtype = dtypeOf(matrixAt(r.c, p0).data);
  const E = dtype === 'float64' ? 8 : 4;
  const mp = paddedRows(m, dtype);
  const per = mp * k + k * n + mp * n;
  const chunk = Math.max(1, Math.min(count, Math.floor(GEMM_WASM_CHUNK_BYTES / (per * E))));
  const views = heap(chunk * per * E + 64);
  const mem = dtype === 'float64' ? views.f64 : views.f32;
  const aBase = 0, bBase = chunk * mp * k, cBase = bBase + chunk * k * n;
  const fn = wasmKernel({ m, n, k, dtype });
  const packA = pack(dtype, r.transA), packB = pack(dtype, r.transB), copyIn = pack(dtype, 'N'), copyOut = pack(dtype, 'N', 'out');
  for (let q = p0; q < p0 + count; q += chunk) {
    const c = Math.min(chunk, p0 + count - q);
    const A = stridedView(r.a, q), B = stridedView(r.b, q), C = stridedView(r.c, q);
    packA(A.data, A.offset, A.ld, A.stride, mem, aBase, mp, mp * k, m, k, c);
    packB(B.data, B.offset, B.ld, B.stride, mem, bBase, k, k * n, k, n, c);
    if (r.beta !== 0) copyIn(C.data, C.offset, C.ld, C.stride, mem, cBase, mp, mp * n, m, n, c);
    fn(aBase * E, bBase * E, cBase * E, c, r.alpha, r.beta);
    copyOut(mem, cBase, mp, mp * n, C.data, C.offset, C.ld, C.stride, m, n, c);
  }
}

/** The variant for a shape: MYRIAD_CPU_GEMM=js|wasm forces one (tests, benchmarks), else the tuning table. */
export function selectGemm(m: number, n: number, k: number, dtype: DType): 'js' | 'wasm' {
  const forced = process.env.MYRIAD_CPU_GEMM;
  const max = UNROLL_MAX.gemm[dtype];
  if (forced === 'wasm' || (forced === 'js' && Math.max(m, n, k) <= 16)) return forced;
  return m <= max && n <= max && k <= max ? 'js' : 'wasm';
}

export function fastGemm(r: GemmRequest<FloatArray>): void {
  runBatch(r, {
    shapeOf: r.c,
    kernel(c, p0, count): boolean {
      const a = matrixAt(r.a, p0);
      const k = r.transA === 'N' ? a.cols : a.rows;
      if (k === 0 || r.alpha === 0 || c.rows === 0 || c.cols === 0) return false;
      if (selectGemm(c.rows, c.cols, k, dtypeOf(c.data)) === 'js') {
        const fn = jsKernel({ transA: r.transA, transB: r.transB, m: c.rows, n: c.cols, k, dtype: dtypeOf(c.data) });
        const A = stridedView(r.a, p0);
        const B = stridedView(r.b, p0);
        const cStride = r.c.kind === 'strided' ? r.c.stride : 0;
        fn(A.data, A.offset, A.ld, A.stride, B.data, B.offset, B.ld, B.stride, c.data, c.offset, c.ld, cStride, r.alpha, r.beta, count);
        return true;
      }
      gemmWasm(r, c.rows, c.cols, k, p0, count);
      return true;
    },
    fallback: cpuGemm,
  });
}
