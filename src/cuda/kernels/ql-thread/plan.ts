/**
 * The per-thread QL syev's plan: which sizes syev sends it (`qlThreadServes`, the table's band,
 * asked by the router) and its parameters (the arithmetic of float32 data from the table's
 * `float32Arithmetic`, or forced).
 */
import type { DType } from '../../../core/dtype.js';
import { byPrecision, dtypeInfo } from '../../../core/dtype-table.js';
import type { Uplo } from '../../../core/enums.js';
import { MyriadError } from '../../../core/errors.js';
import type { QlThreadTuning } from '../../model/tuning/index.js';
import type { OperandKind } from '../common/batch-pointer.js';
import { stagedLayout } from '../common/span-stage.js';
import { QL_THREAD_BLOCK, QL_THREAD_COMPUTE } from './generate.js';
import type { QlThreadForce, QlThreadParams } from './params.js';

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
  /** A and W densely packed (common/operands.ts densePacked); absent: not. */
  readonly denseA?: boolean;
  readonly denseW?: boolean;
}

/** Whether syev sends matrices of size n and `dtype` to this design (the table's band, within QL_THREAD_LIMIT). */
export function qlThreadServes(n: number, dtype: DType, vectors: boolean, tuning: QlThreadTuning): boolean {
  const orders = tuning.syev[dtype][vectors ? 'vectors' : 'values'];
  return n >= 1 && n <= QL_THREAD_LIMIT && orders.includes(n);
}

/**
 * The kernel's parameters: float64 data in float64 arithmetic; float32 data in float32 arithmetic
 * at the orders the table's `float32Arithmetic` lists for the job (or where forced), else in float64.
 */
export function planQlThread(pr: QlThreadProblem, tuning: QlThreadTuning, opts: { readonly force?: QlThreadForce } = {}): QlThreadParams {
  const { dtype, n, uplo, vectors, kind } = pr;
  if (!Number.isInteger(n) || n < 1 || n > QL_THREAD_LIMIT) throw new MyriadError('UNSUPPORTED', `the per-thread QL syev takes 1 <= n <= ${QL_THREAD_LIMIT}, got ${n}`, 'a');
  const forced = opts.force?.arithmetic;
  if (forced !== undefined && dtypeInfo(forced).bytes < dtypeInfo(dtype).bytes)
    throw new MyriadError('INVALID_ARGUMENT', `the per-thread QL syev computes ${dtype} data in ${dtype} arithmetic, not ${forced}`, 'force.arithmetic');
  const table = byPrecision(dtype, { double: false, single: tuning.float32Arithmetic[vectors ? 'vectors' : 'values'].includes(n) });
  const arithmetic: DType = forced ?? (table ? dtype : QL_THREAD_COMPUTE);
  // Staged where vectors are written over a densely packed A at the orders the table's `stagedVectors` lists for the arithmetic.
  const layout = stagedLayout({
    design: 'the per-thread QL syev', threads: QL_THREAD_BLOCK, dtype, n, denseA: pr.denseA, denseW: pr.denseW,
    wants: vectors && pr.denseA === true && tuning.stagedVectors[arithmetic].includes(n), stage: opts.force?.stage,
  });
  return { dtype, n, uplo, vectors, kind, maxit: QL_THREAD_MAXIT, arithmetic, ...layout };
}
