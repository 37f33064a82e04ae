/**
 * Which complex Cholesky kernel serves one group, and with which parameters. One design (the warp
 * design of generate-small.ts, n <= 32); orders above it have no GPU kernel yet, and the router's
 * `covers` (zcholeskyCovers) leaves them to the CPU reference. No tuning table: the choices below
 * are the real kernels' (warps per block: common/warp-slots.ts smallWarps), not swept for pairs.
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { OperandKind } from '../common/batch-pointer.js';
import { SMALL_MAX_N, smallWarps } from '../common/warp-slots.js';
import type { ZpotrfSmallParams, ZsolveSmallParams } from './params.js';

/** The largest order the complex kernels take. */
export const ZCHOLESKY_MAX_N = SMALL_MAX_N;

/**
 * Most right-hand sides per pass, as the real solves (solve/generate-small.ts): each is three pairs
 * of registers per thread; at complex128 n = 32 the factor row already holds 128 registers.
 */
export const ZRHS_MAX = 4;

/** Whether the complex kernels take matrices of order n. */
export const zcholeskyServes = (n: number): boolean => n >= 0 && n <= ZCHOLESKY_MAX_N;

export interface ZpotrfProblem {
  readonly dtype: DType;
  readonly n: number;
  readonly uplo: Uplo;
  readonly kind: OperandKind;
}

export interface ZsolveProblem {
  readonly dtype: DType;
  readonly n: number;
  readonly nrhs: number;
  readonly uplo: Uplo;
  readonly kindA: OperandKind;
  readonly kindB: OperandKind;
}

export function planZpotrf(p: ZpotrfProblem): ZpotrfSmallParams {
  return { dtype: p.dtype, n: p.n, uplo: p.uplo, kind: p.kind, warps: smallWarps(p.n) };
}

/** potrs and posv: right-hand sides per pass min(nrhs, ZRHS_MAX), at least 1. */
export function planZsolve(p: ZsolveProblem): ZsolveSmallParams {
  return {
    dtype: p.dtype, n: p.n, uplo: p.uplo, kindA: p.kindA, kindB: p.kindB, warps: smallWarps(p.n),
    rhs: Math.max(1, Math.min(ZRHS_MAX, p.nrhs)),
  };
}
