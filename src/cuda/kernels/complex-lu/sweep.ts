/**
 * One triangular solve of the complex register designs as a column sweep (after
 * solve/generate-small.ts's `sweep`, over pairs): at step k the lane holding row k finishes x(k)
 * and hands it to the other rows of its matrix by shuffles (no shared memory, no barrier); each row
 * still to be finished updates its own value with an element it already holds. A row takes no
 * update once its own step has passed, so after the sweep its value is the one it handed on: the
 * result, without a select per step (with one, complex128 kernels of n >= 29 took 255 registers
 * and spilled, nvcc -arch=sm_90; updating rows after their step changed nothing they kept).
 */
import { overDiagonal } from '../common/diagonal-scale.js';

export interface ComplexSweep {
  /** Forward (k = 0 .. SN - 1) or backward. */
  readonly down: boolean;
  /** T(row, k) in this thread, an expression in k. */
  readonly elem: string;
  /** The lane that holds row k. */
  readonly lane: string;
  /**
   * The factor (a real2 in each thread) that turns row k's value into x(k), or a function of that
   * value giving x(k) (DIVIDE: by the diagonal); empty: unit diagonal.
   */
  readonly scale: string | ((v: string) => string);
  /** The RB right-hand-side values being solved (updated in place), and where each row's result goes. */
  readonly x: string;
  readonly out: string;
  /** This thread's row, compared with k. */
  readonly rowIs: string;
}

/**
 * Division by U(k, k) in thread k (its diag, rinv and rsafe: diagonalReciprocal): the reciprocal
 * where it is safe, else Smith's division, as LAPACK's trsm divides (a subnormal diagonal's
 * reciprocal overflows).
 */
export const DIVIDE = (v: string): string => overDiagonal(true, v);

export function complexSweep(s: ComplexSweep): string {
  const loop = s.down ? 'for (int k = 0; k < SN; ++k)' : 'for (int k = SN - 1; k >= 0; --k)';
  const scale = s.scale;
  const scaled = (v: string): string => (typeof scale === 'function' ? scale(v) : scale ? `mulReal2(${v}, ${scale})` : v);
  return `#pragma unroll
    ${loop} {
      const real2 tk = ${s.elem};
      const int from = ${s.lane};
#pragma unroll
      for (int c = 0; c < RB; ++c) {
        const real2 xk = shflReal2(${scaled(`${s.x}[c]`)}, from);
        if (${s.rowIs} ${s.down ? '>' : '<'} k) ${s.x}[c] = fmsReal2(tk, xk, ${s.x}[c]);
      }
    }
#pragma unroll
    for (int c = 0; c < RB; ++c) ${s.out}[c] = ${scaled(`${s.x}[c]`)};`;
}
