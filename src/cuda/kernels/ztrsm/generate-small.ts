/**
 * Complex triangular solve (ztrsm, ctrsm) with a triangle of order N <= 32: B := alpha op(A)^-1 B
 * (side 'left') or alpha B op(A)^-1 ('right'), op 'N', 'T' or 'C', unit or non-unit diagonal, in
 * the warp-slot layout of the small register designs (common/warp-slots.ts): a matrix gets N lanes,
 * several matrices share a warp where one cannot fill it, no shared memory and no barrier.
 *
 * Every vector of B meets one triangular matrix T, as in the reference (cpu/complex/ztriangular.ts):
 * side 'left' solves the columns of B against T = op(A), 'right' its rows against T = op(A)^T
 * (x op(A) = b is op(A)^T x^T = b^T). Element (r, k) of T is A(r, k) when the solve reads A by rows
 * ('left' with 'N', 'right' with 'T' or 'C') and A(k, r) otherwise, conjugated for 'C', and T is
 * lower exactly when A's stored triangle is lower and read by rows, or upper and read by columns.
 * Thread r holds row r of T (the entries on the solve's side of the diagonal; the other triangle of
 * A is never read, the diagonal only for 'nonunit') and element r of RB vectors at a time.
 *
 * The solve is a column sweep (forward for lower T, backward for upper): at step k every lane
 * divides its value by its diagonal, the warp takes lane k's by a shuffle, and the rows still to be
 * finished take T(r, k) x(k) off their own values. A row takes no update once its step has passed,
 * so after the sweep it holds what it had at its step, and its result is that divided once more
 * (no select per step: complex-lu/sweep.ts measured what one costs in registers). The division is
 * Smith's, as the reference's (cpu/complex/scalar.ts divideInto) with its branch taken once per
 * lane (`Divisor`): a zero diagonal gives NaN where the reference does, and the values spread from
 * it as there (Inf and NaN as the BLAS reference computes them; no check, no exception).
 *
 * alpha: B is scaled as it is loaded (not where alpha is exactly 1, as the reference skips the
 * scaling there: 1 * Inf stays Inf); alpha = 0 stores zeros in B without reading A or B (BLAS).
 * alpha arrives as two doubles (the test for zero and one made on the caller's value, as the
 * reference's), rounded to the kernel's precision for the scaling. Only B's matrices are written.
 *
 * The vectors of a matrix go RB at a time, the passes spread over blockIdx.y (common/triangle-warp.ts passGridY).
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { complexLetter, complexPrelude, complexScalarHelpers } from '../common/complex.js';
import { mathHelpers, precisionPrelude } from '../common/precision.js';
import { triangleView } from '../common/triangle-warp.js';
import { slotSetup } from '../common/warp-slots.js';
import { DIVISOR } from './divisor.js';
import type { ZtrsmSmallParams } from './params.js';

/** The kernel's entry: ztrsm_<z|c>_<side><uplo><trans><diag>_n<N>_r<RB>_<forms>_w<warps>. */
function ztrsmEntry(p: ZtrsmSmallParams): string {
  const flags = `${p.side === 'left' ? 'l' : 'r'}${p.uplo === 'lower' ? 'l' : 'u'}${p.transA.toLowerCase()}${p.diag === 'unit' ? 'u' : 'n'}`;
  return `ztrsm_${complexLetter(p.dtype)}_${flags}_n${p.n}_r${p.rhs}_${kindTag(p.kindA)}${kindTag(p.kindB)}_w${p.warps}`;
}

export function ztrsmSmallSource(p: ZtrsmSmallParams): KernelSource {
  if (!Number.isInteger(p.n) || p.n < 1 || p.n > 32) throw new RangeError(`ztrsm: n must be 1 .. 32, got ${p.n}`);
  if (!Number.isInteger(p.rhs) || p.rhs < 1) throw new RangeError(`ztrsm: rhs must be a positive integer, got ${p.rhs}`);
  const v = triangleView(p);
  const entry = ztrsmEntry(p);
  const read = (x: string): string => (v.conj ? `conjReal2(${x})` : x);
  const tAt = (row: string, col: string): string => read(v.rowwise ? `a[${row} + (long long)${col} * ldA]` : `a[${col} + (long long)${row} * ldA]`);
  // Element r of vector q of B: a column of B (left) or a row (right).
  const bAt = (q: string): string => (v.left ? `b[r + (long long)(${q}) * ldB]` : `b[(${q}) + (long long)r * ldB]`);
  const solveSide = v.lowerT ? 'k < r' : 'k > r';
  const scaled = (x: string): string => (v.unit ? x : `divBy(${x}, dr)`);
  const loop = v.lowerT ? 'for (int k = 0; k < N; ++k)' : 'for (int k = N - 1; k >= 0; --k)';
  const source = `${precisionPrelude(p.dtype)}
${mathHelpers(p.dtype)}
${complexPrelude(p.dtype)}
${complexScalarHelpers(p.dtype)}
${v.unit ? '' : DIVISOR}
constexpr int N = ${p.n};
constexpr int LANES = N;                        // lanes per matrix: one per row of T
constexpr int MPW = ${Math.floor(32 / p.n)};    // matrices per warp
constexpr int WARPS = ${p.warps};
constexpr int NC = 0;                           // no shared buffers (slotSetup's c1 = c0)
constexpr int SLOT = 1;
constexpr int RB = ${p.rhs};                    // right-hand-side vectors per pass

// T = ${v.left ? 'op(A)' : 'op(A)^T'} is ${v.lowerT ? 'lower' : 'upper'} triangular, T(r, k) = ${v.conj ? 'conj ' : ''}A(${v.rowwise ? 'r, k' : 'k, r'}); ${v.unit ? 'unit' : 'non-unit'} diagonal.
extern "C" __global__ void __launch_bounds__(WARPS * 32, 1) ${entry}(
    ${operandParameters('A', p.kindA, false, 'real2')},
    ${operandParameters('B', p.kindB, true, 'real2')},
    const int* __restrict__ index, int count, int nrhs, double alphaRe, double alphaIm) {
${slotSetup()}
  const real2* a = valid ? ${matrixPointer('A', p.kindA, 'mid')} : nullptr;
  real2* b = valid ? ${matrixPointer('B', p.kindB, 'mid')} : nullptr;
  (void)a;
  const int q1 = blockIdx.y * RB, qs = gridDim.y * RB;   // this block's first vector, and the step between its passes
  if (alphaRe == 0.0 && alphaIm == 0.0) {               // B := 0, A and B not read (one value for the whole launch)
    if (valid) {
      for (int q0 = q1; q0 < nrhs; q0 += qs) {
#pragma unroll
        for (int c = 0; c < RB; ++c) if (q0 + c < nrhs) ${bAt('q0 + c')} = makeReal2(real(0), real(0));
      }
    }
    return;
  }
  real2 rA[N];                                          // row r of T on the solve's side of the diagonal
#pragma unroll
  for (int k = 0; k < N; ++k) rA[k] = (valid && ${solveSide}) ? ${tAt('r', 'k')} : makeReal2(real(0), real(0));
${v.unit ? '' : `  const Divisor dr = divisorOf(valid ? ${tAt('r', 'r')} : makeReal2(real(1), real(0)));   // T(r, r)\n`}  const bool scale = !(alphaRe == 1.0 && alphaIm == 0.0);
  const real2 alpha = makeReal2((real)alphaRe, (real)alphaIm);
  for (int q0 = q1; q0 < nrhs; q0 += qs) {
    real2 x[RB];
#pragma unroll
    for (int c = 0; c < RB; ++c) {
      x[c] = (valid && q0 + c < nrhs) ? ${bAt('q0 + c')} : makeReal2(real(0), real(0));
      if (scale) x[c] = mulReal2(alpha, x[c]);
    }
#pragma unroll
    ${loop} {
      const real2 tk = rA[k];
#pragma unroll
      for (int c = 0; c < RB; ++c) {
        const real2 xk = shflReal2(${scaled('x[c]')}, base + k);
        if (${v.lowerT ? 'r > k' : 'r < k'}) x[c] = fmsReal2(tk, xk, x[c]);
      }
    }
    if (valid) {
#pragma unroll
      for (int c = 0; c < RB; ++c) if (q0 + c < nrhs) ${bAt('q0 + c')} = ${scaled('x[c]')};
    }
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}
