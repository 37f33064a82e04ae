/**
 * The per-thread QL syev's plan: which sizes syev sends it (`qlThreadServes`, the table's band,
 * asked by the router) and its parameters.
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import { MyriadError } from '../../../core/errors.js';
import type { QlThreadTuning } from '../../model/tuning/index.js';
import type { OperandKind } from '../common/batch-pointer.js';
import type { QlThreadParams } from './params.js';

/**
 * The largest n of the design (registers: with vectors Z's n^2 values, d and e, and during Q's
 * formation the reflectors in A's place; nvcc 13, sm_90, at n = 8: no spills, see
 * test/cuda/ql-thread-generate.test.ts).
 */
export const QL_THREAD_LIMIT = 8;

/** dsteqr's MAXIT: QL iterations allowed per row of the matrix (maxit n in all). */
export const QL_THREAD_MAXIT = 30;

export interface QlThreadProblem {
  readonly dtype: DType;
  readonly n: number;
  readonly uplo: Uplo;
  readonly vectors: boolean;
  readonly kind: OperandKind;
}

/** Whether syev sends matrices of size n and `dtype` to this design (the table's band, within QL_THREAD_LIMIT). */
export function qlThreadServes(n: number, dtype: DType, vectors: boolean, tuning: QlThreadTuning): boolean {
  const orders = tuning.syev[dtype][vectors ? 'vectors' : 'values'];
  return n >= 1 && n <= QL_THREAD_LIMIT && orders.includes(n);
}

export function planQlThread(pr: QlThreadProblem): QlThreadParams {
  const { dtype, n, uplo, vectors, kind } = pr;
  if (!Number.isInteger(n) || n < 1 || n > QL_THREAD_LIMIT) throw new MyriadError('UNSUPPORTED', `the per-thread QL syev takes 1 <= n <= ${QL_THREAD_LIMIT}, got ${n}`, 'a');
  return { dtype, n, uplo, vectors, kind, maxit: QL_THREAD_MAXIT };
}
