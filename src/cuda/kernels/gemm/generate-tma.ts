/**
 * The batched DGEMM on FP64 tensor cores fed by the Tensor Memory Accelerator (sm_90): one
 * BM x BN tile of one C per block, k in steps of 16. One thread (thread 0 between its k-steps, or
 * lane 0 of a producer warp of its own: `producerWarp`) copies each k-step's tiles of A and B with
 * `cp.async.bulk.tensor.3d` into a ring of STAGES shared buffers; a `full` mbarrier per buffer
 * counts the bytes landing (complete_tx), an `empty` one the mma warps done with it. The WM x WN
 * mma warps multiply with `mma.sync.m16n8k8.f64` (or m16n8k4 / m16n8k16 from the same reads:
 * tma-mma-shapes.ts) and write C from registers. With `persistent`, a grid of as many blocks as fit
 * at once walks the tiles (tma-persistent.ts), the producer warp running ahead into the next tile.
 * Nothing in the main loop computes a global address or checks a bound: the tensor maps (3-D: the contiguous dimension, the other matrix dimension at ld * 8 bytes, the
 * batch at stride * 8 bytes) carry the sizes, and the copy engine fills whatever lies outside the
 * matrix with zeros. The per-thread copy addressing of the cp.async design (generate-mma.ts) and
 * its registers are gone.
 *
 * Shared layout: every box's inner dimension is 16 doubles (128 bytes) and the maps use the
 * 128-byte swizzle: 16-byte unit u of 128-byte row r of a box lands at unit u ^ (r % 8) (boxes and
 * buffers 1024-byte aligned). A k-contiguous operand (A^T, B) is one box of BM (BN) rows of 16 k;
 * an m- (n-) contiguous one (A, B^T) is BM / 16 (BN / 16) boxes of 16 rows of k by 16 doubles.
 *
 * Fragments (PTX ISA, "Matrix Fragments for mma.m16n8k8" with .f64: a0 = A(g, q), a1 = A(g + 8, q),
 * a2 = A(g, q + 4), a3 = A(g + 8, q + 4); b0 = B(q, g), b1 = B(q + 4, g); c = C(g, 2q + h),
 * C(g + 8, 2q + h), with g = lane / 4, q = lane % 4). The sum over k ignores which k a slot holds
 * as long as A and B agree, and C ignores which row or column a slot holds as long as the epilogue
 * knows: slots q and q + 4 of an 8-wide k chunk kc hold k = kc + 2q and kc + 2q + 1 (one 16-byte
 * read of a k-contiguous row gives both), and
 * - k-contiguous operand: mma row (column) g is stored row P(g) of its 8 (P(g) = (g >> 1) | (g & 1) << 2),
 *   so the two g of each quarter-warp differ in bit 2 of the swizzle: the 8 lanes read 8 distinct
 *   16-byte bank groups;
 * - m- (n-) contiguous operand: mma rows g and g + 8 of a 16-row tile are stored rows 2g and 2g + 1
 *   (one 16-byte read gives a0 and a1, another a2 and a3); for B^T the pair of 8-column tiles 2v
 *   and 2v + 1 takes columns 2g and 2g + 1 of 16. Lanes q read rows kc + 2q + s, swizzled by 2q + s,
 *   and g by unit g: conflict-free too.
 */
import type { KernelSource } from '../../runtime/types.js';
import { precisionPrelude } from '../common/precision.js';
import { MMA_DTYPE } from './generate-mma.js';
import { tileOrder } from './tile-prologue.js';
import type { GemmKernelShape, TmaGemmParams } from './params.js';
import { tmaMmaHelpers, tmaMultiply, type TmaMmaK } from './tma-mma-shapes.js';
import { PERSISTENT_OPENING, persistentSchedule } from './tma-persistent.js';

/** k per step: one 128-byte row of doubles, the widest inner box of the 128-byte swizzle. */
export const TMA_BK = 16;
/** Doubles per 16 x 16 box (the m- or n-contiguous operands' unit). */
const BOX16 = 16 * 16;
/** Bytes of alignment slack: the dynamic shared window is rounded up to 1024 in the kernel. */
const ALIGN_SLACK = 1024;

const consumerWarps = (p: TmaGemmParams): number => p.wm * p.wn;
const mmaK = (p: TmaGemmParams): TmaMmaK => p.mmaK ?? 8;
const refillLag = (p: TmaGemmParams): number => p.refillLag ?? 1;
const warps = (p: TmaGemmParams): number => consumerWarps(p) + (p.producerWarp === true ? 1 : 0);
const stageBytes = (p: TmaGemmParams): number => (p.bm + p.bn) * TMA_BK * 8;

export function tmaGemmShape(p: TmaGemmParams): GemmKernelShape {
  // The ring, its 2 STAGES mbarriers of 8 bytes, and the slack for the 1024-byte alignment.
  return { threads: 32 * warps(p), sharedBytes: ALIGN_SLACK + p.stages * stageBytes(p) + 2 * 8 * p.stages };
}

function tmaGemmEntry(p: TmaGemmParams): string {
  return `gemm_tma_d${p.transA}${p.transB}_${p.bm}x${p.bn}x${TMA_BK}_w${p.wm}x${p.wn}_s${p.stages}${p.producerWarp === true ? 'p' : ''}${p.tileGroup !== undefined ? `g${p.tileGroup}` : ''}${mmaK(p) !== 8 ? `k${mmaK(p)}` : ''}${p.persistent === true ? 'P' : ''}${p.pipelined === true ? 'F' : ''}${refillLag(p) === 2 ? 'L2' : ''}${p.betaZero ? '_b0' : ''}`;
}

export function validateTmaParams(p: TmaGemmParams): void {
  const bad = (why: string): never => { throw new Error(`invalid tma gemm params (${why}): ${JSON.stringify(p)}`); };
  if (p.dtype !== MMA_DTYPE) bad('the tma kernel is float64 only');
  if (![p.bm, p.bn, p.wm, p.wn].every((x) => Number.isInteger(x) && x >= 1)) bad('sizes must be positive integers');
  if (p.bm % (16 * p.wm) !== 0 || p.bn % (16 * p.wn) !== 0) bad('each warp tile must be a multiple of 16 x 16');
  if (p.bm > 256 || p.bn > 256) bad('a box dimension is at most 256');
  if (!Number.isInteger(p.stages) || p.stages < 2 || p.stages > 8) bad('stages must be 2..8');
  if (p.tileGroup !== undefined && (!Number.isInteger(p.tileGroup) || p.tileGroup < 1 || p.tileGroup > 1024)) bad('tileGroup must be 1..1024');
  if (![4, 8, 16].includes(mmaK(p))) bad('mmaK must be 4, 8 or 16');
  if (p.pipelined === true && (mmaK(p) !== 8 || p.persistent === true)) bad('pipelined fragments take m16n8k8 and one tile per block');
  if (![1, 2].includes(refillLag(p))) bad('refillLag must be 1 or 2');
  if (refillLag(p) === 2 && (p.producerWarp === true || p.persistent === true || p.stages < 3)) bad('refillLag 2 takes thread 0 producing, one tile per block and 3 stages or more');
  const { threads, sharedBytes } = tmaGemmShape(p);
  if (threads > 1024) bad('more than 1024 threads');
  if (sharedBytes > 227 * 1024) bad('more than 227 KiB of shared memory');
  if (p.layouts.a.kind !== 'strided' || p.layouts.b.kind !== 'strided' || p.layouts.c.kind !== 'strided') bad('strided operands only (tensor maps)');
  if (p.layouts.a.dense || p.layouts.b.dense || p.layouts.c.dense) bad('dense layouts are not used by the tma kernel');
  if (p.complex !== undefined) bad('real data only');
  if (p.triangle !== undefined) bad('no triangle of C');
}

/** One operand's tensor map: what the launcher encodes (cuTensorMapEncodeTiled, rank 3, float64). */
export interface TmaOperandMap {
  /** Elements: the contiguous dimension, the other matrix dimension, the batch. */
  readonly dims: readonly [number, number, number];
  /** Bytes from one index to the next of dims 1 and 2. */
  readonly strides: readonly [number, number];
  /** Elements per copy along each dimension. */
  readonly box: readonly [number, number, number];
}

/** The operand's stored rows and columns, ld and batch stride (elements) as the request gives them. */
export interface TmaOperandLayout {
  readonly rows: number;
  readonly cols: number;
  readonly ld: number;
  readonly stride: number;
}

/**
 * The tensor map of operand A or B for `p` (pure). A batch of one gets a nominal batch stride (the
 * map needs a valid one; no copy steps along it). The box is 16 x 16 for an operand stored along
 * m or n (BM / 16 copies a step), 16 x BM (BN) for one stored along k (one copy).
 */
export function tmaOperandMap(p: TmaGemmParams, which: 'a' | 'b', o: TmaOperandLayout, count: number): TmaOperandMap {
  const alongK = which === 'a' ? p.transA === 'T' : p.transB === 'N';
  const rowsOfTile = which === 'a' ? p.bm : p.bn;
  const batchStride = count > 1 ? o.stride * 8 : Math.ceil((o.ld * o.cols * 8) / 16) * 16;
  return {
    dims: [o.rows, o.cols, count],
    strides: [o.ld * 8, batchStride],
    box: alongK ? [TMA_BK, rowsOfTile, 1] : [16, TMA_BK, 1],
  };
}

/**
 * Whether an operand may be read through a tensor map: its first element, ld * 8 and (for more
 * than one matrix) stride * 8 multiples of 16 bytes, and matrices that do not overlap (the batch
 * dimension of a map steps forward). `address`: of the first matrix's first element, in bytes.
 */
export function tmaOperandFits(address: bigint, o: TmaOperandLayout, count: number): boolean {
  if (address % 16n !== 0n || o.ld % 2 !== 0 || o.rows < 1 || o.cols < 1) return false;
  return count === 1 || (o.stride % 2 === 0 && o.stride >= o.ld * o.cols);
}

/** The producer's copies of one operand for k-step p0 into the stage at shared address `dst`. */
function copies(p: TmaGemmParams, which: 'A' | 'B'): string {
  const alongK = which === 'A' ? p.transA === 'T' : p.transB === 'N';
  const origin = which === 'A' ? 'i0' : 'j0';
  const map = `map${which}`;
  const dst = `dst${which}`;
  if (alongK) return `        tmaLoad(${dst}, &${map}, full, p0, ${origin}, batch);`;
  const boxes = (which === 'A' ? p.bm : p.bn) / 16;
  return `        #pragma unroll
        for (int box = 0; box < ${boxes}; ++box) tmaLoad(${dst} + box * ${BOX16 * 8}, &${map}, full, ${origin} + 16 * box, p0, batch);`;
}

/**
 * Fragment reads of one 8-wide k chunk kc (see the header for the slot and row maps): fa[u][0..3]
 * for the warp's m16 tiles u, fb[t][0..1] for its n8 tiles t.
 */
function fragmentReads(p: TmaGemmParams): string {
  const a = p.transA === 'T'
    ? `        #pragma unroll
        for (int u = 0; u < MT; ++u) {
          const double2 lo = ld2(tA + (wi + 16 * u + pg) * 16 + 2 * ((kc / 2 + q) ^ pg));
          const double2 hi = ld2(tA + (wi + 16 * u + 8 + pg) * 16 + 2 * ((kc / 2 + q) ^ pg));
          fa[u][0] = lo.x; fa[u][1] = hi.x; fa[u][2] = lo.y; fa[u][3] = hi.y;
        }`
    : `        #pragma unroll
        for (int u = 0; u < MT; ++u) {
          const real* box = tA + ((wi >> 4) + u) * ${BOX16};
          const double2 s0 = ld2(box + (kc + 2 * q) * 16 + 2 * (g ^ (2 * q)));
          const double2 s1 = ld2(box + (kc + 2 * q + 1) * 16 + 2 * (g ^ (2 * q + 1)));
          fa[u][0] = s0.x; fa[u][1] = s0.y; fa[u][2] = s1.x; fa[u][3] = s1.y;
        }`;
  const b = p.transB === 'N'
    ? `        #pragma unroll
        for (int t = 0; t < NT; ++t) {
          const double2 v = ld2(tB + (wj + 8 * t + pg) * 16 + 2 * ((kc / 2 + q) ^ pg));
          fb[t][0] = v.x; fb[t][1] = v.y;
        }`
    : `        #pragma unroll
        for (int v = 0; v < NT / 2; ++v) {
          const real* box = tB + ((wj >> 4) + v) * ${BOX16};
          const double2 s0 = ld2(box + (kc + 2 * q) * 16 + 2 * (g ^ (2 * q)));
          const double2 s1 = ld2(box + (kc + 2 * q + 1) * 16 + 2 * (g ^ (2 * q + 1)));
          fb[2 * v][0] = s0.x; fb[2 * v + 1][0] = s0.y; fb[2 * v][1] = s1.x; fb[2 * v + 1][1] = s1.y;
        }`;
  return `${a}\n${b}`;
}

/**
 * The epilogue: accumulator acc[u][t][r] (r = 2 * half + h: row g + 8 half, column 2q + h of the
 * mma tile) to C, with alpha and beta and bounds; beta = 0 never reads C. Rows: A^T stored row
 * P(g) (+ 8); A stored rows 2g and 2g + 1, adjacent: one 16-byte access where C allows.
 */
function epilogue(p: TmaGemmParams): string {
  const col = p.transB === 'N' ? 'j0 + wj + 8 * t + q + 4 * h' : 'j0 + wj + 16 * (t >> 1) + 4 * q + 2 * h + (t & 1)';
  const update = (v: string, at: string): string => (p.betaZero ? `alpha * ${v}` : `alpha * ${v} + beta * ${at}`);
  if (p.transA === 'T') {
    return `  #pragma unroll
  for (int u = 0; u < MT; ++u) {
    #pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int i = i0 + wi + 16 * u + 8 * half + pg;
      #pragma unroll
      for (int t = 0; t < NT; ++t) {
        #pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int j = ${col};
          if (i < m && j < n) {
            real* cij = c + i + (long long)j * ldC;
            *cij = ${update('acc[u][t][2 * half + h]', '*cij')};
          }
        }
      }
    }
  }`;
  }
  return `  // Lane g holds rows 2g and 2g + 1 of each 16-row tile: 16-byte accesses where aligned.
  const bool vecC = ((reinterpret_cast<unsigned long long>(c) & 15) == 0) && ((ldC & 1) == 0);
  #pragma unroll
  for (int u = 0; u < MT; ++u) {
    const int i = i0 + wi + 16 * u + 2 * g;
    #pragma unroll
    for (int t = 0; t < NT; ++t) {
      #pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int j = ${col};
        if (i < m && j < n) {
          real* cij = c + i + (long long)j * ldC;
          if (vecC && i + 1 < m) {
            ${p.betaZero ? '' : 'const double2 old = *reinterpret_cast<const double2*>(cij);'}
            double2 v;
            v.x = ${update('acc[u][t][h]', 'old.x')};
            v.y = ${update('acc[u][t][2 + h]', 'old.y')};
            *reinterpret_cast<double2*>(cij) = v;
          } else {
            cij[0] = ${update('acc[u][t][h]', 'cij[0]')};
            if (i + 1 < m) cij[1] = ${update('acc[u][t][2 + h]', 'cij[1]')};
          }
        }
      }
    }
  }`;
}

/**
 * A producer warp of its own (warp CONSUMERS): its lane 0 issues every copy, k-step s once the
 * consumers have released the buffer's previous use (step s - STAGES).
 */
const PRODUCER_WARP = `  if (warp == CONSUMERS) {
    if (lane == 0) {
      prefetchMaps(&mapA, &mapB);
      for (int s = 0; s < steps; ++s) {
        if (s >= STAGES) mbarWait(emptyBars + 8 * (s % STAGES), ((s / STAGES) - 1) & 1);
        produce(s);
      }
    }
    return;
  }`;

/**
 * Thread 0 of the first mma warp produces (no warp of its own: ptxas sizes registers for the
 * block rounded up to whole groups of 4 warps, so 8 + 1 warps get the 168 registers of 12): the
 * first STAGES k-steps before the loop, then at the top of iteration s, step s - 1 + STAGES into
 * the buffer of step s - 1 once every warp has released it.
 */
const PRODUCER_FIRST = `  if (threadIdx.x == 0) {
    prefetchMaps(&mapA, &mapB);
    for (int s = 0; s < STAGES && s < steps; ++s) produce(s);
  }`;
const PRODUCER_REFILL = `    if (threadIdx.x == 0 && s >= 1 && s - 1 + STAGES < steps) {
      mbarWait(emptyBars + 8 * ((s - 1) % STAGES), ((s - 1) / STAGES) & 1);
      produce(s - 1 + STAGES);
    }`;
/** As PRODUCER_REFILL two steps behind (\`refillLag\` 2): the buffer of step s - 2, step s - 2 + STAGES. */
const PRODUCER_REFILL_LAG2 = `    if (threadIdx.x == 0 && s >= 2 && s - 2 + STAGES < steps) {
      mbarWait(emptyBars + 8 * ((s - 2) % STAGES), ((s - 2) / STAGES) & 1);
      produce(s - 2 + STAGES);
    }`;
const producerRefill = (p: TmaGemmParams): string => (p.producerWarp === true ? '' : refillLag(p) === 2 ? PRODUCER_REFILL_LAG2 : PRODUCER_REFILL);

/**
 * The device side of the design: the tensor map, mbarriers, the bulk tensor copy and the mma, each
 * a helper, so that a host harness can bring its own (test/helpers/tma-gemm-host-harness.cpp).
 */
const TMA_HELPERS = `#ifndef MYRIAD_HOST_EMULATION   // a host harness brings its own (test/helpers/tma-gemm-host-harness.cpp)
// A CUtensorMap as the driver encodes it (cuda.h's 128-byte, 64-byte aligned opaque struct).
struct __align__(64) TmaMap { unsigned long long opaque[16]; };
static __device__ __forceinline__ unsigned sharedAddress(const void* p) {
  return (unsigned)__cvta_generic_to_shared(p);
}
static __device__ __forceinline__ void mbarInit(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(count) : "memory");
}
// The producer's arrival, announcing the bytes the copies of this phase will bring.
static __device__ __forceinline__ void mbarExpectBytes(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(bytes) : "memory");
}
// Makes the initialised barriers visible to the copy engine (the async proxy).
static __device__ __forceinline__ void fenceBarrierInit() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
static __device__ __forceinline__ void mbarArrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(bar) : "memory");
}
// Returns once the phase of parity 'parity' of the barrier has completed.
static __device__ __forceinline__ void mbarWait(unsigned bar, unsigned parity) {
  unsigned done;
  do {
    asm volatile("{\\n .reg .pred p;\\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\\n selp.u32 %0, 1, 0, p;\\n}"
                 : "=r"(done) : "r"(bar), "r"(parity) : "memory");
  } while (done == 0);
}
// One box of a 3-D tensor map at element coordinates (x, y, z) into shared memory; its bytes
// complete a transaction on 'bar'. Out-of-range elements arrive as zeros.
static __device__ __forceinline__ void tmaLoad(unsigned dst, const TmaMap* map, unsigned bar, int x, int y, int z) {
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];"
               :: "r"(dst), "l"(reinterpret_cast<unsigned long long>(map)), "r"(x), "r"(y), "r"(z), "r"(bar) : "memory");
}
static __device__ __forceinline__ void prefetchMaps(const TmaMap* a, const TmaMap* b) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(reinterpret_cast<unsigned long long>(a)) : "memory");
  asm volatile("prefetch.tensormap [%0];" :: "l"(reinterpret_cast<unsigned long long>(b)) : "memory");
}
static __device__ __forceinline__ double2 ld2(const double* p) { return *reinterpret_cast<const double2*>(p); }
// c += a b on one m16n8k8 tile (the fragments of the file's header).
static __device__ __forceinline__ void mmaF64(double (&c)[4], const double (&a)[4], const double (&b)[2]) {
  asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
      : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3]) : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
}
#endif`;

/** The opening of one block per tile: its matrix (grid y, z), its tile (grid x) and C. */
function tileOpening(p: TmaGemmParams): string {
  return `const int batch = blockIdx.z * gridDim.y + blockIdx.y;
  if (batch >= count) return;
  ${tileOrder(p.tileGroup)}
  real* c = C + offsetC + (long long)batch * strideC;`;
}

/** The consumers' k-steps: each stage's fragment reads, then its mma instructions. */
function plainSteps(p: TmaGemmParams): string {
  return `  for (int s = 0; s < steps; ++s) {
    const int stage = s % STAGES;
${producerRefill(p)}
    mbarWait(fullBars + 8 * stage, (s / STAGES) & 1);      // the stage's bytes have landed
    __syncwarp();                                          // mma.sync.aligned: the whole warp, converged
    const real* tA = tiles + stage * (SIZEA + SIZEB);
    const real* tB = tA + SIZEA;
${tmaMultiply(mmaK(p), fragmentReads(p))}
    // Every lane's reads of the stage fed an mma above: the warp releases the buffer.
    __syncwarp();
    if (lane == 0) mbarArrive(emptyBars + 8 * stage);
  }`;
}

/**
 * The consumers' k-steps with register double-buffered fragments (\`pipelined\`): chunk 8 of stage s
 * is read into (fa1, fb1) before chunk 0's mma instructions issue, and chunk 0 of stage s + 1 into
 * (fa0, fb0) before chunk 8's: an mma never waits for a shared read of its own step. Stage s is
 * released after its last mma instruction has taken its fragments.
 */
function pipelinedSteps(p: TmaGemmParams): string {
  return `  // Chunk kc (0 or 8) of step s's stage into (fa, fb).
  auto readChunk = [&](int s, int kc, real (&fa)[MT][4], real (&fb)[NT][2]) {
    const real* tA = tiles + (s % STAGES) * (SIZEA + SIZEB);
    const real* tB = tA + SIZEA;
${fragmentReads(p)}
  };
  auto multiply = [&](const real (&fa)[MT][4], const real (&fb)[NT][2]) {
    #pragma unroll
    for (int u = 0; u < MT; ++u)
      #pragma unroll
      for (int t = 0; t < NT; ++t)
        mmaF64(acc[u][t], fa[u], fb[t]);
  };
  static_assert(BK == 16, "two 8-wide chunks a stage");
  real fa0[MT][4], fb0[NT][2], fa1[MT][4], fb1[NT][2];
  if (steps > 0) {
    mbarWait(fullBars, 0);
    __syncwarp();
    readChunk(0, 0, fa0, fb0);
  }
  for (int s = 0; s < steps; ++s) {
    const int stage = s % STAGES;
${producerRefill(p)}
    readChunk(s, 8, fa1, fb1);
    multiply(fa0, fb0);
    if (s + 1 < steps) {
      mbarWait(fullBars + 8 * ((s + 1) % STAGES), ((s + 1) / STAGES) & 1);
      __syncwarp();                                        // mma.sync.aligned: the whole warp, converged
      readChunk(s + 1, 0, fa0, fb0);
    }
    multiply(fa1, fb1);
    // Every lane's reads of the stage fed an mma above: the warp releases the buffer.
    __syncwarp();
    if (lane == 0) mbarArrive(emptyBars + 8 * stage);
  }`;
}

/** One block per tile: the produce step, the producer (a warp or thread 0), the consumers' k-steps and the epilogue. */
function tileSchedule(p: TmaGemmParams): string {
  return `  // k-step s into buffer s % STAGES: the producer's arrival announces the bytes, the copies bring them.
  auto produce = [&](int s) {
    const int stage = s % STAGES;
    const unsigned full = fullBars + 8 * stage;
    mbarExpectBytes(full, STAGE_BYTES);
    const unsigned dstA = ring + stage * STAGE_BYTES, dstB = dstA + SIZEA * 8;
    const int p0 = s * BK;
${copies(p, 'A')}
${copies(p, 'B')}
  };
${p.producerWarp === true ? PRODUCER_WARP : PRODUCER_FIRST}

  // Consumers.
  const int g = lane / 4, q = lane % 4;                    // fragment coordinates
  const int pg = (g >> 1) | ((g & 1) << 2);                // stored row of mma row g (k-contiguous tiles)
  const int wi = (warp % WM) * (BM / WM);                  // the warp's part of the tile
  const int wj = (warp / WM) * (BN / WN);
  (void)pg;
  real acc[MT][NT][4];
  #pragma unroll
  for (int u = 0; u < MT; ++u)
    #pragma unroll
    for (int t = 0; t < NT; ++t)
      #pragma unroll
      for (int r = 0; r < 4; ++r) acc[u][t][r] = 0;

${p.pipelined === true ? pipelinedSteps(p) : plainSteps(p)}

${epilogue(p)}
}
`;
}

export function generateTmaGemm(p: TmaGemmParams): KernelSource {
  validateTmaParams(p);
  const entry = tmaGemmEntry(p);
  const { threads } = tmaGemmShape(p);
  const source = `// Batched DGEMM on FP64 tensor cores fed by TMA (sm_90): C = alpha op(A) op(B) + beta C,
// op(A) ${p.transA}, op(B) ${p.transB}; runtime m, n, k. Generated by src/cuda/kernels/gemm/generate-tma.ts.
${precisionPrelude('float64')}
${TMA_HELPERS}
${tmaMmaHelpers(mmaK(p))}
extern "C" __global__ void __launch_bounds__(${threads}, 1) ${entry}(
    const __grid_constant__ TmaMap mapA, const __grid_constant__ TmaMap mapB,
    real* __restrict__ C, long long offsetC, long long strideC, int ldC,
    int count, real alpha, real beta, int m, int n, int k)
{
  constexpr int BM = ${p.bm}, BN = ${p.bn}, BK = ${TMA_BK};   // tile of C, depth of one k-step
  constexpr int WM = ${p.wm}, WN = ${p.wn};                 // consumer warps along m and n
  constexpr int CONSUMERS = WM * WN;                        // mma warps${p.producerWarp === true ? ' (the producer: warp CONSUMERS)' : ''}
  constexpr int MT = BM / WM / 16, NT = BN / WN / 8;       // m16 and n8 mma tiles per warp
  constexpr int STAGES = ${p.stages};
  constexpr int SIZEA = BM * BK, SIZEB = BN * BK;          // doubles per stage
  constexpr unsigned STAGE_BYTES = (SIZEA + SIZEB) * 8;
  static_assert(32 * (CONSUMERS + ${p.producerWarp === true ? 1 : 0}) == ${threads}, "thread count");
  static_assert(STAGE_BYTES % 1024 == 0, "stages stay 1024-byte aligned (the 128-byte swizzle's period)");
  ${p.betaZero ? '(void)beta;' : ''}
  ${p.persistent === true ? PERSISTENT_OPENING : tileOpening(p)}

  // The ring from the first 1024-byte boundary of the window, then the full and empty barriers.
  extern __shared__ __align__(16) unsigned char smem[];
  const unsigned window = sharedAddress(smem);
  const unsigned ring = (window + 1023u) & ~1023u;
  const real* tiles = reinterpret_cast<const real*>(smem + (ring - window));
  const unsigned fullBars = ring + STAGES * STAGE_BYTES, emptyBars = fullBars + 8 * STAGES;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    #pragma unroll
    for (int s = 0; s < STAGES; ++s) {
      mbarInit(fullBars + 8 * s, 1);                       // the producer's arrival (+ the bytes)
      mbarInit(emptyBars + 8 * s, CONSUMERS);              // one arrival per consumer warp
    }
    fenceBarrierInit();
  }
  __syncthreads();
  const int steps = (k + BK - 1) / BK;
${p.persistent === true ? persistentSchedule(p, { copies: `${copies(p, 'A')}\n${copies(p, 'B')}`, multiply: tmaMultiply(mmaK(p), fragmentReads(p)), epilogue: epilogue(p) }) : tileSchedule(p)}`;
  return { name: `${entry}.cu`, source, entry };
}
