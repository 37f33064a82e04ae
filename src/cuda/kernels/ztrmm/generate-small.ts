/**
 * Complex triangular multiply (ztrmm, ctrmm) with a triangle of order N <= 32: B := alpha op(A) B
 * (side 'left') or alpha B op(A) ('right'), op 'N', 'T' or 'C', unit or non-unit diagonal, in the
 * warp-slot layout of the small register designs (common/warp-slots.ts): a matrix gets N lanes,
 * several matrices share a warp where one cannot fill it, no shared memory and no barrier.
 *
 * Every vector x of B becomes T x for one triangular matrix T, as in the reference
 * (cpu/complex/ztrmm.ts, ztriangular.ts): side 'left' multiplies the columns of B by T = op(A),
 * 'right' its rows by T = op(A)^T (x op(A) = (op(A)^T x^T)^T). T is the complex trsm's view of A
 * (common/triangle-warp.ts triangleView: element (r, k) is A(r, k) or A(k, r), conjugated for 'C'). Thread r holds row r
 * of T off the diagonal on T's side (the other triangle of A is never read, the diagonal only for
 * 'nonunit') and element r of RB vectors at a time.
 *
 * Row r of the product needs every x(k) of its side of the diagonal as it was: the lanes take x(k)
 * from lane k by a shuffle, k ascending, and add T(r, k) x(k) to T(r, r) x(r) (x(r) for 'unit'), the
 * reference's order of summation; nothing is written before every lane has its sum, so B is
 * overwritten in place. A product is a complex multiply-add (common/complex.ts), the conjugation of
 * 'C' applied once as A is loaded.
 *
 * alpha: the product is scaled after it is formed (not where alpha is exactly 1: the reference skips
 * the scaling there), as the reference's ztrmm; alpha = 0 stores zeros in B without reading A or B
 * (BLAS). alpha arrives as two doubles (the test for zero and one made on the caller's value),
 * rounded to the kernel's precision for the scaling. Only B's matrices are written.
 *
 * The vectors of a matrix go RB at a time, the passes spread over blockIdx.y (common/triangle-warp.ts passGridY).
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { complexLetter, complexMultiplyAdd, complexPrelude, complexScalarHelpers } from '../common/complex.js';
import { mathHelpers, precisionPrelude } from '../common/precision.js';
import { triangleView } from '../common/triangle-warp.js';
import { slotSetup } from '../common/warp-slots.js';
import type { ZtrmmSmallParams } from './params.js';

/** The kernel's entry: ztrmm_<z|c>_<side><uplo><trans><diag>_n<N>_r<RB>_<forms>_w<warps>. */
function ztrmmEntry(p: ZtrmmSmallParams): string {
  const flags = `${p.side === 'left' ? 'l' : 'r'}${p.uplo === 'lower' ? 'l' : 'u'}${p.transA.toLowerCase()}${p.diag === 'unit' ? 'u' : 'n'}`;
  return `ztrmm_${complexLetter(p.dtype)}_${flags}_n${p.n}_r${p.rhs}_${kindTag(p.kindA)}${kindTag(p.kindB)}_w${p.warps}`;
}

export function ztrmmSmallSource(p: ZtrmmSmallParams): KernelSource {
  if (!Number.isInteger(p.n) || p.n < 1 || p.n > 32) throw new RangeError(`ztrmm: n must be 1 .. 32, got ${p.n}`);
  if (!Number.isInteger(p.rhs) || p.rhs < 1) throw new RangeError(`ztrmm: rhs must be a positive integer, got ${p.rhs}`);
  if (!Number.isInteger(p.warps) || p.warps < 1 || p.warps > 32) throw new RangeError(`ztrmm: warps must be 1 .. 32, got ${p.warps}`);
  const v = triangleView(p);
  const entry = ztrmmEntry(p);
  const read = (x: string): string => (v.conj ? `conjReal2(${x})` : x);
  const tAt = (row: string, col: string): string => read(v.rowwise ? `a[${row} + (long long)${col} * ldA]` : `a[${col} + (long long)${row} * ldA]`);
  // Element r of vector q of B: a column of B (left) or a row (right).
  const bAt = (q: string): string => (v.left ? `b[r + (long long)(${q}) * ldB]` : `b[(${q}) + (long long)r * ldB]`);
  const side = v.lowerT ? 'k < r' : 'k > r';
  const source = `${precisionPrelude(p.dtype)}
${mathHelpers(p.dtype)}
${complexPrelude(p.dtype)}
${complexScalarHelpers(p.dtype)}
${complexMultiplyAdd({ conjA: false, conjB: false })}
constexpr int N = ${p.n};
constexpr int LANES = N;                        // lanes per matrix: one per row of T
constexpr int MPW = ${Math.floor(32 / p.n)};    // matrices per warp
constexpr int WARPS = ${p.warps};
constexpr int NC = 0;                           // no shared buffers (slotSetup's c1 = c0)
constexpr int SLOT = 1;
constexpr int RB = ${p.rhs};                    // vectors of B per pass

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
  real2 rA[N];                                          // row r of T on its side of the diagonal (zero elsewhere, never used)
#pragma unroll
  for (int k = 0; k < N; ++k) rA[k] = (valid && ${side}) ? ${tAt('r', 'k')} : makeReal2(real(0), real(0));
${v.unit ? '' : `  const real2 dr = valid ? ${tAt('r', 'r')} : makeReal2(real(0), real(0));   // T(r, r)\n`}  const bool scale = !(alphaRe == 1.0 && alphaIm == 0.0);
  const real2 alpha = makeReal2((real)alphaRe, (real)alphaIm);
  for (int q0 = q1; q0 < nrhs; q0 += qs) {
    real2 x[RB], y[RB];
#pragma unroll
    for (int c = 0; c < RB; ++c) {
      x[c] = (valid && q0 + c < nrhs) ? ${bAt('q0 + c')} : makeReal2(real(0), real(0));
      y[c] = ${v.unit ? 'x[c]' : 'mulReal2(dr, x[c])'};
    }
#pragma unroll
    for (int k = 0; k < N; ++k) {
      const real2 tk = rA[k];
#pragma unroll
      for (int c = 0; c < RB; ++c) {
        const real2 xk = shflReal2(x[c], base + k);
        if (${side}) y[c] = fmaOp(tk, xk, y[c]);
      }
    }
    if (valid) {
#pragma unroll
      for (int c = 0; c < RB; ++c) if (q0 + c < nrhs) ${bAt('q0 + c')} = scale ? mulReal2(alpha, y[c]) : y[c];
    }
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}
