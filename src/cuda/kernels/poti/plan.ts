/**
 * The SPD inverse's plan for one group of equal-size matrices: the fused kernel up to the table's
 * fusedMax (one launch), else the composition (potrf's, trtri's and lauum's launchers).
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import { MyriadError } from '../../../core/errors.js';
import type { TrtriTuning } from '../../model/tuning/index.js';
import type { OperandKind } from '../common/batch-pointer.js';
import { elementBytes } from '../common/precision.js';
import { leafSize, leafTileBytes, LEAF_SIZES } from '../trtri/index.js';
import { FUSED_MAX_THREADS } from './generate-fused.js';
import type { PotiForce, PotiPlan, PotiStage } from './params.js';

export interface PotiProblem {
  readonly dtype: DType;
  readonly uplo: Uplo;
  readonly stage: PotiStage;
  readonly n: number;
  readonly count: number;
  readonly kind: OperandKind;
  /** Dynamic shared bytes one block may use. */
  readonly sharedLimit: number;
}

export function planPoti(problem: PotiProblem, tuning: TrtriTuning, options: { readonly force?: PotiForce } = {}): PotiPlan {
  const { dtype, uplo, stage, kind, n } = problem;
  const fusedMax = options.force?.fusedMax ?? tuning.fusedMax[dtype];
  if (fusedMax !== 0 && !LEAF_SIZES.includes(fusedMax))
    throw new MyriadError('INVALID_ARGUMENT', `the fused ${stage} size must be 0 or one of ${LEAF_SIZES.join(', ')}, got ${fusedMax}`, 'fusedMax');
  if (n > fusedMax) return { variant: 'composed' };
  const nb = leafSize(n, fusedMax);
  const tile = leafTileBytes(nb, elementBytes(dtype));
  if (tile > problem.sharedLimit) return { variant: 'composed' };
  const matrices = Math.max(1, Math.min(Math.floor(FUSED_MAX_THREADS / nb), Math.floor(problem.sharedLimit / tile), problem.count));
  return { variant: 'fused', params: { dtype, uplo, kind, nb, stage }, matrices, sharedBytes: matrices * tile };
}
