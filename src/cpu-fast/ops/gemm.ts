/** gemm: generated unrolled JavaScript for tiny sizes, the reference for the rest. */
import { matrixAt } from '../../core/batch.js';
import type { DType, FloatArray } from '../../core/dtype.js';
import type { GemmRequest } from '../../core/ops.js';
import { cpuGemm } from '../../cpu/blas3.js';
import { compileKernel } from '../jit/compile.js';
import { generateGemmJs, type GemmJsKernel, type GemmJsParams } from '../kernels/gemm-js.js';
import { UNROLL_MAX } from '../tuning.js';
import { stridedView } from './cholesky.js';
import { runBatch } from './run-batch.js';

const kernels = new Map<string, GemmJsKernel>();

function kernelFor(p: GemmJsParams): GemmJsKernel {
  const name = `${p.transA}${p.transB}/${p.m}/${p.n}/${p.k}/${p.dtype}`;
  let k = kernels.get(name);
  if (!k) kernels.set(name, (k = compileKernel<GemmJsKernel>(generateGemmJs(p))));
  return k;
}

const dtypeOf = (a: FloatArray): DType => (a instanceof Float32Array ? 'float32' : 'float64');

export function fastGemm(r: GemmRequest<FloatArray>): void {
  runBatch(r, {
    shapeOf: r.c,
    kernel(c, p0, count): boolean {
      const a = matrixAt(r.a, p0);
      const k = r.transA === 'N' ? a.cols : a.rows;
      const max = UNROLL_MAX.gemm;
      if (c.rows > max || c.cols > max || k > max || k === 0 || r.alpha === 0 || c.rows === 0 || c.cols === 0) return false;
      const fn = kernelFor({ transA: r.transA, transB: r.transB, m: c.rows, n: c.cols, k, dtype: dtypeOf(c.data) });
      const A = stridedView(r.a, p0);
      const B = stridedView(r.b, p0);
      const cStride = r.c.kind === 'strided' ? r.c.stride : 0;
      fn(A.data, A.offset, A.ld, A.stride, B.data, B.offset, B.ld, B.stride, c.data, c.offset, c.ld, cStride, r.alpha, r.beta, count);
      return true;
    },
    fallback: cpuGemm,
  });
}
