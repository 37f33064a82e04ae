/**
 * The large trsm's data movement (plan.ts, `inverted`): TRSM by inverted diagonal blocks
 * (batched-triangular-kblas, TRSM: invert the diagonal blocks once, then every block solve is a
 * GEMM on tensor cores instead of a substitution chain; what cuBLAS and MAGMA do for large
 * triangles). Two grid-stride kernels, one thread per element, strided operands:
 * - `diagonal`: the NB x NB diagonal blocks of A's triangle into a workspace, `slots` per matrix
 *   (slot j holds rows and columns [j NB, j NB + s) with s = min(NB, t - j NB)); the other triangle
 *   is written 0, a unit diagonal 1 (A's diagonal is then not read), and a last, short block is
 *   padded with the identity, so trtri inverts every slot as a full NB x NB triangle and the
 *   inverse's leading s x s block is the short block's inverse. Only A's triangle is read.
 * - `copy`: a rows x cols block of every matrix of B into a compact workspace (ld = rows), the
 *   out-of-place operand of the GEMM that writes the solution back over B.
 */
import type { KernelSource } from '../../runtime/types.js';
import { matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { matrixElementsLoop } from '../common/element-loop.js';
import { precisionLetter, precisionPrelude } from '../common/precision.js';
import type { TrsmCopyParams, TrsmDiagonalParams } from './params.js';

export const BLOCKS_THREADS = 256;

export function trsmDiagonalSource(p: TrsmDiagonalParams): KernelSource {
  const entry = `trsm_diagonal_${precisionLetter(p.dtype)}_${p.uplo === 'lower' ? 'l' : 'u'}${p.diag === 'unit' ? 'u' : 'n'}`;
  const inTriangle = p.uplo === 'lower' ? 'r > c' : 'r < c';
  const source = `${precisionPrelude(p.dtype)}

// W: count x slots blocks of nb x nb (ld nb), matrix by matrix, slot by slot.
extern "C" __global__ void __launch_bounds__(${BLOCKS_THREADS}) ${entry}(
    ${operandParameters('A', 'strided', false)}, real* __restrict__ W, int count, int t, int nb, int slots) {
  const long long per = (long long)nb * nb;
  const long long total = per * slots * count;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total; e += (long long)gridDim.x * blockDim.x) {
    const long long q = e / per;              // block q of the workspace: matrix q / slots, slot q % slots
    const int mat = (int)(q / slots), slot = (int)(q - (long long)mat * slots);
    const long long w = e - q * per;
    const int c = (int)(w / nb), r = (int)(w - (long long)c * nb);
    const int off = slot * nb, s = min(nb, t - off);
    real v;
    if (r >= s || c >= s) v = r == c ? real(1) : real(0);   // identity padding of a short last block
    else if (r == c) v = ${p.diag === 'unit' ? 'real(1)' : `${matrixPointer('A', 'strided', 'mat')}[(off + r) + (long long)(off + c) * ldA]`};
    else if (${inTriangle}) v = ${matrixPointer('A', 'strided', 'mat')}[(off + r) + (long long)(off + c) * ldA];
    else v = real(0);
    W[e] = v;
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}

export function trsmCopySource(p: TrsmCopyParams): KernelSource {
  const entry = `trsm_copy_${precisionLetter(p.dtype)}`;
  const source = `${precisionPrelude(p.dtype)}

// X: count blocks of rows x cols (ld rows), contiguous.
extern "C" __global__ void __launch_bounds__(${BLOCKS_THREADS}) ${entry}(
    ${operandParameters('B', 'strided', false)}, real* __restrict__ X, int count, int rows, int cols) {
${matrixElementsLoop(`    X[e] = ${matrixPointer('B', 'strided', 'mat')}[i + (long long)j * ldB];`)}
}
`;
  return { name: `${entry}.cu`, source, entry };
}
