/**
 * trsm on complex batches: the generated JavaScript kernels (kernels/ztrsm-js.ts) where
 * plan/complex.ts says so, the complex reference (src/cpu/complex/ztrsm.ts) for the rest. Strided
 * runs go to a kernel in one call; list batches one matrix at a time (ops/run-batch.ts). The
 * kernels take offsets in floats: twice the complex counts.
 */
import type { ComplexDType, FloatArray } from '../../core/dtype.js';
import type { ComplexTrsmRequest } from '../../core/op-specs.js';
import { complexReference } from '../../cpu/complex/backend.js';
import { cpuTuning } from '../context.js';
import { kernelFactory } from '../jit/compile.js';
import { generateZtrsmJs, type ZtrsmJsKernel, type ZtrsmJsParams } from '../kernels/ztrsm-js.js';
import { planComplexTrsm, type ComplexForce } from '../plan/complex.js';
import type { OpOptions } from '../tuning.js';
import { runBatch, stridedView } from './run-batch.js';

const trsmFor = kernelFactory<ZtrsmJsParams, ZtrsmJsKernel>(generateZtrsmJs);

export function fastTrsmComplex(r: ComplexTrsmRequest<FloatArray>, options: OpOptions<ComplexForce> = {}): void {
  const dtype: ComplexDType = r.b.dtype ?? 'complex128';
  const [ar, ai] = r.alpha;
  const alpha = ar === 0 && ai === 0 ? 'zero' : ar === 1 && ai === 0 ? 'one' : 'general';
  const left = r.side === 'left';
  runBatch(r, {
    shapeOf: r.b,
    kernel(b, p0, count): boolean {
      const [n, nvec] = left ? [b.rows, b.cols] : [b.cols, b.rows];
      if (planComplexTrsm({ n, nvec }, options.tuning ?? cpuTuning(), options.force) === 'reference') return false;
      const kernel = trsmFor({ n, side: r.side, uplo: r.uplo, transA: r.transA, diag: r.diag, alpha, dtype });
      const av = stridedView(r.a, p0), bv = stridedView(r.b, p0);
      kernel(av.data, 2 * av.offset, 2 * av.ld, 2 * av.stride, bv.data, 2 * bv.offset, 2 * bv.ld, 2 * bv.stride, nvec, ar, ai, count);
      return true;
    },
    fallback: complexReference.trsm,
  });
}
