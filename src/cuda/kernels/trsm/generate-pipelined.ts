/**
 * trmm's pipelined kernel, side left: B := alpha M B with M = op(A) lower after the family's
 * mapping (generate-leaf.ts leafMapping and leafHeader: TRANSPOSED, REVERSE, UNIT, at()), for a
 * triangle of order t <= T (T compiled in: pipelinedOrder; t, the vectors and the batch at run time).
 *
 * The register and product leaves load a task, multiply it and store it in one phase each, with
 * 143-168 registers a thread and so few tasks an SM that nothing is in flight while a block
 * multiplies: both ended at 42 % of the copy roofline at t = 32. Here a block is persistent (the
 * grid about SMs x blocks an SM holds) and walks the tasks grid-stride, a task one matrix and a
 * panel of W = 32 of its vectors (B's columns), and copies the task STAGES - 1 ahead of the one it
 * multiplies into its own shared stage by cp.async (common/async-copy.ts): the next panels' bytes
 * are in flight while the current one multiplies and stores.
 * - A stage holds the triangle packed by columns (L(p, q) at columnOffset(q) + p - q: a column's
 *   rows consecutive) and the panel's tile X (T x LDX, p-th row the panel's element p of each
 *   vector). The triangle's copies walk the T x T square along A's columns, only its referenced
 *   elements (the other triangle, and the diagonal where diag is unit, never read); the tile's along
 *   B's columns.
 * - The product: thread (lr, vg) computes rows p = lr + RL s (s < RP) for vectors vg RN ... vg RN +
 *   RN - 1, RP x RN accumulators. Row p sums L(p, q) x_q over q <= p in order of q, the diagonal (or
 *   x_p where unit) last: never a product with a zero of the other triangle, so an infinity or NaN
 *   in B reaches only the rows the reference's loops reach. A column of L read by RL consecutive
 *   lanes (conflict-free), X's row as pairs broadcast to the RL lanes of a vector group.
 * - The panel's original is in shared memory, so the results go straight from registers to B,
 *   times alpha: RL consecutive rows of a column a half-warp (whole 32-byte sectors).
 * alpha = 0 stores zeros and copies nothing (BLAS: A and B not read); the family's launcher zeroes
 * B itself then, so the kernel never sees it there.
 *
 * Bytes a call (the roofline): A's triangle once a panel (t (t + 1) / 2, from L2 after the first
 * panel of a matrix), B in and out once. t = 32 with 32 vectors, float64: 4.2 + 8.2 + 8.2 kB a
 * matrix, 1.35 GB over 65,536 matrices: 0.32 ms at 4.2 TB/s. Each SM holds 8 blocks of 25.9 kB
 * (two stages of 12.9 kB) at t = 32: 100 kB of copies in flight against the ~35 kB Little's law
 * asks of an SM at 4.2 TB/s and ~1 us, and the FMAs (1.1 G, 65 us of the H200's float64 rate) are
 * hidden behind the next task's copies: expected 80-90 % of the roofline at t = 32 and 64 (3 blocks
 * of 68 kB an SM). At t = 128 the FMAs per byte reach the float64 FMA rate (about 3 FMA a byte):
 * there the recursion with leaves of 64 and the GEMM family's updates is expected to be faster.
 */
import type { KernelSource } from '../../runtime/types.js';
import { asyncCopyHelpers } from '../common/async-copy.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { byPrecision } from '../../../core/dtype-table.js';
import { elementBytes, precisionLetter } from '../common/precision.js';
import { leafHeader, leafMapping, variantTag } from './generate-leaf.js';
import type { TrmmPipelinedParams } from './params.js';

/** Threads a block. */
export const PIPELINED_THREADS = 128;
/** Vectors (B's columns) a task: the panel's width. */
export const PIPELINED_VECTORS = 32;
/** The largest triangle the kernel multiplies. */
export const PIPELINED_MAX = 128;
/** Shared stages a block cycles through, at most (2: one task multiplies while the next is copied). */
export const PIPELINED_STAGES_MAX = 3;
/** The tile's row pitch: the panel's width and a pair (pair-aligned rows; 2- or 4-way conflicts on the copies' writes only). */
const LDX = PIPELINED_VECTORS + 2;

/**
 * The compiled order a triangle of t runs at: the next multiple of 8 to 32, of 16 to 64, of 32 to
 * 128 (rows past t are never copied or stored).
 */
export function pipelinedOrder(t: number): number {
  if (!(Number.isInteger(t) && t >= 1 && t <= PIPELINED_MAX)) throw new RangeError(`trmm pipelined order must be an integer in 1..${PIPELINED_MAX}, got ${t}`);
  return t <= 32 ? Math.ceil(t / 8) * 8 : t <= 64 ? Math.ceil(t / 16) * 16 : Math.ceil(t / 32) * 32;
}

/** The thread tile of order T: RL row lanes, RP rows and RN vectors a thread, VG vector groups. */
export interface PipelinedTile {
  readonly rl: number;
  readonly rp: number;
  readonly vg: number;
  readonly rn: number;
}

export function pipelinedTile(order: number): PipelinedTile {
  const rl = order % 16 === 0 ? 16 : 8;
  const vg = PIPELINED_THREADS / rl;
  return { rl, rp: order / rl, vg, rn: PIPELINED_VECTORS / vg };
}

/** Elements of one stage: the packed triangle (rounded to a pair) and the tile. */
function stageElements(order: number): number {
  const packed = Math.ceil((order * (order + 1)) / 2 / 2) * 2;
  return packed + order * LDX;
}

/** Dynamic shared bytes of the kernel (every stage). */
export function pipelinedSharedBytes(p: Pick<TrmmPipelinedParams, 'dtype' | 'order' | 'stages'>): number {
  return p.stages * stageElements(p.order) * elementBytes(p.dtype);
}

/**
 * Blocks an SM should hold (the launch bound's second number): as many as the stages' shared
 * memory allows (228 kB an SM, 1 kB a block reserved), at most 8 (64 registers a thread).
 */
function minBlocks(p: TrmmPipelinedParams): number {
  return Math.max(1, Math.min(8, Math.floor((228 * 1024) / (pipelinedSharedBytes(p) + 1024))));
}

function validate(p: TrmmPipelinedParams): void {
  if (p.side !== 'left') throw new RangeError(`trmm pipelined kernel is side left only, got side ${p.side}`);
  if (!(Number.isInteger(p.order) && p.order >= 1 && p.order <= PIPELINED_MAX && pipelinedOrder(p.order) === p.order))
    throw new RangeError(`trmm pipelined order must be 8, 16, 24, 32, 48, 64, 96 or 128, got ${p.order}`);
  if (!(Number.isInteger(p.stages) && p.stages >= 2 && p.stages <= PIPELINED_STAGES_MAX))
    throw new RangeError(`trmm pipelined stages must be 2..${PIPELINED_STAGES_MAX}, got ${p.stages}`);
}

export function trmmPipelinedSource(p: TrmmPipelinedParams): KernelSource {
  validate(p);
  const m = leafMapping(p);
  const tile = pipelinedTile(p.order);
  const pair = byPrecision(p.dtype, { double: 'double2', single: 'float2' });
  const entry = `trmm_pipe_${precisionLetter(p.dtype)}_${variantTag(p)}_${kindTag(p.kind)}_o${p.order}_s${p.stages}`;
  // The square's walk: the index along A's memory fastest (rows of A: p unless M = A^T).
  const [fast, slow] = m.transposed ? ['q', 'p'] : ['p', 'q'];
  // A copy holds no register once issued, so partial unrolling keeps as many in flight as a full one would, with fewer addresses live.
  const unrollSquare = '#pragma unroll 4';
  const source = `${leafHeader({ ...p, op: 'trmm' })}
constexpr int T = ${p.order};                      // the largest order (the triangle's t <= T at run time)
constexpr int NT = ${PIPELINED_THREADS};                    // threads a block
constexpr int W = ${PIPELINED_VECTORS};                      // vectors a task (a panel of B's columns)
constexpr int STAGES = ${p.stages};                  // shared stages: STAGES - 1 tasks in flight beside the one multiplied
constexpr int RL = ${tile.rl}, RP = ${tile.rp};             // row lanes, rows a thread (p = lr + RL s)
constexpr int VG = ${tile.vg}, RN = ${tile.rn};              // vector groups, vectors a thread (vg RN ...)
constexpr int LDX = ${LDX};                    // the tile's row pitch (a pair's multiple)
constexpr int PACKED = ${stageElements(p.order) - p.order * LDX};              // the triangle packed by columns, rounded to a pair
constexpr int STAGE = PACKED + T * LDX;          // elements of a stage
constexpr int SQUARE_STEPS = (T * T + NT - 1) / NT;
constexpr int TILE_STEPS = (T * W + NT - 1) / NT;
typedef ${pair} realPair;
${asyncCopyHelpers(p.dtype)}

/** Offset of column q of L packed by columns (rows q ... T - 1): L(p, q) at columnOffset(q) + p - q. */
static __device__ __forceinline__ int columnOffset(int q) { return q * T - q * (q - 1) / 2; }

/**
 * Issues this thread's copies of one task into a stage: L(p, q) = M(at(p), at(q)) for the referenced
 * q <= p (the square walked along A's memory) and the panel's elements (p, vv) along B's columns.
 */
static __device__ __forceinline__ void stageTask(const real* __restrict__ a, int ldA, const real* __restrict__ b, int ldB, int t, int nv, real* stage) {
  real* sL = stage;
  real* sX = stage + PACKED;
  const int tid = threadIdx.x;
  ${unrollSquare}
  for (int u = 0; u < SQUARE_STEPS; ++u) {
    const int e = tid + u * NT, ${fast} = e % T, ${slow} = e / T;
    if (e < T * T && p < t && (q < p || (!UNIT && q == p))) {
      const int i = at(p, t), k = at(q, t);
      copyAsync(sL + columnOffset(q) + p - q, TRANSPOSED ? a + k + (long long)i * ldA : a + i + (long long)k * ldA);
    }
  }
  #pragma unroll 4
  for (int u = 0; u < TILE_STEPS; ++u) {
    const int e = tid + u * NT, p = e % T, vv = e / T;
    if (e < T * W && p < t && vv < nv) copyAsync(sX + p * LDX + vv, b + at(p, t) + (long long)vv * ldB);
  }
}

extern "C" __global__ void __launch_bounds__(NT, ${minBlocks(p)}) ${entry}(
    ${operandParameters('A', p.kind, false)},
    ${operandParameters('B', p.kind, true)},
    int count, int t, int nvec, real alpha) {
  extern __shared__ __align__(16) unsigned char smemBytes[];
  real* stages = reinterpret_cast<real*>(smemBytes);
  const int chunks = (nvec + W - 1) / W;
  const long long tasks = (long long)count * chunks;
  const bool zero = alpha == real(0);
  // Copies of task 'task' into stage 's' (nothing past the last task, nothing where alpha = 0).
  auto issue = [&](long long task, int s) {
    if (zero || task >= tasks) return;
    const int mat = (int)(task / chunks), w0 = (int)(task % chunks) * W;
    stageTask(${matrixPointer('A', p.kind, 'mat')}, ldA, ${matrixPointer('B', p.kind, 'mat')} + (long long)w0 * ldB, ldB, t, min(W, nvec - w0), stages + s * STAGE);
  };

  const int lr = threadIdx.x % RL, vg = threadIdx.x / RL;
  // The first STAGES - 1 tasks of the block in flight; then every iteration issues the task
  // STAGES - 1 ahead (one commit group an iteration, empty or not, so the wait's count holds).
  #pragma unroll
  for (int k = 0; k < STAGES - 1; ++k) {
    issue(blockIdx.x + (long long)k * gridDim.x, k);
    commitAsync();
  }
  int s = 0;
  for (long long task = blockIdx.x; task < tasks; task += gridDim.x) {
    issue(task + (long long)(STAGES - 1) * gridDim.x, (s + STAGES - 1) % STAGES);
    commitAsync();
    waitAsync<STAGES - 1>();   // this task's copies (this thread's) are in
    __syncthreads();           // and everyone's

    const real* sL = stages + s * STAGE;
    const real* sX = sL + PACKED;
    real acc[RP][RN];
    #pragma unroll
    for (int r = 0; r < RP; ++r) {
      #pragma unroll
      for (int c = 0; c < RN; ++c) acc[r][c] = real(0);
    }
    if (!zero) {
      #pragma unroll 2
      for (int q = 0; q < t; ++q) {
        real x[RN];
        #pragma unroll
        for (int c = 0; c < RN; c += 2) {
          const realPair v = *reinterpret_cast<const realPair*>(sX + q * LDX + vg * RN + c);
          x[c] = v.x;
          x[c + 1] = v.y;
        }
        const real* column = sL + columnOffset(q) - q;   // L(p, q) = column[p]
        #pragma unroll
        for (int r = 0; r < RP; ++r) {
          const int p = lr + RL * r;
          // Row block r (rows RL r ... RL r + RL - 1) takes q only up to its last row (warp-uniform).
          if (q < RL * (r + 1) && q <= p) {
            const real l = UNIT && q == p ? real(1) : column[p];
            #pragma unroll
            for (int c = 0; c < RN; ++c) acc[r][c] = fmaReal(l, x[c], acc[r][c]);
          }
        }
      }
    }
    // The panel's original is in the stage: the product goes straight back into B.
    const int mat = (int)(task / chunks), w0 = (int)(task % chunks) * W, nv = min(W, nvec - w0);
    real* b = ${matrixPointer('B', p.kind, 'mat')} + (long long)w0 * ldB;
    #pragma unroll
    for (int r = 0; r < RP; ++r) {
      const int p = lr + RL * r;
      #pragma unroll
      for (int c = 0; c < RN; ++c) {
        const int vv = vg * RN + c;
        if (p < t && vv < nv) b[at(p, t) + (long long)vv * ldB] = zero ? real(0) : alpha * acc[r][c];
      }
    }
    __syncthreads();   // every read of this stage done before it is refilled
    s = s + 1 == STAGES ? 0 : s + 1;
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}
