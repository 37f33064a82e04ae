/**
 * gemm on complex batches: the generated JavaScript kernels (kernels/zgemm-js.ts) where
 * plan/complex.ts says so, the complex reference (src/cpu/complex/zgemm.ts) for the rest. Strided
 * runs go to a kernel in one call; list batches one matrix at a time (ops/run-batch.ts). The
 * kernels take offsets in floats: twice the complex counts.
 */
import { matrixAt } from '../../core/batch.js';
import type { ComplexDType, FloatArray } from '../../core/dtype.js';
import type { ComplexGemmRequest } from '../../core/op-specs.js';
import { complexReference } from '../../cpu/complex/backend.js';
import { cpuTuning } from '../context.js';
import { kernelFactory } from '../jit/compile.js';
import { generateZgemmJs, type ZgemmJsKernel, type ZgemmJsParams } from '../kernels/zgemm-js.js';
import { planComplexGemm, type ComplexForce } from '../plan/complex.js';
import type { OpOptions } from '../tuning.js';
import { runBatch, stridedView } from './run-batch.js';

const gemmFor = kernelFactory<ZgemmJsParams, ZgemmJsKernel>(generateZgemmJs);

export function fastGemmComplex(r: ComplexGemmRequest<FloatArray>, options: OpOptions<ComplexForce> = {}): void {
  const dtype: ComplexDType = (r.c.kind !== 'variable' ? r.c.dtype : undefined) ?? 'complex128';
  const [ar, ai] = r.alpha;
  const [br, bi] = r.beta;
  const alphaZero = ar === 0 && ai === 0;
  const betaZero = br === 0 && bi === 0;
  runBatch(r, {
    shapeOf: r.c,
    kernel(c, p0, count): boolean {
      const a = matrixAt(r.a, p0);
      const m = c.rows, n = c.cols, k = r.transA === 'N' ? a.cols : a.rows;
      if (planComplexGemm({ m, n, k }, options.tuning ?? cpuTuning(), options.force) === 'reference') return false;
      // The reference's quick return: nothing to add and C scaled by one.
      if ((alphaZero || k === 0) && br === 1 && bi === 0) return true;
      const kernel = gemmFor({ m, n, k, transA: r.transA, transB: r.transB, alphaZero, betaZero, dtype });
      const av = stridedView(r.a, p0), bv = stridedView(r.b, p0), cv = stridedView(r.c, p0);
      kernel(av.data, 2 * av.offset, 2 * av.ld, 2 * av.stride, bv.data, 2 * bv.offset, 2 * bv.ld, 2 * bv.stride,
        cv.data, 2 * cv.offset, 2 * cv.ld, 2 * cv.stride, ar, ai, br, bi, count);
      return true;
    },
    fallback: complexReference.gemm,
  });
}
