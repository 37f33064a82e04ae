/**
 * The compact WY form of a block of Householder reflectors (Schreiber & Van Loan 1989; Golub & Van
 * Loan 5.1.7; LAPACK's dlarft 'Forward' 'Columnwise' and dlarfb): what the blocked geqrf, orgqr and
 * ormqr (qr and ormqr families) share below the level of the GEMMs.
 *
 * H(0) H(1) ... H(ib-1) = I - V T V^T, V (r x ib) unit lower trapezoidal (v_j(j) = 1, zeros above,
 * v_j(j+1:r) below the diagonal of column j of A, as geqrf leaves them), T (ib x ib) upper
 * triangular with T(j, j) = tau_j and T(0:j, j) = -tau_j T(0:j, 0:j) V(:, 0:j)^T v_j (dlarft).
 *
 * `wyFactorSource`: one block per matrix reads the r x ib panel of A (a kernel argument view:
 * pointer offset and ld, so a panel anywhere inside A serves) and tau, and writes into workspaces
 * - V with its zeros and ones explicit (r x ib, ld r), the GEMMs' operand;
 * - Y = V op(T) (r x ib, ld r; op(T) = T, or T^T where `transT`), so that applying the block
 *   reflector takes two GEMMs instead of three (W = P^T C, C -= Q W with {P, Q} = {V, Y}: see
 *   the qr family's blocked driver); T itself stays in shared memory.
 * The Gram matrix G = V^T V (strictly upper part) is formed first, a warp per entry with its lanes
 * down the rows (coalesced), then T's columns in turn (one barrier each), then Y row by row.
 * A's part on and above the diagonal is never read (the ones and zeros are written, not loaded),
 * so R (geqrf) or whatever lies there (orgqr) cannot leak into V. A reflector with tau = 0 gives a
 * zero column of T (H = I); NaN in a matrix stays in that matrix's V, T and Y.
 *
 * `lasetSource`: dlaset on a view of each matrix (rows x cols from a pointer offset): off-diagonal
 * entries := 0, diagonal entries := `diagonal` (0 or 1), a block per matrix. orgqr's zero rows
 * above each block and its unit columns beyond k.
 *
 * Sizes (r, ib, the view's rows and cols) are kernel arguments; only the panel width bound NB
 * (T's and G's shared arrays) is a constant, so one compile serves every panel of a dtype.
 */
import type { DType } from '../../../core/dtype.js';
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters, type OperandKind } from './batch-pointer.js';
import { precisionLetter, precisionPrelude } from './precision.js';

/** Threads of a wy block (a multiple of 32, at least NB): 512, so that a batch of a few large matrices (20 of 512) still has 16 warps per matrix on the Gram matrix and Y. */
export const WY_THREADS = 512;

export interface WyFactorParams {
  readonly dtype: DType;
  /** The form of A and tau (strided, or pointer arrays). */
  readonly kind: OperandKind;
  /** The widest block the kernel takes (T and G are NB x NB in shared memory). */
  readonly nb: number;
  /** Y = V T^T instead of V T (C op(Q) with op = N on the right: C - (C V) (V T^T)^T). */
  readonly transT: boolean;
}

export interface LasetParams {
  readonly dtype: DType;
  readonly kind: OperandKind;
}

export function wyFactorName(p: WyFactorParams): string {
  return `wy_factor_${precisionLetter(p.dtype)}_${kindTag(p.kind)}_nb${p.nb}${p.transT ? '_tt' : ''}`;
}

export function wyFactorSource(p: WyFactorParams): KernelSource {
  if (!Number.isInteger(p.nb) || p.nb < 1 || p.nb > 64) throw new Error(`wy kernel: nb ${p.nb} must be an integer in 1..64`);
  const entry = wyFactorName(p);
  const source = `${precisionPrelude(p.dtype)}
constexpr int NB = ${p.nb};        // widest block: T and G are NB x NB
constexpr int THREADS = ${WY_THREADS};
constexpr int WARPS = THREADS / 32;

// v_l(i) of the block: A's entry below the diagonal, the unit diagonal and the zeros above implied.
static __device__ __forceinline__ real vAt(const real* a, int ldA, int i, int l) {
  return i > l ? a[i + (long long)l * ldA] : (i == l ? real(1) : real(0));
}

// V (explicit), and Y = V op(T), of the r x ib block of reflectors at A (view), tau; see common/wy.ts.
extern "C" __global__ void __launch_bounds__(THREADS) ${entry}(
    ${operandParameters('A', p.kind, false)},
    ${operandParameters('T', p.kind, false)},
    real* __restrict__ V, real* __restrict__ Y, long long strideW,
    int count, int r, int ib) {
  __shared__ real G[NB * NB];   // G(l, j) = v_l . v_j, l < j
  __shared__ real Ts[NB * NB];  // T, upper triangular, zeros below
  __shared__ real taus[NB];
  const long long mat = blockIdx.x;
  if (mat >= count) return;
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const real* a = ${matrixPointer('A', p.kind, 'mat')};
  const real* tau = ${matrixPointer('T', p.kind, 'mat')};
  real* v = V + mat * strideW;
  real* y = Y + mat * strideW;
  for (int j = tid; j < ib; j += THREADS) taus[j] = tau[j];
  for (int e = tid; e < NB * NB; e += THREADS) Ts[e] = real(0);
  // V with its ones and zeros explicit (consecutive threads down a column: coalesced).
  for (int e = tid; e < r * ib; e += THREADS) {
    const int i = e % r, l = e / r;
    v[e] = vAt(a, ldA, i, l);
  }
  // G(l, j) = v_l(j) + sum_{i > j} v_l(i) v_j(i), l < j: a warp per entry, lanes down the rows.
  for (int pair = warp; pair < ib * ib; pair += WARPS) {
    const int l = pair % ib, j = pair / ib;
    if (l >= j) continue;
    real s = real(0);
    for (int i = j + 1 + lane; i < r; i += 32) s = fmaReal(a[i + (long long)l * ldA], a[i + (long long)j * ldA], s);
    for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) G[l + j * NB] = s + a[j + (long long)l * ldA];
  }
  __syncthreads();
  // T column by column (dlarft): T(j, j) = tau_j, T(0:j, j) = -tau_j T(0:j, 0:j) G(0:j, j).
  // Column j reads only columns < j, written before the previous barrier.
  for (int j = 0; j < ib; ++j) {
    const real tj = taus[j];
    if (tid < j) {
      real s = real(0);
      for (int l = tid; l < j; ++l) s = fmaReal(Ts[tid + l * NB], G[l + j * NB], s);
      Ts[tid + j * NB] = -tj * s;
    } else if (tid == j) {
      Ts[j + j * NB] = tj;
    }
    __syncthreads();
  }
  // Y(i, j) = sum_l v_l(i) op(T)(l, j): op(T) = T sums l <= min(i, j), T^T sums j <= l <= i.
  for (int e = tid; e < r * ib; e += THREADS) {
    const int i = e % r, j = e / r;
    real s = real(0);
${p.transT
    ? `    const int hi = min(i, ib - 1);
    for (int l = j; l <= hi; ++l) s = fmaReal(vAt(a, ldA, i, l), Ts[j + l * NB], s);`
    : `    const int hi = min(i, j);
    for (int l = 0; l <= hi; ++l) s = fmaReal(vAt(a, ldA, i, l), Ts[l + j * NB], s);`}
    y[e] = s;
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}

export function lasetName(p: LasetParams): string {
  return `wy_laset_${precisionLetter(p.dtype)}_${kindTag(p.kind)}`;
}

/** A(0:rows, 0:cols) of each matrix (a view: offset and ld) := 0 off the diagonal, `diagonal` on it. */
export function lasetSource(p: LasetParams): KernelSource {
  const entry = lasetName(p);
  const source = `${precisionPrelude(p.dtype)}
extern "C" __global__ void __launch_bounds__(${WY_THREADS}) ${entry}(
    ${operandParameters('A', p.kind, true)},
    int count, int rows, int cols, real diagonal) {
  const long long mat = blockIdx.x;
  if (mat >= count) return;
  real* a = ${matrixPointer('A', p.kind, 'mat')};
  for (long long e = threadIdx.x; e < (long long)rows * cols; e += blockDim.x) {
    const int i = (int)(e % rows), c = (int)(e / rows);
    a[i + (long long)c * ldA] = i == c ? diagonal : real(0);
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}
