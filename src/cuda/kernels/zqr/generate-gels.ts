/**
 * The three small kernels complex gels runs between the pieces it composes (zgeqrf, zunmqr and the
 * complex trsm), the real gels family's design over (re, im) pairs:
 *
 * - check (after zgeqrf; one thread per matrix): info = j + 1 for the first exactly zero R(j, j)
 *   (both parts), and a state per matrix: SOLVE, SINGULAR, or ZERO where all of R is zero (R = 0
 *   exactly where A = 0: zgels then returns X = 0 and info 0, as the reference). A matrix that is
 *   not solved has its steps made harmless: tau := 0 (Q = I); tall, B's top n rows kept aside (the
 *   solve with a singular R writes Inf or NaN there, the finish puts them back); wide, the
 *   workspace's R := I (the solve leaves B(0:m) as it is; A already holds the factors). So B comes
 *   back as given where info > 0, as the reference leaves it.
 * - finish (a thread per pair of B, grid-stride): tall, after the solve: B(0:n) restored where
 *   SINGULAR, B := 0 where ZERO; wide, before Q is applied: B(m:n) := 0 where SOLVE ([Y; 0]),
 *   B := 0 where ZERO.
 * - conjugate transpose (one block per matrix): B := A^H of a rows x cols A (the wide case factors
 *   A^H in a workspace, and A receives the factors conjugate-transposed back, zgelqf's storage).
 */
import type { DType } from '../../../core/dtype.js';
import type { KernelSource } from '../../runtime/types.js';
import type { OperandKind } from '../common/batch-pointer.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { complexLetter, complexPrelude } from '../common/complex.js';
import { precisionPrelude } from '../common/precision.js';

export const ZGELS_CHECK_THREADS = 128;
export const ZGELS_FINISH_THREADS = 256;
export const ZGELS_MOVE_THREADS = 256;
const ZGELS_SOLVE = 0;
const ZGELS_SINGULAR = 1;
const ZGELS_ZERO = 2;

/** The check after the factorization (see the file comment). */
export interface ZgelsCheckParams {
  readonly dtype: DType;
  /** m >= n (R in A) or m < n (R in the workspace's A^H). */
  readonly tall: boolean;
  readonly factor: OperandKind;
  readonly b: OperandKind;
}

/** The pass over B after (tall) or before (wide) the solve's last step. */
export interface ZgelsFinishParams {
  readonly dtype: DType;
  readonly tall: boolean;
  readonly b: OperandKind;
}

/** B := A^H. */
export interface ZconjTransposeParams {
  readonly dtype: DType;
  readonly a: OperandKind;
  readonly b: OperandKind;
}

const shape = (tall: boolean): string => (tall ? 'tall' : 'wide');
const STATES = `#define GELS_SOLVE ${ZGELS_SOLVE}
#define GELS_SINGULAR ${ZGELS_SINGULAR}
#define GELS_ZERO ${ZGELS_ZERO}`;

export function zgelsCheckSource(p: ZgelsCheckParams): KernelSource {
  const entry = `zgels_check_${complexLetter(p.dtype)}_${shape(p.tall)}_${kindTag(p.factor)}_${kindTag(p.b)}`;
  const aside = p.tall
    ? `    if (state == GELS_SINGULAR) {
      // B(0:k, :) aside: the finish restores it over what the solve with a singular R wrote.
      const real2* b = ${matrixPointer('B', p.b, 'mat')};
      real2* w = ${matrixPointer('W', 'strided', 'mat')};
      for (int j = 0; j < nrhs; ++j)
        for (int i = 0; i < k; ++i) w[i + (long long)j * ldW] = b[i + (long long)j * ldB];
    }`
    : `    // R := I: R^H Y = B(0:m) then leaves B as it is (A already holds the factors).
    for (int j = 0; j < k; ++j)
      for (int i = 0; i <= j; ++i) r[i + (long long)j * ldA] = makeReal2(i == j ? real(1) : real(0), real(0));`;
  const source = `${precisionPrelude(p.dtype)}
${complexPrelude(p.dtype)}
${STATES}

extern "C" __global__ void __launch_bounds__(${ZGELS_CHECK_THREADS}) ${entry}(
    ${operandParameters('A', p.factor, !p.tall, 'real2')}, ${operandParameters('T', 'strided', true, 'real2')},
    ${operandParameters('B', p.b, false, 'real2')}, ${operandParameters('W', 'strided', true, 'real2')},
    int* __restrict__ info, const int* __restrict__ index, int count, int* __restrict__ status, int k, int nrhs) {
  const int mat = blockIdx.x * blockDim.x + threadIdx.x;
  if (mat >= count) return;
  ${p.tall ? 'const ' : ''}real2* r = ${matrixPointer('A', p.factor, 'mat')};
  int first = 0;
  for (int j = 0; j < k; ++j) {
    const real2 d = r[j + (long long)j * ldA];
    if (d.x == real(0) && d.y == real(0)) { first = j + 1; break; }
  }
  int state = GELS_SOLVE;
  if (first != 0) {
    // R = 0 exactly where A = 0 (A = Q R, Q unitary): X = 0 and info 0, as zgels.
    bool zero = true;
    for (int j = 0; j < k && zero; ++j)
      for (int i = 0; i <= j; ++i) {
        const real2 e = r[i + (long long)j * ldA];
        if (e.x != real(0) || e.y != real(0)) { zero = false; break; }
      }
    state = zero ? GELS_ZERO : GELS_SINGULAR;
    // Q := I (every tau zero): zunmqr leaves B as it is.
    real2* t = ${matrixPointer('T', 'strided', 'mat')};
    for (int j = 0; j < k; ++j) t[j] = makeReal2(real(0), real(0));
${aside}
  }
  info[index ? index[mat] : mat] = state == GELS_SINGULAR ? first : 0;
  status[mat] = state;
}
`;
  return { name: `${entry}.cu`, source, entry };
}

export function zgelsFinishSource(p: ZgelsFinishParams): KernelSource {
  const entry = `zgels_finish_${complexLetter(p.dtype)}_${shape(p.tall)}_${kindTag(p.b)}`;
  const body = p.tall
    ? `    if (state == GELS_ZERO) b[i + (long long)j * ldB] = makeReal2(real(0), real(0));
    else if (state == GELS_SINGULAR && i < edge) {
      const real2* w = ${matrixPointer('W', 'strided', 'mat')};
      b[i + (long long)j * ldB] = w[i + (long long)j * ldW];
    }`
    : `    if (state == GELS_ZERO || (state == GELS_SOLVE && i >= edge)) b[i + (long long)j * ldB] = makeReal2(real(0), real(0));`;
  const skip = p.tall ? '    if (state == GELS_SOLVE) continue;\n' : '';
  const source = `${precisionPrelude(p.dtype)}
${complexPrelude(p.dtype)}
${STATES}

extern "C" __global__ void __launch_bounds__(${ZGELS_FINISH_THREADS}) ${entry}(
    ${operandParameters('B', p.b, true, 'real2')}, ${operandParameters('W', 'strided', false, 'real2')},
    const int* __restrict__ status, int count, int rows, int nrhs, int edge) {
  const long long per = (long long)rows * nrhs;
  const long long total = per * count;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total; e += (long long)gridDim.x * blockDim.x) {
    const int mat = (int)(e / per);
    const int state = status[mat];
${skip}    const long long rest = e - mat * per;
    const int j = (int)(rest / rows), i = (int)(rest - (long long)j * rows);
    real2* b = ${matrixPointer('B', p.b, 'mat')};
${body}
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}

export function zconjTransposeSource(p: ZconjTransposeParams): KernelSource {
  const entry = `zconj_transpose_${complexLetter(p.dtype)}_${kindTag(p.a)}_${kindTag(p.b)}`;
  const source = `${precisionPrelude(p.dtype)}
${complexPrelude(p.dtype)}

// B (cols x rows) := A^H (A rows x cols), one block per matrix; consecutive threads down A's columns.
extern "C" __global__ void __launch_bounds__(${ZGELS_MOVE_THREADS}) ${entry}(
    ${operandParameters('A', p.a, false, 'real2')}, ${operandParameters('B', p.b, true, 'real2')},
    int count, int rows, int cols) {
  const long long mat = blockIdx.x;
  if (mat >= count) return;
  const real2* a = ${matrixPointer('A', p.a, 'mat')};
  real2* b = ${matrixPointer('B', p.b, 'mat')};
  for (long long e = threadIdx.x; e < (long long)rows * cols; e += blockDim.x) {
    const int i = (int)(e % rows), j = (int)(e / rows);
    const real2 x = a[i + (long long)j * ldA];
    b[j + (long long)i * ldB] = makeReal2(x.x, -x.y);
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}
