/**
 * What the eigen drivers on LAPACK's route (ops/syev.ts, ops/zheev.ts) share: the scaling of a matrix
 * whose largest entry lies far from 1, the mark of a matrix handed back to the reference, and the QL
 * iterations of one or two matrices (two in lockstep: the recurrences are a square root and a
 * division deep, so two chains interleave).
 */
import { tridiagonalQl, tridiagonalQlPair, type QlState } from '../kernels/tridiagonal-ql.js';
import { tridiagonalValues, tridiagonalValuesPair, type ValuesState } from '../kernels/tridiagonal-values.js';
import { powerOfTwoNear1 } from '../../cpu/lapack/jacobi.js';

/** The info a driver keeps for a matrix it hands back to the reference whole. */
export const HAND_BACK = -1;

/** Largest entries outside [SCALE_BELOW, SCALE_ABOVE] are scaled to near 1 first. */
const SCALE_BELOW = 2 ** -200;
const SCALE_ABOVE = 2 ** 200;

/**
 * The power of two a matrix whose largest magnitude is `amax` is scaled by before its reduction (1
 * where amax is 0 or within [2^-200, 2^200]): exact, and the reflectors' sums of squares can neither
 * overflow nor lose the matrix below the underflow threshold.
 */
export function scaleFor(amax: number): number {
  return amax !== 0 && (amax < SCALE_BELOW || amax > SCALE_ABOVE) ? powerOfTwoNear1(amax) : 1;
}

/**
 * The QL iterations (with vectors; else the root-free ones) of `slots` matrices whose tridiagonals
 * are started, those with info[q] 0: in lockstep where both are, alone otherwise. A matrix whose
 * iteration did not converge gets HAND_BACK.
 */
export function iterate(vectors: boolean, qls: readonly [QlState, QlState], vals: readonly [ValuesState, ValuesState], info: number[], slots: 1 | 2): void {
  if (slots === 2 && info[0] === 0 && info[1] === 0) {
    if (vectors) tridiagonalQlPair(qls[0], qls[1]);
    else tridiagonalValuesPair(vals[0], vals[1]);
  } else {
    for (let q = 0; q < slots; q++) {
      if (info[q] !== 0) continue;
      if (vectors) tridiagonalQl(qls[q]!);
      else tridiagonalValues(vals[q]!);
    }
  }
  for (let q = 0; q < slots; q++) if (info[q] === 0 && (vectors ? qls[q]!.failed : vals[q]!.failed)) info[q] = HAND_BACK;
}
