/**
 * The batched symmetric rank-k update of a small C in one launch: C's `uplo` triangle cut into
 * TILE x TILE tiles, a block per (group of G matrices, tile of the triangle), tiles outside the
 * triangle never launched. C(i, j) := alpha sum_l op(A)(i, l) op(A)(j, l) + beta C(i, j), op(A)
 * n x k, n and k kernel arguments.
 *
 * Why a design of its own below the recursion's leaf and the triangle GEMM: at n <= 32 the call is
 * a bandwidth pass (A in, C's triangle out), and what decides its speed is how many bytes each SM
 * has in flight. Here every thread issues all its loads of a k-step (PER elements of each panel)
 * into registers before it waits on any, the next step's loads are issued before the current step's
 * products (a register prefetch over k), and a matrix takes (TILE / REG)^2 threads of REG x REG
 * accumulators (not one thread an element), so one SM holds many matrices' loads at once. Above
 * 32 the same kernel walks the triangle's tiles, with no separate GEMM launches: blockIdx.x is
 * tile-fastest, so one matrix's tiles run side by side and read its A from L2.
 *
 * Per block: G matrices (blockDim.z), per matrix SIDE x SIDE threads (SIDE = TILE / REG), thread
 * (x, y) holding rows x + r SIDE and columns y + s SIDE of the tile (r, s < REG). The tile's row
 * panel op(A)(I, l0 : l0 + CHUNK) and column panel op(A)(J, ...) (one panel on a diagonal tile)
 * are staged in shared memory, element (i, l) at P[l * LDP + i] (LDP = TILE + 1, odd: the trans-T
 * stores along l are conflict-free), zero outside n x k. On a diagonal tile the whole square is
 * computed and only the triangle stored; beta = 0 never reads C.
 */
import { MyriadError } from '../../../core/errors.js';
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { precisionLetter, precisionPrelude } from '../common/precision.js';
import { panelProducts, syrkVariantTag } from './generate-leaf.js';
import type { SyrkTilesParams, SyrkTilesShape } from './params.js';

/** Most threads a block of the tile design launches (threads per matrix x matrices). */
export const SYRK_TILES_MAX_THREADS = 256;

const powerOfTwo = (v: number): boolean => Number.isInteger(v) && v >= 1 && (v & (v - 1)) === 0;

/** Threads per matrix of a tile shape. */
export const syrkTilesThreads = (p: Pick<SyrkTilesParams, 'tile' | 'reg'>): number => (p.tile / p.reg) ** 2;

/** Why a tile shape cannot be generated (undefined: it can): the staged loads need every count to divide evenly. */
export function syrkTilesShapeError(p: SyrkTilesShape): string | undefined {
  const { tile, reg, chunk, minBlocks } = p;
  if (!Number.isInteger(minBlocks) || minBlocks < 0 || minBlocks > 8) return `minBlocks must be an integer from 0 to 8, got ${minBlocks}`;
  if (!powerOfTwo(tile) || tile < 8 || tile > 64) return `tile must be a power of two from 8 to 64, got ${tile}`;
  if (!powerOfTwo(reg) || reg > 8 || tile % reg !== 0 || tile / reg < 4) return `reg must be a power of two up to 8 leaving at least 4 threads a side of the tile, got ${reg} for tile ${tile}`;
  if (!powerOfTwo(chunk) || chunk > 64) return `chunk must be a power of two up to 64, got ${chunk}`;
  const threads = syrkTilesThreads(p);
  if (threads > SYRK_TILES_MAX_THREADS) return `a tile of ${tile} with reg ${reg} takes ${threads} threads, more than ${SYRK_TILES_MAX_THREADS}`;
  if (threads % tile !== 0 || threads % chunk !== 0 || (tile * chunk) % threads !== 0)
    return `tile ${tile}, reg ${reg} and chunk ${chunk}: the ${threads} threads of a matrix must divide the ${tile} x ${chunk} panel evenly along both sides`;
  return undefined;
}

/**
 * The thread's panel elements, (pi + m DI, pl + m DL) for m < PER: consecutive threads take
 * consecutive elements along A's columns (coalesced), and since THREADS is a multiple of TILE and
 * of CHUNK one of DI, DL is zero. Their offsets in A step by (DI + DL) ldA, and the column panel's
 * lie dJ after the row panel's.
 */
function panelMap(p: SyrkTilesParams): string {
  return p.trans === 'N'
    ? `const int pi = tid % TILE, pl = tid / TILE;   // op(A)(i, l) = A(i, l)
  constexpr int DI = 0, DL = THREADS / TILE;
  const long long dJ = rowJ - rowI;`
    : `const int pl = tid % CHUNK, pi = tid / CHUNK;   // op(A)(i, l) = A(l, i)
  constexpr int DI = THREADS / CHUNK, DL = 0;
  const long long dJ = (long long)(rowJ - rowI) * ldA;`;
}

/** The offset in A of op(A)(rowI + pi, l0 + pl), the thread's first element of the k-step at `l0`. */
const firstOffset = (p: SyrkTilesParams, l0: string): string => (p.trans === 'N'
  ? `(rowI + pi) + (long long)(${l0} + pl) * ldA`
  : `(${l0} + pl) + (long long)(rowI + pi) * ldA`);

/** The loads of the k-step at column `l0` into the registers pI (and pJ off the diagonal), zero outside n x k. */
function fetch(p: SyrkTilesParams, l0: string): string {
  return `    {
      long long o = ${firstOffset(p, l0)};
#pragma unroll
      for (int m = 0; m < PER; ++m, o += stepA) {
        const bool inK = valid && ${l0} + pl + m * DL < k;
        pI[m] = inK && rowI + pi + m * DI < n ? a[o] : real(0);
        if (!diagonal) pJ[m] = inK && rowJ + pi + m * DI < n ? a[o + dJ] : real(0);
      }
    }`;
}

export function syrkTilesSource(p: SyrkTilesParams): KernelSource {
  const bad = syrkTilesShapeError(p);
  if (bad !== undefined) throw new MyriadError('INVALID_ARGUMENT', `syrk tiles: ${bad}`, 'tile');
  const entry = `syrk_tiles_${precisionLetter(p.dtype)}_${syrkVariantTag(p)}_${p.tile}x${p.reg}_k${p.chunk}${p.minBlocks > 0 ? `_b${p.minBlocks}` : ''}_${kindTag(p.kind)}`;
  const bounds = p.minBlocks > 0 ? `${SYRK_TILES_MAX_THREADS}, ${p.minBlocks}` : `${SYRK_TILES_MAX_THREADS}`;
  const source = `${precisionPrelude(p.dtype)}

constexpr int TILE = ${p.tile};    // C's tiles are TILE x TILE
constexpr int REG = ${p.reg};      // accumulators per thread along each side
constexpr int SIDE = TILE / REG;   // threads per matrix along each side
constexpr int THREADS = SIDE * SIDE;
constexpr int CHUNK = ${p.chunk};  // columns of op(A) per k-step
constexpr int PER = TILE * CHUNK / THREADS;   // elements of a panel each thread loads per k-step
constexpr int LDP = TILE + 1;
constexpr bool LOWER = ${p.uplo === 'lower'};

extern "C" __global__ void __launch_bounds__(${bounds}) ${entry}(
    ${operandParameters('A', p.kind, false)},
    ${operandParameters('C', p.kind, true)},
    int count, int n, int k, real alpha, real beta) {
  extern __shared__ __align__(16) unsigned char smemBytes[];
  const int x = threadIdx.x, y = threadIdx.y, g = threadIdx.z;
  const int tid = x + y * SIDE;
  // blockIdx.x = group * tiles + tile: a matrix's tiles are neighbours (its A stays in L2).
  const int nt = (n + TILE - 1) / TILE, tiles = nt * (nt + 1) / 2;
  const int group = blockIdx.x / tiles, tile = blockIdx.x - group * tiles;
  // Tile number -> (p, q), p >= q, in the lower triangle's row order; the float root corrected exactly.
  int p = (int)((sqrtf(8.0f * (float)tile + 1.0f) - 1.0f) * 0.5f);
  while (p * (p + 1) / 2 > tile) --p;
  while ((p + 1) * (p + 2) / 2 <= tile) ++p;
  const int q = tile - p * (p + 1) / 2;
  const bool diagonal = p == q;
  const int rowI = (LOWER ? p : q) * TILE, rowJ = (LOWER ? q : p) * TILE;   // C's tile: rows I, columns J
  const int mat = group * blockDim.z + g;
  const bool valid = mat < count;
  const int panels = nt > 1 ? 2 : 1;   // the launcher sizes shared memory the same way
  real* sI = reinterpret_cast<real*>(smemBytes) + (long long)g * (panels * CHUNK * LDP);
  real* sJ = diagonal ? sI : sI + CHUNK * LDP;
  const real* a = valid ? ${matrixPointer('A', p.kind, 'mat')} : nullptr;

  real acc[REG][REG];
#pragma unroll
  for (int r = 0; r < REG; ++r)
#pragma unroll
    for (int s = 0; s < REG; ++s) acc[r][s] = real(0);

  // Every load of a k-step issued before any is used: PER elements of each panel in registers.
  real pI[PER], pJ[PER];
  ${panelMap(p)}
  const long long stepA = (long long)(DI + DL) * ldA;
${fetch(p, '0')}
  for (int l0 = 0; l0 < k; l0 += CHUNK) {
    if (l0 > 0) __syncthreads();   // every thread is done with the previous step's panels
#pragma unroll
    for (int m = 0; m < PER; ++m) {
      const int e = (pl + m * DL) * LDP + pi + m * DI;
      sI[e] = pI[m];
      if (!diagonal) sJ[e] = pJ[m];
    }
    __syncthreads();
    if (l0 + CHUNK < k)   // in flight during this step's products
${fetch(p, 'l0 + CHUNK')}
${panelProducts('#pragma unroll', 'sI', 'sJ')}
  }

  if (!valid) return;
  real* c = ${matrixPointer('C', p.kind, 'mat')};
#pragma unroll
  for (int s = 0; s < REG; ++s) {
    const int j = rowJ + y + s * SIDE;
#pragma unroll
    for (int r = 0; r < REG; ++r) {
      const int i = rowI + x + r * SIDE;
      if (i < n && j < n && (LOWER ? i >= j : i <= j)) {
        real* cij = c + i + (long long)j * ldC;
        *cij = beta == real(0) ? alpha * acc[r][s] : fmaReal(beta, *cij, alpha * acc[r][s]);
      }
    }
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}
