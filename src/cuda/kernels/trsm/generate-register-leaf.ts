/**
 * trmm's register leaf: y = L x for every vector of B, with a triangle of order t <= T, T (8, 16,
 * 24 or 32: registerLeafOrder) fixed at compile time. The variants map onto M lower as the shared-memory leaf's
 * do (generate-leaf.ts leafMapping and leafHeader: TRANSPOSED, REVERSE, UNIT, at()).
 *
 * A multiply has no dependence between the elements it writes, so each thread holds its vector x
 * (T values) in registers and computes y_p = sum_{q <= p} L(p, q) x_q from the last p down, in
 * place by columns of L (each x_q spread over the rows below before it is scaled), every index a
 * compile-time constant (the loops unroll fully). L sits in shared memory packed by columns, each
 * padded to VEC elements (16 bytes), so a thread reads a column as 16-byte vectors: every lane of
 * the warp the same address (a broadcast), half a load an FMA in float64, a quarter in float32.
 *
 * One warp is one task: one matrix and a chunk of 32 of its vectors (lane v: vector w0 + v), so
 * only __syncwarp orders its shared memory and the warps of a block never wait on each other; a
 * block holds `warps` tasks (blockDim = 32 x warps), the grid the tasks of the whole batch in
 * order (a matrix's chunks neighbours, so its triangle is read from L2 after the first).
 * - The triangle: the t x t square read along A's columns by the 32 lanes, every read in flight
 *   (unrolled), only the referenced elements (the other triangle, and the diagonal where diag is
 *   unit, are never read);
 * - side right: vector v's elements are B(w0 + v, at(p)), consecutive over the lanes: the lanes
 *   read and write B straight from and to their registers, coalesced;
 * - side left: vector v is a column of B, so the chunk goes through a shared tile (t x 33, odd:
 *   conflict-free for the column-wise walk and the thread-per-vector reads), read and written by
 *   the lanes along B's columns.
 * alpha = 0 writes zeros without reading A or B (BLAS); the family's launcher zeroes B itself then.
 *
 * Bytes per call (the roofline): every element of the triangle read once per matrix (t (t + 1) / 2
 * of the t^2: half the sectors of the square), B read once and written once. At t = 32, 32 vectors,
 * float64: 4.2 + 8.2 + 8.2 kB a matrix, 1.35 GB over 65,536 matrices: 0.32 ms at 4.2 TB/s. The FMAs
 * (528 a vector, 1.1 G) take 65 us of the H200's float64 rate and 8 warps of 128 registers a
 * scheduler keep 16 kB a warp of loads in flight, so the leaf should run at 80-90 % of the
 * bandwidth roofline (the load, compute and store of one warp do not overlap, but those of the
 * others on its SM do).
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { byPrecision } from '../../../core/dtype-table.js';
import { elementBytes, precisionLetter } from '../common/precision.js';
import { leafHeader, leafMapping, triangleReads, triangleStores, variantTag } from './generate-leaf.js';
import type { TrmmRegisterLeafParams } from './params.js';

/** The largest triangle the register leaf multiplies (its vector lives in t registers a thread). */
export const REGISTER_LEAF_MAX = 32;

/**
 * The compiled order a triangle of t runs at: the next multiple of 8 (8, 16, 24, 32). Rows and
 * columns from t on are never loaded or stored; the product runs over them on zeros and garbage it
 * never writes (row p reads only columns q <= p). Four kernels a variant, not 32: NVRTC's time
 * grows with the order squared, and a cold cache compiles every order a recursion leaves.
 */
export const registerLeafOrder = (t: number): number => Math.min(REGISTER_LEAF_MAX, Math.ceil(t / 8) * 8);

/** Lanes of a task: the vectors of a chunk. */
export const REGISTER_LEAF_LANES = 32;

/** Warps (tasks of 32 vectors) a block holds, at most (the plan may launch fewer): small blocks, so a block's tail is short. */
export const REGISTER_LEAF_WARPS = 4;

/** Row pitch of the left side's shared tile (odd: no bank conflicts down its columns). */
const TILE_LD = 33;

/** Elements of a 16-byte vector load. */
const vecWidth = (p: Pick<TrmmRegisterLeafParams, 'dtype'>): number => 16 / elementBytes(p.dtype);

/**
 * Offset of column q of the triangle packed by columns, column q (rows q ... t - 1, the diagonal
 * first) padded to `vec` elements: the columns from the last are rows of 1, 2, ... elements, so
 * columnOffset(q) = PACKED - rowOffset(T - q) with rowOffset(r) the elements of r such rows.
 */
function columnOffsetFunction(vec: number): string {
  // A row of r + 1 elements padded to vec carries (vec - (r + 1) % vec) % vec more:
  // vec = 2: rows 0, 2, 4, ... one; vec = 4: 3, 2, 1, 0 repeating (6 a period of 4).
  const pad = vec === 2 ? '((r + 1) >> 1)' : '(6 * (r >> 2) + ((r & 3) * (7 - (r & 3))) / 2)';
  return `static __device__ __forceinline__ int rowOffset(int r) { return r * (r + 1) / 2 + ${pad}; }
static __device__ __forceinline__ int columnOffset(int q) { return PACKED - rowOffset(T - q); }`;
}

function packedElements(t: number, vec: number): number {
  let packed = 0;
  for (let r = 0; r < t; r++) packed += Math.ceil((r + 1) / vec) * vec;
  return packed;
}

/** Shared elements one task (warp) uses: the padded triangle, and the tile where the side is left. */
export function registerLeafWarpElements(p: Pick<TrmmRegisterLeafParams, 'dtype' | 'side' | 'order'>): number {
  const vec = vecWidth(p);
  const packed = packedElements(p.order, vec);
  const tile = p.side === 'left' ? Math.ceil((p.order * TILE_LD) / vec) * vec : 0;
  return packed + tile;
}

/**
 * Blocks of REGISTER_LEAF_WARPS an SM should hold (the launch bound's second number): as many as
 * the tasks' shared memory allows, within the registers the thread needs (float64, 32: 3 blocks
 * at 168 registers, 12 warps an SM).
 */
function minBlocks(p: TrmmRegisterLeafParams): number {
  const threads = REGISTER_LEAF_LANES * REGISTER_LEAF_WARPS;
  const perBlock = registerLeafWarpElements(p) * elementBytes(p.dtype) * REGISTER_LEAF_WARPS + 1024;
  const byShared = Math.floor((228 * 1024) / perBlock);
  // Registers a thread: twice x's (the loads in flight beside it) and 40, a third x more in float32, 96 at least
  // (ptxas -v, sm_90, t = 16, 24, 32: no spills with these, spills with less).
  const words = elementBytes(p.dtype) / 4;
  const byRegisters = Math.floor(65536 / (threads * Math.max(96, p.order * (2 * words + (words === 1 ? 1 : 0)) + 40)));
  return Math.max(1, Math.min(byShared, byRegisters, 8));
}

export function trmmRegisterLeafSource(p: TrmmRegisterLeafParams): KernelSource {
  if (!(Number.isInteger(p.order) && p.order >= 1 && p.order <= REGISTER_LEAF_MAX))
    throw new RangeError(`trmm register leaf order must be an integer in 1..${REGISTER_LEAF_MAX}, got ${p.order}`);
  const m = leafMapping(p);
  const vec = vecWidth(p);
  const vecType = byPrecision(p.dtype, { double: 'double2', single: 'float4' });   // 16 bytes either way
  const entry = `trmm_rleaf_${precisionLetter(p.dtype)}_${variantTag(p)}_${kindTag(p.kind)}_o${p.order}`;
  // Element (p, vv) of the chunk is element at(p) of vector w0 + vv.
  const bAt = (vv: string): string => (m.left ? `b[at(p, t) + (long long)(w0 + ${vv}) * ldB]` : `b[(w0 + ${vv}) + (long long)at(p, t) * ldB]`);
  const source = `${leafHeader({ ...p, op: 'trmm' })}
constexpr int T = ${p.order};                         // the largest order (the triangle's t <= T at run time)
constexpr int VEC = ${vec};                        // elements of a 16-byte load
constexpr int LANES = ${REGISTER_LEAF_LANES};
constexpr int TILE_LD = ${TILE_LD};
typedef ${vecType} realVec;
constexpr int PACKED = ${packedElements(p.order, vec)};       // rowOffset(T)
${columnOffsetFunction(vec)}
constexpr int WARP_ELEMENTS = ${registerLeafWarpElements(p)};
constexpr int SQUARE_READS = (T * T + LANES - 1) / LANES;   // a lane's reads of the T x T square
${OPAQUE_HELPERS}

extern "C" __global__ void __launch_bounds__(${REGISTER_LEAF_LANES * REGISTER_LEAF_WARPS}, ${minBlocks(p)}) ${entry}(
    ${operandParameters('A', p.kind, false)},
    ${operandParameters('B', p.kind, true)},
    int count, int t, int nvec, real alpha) {
  extern __shared__ __align__(16) unsigned char smemBytes[];
  const int lane = threadIdx.x, g = threadIdx.y;
  const int chunks = (nvec + LANES - 1) / LANES;
  const long long task = (long long)blockIdx.x * blockDim.y + g;
  // Every lane of every warp runs every __syncwarp (the host emulation's barrier needs it):
  // a warp past the last task only skips its memory accesses.
  const bool valid = task < (long long)count * chunks;
  const int mat = valid ? (int)(task / chunks) : 0;
  const int w0 = valid ? (int)(task % chunks) * LANES : 0;
  const int nv = valid ? min(LANES, nvec - w0) : 0;
  const bool zero = alpha == real(0);
  real* sL = reinterpret_cast<real*>(smemBytes) + (long long)g * WARP_ELEMENTS;

  // L(p, q) = M(at(p), at(q)), q <= p, into column q of the padded packed triangle: the square walked
  // along A's columns, every read of the lane in flight before the first store.
  if (valid && !zero) {
    const real* a = ${matrixPointer('A', p.kind, 'mat')};
    real r[SQUARE_READS];
${triangleReads(m, 'lane', 'LANES', 'SQUARE_READS')}
${triangleStores(m, 'lane', 'LANES', 'SQUARE_READS', 'sL[columnOffset(q) + p - q]')}
  }
  real* b = valid ? ${matrixPointer('B', p.kind, 'mat')} : nullptr;

  real x[T];
${m.left ? leftLoad(bAt) : rightLoad(bAt)}

  // y_p = sum_{q <= p} L(p, q) x_q in place by columns of L (reference BLAS's order): from the last
  // q down, x_q (still the input) spread over the rows below it, then scaled by the diagonal. No
  // accumulators beyond x itself. Lanes past the chunk's vectors multiply garbage they never store.
${multiplyByColumns(p.order, vec, p.diag === 'unit')}

${m.left ? leftStore(bAt) : rightStore(bAt)}}
`;
  return { name: `${entry}.cu`, source, entry };
}

/**
 * The product in place, straight-line (every register index a literal: a rolled loop, or one the
 * compiler declines to unroll, would put x in local memory): column q of L from the last, as
 * 16-byte broadcasts from shared memory.
 */
function multiplyByColumns(t: number, vec: number, unit: boolean): string {
  const parts = ['x', 'y', 'z', 'w'];
  const lines: string[] = [];
  for (let q = t - 1; q >= 0; q--) {
    const offset = packedElements(t, vec) - packedElements(t - q, vec);
    lines.push(`  {  // column ${q}`);
    for (let j0 = 0; j0 < t - q; j0 += vec) {
      lines.push(`    const realVec l${j0} = *reinterpret_cast<const realVec*>(sL + ${offset + j0});`);
      for (let j = 0; j < vec && q + j0 + j < t; j++) {
        if (j0 + j === 0) continue;   // the diagonal, last
        const row = q + j0 + j;
        lines.push(`    x[${row}] = fmaReal(l${j0}.${parts[j]}, x[${q}], x[${row}]);`);
      }
    }
    if (!unit) lines.push(`    x[${q}] *= l0.x;`);
    lines.push('  }');
  }
  return lines.join('\n');
}

/**
 * B's pointer and the lane index as the store sees them: copies the compiler cannot see through, so
 * it recomputes the store's t addresses instead of keeping the load's live through the product
 * (2 t registers more: spills at 32 in float64).
 */
const OPAQUE_COPIES = `  real* const bOut = opaquePointer(b);
  const int laneOut = opaqueInt(lane);`;

const OPAQUE_HELPERS = `static __device__ __forceinline__ int opaqueInt(int v) {
#ifdef __CUDA_ARCH__
  asm("mov.b32 %0, %0;" : "+r"(v));
#endif
  return v;
}
static __device__ __forceinline__ real* opaquePointer(real* p) {
#ifdef __CUDA_ARCH__
  asm("mov.b64 %0, %0;" : "+l"(p));
#endif
  return p;
}`;

/** Side right: lane v reads element at(p) of its vector (row w0 + v of B) for every p, coalesced over the lanes. */
function rightLoad(bAt: (vv: string) => string): string {
  return `  __syncwarp();   // the triangle
  #pragma unroll
  for (int p = 0; p < T; ++p) x[p] = p < t && lane < nv && !zero ? alpha * ${bAt('lane')} : real(0);`;
}

function rightStore(bAt: (vv: string) => string): string {
  return `${OPAQUE_COPIES}
  if (laneOut < nv) {
    #pragma unroll
    for (int p = 0; p < T; ++p) if (p < t) ${bAt('laneOut').replace('b[', 'bOut[')} = zero ? real(0) : x[p];
  }`;
}

/** Side left: the chunk's columns into the tile along B's columns (p fastest over the lanes), then each lane's column out of it. */
function leftLoad(bAt: (vv: string) => string): string {
  return `  real* sX = sL + PACKED;
  {
    real r[T];
    #pragma unroll
    for (int u = 0; u < T; ++u) {
      const int e = lane + u * LANES, p = e % T, vv = e / T;
      r[u] = vv < nv && p < t && !zero ? ${bAt('vv')} : real(0);
    }
    #pragma unroll
    for (int u = 0; u < T; ++u) {
      const int e = lane + u * LANES, p = e % T, vv = e / T;
      sX[p * TILE_LD + vv] = alpha * r[u];
    }
  }
  __syncwarp();   // the triangle and the tile
  #pragma unroll
  for (int p = 0; p < T; ++p) x[p] = zero ? real(0) : sX[p * TILE_LD + lane];`;
}

function leftStore(bAt: (vv: string) => string): string {
  return `${OPAQUE_COPIES}
  #pragma unroll
  for (int p = 0; p < T; ++p) sX[p * TILE_LD + laneOut] = zero ? real(0) : x[p];
  __syncwarp();
  #pragma unroll
  for (int u = 0; u < T; ++u) {
    const int e = laneOut + u * LANES, p = e % T, vv = e / T;
    if (vv < nv && p < t) ${bAt('vv').replace('b[', 'bOut[')} = sX[p * TILE_LD + vv];
  }`;
}
