/**
 * The element type of a gemm kernel as its generators spell it: `real` for float64 / float32, or
 * `real2` (common/complex.ts) for complex128 / complex64, where the same designs run on pairs. For
 * real parameters every spelling here is the text the real kernels have always had, so their
 * sources do not change.
 */
import { complexBytes, complexLetter, complexMultiplyAdd, complexPrelude } from '../common/complex.js';
import { elementBytes, precisionLetter, precisionPrelude } from '../common/precision.js';
import type { Op } from '../../../core/ops.js';
import type { GemmParams } from './params.js';

type Params = Pick<GemmParams, 'dtype' | 'complex'>;

/** The C++ element type: real or real2. */
export const elementType = (p: Params): 'real' | 'real2' => (p.complex === undefined ? 'real' : 'real2');

/** Bytes of one element (a complex one: both parts). */
export const gemmElementBytes = (p: Params): number => (p.complex === undefined ? elementBytes(p.dtype) : complexBytes(p.dtype));

/** The BLAS letter of kernel names: d, s, z, c. */
export const gemmLetter = (p: Params): string => (p.complex === undefined ? precisionLetter(p.dtype) : complexLetter(p.dtype));

/** The op letters of kernel names and comments: N, T, or C where a complex operand is conjugated. */
export function opLetters(p: Params & { transA: Op; transB: Op }): { a: string; b: string } {
  return { a: p.complex?.conjA ? 'C' : p.transA, b: p.complex?.conjB ? 'C' : p.transB };
}

/** The lines a kernel starts with: the precision's, and for complex the pair type and its multiply-add. */
export function gemmPrelude(p: Params): string {
  if (p.complex === undefined) return precisionPrelude(p.dtype);
  return `${precisionPrelude(p.dtype)}
${complexPrelude(p.dtype)}
${complexMultiplyAdd(p.complex)}`;
}

/** A zero element. */
export const zeroElement = (p: Params): string => (p.complex === undefined ? '0' : 'makeReal2(0, 0)');

/** c + op(a) op(b), rounded as the design's fused multiply-adds. */
export const multiplyAdd = (p: Params, a: string, b: string, c: string): string =>
  p.complex === undefined ? `fmaReal(${a}, ${b}, ${c})` : `fmaOp(${a}, ${b}, ${c})`;

/** alpha x + beta y, or alpha x where beta = 0 (C never read). */
export function updateElement(p: Params & { betaZero: boolean }, x: string, y: string): string {
  if (p.complex === undefined) return p.betaZero ? `alpha * ${x}` : `alpha * ${x} + beta * ${y}`;
  return p.betaZero ? `mulReal2(alpha, ${x})` : `axpbyReal2(alpha, ${x}, beta, ${y})`;
}

/** The kernel parameters alpha and beta: one `real` each, or their parts (kernel arguments are scalars). */
export const scalarParameters = (p: Params): string =>
  (p.complex === undefined ? 'real alpha, real beta' : 'real alphaRe, real alphaIm, real betaRe, real betaIm');

/** For complex kernels, the line that assembles alpha and beta from their parts; empty for real ones. */
export const scalarSetup = (p: Params): string =>
  (p.complex === undefined ? '' : 'const real2 alpha = makeReal2(alphaRe, alphaIm), beta = makeReal2(betaRe, betaIm);\n  ');
