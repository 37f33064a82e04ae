/**
 * Complex triangular solve (ztrsm, ctrsm) with a triangle of order N <= 32, the right-hand sides
 * across threads: B := alpha op(A)^-1 B ('left') or alpha B op(A)^-1 ('right'), op 'N', 'T' or 'C',
 * unit or non-unit diagonal, every vector of B against one triangular T as in generate-small.ts
 * (common/triangle-warp.ts triangleView: the columns of B against op(A) for 'left', its rows
 * against op(A)^T for 'right').
 *
 * A block takes MPB matrices. Its threads first load the stored triangle of each (the solve's side,
 * the diagonal only for 'nonunit'; the other triangle is never read) from global memory, consecutive
 * threads on consecutive elements of a column, into shared memory, packed column by column in A's
 * own coordinates (conjugated on the way for 'C', each diagonal entry replaced by its reciprocal,
 * Smith's as divisor.ts; where the entry's modulus is below the smallest normal number its
 * reciprocal may overflow, so the entry is scaled by 2^64 first, exactly, and a bit of the matrix's
 * mask says to scale x(k) back by 2^64 after the multiply: a nonzero x(k) = z / d is then at least
 * 2^-52 in modulus (|z| at least the smallest subnormal number), so x(k) 2^-64 is normal and the
 * product loses nothing). Then each matrix's LANES threads take RPT vectors each (vector q of the
 * pass: thread q mod LANES), hold them in registers (N pairs a vector) and run the substitution, a
 * column sweep fully unrolled: x(k) := x(k) / T(k, k), then x(r) -= T(r, k) x(k) for the rows
 * after k (forward for lower T, backward for upper), every T(r, k) a shared-memory load at a
 * constant offset that the matrix's threads read together (a broadcast). A slot of shared memory
 * is padded so that the same element of the block's matrices lies in distinct banks.
 *
 * Rows of B ('right') are read and written coalesced (consecutive threads, consecutive rows);
 * columns ('left') by each thread in turn along its own column, every sector used by neighbouring
 * loads of the same thread.
 *
 * Vectors beyond a pass (CHUNK = LANES RPT) go pass by pass, the passes spread over blockIdx.y
 * (common/triangle-warp.ts passGridY), each y block loading its matrices' triangles once. With
 * `early` the first pass's vectors are loaded before the triangles, both loads in flight at once
 * (the registers that hold them are the solve's anyway).
 *
 * Semantics as generate-small.ts: alpha scales B as it is loaded (not where alpha is exactly 1),
 * alpha = 0 stores zeros without reading A or B; a zero diagonal entry gives a NaN reciprocal and
 * NaN from that row on, as the reference's division by zero does; NaN and Inf stay within their
 * matrix. Only B's matrices are written.
 */
import type { DType } from '../../../core/dtype.js';
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { complexBytes, complexLetter, complexPrelude, complexScalarHelpers } from '../common/complex.js';
import { mathHelpers, precisionPrelude } from '../common/precision.js';
import { diagonalSafe } from '../common/diagonal-scale.js';
import { triangleView } from '../common/triangle-warp.js';
import { DIVISOR } from './divisor.js';
import type { ZtrsmColumnsParams } from './params.js';

/** Static shared memory a block may use (no opt-in). */
export const COLUMNS_SHARED_MAX = 48 * 1024;

/** Most threads a block. */
const BLOCK_THREADS_MAX = 1024;

/** The block's shape: threads (a whole number of warps), pairs a matrix slot, shared bytes. */
export interface ColumnsLayout {
  readonly threads: number;
  readonly slot: number;
  readonly sharedBytes: number;
}

/**
 * Pairs of one matrix's slot: the packed triangle N (N + 1) / 2, padded to 1 more than a multiple
 * of the pairs in 32 banks (8 complex128, 16 complex64), so that element e of slot m lies m pairs
 * of banks after slot 0's (distinct for the matrices a warp's threads can hold).
 */
export function columnsSlot(dtype: DType, n: number): number {
  const perBanks = 128 / complexBytes(dtype);
  const packed = (n * (n + 1)) / 2;
  return Math.ceil((packed - 1) / perBanks) * perBanks + 1;
}

export function columnsLayout(p: Pick<ZtrsmColumnsParams, 'dtype' | 'n' | 'matrices' | 'lanes'>): ColumnsLayout {
  const slot = columnsSlot(p.dtype, p.n);
  return { threads: Math.ceil((p.matrices * p.lanes) / 32) * 32, slot, sharedBytes: p.matrices * slot * complexBytes(p.dtype) };
}

/** The kernel's entry: ztrsm_<z|c>_<side><uplo><trans><diag>_n<N>_cols_m<MPB>_l<LANES>_r<RPT>[e]_<forms> (e: B's first pass early). */
function columnsEntry(p: ZtrsmColumnsParams): string {
  const flags = `${p.side === 'left' ? 'l' : 'r'}${p.uplo === 'lower' ? 'l' : 'u'}${p.transA.toLowerCase()}${p.diag === 'unit' ? 'u' : 'n'}`;
  return `ztrsm_${complexLetter(p.dtype)}_${flags}_n${p.n}_cols_m${p.matrices}_l${p.lanes}_r${p.rhs}${p.early ? 'e' : ''}_${kindTag(p.kindA)}${kindTag(p.kindB)}`;
}

/** `constexpr int NAME = value;`, the comments of a block in one column. */
const constant = (name: string, value: string, comment?: string): string => {
  const text = `constexpr int ${name} = ${value};`;
  return comment === undefined ? text : `${text.padEnd(36)}// ${comment}`;
};

const positive = (name: string, v: number, max: number): void => {
  if (!Number.isInteger(v) || v < 1 || v > max) throw new RangeError(`ztrsm columns: ${name} must be an integer in 1 .. ${max}, got ${v}`);
};

export function ztrsmColumnsSource(p: ZtrsmColumnsParams): KernelSource {
  positive('n', p.n, 32);
  positive('lanes', p.lanes, 32);
  positive('rhs', p.rhs, 32);
  positive('matrices', p.matrices, BLOCK_THREADS_MAX);
  const layout = columnsLayout(p);
  if (layout.threads > BLOCK_THREADS_MAX) throw new RangeError(`ztrsm columns: ${p.matrices} matrices of ${p.lanes} lanes exceed ${BLOCK_THREADS_MAX} threads`);
  if (layout.sharedBytes > COLUMNS_SHARED_MAX) throw new RangeError(`ztrsm columns: ${p.matrices} triangles of order ${p.n} need ${layout.sharedBytes} bytes of shared memory (at most ${COLUMNS_SHARED_MAX})`);
  const v = triangleView(p);
  const lowerA = p.uplo === 'lower';
  const entry = columnsEntry(p);
  // Element r of vector q of B: a column of B (left) or a row (right).
  const bAt = (q: string, r: string): string => (v.left ? `b[${r} + (long long)(${q}) * ldB]` : `b[(${q}) + (long long)(${r}) * ldB]`);
  // T(r, k) in A's coordinates.
  const tAt = (r: string, k: string): string => (v.rowwise ? `packedAt(${r}, ${k})` : `packedAt(${k}, ${r})`);
  // x := pass `pass`'s vectors of B (zero where none), unscaled.
  const loadPass = (indent: string): string => `${indent}#pragma unroll
${indent}for (int c = 0; c < RPT; ++c) {
${indent}  const int q = pass * CHUNK + c * LANES + lane;
${indent}  const bool live = valid && q < nrhs;
${indent}#pragma unroll
${indent}  for (int r = 0; r < N; ++r) x[c][r] = live ? ${bAt('q', 'r')} : makeReal2(real(0), real(0));
${indent}}`.replace(/^ *#pragma/gm, '#pragma');
  const strictly = lowerA ? 'i > j' : 'i < j';
  const stored = v.unit ? strictly : lowerA ? 'i >= j' : 'i <= j';
  const constants = [
    constant('N', `${p.n}`),
    constant('MPB', `${p.matrices}`, 'matrices per block'),
    constant('LANES', `${p.lanes}`, 'threads per matrix'),
    constant('RPT', `${p.rhs}`, 'vectors per thread'),
    constant('CHUNK', 'LANES * RPT', 'vectors of a matrix per pass'),
    constant('THREADS', `${layout.threads}`, 'MPB * LANES in whole warps'),
    constant('SLOT', `${layout.slot}`, 'shared pairs per matrix (packed triangle, padded)'),
    constant('LOADS', `${Math.ceil((p.matrices * p.n * p.n) / layout.threads)}`, 'elements of the block\'s squares per thread'),
  ].join('\n');
  const source = `${precisionPrelude(p.dtype)}
${mathHelpers(p.dtype)}
${complexPrelude(p.dtype)}
${complexScalarHelpers(p.dtype)}
${v.unit ? '' : `${DIVISOR}
constexpr real TWO64 = real(18446744073709551616.0);   // 2^64: a subnormal diagonal entry times it is normal`}
${constants}

// Place of stored A(i, j) in a slot: A's ${p.uplo} triangle packed column by column.
static __device__ __forceinline__ constexpr int packedAt(int i, int j) {
  return ${lowerA ? 'j * N - j * (j - 1) / 2 + (i - j)' : 'j * (j + 1) / 2 + i'};
}

// T = ${v.left ? 'op(A)' : 'op(A)^T'} is ${v.lowerT ? 'lower' : 'upper'} triangular, T(r, k) = ${v.conj ? 'conj ' : ''}A(${v.rowwise ? 'r, k' : 'k, r'}); ${v.unit ? 'unit' : 'non-unit'} diagonal.
extern "C" __global__ void __launch_bounds__(THREADS) ${entry}(
    ${operandParameters('A', p.kindA, false, 'real2')},
    ${operandParameters('B', p.kindB, true, 'real2')},
    const int* __restrict__ index, int count, int nrhs, double alphaRe, double alphaIm) {
  __shared__ __align__(16) real2 sA[MPB * SLOT];
${v.unit ? '' : `  __shared__ unsigned sTiny[MPB];                    // bit k: 1 / (T(k, k) 2^64) kept (1 / T(k, k) may overflow)
`}  const int tid = threadIdx.x;
  const int slot = tid / LANES;                       // this thread's matrix in the block
  const int lane = tid - slot * LANES;
  const long long first = (long long)blockIdx.x * MPB;
  const long long mid = first + slot;
  const bool valid = slot < MPB && mid < count;
  const long long id = valid ? (index ? (long long)index[mid] : mid) : 0;
  real2* b = valid ? ${matrixPointer('B', p.kindB, 'id')} : nullptr;
  const int passes = (nrhs + CHUNK - 1) / CHUNK;
  if (alphaRe == 0.0 && alphaIm == 0.0) {             // B := 0, A and B not read (one value for the whole launch)
    if (valid) {
      for (int pass = blockIdx.y; pass < passes; pass += gridDim.y) {
#pragma unroll
        for (int c = 0; c < RPT; ++c) {
          const int q = pass * CHUNK + c * LANES + lane;
          if (q < nrhs) {
#pragma unroll
            for (int r = 0; r < N; ++r) ${bAt('q', 'r')} = makeReal2(real(0), real(0));
          }
        }
      }
    }
    return;
  }
  int pass = blockIdx.y;
  real2 x[RPT][N];
${p.early ? `  // The first pass's vectors, in flight while the triangles load.
${loadPass('  ')}
` : ''}${v.unit ? '' : `  for (int m = tid; m < MPB; m += THREADS) sTiny[m] = 0u;
`}  // The block's triangles: element e of the MPB squares (column-major in each), kept where stored.
#pragma unroll
  for (int l = 0; l < LOADS; ++l) {
    const int e = tid + l * THREADS;
    const int m = e / (N * N), w = e - m * (N * N);
    const int i = w % N, j = w / N;
    const long long am = first + m;
    if (m < MPB && am < count && ${stored}) {
      const long long aid = index ? (long long)index[am] : am;
      const real2 t = ${v.conj ? 'conjReal2(' : ''}${matrixPointer('A', p.kindA, 'aid')}[i + (long long)j * ldA]${v.conj ? ')' : ''};
      sA[m * SLOT + packedAt(i, j)] = t;
    }
  }
  __syncthreads();
${v.unit ? '' : `  // Each diagonal entry replaced by its reciprocal (Smith's), one thread an entry; below the smallest
  // normal modulus, by the reciprocal of the entry times 2^64 (bit k of the matrix's mask).
  for (int e = tid; e < MPB * N; e += THREADS) {
    const int m = e / N, k = e - m * N;
    if (first + m >= count) continue;
    real2 d = sA[m * SLOT + packedAt(k, k)];
    if (!(${diagonalSafe(p.dtype, true, 'd')})) {
      d = makeReal2(d.x * TWO64, d.y * TWO64);
      atomicOr(&sTiny[m], 1u << k);
    }
    sA[m * SLOT + packedAt(k, k)] = divBy(makeReal2(real(1), real(0)), divisorOf(d));
  }
  __syncthreads();
`}  const bool scale = !(alphaRe == 1.0 && alphaIm == 0.0);
  const real2 alpha = makeReal2((real)alphaRe, (real)alphaIm);
  for (; pass < passes; pass += gridDim.y) {
    // The slot's offset made opaque in each pass: hoisted out of the pass loop, the triangle's loads
    // would hold all of T in registers (2 n^2 more) and spill.
    int at = (valid ? slot : 0) * SLOT;
#ifdef __CUDA_ARCH__
    asm volatile("" : "+r"(at));
#endif
    const real2* t = sA + at;
${v.unit ? '' : '    const unsigned tiny = sTiny[valid ? slot : 0];\n'}${p.early ? `    if (pass != (int)blockIdx.y) {
${loadPass('      ')}
    }` : loadPass('    ')}
    if (scale) {
#pragma unroll
      for (int c = 0; c < RPT; ++c)
#pragma unroll
        for (int r = 0; r < N; ++r) x[c][r] = mulReal2(alpha, x[c][r]);
    }
#pragma unroll
    for (int s = 0; s < N; ++s) {
      const int k = ${v.lowerT ? 's' : 'N - 1 - s'};
${v.unit ? '' : `      const real2 d = t[packedAt(k, k)];            // 1 / T(k, k), or 1 / (T(k, k) 2^64) where bit k of tiny is set
#pragma unroll
      for (int c = 0; c < RPT; ++c) x[c][k] = mulReal2(x[c][k], d);
      if ((tiny >> k) & 1u) {
#pragma unroll
        for (int c = 0; c < RPT; ++c) x[c][k] = makeReal2(x[c][k].x * TWO64, x[c][k].y * TWO64);
      }
`}#pragma unroll
      for (int u = 1; u < N; ++u) {                 // constant trip counts: the nest unrolls whole, x stays in registers
        if (u > s) {
          const int r = ${v.lowerT ? 'u' : 'N - 1 - u'};
          const real2 trk = t[${tAt('r', 'k')}];
#pragma unroll
          for (int c = 0; c < RPT; ++c) x[c][r] = fmsReal2(trk, x[c][k], x[c][r]);
        }
      }
    }
#pragma unroll
    for (int c = 0; c < RPT; ++c) {
      const int q = pass * CHUNK + c * LANES + lane;
      if (valid && q < nrhs) {
#pragma unroll
        for (int r = 0; r < N; ++r) ${bAt('q', 'r')} = x[c][r];
      }
    }
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}
