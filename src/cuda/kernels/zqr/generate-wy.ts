/**
 * The compact WY form of a block of complex reflectors (LAPACK's zlarft, forward and columnwise;
 * Schreiber & Van Loan): H(0) H(1) ... H(ib-1) = I - V T V^H with V the r x ib reflectors (unit
 * diagonal, zeros above it) and T upper triangular, T(j, j) = tau_j and
 * T(0:j, j) = -tau_j T(0:j, 0:j) (V(:, 0:j)^H v_j). One block per matrix writes V explicit and
 * Y = V T (or V T^H) to a workspace, so that applying the block is two complex GEMMs
 * (launch-blocked.ts applyZwy): the real common/wy.ts over (re, im) pairs, with the Gram matrix
 * G(l, j) = v_l^H v_j.
 *
 * Also zlaset on a view of A: zeros off the diagonal, (d, 0) on it (zungqr's unit columns and the
 * zeros above its panels).
 *
 * Sizes (r, ib, the view's rows and cols) are kernel arguments; only the panel width bound NB
 * (T's and G's shared arrays) is a constant.
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { complexFactorHelpers, complexLetter, complexMultiplyAdd, complexPrelude } from '../common/complex.js';
import { mathHelpers, precisionPrelude } from '../common/precision.js';
import type { ZlasetParams, ZwyParams } from './params.js';

/** Threads of a WY or laset block (a multiple of 32, at least NB). */
export const ZWY_THREADS = 256;
/** The widest block the WY kernel takes: T and G are NB x NB pairs of static shared memory (32 KiB at 32, complex128). */
export const ZWY_NB_MAX = 32;

function zwyName(p: ZwyParams): string {
  return `zwy_factor_${complexLetter(p.dtype)}_${kindTag(p.kind)}_nb${p.nb}${p.conjT ? '_th' : ''}`;
}

export function zwySource(p: ZwyParams): KernelSource {
  if (!Number.isInteger(p.nb) || p.nb < 1 || p.nb > ZWY_NB_MAX) throw new Error(`zwy kernel: nb ${p.nb} must be an integer in 1..${ZWY_NB_MAX}`);
  const entry = zwyName(p);
  const source = `${precisionPrelude(p.dtype)}
${mathHelpers(p.dtype)}
${complexPrelude(p.dtype)}
${complexFactorHelpers()}
${complexMultiplyAdd({ conjA: true, conjB: false })}
// c + a b and c + a conj(b).
static __device__ __forceinline__ real2 maddReal2(real2 a, real2 b, real2 c) {
  c.x = fmaReal(a.x, b.x, c.x); c.x = fmaReal(-a.y, b.y, c.x);
  c.y = fmaReal(a.x, b.y, c.y); c.y = fmaReal(a.y, b.x, c.y);
  return c;
}
static __device__ __forceinline__ real2 maddConjBReal2(real2 a, real2 b, real2 c) {
  c.x = fmaReal(a.x, b.x, c.x); c.x = fmaReal(a.y, b.y, c.x);
  c.y = fmaReal(-a.x, b.y, c.y); c.y = fmaReal(a.y, b.x, c.y);
  return c;
}
constexpr int NB = ${p.nb};        // widest block: T and G are NB x NB
constexpr int THREADS = ${ZWY_THREADS};
constexpr int WARPS = THREADS / 32;

// v_l(i) of the block: A's entry below the diagonal, the unit diagonal and the zeros above implied.
static __device__ __forceinline__ real2 vAt(const real2* a, int ldA, int i, int l) {
  return i > l ? a[i + (long long)l * ldA] : makeReal2(i == l ? real(1) : real(0), real(0));
}

// V (explicit), and Y = V ${p.conjT ? 'T^H' : 'T'}, of the r x ib block of reflectors at A (a view), tau.
extern "C" __global__ void __launch_bounds__(THREADS) ${entry}(
    ${operandParameters('A', p.kind, false, 'real2')},
    ${operandParameters('T', p.kind, false, 'real2')},
    real2* __restrict__ V, real2* __restrict__ Y, long long strideW,
    int count, int r, int ib) {
  __shared__ real2 G[NB * NB];   // G(l, j) = v_l^H v_j, l < j
  __shared__ real2 Ts[NB * NB];  // T, upper triangular, zeros below
  __shared__ real2 taus[NB];
  const long long mat = blockIdx.x;
  if (mat >= count) return;
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const real2* a = ${matrixPointer('A', p.kind, 'mat')};
  const real2* tau = ${matrixPointer('T', p.kind, 'mat')};
  real2* v = V + mat * strideW;
  real2* y = Y + mat * strideW;
  const real2 zero = makeReal2(real(0), real(0));
  for (int j = tid; j < ib; j += THREADS) taus[j] = tau[j];
  for (int e = tid; e < NB * NB; e += THREADS) Ts[e] = zero;
  for (int e = tid; e < r * ib; e += THREADS) {
    const int i = e % r, l = e / r;
    v[e] = vAt(a, ldA, i, l);
  }
  // G(l, j) = conj(v_l(j)) + sum_{i > j} conj(v_l(i)) v_j(i), l < j: a warp per entry.
  for (int pair = warp; pair < ib * ib; pair += WARPS) {
    const int l = pair % ib, j = pair / ib;
    if (l >= j) continue;
    real2 s = zero;
    for (int i = j + 1 + lane; i < r; i += 32) s = fmaOp(a[i + (long long)l * ldA], a[i + (long long)j * ldA], s);
    for (int o = 16; o > 0; o /= 2) {
      s.x += __shfl_xor_sync(0xffffffffu, s.x, o);
      s.y += __shfl_xor_sync(0xffffffffu, s.y, o);
    }
    if (lane == 0) G[l + j * NB] = makeReal2(s.x + a[j + (long long)l * ldA].x, s.y - a[j + (long long)l * ldA].y);
  }
  __syncthreads();
  // T column by column: T(j, j) = tau_j, T(0:j, j) = -tau_j T(0:j, 0:j) G(0:j, j).
  for (int j = 0; j < ib; ++j) {
    const real2 tj = taus[j];
    if (tid < j) {
      real2 s = zero;
      for (int l = tid; l < j; ++l) s = maddReal2(Ts[tid + l * NB], G[l + j * NB], s);
      const real2 ts = mulReal2(tj, s);
      Ts[tid + j * NB] = makeReal2(-ts.x, -ts.y);
    } else if (tid == j) {
      Ts[j + j * NB] = tj;
    }
    __syncthreads();
  }
  // Y(i, j) = sum_l v_l(i) op(T)(l, j): T sums l <= min(i, j), T^H (conj(T(j, l))) sums j <= l <= i.
  for (int e = tid; e < r * ib; e += THREADS) {
    const int i = e % r, j = e / r;
    real2 s = zero;
${p.conjT
    ? `    const int hi = min(i, ib - 1);
    for (int l = j; l <= hi; ++l) s = maddConjBReal2(vAt(a, ldA, i, l), Ts[j + l * NB], s);`
    : `    const int hi = min(i, j);
    for (int l = 0; l <= hi; ++l) s = maddReal2(vAt(a, ldA, i, l), Ts[l + j * NB], s);`}
    y[e] = s;
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}

export function zlasetName(p: ZlasetParams): string {
  return `zlaset_${complexLetter(p.dtype)}_${kindTag(p.kind)}`;
}

/** A(0:rows, 0:cols) of each matrix (a view: offset and ld) := 0 off the diagonal, (diagonal, 0) on it. */
export function zlasetSource(p: ZlasetParams): KernelSource {
  const entry = zlasetName(p);
  const source = `${precisionPrelude(p.dtype)}
${complexPrelude(p.dtype)}
extern "C" __global__ void __launch_bounds__(${ZWY_THREADS}) ${entry}(
    ${operandParameters('A', p.kind, true, 'real2')},
    int count, int rows, int cols, real diagonal) {
  const long long mat = blockIdx.x;
  if (mat >= count) return;
  real2* a = ${matrixPointer('A', p.kind, 'mat')};
  for (long long e = threadIdx.x; e < (long long)rows * cols; e += blockDim.x) {
    const int i = (int)(e % rows), c = (int)(e / rows);
    a[i + (long long)c * ldA] = makeReal2(i == c ? diagonal : real(0), real(0));
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}
