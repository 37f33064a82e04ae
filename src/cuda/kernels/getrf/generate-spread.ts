/**
 * The blocked LU's spread leaf: dgetf2 on an m x w panel (w <= W) of a few matrices, each panel
 * spread over G thread blocks (gpu-only-cholesky.txt keeps the panel on the device; here it is
 * also kept on many SMs). The wide leaf (generate-wide.ts) factors a panel on one SM, streaming
 * it through L2 once per sub-block: 619 us for a 4096 x 64 panel (Nsight Compute), 2/3 of a 4096
 * LU. Here block b holds rows [b RB, b RB + RB) of the panel in shared memory for the whole
 * factorization, so the panel is read and written once, and each column costs one grid-wide
 * exchange instead of a pass over the panel:
 * 1. every block finds its candidate (the largest |a(r, k)| of its rows r >= k, NaN and ties as
 *    idamax); its warp 0 writes the whole candidate row (w values) to the block's slot, the owner of
 *    row k also row k, then (after every lane's release fence) two tagged words: the key and the
 *    row number;
 * 2. warp 0 of every block polls the G blocks' words (a lane a block, all in flight at once) until
 *    their tags say column k, fences (acquire), reduces the G candidates to the pivot (the same
 *    answer in every block: keys and rows ordered as idamax) and reads the pivot row from its
 *    winner's slot (and row k, if it moves);
 * 3. every thread swaps, scales (divided where the pivot is tiny, as dgetf2; a zero pivot neither
 *    swaps nor scales) and updates (rank 1, the pivot row from shared memory) the elements it owns:
 *    a thread owns fixed rows and columns of the block, so this step needs no barrier inside; the
 *    column-k values it scales were read before the step's first barrier.
 * Three block barriers and two L2 round trips (the tagged words, then the winner's row) a column:
 * the leaf is bound by that latency, not by its flops: 5-8 us a column on the H100 whatever m, call included (a
 * first version, an arrival counter, then the keys, then the row, measured the same within 10%;
 * docs/large-factorizations.md).
 * Slots are double-buffered by the column's parity q = k & 1, and a word's top bit is its tag,
 * 1 - (k >> 1) & 1: a block writes column k + 2's slot only after it has read every block's words
 * of column k + 1, which they wrote after reading column k's; so a slot holds column k's or column
 * k - 2's words, which the tag tells apart. The words start zeroed (tag 0: no column 0 or 1), a
 * fresh set a launch.
 * Blocks take tickets (common/flags.ts): consecutive tickets form one matrix's G blocks, so a block
 * only waits for blocks of its own group, and a group is complete once its last ticket is taken;
 * with G blocks resident at once (the plan keeps G <= the SM count) the grid cannot deadlock
 * whatever the order blocks are scheduled in. Pivots 0-based absolute rows (off + the panel's row);
 * info, zeroed by the driver, takes the first zero pivot (block 0 writes it).
 * The cluster form (sm_90, `cluster` = G <= 16): a matrix's G blocks are one thread-block cluster,
 * which the hardware runs at once, so no tickets; the exchange goes through distributed shared
 * memory (each block's candidate row in its own shared memory, one cluster barrier, then loads
 * from the winner's) instead of global memory and polled words: no L2 round trip on the
 * column's critical path. It holds at most G blocks of rows (4096 float64 rows of 64 columns in
 * 16 blocks of 128 KiB); the grid form takes the taller panels. Its exchange (params.ts
 * `exchange`): 'pull', 'push' (each block stores its candidate into every block, so
 * nothing is loaded from another block after the barrier; the table's choice: 4-6%
 * faster whole LUs in float64 on an H100, 2026-11-27) and 'signal' (push, then mbarrier arrivals in place of
 * the cluster barrier: only warp 0 of each block waits; faster alone at 1024 rows, slower at
 * 2048-4096 and in the whole LU). All three measured by scripts/probe/getrf-exchanges.sh and tested (test/gpu/getrf-spread.test.ts).
 */
import type { DType } from '../../../core/dtype.js';
import { dtypeInfo } from '../../../core/dtype-table.js';
import type { KernelSource } from '../../runtime/types.js';
import { matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { CLUSTER_HELPERS, MBARRIER_HELPERS } from '../common/cluster.js';
import { FLAG_HELPERS } from '../common/flags.js';
import { elementBytes, precisionLetter, precisionPrelude } from '../common/precision.js';
import { pivotHelpers } from './generate-panel.js';
import type { GetrfSpreadParams } from './params.js';

/** Threads of a spread leaf's block. */
export const SPREAD_THREADS = 256;
/** The widest panel a spread leaf takes (a compile-time bound: the slots hold W values a row). */
export const SPREAD_WIDTH = 64;
/** Dynamic shared bytes of one block: its RB x W rows of the panel (above 48 KiB by the kernel's attribute). */
export function spreadSharedBytes(p: Pick<GetrfSpreadParams, 'dtype' | 'width' | 'rowsPerBlock'>): number {
  return p.rowsPerBlock * p.width * elementBytes(p.dtype);
}

/**
 * Static shared bytes the pushing exchanges add to a cluster-form block (xRows, xKeys, xPoss by
 * parity, sWin and the mbarriers; see `buffers` below), 0 for 'pull': the planner counts them
 * beside the rows.
 */
export function spreadPushedBytes(p: Pick<GetrfSpreadParams, 'dtype' | 'width' | 'cluster' | 'exchange'>): number {
  return (p.exchange ?? 'pull') === 'pull' ? 0 : 2 * p.cluster * (p.width * elementBytes(p.dtype) + 8 + 4) + 32;
}

/**
 * Ints of the sync area one launch uses (zero before it): the ticket counter, then per matrix and
 * parity G tagged keys (64-bit) and G tagged row numbers.
 */
export const spreadSyncInts = (count: number, blocks: number): number => 2 + count * 2 * 3 * blocks;

/** Reals of the slots one matrix uses: per parity G candidate rows and row k (W values each). */
export const spreadSlotReals = (width: number, blocks: number): number => 2 * (blocks + 1) * width;

/**
 * The pivot candidates' key codes, shared by both forms: a key as a 63-bit code ordered as the
 * keys (-2: no candidate -> 0, -1: NaN below row k -> 1, |x| or +inf -> its bits + 2; non-negative
 * floats order as their bits), and the (code, row) reduction of a warp.
 */
function keyCodeHelpers(dtype: DType): string {
  const bits = `(unsigned long long)${dtypeInfo(dtype).cuda.toBits}(key)`;
  return `static __device__ __forceinline__ unsigned long long keyCode(real key) {
  return key < real(-1.5) ? 0ull : key < real(0) ? 1ull : ${bits} + 2ull;
}
// (code, row) pairs: the larger code wins, ties go to the smaller row (idamax).
static __device__ __forceinline__ void betterCode(unsigned long long& code, int& pos, unsigned long long ocode, int opos) {
  if (ocode > code || (ocode == code && opos < pos)) { code = ocode; pos = opos; }
}
static __device__ __forceinline__ void warpBestCode(unsigned long long& code, int& pos) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) {
    const unsigned long long oc = __shfl_xor_sync(0xffffffffu, code, off);
    const int op = __shfl_xor_sync(0xffffffffu, pos, off);
    betterCode(code, pos, oc, op);
  }
}`;
}

/**
 * The grid form's tagged words: the strong relaxed loads and stores that carry them and the fence
 * that makes them release / acquire (PTX's fence-based synchronization).
 */
const GRID_WORD_HELPERS = `#ifndef MYRIAD_HOST_EMULATION   // a host harness brings its own (test/helpers/getrf-spread-host-harness.cpp)
static __device__ __forceinline__ void fenceAcqRel() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
static __device__ __forceinline__ void storeRelaxed64(unsigned long long* p, unsigned long long v) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}
static __device__ __forceinline__ void storeRelaxed32(unsigned* p, unsigned v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}
static __device__ __forceinline__ unsigned long long loadRelaxed64(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
static __device__ __forceinline__ unsigned loadRelaxed32(const unsigned* p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
#endif`;

/**
 * Steps 1-2 through global memory (the grid form): warp 0 publishes the block's candidate row (and
 * row k) to its slot, then its tagged words; polls every block's words; reduces; reads the pivot row.
 */
const GRID_EXCHANGE = `    if (warp == 0) {
      real key = lane < NWR ? redKey[lane] : real(-2);
      int pos = lane < NWR ? redPos[lane] : NONE;
      warpBest(key, pos);
      if (pos != NONE) for (int c = lane; c < w; c += 32) cands[b * W + c] = sA[c * RB + (pos - r0)];
      if (k >= r0 && k < r0 + rows) for (int c = lane; c < w; c += 32) cands[G * W + c] = sA[c * RB + (k - r0)];
      fenceAcqRel();   // every writing lane's own release fence (not only lane 0's after the warp barrier)
      __syncwarp();
      if (lane == 0) {
        storeRelaxed64(keyWords + q * G + b, keyCode(key) | (tag << 63));
        storeRelaxed32(rowWords + q * G + b, (unsigned)pos | ((unsigned)tag << 31));
      }
      // 2. The G candidates of column k (a lane a block, every load in flight at once) reduced to
      // the pivot; its row and row k.
      unsigned long long code[PER_LANE];
      unsigned at[PER_LANE];
      for (bool ready = false; !ready;) {
        ready = true;
#pragma unroll
        for (int j = 0; j < PER_LANE; ++j) {
          const int g = lane + 32 * j;
          if (g < G) {
            code[j] = loadRelaxed64(keyWords + q * G + g);
            at[j] = loadRelaxed32(rowWords + q * G + g);
          }
        }
#pragma unroll
        for (int j = 0; j < PER_LANE; ++j) {
          if (lane + 32 * j < G) ready = ready && (code[j] >> 63) == tag && (at[j] >> 31) == (unsigned)tag;
        }
      }
      fenceAcqRel();
      unsigned long long best = 0;
      pos = NONE;
#pragma unroll
      for (int j = 0; j < PER_LANE; ++j) {
        if (lane + 32 * j < G) betterCode(best, pos, code[j] & ~(1ull << 63), (int)(at[j] & 0x7fffffffu));
      }
      warpBestCode(best, pos);
      const real* winner = cands + (pos / RB) * W;
      for (int c = lane; c < w; c += 32) {
        sPiv[c] = __ldcg(winner + c);
        if (pos != k) sRowK[c] = __ldcg(cands + G * W + c);
      }
      if (lane == 0) sPivRow = pos;
    }`;

/**
 * Steps 1-2 through distributed shared memory (the cluster form, 'pull'): warp 0 copies the block's
 * candidate row (and row k) into this parity's exchange buffers, with the key and row number; one
 * cluster barrier; warp 0 reads the G keys (a lane a block), reduces, and reads the pivot row and
 * row k from their blocks' buffers. One barrier a column suffices: parity q's buffers are written
 * again at column k + 2, after the barrier of column k + 1, which no block reaches before it has
 * read column k's.
 */
const CLUSTER_PULL = `    if (warp == 0) {
      real key = lane < NWR ? redKey[lane] : real(-2);
      int pos = lane < NWR ? redPos[lane] : NONE;
      warpBest(key, pos);
      if (pos != NONE) for (int c = lane; c < w; c += 32) xRow[q][c] = sA[c * RB + (pos - r0)];
      if (k >= r0 && k < r0 + rows) for (int c = lane; c < w; c += 32) xRowK[q][c] = sA[c * RB + (k - r0)];
      if (lane == 0) { xKey[q] = keyCode(key); xPos[q] = pos; }
    }
    clusterSync();
    if (warp == 0) {
      // 2. The G candidates of column k reduced to the pivot; its row and row k.
      unsigned long long best = 0;
      int pos = NONE;
      if (lane < G) betterCode(best, pos, *peer(&xKey[q], lane), *peer(&xPos[q], lane));
      warpBestCode(best, pos);
      const unsigned winner = pos / RB, owner = k / RB;
      const real* rowP = peer(xRow[q], winner);
      const real* rowK = peer(xRowK[q], owner);
      for (int c = lane; c < w; c += 32) {
        sPiv[c] = rowP[c];
        if (pos != k) sRowK[c] = rowK[c];
      }
      if (lane == 0) sPivRow = pos;
    }`;

/**
 * Steps 1-2 by pushing ('push', 'signal'): warp 0 stores the block's candidate row, key and row
 * number into slot b of every block's buffers of this parity (the owner of row k also row k), so
 * that after the synchronisation each block reduces the G keys and reads the pivot row from its
 * own shared memory: no load from another block on the column's critical path (the stores go out
 * before it, in flight together). The update then reads the pivot row and row k where they
 * arrived (xRows[q][sWin], xRowK[q]). Reuse of parity q at column k + 2: as 'pull' ('push': the
 * cluster barrier of k + 1; 'signal': a block stores column k + 2 only after every block's arrival
 * for k + 1, which each makes after its update of column k, the last read of parity q).
 * 'signal' replaces the cluster barrier by an mbarrier a parity in each block: warp 0's lanes fence
 * their stores, then lane g arrives on block g's; only warp 0 waits (for the phase of this use of
 * the buffer, parity (k >> 1) & 1); the other warps wait at the block barrier after it.
 */
function clusterPush(signal: boolean): string {
  return `    if (warp == 0) {
      real key = lane < NWR ? redKey[lane] : real(-2);
      int pos = lane < NWR ? redPos[lane] : NONE;
      warpBest(key, pos);
      const bool ownsK = k >= r0 && k < r0 + rows;
      for (int c = lane; c < w; c += 32) {
        const real v = pos != NONE ? sA[c * RB + (pos - r0)] : real(0);
        const real vk = ownsK ? sA[c * RB + (k - r0)] : real(0);
#pragma unroll
        for (int g = 0; g < G; ++g) {
          *peer(&xRows[q][b][c], g) = v;
          if (ownsK) *peer(&xRowK[q][c], g) = vk;
        }
      }
      if (lane < G) { *peer(&xKeys[q][b], lane) = keyCode(key); *peer(&xPoss[q][b], lane) = pos; }
${signal ? `      clusterFence();
      __syncwarp();
      if (lane < G) mbarrierArriveRemote(&xBar[q], lane);
      mbarrierWait(&xBar[q], (k >> 1) & 1);
    }` : `    }
    clusterSync();`}
    if (warp == 0) {
      // 2. The G candidates of column k, here, reduced to the pivot.
      unsigned long long best = 0;
      int pos = NONE;
      if (lane < G) betterCode(best, pos, xKeys[q][lane], xPoss[q][lane]);
      warpBestCode(best, pos);
      if (lane == 0) { sPivRow = pos; sWin = pos / RB; }
    }`;
}

/**
 * The fused search (params.ts `fusedSearch`): a column group's candidate for column `col` among its
 * rows r >= col (NaN and ties as idamax), reduced over each warp and left in redKey / redPos by
 * warp (a column group's warps are NWR consecutive warps: index tr / 32). The caller is a whole
 * column group (warps uniform); the values are the thread's own (it owns column `col` of its rows).
 */
const BLOCK_CANDIDATE = `static __device__ __forceinline__ void blockCandidate(const real* sA, int col, int tr, int r0, int rows, int lane, real* redKey, int* redPos) {
  real key = real(-2);
  int pos = NONE;
#pragma unroll
  for (int i = 0; i < RPT; ++i) {
    const int r = tr + i * ROWT, gr = r0 + r;
    if (r < rows && gr >= col) {
      const real x = sA[col * RB + r];
      better(key, pos, x != x ? (gr == col ? infReal() : real(-1)) : absReal(x), gr);
    }
  }
  warpBest(key, pos);
  if (lane == 0) { redKey[tr >> 5] = key; redPos[tr >> 5] = pos; }
}`;

export function getrfSpreadSource(p: GetrfSpreadParams): KernelSource {
  const { width, rowsPerBlock, threads, cluster } = p;
  const rowThreads = Math.min(rowsPerBlock, threads);
  const pow2 = (x: number): boolean => x > 0 && (x & (x - 1)) === 0;
  if (!pow2(threads) || !pow2(rowsPerBlock) || rowsPerBlock < 32 || threads < 32) {
    throw new Error(`spread leaf: ${rowsPerBlock} rows a block with ${threads} threads is not a supported shape (powers of two from 32)`);
  }
  if (!(Number.isInteger(cluster) && cluster >= 0 && cluster <= 16)) {
    throw new Error(`spread leaf: a cluster of ${cluster} blocks is not supported (0: the grid form, 1 ... 16)`);
  }
  const exchange = p.exchange ?? 'pull', fused = p.fusedSearch ?? false;
  if (cluster === 0 && exchange !== 'pull') throw new Error(`spread leaf: the '${exchange}' exchange is the cluster form's (cluster > 0)`);
  const pushed = exchange !== 'pull';
  const perLane = Math.ceil(p.maxBlocks / 32);
  const form = `${cluster > 0 ? `c${cluster}${pushed ? `_${exchange}` : ''}` : `g${perLane * 32}`}${fused ? '_fs' : ''}`;
  const entry = `getrf_spread_${precisionLetter(p.dtype)}_w${width}_rb${rowsPerBlock}_t${threads}_${form}`;
  // The forms differ in how a block finds its matrix and its place in it, in the buffers of the
  // exchange and in the exchange itself; the rest (steps 1 and 3) is one text.
  const parts = cluster > 0 ? {
    helpers: exchange === 'signal' ? `${CLUSTER_HELPERS}\n${MBARRIER_HELPERS}` : CLUSTER_HELPERS,
    attributes: `__cluster_dims__(${cluster}, 1, 1) __launch_bounds__(T)`,
    parameters: 'int m, int w, int off',
    buffers: pushed ? `  __shared__ real xRows[2][G][W];                // the exchange buffers by parity: every block's candidate row,
  __shared__ real xRowK[2][W];                   // row k (from its owner),
  __shared__ unsigned long long xKeys[2][G];     // every block's key code
  __shared__ int xPoss[2][G];                    // and row
  __shared__ int sWin;                           // the block whose candidate won${exchange === 'signal' ? `
  __shared__ unsigned long long xBar[2];         // an mbarrier a parity: G arrivals a phase` : ''}` : `  __shared__ real xRow[2][W];                    // the exchange buffers by parity: the block's candidate row,
  __shared__ real xRowK[2][W];                   // row k (its owner's),
  __shared__ unsigned long long xKey[2];         // the candidate's key code
  __shared__ int xPos[2];                        // and row`,
    // (The grid is count clusters, so the return never runs; without it ptxas spills 4 bytes at
    // 512 threads, CUDA 13.)
    place: `  const int mid = (int)clusterIndex(), b = (int)clusterRank();
  if (mid >= count) return;`,
    // ('signal': the mbarriers initialised, and the cluster past that, before any block arrives on another's.)
    setup: exchange === 'signal' ? `  if (tid == 0) { mbarrierInit(&xBar[0], G); mbarrierInit(&xBar[1], G); mbarrierInitFence(); }
  clusterSync();
` : '',
    perColumn: '',
    exchange: pushed ? clusterPush(exchange === 'signal') : CLUSTER_PULL,
    // No block leaves while another may still read its buffers of the last column.
    end: '  clusterSync();\n',
  } : {
    helpers: `${FLAG_HELPERS}
${GRID_WORD_HELPERS}`,
    attributes: '__launch_bounds__(T)',
    parameters: 'int m, int w, int off, int G, real* __restrict__ slots, int* __restrict__ sync',
    buffers: '',
    place: `  const int ticket = takeTicket(sync);
  const int mid = ticket / G, b = ticket % G;
  if (mid >= count) return;`,
    setup: `  unsigned long long* keyWords = reinterpret_cast<unsigned long long*>(sync + 2) + (long long)mid * 3 * G;   // [parity][G]
  unsigned* rowWords = reinterpret_cast<unsigned*>(keyWords + 2 * G);                                           // [parity][G]
  real* slot = slots + (long long)mid * 2 * (G + 1) * W;
`,
    perColumn: `    real* cands = slot + q * (G + 1) * W;        // this parity's G candidate rows, then row k
    const unsigned long long tag = (unsigned long long)(((k >> 1) & 1) ^ 1);
`,
    exchange: GRID_EXCHANGE,
    end: '',
  };
  // The pivot row and row k as step 3 reads them: copied into sPiv / sRowK, or where they were pushed.
  const P = pushed ? 'pivRow' : 'sPiv', K = pushed ? 'rowK' : 'sRowK';
  const layout = cluster > 0
    ? `// A points at the panel's first element A(off, off) of matrix 0; m rows, w <= W columns (m >= w).
// G = ${cluster} blocks a matrix, one cluster (grid: count * G); blocks past the panel's rows hold none.`
    : `// A points at the panel's first element A(off, off) of matrix 0; m rows, w <= W columns (m >= w).
// G blocks a matrix (grid: count * G); slots: spreadSlotReals a matrix; sync: spreadSyncInts(count, G)
// ints, zero before the launch (8-byte aligned).`;
  const source = `${precisionPrelude(p.dtype)}
${pivotHelpers(p.dtype)}
${parts.helpers}
${keyCodeHelpers(p.dtype)}
constexpr int W = ${width};
constexpr int RB = ${rowsPerBlock};
constexpr int T = ${threads};
constexpr int ROWT = ${rowThreads};   // thread t owns rows t % ROWT + i ROWT and columns t / ROWT + j CG
constexpr int CG = T / ROWT;
constexpr int RPT = RB / ROWT;
constexpr int NWR = ROWT / 32;       // the warps that search (those of column group 0)
constexpr int NONE = 0x7fffffff;
${cluster > 0 ? `constexpr int G = ${cluster};   // blocks a matrix: the cluster` : `constexpr int PER_LANE = ${perLane};   // blocks a lane of warp 0 polls (G <= 32 PER_LANE)`}${fused ? `\n${BLOCK_CANDIDATE}` : ''}

${layout}
extern "C" __global__ void ${parts.attributes} ${entry}(
    ${operandParameters('A', 'strided', true)},
    int* __restrict__ ipiv, int pivotStride, int* __restrict__ info, int count,
    ${parts.parameters}) {
  extern __shared__ __align__(16) unsigned char smemRaw[];
  real* sA = reinterpret_cast<real*>(smemRaw);   // the block's rows by columns: sA[c * RB + r]
  __shared__ real sPiv[W];                        // the pivot row (row k after the swap)
  __shared__ real sRowK[W];                       // row k before the swap (row piv after it)
  __shared__ real redKey[NWR];
  __shared__ int redPos[NWR];
  __shared__ int sPivRow;
  __shared__ int sPivots[W];                      // the leaf's pivots
${parts.buffers}
${parts.place}
  real* a = ${matrixPointer('A', 'strided', 'mid')};
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, tr = tid % ROWT, tc = tid / ROWT;
  const int r0 = b * RB, rows = max(0, min(RB, m - r0));
${parts.setup}  int* pv = ipiv + (long long)mid * pivotStride + off;
  for (int e = tid; e < W * RB; e += T) {
    const int c = e / RB, r = e % RB;
    sA[e] = r < rows && c < w ? a[r0 + r + (long long)c * ldA] : real(0);
  }
  int inf = info[mid];
  __syncthreads();
${fused ? `  // Column 0's candidate (each later column's is found in the update of the column before it).
  if (tc == 0) blockCandidate(sA, 0, tr, r0, rows, lane, redKey, redPos);
  __syncthreads();
` : ''}  for (int k = 0; k < w; ++k) {
    const int q = k & 1;
${parts.perColumn}${fused ? `    real xk[RPT];   // column k of this thread's rows (its candidate was found before the last barrier)
#pragma unroll
    for (int i = 0; i < RPT; ++i) xk[i] = sA[k * RB + tr + i * ROWT];
` : `    // 1. The block's candidate for column k (warps of column group 0), published by warp 0.
    real xk[RPT];
#pragma unroll
    for (int i = 0; i < RPT; ++i) xk[i] = sA[k * RB + tr + i * ROWT];
    if (tc == 0) {
      real key = real(-2);
      int pos = NONE;
#pragma unroll
      for (int i = 0; i < RPT; ++i) {
        const int r = tr + i * ROWT, gr = r0 + r;
        const real x = xk[i];
        if (r < rows && gr >= k) better(key, pos, x != x ? (gr == k ? infReal() : real(-1)) : absReal(x), gr);
      }
      warpBest(key, pos);
      if (lane == 0) { redKey[warp] = key; redPos[warp] = pos; }
    }
    __syncthreads();
`}${parts.exchange}
    __syncthreads();
    // 3. Swap, scale and update the elements this thread owns.
    const int piv = sPivRow;
${pushed ? `    const real* pivRow = xRows[q][sWin];   // where the exchange left them
    const real* rowK = xRowK[q];
` : ''}    const real pivot = ${P}[k];
    if (tid == 0) sPivots[k] = off + piv;   // written out at the end: no global store before the next exchange's release
    if (pivot == real(0) && inf == 0) inf = off + k + 1;
    const bool scale = pivot != real(0);
    const bool small = absReal(pivot) < SAFE_MIN;
    const real rcp = real(1) / pivot;
    const int c0 = k + 1 + ((tc - k - 1) & (CG - 1));   // this thread's first column right of k
#pragma unroll
    for (int i = 0; i < RPT; ++i) {
      const int r = tr + i * ROWT, gr = r0 + r;
      if (r >= rows) continue;
      if (piv != k && (gr == k || gr == piv)) {
        for (int c = tc; c < w; c += CG) sA[c * RB + r] = gr == k ? ${P}[c] : ${K}[c];
      }
      if (gr > k) {
        real l = gr == piv ? ${K}[k] : xk[i];
        if (scale) l = small ? l / pivot : l * rcp;
        if ((k & (CG - 1)) == tc) sA[k * RB + r] = l;
#pragma unroll 4
        for (int c = c0; c < w; c += CG) sA[c * RB + r] = fmaReal(-l, ${P}[c], sA[c * RB + r]);
      }
    }
${fused ? `    // 1. (fused) The next column's candidate, by the column group that owns it, from the values
    // it has just updated (its own: no barrier between), published before the barrier below.
    if (k + 1 < w && tc == ((k + 1) & (CG - 1))) blockCandidate(sA, k + 1, tr, r0, rows, lane, redKey, redPos);
` : ''}    __syncthreads();
  }
${parts.end}  for (int e = tid; e < W * RB; e += T) {
    const int c = e / RB, r = e % RB;
    if (r < rows && c < w) a[r0 + r + (long long)c * ldA] = sA[e];
  }
  if (b == 0) for (int c = tid; c < w; c += T) pv[c] = sPivots[c];
  if (b == 0 && tid == 0) info[mid] = inf;
}
`;
  return { name: `${entry}.cu`, source, entry };
}
