/**
 * Solves for n <= 32: fused posv and gesv (factor in registers, then solve with the factor still
 * in registers: A and B each read once and written once), and potrs/getrs with a factor read once.
 *
 * Right-hand sides go RB at a time (RB = min(nrhs, 4), a compile-time constant: no work on absent
 * columns); thread r holds row r of each.
 * - The first RB columns of posv/gesv ride through the factorisation as extra columns of the
 *   bordered matrix [A | B] (potrf/ and getrf/generate-small.ts): the forward substitution costs no
 *   serial steps of its own, and B is loaded with A, so a warp waits for memory once.
 * - Every other substitution is a column sweep: at step k the thread of row k finishes x(k) and
 *   hands it to the other rows of its matrix with one __shfl_sync (no shared memory, no barrier);
 *   each row updates its own value with an element it already holds. The sweeps need, in thread r:
 *     potrs:  L(r, j<r) and L(j>r, r) (row and column r of L: the symmetric row, one array);
 *     posv:   L(r, j<r) in rA, and L(k, r) L(r, r) = column r as published at step r, which the
 *             factorisation keeps in shared memory (one buffer per column, no extra stores);
 *     getrs N / gesv: row r of L\U (rows never move in the LU: delayed swapping, section 4.4);
 *     getrs T: column r of L\U.
 *   Thread r keeps the result of step r; what the FMA does to its value afterwards is not used.
 * A matrix whose factorisation fails (info > 0) keeps its B, as LAPACK's posv/gesv.
 */
import type { DType } from '../../../core/dtype.js';
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { elementBytes, precisionLetter } from '../common/precision.js';
import type { FusedSolveParams, PosvSmallParams, SmallSolveParams } from './params.js';
import { historyStride, slotSetup, type SmallLayout, smallPrelude } from '../common/warp-slots.js';
import { choleskyRowsSource, loadFactorRows, storeFactorRows } from '../potrf/index.js';
import { getrfSmallLayout, luPrelude } from '../getrf/index.js';
import { diagonalReciprocal, overDiagonal } from '../common/diagonal-scale.js';

/** Most right-hand sides per pass. */
export const RHS_MAX = 4;

/** Right-hand sides per pass for `nrhs` columns (>= 1). */
export const rhsPerPass = (nrhs: number): number => Math.max(1, Math.min(RHS_MAX, nrhs));

export const rbOf = (p: { rhs?: number }): number => rhsPerPass(p.rhs ?? 1);

export function posvLayout(p: Pick<PosvSmallParams, 'dtype' | 'n' | 'warps' | 'uplo' | 'rhs'>): SmallLayout {
  return { dtype: p.dtype, n: p.n, warps: p.warps, tile: p.uplo === 'upper', lanes: p.n, history: historyStride(p.dtype, p.n, rbOf(p)) };
}

/** The LU of the bordered n x (n + RB) matrix [A | B]. */
export function gesvLayout(p: Pick<FusedSolveParams, 'dtype' | 'n' | 'warps' | 'rhs'>): SmallLayout {
  return getrfSmallLayout(p.dtype, p.n, p.n + rbOf(p), p.warps);
}

const FULL = '0xffffffffu';

/** A sweep's scale: a factor's name, a function of row k's value, or '' (unit diagonal). */
export type Scale = string | ((v: string) => string);

/**
 * Division by U(k, k) in thread k (its diag, rinv and rsafe: diagonalReciprocal): the reciprocal
 * where it is safe, else a division, as LAPACK's trsm divides (a subnormal diagonal's reciprocal
 * overflows).
 */
export const DIVIDE: Scale = (v) => overDiagonal(false, v);

/**
 * Column sweep of one triangular solve on x[RB] (see the file comment): T(r, k) is `elem` (an
 * expression in k), `lane` the lane holding row k, `scale` the factor that turns row k's value into
 * x(k), or a function of that value giving x(k) (DIVIDE: by the diagonal; empty: unit diagonal). Thread r's result goes to out[RB]. `live` (an expression in k;
 * empty: every step): the steps that apply (a class member's own rows), the shuffle still run by
 * every lane.
 */
export function sweep(down: boolean, elem: string, lane: string, scale: Scale, x: string, out: string, rowIs: string, live = ''): string {
  const v = `${x}[c]`;
  const scaled = typeof scale === 'function' ? scale(v) : scale ? `${v} * ${scale}` : v;
  const loop = down ? 'for (int k = 0; k < SN; ++k)' : 'for (int k = SN - 1; k >= 0; --k)';
  return `#pragma unroll
    ${loop} {
      const real tk = ${elem};
      const int from = ${lane};
#pragma unroll
      for (int c = 0; c < RB; ++c) {
        const real xk = __shfl_sync(${FULL}, ${scaled}, from);
        ${live ? `if (${live}) { ` : ''}if (${rowIs} == k) ${out}[c] = xk;
        ${x}[c] = fmaReal(-tk, xk, ${x}[c]);${live ? ' }' : ''}
      }
    }`;
}

/**
 * posv's forward sweep L y = b over further columns x[RB] (z[RB] gets L(r,r) y(r, c)), with the
 * factor's rows in rA and 1 / L(r,r) in rinv (posvFurtherPass).
 */
const choleskyForward = `// L y = b: row k's value at step k is L(k,k) y(k) = z(k); y(k) = z(k) / L(k,k) goes to the others.
#pragma unroll
    for (int k = 0; k < N; ++k) {
      const real tk = rA[k];
#pragma unroll
      for (int c = 0; c < RB; ++c) {
        const real yk = __shfl_sync(${FULL}, x[c] * rinv, base + k);
        if (r == k) z[c] = x[c];
        x[c] = fmaReal(-tk, yk, x[c]);
      }
    }`;

/**
 * posv after the bordered rows are loaded: the Cholesky of [A | B(:, 0..RB)], then the backward sweep
 * of those RB columns and their store (the factor stored in between where `storeFactor` says), the
 * uniform and the class kernels' one text. `row`: whether this thread holds a row of the matrix;
 * `guard`: the condition before a column's store ('' for none); `element`: B's element of this
 * thread's row in column c.
 */
export function posvBorderedSolve(backward: (z: string, out: string) => string, row: string, storeFactor: string, guard: string, element: string): string {
  return `  real dOwn = real(1), rinv = real(0);
  const int fail = choleskyRows(rA, r, c0, c1, dOwn, rinv);
  const real rdd = rinv * rinv;                     // 1 / L(r,r)^2
  const bool solve = ${row} && fail == 0;
${storeFactor}
  {
    real z[RB], x[RB];
#pragma unroll
    for (int c = 0; c < RB; ++c) { z[c] = rA[N + c]; x[c] = real(0); }   // L(r,r) y(r, c)
    ${backward('z', 'x')}
    if (solve) {
#pragma unroll
      for (int c = 0; c < RB; ++c) ${guard}${element} = x[c];
    }
  }`;
}

/**
 * The body of posv's further pass over columns q0 ... q0 + RB - 1 (its loop header is the caller's):
 * load, forward and backward sweeps, store; `element`: B's element of this thread's row in column q0 + c.
 */
export function posvFurtherPass(backward: (z: string, out: string) => string, element: string): string {
  return `    real x[RB], z[RB], w[RB];
#pragma unroll
    for (int c = 0; c < RB; ++c) { x[c] = (solve && q0 + c < nrhs) ? ${element} : real(0); z[c] = real(0); w[c] = real(0); }
    ${choleskyForward}
    ${backward('z', 'w')}
    if (solve) {
#pragma unroll
      for (int c = 0; c < RB; ++c) if (q0 + c < nrhs) ${element} = w[c];
    }`;
}

export function posvSmallSource(p: PosvSmallParams): KernelSource {
  const rb = rbOf(p);
  const entry = `posv_${precisionLetter(p.dtype)}_${p.uplo === 'lower' ? 'l' : 'u'}_n${p.n}_r${rb}${p.more ? 'm' : ''}_${kindTag(p.kindA)}${kindTag(p.kindB)}_w${p.warps}`;
  const lower = p.uplo === 'lower';
  // Backward L^T x = y from z = L(r,r) y: x(r) = (z(r) - sum_{k>r} T(r,k) x(k)) / L(r,r)^2 with
  // T(r,k) = L(k,r) L(r,r), entry k of column r's buffer (rows >= k of it only: 0 elsewhere).
  const backward = (z: string, out: string): string =>
    sweep(false, '(r >= 0 && r < k) ? c0[r * CS + k] : real(0)', 'base + k', 'rdd', z, out, 'r');
  const storeFactor = storeFactorRows(p.uplo, 'a', 'ldA');
  const source = `${smallPrelude(posvLayout(p))}
${choleskyRowsSource(rb, true)}
constexpr int RB = RBF;
constexpr int SN = N;

extern "C" __global__ void __launch_bounds__(WARPS * 32) ${entry}(
    ${operandParameters('A', p.kindA, true)},
    ${operandParameters('B', p.kindB, true)},
    int* __restrict__ info, const int* __restrict__ index, int count, int nrhs) {
${slotSetup(true)}
  real* a = valid ? ${matrixPointer('A', p.kindA, 'mid')} : nullptr;
  real* b = valid ? ${matrixPointer('B', p.kindB, 'mid')} : nullptr;
${loadFactorRows(p.uplo, 'a', 'ldA', 'NA')}
  if (valid) {                                      // the first RB columns of B, read with A (nrhs >= RB)
#pragma unroll
    for (int c = 0; c < RB; ++c) rA[N + c] = b[r + (long long)c * ldB];
  }
${posvBorderedSolve(backward, 'valid', lower ? storeFactor : '', '', 'b[r + (long long)c * ldB]')}
${p.more ? `  for (int q0 = RB; q0 < nrhs; q0 += RB) {          // further columns: forward and backward sweeps
${posvFurtherPass(backward, 'b[r + (long long)(q0 + c) * ldB]')}
  }
` : ''}
${lower ? '' : storeFactor}
  (void)nrhs;
  if (valid && r == 0) info[id] = fail;
}
`;
  return { name: `${entry}.cu`, source, entry };
}

/** A column sweep over the rows' positions of an LU (`sweep` with that matrix's elem, lane map and row): (down, scale, x, out). */
export type PositionSweep = (down: boolean, scale: Scale, x: string, out: string) => string;

/**
 * gesv after luRows: each position's lane and pivot, then the backward sweep of the bordered columns
 * and their store, the uniform and the class kernels' one text. `row`: whether this thread holds a
 * row; `guard`: the condition before a column's store ('' for none); `element`: B's element at row pos,
 * column c.
 */
export function gesvBorderedSolve(dtype: DType, swept: PositionSweep, row: string, guard: string, element: string): string {
  return `  // The lane of each position, in the buffer the last step did not use (all reads of it are done).
  int* lmap = reinterpret_cast<int*>((STEPS & 1) ? c1 : c0);
  if (${row}) lmap[pos] = lane;
  __syncwarp();
  real diag = real(1);
#pragma unroll
  for (int k = 0; k < ROWS; ++k) if (pos == k) diag = rA[k];
  // 1 / U(pos, pos), and whether it is used (LAPACK's trsm divides: a subnormal diagonal's reciprocal overflows).
  ${diagonalReciprocal(dtype, false)}
  const bool solve = ${row} && inf == 0;
  {
    real z[RB], x[RB];
#pragma unroll
    for (int c = 0; c < RB; ++c) { z[c] = rA[ROWS + c]; x[c] = real(0); }   // y(pos, c) = (L \\ P b)(pos)
    ${swept(false, DIVIDE, 'z', 'x')}
    if (solve) {
#pragma unroll
      for (int c = 0; c < RB; ++c) ${guard}${element} = x[c];
    }
  }`;
}

/**
 * The body of gesv's further pass over columns q0 ... q0 + RB - 1 (its loop header is the caller's):
 * `load` B's element at row r, `store` at row pos (row r of B is row pos of P B), column q0 + c.
 */
export function gesvFurtherPass(swept: PositionSweep, load: string, store: string): string {
  return `    real x[RB], z[RB], w[RB];
#pragma unroll
    for (int c = 0; c < RB; ++c) { x[c] = (solve && q0 + c < nrhs) ? ${load} : real(0); z[c] = real(0); w[c] = real(0); }
    ${swept(true, '', 'x', 'z')}
    ${swept(false, DIVIDE, 'z', 'w')}
    if (solve) {
#pragma unroll
      for (int c = 0; c < RB; ++c) if (q0 + c < nrhs) ${store} = w[c];
    }`;
}

export function gesvSmallSource(p: FusedSolveParams): KernelSource {
  const rb = rbOf(p);
  const entry = `gesv_${precisionLetter(p.dtype)}_n${p.n}_r${rb}${p.more ? 'm' : ''}_${kindTag(p.kindA)}${kindTag(p.kindB)}_w${p.warps}`;
  // Rows are at positions `pos`; the lane of position k is lmap[k].
  const swept: PositionSweep = (down, scale, x, out) => sweep(down, 'rA[k]', 'lmap[k]', scale, x, out, 'pos');
  const source = `${smallPrelude(gesvLayout(p))}
${luPrelude(p.dtype, p.n, p.n + rb)}
constexpr int RB = ${rb};
constexpr int SN = ROWS;

extern "C" __global__ void __launch_bounds__(WARPS * 32) ${entry}(
    ${operandParameters('A', p.kindA, true)},
    ${operandParameters('B', p.kindB, true)},
    int* __restrict__ ipiv, int pivotStride, int* __restrict__ info, const int* __restrict__ index, int count, int nrhs) {
${slotSetup()}
  real* a = valid ? ${matrixPointer('A', p.kindA, 'mid')} : nullptr;
  real* b = valid ? ${matrixPointer('B', p.kindB, 'mid')} : nullptr;
  const bool hasRow = valid && r < ROWS;
  real rA[COLS];                                    // row r of [A | B(:, 0..RB)]
#pragma unroll
  for (int j = 0; j < ROWS; ++j) rA[j] = hasRow ? a[r + (long long)j * ldA] : real(0);
#pragma unroll
  for (int c = 0; c < RB; ++c) rA[ROWS + c] = hasRow ? b[r + (long long)c * ldB] : real(0);
  int pos;
  const int inf = luRows(rA, hasRow ? r : -1, pos, c0, c1, valid ? ipiv + id * (long long)pivotStride : nullptr);
  if (hasRow) {
#pragma unroll
    for (int j = 0; j < ROWS; ++j) a[pos + (long long)j * ldA] = rA[j];
  }
${gesvBorderedSolve(p.dtype, swept, 'hasRow', '', 'b[pos + (long long)c * ldB]')}
${p.more ? `  for (int q0 = RB; q0 < nrhs; q0 += RB) {          // further columns: row r of B is row pos of P B
${gesvFurtherPass(swept, 'b[r + (long long)(q0 + c) * ldB]', 'b[pos + (long long)(q0 + c) * ldB]')}
  }
` : ''}
  (void)nrhs;
  if (valid && r == 0) info[id] = inf;
}
`;
  return { name: `${entry}.cu`, source, entry };
}

// ---------------------------------------------------------------------------------------------
// potrs / getrs for n <= 32: the factor read once into registers, both sweeps by shuffles.

/**
 * Whether the transposed part of rA comes through the tile (else straight from memory). Columns of
 * >= 128 bytes, measured on an H100 (potrs, % of the bandwidth bound, tile vs direct): f64 n = 16
 * 70.3 vs 61.2, n = 32 59.1 vs 56.2, f32 n = 32 50.1 vs 33.2; but f64 n = 8 61.7 vs 64.0, f32
 * n = 8 59.8 vs 63.4, n = 16 48.6 vs 53.5. getrs 'T' (every element transposed) always.
 */
const solveTile = (p: Pick<SmallSolveParams, 'dtype' | 'n' | 'variant'>): boolean =>
  p.variant === 'lu-T' || (p.variant !== 'lu-N' && p.n * elementBytes(p.dtype) >= 128);

export function smallSolveLayout(p: SmallSolveParams): SmallLayout {
  return { dtype: p.dtype, n: p.n, warps: p.warps, tile: solveTile(p), lanes: p.n };
}

export function smallSolveSource(p: SmallSolveParams): KernelSource {
  const rb = rhsPerPass(p.rhs);
  const entry = `trs_${precisionLetter(p.dtype)}_${p.variant.replace('-', '_')}_n${p.n}_r${rb}_${kindTag(p.kindA)}${kindTag(p.kindB)}_w${p.warps}`;
  const lu = p.variant === 'lu-N' || p.variant === 'lu-T';
  // Thread r reads row r of the stored part coalesced (`stored`: which columns of row r exist) and
  // keeps what it needs of it (`own`); the rest of rA is the transpose (element (j, r), held by
  // thread j), through the slot's tile where solveTile says so, else read from memory (a column
  // per thread: each load scatters over the lanes' sectors).
  const [stored, own] = {
    'chol-lower': ['j <= r', 'j <= r'],   // rA[j] = L(r, j) for j <= r, L(j, r) after
    'chol-upper': ['j >= r', 'j >= r'],   // rA[j] = U(r, j) for j >= r, U(j, r) before
    'lu-N': ['true', 'true'],             // row r of L\U
    'lu-T': ['true', 'false'],            // column r of L\U
  }[p.variant];
  const tile = solveTile(p);
  const load = `  real rA[N];
#pragma unroll
  for (int j = 0; j < N; ++j) {
    const real v = (valid && ${stored}) ? a[r + (long long)j * ldA] : real(0);
    rA[j] = ${tile ? 'v' : `(${own}) ? v : (valid ? a[j + (long long)r * ldA] : real(0))`};${tile ? `
    if (r >= 0 && ${stored}) st[r + j * P] = v;` : ''}
  }${tile ? `
  __syncwarp();
#pragma unroll
  for (int j = 0; j < N; ++j) if (r >= 0 && !(${own})) rA[j] = st[j + r * P];` : ''}`;
  const unit1 = p.variant === 'lu-N', unit2 = p.variant === 'lu-T';
  const source = `${smallPrelude(smallSolveLayout(p))}
constexpr int RB = ${rb};
constexpr int SN = N;

extern "C" __global__ void __launch_bounds__(WARPS * 32) ${entry}(
    ${operandParameters('A', p.kindA, false)},
    ${operandParameters('B', p.kindB, true)},
    const int* __restrict__ ipiv, int pivotStride, int* __restrict__ info,
    const int* __restrict__ index, int count, int nrhs) {
${slotSetup()}
  const real* a = valid ? ${matrixPointer('A', p.kindA, 'mid')} : nullptr;
  real* b = valid ? ${matrixPointer('B', p.kindB, 'mid')} : nullptr;
  (void)ipiv; (void)pivotStride;
${load}
  const real diag = valid ? a[r + (long long)r * ldA] : real(1);
  ${diagonalReciprocal(p.dtype, false)}
  int src = r;                                      // ${p.variant === 'lu-N' ? 'row of B that is row r of P B' : p.variant === 'lu-T' ? 'row of z that is row r of P^T z' : 'unused'}
${lu ? `  if (valid) {
    const int* pv = ipiv + id * (long long)pivotStride;
#pragma unroll
    for (int i = 0; i < N; ++i) {
      const int j = ${p.variant === 'lu-N' ? 'N - 1 - i' : 'i'};
      const int q = pv[j];
      src = src == j ? q : (src == q ? j : src);
    }
  }` : '  (void)src;'}
  if (valid && r == 0) info[id] = 0;
  for (int q0 = 0; q0 < nrhs; q0 += RB) {
    real x[RB], y[RB], w[RB];
#pragma unroll
    for (int c = 0; c < RB; ++c) { x[c] = (valid && q0 + c < nrhs) ? b[r + (long long)(q0 + c) * ldB] : real(0); y[c] = real(0); w[c] = real(0); }
${p.variant === 'lu-N' ? `#pragma unroll
    for (int c = 0; c < RB; ++c) x[c] = __shfl_sync(${FULL}, x[c], base + src);` : ''}
    ${sweep(true, 'rA[k]', 'base + k', unit1 ? '' : DIVIDE, 'x', 'y', 'r')}
    ${sweep(false, 'rA[k]', 'base + k', unit2 ? '' : DIVIDE, 'y', 'w', 'r')}
${p.variant === 'lu-T' ? `#pragma unroll
    for (int c = 0; c < RB; ++c) w[c] = __shfl_sync(${FULL}, w[c], base + src);` : ''}
    if (valid) {
#pragma unroll
      for (int c = 0; c < RB; ++c) if (q0 + c < nrhs) b[r + (long long)(q0 + c) * ldB] = w[c];
    }
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}
