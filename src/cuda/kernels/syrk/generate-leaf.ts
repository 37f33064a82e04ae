/**
 * The batched symmetric rank-k update's leaf: the diagonal blocks of C at the bottom of the
 * paper's recursion (batched-triangular-kblas, SYRK: "the diagonal blocks ... recursively, down to
 * a size a kernel computes directly"), t <= tile, k any.
 *
 * C(i, j) := alpha sum_l op(A)(i, l) op(A)(j, l) + beta C(i, j) on the `uplo` triangle, where
 * op(A)(i, l) is A(i, l) (trans N) or A(l, i) (trans T). One block holds G matrices (blockDim.z);
 * per matrix, (tile / REG)^2 threads (blockDim.x, blockDim.y) hold REG x REG accumulators of the
 * tile x tile square, thread (x, y) the rows x + a SIDE and the columns y + b SIDE (a, b < REG):
 * consecutive threads read consecutive rows (no bank conflicts) and share a column (a broadcast),
 * and store consecutive rows of C (coalesced). op(A)'s t rows are staged CHUNK columns at a time,
 * element (i, l) at sP[l * LDP + i] (LDP = tile + 1, odd: the trans-T load, which walks along l,
 * is conflict-free too), loaded along A's columns, zero outside t x k. The square is computed
 * whole (the other triangle's half is wasted work, the price of a simple leaf); only the triangle
 * is stored; beta = 0 never reads C. Grid: x the matrices, y the diagonal blocks of one launch
 * (block b at offset b t, the launcher folds the first block's offset into the operands).
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { precisionLetter, precisionPrelude } from '../common/precision.js';
import type { SyrkLeafParams } from './params.js';

/** Most threads a leaf block launches (threads per matrix x matrices): the plan keeps within it. */
export const SYRK_LEAF_MAX_THREADS = 256;

/** Kernel-name fragment of a variant: uplo and trans as BLAS letters (e.g. LN). */
export const syrkVariantTag = (v: { readonly uplo: string; readonly trans: string }): string => `${v.uplo === 'lower' ? 'L' : 'U'}${v.trans}`;

/**
 * One staged k-chunk's products into a thread's REG x REG accumulators: rows x + r SIDE of the
 * panel `rows` times rows y + s SIDE of the panel `cols` (both CHUNK x LDP in shared memory,
 * column l at l * LDP; the same panel on a diagonal block). `unroll` is the chunk loop's pragma.
 */
export function panelProducts(unroll: string, rows: string, cols: string): string {
  return `${unroll}
    for (int l = 0; l < CHUNK; ++l) {
      real u[REG], w[REG];
#pragma unroll
      for (int r = 0; r < REG; ++r) {
        u[r] = ${rows}[l * LDP + x + r * SIDE];
        w[r] = ${cols}[l * LDP + y + r * SIDE];
      }
#pragma unroll
      for (int r = 0; r < REG; ++r)
#pragma unroll
        for (int s = 0; s < REG; ++s) acc[r][s] = fmaReal(u[r], w[s], acc[r][s]);
    }`;
}

/** The leaf's compile-time constants (after the precision prelude): shared with the class kernel (generate-vbatched.ts). */
export function syrkLeafHeader(p: Omit<SyrkLeafParams, 'kind'>): string {
  return `${precisionPrelude(p.dtype)}

constexpr int TILE = ${p.tile};    // the largest diagonal block
constexpr int REG = ${p.reg};      // accumulators per thread along each side
constexpr int SIDE = TILE / REG;   // threads per matrix along each side
constexpr int CHUNK = ${p.chunk};  // columns of op(A) per step
constexpr int LDP = TILE + 1;
constexpr bool LOWER = ${p.uplo === 'lower'};`;
}

/**
 * The accumulation over op(A)'s k columns, CHUNK at a time through the shared panel: reads x, y,
 * tid, valid, t, k, ldA, a and sP. `more` is the loop's condition (it may be a block-wide vote:
 * the loop has barriers, so every thread of the block runs the same steps).
 */
export function syrkLeafAccumulate(p: Pick<SyrkLeafParams, 'trans'>, more: string): string {
  // The staged load walks along A's columns: i fastest (trans N: A(i, l)), or l fastest (trans T: A(l, i)).
  const load = p.trans === 'N'
    ? `const int i = e % TILE, l = e / TILE;
        sP[l * LDP + i] = (i < t && l0 + l < k) ? a[i + (long long)(l0 + l) * ldA] : real(0);`
    : `const int l = e % CHUNK, i = e / CHUNK;
        sP[l * LDP + i] = (i < t && l0 + l < k) ? a[(l0 + l) + (long long)i * ldA] : real(0);`;
  return `  real acc[REG][REG];
#pragma unroll
  for (int r = 0; r < REG; ++r)
#pragma unroll
    for (int s = 0; s < REG; ++s) acc[r][s] = real(0);

  for (int l0 = 0; ${more}; l0 += CHUNK) {
    if (valid) {
      for (int e = tid; e < TILE * CHUNK; e += SIDE * SIDE) {
        ${load}
      }
    }
    __syncthreads();
${panelProducts('#pragma unroll 4', 'sP', 'sP')}
    __syncthreads();   // the next step overwrites the panel
  }
`;
}

/** The store of the t x t block's triangle at `cPointer` (C's element at the block's corner): alpha acc + beta C, beta = 0 never reading C. */
export function syrkLeafStore(cPointer: string): string {
  return `  if (!valid) return;
  real* c = ${cPointer};
#pragma unroll
  for (int s = 0; s < REG; ++s) {
    const int j = y + s * SIDE;
#pragma unroll
    for (int r = 0; r < REG; ++r) {
      const int i = x + r * SIDE;
      if (i < t && j < t && (LOWER ? i >= j : i <= j)) {
        real* cij = c + i + (long long)j * ldC;
        *cij = beta == real(0) ? alpha * acc[r][s] : fmaReal(beta, *cij, alpha * acc[r][s]);
      }
    }
  }
}
`;
}

export function syrkLeafSource(p: SyrkLeafParams): KernelSource {
  const entry = `syrk_leaf_${precisionLetter(p.dtype)}_${syrkVariantTag(p)}_${p.tile}x${p.reg}_k${p.chunk}_${kindTag(p.kind)}`;
  const transN = p.trans === 'N';
  const source = `${syrkLeafHeader(p)}

extern "C" __global__ void __launch_bounds__(${SYRK_LEAF_MAX_THREADS}) ${entry}(
    ${operandParameters('A', p.kind, false)},
    ${operandParameters('C', p.kind, true)},
    int count, int t, int k, real alpha, real beta) {
  extern __shared__ __align__(16) unsigned char smemBytes[];
  const int x = threadIdx.x, y = threadIdx.y, g = threadIdx.z;
  const int tid = x + y * SIDE;
  const int mat = blockIdx.x * blockDim.z + g;
  const bool valid = mat < count;
  const int diag = blockIdx.y * t;   // this block's diagonal offset
  real* sP = reinterpret_cast<real*>(smemBytes) + (long long)g * (CHUNK * LDP);
  const real* a = valid ? ${matrixPointer('A', p.kind, 'mat')} + ${transN ? 'diag' : '(long long)diag * ldA'} : nullptr;

${syrkLeafAccumulate(p, 'l0 < k')}
${syrkLeafStore(`${matrixPointer('C', p.kind, 'mat')} + diag + (long long)diag * ldC`)}`;
  return { name: `${entry}.cu`, source, entry };
}
