/**
 * trtri, lauum, potri: generated kernels (kernels/inverse.ts) up to UNROLL_MAX.inverse, the
 * reference above. Bitwise the reference's results and infos.
 */
import type { DType, FloatArray } from '../../core/dtype.js';
import type { LauumRequest, TrtriRequest } from '../../core/ops.js';
import { cpuLauum, cpuPotri, cpuTrtri } from '../../cpu/lapack/index.js';
import { kernelFactory } from '../jit/compile.js';
import { generateInverse, type InverseKernel, type InverseParams } from '../kernels/inverse.js';
import { UNROLL_MAX } from '../tuning.js';
import { runBatch } from './run-batch.js';

const kernelFor = kernelFactory<InverseParams, InverseKernel>(generateInverse);
const dtypeOf = (a: FloatArray): DType => (a instanceof Float32Array ? 'float32' : 'float64');

type Req = TrtriRequest<FloatArray, Int32Array>;

function run(op: InverseParams['op'], r: Req, fallback: (r: Req) => void): void {
  runBatch(r, {
    shapeOf: r.a,
    kernel(m, p0, count): boolean {
      if (m.rows === 0 || m.rows > UNROLL_MAX.inverse) return false;
      const fn = kernelFor({ op, n: m.rows, uplo: r.uplo, unit: op === 'trtri' && r.diag === 'unit', dtype: dtypeOf(m.data) });
      fn(m.data, m.offset, m.ld, r.a.kind === 'strided' ? r.a.stride : 0, r.info, p0, count);
      return true;
    },
    fallback,
  });
}

export const fastTrtri = (r: Req): void => run('trtri', r, cpuTrtri);
export const fastLauum = (r: LauumRequest<FloatArray, Int32Array>): void =>
  run('lauum', { ...r, diag: 'nonunit' }, (s) => cpuLauum({ uplo: s.uplo, a: s.a, info: s.info }));
export const fastPotri = (r: LauumRequest<FloatArray, Int32Array>): void =>
  run('potri', { ...r, diag: 'nonunit' }, (s) => cpuPotri({ uplo: s.uplo, a: s.a, info: s.info }));
