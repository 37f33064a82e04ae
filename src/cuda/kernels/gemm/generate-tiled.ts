/**
 * The tiled batched GEMM kernel for medium and larger sizes (the paper's "shared memory based
 * approach", i.e. MAGMA's batched GEMM, section 4.2): each block computes one bm x bn tile of
 * one C; the grid is (tiles, batch) with the batch spread over grid y and z (each at most 65535).
 * - op(A) and op(B) tiles of depth bk are staged in shared memory, k-major (op(A)(i, p) at
 *   p * LDSA + i, op(B)(p, j) at p * LDSB + j), whatever the transposes;
 * - global loads are 16-byte vectors (float4 / double2) along each operand's contiguous
 *   dimension where the operand is aligned (scalar, guarded loads at the edges and otherwise);
 *   an operand contiguous along k (A^T, B) is transposed on its way into shared memory, its rows
 *   padded to 4 mod 8 words so that a warp's scattered stores spread over the banks;
 * - prefetching (double buffering): the next tiles are fetched into registers while the current
 *   ones are multiplied, then stored into the other shared buffer: one barrier per k-step;
 * - register blocking with 16-byte shared loads: each thread accumulates tm x tn elements of C,
 *   in groups of V = 16 / sizeof(real) consecutive rows (columns), rows tx V + ii V TX + u and
 *   columns ty V + jj V TY + w; a quarter-warp reads 8 consecutive vectors of op(A) (no bank
 *   conflicts) and one vector of op(B) (a broadcast), so one LDS.128 feeds V x tn FMAs;
 * - m, n, k are runtime arguments: one compile serves every size; edges are guarded.
 */
import type { KernelSource } from '../../runtime/types.js';
import { operandParameters } from '../common/batch-pointer.js';
import { byPrecision, dtypeInfo } from '../../../core/dtype-table.js';
import { noPrefetchTag, prefetchCTile, prefetchesC } from './prefetch-c.js';
import { elementType, gemmElementBytes, gemmLetter, gemmPrelude, multiplyAdd, opLetters, scalarParameters, scalarSetup, updateElement, zeroElement } from './element.js';
import { layoutTag } from './generate-small.js';
import { kAt, kSteps, tileBlockPrologue, TRIANGULAR_K_RANGE, triangleGuard, triangleTag, triangularTag, triangularWalkFrame, type KernelFrame } from './tile-prologue.js';
import type { GemmKernelShape, TiledGemmParams, TriangularOperand } from './params.js';

interface TiledLayout {
  /** Row lengths (elements) of the k-major shared tiles. */
  ldsA: number;
  ldsB: number;
}

/** Elements per 16-byte vector. */
const vectorWidth = (p: TiledGemmParams): number => 16 / gemmElementBytes(p);

function sharedLayout(p: TiledGemmParams): TiledLayout {
  // Transposing stores: pad by one vector (4 mod 8 words for float32 tiles of 8k elements).
  const v = vectorWidth(p);
  return { ldsA: p.bm + (p.transA === 'T' ? v : 0), ldsB: p.bn + (p.transB === 'N' ? v : 0) };
}

export function tiledGemmShape(p: TiledGemmParams): GemmKernelShape {
  const l = sharedLayout(p);
  return {
    threads: (p.bm / p.tm) * (p.bn / p.tn),
    sharedBytes: 2 * p.bk * (l.ldsA + l.ldsB) * gemmElementBytes(p),
  };
}

function tiledGemmEntry(p: TiledGemmParams): string {
  const ops = opLetters(p);
  return `gemm_tiled_${gemmLetter(p)}${ops.a}${ops.b}_${p.bm}x${p.bn}x${p.bk}`
    + `_t${p.tm}x${p.tn}${noPrefetchTag(p)}_${layoutTag(p.layouts)}${p.betaZero ? '_b0' : ''}${triangleTag(p.triangle)}${triangularTag(p.triangularA)}`;
}

function validateTiledParams(p: TiledGemmParams): void {
  const bad = (why: string): never => { throw new Error(`invalid tiled gemm params (${why}): ${JSON.stringify(p)}`); };
  const pos = (x: number): boolean => Number.isInteger(x) && x >= 1;
  if (![p.bm, p.bn, p.bk, p.tm, p.tn].every(pos)) bad('block sizes must be positive integers');
  if (p.bm % p.tm !== 0 || p.bn % p.tn !== 0) bad('tm must divide bm and tn must divide bn');
  const v = vectorWidth(p);
  if (p.tm % v !== 0 || p.tn % v !== 0 || p.bk % v !== 0) bad(`tm, tn and bk must be multiples of ${v} (16-byte vectors)`);
  const { threads } = tiledGemmShape(p);
  if (threads > 1024) bad('more than 1024 threads');
  if (p.layouts.a.dense || p.layouts.b.dense || p.layouts.c.dense) {
    // Dense only changes the small kernel's loads; the tiled kernel ignores it, so it must be off
    // to keep one source per distinct kernel.
    bad('dense layouts are not used by the tiled kernel');
  }
  if (p.triangularA !== undefined) {
    if (p.complex !== undefined || p.triangle !== undefined) bad('a triangular op(A) takes real data and a whole C');
    if (!p.betaZero) bad('a triangular op(A) overwrites B in place: beta = 0');
    if (p.bm % p.bk !== 0) bad('a triangular op(A) needs bk to divide bm (k-steps end at the tile\'s diagonal)');
    if (p.transB !== 'N') bad('a triangular op(A) multiplies B as stored (transB N)');
  }
}

/** One operand's tile fetch: vector e covers stored rows V r4 .. V r4 + V - 1 of stored column c. */
interface Fetch {
  readonly name: 'A' | 'B';
  /** Vectors per stored column; vectors per tile. */
  readonly rowsV: string;
  readonly total: string;
  /** Global element (x, y) is ptr[x + y * ld]; x runs along the contiguous dimension. */
  readonly x0: string;
  readonly y0: string;
  readonly xLimit: string;
  readonly yLimit: string;
  /** Stored along k (transposed into the k-major tile) or along m / n (copied as is). */
  readonly alongK: boolean;
  /** Shared row length. */
  readonly lds: string;
}

function fetchOf(name: 'A' | 'B', alongK: boolean): Fetch {
  const isA = name === 'A';
  const mn = isA ? 'BM' : 'BN';
  return alongK
    ? { name, rowsV: 'BK / V', total: `${mn} * BK / V`, x0: 'p0', y0: isA ? 'i0' : 'j0', xLimit: 'k', yLimit: isA ? 'm' : 'n', alongK, lds: `LDS${name}` }
    : { name, rowsV: `${mn} / V`, total: `${mn} * BK / V`, x0: isA ? 'i0' : 'j0', y0: 'p0', xLimit: isA ? 'm' : 'n', yLimit: 'k', alongK, lds: `LDS${name}` };
}

/** Global -> registers r<name>[l] (vectors; zeros outside the matrix). `E`: the element type, `zero` its zero. */
function fetchCode(f: Fetch, E: string, zero: string): string {
  const X = f.name;
  const ptr = X.toLowerCase();
  return `    #pragma unroll
    for (int l = 0; l < L${X}; ++l) {
      const int e = t + l * THREADS;
      if ((${f.total}) % THREADS == 0 || e < ${f.total}) {
        const int r4 = e % (${f.rowsV}), c = e / (${f.rowsV});
        const int x = ${f.x0} + V * r4, y = ${f.y0} + c;
        const ${E}* src = ${ptr} + x + (long long)y * ld${X};
        if (vec${X} && y < ${f.yLimit} && x + V <= ${f.xLimit}) {
          r${X}[l] = *reinterpret_cast<const vec*>(src);
        } else {
          #pragma unroll
          for (int u = 0; u < V; ++u) setComp(r${X}[l], u, (y < ${f.yLimit} && x + u < ${f.xLimit}) ? src[u] : ${zero});
        }
      }
    }`;
}

/** Registers -> shared buffer t<name> (k-major). */
function stashCode(f: Fetch): string {
  const X = f.name;
  const store = f.alongK
    ? `#pragma unroll
        for (int u = 0; u < V; ++u) t${X}[(V * r4 + u) * ${f.lds} + c] = comp(r${X}[l], u);`
    : `*reinterpret_cast<vec*>(&t${X}[c * ${f.lds} + V * r4]) = r${X}[l];`;
  return `    #pragma unroll
    for (int l = 0; l < L${X}; ++l) {
      const int e = t + l * THREADS;
      if ((${f.total}) % THREADS == 0 || e < ${f.total}) {
        const int r4 = e % (${f.rowsV}), c = e / (${f.rowsV});
        ${store}
      }
    }`;
}

/**
 * Blocks per SM the compiler must allow: float32 kernels are held to 128 registers a thread
 * (64 K registers over threads x 128), so a 256-thread block of 8 x 8 accumulators keeps two
 * blocks per SM whatever the transposes (NT and TT compiled to 129 and 139 registers uncapped,
 * one block per SM, 25% slower). float64 accumulators take twice the registers: no cap.
 */
function minBlocks(p: TiledGemmParams): number {
  // Complex accumulators are pairs: their registers are left to ptxas, as float64's are.
  if (p.complex !== undefined) return 1;
  // Smaller blocks keep their registers (a 64-thread 8 x 8 block spills under a 128 cap).
  return byPrecision(p.dtype, { double: false, single: true }) && tiledGemmShape(p).threads >= 256 ? Math.max(1, Math.floor(65536 / (tiledGemmShape(p).threads * 128))) : 1;
}

/** Pure: the same parameters always give the same source. */
export function generateTiledGemm(p: TiledGemmParams): KernelSource {
  const E = elementType(p);
  if (p.triangularA !== undefined) return tiledGemmSource(p, triangularWalkFrame(tiledGemmEntry(p), p.layouts, p.triangularA));
  return tiledGemmSource(p, {
    entry: tiledGemmEntry(p),
    parameters: `${operandParameters('A', p.layouts.a.kind, false, E)},
    ${operandParameters('B', p.layouts.b.kind, false, E)},
    ${operandParameters('C', p.layouts.c.kind, true, E)},
    int count, ${scalarParameters(p)}, int m, int n, int k`,
    unused: '(void)strideA; (void)strideB; (void)strideC;',
    prologue: tileBlockPrologue(p.layouts, p.triangle, undefined, E),
  });
}

/**
 * A k-step of a triangular op(A) (C = B in place, the tile walk of tile-prologue.ts): the steps in
 * the tile's diagonal block (rows p0 ... p0 + BK - 1 of B, block-uniform) take op(A)(i, p) B(p, j)
 * only for the p the triangle holds, by a select, not a zero in A's stage: A's memory outside the
 * triangle is never used, and a zero times an infinite or NaN element of B would spread it to rows
 * the reference's loops never reach. The other steps are the plain product.
 */
function triangularStep(tri: TriangularOperand, products: (indent: string, guard?: (f: string) => string) => string): string {
  const p0 = kAt(TRIANGULAR_K_RANGE, 's');
  const guard = (f: string): string => `const int i = i0 + V * tx + (${f} / V) * V * TX + ${f} % V, p = ${p0} + q;
          const bool in = ${tri.lower ? 'p <= i' : 'p >= i'};
          const real av = ${tri.unit ? `p == i ? real(1) : fa[${f}]` : `fa[${f}]`};`;
  return `    if (${tri.lower ? `${p0} + BK > i0` : `${p0} < i0 + BM`}) {     // the tile's diagonal block
${products('  ', guard)}
    } else {
${products('  ')}
    }`;
}

/** The tiled kernel inside a frame (the uniform one above, or a variable batch's class kernel). */
export function tiledGemmSource(p: TiledGemmParams, frame: KernelFrame): KernelSource {
  validateTiledParams(p);
  const l = sharedLayout(p);
  const { threads } = tiledGemmShape(p);
  const entry = frame.entry;
  const v = vectorWidth(p);
  const E = elementType(p);
  const ops = opLetters(p);
  const zero = p.complex === undefined ? 'real(0)' : zeroElement(p);
  const fetchA = fetchOf('A', p.transA === 'T');
  const fetchB = fetchOf('B', p.transB === 'N');
  const update = (x: string, at: string): string => updateElement(p, x, at);
  const tri = p.triangularA;
  // The k range: the whole of k, or a triangular op(A)'s tile range (the frame's kFirst, kEnd).
  const range = tri === undefined ? undefined : TRIANGULAR_K_RANGE;
  // One k-step's products of the staged tiles. With a guard, each accumulator row f (row V tx + (f / V) V TX + f % V
  // of the tile) takes its term only where the guard's 'in' holds, with the factor 'av' it defines.
  const stepProducts = (indent: string, guard?: (f: string) => string): string => `${indent}    #pragma unroll
${indent}    for (int q = 0; q < BK; ++q) {
${indent}      ${E} fa[TM], fb[TN];
${indent}      #pragma unroll
${indent}      for (int ii = 0; ii < TM / V; ++ii) {
${indent}        const vec x = *reinterpret_cast<const vec*>(&tA[q * LDSA + ii * V * TX]);
${indent}        #pragma unroll
${indent}        for (int u = 0; u < V; ++u) fa[ii * V + u] = comp(x, u);
${indent}      }
${indent}      #pragma unroll
${indent}      for (int jj = 0; jj < TN / V; ++jj) {
${indent}        const vec x = *reinterpret_cast<const vec*>(&tB[q * LDSB + jj * V * TY]);
${indent}        #pragma unroll
${indent}        for (int u = 0; u < V; ++u) fb[jj * V + u] = comp(x, u);
${indent}      }
${indent}      #pragma unroll
${indent}      for (int ii = 0; ii < TM; ++ii)${guard === undefined ? '' : ` {
${indent}        ${guard('ii')}`}
${indent}        #pragma unroll
${indent}        for (int jj = 0; jj < TN; ++jj) acc[ii][jj] = ${guard === undefined ? multiplyAdd(p, 'fa[ii]', 'fb[jj]', 'acc[ii][jj]') : `in ? ${multiplyAdd(p, 'av', 'fb[jj]', 'acc[ii][jj]')} : acc[ii][jj]`};${guard === undefined ? '' : `
${indent}      }`}
${indent}    }`;
  // A 16-byte vector: of V reals (the built-in double2 / float4), or of V complex pairs.
  const vector = p.complex === undefined
    ? `typedef ${dtypeInfo(p.dtype).cuda.vector.type} vec;
// Component u of a vector (u a constant after unrolling: the vector stays in registers).
static __device__ __forceinline__ real comp(const vec& v, int u) { ${v === 4 ? 'return u == 0 ? v.x : u == 1 ? v.y : u == 2 ? v.z : v.w;' : 'return u == 0 ? v.x : v.y;'} }
static __device__ __forceinline__ void setComp(vec& v, int u, real x) { ${v === 4 ? 'if (u == 0) v.x = x; else if (u == 1) v.y = x; else if (u == 2) v.z = x; else v.w = x;' : 'if (u == 0) v.x = x; else v.y = x;'} }`
    : `struct __align__(16) vec { real2 e[${v}]; };
// Element u of a vector (u a constant after unrolling: the vector stays in registers).
static __device__ __forceinline__ real2 comp(const vec& v, int u) { return v.e[u]; }
static __device__ __forceinline__ void setComp(vec& v, int u, real2 x) { v.e[u] = x; }`;

  const source = `// Tiled batched GEMM: C = alpha op(A) op(B) + beta C, op(A) ${ops.a}, op(B) ${ops.b}; runtime m, n, k.
// Generated by src/cuda/kernels/gemm/generate-tiled.ts.
${gemmPrelude(p)}
${vector}

extern "C" __global__ void __launch_bounds__(${threads}, ${minBlocks(p)}) ${entry}(
    ${frame.parameters})
{
  constexpr int BM = ${p.bm}, BN = ${p.bn}, BK = ${p.bk};   // tile of C, depth of one k-step
  constexpr int TM = ${p.tm}, TN = ${p.tn};                 // register block per thread
  constexpr int V = ${v};                                   // elements per 16-byte vector
  constexpr int TX = BM / TM, TY = BN / TN, THREADS = TX * TY;
  constexpr int LDSA = ${l.ldsA}, LDSB = ${l.ldsB};         // op(A)(i, p) at p * LDSA + i; op(B)(p, j) at p * LDSB + j
  constexpr int LA = (BM * BK / V + THREADS - 1) / THREADS; // vectors each thread fetches
  constexpr int LB = (BK * BN / V + THREADS - 1) / THREADS;
  static_assert(THREADS == ${threads}, "thread count");
  extern __shared__ __align__(16) unsigned char smem[];
  ${E}* sA = reinterpret_cast<${E}*>(smem);                 // 2 buffers of BK x LDSA
  ${E}* sB = sA + 2 * BK * LDSA;                            // 2 buffers of BK x LDSB
  ${frame.unused}
  ${scalarSetup(p)}${p.betaZero ? '(void)beta;' : ''}

  ${frame.prologue}
  // Vector loads need aligned vectors: an aligned first element and ld a multiple of V.
  const bool vecA = ((reinterpret_cast<unsigned long long>(a) & 15) == 0) && (ldA % V == 0);
  const bool vecB = ((reinterpret_cast<unsigned long long>(b) & 15) == 0) && (ldB % V == 0);
  const int t = threadIdx.x;
  const int tx = t % TX, ty = t / TX;

  vec rA[LA], rB[LB];
  // Global -> registers: the op(A) and op(B) tiles of k-step p0 (zeros outside the matrices).
  auto fetch = [&](int p0) {
${fetchCode(fetchA, E, zero)}
${fetchCode(fetchB, E, zero)}
  };
  // Registers -> shared buffer 'buf'.
  auto stash = [&](int buf) {
    ${E}* tA = sA + buf * BK * LDSA;
    ${E}* tB = sB + buf * BK * LDSB;
${stashCode(fetchA)}
${stashCode(fetchB)}
  };

  ${E} acc[TM][TN];
  #pragma unroll
  for (int ii = 0; ii < TM; ++ii)
    #pragma unroll
    for (int jj = 0; jj < TN; ++jj) acc[ii][jj] = ${zeroElement(p)};
${prefetchesC(p) ? prefetchCTile(gemmElementBytes(p)) : ''}
  ${kSteps(range)}
  if (steps > 0) {
    fetch(${range?.first ?? '0'});
    stash(0);
    __syncthreads();
  }
  for (int s = 0; s < steps; ++s) {
    const int buf = s & 1;
    if (s + 1 < steps) fetch(${kAt(range, '(s + 1)')});   // in flight while this step computes
    const ${E}* tA = sA + buf * BK * LDSA + V * tx;
    const ${E}* tB = sB + buf * BK * LDSB + V * ty;
${tri === undefined ? stepProducts('') : triangularStep(tri, stepProducts)}
    if (s + 1 < steps) stash(buf ^ 1);        // the other buffer: last read before the previous barrier
    __syncthreads();
  }

  // Each thread's V consecutive rows of a column are one vector store where aligned and inside.
  const bool vecC = ((reinterpret_cast<unsigned long long>(c) & 15) == 0) && (ldC % V == 0);
  #pragma unroll
  for (int jj = 0; jj < TN; ++jj) {
    const int j = j0 + V * ty + (jj / V) * V * TY + jj % V;
    #pragma unroll
    for (int ii = 0; ii < TM / V; ++ii) {
      const int i = i0 + V * tx + ii * V * TX;
      if (j < n && i < m) {
        ${E}* cij = c + i + (long long)j * ldC;
        if (vecC && i + V <= m${triangleGuard(p.triangle, p.triangle === 'upper' ? 'i + V - 1' : 'i', 'j')}) {
          vec x;
          ${p.betaZero ? '' : 'const vec old = *reinterpret_cast<const vec*>(cij);'}
          #pragma unroll
          for (int u = 0; u < V; ++u) setComp(x, u, ${update('acc[ii * V + u][jj]', 'comp(old, u)')});
          *reinterpret_cast<vec*>(cij) = x;
        } else {
          #pragma unroll
          for (int u = 0; u < V; ++u)
            if (i + u < m${triangleGuard(p.triangle, 'i + u', 'j')}) cij[u] = ${update('acc[ii * V + u][jj]', 'cij[u]')};
        }
      }
    }
  }${frame.close ?? ''}
}
`;
  return { name: `${entry}.cu`, source, entry };
}
