/**
 * zgetrf and zgesv for n <= 32: getrf/generate-small.ts's register design (the papers' REG-v3
 * with delayed row swapping) over `real2` pairs.
 *
 * Thread r keeps row r of the matrix in registers and never moves it: a swap only changes which
 * position each row occupies (`pos`, LAPACK's row order after the swaps so far), and each row is
 * written once, at the end, to its final position. Step k: every row not yet chosen offers
 * |re| + |im| of its entry k (zgetf2's izamax: the first position of the largest wins, a later one
 * only when strictly larger, so a NaN at position k is kept and a NaN elsewhere never wins: keys
 * +inf and -1); a butterfly of shuffles over the matrix's lanes finds it; the pivot row publishes
 * itself to shared memory; the other rows scale by the pivot's reciprocal (dividing instead where
 * |pivot| is below the safe minimum, as zgetf2) and take the rank-1 update. An exactly zero pivot
 * (both parts) sets info (the first only), is neither swapped nor scaled, and the factorisation
 * goes on.
 *
 * zgesv factors the bordered [A | B(:, 0..RB)], so the forward substitution rides through the
 * factorisation; the backward sweep hands x(k) from the lane at position k to the others by
 * shuffles (solve/generate-small.ts). A matrix whose factorisation fails keeps its B. With
 * `solveAfter` it factors A alone (n pairs a row, not n + RB: fewer registers where n is near 32)
 * and every pass of RB columns runs the forward sweep (L y = P b, row r of B being row pos of P B)
 * and the backward one.
 */
import type { KernelSource } from '../../runtime/types.js';
import { dtypeInfo } from '../../../core/dtype-table.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { complexLetter } from '../common/complex.js';
import { slotSetup } from '../common/warp-slots.js';
import type { ComplexGesvParams, ComplexGetrfParams, ComplexRegisterStep } from './params.js';
import { COMPLEX_LAUNCH_BOUNDS, complexSlotPrelude, nextPow2, type ComplexSlotLayout } from './slots.js';
import { complexSweep, DIVIDE } from './sweep.js';
import { diagonalReciprocal } from '../common/diagonal-scale.js';
import { pairsPerVector, warpLuRowsSource, warpPrefetchSource } from './warp-step.js';

/**
 * The slot layout of a factorisation of `rows` rows and `cols` pairs a row: the group step's power-of-two
 * group of lanes and the pivot row in each buffer; the warp step's whole warp and the pivot row in
 * whole 16-byte vectors.
 */
function luLayout(dtype: ComplexGetrfParams['dtype'], rows: number, cols: number, warps: number, step: ComplexRegisterStep | undefined): ComplexSlotLayout {
  if (step !== 'warp') return { dtype, rows, lanes: nextPow2(rows), warps, pairs: cols };
  const pv = pairsPerVector(dtype);
  return { dtype, rows, lanes: 32, warps, pairs: Math.ceil(cols / pv) * pv };
}

export function complexGetrfLayout(p: ComplexGetrfParams): ComplexSlotLayout {
  return luLayout(p.dtype, p.rows, p.cols, p.warps, p.step);
}

export function complexGesvLayout(p: ComplexGesvParams): ComplexSlotLayout {
  return luLayout(p.dtype, p.n, p.n + (p.solveAfter ? 0 : p.rhs), p.warps, p.step);
}

/** The entry's suffix of a step other than the default ('rc': the reciprocal out of line; 'pf' and the warps: the L2 prefetch). */
const stepTag = (p: { step?: ComplexRegisterStep | undefined; reciprocalCall?: boolean | undefined; prefetchWarps?: number | undefined }): string =>
  (p.step === 'warp' ? `_warp${p.reciprocalCall ? 'rc' : ''}${p.prefetchWarps !== undefined ? `pf${p.prefetchWarps}` : ''}` : '');

/** The warp step's prefetch helpers where the parameters ask for them. */
const prefetchHelpers = (p: { dtype: ComplexGetrfParams['dtype']; step?: ComplexRegisterStep | undefined; prefetchWarps?: number | undefined }): string =>
  (p.step === 'warp' && p.prefetchWarps !== undefined ? `\n${warpPrefetchSource({ dtype: p.dtype, prefetchWarps: p.prefetchWarps })}` : '');

/**
 * The statement that prefetches the next round's matrix (after this warp's own loads are issued, so
 * a pointer-form table read waits beside them): operands as [name, kind, rows, cols].
 */
function prefetchStatement(p: { step?: ComplexRegisterStep | undefined; prefetchWarps?: number | undefined }, operands: readonly [string, ComplexGetrfParams['kind'], string, string][]): string {
  if (p.step !== 'warp' || p.prefetchWarps === undefined) return '';
  const calls = operands.map(([name, kind, rows, cols]) => `prefetchColumn(${matrixPointer(name as 'A' | 'B', kind, 'next')}, ld${name}, ${rows}, ${cols}, lane);`);
  return `
  if (live) {                                       // the matrix a later round takes, to L2
    const long long next = mid + prefetchAhead();
    if (next < count && next != mid) { ${calls.join(' ')} }
  }`;
}

/** The in-register LU of the step the parameters name. */
const luSource = (p: { dtype: ComplexGetrfParams['dtype']; rows: number; cols: number; step?: ComplexRegisterStep | undefined; reciprocalCall?: boolean | undefined }): string =>
  p.step === 'warp' ? warpLuRowsSource({ ...p, reciprocalCall: p.reciprocalCall === true }) : luRowsSource(p);

/**
 * The in-register LU of the rows of one matrix (ROWS <= N lanes hold rows, COLS pairs a row):
 * after it, thread r holds in rA the final row at position `pos`: L(pos, 0..pos) (unit diagonal
 * implied) and U(pos, pos..). Returns info.
 */
function luRowsSource(p: { dtype: ComplexGetrfParams['dtype']; rows: number; cols: number }): string {
  return `constexpr int ROWS = ${p.rows};
constexpr int COLS = ${p.cols};
constexpr int STEPS = ROWS < COLS ? ROWS : COLS;
constexpr real SAFE_MIN = ${dtypeInfo(p.dtype).cuda.safeMin};

// Key of a pivot candidate: larger |re| + |im| wins, ties go to the smaller position (izamax).
static __device__ __forceinline__ void pivotKey(real2 x, bool candidate, int pos, int k, real& key, int& kpos) {
  const real m = abs1Real2(x);
  key = !candidate ? real(-2) : (m != m ? (pos == k ? infReal() : real(-1)) : m);
  kpos = candidate ? pos : 0x7fffffff;
}

static __device__ __forceinline__ int luRows(real2 (&rA)[COLS], int r, int& pos, real2* c0, real2* c1, int* __restrict__ piv) {
  int info = 0;
  bool done = false;
  pos = r;
#pragma unroll
  for (int k = 0; k < STEPS; ++k) {
    real2* sr = (k & 1) ? c1 : c0;              // alternate buffers: no barrier before the next write
    real key; int kpos;
    pivotKey(rA[k], r >= 0 && !done, pos, k, key, kpos);
#pragma unroll
    for (int off = LANES / 2; off > 0; off >>= 1) {
      const real ok = __shfl_xor_sync(0xffffffffu, key, off);
      const int op = __shfl_xor_sync(0xffffffffu, kpos, off);
      if (ok > key || (ok == key && op < kpos)) { key = ok; kpos = op; }
    }
    const int p = kpos;
    const bool winner = r >= 0 && !done && pos == p;
    if (winner) {
#pragma unroll
      for (int j = k; j < COLS; ++j) sr[j] = rA[j];
      if (piv) piv[k] = p;
    }
    __syncwarp();
    const real2 pivot = sr[k];
    const bool zero = isZeroReal2(pivot);
    if (zero && info == 0) info = k + 1;
    if (winner) { done = true; pos = k; }
    else if (r >= 0 && !done) {
      if (pos == k) pos = p;                       // the row that was at k takes the pivot's place
      real2 l = rA[k];
      if (!zero) l = modulusReal2(pivot) >= SAFE_MIN ? mulReal2(l, divReal2(makeReal2(1, 0), pivot)) : divReal2(l, pivot);
      rA[k] = l;
#pragma unroll
      for (int j = k + 1; j < COLS; ++j) rA[j] = fmsReal2(l, sr[j], rA[j]);
    }
  }
  return info;
}`;
}

/** The slot's column buffers as pairs. */
const BUFFERS = `  real2* z0 = reinterpret_cast<real2*>(c0);
  real2* z1 = reinterpret_cast<real2*>(c1);`;

export function complexGetrfSource(p: ComplexGetrfParams): KernelSource {
  const entry = `getrf_${complexLetter(p.dtype)}_${p.rows}x${p.cols}_${kindTag(p.kind)}_w${p.warps}${stepTag(p)}`;
  const source = `${complexSlotPrelude(complexGetrfLayout(p))}
${luSource(p)}${prefetchHelpers(p)}

extern "C" __global__ void ${COMPLEX_LAUNCH_BOUNDS} ${entry}(
    ${operandParameters('A', p.kind, true, 'real2')},
    int* __restrict__ ipiv, int pivotStride, int* __restrict__ info, const int* __restrict__ index, int count) {
${slotSetup()}
${BUFFERS}
  real2* a = valid ? ${matrixPointer('A', p.kind, 'mid')} : nullptr;
  const bool hasRow = valid && r < ROWS;
  real2 rA[COLS];
#pragma unroll
  for (int j = 0; j < COLS; ++j) rA[j] = hasRow ? a[r + (long long)j * ldA] : makeReal2(0, 0);${prefetchStatement(p, [['A', p.kind, 'ROWS', 'COLS']])}
  int pos;
  const int inf = luRows(rA, hasRow ? r : -1, pos, z0, z1, valid ? ipiv + id * (long long)pivotStride : nullptr);
  if (hasRow) {
#pragma unroll
    for (int j = 0; j < COLS; ++j) a[pos + (long long)j * ldA] = rA[j];
  }
  if (valid && r == 0) info[id] = inf;
}
`;
  return { name: `${entry}.cu`, source, entry };
}

export function complexGesvSource(p: ComplexGesvParams): KernelSource {
  const after = p.solveAfter === true;
  const entry = `gesv_${complexLetter(p.dtype)}_n${p.n}_r${p.rhs}${p.more ? 'm' : ''}_${kindTag(p.kindA)}${kindTag(p.kindB)}_w${p.warps}${stepTag(p)}${after ? '_sa' : ''}`;
  // Rows are at positions `pos`; the lane of position k is lmap[k]. Backward: U x = z, row k's
  // value over U(k, k) is x(k) at step k.
  const backward = (z: string, out: string): string => complexSweep({ down: false, elem: 'rA[k]', lane: 'lmap[k]', scale: DIVIDE, x: z, out, rowIs: 'pos' });
  const source = `${complexSlotPrelude(complexGesvLayout(p))}
${luSource({ dtype: p.dtype, rows: p.n, cols: p.n + (after ? 0 : p.rhs), step: p.step, reciprocalCall: p.reciprocalCall })}${prefetchHelpers(p)}
constexpr int RB = ${p.rhs};
constexpr int SN = ROWS;

extern "C" __global__ void ${COMPLEX_LAUNCH_BOUNDS} ${entry}(
    ${operandParameters('A', p.kindA, true, 'real2')},
    ${operandParameters('B', p.kindB, true, 'real2')},
    int* __restrict__ ipiv, int pivotStride, int* __restrict__ info, const int* __restrict__ index, int count, int nrhs) {
${slotSetup()}
${BUFFERS}
  real2* a = valid ? ${matrixPointer('A', p.kindA, 'mid')} : nullptr;
  real2* b = valid ? ${matrixPointer('B', p.kindB, 'mid')} : nullptr;
  const bool hasRow = valid && r < ROWS;
  real2 rA[COLS];                                   // row r of ${after ? 'A' : '[A | B(:, 0..RB)]'}
#pragma unroll
  for (int j = 0; j < ROWS; ++j) rA[j] = hasRow ? a[r + (long long)j * ldA] : makeReal2(0, 0);
${after ? '' : `#pragma unroll
  for (int c = 0; c < RB; ++c) rA[ROWS + c] = hasRow ? b[r + (long long)c * ldB] : makeReal2(0, 0);`}${prefetchStatement(p, [['A', p.kindA, 'ROWS', 'ROWS'], ['B', p.kindB, 'ROWS', 'nrhs']])}
  int pos;
  const int inf = luRows(rA, hasRow ? r : -1, pos, z0, z1, valid ? ipiv + id * (long long)pivotStride : nullptr);
  if (hasRow) {
#pragma unroll
    for (int j = 0; j < ROWS; ++j) a[pos + (long long)j * ldA] = rA[j];
  }
  // The lane of each position, in the buffer the last step did not use (all reads of it are done).
  int* lmap = reinterpret_cast<int*>((STEPS & 1) ? z1 : z0);
  if (hasRow) lmap[pos] = lane;
  __syncwarp();
  real2 diag = makeReal2(1, 0);
#pragma unroll
  for (int k = 0; k < ROWS; ++k) if (pos == k) diag = rA[k];
  // 1 / U(pos, pos), and whether it is used (LAPACK's trsm divides: a subnormal diagonal's reciprocal overflows).
  ${diagonalReciprocal(p.dtype, true)}
  const bool solve = hasRow && inf == 0;
${after ? '' : `  {
    real2 z[RB], x[RB];
#pragma unroll
    for (int c = 0; c < RB; ++c) { z[c] = rA[ROWS + c]; x[c] = makeReal2(0, 0); }   // y(pos, c) = (L \\ P b)(pos)
    ${backward('z', 'x')}
    if (solve) {
#pragma unroll
      for (int c = 0; c < RB; ++c) b[pos + (long long)c * ldB] = x[c];
    }
  }
`}${p.more || after ? `  for (int q0 = ${after ? '0' : 'RB'}; q0 < ${p.more ? 'nrhs' : 'RB'}; q0 += RB) {${after ? '   // each pass' : '          // further columns'}: row r of B is row pos of P B
    real2 x[RB], z[RB], w[RB];
#pragma unroll
    for (int c = 0; c < RB; ++c) {
      x[c] = (solve && q0 + c < nrhs) ? b[r + (long long)(q0 + c) * ldB] : makeReal2(0, 0);
      z[c] = makeReal2(0, 0); w[c] = makeReal2(0, 0);
    }
    ${complexSweep({ down: true, elem: 'rA[k]', lane: 'lmap[k]', scale: '', x: 'x', out: 'z', rowIs: 'pos' })}
    ${backward('z', 'w')}
    if (solve) {
#pragma unroll
      for (int c = 0; c < RB; ++c) if (q0 + c < nrhs) b[pos + (long long)(q0 + c) * ldB] = w[c];
    }
  }
` : ''}
  (void)nrhs;
  if (valid && r == 0) info[id] = inf;
}
`;
  return { name: `${entry}.cu`, source, entry };
}
