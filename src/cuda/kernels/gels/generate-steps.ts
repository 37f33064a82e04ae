/**
 * The two small kernels gels runs between the pieces it borrows (geqrf, ormqr, trsm):
 *
 * - check (after geqrf; one thread per matrix): info = j + 1 for the first exact zero on R's
 *   diagonal (dgels's test, through dtrtrs), and a state per matrix: SOLVE, SINGULAR, or ZERO
 *   where all of R is zero (R = 0 exactly where A = 0, A = Q R with Q orthogonal: dgels then
 *   returns X = 0 and info 0). A matrix that is not solved has its steps made harmless, so the
 *   borrowed launches need no mask: tau := 0 (Q = I, ormqr leaves B as it is); tall, B's top
 *   n rows kept aside (the triangular solve with a singular R writes Inf/NaN there, the finish
 *   puts them back); wide, the workspace's R := I (the solve leaves B(0:m) as it is; A already
 *   holds the factors). So B comes back as given where info > 0, as the CPU reference leaves it.
 * - finish (one thread per element of B, grid-stride): tall, after the solve: B(0:n) restored
 *   where SINGULAR, B := 0 where ZERO; wide, before Q is applied: B(m:n) := 0 where SOLVE
 *   ([Y; 0]), B := 0 where ZERO.
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { precisionLetter, precisionPrelude } from '../common/precision.js';
import type { GelsCheckParams, GelsFinishParams } from './params.js';

export const CHECK_THREADS = 128;
export const FINISH_THREADS = 256;
/** The per-matrix states the check writes and the finish reads. */
export const GELS_SOLVE = 0;
export const GELS_SINGULAR = 1;
export const GELS_ZERO = 2;

const shape = (tall: boolean): string => (tall ? 'tall' : 'wide');

const STATES = `#define GELS_SOLVE ${GELS_SOLVE}
#define GELS_SINGULAR ${GELS_SINGULAR}
#define GELS_ZERO ${GELS_ZERO}`;

export function gelsCheckSource(p: GelsCheckParams): KernelSource {
  const entry = `gels_check_${precisionLetter(p.dtype)}_${shape(p.tall)}_${kindTag(p.factor)}_${kindTag(p.b)}`;
  // Tall: R sits in A (read only here) and B's top rows go aside into W. Wide: R sits in the
  // workspace (A, written: R := I), B is not touched and W is unused.
  const aside = p.tall
    ? `    if (state == GELS_SINGULAR) {
      // B(0:k, :) aside: the finish restores it over what the solve with a singular R wrote.
      const real* b = ${matrixPointer('B', p.b, 'mat')};
      real* w = ${matrixPointer('W', 'strided', 'mat')};
      for (int j = 0; j < nrhs; ++j)
        for (int i = 0; i < k; ++i) w[i + (long long)j * ldW] = b[i + (long long)j * ldB];
    }`
    : `    // R := I: R^T Y = B(0:m) then leaves B as it is (A already holds the factors).
    for (int j = 0; j < k; ++j)
      for (int i = 0; i <= j; ++i) r[i + (long long)j * ldA] = i == j ? real(1) : real(0);`;
  const source = `${precisionPrelude(p.dtype)}
${STATES}

extern "C" __global__ void __launch_bounds__(${CHECK_THREADS}) ${entry}(
    ${operandParameters('A', p.factor, !p.tall)}, ${operandParameters('T', 'strided', true)},
    ${operandParameters('B', p.b, false)}, ${operandParameters('W', 'strided', true)},
    int* __restrict__ info, const int* __restrict__ index, int count, int* __restrict__ status, int k, int nrhs) {
  const int mat = blockIdx.x * blockDim.x + threadIdx.x;
  if (mat >= count) return;
  ${p.tall ? 'const ' : ''}real* r = ${matrixPointer('A', p.factor, 'mat')};
  int first = 0;
  for (int j = 0; j < k; ++j)
    if (r[j + (long long)j * ldA] == real(0)) { first = j + 1; break; }
  int state = GELS_SOLVE;
  if (first != 0) {
    // R = 0 exactly where A = 0 (A = Q R, Q orthogonal): X = 0 and info 0, as dgels.
    bool zero = true;
    for (int j = 0; j < k && zero; ++j)
      for (int i = 0; i <= j; ++i)
        if (r[i + (long long)j * ldA] != real(0)) { zero = false; break; }
    state = zero ? GELS_ZERO : GELS_SINGULAR;
    // Q := I (every tau zero): ormqr leaves B as it is.
    real* t = ${matrixPointer('T', 'strided', 'mat')};
    for (int j = 0; j < k; ++j) t[j] = real(0);
${aside}
  }
  info[index ? index[mat] : mat] = state == GELS_SINGULAR ? first : 0;
  status[mat] = state;
}
`;
  return { name: `${entry}.cu`, source, entry };
}

export function gelsFinishSource(p: GelsFinishParams): KernelSource {
  const entry = `gels_finish_${precisionLetter(p.dtype)}_${shape(p.tall)}_${kindTag(p.b)}`;
  // `edge`: tall, n (rows of X, restored where SINGULAR); wide, m (rows from which [Y; 0] is zero).
  const body = p.tall
    ? `    if (state == GELS_ZERO) b[i + (long long)j * ldB] = real(0);
    else if (state == GELS_SINGULAR && i < edge) {
      const real* w = ${matrixPointer('W', 'strided', 'mat')};
      b[i + (long long)j * ldB] = w[i + (long long)j * ldW];
    }`
    : `    if (state == GELS_ZERO || (state == GELS_SOLVE && i >= edge)) b[i + (long long)j * ldB] = real(0);`;
  // Tall: a solved matrix has nothing to put back.
  const skip = p.tall ? '    if (state == GELS_SOLVE) continue;\n' : '';
  const source = `${precisionPrelude(p.dtype)}
${STATES}

extern "C" __global__ void __launch_bounds__(${FINISH_THREADS}) ${entry}(
    ${operandParameters('B', p.b, true)}, ${operandParameters('W', 'strided', false)},
    const int* __restrict__ status, int count, int rows, int nrhs, int edge) {
  const long long per = (long long)rows * nrhs;
  const long long total = per * count;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total; e += (long long)gridDim.x * blockDim.x) {
    const int mat = (int)(e / per);
    const int state = status[mat];
${skip}    const long long rest = e - mat * per;
    const int j = (int)(rest / rows), i = (int)(rest - (long long)j * rows);
    real* b = ${matrixPointer('B', p.b, 'mat')};
${body}
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}
