/**
 * The batched triangular solve's leaf: the register/shared-memory kernel at the bottom of the
 * paper's recursion (batched-triangular-kblas, section on TRSM: "the recursion stops at a block
 * size that fits ... where a kernel solves it directly"), for a triangle of t <= leafMax.
 *
 * Every variant becomes one forward substitution L y = c with L lower (t x t):
 * - the right-hand-side vectors are B's columns (side left: op(A) X = alpha B) or B's rows (side
 *   right: X op(A) = alpha B, i.e. op(A)^T x = alpha b for every row b of B);
 * - the solved triangle is M = op(A) (left) or op(A)^T (right), so M is A or A^T (TRANSPOSED);
 * - where M is upper, the order of the elements is reversed (REVERSE): element p of the solve is
 *   row t - 1 - p of M, which turns upper into lower.
 * So the inner loop is the same for all 16 variants; the variant only changes how A and B are
 * read into shared memory and B written back (compile-time constants, no run-time branches).
 *
 * One block holds G matrices (blockDim.y) and V threads of each (blockDim.x). Per matrix: L
 * packed by rows in shared memory (t (t + 1) / 2 elements; the other triangle, and the diagonal
 * where diag is 'unit', are never read from A), loaded once per block by all V threads with the
 * reads along A's columns (coalesced, several in flight a thread); then, per chunk of
 * W = min(V, ldx) vectors, the vectors' tile X (t x ldx, ldx odd: bank-conflict-free for both the
 * column-wise load and the thread-per-vector solve), loaded by the V threads coalesced along B's
 * columns (left) or rows (right) and scaled by alpha. Thread v < W solves vector v with a dot
 * product per element, every thread of a matrix reading the same L element (a broadcast) and its
 * own X column; two accumulators hide the FMA latency. V exceeds W where a matrix has few vectors
 * (plan.ts leafShape): the extra threads only load and store. Only the t x nvec elements of B are
 * written.
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { precisionLetter, precisionPrelude } from '../common/precision.js';
import type { TriangularOp, TrsmLeafParams, TrsmVariant } from './params.js';

/** trsm: forward substitution, in place (element p needs the solved q < p). */
const SOLVE = `for (int p = 0; p < t; ++p) {
        const real* row = sL + p * (p + 1) / 2;
        real s0 = sX[p * ldx + v], s1 = real(0);
        int q = 0;
        for (; q + 1 < p; q += 2) {
          s0 = fmaReal(-row[q], sX[q * ldx + v], s0);
          s1 = fmaReal(-row[q + 1], sX[(q + 1) * ldx + v], s1);
        }
        if (q < p) s0 = fmaReal(-row[q], sX[q * ldx + v], s0);
        real s = s0 + s1;
        if (!UNIT) s = s / row[p];
        sX[p * ldx + v] = s;
      }`;

/** trmm: y = L x, in place from the last element (element p needs the inputs q <= p). */
const MULTIPLY = `for (int p = t - 1; p >= 0; --p) {
        const real* row = sL + p * (p + 1) / 2;
        real s0 = UNIT ? sX[p * ldx + v] : row[p] * sX[p * ldx + v], s1 = real(0);
        int q = 0;
        for (; q + 1 < p; q += 2) {
          s0 = fmaReal(row[q], sX[q * ldx + v], s0);
          s1 = fmaReal(row[q + 1], sX[(q + 1) * ldx + v], s1);
        }
        if (q < p) s0 = fmaReal(row[q], sX[q * ldx + v], s0);
        sX[p * ldx + v] = s0 + s1;
      }`;

/** Most threads a leaf block launches (vectors x matrices): the plan keeps within it. */
export const LEAF_MAX_THREADS = 256;

/** Reads of the triangle each thread has in flight while loading it into shared memory. */
const LOAD_UNROLL = 4;

/** What the leaf's text depends on besides the operand form. */
export type TrsmLeafVariant = TrsmVariant & { readonly op: TriangularOp; readonly dtype: TrsmLeafParams['dtype'] };

/** How a variant maps onto the forward substitution (see the file comment). */
export interface LeafMapping {
  readonly left: boolean;
  /** M = A^T: element (i, k) of M is A(k, i). */
  readonly transposed: boolean;
  /** M is upper: the solve runs from the last element. */
  readonly reverse: boolean;
}

export function leafMapping(v: TrsmVariant): LeafMapping {
  const left = v.side === 'left';
  // left: M = op(A), transposed iff transA = T; right: M = op(A)^T, transposed iff transA = N.
  const transposed = left === (v.transA === 'T');
  // The stored triangle of A is upper iff uplo = upper; M's is the other one where M = A^T.
  const reverse = (v.uplo === 'upper') !== transposed;
  return { left, transposed, reverse };
}

/** Kernel-name fragment of a variant: side, uplo, trans, diag as BLAS letters (e.g. LLNN). */
export function variantTag(v: TrsmVariant): string {
  return `${v.side === 'left' ? 'L' : 'R'}${v.uplo === 'lower' ? 'L' : 'U'}${v.transA}${v.diag === 'unit' ? 'U' : 'N'}`;
}

/** Loops `body` over the t x count tile of one matrix, `fast` the index that runs along memory. */
function tileLoop(slowName: string, fastName: string, fastCount: string, slowCount: string, body: string): string {
  return `for (int e = v; e < ${fastCount} * ${slowCount}; e += V) {
      const int ${fastName} = e % ${fastCount}, ${slowName} = e / ${fastCount};
      ${body}
    }`;
}

/** The coalesced walk over the vectors' tile: p along B's columns (left) or vv along B's rows (right). */
function vectorTileLoop(left: boolean, body: string): string {
  return left ? tileLoop('vv', 'p', 't', 'nv', body) : tileLoop('p', 'vv', 'nv', 't', body);
}

/**
 * The compile-time-order leaves' walk over the T x T square of A along its columns (register and
 * product leaves): a thread's `steps` reads of the referenced triangle (L(p, q) = M(at(p), at(q)),
 * q <= p, the diagonal only where not unit; zeros elsewhere) into r[], every read issued before the
 * stores, element e = `thread` + u * `stride`. Needs a, t, ldA, T and the leafHeader constants.
 */
export function triangleReads(m: LeafMapping, thread: string, stride: string, steps: string): string {
  const slow = m.transposed ? 'p' : 'q', fast = m.transposed ? 'q' : 'p';
  return `    #pragma unroll
    for (int u = 0; u < ${steps}; ++u) {
      const int e = ${thread} + u * ${stride}, ${fast} = e % T, ${slow} = e / T;
      const int i = at(p, t), k = at(q, t);
      r[u] = e < T * T && p < t && (q < p || (!UNIT && q == p)) ? (TRANSPOSED ? a[k + (long long)i * ldA] : a[i + (long long)k * ldA]) : real(0);
    }`;
}

/** triangleReads' values into shared memory: element (p, q) of the triangle at `slot` (an expression of p and q). */
export function triangleStores(m: LeafMapping, thread: string, stride: string, steps: string, slot: string): string {
  const slow = m.transposed ? 'p' : 'q', fast = m.transposed ? 'q' : 'p';
  return `    #pragma unroll
    for (int u = 0; u < ${steps}; ++u) {
      const int e = ${thread} + u * ${stride}, ${fast} = e % T, ${slow} = e / T;
      if (e < T * T && p < t && (q < p || (!UNIT && q == p))) ${slot} = r[u];
    }`;
}

/** The precision, the variant's constants and the element map `at`, before the kernel. */
export function leafHeader(p: TrsmLeafVariant): string {
  const m = leafMapping(p);
  return `${precisionPrelude(p.dtype)}

// The variant (${p.side}, ${p.uplo}, ${p.transA}, ${p.diag}) as the lower triangular ${p.op === 'trsm' ? 'solve' : 'product'} sees it.
constexpr bool TRANSPOSED = ${m.transposed};   // the solved triangle M is A^T
constexpr bool REVERSE = ${m.reverse};      // M is upper: element p of the solve is row t - 1 - p
constexpr bool UNIT = ${p.diag === 'unit'};         // unit diagonal: never read

/** Row (and column) of M that is element p of the solve. */
static __device__ __forceinline__ int at(int p, int t) { return REVERSE ? t - 1 - p : p; }
`;
}

/**
 * The leaf's work once the block knows, per matrix, `valid`, t, nvec, ldA, ldB, V, v, sL and sX:
 * L into shared memory, then every chunk of V vectors loaded, solved (or multiplied) and stored.
 * `aPointer` and `bPointer` are the matrix's first elements; `loopBound` bounds the chunks' walk
 * and must be the same for every thread of the block (the walk has barriers).
 */
export function leafBody(p: TrsmLeafVariant, aPointer: string, bPointer: string, loopBound: string): string {
  const m = leafMapping(p);
  // Element (p, vv) of the tile is element at(p) of vector w0 + vv.
  const bElement = m.left ? 'b[i + (long long)(w0 + vv) * ldB]' : 'b[(w0 + vv) + (long long)i * ldB]';
  const slow = m.transposed ? 'p' : 'q', fast = m.transposed ? 'q' : 'p';
  return `  // L(p, q) = M(at(p), at(q)), q <= p, packed by rows; the walk runs along A's columns, every
  // thread of the matrix ${LOAD_UNROLL} reads in flight (one read a thread at a time left a thread per
  // vector waiting on t^2 / V serial loads: the whole cost of a solve with few vectors).
  if (valid) {
    const real* a = ${aPointer};
    for (int e0 = v; e0 < t * t; e0 += ${LOAD_UNROLL} * V) {
      real r[${LOAD_UNROLL}];
      #pragma unroll
      for (int u = 0; u < ${LOAD_UNROLL}; ++u) {
        const int e = e0 + u * V, ${fast} = e % t, ${slow} = e / t;
        const int i = at(p, t), k = at(q, t);
        r[u] = e < t * t && (q < p || (!UNIT && q == p)) ? (TRANSPOSED ? a[k + (long long)i * ldA] : a[i + (long long)k * ldA]) : real(0);
      }
      #pragma unroll
      for (int u = 0; u < ${LOAD_UNROLL}; ++u) {
        const int e = e0 + u * V, ${fast} = e % t, ${slow} = e / t;
        if (e < t * t && (q < p || (!UNIT && q == p))) sL[p * (p + 1) / 2 + q] = r[u];
      }
    }
  }
  real* b = valid ? ${bPointer} : nullptr;

  // W vectors a chunk (the tile's columns); V >= W threads a matrix load and store it, W solve.
  const int W = min(V, ldx);
  for (int w0 = blockIdx.y * W; w0 < ${loopBound}; w0 += gridDim.y * W) {
    const int nv = min(W, nvec - w0);
    if (valid) {
      ${vectorTileLoop(m.left, `const int i = at(p, t);
      sX[p * ldx + vv] = alpha * ${bElement};`)}
    }
    __syncthreads();
    if (valid && v < nv) {
      ${p.op === 'trsm' ? SOLVE : MULTIPLY}
    }
    __syncthreads();
    if (valid) {
      ${vectorTileLoop(m.left, `const int i = at(p, t);
      ${bElement} = sX[p * ldx + vv];`)}
    }
    __syncthreads();   // the next chunk overwrites the tile
  }
`;
}

export function trsmLeafSource(p: TrsmLeafParams): KernelSource {
  const entry = `${p.op}_leaf_${precisionLetter(p.dtype)}_${variantTag(p)}_${kindTag(p.kind)}`;
  const source = `${leafHeader(p)}
extern "C" __global__ void __launch_bounds__(${LEAF_MAX_THREADS}) ${entry}(
    ${operandParameters('A', p.kind, false)},
    ${operandParameters('B', p.kind, true)},
    int count, int t, int nvec, int ldx, real alpha) {
  extern __shared__ __align__(16) unsigned char smemBytes[];
  const int V = blockDim.x, G = blockDim.y;
  const int v = threadIdx.x, g = threadIdx.y;
  const int mat = blockIdx.x * G + g;
  const bool valid = mat < count;
  const int packed = t * (t + 1) / 2;
  real* sL = reinterpret_cast<real*>(smemBytes) + (long long)g * (packed + t * ldx);
  real* sX = sL + packed;

${leafBody(p, matrixPointer('A', p.kind, 'mat'), matrixPointer('B', p.kind, 'mat'), 'nvec')}}
`;
  return { name: `${entry}.cu`, source, entry };
}
