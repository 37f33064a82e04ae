/**
 * The tiled batched GEMM on FP64 tensor cores (DMMA, sm_80+): the same block structure as
 * generate-tiled.ts (one bm x bn tile of one C per block, grid (tiles, batch), k-steps of bk
 * staged in shared memory with register prefetch and two buffers), but each warp multiplies its
 * (bm / wm) x (bn / wn) part with `mma.sync.m8n8k4.f64` instead of scalar DFMA: on Hopper the
 * tensor cores give twice the FP64 rate of the CUDA cores (67 vs 34 TFLOP/s).
 *
 * Fragments (PTX ISA, "Matrix Fragments for mma.m8n8k4 with .f64"): with g = lane / 4 and
 * q = lane % 4, a thread holds A(g, q) of the 8 x 4 A tile, B(q, g) of the 4 x 8 B tile, and
 * C(g, 2q) and C(g, 2q + 1) of the 8 x 8 accumulator.
 *
 * Shared layouts follow global memory: an operand whose columns run along k in global memory
 * (A^T, B) is stored k-contiguous, otherwise m- (or n-) contiguous; so stores are contiguous, and
 * with a row length of 4 mod 16 doubles the 16 threads of each half-warp read a fragment from 16
 * distinct banks.
 */
import type { KernelSource } from '../../runtime/types.js';
import { matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { precisionPrelude } from '../common/precision.js';
import { layoutTag } from './generate-small.js';
import type { GemmKernelShape, MmaGemmParams } from './params.js';
import { registerFetch, type TileFetch } from '../common/register-fetch.js';

/** Row length (in doubles) of a shared tile whose rows are `len` long: 4 mod 16 (see above). */
const rowLength = (len: number): number => len + ((4 - (len % 16) + 16) % 16);

interface MmaLayout {
  /** A: 'k' = stored sA[i][p] (p contiguous, A^T in global), 'm' = sA[p][i]. */
  aMajor: 'm' | 'k';
  /** B: 'k' = stored sB[j][p] (p contiguous, B in global), 'n' = sB[p][j]. */
  bMajor: 'n' | 'k';
  ldsA: number;
  ldsB: number;
  /** Doubles per buffer. */
  sizeA: number;
  sizeB: number;
}

function sharedLayout(p: MmaGemmParams): MmaLayout {
  const aMajor = p.transA === 'N' ? 'm' : 'k';
  const bMajor = p.transB === 'N' ? 'k' : 'n';
  const ldsA = rowLength(aMajor === 'm' ? p.bm : p.bk);
  const ldsB = rowLength(bMajor === 'n' ? p.bn : p.bk);
  return {
    aMajor, bMajor, ldsA, ldsB,
    sizeA: (aMajor === 'm' ? p.bk : p.bm) * ldsA,
    sizeB: (bMajor === 'n' ? p.bk : p.bn) * ldsB,
  };
}

export function mmaGemmShape(p: MmaGemmParams): GemmKernelShape {
  const l = sharedLayout(p);
  return { threads: 32 * p.wm * p.wn, sharedBytes: Math.max(2, p.stages) * (l.sizeA + l.sizeB) * 8 };
}

export function mmaGemmEntry(p: MmaGemmParams): string {
  return `gemm_mma_d${p.transA}${p.transB}_${p.bm}x${p.bn}x${p.bk}_w${p.wm}x${p.wn}_s${p.stages}_${layoutTag(p.layouts)}${p.betaZero ? '_b0' : ''}`;
}

export function validateMmaParams(p: MmaGemmParams): void {
  const bad = (why: string): never => { throw new Error(`invalid mma gemm params (${why}): ${JSON.stringify(p)}`); };
  if (p.dtype !== 'float64') bad('the mma kernel is float64 only');
  if (![p.bm, p.bn, p.bk, p.wm, p.wn].every((x) => Number.isInteger(x) && x >= 1)) bad('sizes must be positive integers');
  if (p.bm % (8 * p.wm) !== 0 || p.bn % (8 * p.wn) !== 0) bad('each warp tile must be a multiple of 8 x 8');
  if (p.bk % 4 !== 0) bad('bk must be a multiple of 4');
  if (!Number.isInteger(p.stages) || p.stages < 0 || p.stages === 1 || p.stages > 6) bad('stages must be 0 (register prefetch) or 2..6 (cp.async)');
  const { threads } = mmaGemmShape(p);
  if (threads > 1024) bad('more than 1024 threads');
  if ((p.bm * p.bk) % threads !== 0 || (p.bk * p.bn) % threads !== 0) bad('the threads must evenly share each tile load');
  if (p.layouts.a.dense || p.layouts.b.dense || p.layouts.c.dense) bad('dense layouts are not used by the mma kernel');
}

/** Pure: the same parameters always give the same source. */
export function generateMmaGemm(p: MmaGemmParams): KernelSource {
  validateMmaParams(p);
  const l = sharedLayout(p);
  const { threads } = mmaGemmShape(p);
  const entry = mmaGemmEntry(p);
  // Element e of a tile fetch: its stored (row r, column c), the global read, and the shared slot.
  const fetchA = p.transA === 'N'
    ? { r: 'e % BM', c: 'e / BM', ok: '(i0 + r < m && p0 + c < k)', at: 'a[(i0 + r) + (long long)(p0 + c) * ldA]', s: 'c * LDSA + r' }
    : { r: 'e % BK', c: 'e / BK', ok: '(p0 + r < k && i0 + c < m)', at: 'a[(p0 + r) + (long long)(i0 + c) * ldA]', s: 'c * LDSA + r' };
  const fetchB = p.transB === 'N'
    ? { r: 'e % BK', c: 'e / BK', ok: '(p0 + r < k && j0 + c < n)', at: 'b[(p0 + r) + (long long)(j0 + c) * ldB]', s: 'c * LDSB + r' }
    : { r: 'e % BN', c: 'e / BN', ok: '(j0 + r < n && p0 + c < k)', at: 'b[(j0 + r) + (long long)(p0 + c) * ldB]', s: 'c * LDSB + r' };
  // Fragment reads: op(A)(i, p) and op(B)(p, j) in the shared tiles.
  const fragA = l.aMajor === 'm' ? '(kk + q) * LDSA + wi + mt * 8 + g' : '(wi + mt * 8 + g) * LDSA + kk + q';
  const fragB = l.bMajor === 'n' ? '(kk + q) * LDSB + wj + nt * 8 + g' : '(wj + nt * 8 + g) * LDSB + kk + q';
  const multiply = MULTIPLY(fragA, fragB);
  const pipeline = p.stages >= 2 ? asyncPipeline(fetchA, fetchB, multiply) : registerPipeline(fetchA, fetchB, multiply);

  const source = `// Tiled batched DGEMM on FP64 tensor cores (mma.sync m8n8k4): C = alpha op(A) op(B) + beta C,
// op(A) ${p.transA}, op(B) ${p.transB}; runtime m, n, k. Generated by src/cuda/kernels/gemm/generate-mma.ts.
${precisionPrelude('float64')}
${p.stages >= 2 ? ASYNC_HELPERS : ''}

extern "C" __global__ void __launch_bounds__(${threads}) ${entry}(
    ${operandParameters('A', p.layouts.a.kind, false)},
    ${operandParameters('B', p.layouts.b.kind, false)},
    ${operandParameters('C', p.layouts.c.kind, true)},
    int count, real alpha, real beta, int m, int n, int k)
{
  constexpr int BM = ${p.bm}, BN = ${p.bn}, BK = ${p.bk};  // tile of C, depth of one k-step
  constexpr int WM = ${p.wm}, WN = ${p.wn};                // warps along m and n
  constexpr int MT = BM / WM / 8, NT = BN / WN / 8;       // 8 x 8 mma tiles per warp
  constexpr int THREADS = 32 * WM * WN;
  constexpr int LDSA = ${l.ldsA}, LDSB = ${l.ldsB};
  constexpr int SIZEA = ${l.sizeA}, SIZEB = ${l.sizeB};   // doubles per buffer
  constexpr int LA = BM * BK / THREADS, LB = BK * BN / THREADS;
  static_assert(THREADS == ${threads}, "thread count");
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr int STAGES = ${Math.max(2, p.stages)};          // shared buffers
  real* sA = reinterpret_cast<real*>(smem);                // STAGES buffers of SIZEA
  real* sB = sA + STAGES * SIZEA;                          // STAGES buffers of SIZEB
  (void)strideA; (void)strideB; (void)strideC;
  ${p.betaZero ? '(void)beta;' : ''}

  const int batch = blockIdx.z * gridDim.y + blockIdx.y;
  if (batch >= count) return;
  const int tilesM = (m + BM - 1) / BM;
  const int i0 = (blockIdx.x % tilesM) * BM;
  const int j0 = (blockIdx.x / tilesM) * BN;
  const real* a = ${matrixPointer('A', p.layouts.a.kind, 'batch')};
  const real* b = ${matrixPointer('B', p.layouts.b.kind, 'batch')};
  real* c = ${matrixPointer('C', p.layouts.c.kind, 'batch')};
  const int t = threadIdx.x;
  const int lane = t % 32, warp = t / 32;
  const int g = lane / 4, q = lane % 4;                    // fragment coordinates
  const int wi = (warp % WM) * (BM / WM);                  // the warp's part of the tile
  const int wj = (warp / WM) * (BN / WN);

${pipeline.setup}
  real acc[MT][NT][2];
  #pragma unroll
  for (int mt = 0; mt < MT; ++mt)
    #pragma unroll
    for (int nt = 0; nt < NT; ++nt) acc[mt][nt][0] = acc[mt][nt][1] = 0;

${pipeline.loop}
  #pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
    const int i = i0 + wi + mt * 8 + g;
    #pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
      #pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int j = j0 + wj + nt * 8 + 2 * q + h;
        if (i < m && j < n) {
          real* cij = c + i + (long long)j * ldC;
          *cij = ${p.betaZero ? 'alpha * acc[mt][nt][h]' : 'alpha * acc[mt][nt][h] + beta * *cij'};
        }
      }
    }
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}



/** The k-loop's multiply of one shared buffer (tA, tB in scope). */
const MULTIPLY = (fragA: string, fragB: string): string => `    #pragma unroll
    for (int kk = 0; kk < BK; kk += 4) {
      real fa[MT], fb[NT];
      #pragma unroll
      for (int mt = 0; mt < MT; ++mt) fa[mt] = tA[${fragA}];
      #pragma unroll
      for (int nt = 0; nt < NT; ++nt) fb[nt] = tB[${fragB}];
      #pragma unroll
      for (int mt = 0; mt < MT; ++mt)
        #pragma unroll
        for (int nt = 0; nt < NT; ++nt)
          asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
              : "+d"(acc[mt][nt][0]), "+d"(acc[mt][nt][1]) : "d"(fa[mt]), "d"(fb[nt]));
    }
`;

const ASYNC_HELPERS = `// cp.async (sm_80+): global -> shared without registers; src_bytes = 0 writes zeros.
static __device__ __forceinline__ unsigned sharedAddress(const void* p) {
  unsigned long long a;
  asm("cvta.to.shared.u64 %0, %1;" : "=l"(a) : "l"(p));
  return (unsigned)a;
}
static __device__ __forceinline__ void copyAsync8(real* dst, const real* src, bool ok) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" :: "r"(sharedAddress(dst)), "l"(src), "r"(ok ? 8 : 0));
}
static __device__ __forceinline__ void commitAsync() { asm volatile("cp.async.commit_group;"); }
template <int N> static __device__ __forceinline__ void waitAsync() { asm volatile("cp.async.wait_group %0;" :: "n"(N)); }`;

interface Pipeline { setup: string; loop: string }

/** Prefetch through registers: the next k-step is loaded while this one multiplies; 2 buffers. */
function registerPipeline(fetchA: TileFetch, fetchB: TileFetch, multiply: string): Pipeline {
  return {
    setup: `  real ra[LA], rb[LB];
${registerFetch(fetchA, fetchB)}
  auto stash = [&](int buf) {
    real* tA = sA + buf * SIZEA;
    real* tB = sB + buf * SIZEB;
    #pragma unroll
    for (int l = 0; l < LA; ++l) {
      const int e = t + l * THREADS, r = ${fetchA.r}, c = ${fetchA.c};
      tA[${fetchA.s}] = ra[l];
    }
    #pragma unroll
    for (int l = 0; l < LB; ++l) {
      const int e = t + l * THREADS, r = ${fetchB.r}, c = ${fetchB.c};
      tB[${fetchB.s}] = rb[l];
    }
  };

`,
    loop: `  const int steps = (k + BK - 1) / BK;
  if (steps > 0) {
    fetch(0);
    stash(0);
    __syncthreads();
  }
  for (int s = 0; s < steps; ++s) {
    const int buf = s & 1;
    if (s + 1 < steps) fetch((s + 1) * BK);
    const real* tA = sA + buf * SIZEA;
    const real* tB = sB + buf * SIZEB;
${multiply}    if (s + 1 < steps) stash(buf ^ 1);
    __syncthreads();
  }

`,
  };
}

/**
 * Multi-stage cp.async pipeline (STAGES buffers): up to STAGES - 1 k-steps are in flight while
 * one multiplies, with no registers held for them, so occupancy and latency hiding both improve.
 * The shared layouts mirror global memory (see above), so each element is one 8-byte copy.
 */
function asyncPipeline(fetchA: TileFetch, fetchB: TileFetch, multiply: string): Pipeline {
  return {
    setup: `// Start the copies of k-step p0 into buffer 'buf' (zeros outside the matrices).
  auto issue = [&](int p0, int buf) {
    real* tA = sA + buf * SIZEA;
    real* tB = sB + buf * SIZEB;
    #pragma unroll
    for (int l = 0; l < LA; ++l) {
      const int e = t + l * THREADS, r = ${fetchA.r}, c = ${fetchA.c};
      const bool ok = ${fetchA.ok};
      copyAsync8(&tA[${fetchA.s}], ok ? &${fetchA.at} : a, ok);
    }
    #pragma unroll
    for (int l = 0; l < LB; ++l) {
      const int e = t + l * THREADS, r = ${fetchB.r}, c = ${fetchB.c};
      const bool ok = ${fetchB.ok};
      copyAsync8(&tB[${fetchB.s}], ok ? &${fetchB.at} : b, ok);
    }
  };
`,
    loop: `const int steps = (k + BK - 1) / BK;
  #pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < steps) issue(s * BK, s);
    commitAsync();                            // one group per k-step, empty ones included
  }
  for (int s = 0; s < steps; ++s) {
    waitAsync<STAGES - 2>();                  // k-step s has landed (for this thread)
    __syncthreads();                          // ... for all threads; buffer (s - 1) % STAGES is free
    if (s + STAGES - 1 < steps) issue((s + STAGES - 1) * BK, (s + STAGES - 1) % STAGES);
    commitAsync();
    const real* tA = sA + (s % STAGES) * SIZEA;
    const real* tB = sB + (s % STAGES) * SIZEB;
${multiply}  }
`,
  };
}
