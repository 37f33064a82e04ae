/**
 * The recursion's SYRK and TRMM steps as batched requests on sub-blocks (pure: any storage, so
 * the CPU can run the same requests in tests).
 */
import type { SyrkRequest, TrmmRequest } from '../../../core/ops.js';
import type { Uplo } from '../../../core/enums.js';
import { block, type BlockBatch } from '../common/sub-blocks.js';
import type { LauumStep } from './params.js';

type Split = Extract<LauumStep, { kind: 'syrk' | 'trmm' }>;

/** The off-diagonal block: L21 = A(hi, lo) (lower) or U12 = A(lo, hi) (upper). */
const offdiag = <S>(uplo: Uplo, a: BlockBatch<S>, { lo, hi }: Split): BlockBatch<S> =>
  (uplo === 'lower' ? block(a, hi.off, lo.off, hi.size, lo.size) : block(a, lo.off, hi.off, lo.size, hi.size));

/** A(lo, lo) += L21^T L21 (lower) or U12 U12^T (upper). */
export function syrkStep<S>(uplo: Uplo, a: BlockBatch<S>, s: Split): SyrkRequest<S> {
  return { uplo, trans: uplo === 'lower' ? 'T' : 'N', alpha: 1, a: offdiag(uplo, a, s), beta: 1, c: block(a, s.lo.off, s.lo.off, s.lo.size, s.lo.size) };
}

/** A(hi, lo) := L22^T L21 (lower), A(lo, hi) := U12 U22^T (upper). */
export function trmmStep<S>(uplo: Uplo, a: BlockBatch<S>, s: Split): TrmmRequest<S> {
  return {
    side: uplo === 'lower' ? 'left' : 'right', uplo, transA: 'T', diag: 'nonunit', alpha: 1,
    a: block(a, s.hi.off, s.hi.off, s.hi.size, s.hi.size), b: offdiag(uplo, a, s),
  };
}
