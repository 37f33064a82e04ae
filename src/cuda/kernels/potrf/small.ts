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
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { KernelSource } from '../../runtime/types.js';
import { matrixPointer, operandParameters, type OperandKind } from '../common/batch-pointer.js';
import { precisionLetter, precisionPrelude } from '../common/precision.js';
import { kindTag } from './operands.js';

export const SMALL_MAX_N = 32;

export interface SmallLayout {
  readonly dtype: DType;
  readonly n: number;
  /** Warps per thread block. */
  readonly warps: number;
  /** Whether each matrix slot needs the N x P shared tile (upper storage, or a solve). */
  readonly tile: boolean;
  /** Lanes given to one matrix (>= n): n for Cholesky, a power of two for LU (shuffle reductions). */
  readonly lanes: number;
  /**
   * Keep every published column (fused Cholesky solves): N column buffers of `history` elements
   * each instead of two alternating ones; the tile, when there is one, aliases them (it is used only
   * before and after the factorisation). 0 or absent: two buffers.
   */
  readonly history?: number;
}

export interface PotrfSmallParams {
  readonly dtype: DType;
  readonly n: number;
  readonly uplo: Uplo;
  readonly kind: OperandKind;
  readonly warps: number;
}

/** Matrices that share one warp: as many groups of `lanes` lanes as fit in 32. */
export function matricesPerWarp(lanes: number): number {
  return Math.floor(32 / lanes);
}

/** Elements per 16-byte vector. */
export const vectorWidth = (dtype: DType): number => (dtype === 'float64' ? 2 : 4);

/** Odd leading dimension >= n of the shared tile (odd: conflict-free row and column access). */
export const tileLd = (n: number): number => (n % 2 === 1 ? n : n + 1);

/**
 * Stride of the kept column buffers: room for n entries and `extra` right-hand-side values, a whole
 * number of 16-byte vectors, and not a multiple of 32 banks (the backward sweep reads one element of
 * every thread's column, so lanes would otherwise hit one bank).
 */
export function historyStride(dtype: DType, n: number, extra: number): number {
  const vw = vectorWidth(dtype);
  let cs = Math.ceil((n + extra) / vw) * vw;
  if (((cs * (dtype === 'float64' ? 2 : 1)) % 32) === 0) cs += vw;
  return cs;
}

/** Typed sqrt, |x| and +infinity (NVRTC has no <cmath> overloads or INFINITY without headers). */
export function mathHelpers(dtype: DType): string {
  const d = dtype === 'float64';
  return `static __device__ __forceinline__ real sqrtReal(real x) { return ${d ? 'sqrt' : 'sqrtf'}(x); }
static __device__ __forceinline__ real absReal(real x) { return ${d ? 'fabs' : 'fabsf'}(x); }
static __device__ __forceinline__ real infReal() { return ${d ? '__longlong_as_double(0x7ff0000000000000LL)' : '__int_as_float(0x7f800000)'}; }`;
}

export function slotElements(l: SmallLayout): number {
  const vw = vectorWidth(l.dtype);
  const nc = Math.ceil(l.n / vw) * vw;
  const tile = l.tile ? l.n * tileLd(l.n) : 0;
  const raw = l.history ? Math.max(l.n * l.history, tile) : 2 * nc + tile;
  return Math.ceil(raw / vw) * vw;
}

/** Shared bytes of one block (static). */
export function smallSharedBytes(l: SmallLayout): number {
  return l.warps * matricesPerWarp(l.lanes) * slotElements(l) * (l.dtype === 'float64' ? 8 : 4);
}

/** Blocks needed for `count` matrices. */
export function smallGrid(l: SmallLayout, count: number): number {
  return Math.ceil(count / (l.warps * matricesPerWarp(l.lanes)));
}

/**
 * Constants and the vector helper of every small factor/solve kernel of this layout (the
 * in-register Cholesky itself: choleskyRowsSource).
 */
export function smallPrelude(l: SmallLayout): string {
  const vw = vectorWidth(l.dtype);
  const vec = l.dtype === 'float64' ? 'double2' : 'float4';
  const comps = ['x', 'y', 'z', 'w'].slice(0, vw);
  return `${precisionPrelude(l.dtype)}
constexpr int N = ${l.n};
constexpr int LANES = ${l.lanes};               // lanes per matrix
constexpr int MPW = ${matricesPerWarp(l.lanes)};   // matrices per warp
constexpr int WARPS = ${l.warps};
constexpr int VW = ${vw};                       // elements per 16-byte vector
constexpr int NC = ${Math.ceil(l.n / vw) * vw};  // column buffer length
constexpr int P = ${tileLd(l.n)};               // odd leading dimension of the shared tile
constexpr int SLOT = ${slotElements(l)};        // shared elements per matrix
constexpr int CS = ${l.history ?? 0};            // stride of the kept column buffers (0: two alternating buffers)
typedef ${vec} vec;
${mathHelpers(l.dtype)}
static __device__ __forceinline__ real rsqrtReal(real x) { return ${l.dtype === 'float64' ? 'rsqrt' : 'rsqrtf'}(x); }
static __device__ __forceinline__ real vget(const vec& v, int e) {
  return ${comps.slice(0, -1).map((c, i) => `e == ${i} ? v.${c} : `).join('')}v.${comps[vw - 1]};
}`;
}

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

/**
 * Which sizes use the classic step in the plain potrf kernel (n <= classicMax; 0: none); the fused
 * solves always use the other. H100, 0.5 GB batches, classic vs rsqrt % of the bandwidth bound:
 * f64 n = 3: 63.0 vs 60.2, 5: 57.6 vs 56.0, 6: 59.0 vs 57.5, 8: 57.3 vs 59.7, 16: 51.5 vs 56.7;
 * f32 n = 3: 56.8 vs 53.7, 4: 60.5 vs 54.5, 6: 52.0 vs 43.5, 8: 53.1 vs 51.7, 12: 37.1 vs 39.5.
 */
export const potrfSmallTuning: { classicMax: Record<DType, number> } = { classicMax: { float64: 6, float32: 8 } };

/**
 * Warps per block of the small potrf, posv and gesv kernels: 2 from n = 16 (more blocks fit the
 * register file in whole: posv f32 n = 32 44 -> 52% of the bandwidth bound, potrf f32 n = 16
 * 51 -> 57%, gesv f64 n = 32 47 -> 49%, H100), else 4 (the paper's 32 x 4 threads). getrf measured
 * the same with 2 or 4 and keeps SMALL_WARPS.
 */
export const smallWarps = (n: number): number => (n >= 16 ? 2 : 4);

/**
 * Declarations at the top of a small kernel: shared memory, this thread's matrix slot and row,
 * `valid` (a real matrix), `id` (its batch index), the slot's buffers c0, c1, st (st aliases the
 * column buffers where the layout keeps a history).
 * Idle lanes (past MPW * N) get r = -1 so they never touch shared memory.
 */
export function slotSetup(history = false): string {
  return `  __shared__ __align__(16) real smem[WARPS * MPW * SLOT];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int rawSlot = lane / LANES;
  const bool used = rawSlot < MPW && lane - rawSlot * LANES < N;
  const int slot = rawSlot < MPW ? rawSlot : MPW - 1;
  const int r = used ? lane - rawSlot * LANES : -1;
  const int base = slot * LANES;                    // first lane of this matrix
  const long long mid = ((long long)blockIdx.x * WARPS + warp) * MPW + slot;
  const bool valid = used && mid < count;
  const bool live = rawSlot < MPW && mid < count;   // the slot holds a matrix (some lanes may idle)
  (void)live; (void)base;
  const long long id = valid ? (index ? (long long)index[mid] : mid) : 0;
  real* c0 = smem + (warp * MPW + slot) * SLOT;
  real* c1 = c0 + NC;
  real* st = ${history ? 'c0' : 'c1 + NC'};
  (void)st; (void)id; (void)c1;`;
}

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
 * (choleskyRows) in scope.
 */
export function storeFactorRows(uplo: Uplo, x: string, ld: string, classic = false): string {
  const diag = classic ? '  const real diagOut = rA[0]; (void)diagOut;' : `  const real diagOut = fail == r + 1 ? dOwn : sqrtReal(dOwn);   // L(r,r), or the failing pivot`;
  const value = classic ? 'rA[j]' : 'j == r ? diagOut : rA[j]';
  if (uplo === 'lower') {
    return `${diag}
  if (valid) {
    const int kf = fail ? fail - 1 : N;
#pragma unroll
    for (int j = 0; j < N; ++j)
      if (j <= r && (j < kf || (j == kf && r == kf))) ${x}[r + (long long)j * ${ld}] = ${value};
  }`;
  }
  return `${diag}
  __syncwarp();
#pragma unroll
  for (int j = 0; j < N; ++j) if (j <= r) st[j + r * P] = ${value};
  __syncwarp();
  if (valid) {
    const int kf = fail ? fail - 1 : N;
#pragma unroll
    for (int c = 0; c < N; ++c)
      if (r <= c && (r < kf || (r == kf && c == kf))) ${x}[r + (long long)c * ${ld}] = st[r + c * P];
  }`;
}

export function potrfSmallSource(p: PotrfSmallParams): KernelSource {
  const classic = p.n <= potrfSmallTuning.classicMax[p.dtype];
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
