/**
 * Complex Cholesky for n <= 32 (zpotrf, zpotrs, zposv and the complex64 forms): the warp design of
 * the real kernels (potrf/generate-small.ts, solve/generate-small.ts) over `real2` pairs.
 *
 * Both triangles are one algorithm on F, the lower triangular factor with A = F F^H: F = L for
 * 'lower' (element (i, j) of F is A(i, j)), F = U^H for 'upper' (element (i, j) of F is
 * conj(A(j, i))), so an upper matrix is read and written conjugated and transposed and nothing else
 * changes. Thread r of a matrix holds row r of F, rA[0..N), in registers (N is a compile-time
 * constant: the factorisation's loops unroll); several matrices share a warp where one cannot fill
 * it, and the only barrier is __syncwarp (common/warp-slots.ts).
 *
 * Right-looking step k: rows k..N-1 publish column k to the slot's shared buffer, every lane reads
 * the pivot d = Re A(k, k) (zpotf2 reads only the real part of a diagonal: a Hermitian matrix's is
 * real, and whatever imaginary part is stored there is ignored, so it is zeroed on load), takes
 * rs = 1/sqrt(d), F(r, k) = A(r, k) rs, and updates A(r, j) -= F(r, k) conj(F(j, k)) for j > k as
 * t conj(A(j, k)) with t = F(r, k) rs (L(k, k) is real). No branch on failure: a matrix whose pivot
 * is not positive (or NaN) goes on computing values that are never stored. What is stored is what
 * zpotf2 (the complex reference, cpu/complex/zpotrf.ts) leaves: columns < k of the factor, the
 * diagonal real (imaginary part 0), at the failing step k the pivot d itself as (d, 0), everything
 * else as it was; info = k + 1. Neighbours in the same warp are unaffected (the flag is per matrix).
 *
 * The solves (A X = B, i.e. F y = b, then F^H x = y) go RB right-hand sides at a time (thread r
 * holds row r of each), as column sweeps: at step k the lane of row k finishes its value and hands
 * it to the other rows of its matrix with a shuffle; each row updates its own value with an element
 * it already holds, and keeps its result from the step of its own row.
 * - potrs: thread r reads row r of F into the slot's column buffers (buffer k holds column k of F),
 *   and both sweeps read the factor from there (held in registers instead, row and column as the
 *   real potrs holds it, complex128 spilled from n = 24 at 4 right-hand sides). The diagonal's reciprocal is
 *   complex (potrs takes any factor: the reference divides by F(k, k) and conj(F(k, k)) as stored),
 *   by Smith's ratio.
 * - posv: factored as potrf (the factor stored), then the sweeps with the factor still on chip, in
 *   the column buffers as published (every column's is kept): buffer k holds P(j, k) = F(j, k)
 *   F(k, k) for j >= k. Forward: row r's value at step r is z(r) = F(r, r) y(r), and row r > k takes
 *   P(r, k) z(k) / F(k, k)^2 = F(r, k) y(k) off. Backward: x(r) = (z(r) - sum_{k>r} conj(P(k, r))
 *   x(k)) / F(r, r)^2 (F(r, r) is real). Reading the factor from shared memory rather than from rA
 *   leaves rA dead after the factor's store: with it live through the sweeps complex128 spilled from
 *   n = 20. A matrix whose factorisation failed keeps its B, as LAPACK's posv.
 * Loads and stores of the transposed part (upper's factor, potrs's column) are a column per lane;
 * the sector a lane misses is in L1 for its neighbours' next elements.
 */
import { cudaMath } from '../../../core/dtype-table.js';
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { complexFactorHelpers, complexLetter, complexPrelude } from '../common/complex.js';
import { mathHelpers, precisionPrelude } from '../common/precision.js';
import { slotSetup, type SmallLayout } from '../common/warp-slots.js';
import type { ZpotrfSmallParams, ZsolveSmallParams } from './params.js';

/** Matrices that share one warp (one lane per row). */
const matricesPerWarp = (n: number): number => Math.floor(32 / n);

/**
 * Stride of the solves' kept column buffers, in pairs: odd, so that the backward sweep's reads (one
 * pair per lane, CS pairs apart) fall in distinct banks.
 */
export const keptStride = (n: number): number => (n % 2 === 1 ? n : n + 1);

type Design = 'potrf' | 'posv' | 'potrs';

/** Shared reals per matrix slot: two column buffers (potrf), or every column of the factor (the solves). */
function slotReals(design: Design, n: number): number {
  return design === 'potrf' ? 4 * n : 2 * n * keptStride(n);
}

/** The warp-slot layout of a design (for the launch grid: common/warp-slots.ts smallGrid). */
export function zsmallLayout(p: { dtype: ZpotrfSmallParams['dtype']; n: number; warps: number }): SmallLayout {
  return { dtype: p.dtype, n: p.n, warps: p.warps, tile: false, lanes: p.n };
}

function prelude(design: Design, p: { dtype: ZpotrfSmallParams['dtype']; n: number; warps: number }): string {
  return `${precisionPrelude(p.dtype)}
${mathHelpers(p.dtype)}
static __device__ __forceinline__ real rsqrtReal(real x) { return ${cudaMath(p.dtype, 'rsqrt')}(x); }
${complexPrelude(p.dtype)}
${complexFactorHelpers()}
constexpr int N = ${p.n};
constexpr int LANES = N;                      // lanes per matrix: one per row
constexpr int MPW = ${matricesPerWarp(p.n)};   // matrices per warp
constexpr int WARPS = ${p.warps};
constexpr int NC = ${design === 'potrf' ? 2 * p.n : 0};   // reals of one column buffer (slotSetup's c1 = c0 + NC)
constexpr int SLOT = ${slotReals(design, p.n)};   // shared reals per matrix
constexpr int CS = ${design === 'potrf' ? 0 : keptStride(p.n)};   // pairs between kept column buffers (the solves)`;
}

/** Row r of F into rA (F = A's lower triangle, or the conjugate transpose of its upper one); the diagonal's imaginary part is not read. */
function loadRows(lower: boolean, x: string, ld: string): string {
  const elem = lower ? `${x}[r + (long long)j * ${ld}]` : `conjReal2(${x}[j + (long long)r * ${ld}])`;
  return `  real2 rA[N];                                      // row r of F (entries right of the diagonal unused)
#pragma unroll
  for (int j = 0; j < N; ++j) rA[j] = makeReal2(real(0), real(0));
  if (valid) {
#pragma unroll
    for (int j = 0; j < N; ++j) if (j <= r) { rA[j] = ${elem}; if (j == r) rA[j].y = real(0); }
  }`;
}

/**
 * The right-looking Cholesky of the rows held by the lanes of one matrix (see the file comment):
 * thread r ends with F(r, 0..r-1) in rA, its pivot dOwn = F(r, r)^2 (or the failing value) and
 * rinv = 1 / F(r, r). Column k is published at buffer `column(k)` (two alternating ones, or one per
 * column where the solves read them again). Returns 0, or k + 1 for the first pivot not > 0 or NaN.
 */
function choleskyRows(kept: boolean): string {
  return `static __device__ __forceinline__ int choleskyRowsZ(real2 (&rA)[N], int r, real2* c0, real2* c1, real& dOwn, real& rinv) {
  int fail = 0;
  (void)c1;
#pragma unroll
  for (int k = 0; k < N; ++k) {
    real2* sc = ${kept ? 'c0 + k * CS' : '(k & 1) ? c1 : c0'};
    if (r >= k) sc[r] = rA[k];
    __syncwarp();
    const real d = sc[k].x;
    if (fail == 0 && !(d > real(0))) fail = k + 1;
    const real rs = rsqrtReal(d);
    const real2 l = scaleReal2(rs, rA[k]);
    if (r == k) { dOwn = d; rinv = rs; }
    if (r > k) rA[k] = l;
    const real2 t = scaleReal2(rs, l);             // F(r,k) / F(k,k): t conj(A(j,k)) = F(r,k) conj(F(j,k))
#pragma unroll
    for (int j = k + 1; j < N; ++j) rA[j] = fmsConjBReal2(t, sc[j], rA[j]);
  }
  return fail;
}`;
}

/**
 * Writes the factor rows back: columns < kf of F and the failing diagonal (kf = fail - 1, or N),
 * the diagonal as (F(r, r), 0); nothing outside the `uplo` triangle.
 */
function storeRows(lower: boolean, x: string, ld: string): string {
  const at = lower ? `${x}[r + (long long)j * ${ld}]` : `${x}[j + (long long)r * ${ld}]`;
  const off = lower ? 'rA[j]' : 'conjReal2(rA[j])';
  return `  const real diagOut = fail == r + 1 ? dOwn : sqrtReal(dOwn);   // F(r,r), or the failing pivot
  if (valid) {
    const int kf = fail ? fail - 1 : N;
#pragma unroll
    for (int j = 0; j < N; ++j)
      if (j <= r && (j < kf || (j == kf && r == kf))) ${at} = j == r ? makeReal2(diagOut, real(0)) : ${off};
  }`;
}

const uploTag = (lower: boolean): string => (lower ? 'l' : 'u');

export function zpotrfSmallSource(p: ZpotrfSmallParams): KernelSource {
  const lower = p.uplo === 'lower';
  const entry = `zpotrf_${complexLetter(p.dtype)}_${uploTag(lower)}_n${p.n}_${kindTag(p.kind)}_w${p.warps}`;
  const source = `${prelude('potrf', p)}
${choleskyRows(false)}

extern "C" __global__ void __launch_bounds__(WARPS * 32) ${entry}(
    ${operandParameters('A', p.kind, true, 'real2')},
    int* __restrict__ info, const int* __restrict__ index, int count) {
${slotSetup()}
  real2* a = valid ? ${matrixPointer('A', p.kind, 'mid')} : nullptr;
${loadRows(lower, 'a', 'ldA')}
  real dOwn = real(1), rinv = real(0);
  const int fail = choleskyRowsZ(rA, r, reinterpret_cast<real2*>(c0), reinterpret_cast<real2*>(c1), dOwn, rinv);
  (void)rinv;
${storeRows(lower, 'a', 'ldA')}
  if (valid && r == 0) info[id] = fail;
}
`;
  return { name: `${entry}.cu`, source, entry };
}

/** Loads pass q0's right-hand sides of row r into x (zeros past nrhs, or where `when` is false). */
function loadRhs(when: string): string {
  return `#pragma unroll
    for (int c = 0; c < RB; ++c) {
      x[c] = (${when} && q0 + c < nrhs) ? b[r + (long long)(q0 + c) * ldB] : makeReal2(real(0), real(0));
      y[c] = makeReal2(real(0), real(0));
    }`;
}

function storeRhs(when: string): string {
  return `if (${when}) {
#pragma unroll
      for (int c = 0; c < RB; ++c) if (q0 + c < nrhs) b[r + (long long)(q0 + c) * ldB] = w[c];
    }`;
}

/**
 * SWEEPS_ROLLED: the substitutions' step loops are not unrolled. They index no register array by
 * the step (the factor comes from the column buffers, the right-hand sides are indexed by c), so
 * rolling them costs a loop counter; unrolled, ptxas hoisted every step's shared loads ahead of the
 * shuffles they wait for and ran out of registers: complex64 posv n = 14, 15 spilled 12 bytes at
 * the 64 registers its occupancy heuristic chose, and at n = 19-28 (one block per SM asked) 12-80
 * bytes at 255. Rolled, complex64 posv n = 24 takes 95 registers, n = 15 64, no spills.
 */
/**
 * F y = b by rows: at step k row k holds its value v(k) and the lane's `scale` turns it into the
 * multiplier of `elem` (T(r, k), an expression in k); every row r > k takes T(r, k) times it off.
 * `keepUnscaled`: row k keeps v(k) (posv, v(k) = F(k, k) y(k)), else the scaled value (potrs: y(k)).
 */
function forwardSweep(elem: string, scale: string, keepUnscaled: boolean): string {
  return `#pragma unroll 1
    for (int k = 0; k < N; ++k) {                   // rolled: see SWEEPS_ROLLED
      const real2 tk = ${elem};
#pragma unroll
      for (int c = 0; c < RB; ++c) {
        const real2 yk = shflReal2(${scale}, base + k);
        if (r == k) y[c] = ${keepUnscaled ? 'x[c]' : 'yk'};
        x[c] = fmsReal2(tk, yk, x[c]);
      }
    }`;
}

/** F^H x = y upwards: row k's value becomes x(k) by `scale`; rows r < k take conj(T(r, k)) x(k) off, T(r, k) = `elem`. */
function backwardSweep(elem: string, scale: string): string {
  return `#pragma unroll
    for (int c = 0; c < RB; ++c) w[c] = makeReal2(real(0), real(0));   // (set here: not live during the forward sweep)
#pragma unroll 1
    for (int k = N - 1; k >= 0; --k) {              // rolled: see SWEEPS_ROLLED
      const real2 tk = ${elem};
#pragma unroll
      for (int c = 0; c < RB; ++c) {
        const real2 xk = shflReal2(${scale}, base + k);
        if (r == k) w[c] = xk;
        y[c] = fmsConjAReal2(tk, xk, y[c]);
      }
    }`;
}

const solveEntry = (design: 'zposv' | 'zpotrs', p: ZsolveSmallParams): string =>
  `${design}_${complexLetter(p.dtype)}_${uploTag(p.uplo === 'lower')}_n${p.n}_r${p.rhs}_${kindTag(p.kindA)}${kindTag(p.kindB)}_w${p.warps}`;

export function zposvSmallSource(p: ZsolveSmallParams): KernelSource {
  const lower = p.uplo === 'lower';
  const entry = solveEntry('zposv', p);
  const source = `${prelude('posv', p)}
${choleskyRows(true)}
constexpr int RB = ${p.rhs};

extern "C" __global__ void __launch_bounds__(WARPS * 32) ${entry}(
    ${operandParameters('A', p.kindA, true, 'real2')},
    ${operandParameters('B', p.kindB, true, 'real2')},
    int* __restrict__ info, const int* __restrict__ index, int count, int nrhs) {
${slotSetup(true)}
  real2* a = valid ? ${matrixPointer('A', p.kindA, 'mid')} : nullptr;
  real2* b = valid ? ${matrixPointer('B', p.kindB, 'mid')} : nullptr;
  real2* kept = reinterpret_cast<real2*>(c0);      // column k as published at step k, at kept + k CS
${loadRows(lower, 'a', 'ldA')}
  real dOwn = real(1), rinv = real(0);
  const int fail = choleskyRowsZ(rA, r, kept, kept, dOwn, rinv);
${storeRows(lower, 'a', 'ldA')}
  const bool solve = valid && fail == 0;
  const real rdd = rinv * rinv;                     // 1 / F(r,r)^2
  for (int q0 = 0; q0 < nrhs; q0 += RB) {
    real2 x[RB], y[RB], w[RB];
    ${loadRhs('solve')}
    ${forwardSweep('(r > k) ? kept[k * CS + r] : makeReal2(real(0), real(0))', 'scaleReal2(rdd, x[c])', true)}
    ${backwardSweep('(r >= 0 && r < k) ? kept[r * CS + k] : makeReal2(real(0), real(0))', 'scaleReal2(rdd, y[c])')}
    ${storeRhs('solve')}
  }
  if (valid && r == 0) info[id] = fail;
}
`;
  return { name: `${entry}.cu`, source, entry };
}

export function zpotrsSmallSource(p: ZsolveSmallParams): KernelSource {
  const lower = p.uplo === 'lower';
  const entry = solveEntry('zpotrs', p);
  const elem = lower ? 'a[r + (long long)j * ldA]' : 'conjReal2(a[j + (long long)r * ldA])';
  const diag = lower ? 'a[r + (long long)r * ldA]' : 'conjReal2(a[r + (long long)r * ldA])';
  const source = `${prelude('potrs', p)}
constexpr int RB = ${p.rhs};

extern "C" __global__ void __launch_bounds__(WARPS * 32) ${entry}(
    ${operandParameters('A', p.kindA, false, 'real2')},
    ${operandParameters('B', p.kindB, true, 'real2')},
    int* __restrict__ info, const int* __restrict__ index, int count, int nrhs) {
${slotSetup(true)}
  const real2* a = valid ? ${matrixPointer('A', p.kindA, 'mid')} : nullptr;
  real2* b = valid ? ${matrixPointer('B', p.kindB, 'mid')} : nullptr;
  real2* kept = reinterpret_cast<real2*>(c0);      // column k of F at kept + k CS (rows >= k)
  if (valid) {
#pragma unroll
    for (int j = 0; j < N; ++j) if (j <= r) kept[j * CS + r] = ${elem};
  }
  __syncwarp();
  const real2 rinv = recipReal2(valid ? ${diag} : makeReal2(real(1), real(0)));   // 1 / F(r,r)
  const real2 rinvH = conjReal2(rinv);              // 1 / conj(F(r,r))
  if (valid && r == 0) info[id] = 0;
  for (int q0 = 0; q0 < nrhs; q0 += RB) {
    real2 x[RB], y[RB], w[RB];
    ${loadRhs('valid')}
    ${forwardSweep('(r > k) ? kept[k * CS + r] : makeReal2(real(0), real(0))', 'mulReal2(x[c], rinv)', false)}
    ${backwardSweep('(r >= 0 && r < k) ? kept[r * CS + k] : makeReal2(real(0), real(0))', 'mulReal2(y[c], rinvH)')}
    ${storeRhs('valid')}
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}
