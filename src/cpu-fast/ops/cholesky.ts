/** potrf, posv, potrs: generated unrolled kernels up to UNROLL_MAX, the reference above. */
import { matrixAt, type Batch, type MatrixView } from '../../core/batch.js';
import type { DType, FloatArray } from '../../core/dtype.js';
import type { PosvRequest, PotrfRequest, PotrsRequest } from '../../core/ops.js';
import { cpuPosv, cpuPotrf, cpuPotrs } from '../../cpu/lapack/index.js';
import { compileKernel } from '../jit/compile.js';
import { generateCholesky, type CholeskyKernel, type CholeskyOp, type CholeskyParams } from '../kernels/cholesky.js';
import { UNROLL_MAX } from '../tuning.js';
import { runBatch } from './run-batch.js';

type Req = PotrsRequest<FloatArray, Int32Array>;
const kernels = new Map<string, CholeskyKernel>();

function kernelFor(p: CholeskyParams): CholeskyKernel {
  const name = `${p.op}/${p.n}/${p.uplo}/${p.dtype}`;
  let k = kernels.get(name);
  if (!k) kernels.set(name, (k = compileKernel<CholeskyKernel>(generateCholesky(p))));
  return k;
}

const dtypeOf = (a: FloatArray): DType => (a instanceof Float32Array ? 'float32' : 'float64');

function run(op: CholeskyOp, r: Req, fallback: (r: Req) => void): void {
  runBatch(r, {
    shapeOf: r.a,
    kernel(m: MatrixView<FloatArray>, p0: number, count: number): boolean {
      const n = m.rows;
      if (n > UNROLL_MAX.cholesky) return false;
      const k = kernelFor({ op, n, uplo: r.uplo, dtype: dtypeOf(m.data) });
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

/** Matrix p of b with the batch stride (0 for list and variable batches, which run one at a time). */
export function stridedView(b: Batch<FloatArray>, p: number): MatrixView<FloatArray> & { stride: number } {
  return { ...matrixAt(b, p), stride: b.kind === 'strided' ? b.stride : 0 };
}

export const fastPotrf = (r: PotrfRequest<FloatArray, Int32Array>): void =>
  run('potrf', { ...r, b: r.a }, (s) => cpuPotrf({ uplo: s.uplo, a: s.a, info: s.info }));
export const fastPosv = (r: PosvRequest<FloatArray, Int32Array>): void => run('posv', r, cpuPosv);
export const fastPotrs = (r: PotrsRequest<FloatArray, Int32Array>): void => run('potrs', r, cpuPotrs);
