/**
 * Batched Cholesky for n <= 32: the paper's register design (sections 4.3-4.4).
 *
 * One thread per row: thread r keeps row r of the factor, rA[0..N) (only j <= r is meaningful),
 * in registers for the whole factorisation; N is a compile-time constant so every loop unrolls
 * and rA never touches local memory. A 1-D thread layout per matrix (section 4.2: 2-D layouts
 * waste threads and need barriers); where one matrix cannot fill a warp, several matrices share
 * it (the paper's REG-v2/v3 "Dim.y matrices per block"), so every lane of a warp stays busy and the
 * only barrier is __syncwarp.
 *
 * Right-looking step k: rows k..N-1 publish column k to a per-matrix shared buffer (double
 * buffered, so one __syncwarp per step suffices); every thread reads the pivot d, takes
 * rs = 1/sqrt(d) (the step's only special function), L(r,k) = A(r,k) rs, and updates
 * A(r,j) -= L(r,k) L(j,k) = (L(r,k) rs) A(j,k) for j > k, reading A(j,k) with 16-byte vector loads
 * (broadcasts: all threads of a matrix read the same address). No branch on failure (see
 * choleskyRowsSource).
 * (Tried before: t = A(r,k) / d with a second division per step measured slower at n = 32 on an
 * H100, 1497 vs 1973 GFLOP/s; sqrt then a reciprocal were two serial special functions per step.)
 *
 * 'lower' rows of L are column-major-coalesced loads. 'upper' (A = U^T U) factors L = U^T: row r of
 * L is column r of the stored triangle, which a warp cannot read coalesced, so it goes through a
 * padded (odd leading dimension: bank-conflict-free both ways) shared tile.
 *
 * On failure at step k (d = A(k,k) - sum L(k,j)^2 not > 0, or NaN) the matrix stops: columns < k of
 * the factor are written, A(k,k) receives d, everything else keeps its input value: exactly what
 * LAPACK's potf2 leaves. Neighbours in the same warp are unaffected (the flag is per matrix).
 */
import type { Uplo } from '../../../core/enums.js';
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { precisionLetter } from '../common/precision.js';
import type { PotrfSmallParams } from './params.js';
import { slotSetup, smallPrelude, type SmallLayout } from '../common/warp-slots.js';

/**
 * The right-looking Cholesky of the rows held by the threads of one matrix: thread r holds A(r, 0..r)
 * in rA and ends with L(r, 0..r-1) there (the diagonal goes to dOwn, see below). Returns 0, or k + 1
 * where the k-th pivot was not positive (or NaN).
 *
 * The step's serial chain is one reciprocal square root (the paper's section 4.4 names the column
 * steps as the limit for n >= 16): rs = 1/sqrt(d), L(r,k) = A(r,k) rs and t = L(r,k) rs. No branch
 * on failure: a failed matrix goes on computing NaNs that are never stored (columns < k are final
 * when step k runs, and the failing value d is kept in dOwn). Thread r keeps its own pivot
 * dOwn = L(r,r)^2 and rinv = 1/L(r,r); the diagonal is written as sqrt(dOwn) (correctly rounded, as
 * LAPACK), or dOwn itself where the matrix failed at r.
 *
 * rhs > 0: rA has N + rhs registers, the right-hand sides b(r, :) of row r (the matrix bordered by
 * B): row k publishes its b values beside column k, rows below update theirs, so the forward
 * substitution L y = b is done by the factorisation: thread r ends with L(r,r) y(r, :) there.
 * history: the published columns are all kept (buffer k at c0 + k * CS, for the backward sweep).
 */
export function choleskyRowsSource(rhs: number, history: boolean, classic = false): string {
  const buffer = history ? 'c0 + k * CS' : '(k & 1) ? c1 : c0';
  if (classic) {
    if (rhs > 0 || history) throw new Error('the classic Cholesky step has no right-hand sides or history');
    return CLASSIC_ROWS;
  }
  return `constexpr int RBF = ${rhs};                      // right-hand sides carried through the factorisation
constexpr int NA = N + RBF;
static __device__ __forceinline__ int choleskyRows(real (&rA)[NA], int r, real* c0, real* c1, real& dOwn, real& rinv) {
  int fail = 0;
  (void)c1;
#pragma unroll
  for (int k = 0; k < N; ++k) {
    real* sc = ${buffer};
    if (r >= k) sc[r] = rA[k];
    if (RBF > 0 && r == k) {
#pragma unroll
      for (int c = 0; c < RBF; ++c) sc[N + c] = rA[N + c];
    }
    __syncwarp();
    const real d = sc[k];
    if (fail == 0 && !(d > real(0))) fail = k + 1;
    const real rs = rsqrtReal(d);
    const real l = rA[k] * rs;
    if (r == k) { dOwn = d; rinv = rs; }
    if (r > k) rA[k] = l;
    const real t = l * rs;   // L(r,k) / L(k,k), so t * A(j,k) = L(r,k) L(j,k)
#pragma unroll
    for (int j0 = ((k + 1) / VW) * VW; j0 < NA; j0 += VW) {
      const vec v = *reinterpret_cast<const vec*>(sc + j0);
#pragma unroll
      for (int e = 0; e < VW; ++e) {
        const int j = j0 + e;
        if (j > k && j < N) rA[j] = fmaReal(-t, vget(v, e), rA[j]);
        if (j >= N && j < NA) { const real u = fmaReal(-t, vget(v, e), rA[j]); if (r > k) rA[j] = u; }
      }
    }
  }
  return fail;
}`;
}

/**
 * The step before the reciprocal square root (measured faster for small float32 matrices, where the
 * kernel is near the memory bound and the step's chain matters less than its instruction count):
 * sqrt, then a reciprocal, and a matrix that fails stops (its rA frozen: rA[k] of thread k keeps
 * the failing value). Same signature as the other; dOwn and rinv are not set.
 */
const CLASSIC_ROWS = `constexpr int RBF = 0;
constexpr int NA = N;
static __device__ __forceinline__ int choleskyRows(real (&rA)[NA], int r, real* c0, real* c1, real& dOwn, real& rinv) {
  int fail = 0;
  (void)dOwn; (void)rinv;
#pragma unroll
  for (int k = 0; k < N; ++k) {
    real* sc = (k & 1) ? c1 : c0;
    if (r >= k) sc[r] = rA[k];
    __syncwarp();
    const real d = sc[k];
    if (fail == 0) {
      if (!(d > real(0))) {
        fail = k + 1;
      } else {
        const real piv = sqrtReal(d);
        const real rcp = real(1) / piv;
        const real l = (r == k) ? piv : rA[k] * rcp;
        if (r >= k) rA[k] = l;
        const real t = l * rcp;
#pragma unroll
        for (int j0 = ((k + 1) / VW) * VW; j0 < N; j0 += VW) {
          const vec v = *reinterpret_cast<const vec*>(sc + j0);
#pragma unroll
          for (int e = 0; e < VW; ++e) {
            const int j = j0 + e;
            if (j > k && j < N) rA[j] = fmaReal(-t, vget(v, e), rA[j]);
          }
        }
      }
    }
  }
  return fail;
}`;

/** Loads rows of L's input (lower: A itself; upper: A^T via the tile) of operand X into rA (of `regs` registers). */
export function loadFactorRows(uplo: Uplo, x: string, ld: string, regs = 'N'): string {
  const zero = `#pragma unroll
  for (int j = 0; j < ${regs}; ++j) rA[j] = real(0);`;
  if (uplo === 'lower') {
    return `  real rA[${regs}];
  ${zero}
  if (valid) {
#pragma unroll
    for (int j = 0; j < N; ++j) if (j <= r) rA[j] = ${x}[r + (long long)j * ${ld}];
  }`;
  }
  return `  real rA[${regs}];
  ${zero}
  if (valid) {
#pragma unroll
    for (int c = 0; c < N; ++c) if (r <= c) st[r + c * P] = ${x}[r + (long long)c * ${ld}];
  }
  __syncwarp();
#pragma unroll
  for (int j = 0; j < N; ++j) if (j <= r) rA[j] = st[j + r * P];
  __syncwarp();`;
}

/**
 * Writes the factor rows back (columns < kf of L, and the failing diagonal), where kf = fail - 1
 * or N. Elements outside the referenced triangle are never written. Needs `fail` and `dOwn`
 * (choleskyRows) in scope. `order`: the variable holding the matrix's own order where it is
 * smaller than N (a variable batch's member in its class kernel): rows and columns from it on
 * are padding and never stored.
 */
export function storeFactorRows(uplo: Uplo, x: string, ld: string, classic = false, order?: string): string {
  const diag = classic ? '  const real diagOut = rA[0]; (void)diagOut;' : `  const real diagOut = fail == r + 1 ? dOwn : sqrtReal(dOwn);   // L(r,r), or the failing pivot`;
  const value = classic ? 'rA[j]' : 'j == r ? diagOut : rA[j]';
  const row = order === undefined ? 'valid' : `valid && r < ${order}`;
  if (uplo === 'lower') {
    return `${diag}
  if (${row}) {
    const int kf = fail ? fail - 1 : N;
#pragma unroll
    for (int j = 0; j < N; ++j)
      if (j <= r && (j < kf || (j == kf && r == kf))) ${x}[r + (long long)j * ${ld}] = ${value};
  }`;
  }
  const column = order === undefined ? '' : `c < ${order} && `;
  return `${diag}
  __syncwarp();
#pragma unroll
  for (int j = 0; j < N; ++j) if (j <= r) st[j + r * P] = ${value};
  __syncwarp();
  if (${row}) {
    const int kf = fail ? fail - 1 : N;
#pragma unroll
    for (int c = 0; c < N; ++c)
      if (r <= c && ${column}(r < kf || (r == kf && c == kf))) ${x}[r + (long long)c * ${ld}] = st[r + c * P];
  }`;
}

export function potrfSmallSource(p: PotrfSmallParams): KernelSource {
  const classic = p.classic;
  const entry = `potrf_${precisionLetter(p.dtype)}_${p.uplo === 'lower' ? 'l' : 'u'}_n${p.n}_${kindTag(p.kind)}_w${p.warps}${classic ? '_c' : ''}`;
  const layout: SmallLayout = { dtype: p.dtype, n: p.n, warps: p.warps, tile: p.uplo === 'upper', lanes: p.n };
  const source = `${smallPrelude(layout)}
${choleskyRowsSource(0, false, classic)}

extern "C" __global__ void __launch_bounds__(WARPS * 32) ${entry}(
    ${operandParameters('A', p.kind, true)},
    int* __restrict__ info, const int* __restrict__ index, int count) {
${slotSetup()}
  real* a = valid ? ${matrixPointer('A', p.kind, 'mid')} : nullptr;
${loadFactorRows(p.uplo, 'a', 'ldA')}
  real dOwn = real(1), rinv = real(0);
  const int fail = choleskyRows(rA, r, c0, c1, dOwn, rinv);
  (void)rinv;
${storeFactorRows(p.uplo, 'a', 'ldA', classic)}
  if (valid && r == 0) info[id] = fail;
}
`;
  return { name: `${entry}.cu`, source, entry };
}
