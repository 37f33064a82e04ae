/**
 * The warp-slot layout of the register designs for n <= 32 (papers' section 4.2-4.4; potrf, getrf
 * and the solves): a matrix gets `lanes` lanes of a warp (one row each) and a slot of shared
 * memory, several matrices share a warp where one cannot fill it, and the only barrier is
 * __syncwarp. This file holds what every such kernel declares: the layout's constants
 * (smallPrelude), the per-thread slot setup (slotSetup) and the launch grid (smallGrid).
 */
import type { DType } from '../../../core/dtype.js';
import { cudaMath, dtypeInfo } from '../../../core/dtype-table.js';
import { elementBytes, mathHelpers, precisionPrelude } from './precision.js';

export const SMALL_MAX_N = 32;

export interface SmallLayout {
  readonly dtype: DType;
  readonly n: number;
  /** Warps per thread block. */
  readonly warps: number;
  /** Whether each matrix slot needs the N x P shared tile (upper storage, or a solve). */
  readonly tile: boolean;
  /** Lanes given to one matrix (>= n): n for Cholesky, a power of two for LU (shuffle reductions). */
  readonly lanes: number;
  /**
   * Keep every published column (fused Cholesky solves): N column buffers of `history` elements
   * each instead of two alternating ones; the tile, when there is one, aliases them (it is used only
   * before and after the factorisation). 0 or absent: two buffers.
   */
  readonly history?: number;
}

/** Matrices that share one warp: as many groups of `lanes` lanes as fit in 32. */
function matricesPerWarp(lanes: number): number {
  return Math.floor(32 / lanes);
}

/** Elements per 16-byte vector. */
export const vectorWidth = (dtype: DType): number => dtypeInfo(dtype).vectorLanes;

/** Odd leading dimension >= n of the shared tile (odd: conflict-free row and column access). */
const tileLd = (n: number): number => (n % 2 === 1 ? n : n + 1);

/**
 * Stride of the kept column buffers: room for n entries and `extra` right-hand-side values, a whole
 * number of 16-byte vectors, and not a multiple of 32 banks (the backward sweep reads one element of
 * every thread's column, so lanes would otherwise hit one bank).
 */
export function historyStride(dtype: DType, n: number, extra: number): number {
  const vw = vectorWidth(dtype);
  let cs = Math.ceil((n + extra) / vw) * vw;
  if (((cs * (elementBytes(dtype) / 4)) % 32) === 0) cs += vw;
  return cs;
}

function slotElements(l: SmallLayout): number {
  const vw = vectorWidth(l.dtype);
  const nc = Math.ceil(l.n / vw) * vw;
  const tile = l.tile ? l.n * tileLd(l.n) : 0;
  const raw = l.history ? Math.max(l.n * l.history, tile) : 2 * nc + tile;
  return Math.ceil(raw / vw) * vw;
}

/** Blocks needed for `count` matrices. */
export function smallGrid(l: SmallLayout, count: number): number {
  return Math.ceil(count / (l.warps * matricesPerWarp(l.lanes)));
}

/**
 * Constants and the vector helper of every small factor/solve kernel of this layout (the
 * in-register Cholesky itself: choleskyRowsSource).
 */
export function smallPrelude(l: SmallLayout): string {
  const vw = vectorWidth(l.dtype);
  const vec = dtypeInfo(l.dtype).cuda.vector.type;
  const comps = ['x', 'y', 'z', 'w'].slice(0, vw);
  return `${precisionPrelude(l.dtype)}
constexpr int N = ${l.n};
constexpr int LANES = ${l.lanes};               // lanes per matrix
constexpr int MPW = ${matricesPerWarp(l.lanes)};   // matrices per warp
constexpr int WARPS = ${l.warps};
constexpr int VW = ${vw};                       // elements per 16-byte vector
constexpr int NC = ${Math.ceil(l.n / vw) * vw};  // column buffer length
constexpr int P = ${tileLd(l.n)};               // odd leading dimension of the shared tile
constexpr int SLOT = ${slotElements(l)};        // shared elements per matrix
constexpr int CS = ${l.history ?? 0};            // stride of the kept column buffers (0: two alternating buffers)
typedef ${vec} vec;
${mathHelpers(l.dtype)}
static __device__ __forceinline__ real rsqrtReal(real x) { return ${cudaMath(l.dtype, 'rsqrt')}(x); }
static __device__ __forceinline__ real vget(const vec& v, int e) {
  return ${comps.slice(0, -1).map((c, i) => `e == ${i} ? v.${c} : `).join('')}v.${comps[vw - 1]};
}`;
}

/**
 * Warps per block of the small potrf, posv and gesv kernels: 2 from n = 16 (more blocks fit the
 * register file in whole: posv f32 n = 32 44 -> 52% of the bandwidth bound, potrf f32 n = 16
 * 51 -> 57%, gesv f64 n = 32 47 -> 49%, H100), else 4 (the paper's 32 x 4 threads). getrf measured
 * the same with 2 or 4 and keeps SMALL_WARPS.
 */
export const smallWarps = (n: number): number => (n >= 16 ? 2 : 4);

/**
 * Declarations at the top of a small kernel: shared memory, this thread's matrix slot and row,
 * `valid` (a real matrix), `id` (its batch index), the slot's buffers c0, c1, st (st aliases the
 * column buffers where the layout keeps a history).
 * Idle lanes (past MPW * N) get r = -1 so they never touch shared memory.
 */
export function slotSetup(history = false): string {
  return `  __shared__ __align__(16) real smem[WARPS * MPW * SLOT];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int rawSlot = lane / LANES;
  const bool used = rawSlot < MPW && lane - rawSlot * LANES < N;
  const int slot = rawSlot < MPW ? rawSlot : MPW - 1;
  const int r = used ? lane - rawSlot * LANES : -1;
  const int base = slot * LANES;                    // first lane of this matrix
  const long long mid = ((long long)blockIdx.x * WARPS + warp) * MPW + slot;
  const bool valid = used && mid < count;
  const bool live = rawSlot < MPW && mid < count;   // the slot holds a matrix (some lanes may idle)
  (void)live; (void)base;
  const long long id = valid ? (index ? (long long)index[mid] : mid) : 0;
  real* c0 = smem + (warp * MPW + slot) * SLOT;
  real* c1 = c0 + NC;
  real* st = ${history ? 'c0' : 'c1 + NC'};
  (void)st; (void)id; (void)c1;`;
}

/** Warps per block of the small getrf, potrs and getrs kernels (potrf, posv, gesv: smallWarps(n)). */
export const SMALL_WARPS = 4;
