/**
 * trsm for one large triangle and few right-hand sides (side left: op(A) X = alpha B, B m x n
 * with n small): blocked substitution in ONE launch, the row blocks chained by flags in global
 * memory (the "synchronisation-free" triangular solve: a block waits for the blocks it depends on
 * instead of the host launching one step per block). With few columns the solve is a chain of
 * small matrix-vector products, latency-bound: the recursion or the inverted diagonal blocks
 * launch ~2 m / 256 GEMMs and a trtri for it (1.7 ms for m = 4096, one column, on an H100), this
 * kernel one launch whose critical path is one tile product and one NB-step substitution per
 * row block.
 *
 * As in generate-leaf.ts, the variant becomes a substitution with M = op(A) (A or A^T); where M is
 * upper the row blocks run from the last (REVERSE). Grid: x = row blocks, y = chains (matrix,
 * tile of RT right-hand sides); each chain owns a counter and a flag per row block in `sync`
 * (zeroed by the launcher). A block takes a ticket from its chain's counter when it starts, and
 * solves the ticket-th row block in solve order: it depends only on blocks with earlier tickets,
 * which are already running or done, so the chain cannot deadlock whatever order the hardware
 * schedules blocks in.
 *
 * Per block (row block I, RT columns): acc = alpha B_I; for each earlier block J in order: fetch
 * M_IJ into registers (it does not depend on X, so the load is in flight while the block waits),
 * wait for J's flag (acquire), read X_J through L2 (written by another block), acc -= M_IJ X_J;
 * then solve M_II X_I = acc (M_II fetched into its own buffer at the start, its diagonal's
 * reciprocals taken then: a division on the critical path costs ~100 cycles a row) by one warp per
 * column, lanes holding rows, shuffles instead of barriers; write X_I, release I's flag.
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { elementBytes, mathHelpers, precisionLetter, precisionPrelude } from '../common/precision.js';
import { FLAG_HELPERS } from '../common/flags.js';
import { diagonalSafe, overDiagonal } from '../common/diagonal-scale.js';
import { leafMapping, variantTag } from './generate-leaf.js';
import type { TrsmChainParams } from './params.js';

/** Rows of a row block, and threads of a block (8 warps). */
export const CHAIN_NB = 64;
export const CHAIN_THREADS = 256;
/** Right-hand sides per chain, at most (two columns per warp in the diagonal solve). */
export const CHAIN_RHS_MAX = 16;

/** Dynamic shared bytes: the off-diagonal tile and the diagonal block (NB x (NB + 1) each), X_J and acc (NB x RT each), the diagonal's reciprocals. */
export function trsmChainSharedBytes(p: TrsmChainParams): number {
  return (2 * CHAIN_NB * (CHAIN_NB + 1) + 2 * CHAIN_NB * p.rhs + CHAIN_NB) * elementBytes(p.dtype);
}

/** Ints of the synchronisation array per chain: a ticket counter and a flag per row block. */
export const chainSyncInts = (m: number): number => 1 + Math.ceil(m / CHAIN_NB);

export function trsmChainSource(p: TrsmChainParams): KernelSource {
  if (!Number.isInteger(p.rhs) || p.rhs < 1 || p.rhs > CHAIN_RHS_MAX) throw new RangeError(`rhs must be 1..${CHAIN_RHS_MAX}, got ${p.rhs}`);
  const m = leafMapping({ side: 'left', uplo: p.uplo, transA: p.transA, diag: p.diag });
  const entry = `trsm_chain_${precisionLetter(p.dtype)}_${variantTag({ side: 'left', uplo: p.uplo, transA: p.transA, diag: p.diag })}_r${p.rhs}_${kindTag(p.kind)}`;
  const source = `${precisionPrelude(p.dtype)}
${mathHelpers(p.dtype)}

// M = op(A) for (left, ${p.uplo}, ${p.transA}, ${p.diag}).
constexpr bool TRANSPOSED = ${m.transposed};   // M = A^T
constexpr bool REVERSE = ${m.reverse};      // M is upper: row blocks (and rows) from the last
constexpr bool UNIT = ${p.diag === 'unit'};
constexpr int NB = ${CHAIN_NB}, RT = ${p.rhs}, THREADS = ${CHAIN_THREADS}, LDT = NB + 1;
constexpr int PER_THREAD = NB * NB / THREADS;   // tile elements each thread fetches

${FLAG_HELPERS}

// Element e of the walk over M's block (I, J): along A's columns (coalesced) whether M is A or A^T.
// (r, c) is the element's place in M's block; zero outside the m x m matrix.
static __device__ __forceinline__ void fetchTile(const real* a, int ldA, int m, int I, int J, real (&reg)[PER_THREAD]) {
  #pragma unroll
  for (int s = 0; s < PER_THREAD; ++s) {
    const int e = threadIdx.x + s * THREADS, fast = e % NB, slow = e / NB;
    const int row = (TRANSPOSED ? J : I) * NB + fast, col = (TRANSPOSED ? I : J) * NB + slow;
    reg[s] = row < m && col < m ? a[row + (long long)col * ldA] : real(0);
  }
}
static __device__ __forceinline__ void storeTile(real* tile, const real (&reg)[PER_THREAD]) {
  #pragma unroll
  for (int s = 0; s < PER_THREAD; ++s) {
    const int e = threadIdx.x + s * THREADS, fast = e % NB, slow = e / NB;
    const int r = TRANSPOSED ? slow : fast, c = TRANSPOSED ? fast : slow;
    tile[r * LDT + c] = reg[s];
  }
}

extern "C" __global__ void __launch_bounds__(THREADS, 1) ${entry}(
    ${operandParameters('A', p.kind, false)},
    ${operandParameters('B', p.kind, true)},
    int* __restrict__ sync, int m, int n, int rhsTiles, real alpha) {
  extern __shared__ __align__(16) unsigned char smemBytes[];
  real* tile = reinterpret_cast<real*>(smemBytes);   // M_IJ
  real* diag = tile + NB * LDT;                       // M_II
  real* xs = diag + NB * LDT;                         // X_J, column c at c * NB
  real* acc = xs + NB * RT;                           // the right-hand side being reduced, likewise
  real* rdiag = acc + NB * RT;                        // 1 / M(k, k): off the chain's critical path
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int chain = blockIdx.y, mat = chain / rhsTiles, c0 = (chain % rhsTiles) * RT;
  const int nc = min(RT, n - c0);
  const int blocks = (m + NB - 1) / NB;
  int* counter = sync + (long long)chain * (blocks + 1);
  int* flags = counter + 1;
  const real* a = ${matrixPointer('A', p.kind, 'mat')};
  real* b = ${matrixPointer('B', p.kind, 'mat')} + (long long)c0 * ldB;

  const int t = takeTicket(counter);
  const int I = REVERSE ? blocks - 1 - t : t;
  const int rowsI = min(NB, m - I * NB);

  {
    real reg[PER_THREAD];
    fetchTile(a, ldA, m, I, I, reg);
    storeTile(diag, reg);
  }
  __syncthreads();
  if (!UNIT && tid < NB) rdiag[tid] = real(1) / diag[tid * LDT + tid];
  for (int e = tid; e < NB * RT; e += THREADS) {
    const int r = e % NB, c = e / NB;
    acc[e] = r < rowsI && c < nc ? alpha * b[I * NB + r + (long long)c * ldB] : real(0);
  }
  // Thread (r, cg) reduces rows r of columns cg, cg + 4, ...
  const int r = tid % NB, cg = tid / NB;
  for (int q = 0; q < t; ++q) {
    const int J = REVERSE ? blocks - 1 - q : q;
    real reg[PER_THREAD];
    fetchTile(a, ldA, m, I, J, reg);
    if (tid == 0) while (acquireFlag(flags + J) == 0) {}
    __syncthreads();                                   // J's X is in memory; the previous product is done
    storeTile(tile, reg);
    const int rowsJ = min(NB, m - J * NB);
    for (int e = tid; e < NB * RT; e += THREADS) {
      const int k = e % NB, c = e / NB;
      xs[e] = k < rowsJ && c < nc ? __ldcg(b + J * NB + k + (long long)c * ldB) : real(0);
    }
    __syncthreads();
    for (int c = cg; c < nc; c += THREADS / NB) {
      real s0 = real(0), s1 = real(0);
      #pragma unroll 8
      for (int k = 0; k < NB; k += 2) {
        s0 = fmaReal(tile[r * LDT + k], xs[c * NB + k], s0);
        s1 = fmaReal(tile[r * LDT + k + 1], xs[c * NB + k + 1], s1);
      }
      acc[c * NB + r] -= s0 + s1;
    }
  }
  __syncthreads();
  // M_II X_I = acc: a warp per column, lane l holding rows l and l + 32; row k solved at step p.
  for (int c = warp; c < nc; c += THREADS / 32) {
    real v0 = acc[c * NB + lane], v1 = acc[c * NB + lane + 32];
    #pragma unroll 8
    for (int p = 0; p < rowsI; ++p) {
      const int k = REVERSE ? rowsI - 1 - p : p;
      real xk = __shfl_sync(0xffffffffu, k < 32 ? v0 : v1, k & 31);
      // Over M(k, k): the reciprocal, or a division where M(k, k) is subnormal (LAPACK's trsm divides;
      // the reciprocal would overflow).
      if (!UNIT) xk = ${overDiagonal(false, 'xk', { diag: 'diag[k * LDT + k]', rinv: 'rdiag[k]', safe: diagonalSafe(p.dtype, false, 'diag[k * LDT + k]') })};
      if (lane == k) v0 = xk;
      if (lane + 32 == k) v1 = xk;
      if (REVERSE ? lane < k : lane > k) v0 = fmaReal(-diag[lane * LDT + k], xk, v0);
      if (REVERSE ? lane + 32 < k : lane + 32 > k) v1 = fmaReal(-diag[(lane + 32) * LDT + k], xk, v1);
    }
    if (lane < rowsI) b[I * NB + lane + (long long)c * ldB] = v0;
    if (lane + 32 < rowsI) b[I * NB + lane + 32 + (long long)c * ldB] = v1;
  }
  __threadfence();
  __syncthreads();
  if (tid == 0) releaseFlag(flags + I);
}
`;
  return { name: `${entry}.cu`, source, entry };
}
