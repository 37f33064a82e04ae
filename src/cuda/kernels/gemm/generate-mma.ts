/**
 * The tiled batched GEMM on FP64 tensor cores (DMMA, sm_80+): one bm x bn tile of one C per
 * block, grid (tiles, batch), k-steps of bk staged in shared memory by a cp.async pipeline of
 * `stages` buffers (16-byte copies where the operand is aligned), and each warp multiplying its
 * (bm / wm) x (bn / wn) part with `mma.sync` f64: on Hopper the tensor cores give twice the FP64
 * rate of the CUDA cores (67 vs 34 TFLOP/s), through the m16n8k8 / m16n8k16 shapes (sm_90); the
 * sm_80 shape m8n8k4 (still available, `mmaK: 4`) measured at about half that on the H100.
 *
 * Fragments (PTX ISA, "Matrix Fragments for mma.m8n8k4 with .f64"): with g = lane / 4 and
 * q = lane % 4, a thread holds A(g, q) of the 8 x 4 A tile, B(q, g) of the 4 x 8 B tile, and
 * C(g, 2q) and C(g, 2q + 1) of the 8 x 8 accumulator.
 *
 * Fragment loads are 16 bytes wide (LDS.128: half the shared-memory instructions of 8-byte
 * loads). The sum over k does not care which k a lane holds, as long as A and B agree, so in each
 * chunk of 8 k the mma of step s (0, 1) gives lane q the k index 2q + s; and the rows of C do not
 * care which 8 x 8 tile computes them, so an operand stored m- (or n-) contiguous gives lane g the
 * rows 2g and 2g + 1 of a 16-row pair of tiles (tile 2u: even rows, tile 2u + 1: odd rows). Hence:
 * - an operand contiguous along k (A^T, B) is stored k-contiguous, one 16-byte load per 8 x 8
 *   tile gives both steps; rows of bk >= 16 doubles are XOR-swizzled (16-byte unit u of row r at
 *   u ^ 4 (r & 1)) so each quarter-warp reads 8 distinct bank groups;
 * - an operand contiguous along m (A) or n (B^T) is stored that way, one 16-byte load per step
 *   gives two tiles; rows are 2 mod 8 doubles long, which makes those reads conflict-free too;
 * - with A m-contiguous, each lane holds rows 2g and 2g + 1 of C: stored as 16-byte pairs.
 * Shared tiles mirror global memory in both cases, so every global -> shared copy is a plain
 * cp.async of 16 (or 2 x 8) bytes; out-of-range elements are zero-filled by the copy itself.
 *
 * Complex data (`complex`, complex128 with op(A) = A; op(B) = B, B^T or B^H): the kernel multiplies
 * the real embedding. Read as doubles, C is a 2m x n real matrix (ld 2 ldC) whose rows 2i and 2i + 1 are
 * Re and Im of C's row i, B a 2k x n one likewise, and C = Â B with Â the 2m x 2k matrix of 2 x 2
 * blocks [[x, -y], [y, x]] for a = x + iy: the same flops as four real products, on the tensor
 * cores. The launcher passes m, k, ld, offsets and strides in doubles (2m, 2k, ...). B and C need
 * nothing else; Â is never stored: A's tile holds A's pairs (BK / 2 complex columns, stored along
 * m), and the lane that holds k index 2p + s takes (x, y) of one load for s = 0 and (-y, x) for
 * s = 1 (lane g holds rows 2g, 2g + 1: one pair). op(B) = B^T or B^H: B's tile holds its pairs along
 * n (BK / 2 stored columns), and the lane that holds k index 2p + s of column j takes Re B(j, p) for
 * s = 0 and Im B(j, p) (negated for B^H) for s = 1 from one load. The epilogue applies complex alpha
 * and beta to each lane's (Re, Im) pair of accumulators.
 */
import type { DType } from '../../../core/dtype.js';
import type { KernelSource } from '../../runtime/types.js';
import { operandParameters } from '../common/batch-pointer.js';
import { precisionPrelude } from '../common/precision.js';
import { layoutTag } from './generate-small.js';
import { noPrefetchTag, prefetchCTile, prefetchesC } from './prefetch-c.js';
import { kAt, kSteps, tileBlockPrologue, TRIANGULAR_K_RANGE, triangleGuard, triangleTag, triangularTag, triangularWalkFrame, type KernelFrame, type KRange } from './tile-prologue.js';
import type { GemmKernelShape, MmaGemmParams, TriangularOperand } from './params.js';

/** Row length (doubles) of an m- or n-contiguous tile: 2 mod 8 (conflict-free 16-byte reads). */
const majorRow = (len: number): number => len + ((2 - (len % 8) + 8) % 8);

interface MmaLayout {
  /** A: 'k' = stored sA[i * BK + p] (p contiguous, A^T in global), 'm' = sA[p * LDSA + i]. */
  aMajor: 'm' | 'k';
  /** B: 'k' = stored sB[j * BK + p] (p contiguous, B in global), 'n' = sB[p * LDSB + j]. */
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
  const ldsA = aMajor === 'm' ? majorRow(p.bm) : p.bk;
  const ldsB = bMajor === 'n' ? majorRow(p.bn) : p.bk;
  // Complex: A's tile holds BK / 2 columns of pairs (the embedding's columns 2p and 2p + 1 come from one).
  const columnsA = p.complex !== undefined ? p.bk / 2 : p.bk;
  if (p.complex !== undefined && bMajor === 'n') {
    // Complex op(B) = B^T or B^H: B's BK / 2 columns of pairs along n, rows of 2 BN + 4 doubles
    // (BN + 2 16-byte units: lanes q = 0..3 of a quarter-warp read four rows, 2q units apart).
    const ldsPairs = 2 * p.bn + 4;
    return { aMajor, bMajor, ldsA, ldsB: ldsPairs, sizeA: (aMajor === 'm' ? columnsA : p.bm) * ldsA, sizeB: (p.bk / 2) * ldsPairs };
  }
  return {
    aMajor, bMajor, ldsA, ldsB,
    sizeA: (aMajor === 'm' ? columnsA : p.bm) * ldsA,
    sizeB: (bMajor === 'n' ? p.bk : p.bn) * ldsB,
  };
}

/** The element type of the design: FP64 tensor cores (DMMA, mma.sync m16n8k8 .f64). */
export const MMA_DTYPE: DType = 'float64';

export function mmaGemmShape(p: MmaGemmParams): GemmKernelShape {
  const l = sharedLayout(p);
  // A triangular op(A) adds a byte an element of C's tile: the non-finite elements of B's diagonal block (triangularFrame).
  const special = p.triangularA === undefined ? 0 : Math.ceil((p.bm * p.bn) / 16) * 16;
  return { threads: 32 * p.wm * p.wn, sharedBytes: p.stages * (l.sizeA + l.sizeB) * 8 + special };
}

function mmaGemmEntry(p: MmaGemmParams): string {
  return `gemm_mma_${p.complex !== undefined ? 'z' : 'd'}${p.transA}${p.transB}_${p.bm}x${p.bn}x${p.bk}_w${p.wm}x${p.wn}_s${p.stages}${p.doubleBuffer === true ? 'd' : ''}${p.minBlocks !== undefined ? `b${p.minBlocks}` : ''}${p.tileGroup !== undefined ? `g${p.tileGroup}` : ''}${noPrefetchTag(p)}_k${mmaK(p)}_${layoutTag(p.layouts)}${p.betaZero ? '_b0' : ''}${triangleTag(p.triangle)}${triangularTag(p.triangularA)}`;
}

const mmaK = (p: MmaGemmParams): 4 | 8 | 16 => p.mmaK ?? 8;

/**
 * Whether the kernel prefetches C's tile (prefetch-c.ts; real data only). On an H200 (C = A B + C,
 * the vendor sweep's counts) it took the 48 x 48 tile at 33 from 0.309 to 0.218 ms and at 48 from
 * 0.129 to 0.117, the 64 x 64 tile at 64 from 0.141 to 0.122, and changed nothing at 256 (0.197, 0.200).
 */
const prefetchesRealC = (p: MmaGemmParams): boolean => prefetchesC(p) && p.complex === undefined;


function validateMmaParams(p: MmaGemmParams): void {
  const bad = (why: string): never => { throw new Error(`invalid mma gemm params (${why}): ${JSON.stringify(p)}`); };
  if (p.dtype !== MMA_DTYPE) bad('the mma kernel is float64 only');
  if (![p.bm, p.bn, p.bk, p.wm, p.wn].every((x) => Number.isInteger(x) && x >= 1)) bad('sizes must be positive integers');
  if (p.bm % (16 * p.wm) !== 0 || p.bn % (16 * p.wn) !== 0) bad('each warp tile must be a multiple of 16 x 16');
  if (p.bk !== 8 && p.bk % 16 !== 0) bad('bk must be 8 or a multiple of 16');
  if (![4, 8, 16].includes(mmaK(p)) || p.bk % mmaK(p) !== 0) bad('mmaK must be 4, 8 or 16 and divide bk');
  if (!Number.isInteger(p.stages) || p.stages < 1 || p.stages > 6) bad('stages must be 1..6 (cp.async buffers)');
  if (p.doubleBuffer === true && p.stages < 2) bad('doubleBuffer needs stages >= 2');
  if (p.tileGroup !== undefined && (!Number.isInteger(p.tileGroup) || p.tileGroup < 1 || p.tileGroup > 1024)) bad('tileGroup must be 1..1024');
  if (p.minBlocks !== undefined && (!Number.isInteger(p.minBlocks) || p.minBlocks < 1 || p.minBlocks > 32)) bad('minBlocks must be 1..32');
  if (p.prefetchC === true && p.complex !== undefined) bad('prefetchC takes real data');
  const { threads, sharedBytes } = mmaGemmShape(p);
  if (threads > 1024) bad('more than 1024 threads');
  if (sharedBytes > 227 * 1024) bad('more than 227 KiB of shared memory');
  if (p.layouts.a.dense || p.layouts.b.dense || p.layouts.c.dense) bad('dense layouts are not used by the mma kernel');
  if (p.complex !== undefined) {
    if (p.transA !== 'N' || p.complex.conjA || (p.transB === 'N' && p.complex.conjB)) bad('complex data: op(A) = A only (op(B) B, B^T or B^H)');
    if (p.triangle !== undefined) bad('complex data: no triangle of C');
    if (mmaK(p) === 4) bad('complex data: the m16n8 shapes (mmaK 8 or 16)');
  }
  if (p.triangularA !== undefined) {
    if (p.complex !== undefined || p.triangle !== undefined) bad('a triangular op(A) takes real data and a whole C');
    if (!p.betaZero) bad('a triangular op(A) overwrites B in place: beta = 0');
    if (p.doubleBuffer === true) bad('a triangular op(A) runs the plain pipeline (no doubleBuffer)');
    if (p.bm % p.bk !== 0) bad('a triangular op(A) needs bk to divide bm (k-steps end at the tile\'s diagonal)');
    if (p.transB !== 'N') bad('a triangular op(A) multiplies B as stored (transB N)');
  }
}

/** One operand's tile copy: 16-byte chunk e covers stored rows 2 r2, 2 r2 + 1 of stored column c. */
interface Copy {
  /** Chunks per stored column, stored columns per tile. */
  readonly rows2: string;
  readonly total: string;
  /** Global element (x, y) is ptr[x + y * ld]; x runs along the contiguous dimension. */
  readonly x0: string;
  readonly y0: string;
  readonly xLimit: string;
  readonly yLimit: string;
  /** The shared slot (double index) of chunk (r2, c) in a buffer. */
  readonly slot: string;
  /** Whether every stored column of this block's tile lies inside the matrix (then only k can end a tile). */
  readonly tileInside: string;
  /** Element offset of chunk (r2, c) at k-step 0, and what k-step p0 adds to it. */
  readonly offset: string;
  readonly stepOffset: string;
}

function copyOf(name: 'A' | 'B', major: 'm' | 'n' | 'k', l: MmaLayout, complex = false): Copy {
  const isA = name === 'A';
  if (major === 'k') {
    // Stored column c = row of op(X), chunk r2 = k pair; swizzled rows when bk >= 16.
    return {
      rows2: 'BK / 2', total: `${isA ? 'BM' : 'BN'} * BK / 2`,
      x0: 'p0', y0: isA ? 'i0' : 'j0', xLimit: 'k', yLimit: isA ? 'm' : 'n',
      slot: 'c * BK + 2 * (r2 ^ SWZ(c))',
      tileInside: isA ? 'i0 + BM <= m' : 'j0 + BN <= n',
      offset: `2 * r2 + (long long)(${isA ? 'i0' : 'j0'} + c) * ld${name}`, stepOffset: 'p0',
    };
  }
  // Stored along m (A) or n (B^T): stored column c = k index, chunk r2 = two doubles along m or n.
  // Complex data (the real embedding) stores pairs: BK / 2 complex columns from p0 / 2 a step; A's m
  // already counts doubles (2m), B's n counts pairs, so B's tile runs over 2 BN doubles from 2 j0.
  const [x0, xLimit, rows2] = isA ? ['i0', 'm', 'BM / 2'] : complex ? ['2 * j0', '2 * n', 'BN'] : ['j0', 'n', 'BN / 2'];
  const [y0, yLimit, step] = complex ? ['p0 / 2', 'k / 2', '(p0 / 2)'] : ['p0', 'k', 'p0'];
  return {
    rows2, total: complex && isA ? 'BM * BK / 4' : `${isA ? 'BM' : 'BN'} * BK / 2`,
    x0, y0, xLimit, yLimit,
    slot: `c * ${isA ? l.ldsA : l.ldsB} + 2 * r2`,
    tileInside: isA ? 'i0 + BM <= m' : 'j0 + BN <= n',
    offset: `${x0} + 2 * r2 + (long long)c * ld${name}`, stepOffset: `(long long)${step} * ld${name}`,
  };
}

/** The element offset of thread t's first chunk at k-step 0 (an expression in t). */
const fastOffset = (c: Copy): string => `[&] { const int r2 = t % (${c.rows2}), c = t / (${c.rows2}); return ${c.offset}; }()`;

/**
 * Issues the cp.async copies of one operand's tile of k-step p0 into buffer `t${name}`. A tile
 * wholly inside the matrix with 16-byte alignment (`inside${name}`: every k-step but the last of
 * an interior tile) takes the fast path: plain 16-byte copies from per-thread offsets that do not
 * depend on the k-step (hoisted out of the main loop), without bounds or validity arithmetic,
 * which otherwise costs more issue slots per stage than the mma instructions of small warp tiles.
 */
function issueCopies(name: 'A' | 'B', c: Copy): string {
  const ptr = name.toLowerCase();
  // Where THREADS is a multiple of the chunks per stored column, a thread's chunks share r2 and
  // lie THREADS / rows2 stored columns apart: one base offset and one stride serve them all.
  return `    if (inside${name} && p0 + BK <= k) {
      const real* src = ${ptr} + (${c.stepOffset});
      #pragma unroll
      for (int l = 0; l < (${c.total} + THREADS - 1) / THREADS; ++l) {
        const int e = t + l * THREADS;
        if ((${c.total}) % THREADS == 0 || e < ${c.total}) {
          const int r2 = e % (${c.rows2}), c = e / (${c.rows2});
          const long long at = THREADS % (${c.rows2}) == 0 ? base${name} + l * chunkStride${name} : ${c.offset};
          copyPair(&t${name}[${c.slot}], src + at, 2, true);
        }
      }
    } else
    #pragma unroll
    for (int l = 0; l < (${c.total} + THREADS - 1) / THREADS; ++l) {
      const int e = t + l * THREADS;
      if ((${c.total}) % THREADS == 0 || e < ${c.total}) {
        const int r2 = e % (${c.rows2}), c = e / (${c.rows2});
        const int x = ${c.x0} + 2 * r2, y = ${c.y0} + c;
        const int valid = y < ${c.yLimit} ? min(max(${c.xLimit} - x, 0), 2) : 0;
        copyPair(&t${name}[${c.slot}], valid > 0 ? ${ptr} + x + (long long)y * ld${name} : ${ptr}, valid, vec${name});
      }
    }`;
}

/**
 * With a transposed operand and a small warp tile (at most 32 accumulators), __launch_bounds__
 * (threads) alone let ptxas aim for occupancy and spill (TN 32x32x32: 80 registers and 60 bytes
 * of spills; NT 64x64x8: 128 registers and 20 bytes; nvcc 13.0, sm_90); a minimum of one block
 * per SM lets it take the 95-154 registers they need. NN kernels and large warp tiles keep the
 * plain bound (under which they were timed; TT 128x128 spills with the minimum instead).
 */
function oneBlockBound(p: MmaGemmParams): boolean {
  return (p.transA === 'T' || p.transB === 'T') && (p.bm / p.wm / 8) * (p.bn / p.wn / 8) <= 16;
}

/** Pure: the same parameters always give the same source. */
/** Names of one operand's shared tile, fragments and indices in the generated kernel. */
interface FragmentNames {
  tile: string; frag: string; tiles: string; t: string; ld: string; warpOffset: string; k0: string; k1: string;
}

/**
 * Fragment loads of one chunk of 8 k for one operand (16 bytes per load): from a tile stored along
 * m (or n), two rows or columns per load for the steps s = 0, 1; from a tile stored along k, both
 * steps of one 8-wide tile per load.
 */
function fragmentLoad(o: FragmentNames, storedAlongMn: boolean, complex = false): string {
  // Complex A: one load of the pair (x, y) of A(row, kc / 2 + q) gives both steps, (x, y) for k index
  // 2p (s = 0) and (-y, x) for 2p + 1 (s = 1): the embedding's block [[x, -y], [y, x]].
  if (complex) return `      #pragma unroll
      for (int u = 0; u < ${o.tiles} / 2; ++u) {
        const double2 v = *reinterpret_cast<const double2*>(&${o.tile}[(kc / 2 + q) * ${o.ld} + ${o.warpOffset} + 16 * u + 2 * g]);
        ${o.frag}[0][2 * u] = v.x; ${o.frag}[0][2 * u + 1] = v.y;
        ${o.frag}[1][2 * u] = -v.y; ${o.frag}[1][2 * u + 1] = v.x;
      }`;
  return storedAlongMn
    ? `      #pragma unroll
      for (int u = 0; u < ${o.tiles} / 2; ++u)
        #pragma unroll
        for (int s = 0; s < 2; ++s) {
          const double2 v = *reinterpret_cast<const double2*>(&${o.tile}[(kc + 2 * q + s) * ${o.ld} + ${o.warpOffset} + 16 * u + 2 * g]);
          ${o.frag}[s][2 * u] = v.x; ${o.frag}[s][2 * u + 1] = v.y;
        }`
    : `      #pragma unroll
      for (int ${o.t} = 0; ${o.t} < ${o.tiles}; ++${o.t}) {
        const double2 v = *reinterpret_cast<const double2*>(&${o.tile}[((kc & 8) == 0 ? ${o.k0} : ${o.k1}) + 8 * ${o.t} * BK + kc]);
        ${o.frag}[0][${o.t}] = v.x; ${o.frag}[1][${o.t}] = v.y;
      }`;
}

/** The uniform kernel's frame: operands by layout, one m, n, k for the batch. */
function uniformFrame(p: MmaGemmParams): KernelFrame {
  return {
    entry: mmaGemmEntry(p),
    parameters: `${operandParameters('A', p.layouts.a.kind, false)},
    ${operandParameters('B', p.layouts.b.kind, false)},
    ${operandParameters('C', p.layouts.c.kind, true)},
    int count, ${p.complex !== undefined ? 'real alpha, real alphaIm, real beta, real betaIm' : 'real alpha, real beta'}, int m, int n, int k`,
    unused: '(void)strideA; (void)strideB; (void)strideC;',
    prologue: tileBlockPrologue(p.layouts, p.triangle, p.tileGroup),
  };
}

export function generateMmaGemm(p: MmaGemmParams): KernelSource {
  return mmaGemmSource(p, p.triangularA === undefined ? uniformFrame(p) : triangularFrame(p, p.triangularA));
}

/**
 * The frame of a triangular op(A) with C = B in place (trmm side left): the tile walk of
 * tile-prologue.ts (triangularWalkFrame), whose stages that cross the diagonal (B's rows of the
 * tile's own diagonal block) have op(A)'s other triangle zeroed in shared memory (maskTriangle):
 * A's memory there is never used. A zero times an infinite or NaN element of B would spread it to
 * rows the reference's loops never reach, so those stages also move B's non-finite elements out of
 * the product (zeros in the stage, their kind in `special`, a byte an element of the tile) and the
 * tile's close adds their exact terms, op(A)(i, p) B(p, j) for the p the triangle holds, to the
 * elements just written.
 */
function triangularFrame(p: MmaGemmParams, tri: TriangularOperand): KernelFrame {
  const walk = triangularWalkFrame(mmaGemmEntry(p), p.layouts, tri);
  return {
    ...walk,
    prologue: `${walk.prologue}
  bool special = false;                     // a non-finite element of B in the diagonal block (block-uniform)`,
    close: `
  if (special) {
    __syncthreads();                          // the tile's elements are written
    // Their terms with the non-finite elements of B: op(A)(i, p) B(p, j) for ${tri.lower ? 'i0 <= p <= i' : 'i <= p < i0 + BM'}, as the reference's loops add them.
    const real inf = __longlong_as_double(0x7ff0000000000000LL);
    for (int e = t; e < BM * BN; e += THREADS) {
      const int il = e % BM, jl = e / BM, i = i0 + il, j = j0 + jl;
      if (i >= m || j >= n) continue;
      real extra = 0;
      bool any = false;
      for (int pl = ${tri.lower ? '0' : 'il'}; pl ${tri.lower ? '<= il' : '< BM'}; ++pl) {
        const unsigned char kind = specialKinds[pl * BN + jl];
        if (kind == 0) continue;
        const int p = i0 + pl;
        const real v = kind == 1 ? inf : kind == 2 ? -inf : inf - inf;
        const real aip = ${tri.unit ? 'p == i ? (real)1 : ' : ''}a[${p.transA === 'N' ? 'i + (long long)p * ldA' : 'p + (long long)i * ldA'}];
        extra += aip * v;
        any = true;
      }
      if (any) c[i + (long long)j * ldC] += alpha * extra;
    }
  }${walk.close}`,
  };
}

/**
 * Zeroes op(A)'s other triangle in a stage of A that crosses the diagonal (and writes the unit
 * diagonal's ones), between the stage's arrival and its fragment loads: a lambda of the kernel,
 * block-uniform (its barrier is reached by every thread or none).
 */
function maskTriangle(tri: TriangularOperand, aMajor: 'm' | 'k'): string {
  // Element (row il, k index pl) of the stage: along m (A), or along k with the pair swizzle (A^T; copyOf).
  const slot = aMajor === 'm' ? 'pl * LDSA + il' : 'il * BK + 2 * ((pl >> 1) ^ SWZ(il)) + (pl & 1)';
  // B's stage (stored along k, swizzled as copyOf does): element (k index pl, column jl).
  const slotB = 'jl * BK + 2 * ((pl >> 1) ^ SWZ(jl)) + (pl & 1)';
  return `  // op(A) is ${tri.lower ? 'lower' : 'upper'} triangular${tri.unit ? ' with a unit diagonal' : ''}. In a stage that crosses the diagonal (rows i0 ... i0 + BM - 1 of B):
  // - op(A)'s other triangle${tri.unit ? ' and diagonal' : ''} come from memory the product must not read (NaN there stays out): zeros${tri.unit ? ' (ones)' : ''} in shared memory;
  // - B's non-finite elements leave the product (a zero of that triangle would make them NaN in rows the
  //   reference never reaches): zeros in the stage, their kind in specialKinds (1 +inf, 2 -inf, 3 NaN) for the close.
  unsigned char* specialKinds = reinterpret_cast<unsigned char*>(sB + STAGES * SIZEB);   // BM x BN, by (p - i0, j - j0)
  auto maskTriangle = [&](real* tA, real* tB, int p0) {
    if (!(${tri.lower ? 'p0 + BK > i0' : 'p0 < i0 + BM'})) return;
    for (int e = t; e < BM * BK; e += THREADS) {
      const int il = e % BM, pl = e / BM;
      const int i = i0 + il, p = p0 + pl;
      if (${tri.lower ? 'p > i' : 'p < i'}) tA[${slot}] = 0;${tri.unit ? `
      else if (p == i) tA[${slot}] = 1;` : ''}
    }
    // B's stage by 16-byte units (k indices 2u, 2u + 1 of column jl): one barrier for the mask and the scan.
    int found = 0;
    for (int e = t; e < BN * BK / 2; e += THREADS) {
      const int u = e % (BK / 2), jl = e / (BK / 2);
      const double2 v = *reinterpret_cast<const double2*>(&tB[jl * BK + 2 * (u ^ SWZ(jl))]);
      found |= !(isfinite(v.x) && isfinite(v.y));
    }
    if (__syncthreads_or(found)) {
      if (!special) {                         // the tile's first: clear the kinds
        for (int e = t; e < BM * BN; e += THREADS) specialKinds[e] = 0;
        __syncthreads();
        special = true;
      }
      for (int e = t; e < BN * BK; e += THREADS) {
        const int pl = e % BK, jl = e / BK;
        const real v = tB[${slotB}];
        if (!isfinite(v)) {
          specialKinds[(p0 + pl - i0) * BN + jl] = isnan(v) ? 3 : v > 0 ? 1 : 2;
          tB[${slotB}] = 0;
        }
      }
      __syncthreads();
    }
  };`;
}

/** Pure: the kernel of `p` in `frame`. */
export function mmaGemmSource(p: MmaGemmParams, frame: KernelFrame): KernelSource {
  validateMmaParams(p);
  const l = sharedLayout(p);
  const { threads } = mmaGemmShape(p);
  const entry = frame.entry;
  const complex = p.complex !== undefined;
  const copyA = copyOf('A', l.aMajor, l, complex);
  const copyB = copyOf('B', l.bMajor, l, complex);
  const swizzled = p.bk >= 16;
  // Fragment loads of chunk ch of 8 k (kc): fa[ch][s][mt], fb[ch][s][nt] for the steps s = 0, 1.
  // Fragment buffer `buf` ('' for the single buffer, '[0]' or '[1]' for the double one).
  const loadA = (buf: string): string => fragmentLoad({ tile: 'tA', frag: `fa${buf}[ch]`, tiles: 'MT', t: 'mt', ld: 'LDSA', warpOffset: 'wi', k0: 'kA0', k1: 'kA1' }, l.aMajor === 'm', complex);
  // Complex B^T / B^H: one load of the pair B(j, kc / 2 + q) gives both steps, Re for k index 2p and
  // +-Im (conjugated for B^H) for 2p + 1; column j = wj + 8 nt + g, as for a B stored along k.
  const complexB = complex && l.bMajor === 'n';
  const loadB = (buf: string): string => complexB
    ? `      #pragma unroll
      for (int nt = 0; nt < NT; ++nt) {
        const double2 v = *reinterpret_cast<const double2*>(&tB[(kc / 2 + q) * LDSB + 2 * (wj + 8 * nt + g)]);
        fb${buf}[ch][0][nt] = v.x; fb${buf}[ch][1][nt] = ${p.complex?.conjB === true ? '-v.y' : 'v.y'};
      }`
    : fragmentLoad({ tile: 'tB', frag: `fb${buf}[ch]`, tiles: 'NT', t: 'nt', ld: 'LDSB', warpOffset: 'wj', k0: 'kB0', k1: 'kB1' }, l.bMajor === 'n');
  // The mma instructions of one k-step. Step s of chunk kc feeds lane q the k index kc + 2q + s:
  // m8n8k4 takes one (chunk, step) per 8 x 8 tile; m16n8k8 (m16n8k16) takes the tile pair
  // (2u, 2u + 1) as its rows g and g + 8 and 2 (4) (chunk, step) slots as its k groups q + 4j
  // (PTX ISA, "Matrix Fragments for mma.m16n8k8 / m16n8k16" with .f64): a_{2j} = A(g, q + 4j),
  // a_{2j+1} = A(g + 8, q + 4j), b_j = B(q + 4j, g), c = C(g, 2q + h), C(g + 8, 2q + h).
  const K = mmaK(p);
  const chunks = K === 16 ? 2 : 1;
  const slots = Array.from({ length: K / 4 }, (_, j) => ({ c: Math.floor(j / 2), s: j % 2 }));
  const mmaCall = (buf: string): string => K === 4
    ? `      #pragma unroll
      for (int s = 0; s < 2; ++s)
        #pragma unroll
        for (int mt = 0; mt < MT; ++mt)
          #pragma unroll
          for (int nt = 0; nt < NT; ++nt)
            asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                : "+d"(acc[mt][nt][0]), "+d"(acc[mt][nt][1]) : "d"(fa${buf}[0][s][mt]), "d"(fb${buf}[0][s][nt]));`
    : `      #pragma unroll
      for (int u = 0; u < MT / 2; ++u)
        #pragma unroll
        for (int nt = 0; nt < NT; ++nt)
          asm("mma.sync.aligned.m16n8k${K}.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {${slots.flatMap((_, j) => [`%${4 + 2 * j}`, `%${5 + 2 * j}`]).join(', ')}}, {${slots.map((_, j) => `%${4 + 2 * slots.length + j}`).join(', ')}}, {%0, %1, %2, %3};"
              : "+d"(acc[2 * u][nt][0]), "+d"(acc[2 * u][nt][1]), "+d"(acc[2 * u + 1][nt][0]), "+d"(acc[2 * u + 1][nt][1])
              : ${slots.map(({ c, s }) => `"d"(fa${buf}[${c}][${s}][2 * u]), "d"(fa${buf}[${c}][${s}][2 * u + 1])`).join(', ')},
                ${slots.map(({ c, s }) => `"d"(fb${buf}[${c}][${s}][nt])`).join(', ')});`;
  // The fragments of one slice of ${8 * chunks} k starting at k offset kk of the current stage.
  const loadSlice = (buf: string, kk: string): string => `      #pragma unroll
      for (int ch = 0; ch < ${chunks}; ++ch) {
        const int kc = ${kk} + 8 * ch;
${loadA(buf)}
${loadB(buf)}
      }`;
  const multiply = `    #pragma unroll
    for (int kk = 0; kk < BK; kk += ${8 * chunks}) {
      real fa[${chunks}][2][MT], fb[${chunks}][2][NT];
${loadSlice('', 'kk')}
${mmaCall('')}
    }
`;
  // A triangular op(A): each tile's k range (the frame's kFirst, kEnd) and the mask of stages that cross the diagonal.
  const range: MaskedRange | undefined = p.triangularA === undefined ? undefined
    : { ...TRIANGULAR_K_RANGE, mask: (buffer, p0) => `    maskTriangle(sA + ${buffer} * SIZEA, sB + ${buffer} * SIZEB, ${p0});\n` };
  const mainLoop = p.doubleBuffer === true
    ? doubleBuffered({ slices: p.bk / (8 * chunks), sliceK: 8 * chunks, chunks, loadSlice, mmaCall })
    : p.stages === 1 ? singleBuffer(multiply, range) : pipelined(multiply, range);
  // Where accumulator acc[mt][nt][h] of lane (g, q) lands in C. (Streaming hints on C, __ldcs /
  // __stcs, were tried (H100, 2026-11-26): no gain on one large C, 7-12% lost on batched squares, and the
  // factorizations' next kernels read what this one wrote.)
  const colOf = l.bMajor === 'k' || complexB ? 'j0 + wj + 8 * nt + 2 * q + h' : 'j0 + wj + 16 * (nt / 2) + 4 * q + 2 * h + (nt % 2)';
  const update = (v: string, at: string): string => (p.betaZero ? `alpha * ${v}` : `alpha * ${v} + beta * ${at}`);
  const complexUpdate = p.betaZero
    ? `*cij = v;`
    : `const double2 old = *cij;
          v.x += beta * old.x - betaIm * old.y;
          v.y += beta * old.y + betaIm * old.x;
          *cij = v;`;
  // The m-contiguous epilogue's loops: lane g holds rows 2g and 2g + 1 of each 16-row pair of tiles.
  const pairRows = (head: string, body: string): string => `${head}
  #pragma unroll
  for (int u = 0; u < MT / 2; ++u) {
    const int i = i0 + wi + 16 * u + 2 * g;
    #pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
      #pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int j = ${colOf};
        if (j < n && i < m) {
${body}
        }
      }
    }
  }`;
  const epilogue = complex
    ? pairRows(`  // Lane g holds rows 2g and 2g + 1 of each 16-row pair of tiles: (Re, Im) of one element of C,
  // one 16-byte pair (i even, ldC even, pairs 16-byte aligned), scaled by the complex alpha and beta.`, `          double2* cij = reinterpret_cast<double2*>(c + i + (long long)j * ldC);
          const real x = acc[2 * u][nt][h], y = acc[2 * u + 1][nt][h];
          double2 v;
          v.x = alpha * x - alphaIm * y;
          v.y = alpha * y + alphaIm * x;
          ${complexUpdate}`)
    : l.aMajor === 'm'
    ? pairRows(`  // Lane g holds rows 2g and 2g + 1 of each 16-row pair of tiles: 16-byte stores where aligned.
  const bool vecC = ((reinterpret_cast<unsigned long long>(c) & 15) == 0) && ((ldC & 1) == 0);`, `          real* cij = c + i + (long long)j * ldC;
          if (vecC && i + 1 < m${triangleGuard(p.triangle, p.triangle === 'upper' ? 'i + 1' : 'i', 'j')}) {
            ${p.betaZero ? 'double2 old;' : 'const double2 old = *reinterpret_cast<const double2*>(cij);'}
            double2 v;
            v.x = ${update('acc[2 * u][nt][h]', 'old.x')};
            v.y = ${update('acc[2 * u + 1][nt][h]', 'old.y')};
            ${p.betaZero ? '(void)old;' : ''}
            *reinterpret_cast<double2*>(cij) = v;
          } else {
            ${p.triangle === undefined ? '' : `if (true${triangleGuard(p.triangle, 'i', 'j')}) `}cij[0] = ${update('acc[2 * u][nt][h]', 'cij[0]')};
            if (i + 1 < m${triangleGuard(p.triangle, 'i + 1', 'j')}) cij[1] = ${update('acc[2 * u + 1][nt][h]', 'cij[1]')};
          }`)
    : `  #pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
    const int i = i0 + wi + 8 * mt + g;
    #pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
      #pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int j = ${colOf};
        if (i < m && j < n${triangleGuard(p.triangle, 'i', 'j')}) {
          real* cij = c + i + (long long)j * ldC;
          *cij = ${update('acc[mt][nt][h]', '*cij')};
        }
      }
    }
  }`;

  const source = `// Tiled batched DGEMM on FP64 tensor cores (mma.sync, k = ${mmaK(p)} per instruction): C = alpha op(A) op(B) + beta C,
// op(A) ${p.transA}, op(B) ${p.transB}; runtime m, n, k. Generated by src/cuda/kernels/gemm/generate-mma.ts.
${precisionPrelude('float64')}
${ASYNC_HELPERS}
// 16-byte unit u of stored row r sits at u ^ SWZ(r) (k-contiguous tiles; see the generator).
#define SWZ(r) (${swizzled ? '((r) & 1) << 2' : '0'})

extern "C" __global__ void __launch_bounds__(${threads}${p.minBlocks !== undefined ? `, ${p.minBlocks}` : oneBlockBound(p) ? ', 1' : ''}) ${entry}(
    ${frame.parameters})
{
  constexpr int BM = ${p.bm}, BN = ${p.bn}, BK = ${p.bk};  // tile of C, depth of one k-step
  constexpr int WM = ${p.wm}, WN = ${p.wn};                // warps along m and n
  constexpr int MT = BM / WM / 8, NT = BN / WN / 8;       // 8 x 8 mma tiles per warp
  constexpr int THREADS = 32 * WM * WN;
  constexpr int LDSA = ${l.ldsA}, LDSB = ${l.ldsB};
  constexpr int SIZEA = ${l.sizeA}, SIZEB = ${l.sizeB};   // doubles per buffer
  constexpr int STAGES = ${p.stages};                      // shared buffers
  static_assert(THREADS == ${threads}, "thread count");
  (void)LDSA; (void)LDSB;
  extern __shared__ __align__(16) unsigned char smem[];
  real* sA = reinterpret_cast<real*>(smem);                // STAGES buffers of SIZEA
  real* sB = sA + STAGES * SIZEA;                          // STAGES buffers of SIZEB
  ${frame.unused}
  ${p.betaZero ? `(void)beta;${complex ? ' (void)betaIm;' : ''}` : ''}

  ${frame.prologue}
  // 16-byte copies need 16-byte aligned pairs: an aligned first element and an even ld.
  const bool vecA = ((reinterpret_cast<unsigned long long>(a) & 15) == 0) && ((ldA & 1) == 0);
  const bool vecB = ((reinterpret_cast<unsigned long long>(b) & 15) == 0) && ((ldB & 1) == 0);
  const bool insideA = vecA && ${copyA.tileInside}, insideB = vecB && ${copyB.tileInside};
  const int t = threadIdx.x;
  // The fast path's offsets (see issueCopies): chunk e = t at k-step 0, and the step between a thread's chunks.
  const long long baseA = ${fastOffset(copyA)}, chunkStrideA = (long long)(THREADS / (${copyA.rows2})) * ldA;
  const long long baseB = ${fastOffset(copyB)}, chunkStrideB = (long long)(THREADS / (${copyB.rows2})) * ldB;
  const int lane = t % 32, warp = t / 32;
  const int g = lane / 4, q = lane % 4;                    // fragment coordinates
  const int wi = (warp % WM) * (BM / WM);                  // the warp's part of the tile
  const int wj = (warp / WM) * (BN / WN);
  // k-contiguous tiles: row r = w + 8 t + g, 16-byte unit (kc / 2 + q) ^ SWZ(r) with kc a multiple
  // of 8 and SWZ(r) = SWZ(g) in {0, 4}: the element index is r BK + kc + 2q +- 2 SWZ(g) (+ where
  // kc % 16 == 0), so two per-thread offsets and constant displacements address every fragment.
  const int kA0 = (wi + g) * BK + 2 * q + 2 * SWZ(g), kA1 = kA0 - 4 * SWZ(g);
  const int kB0 = (wj + g) * BK + 2 * q + 2 * SWZ(g), kB1 = kB0 - 4 * SWZ(g);
  (void)kA0; (void)kA1; (void)kB0; (void)kB1;
${p.triangularA === undefined ? '' : `${maskTriangle(p.triangularA, l.aMajor)}\n`}
  // Start the copies of k-step p0 into buffer 'buf' (zeros outside the matrices).
  auto issue = [&](int p0, int buf) {
    real* tA = sA + buf * SIZEA;
    real* tB = sB + buf * SIZEB;
${issueCopies('A', copyA)}
${issueCopies('B', copyB)}
  };

  real acc[MT][NT][2];
  #pragma unroll
  for (int mt = 0; mt < MT; ++mt)
    #pragma unroll
    for (int nt = 0; nt < NT; ++nt) acc[mt][nt][0] = acc[mt][nt][1] = 0;
${prefetchesRealC(p) ? prefetchCTile(8) : ''}
${mainLoop}
${epilogue}${frame.close ?? ''}
}
`;
  return { name: `${entry}.cu`, source, entry };
}

const ASYNC_HELPERS = `// cp.async (sm_80+): global -> shared without registers; src_bytes < cp-size zero-fills the rest.
static __device__ __forceinline__ unsigned sharedAddress(const void* p) {
  return (unsigned)__cvta_generic_to_shared(p);
}
// Copies 'valid' (0, 1, 2) doubles from src to dst and zeros the rest of the pair: one 16-byte
// copy (L2 only) where aligned, else two 8-byte copies.
static __device__ __forceinline__ void copyPair(real* dst, const real* src, int valid, bool vec) {
  if (vec) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(sharedAddress(dst)), "l"(src), "r"(valid * 8));
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" :: "r"(sharedAddress(dst)), "l"(src), "r"(valid > 0 ? 8 : 0));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" :: "r"(sharedAddress(dst + 1)), "l"(valid > 1 ? src + 1 : src), "r"(valid > 1 ? 8 : 0));
  }
}
static __device__ __forceinline__ void commitAsync() { asm volatile("cp.async.commit_group;"); }
template <int N> static __device__ __forceinline__ void waitAsync() { asm volatile("cp.async.wait_group %0;" :: "n"(N)); }`;

/** A k range (tile-prologue.ts) and the text that fixes up a landed stage of A (buffer index, its first k) before use. */
interface MaskedRange extends KRange {
  readonly mask: (buffer: string, p0: string) => string;
}

/** One buffer: copy a k-step, wait, multiply, and wait again before the next copy. */
function singleBuffer(multiply: string, range?: MaskedRange): string {
  return `  ${kSteps(range)}
  for (int s = 0; s < steps; ++s) {
    if (s > 0) __syncthreads();               // everyone is done with the buffer
    issue(${kAt(range, 's')}, 0);
    commitAsync();
    waitAsync<0>();
    __syncthreads();
${range === undefined ? '' : range.mask('0', kAt(range, 's'))}    const real* tA = sA;
    const real* tB = sB;
${multiply}  }
`;
}

/**
 * Multi-stage cp.async pipeline (STAGES buffers): up to STAGES - 1 k-steps are in flight while
 * one multiplies, with no registers held for them.
 */
function pipelined(multiply: string, range?: MaskedRange): string {
  return `  ${kSteps(range)}
  #pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < steps) issue(${kAt(range, 's')}, s);
    commitAsync();                            // one group per k-step, empty ones included
  }
  for (int s = 0; s < steps; ++s) {
    waitAsync<STAGES - 2>();                  // k-step s has landed (for this thread)
    __syncthreads();                          // ... for all threads; buffer (s - 1) % STAGES is free
    if (s + STAGES - 1 < steps) issue(${kAt(range, '(s + STAGES - 1)')}, (s + STAGES - 1) % STAGES);
    commitAsync();
${range === undefined ? '' : range.mask('(s % STAGES)', kAt(range, 's'))}    const real* tA = sA + (s % STAGES) * SIZEA;
    const real* tB = sB + (s % STAGES) * SIZEB;
${multiply}  }
`;
}

interface DoubleBufferParts {
  /** Slices (of sliceK k: one group of mma instructions) per stage of BK. */
  slices: number;
  sliceK: number;
  chunks: number;
  loadSlice: (buf: string, kk: string) => string;
  mmaCall: (buf: string) => string;
}

/**
 * The multistage main loop with fragments double-buffered in registers (CUTLASS's sm80 mainloop):
 * all STAGES buffers are in flight from the start; within a stage each slice first loads the next
 * slice's fragments into the other register buffer, then issues its own mma instructions, so the
 * shared-memory latency hides behind the tensor cores. Before the last slice's mma, every slice of
 * the stage is in registers: the block waits for the next stage there (one cp.async wait and one
 * barrier per stage), refills the stage's own buffer with stage s + STAGES, and loads the next
 * stage's first slice while the last mma instructions run. The register buffer of a slice is
 * static: the stage body is generated for both parities when a stage has an odd number of slices.
 */
function doubleBuffered(d: DoubleBufferParts): string {
  const period = d.slices % 2 === 1 ? 2 : 1;
  const stage = (parity: number, s: string): string => `    #pragma unroll
    for (int kk = 0; kk < ${d.slices}; ++kk) {
      const int cur = (${parity * d.slices} + kk) & 1;
      if (kk == ${d.slices - 1}) {
        waitAsync<STAGES - 2>();                // stage ${s} + 1 has landed (for this thread)
        __syncthreads();                        // ... for all; stage ${s}'s buffer is read
        if (${s} + STAGES < steps) issue((${s} + STAGES) * BK, (${s}) % STAGES);
        commitAsync();
        tA = sA + ((${s} + 1) % STAGES) * SIZEA;
        tB = sB + ((${s} + 1) % STAGES) * SIZEB;
      }
      if (cur == 0) {
${d.loadSlice('[1]', `(kk + 1) % ${d.slices} * ${d.sliceK}`)}
${d.mmaCall('[0]')}
      } else {
${d.loadSlice('[0]', `(kk + 1) % ${d.slices} * ${d.sliceK}`)}
${d.mmaCall('[1]')}
      }
    }`;
  const body = period === 1
    ? stage(0, 's')
    : `${stage(0, 's')}
    if (s + 1 >= steps) break;
    {
      const int s1 = s + 1;
${stage(1, 's1')}
    }`;
  return `  const int steps = (k + BK - 1) / BK;
  #pragma unroll
  for (int s = 0; s < STAGES; ++s) {
    if (s < steps) issue(s * BK, s);
    commitAsync();                            // one group per stage, empty ones included
  }
  waitAsync<STAGES - 1>();                    // stage 0 has landed
  __syncthreads();
  const real* tA = sA;
  const real* tB = sB;
  real fa[2][${d.chunks}][2][MT], fb[2][${d.chunks}][2][NT];
${d.loadSlice('[0]', '0')}
  for (int s = 0; s < steps; s += ${period}) {
${body}
  }
`;
}
