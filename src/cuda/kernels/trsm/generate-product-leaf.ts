/**
 * trmm's product leaf: y = L x for the vectors of B with a triangle of order t <= T (T = 8, 16, 24,
 * 32, 48 or 64 compiled in, t at run time), parallel over the outputs instead of over the vectors. The
 * variants map onto M lower as the other leaves do (generate-leaf.ts: TRANSPOSED, REVERSE, UNIT,
 * at()).
 *
 * The register leaf (generate-register-leaf.ts) gives each lane one vector and walks the triangle
 * in order: a warp holds one task, its loads, product and stores never overlap, and 168 registers
 * a lane leave 12 warps an SM. It ran at 42% of the bandwidth roofline at t = 32. This leaf is the
 * very-small GEMM's structure (gemm/generate-small.ts, Masliah et al. section 4.2) with the
 * triangle's zeros skipped:
 * - a task is one matrix and a chunk of NV = 32 of its vectors; TASKS tasks share a block, each
 *   with its own TPT = (T / RP) * (NV / RN) threads;
 * - the task's threads read the triangle (only its referenced elements, along A's columns) and the
 *   chunk (along B's columns, side left, or rows, side right) into shared memory, every read of a
 *   thread in flight before the first store (16 + 16 at T = 32): the block's loads are all in the
 *   air at once, and the other blocks of the SM overlap its product and stores;
 * - a thread computes RP consecutive rows of y for RN vectors (NV / RN apart: the lanes of a warp
 *   read consecutive words of a row of the tile), 16 accumulators: half a shared read an FMA,
 *   against two in a thread-per-output loop. Row p sums L(p, q) x_q over q < p, then its diagonal
 *   (or x_p itself where diag is unit): no product with a zero of the other triangle, so an
 *   infinity in x reaches only the rows the reference's loops reach;
 * - the results replace the tile (after a barrier) and go back to B as they came, times alpha.
 * B is read once and written once, the triangle read once per chunk (from L2 after the first).
 * alpha = 0 writes zeros (BLAS: A and B not used), as the register leaf does; the family's launcher
 * zeroes B itself then, so no leaf sees it there.
 *
 * Bytes at t = 32 and 32 vectors, float64: 4.2 kB of the triangle, 8.2 kB of B in and out; the
 * FMAs (528 a vector) are 1.1 G over 65,536 matrices, 65 us at the H200's float64 rate against
 * 0.32 ms of copies: bound by bandwidth when the loads of enough tasks are in flight.
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { elementBytes, precisionLetter } from '../common/precision.js';
import { leafHeader, leafMapping, triangleReads, triangleStores, variantTag } from './generate-leaf.js';
import type { TrmmProductLeafParams } from './params.js';

/** Vectors of one task. */
export const PRODUCT_LEAF_VECTORS = 32;
/** Consecutive rows of y a thread computes. */
const RP = 4;
/** Vectors a thread computes (NV / RN apart). */
const RN = 4;
/** Row pitch of the vectors' tile in shared memory (odd: the loads' column walk is conflict-free). */
const LDX = PRODUCT_LEAF_VECTORS + 1;
/** Threads a block aims at (tasks of few threads share one). */
const BLOCK_THREADS = 128;

/** The largest triangle the product leaf multiplies. */
export const PRODUCT_LEAF_MAX = 64;

/**
 * The compiled order a triangle of t runs at: the next multiple of 8 to 32, of 16 above (rows past t
 * are never loaded or stored; six kernels a variant).
 */
export const productLeafOrder = (t: number): number => (t <= 32 ? Math.ceil(t / 8) * 8 : Math.min(PRODUCT_LEAF_MAX, Math.ceil(t / 16) * 16));

/** The launch shape of the kernel of compiled order T: threads a task, tasks a block, dynamic shared bytes. */
export interface ProductLeafShape {
  readonly threadsPerTask: number;
  readonly tasks: number;
  readonly sharedBytes: number;
}

export function productLeafShape(p: Pick<TrmmProductLeafParams, 'dtype' | 'order'>): ProductLeafShape {
  const threadsPerTask = (p.order / RP) * (PRODUCT_LEAF_VECTORS / RN);
  const tasks = Math.max(1, Math.floor(BLOCK_THREADS / threadsPerTask));
  const perTask = (p.order * (p.order + 1)) / 2 + p.order * LDX;
  return { threadsPerTask, tasks, sharedBytes: tasks * perTask * elementBytes(p.dtype) };
}

/** The task's walk over its vectors' tile (p: element, vv: vector), along B's memory: columns (left) or rows (right). */
function tileWalk(left: boolean, body: string): string {
  const [fast, slow, fastCount] = left ? ['p', 'vv', 'T'] : ['vv', 'p', 'NV'];
  return `#pragma unroll
    for (int u = 0; u < TILE_STEPS; ++u) {
      const int e = v + u * TPT, ${fast} = e % ${fastCount}, ${slow} = e / ${fastCount};
      ${body}
    }`;
}

export function trmmProductLeafSource(p: TrmmProductLeafParams): KernelSource {
  if (!(Number.isInteger(p.order) && p.order >= 8 && p.order <= PRODUCT_LEAF_MAX && productLeafOrder(p.order) === p.order))
    throw new RangeError(`trmm product leaf order must be 8, 16, 24, 32, 48 or 64, got ${p.order}`);
  const m = leafMapping(p);
  const shape = productLeafShape(p);
  const entry = `trmm_pleaf_${precisionLetter(p.dtype)}_${variantTag(p)}_${kindTag(p.kind)}_o${p.order}`;
  // Element p of vector vv of the chunk, in B (i = at(p, t)).
  const bElement = m.left ? 'b[i + (long long)(w0 + vv) * ldB]' : 'b[(w0 + vv) + (long long)i * ldB]';
  const source = `${leafHeader({ ...p, op: 'trmm' })}
constexpr int T = ${p.order};                       // the largest order (the triangle's t <= T at run time)
constexpr int NV = ${PRODUCT_LEAF_VECTORS};                      // vectors a task
constexpr int RP = ${RP}, RN = ${RN};                  // rows and vectors a thread
constexpr int NVG = NV / RN;                     // vector groups
constexpr int TPT = ${shape.threadsPerTask};                     // threads a task: (T / RP) row blocks x NVG
constexpr int LDX = ${LDX};                      // the tile's row pitch
constexpr int PACKED = T * (T + 1) / 2;          // the triangle packed by rows
constexpr int SQUARE_STEPS = (T * T + TPT - 1) / TPT;   // a thread's reads of the T x T square
constexpr int TILE_STEPS = (T * NV + TPT - 1) / TPT;    // and of the T x NV tile

extern "C" __global__ void __launch_bounds__(${shape.threadsPerTask * shape.tasks}) ${entry}(
    ${operandParameters('A', p.kind, false)},
    ${operandParameters('B', p.kind, true)},
    int count, int t, int nvec, real alpha) {
  extern __shared__ __align__(16) unsigned char smemBytes[];
  const int v = threadIdx.x, g = threadIdx.y;
  const int chunks = (nvec + NV - 1) / NV;
  const long long task = (long long)blockIdx.x * blockDim.y + g;
  // Every thread runs every barrier: a slot past the last task only skips its memory accesses.
  const bool valid = task < (long long)count * chunks;
  const int mat = valid ? (int)(task / chunks) : 0;
  const int w0 = valid ? (int)(task % chunks) * NV : 0;
  const int nv = valid ? min(NV, nvec - w0) : 0;
  real* sL = reinterpret_cast<real*>(smemBytes) + (long long)g * (PACKED + T * LDX);
  real* sX = sL + PACKED;
  real* b = valid ? ${matrixPointer('B', p.kind, 'mat')} : nullptr;

  // L(p, q) = M(at(p), at(q)), q <= p, packed by rows; the square walked along A's columns and the
  // tile along B's, all of a thread's reads issued before the first store.
  if (valid) {
    const real* a = ${matrixPointer('A', p.kind, 'mat')};
    real r[SQUARE_STEPS], x[TILE_STEPS];
${triangleReads(m, 'v', 'TPT', 'SQUARE_STEPS')}
    ${tileWalk(m.left, `const int i = at(p, t);
      x[u] = e < T * NV && p < t && vv < nv ? ${bElement} : real(0);`)}
${triangleStores(m, 'v', 'TPT', 'SQUARE_STEPS', 'sL[p * (p + 1) / 2 + q]')}
    ${tileWalk(m.left, 'if (e < T * NV) sX[p * LDX + vv] = x[u];')}
  }
  __syncthreads();

  // Rows p0 ... p0 + RP - 1 of y for vectors vg, vg + NVG, ...: first the columns q < p0 every row
  // takes, then the diagonal block, row p0 + s taking q < p0 + s and its diagonal.
  const int vg = v % NVG, p0 = (v / NVG) * RP;
  real acc[RP][RN];
  #pragma unroll
  for (int s = 0; s < RP; ++s) {
    #pragma unroll
    for (int c = 0; c < RN; ++c) acc[s][c] = real(0);
  }
  if (valid && p0 < t) {
    #pragma unroll 2
    for (int q = 0; q < p0; ++q) {
      real xq[RN];
      #pragma unroll
      for (int c = 0; c < RN; ++c) xq[c] = sX[q * LDX + vg + c * NVG];
      #pragma unroll
      for (int s = 0; s < RP; ++s) {
        const real l = sL[(p0 + s) * (p0 + s + 1) / 2 + q];
        #pragma unroll
        for (int c = 0; c < RN; ++c) acc[s][c] = fmaReal(l, xq[c], acc[s][c]);
      }
    }
    #pragma unroll
    for (int d = 0; d < RP; ++d) {
      const int q = p0 + d;
      real xq[RN];
      #pragma unroll
      for (int c = 0; c < RN; ++c) xq[c] = sX[q * LDX + vg + c * NVG];
      #pragma unroll
      for (int s = d + 1; s < RP; ++s) {
        const real l = sL[(p0 + s) * (p0 + s + 1) / 2 + q];
        #pragma unroll
        for (int c = 0; c < RN; ++c) acc[s][c] = fmaReal(l, xq[c], acc[s][c]);
      }
      const real diag = UNIT ? real(1) : sL[q * (q + 1) / 2 + q];
      #pragma unroll
      for (int c = 0; c < RN; ++c) acc[d][c] = UNIT ? acc[d][c] + xq[c] : fmaReal(diag, xq[c], acc[d][c]);
    }
  }
  __syncthreads();   // every read of the tile done
  if (valid && p0 < t) {
    #pragma unroll
    for (int s = 0; s < RP; ++s) {
      #pragma unroll
      for (int c = 0; c < RN; ++c)
        if (p0 + s < t) sX[(p0 + s) * LDX + vg + c * NVG] = acc[s][c];
    }
  }
  __syncthreads();
  if (valid) {
    ${tileWalk(m.left, `const int i = at(p, t);
      if (e < T * NV && p < t && vv < nv) ${bElement} = alpha == real(0) ? real(0) : alpha * sX[p * LDX + vv];`)}
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}
