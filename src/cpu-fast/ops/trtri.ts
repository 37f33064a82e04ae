/**
 * trtri, lauum, potri: generated kernels (kernels/trtri-js.ts) up to unrollMax.inverse (bitwise
 * the reference's results and infos); above, up to inverseBlockedMax, blocked over the fast
 * trmm, trsm and syrk (ops/trtri-blocked.ts: the same infos, results within rounding); the
 * reference above that.
 */
import { dtypeOfArray, type FloatArray } from '../../core/dtype.js';
import type { LauumRequest, TrtriRequest } from '../../core/ops.js';
import { cpuLauum, cpuPotri, cpuTrtri } from '../../cpu/lapack/index.js';
import { kernelFactory } from '../jit/compile.js';
import { generateTrtriJs, type TrtriJsKernel, type TrtriJsParams } from '../kernels/trtri-js.js';
import { cpuScratch, cpuTuning } from '../context.js';
import { planTrtri, type TrtriForce } from '../plan/trtri.js';
import type { OpOptions } from '../tuning.js';
import { inverseBlocked, type InverseLeaf } from './trtri-blocked.js';
import { runBatch } from './run-batch.js';

const kernelFor = kernelFactory<TrtriJsParams, TrtriJsKernel>(generateTrtriJs);

type Req = TrtriRequest<FloatArray, Int32Array>;

export type TrtriOptions = OpOptions<TrtriForce>;

function run(op: TrtriJsParams['op'], r: Req, fallback: (r: Req) => void, options: TrtriOptions = {}): void {
  const tuning = options.tuning ?? cpuTuning();
  runBatch(r, {
    shapeOf: r.a,
    kernel(m, p0, count): boolean {
      const unit = op === 'trtri' && r.diag === 'unit';
      const stride = r.a.kind === 'strided' ? r.a.stride : 0;
      const variant = planTrtri({ n: m.rows }, tuning, options.force);
      if (variant === 'reference') return false;
      if (variant === 'unrolled') {
        kernelFor({ op, n: m.rows, uplo: r.uplo, unit, dtype: dtypeOfArray(m.data, 'a.data') })(m.data, m.offset, m.ld, stride, r.info, p0, count);
        return true;
      }
      const leaf: InverseLeaf = (o, A, n, c) => {
        const scratch = cpuScratch().i32('trtriLeafInfo', c);
        kernelFor({ op: o, n, uplo: r.uplo, unit: o === 'trtri' && unit, dtype: dtypeOfArray(A.data, 'a.data') })(A.data, A.offset, A.ld, A.stride, scratch, 0, c);
      };
      inverseBlocked(op, r.uplo, unit, { data: m.data, offset: m.offset, ld: m.ld, stride }, m.rows, count, r.info, p0, tuning.unrollMax.inverse, leaf);
      return true;
    },
    fallback,
  });
}

export const fastTrtri = (r: Req, options?: TrtriOptions): void => run('trtri', r, cpuTrtri, options);
export const fastLauum = (r: LauumRequest<FloatArray, Int32Array>, options?: TrtriOptions): void =>
  run('lauum', { ...r, diag: 'nonunit' }, (s) => cpuLauum({ uplo: s.uplo, a: s.a, info: s.info }), options);
export const fastPotri = (r: LauumRequest<FloatArray, Int32Array>, options?: TrtriOptions): void =>
  run('potri', { ...r, diag: 'nonunit' }, (s) => cpuPotri({ uplo: s.uplo, a: s.a, info: s.info }), options);
