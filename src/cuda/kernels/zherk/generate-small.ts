/**
 * Complex Hermitian rank-k update (zherk, cherk) with C of order N <= 32: C := alpha X X^H + beta C
 * with X = A (trans 'N', A n x k) or X = A^H ('C', A k x n), alpha and beta real; only the `uplo`
 * triangle of C is read and written, and the imaginary parts of its diagonal are set to zero (and
 * not read), as LAPACK's zherk and the reference (cpu/complex/zrankk.ts).
 *
 * A block holds PER matrices (blockDim.z), each an N x RY grid of threads: thread (i, y) owns the
 * elements (i, j) of C's triangle with j = y, y + RY, ... (at most CPT of them, accumulators in
 * registers). X goes through shared memory KC of its columns at a time (X(i, l) for l in the chunk,
 * loaded along A's leading dimension: by rows of X for 'N', by columns for 'C', conjugated there),
 * and each element takes X(i, l) conj(X(j, l)) (common/complex.ts's multiply-add, the conjugation
 * in its signs). The chunk loop runs the same count in every matrix of the block (k is one value),
 * so its barriers are uniform; threads of a missing matrix or outside the triangle load zeros and
 * compute nothing they store.
 *
 * beta = 0 never reads C; the launcher passes k = 0 where alpha is 0 (A is then not read) and
 * launches nothing where, besides, beta is 1 (zherk's early return).
 *
 * With `symmetric` the same kernel is zsyrk's (csyrk's): C := alpha X X^T + beta C with X = A ('N')
 * or A^T ('T'), nothing conjugated, alpha and beta complex (passed as their parts), the diagonal an
 * element like the others (cpu/complex/zrankk.ts cpuSyrkComplex). The Hermitian kernels' text does
 * not depend on the option.
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { complexLetter, complexMultiplyAdd, complexPrelude } from '../common/complex.js';
import { precisionPrelude } from '../common/precision.js';
import type { ZherkSmallParams } from './params.js';

/** Columns of C a thread owns. */
export const columnsPerThread = (p: Pick<ZherkSmallParams, 'n' | 'rowsY'>): number => Math.ceil(p.n / p.rowsY);

/** The kernel's entry: zherk_<z|c>_<uplo><trans>_n<N>_y<RY>_p<PER>_k<KC>_<forms> (zsyrk_... with `symmetric`). */
function zherkEntry(p: ZherkSmallParams): string {
  return `${p.symmetric ? 'zsyrk' : 'zherk'}_${complexLetter(p.dtype)}_${p.uplo === 'lower' ? 'l' : 'u'}${p.trans.toLowerCase()}_n${p.n}_y${p.rowsY}_p${p.perBlock}_k${p.chunk}_${kindTag(p.kindA)}${kindTag(p.kindC)}`;
}

export function zherkSmallSource(p: ZherkSmallParams): KernelSource {
  if (!Number.isInteger(p.n) || p.n < 1 || p.n > 32) throw new RangeError(`zherk: n must be 1 .. 32, got ${p.n}`);
  for (const [name, v] of [['rowsY', p.rowsY], ['perBlock', p.perBlock], ['chunk', p.chunk]] as const) {
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`zherk: ${name} must be a positive integer, got ${v}`);
  }
  if (p.rowsY > p.n) throw new RangeError(`zherk: rowsY must be at most n (${p.n}), got ${p.rowsY}`);
  if (p.n * p.rowsY * p.perBlock > 1024) throw new RangeError(`zherk: n rowsY perBlock must be at most 1024 threads, got ${p.n * p.rowsY * p.perBlock}`);
  const symmetric = p.symmetric === true;
  if (p.trans !== 'N' && p.trans !== (symmetric ? 'T' : 'C')) throw new RangeError(`${symmetric ? 'zsyrk' : 'zherk'}: trans must be 'N' or '${symmetric ? 'T' : 'C'}', got '${p.trans}'`);
  const entry = zherkEntry(p);
  const lower = p.uplo === 'lower';
  const notrans = p.trans === 'N';
  // Element e of the chunk's N x KC pairs: X(i, l) with i fastest ('N': along A's columns) or l fastest ('C', 'T': along A's rows).
  const split = notrans ? 'const int i = e % N, l = e / N;' : 'const int l = e % KC, i = e / KC;';
  const byColumns = 'a[(l0 + l) + (long long)i * ldA]';
  const load = notrans ? 'a[i + (long long)(l0 + l) * ldA]' : symmetric ? byColumns : `conjX(${byColumns})`;
  const helpers = symmetric
    ? complexMultiplyAdd({ conjA: false, conjB: false })
    : `${complexMultiplyAdd({ conjA: false, conjB: true })}
static __device__ __forceinline__ real2 conjX(real2 a) { return makeReal2(a.x, -a.y); }`;
  const what = symmetric
    ? `// C := alpha X X^T + beta C, X = ${notrans ? 'A' : 'A^T'}; the ${p.uplo} triangle, complex alpha and beta.`
    : `// C := alpha X X^H + beta C, X = ${notrans ? 'A' : 'A^H'}; the ${p.uplo} triangle, a real diagonal.`;
  const scalars = symmetric ? 'double alphaRe, double alphaIm, double betaRe, double betaIm' : 'double alphaD, double betaD';
  const source = `${precisionPrelude(p.dtype)}
${complexPrelude(p.dtype)}
${helpers}
constexpr int N = ${p.n};
constexpr int RY = ${p.rowsY};                  // threads of a matrix along C's columns
constexpr int CPT = ${columnsPerThread(p)};     // columns of C a thread owns: y, y + RY, ...
constexpr int PER = ${p.perBlock};              // matrices per block
constexpr int KC = ${p.chunk};                  // columns of X staged at once

${what}
extern "C" __global__ void __launch_bounds__(${p.n * p.rowsY * p.perBlock}) ${entry}(
    ${operandParameters('A', p.kindA, false, 'real2')},
    ${operandParameters('C', p.kindC, true, 'real2')},
    const int* __restrict__ index, int count, int k, ${scalars}) {
  __shared__ real2 sx[PER][KC][N];
  (void)index;
  const int i = threadIdx.x, y = threadIdx.y, z = threadIdx.z;
  const long long mid = (long long)blockIdx.x * PER + z;
  const bool valid = mid < count;
  const real2* a = valid ? ${matrixPointer('A', p.kindA, 'mid')} : nullptr;
  real2* c = valid ? ${matrixPointer('C', p.kindC, 'mid')} : nullptr;
  real2 acc[CPT];
#pragma unroll
  for (int s = 0; s < CPT; ++s) acc[s] = makeReal2(real(0), real(0));
  const int t = i + N * y;                      // this thread among its matrix's N RY
  for (int l0 = 0; l0 < k; l0 += KC) {
    __syncthreads();
    for (int e = t; e < N * KC; e += N * RY) {
      ${split}
      sx[z][l][i] = (valid && l0 + l < k) ? ${load} : makeReal2(real(0), real(0));
    }
    __syncthreads();
    const int lk = min(KC, k - l0);
    for (int l = 0; l < lk; ++l) {
      const real2 xi = sx[z][l][i];
#pragma unroll
      for (int s = 0; s < CPT; ++s) {
        const int j = y + s * RY;
        if (j < N) acc[s] = fmaOp(xi, sx[z][l][j], acc[s]);
      }
    }
  }
  if (!valid) return;
${symmetric ? symmetricStore(lower) : `  const real alpha = (real)alphaD, beta = (real)betaD;
#pragma unroll
  for (int s = 0; s < CPT; ++s) {
    const int j = y + s * RY;
    if (j >= N || ${lower ? 'i < j' : 'i > j'}) continue;
    real2* cij = c + i + (long long)j * ldC;
    const bool diagonal = i == j;
    real2 v = makeReal2(alpha * acc[s].x, diagonal ? real(0) : alpha * acc[s].y);
    if (betaD != 0.0) {
      const real2 old = *cij;
      v.x = fmaReal(beta, old.x, v.x);
      if (!diagonal) v.y = fmaReal(beta, old.y, v.y);
    }
    *cij = v;
  }`}
}
`;
  return { name: `${entry}.cu`, source, entry };
}

/** zsyrk's store of the triangle: alpha acc + beta C, C not read where beta is 0 (it may hold NaN). */
function symmetricStore(lower: boolean): string {
  return `  const real2 alpha = makeReal2((real)alphaRe, (real)alphaIm), beta = makeReal2((real)betaRe, (real)betaIm);
  const bool readC = !(betaRe == 0.0 && betaIm == 0.0);
#pragma unroll
  for (int s = 0; s < CPT; ++s) {
    const int j = y + s * RY;
    if (j >= N || ${lower ? 'i < j' : 'i > j'}) continue;
    real2* cij = c + i + (long long)j * ldC;
    *cij = readC ? axpbyReal2(alpha, acc[s], beta, *cij) : mulReal2(alpha, acc[s]);
  }`;
}
