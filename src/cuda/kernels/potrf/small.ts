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
 * buffered, so one __syncwarp per step suffices); every thread reads the diagonal d, scales its own
 * L(r,k), and updates A(r,j) -= L(r,k) L(j,k) = (A(r,k) / d) A(j,k) for j > k, reading A(j,k) with
 * 16-byte vector loads (broadcasts: all threads of a matrix read the same address).
 * (Tried: taking sqrt(d) off the step's dependency chain with t = A(r,k) / d costs a second
 * division per step and measured slower at n = 32 on an H100: 1497 vs 1973 GFLOP/s.)
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
  const raw = 2 * nc + (l.tile ? l.n * tileLd(l.n) : 0);
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
 * Constants, the vector helper and the in-register factorisation, for every small factor/solve
 * kernel of this layout.
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
typedef ${vec} vec;
${mathHelpers(l.dtype)}
static __device__ __forceinline__ real vget(const vec& v, int e) {
  return ${comps.slice(0, -1).map((c, i) => `e == ${i} ? v.${c} : `).join('')}v.${comps[vw - 1]};
}

/*
 * Right-looking Cholesky of the rows held by the threads of one matrix: thread r holds A(r, 0..r)
 * in rA and ends with L(r, 0..r). Returns 0, or k + 1 where the k-th pivot was not positive (then
 * rA is frozen as it was at that step: rA[k] of thread k holds the failing value).
 */
static __device__ __forceinline__ int choleskyRows(real (&rA)[N], int r, real* c0, real* c1) {
  int fail = 0;
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
        const real t = l * rcp;   // L(r,k) / L(k,k), so t * A(j,k) = L(r,k) L(j,k)
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
}

/**
 * Declarations at the top of a small kernel: shared memory, this thread's matrix slot and row,
 * `valid` (a real matrix), `id` (its batch index), the slot's buffers c0, c1, st.
 * Idle lanes (past MPW * N) get r = -1 so they never touch shared memory.
 */
export function slotSetup(): string {
  return `  __shared__ __align__(16) real smem[WARPS * MPW * SLOT];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int rawSlot = lane / LANES;
  const bool used = rawSlot < MPW && lane - rawSlot * LANES < N;
  const int slot = rawSlot < MPW ? rawSlot : MPW - 1;
  const int r = used ? lane - rawSlot * LANES : -1;
  const long long mid = ((long long)blockIdx.x * WARPS + warp) * MPW + slot;
  const bool valid = used && mid < count;
  const bool live = rawSlot < MPW && mid < count;   // the slot holds a matrix (some lanes may idle)
  (void)live;
  const long long id = valid ? (index ? (long long)index[mid] : mid) : 0;
  real* c0 = smem + (warp * MPW + slot) * SLOT;
  real* c1 = c0 + NC;
  real* st = c1 + NC;
  (void)st; (void)id;`;
}

/** Loads rows of L's input (lower: A itself; upper: A^T via the tile) of operand X into rA. */
export function loadFactorRows(uplo: Uplo, x: string, ld: string): string {
  const zero = `#pragma unroll
  for (int j = 0; j < N; ++j) rA[j] = real(0);`;
  if (uplo === 'lower') {
    return `  real rA[N];
  ${zero}
  if (valid) {
#pragma unroll
    for (int j = 0; j < N; ++j) if (j <= r) rA[j] = ${x}[r + (long long)j * ${ld}];
  }`;
  }
  return `  real rA[N];
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
 * or N. Elements outside the referenced triangle are never written.
 */
export function storeFactorRows(uplo: Uplo, x: string, ld: string): string {
  if (uplo === 'lower') {
    return `  if (valid) {
    const int kf = fail ? fail - 1 : N;
#pragma unroll
    for (int j = 0; j < N; ++j)
      if (j <= r && (j < kf || (j == kf && r == kf))) ${x}[r + (long long)j * ${ld}] = rA[j];
  }`;
  }
  return `  __syncwarp();
#pragma unroll
  for (int j = 0; j < N; ++j) if (j <= r) st[j + r * P] = rA[j];
  __syncwarp();
  if (valid) {
    const int kf = fail ? fail - 1 : N;
#pragma unroll
    for (int c = 0; c < N; ++c)
      if (r <= c && (r < kf || (r == kf && c == kf))) ${x}[r + (long long)c * ${ld}] = st[r + c * P];
  }`;
}

export function potrfSmallSource(p: PotrfSmallParams): KernelSource {
  const entry = `potrf_${precisionLetter(p.dtype)}_${p.uplo === 'lower' ? 'l' : 'u'}_n${p.n}_${kindTag(p.kind)}_w${p.warps}`;
  const layout: SmallLayout = { dtype: p.dtype, n: p.n, warps: p.warps, tile: p.uplo === 'upper', lanes: p.n };
  const source = `${smallPrelude(layout)}

extern "C" __global__ void __launch_bounds__(WARPS * 32) ${entry}(
    ${operandParameters('A', p.kind, true)},
    int* __restrict__ info, const int* __restrict__ index, int count) {
${slotSetup()}
  real* a = valid ? ${matrixPointer('A', p.kind, 'mid')} : nullptr;
${loadFactorRows(p.uplo, 'a', 'ldA')}
  const int fail = choleskyRows(rA, r, c0, c1);
${storeFactorRows(p.uplo, 'a', 'ldA')}
  if (valid && r == 0) info[id] = fail;
}
`;
  return { name: `${entry}.cu`, source, entry };
}
