/**
 * Batched zunmqr, one reflector at a time as LAPACK's zunm2r (and the complex reference,
 * src/cpu/complex/zqr.ts): C := op(Q) C (side left) or C op(Q) (side right), op(Q) = Q or Q^H ('C'),
 * Q = H(0) ... H(k-1), H(j) = I - tau_j v_j v_j^H from zgeqrf; Q^H's reflectors take conj(tau_j).
 *
 * The design is the real ormqr family's over (re, im) pairs: both sides work on "vectors" of C, the
 * columns on the left (H x = x - t v (v^H x)), the rows on the right (x H = x - t (x v) v^H), each
 * of length r; Q^H C and C Q take the reflectors from 0 up, Q C and C Q^H from k-1 down.
 * `threads` (blockDim.x) per matrix, blockDim.y matrices per block, each with a slot of dynamic
 * shared memory: the reflectors packed (column j holds v_j(j+1:r)), tau (k), a tile of V vectors of
 * C (tile[q + p * ldt] is position p of vector q). Each thread applies all k reflectors to its own
 * vector; no barrier inside. A and tau are only read; only C is written. Sizes are kernel
 * arguments: one kernel per (dtype, side, trans, operand form).
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { complexLetter, complexMultiplyAdd, complexPrelude } from '../common/complex.js';
import { precisionPrelude } from '../common/precision.js';
import type { ZormqrParams } from './params.js';
import { loadVectorTile, storeVectorTile } from '../common/vector-tile.js';

/** Most threads of one block (threads per matrix x matrices per block). */
export const ZORMQR_MAX_THREADS = 256;

/** Pairs of k reflectors of length r packed below their unit diagonals. */
export function zpackedPairs(r: number, k: number): number {
  return k === 0 ? 0 : k * (r - 1) - (k * (k - 1)) / 2;
}

/** Pairs of one matrix's shared slot: packed reflectors, tau, the r x ldt tile. */
export function zormqrSlotPairs(r: number, k: number, ldt: number): number {
  return zpackedPairs(r, k) + k + r * ldt;
}

/** True where the reflectors run from 0 up (Q^H C, C Q), as zunm2r. */
export const zforwardOrder = (p: Pick<ZormqrParams, 'side' | 'trans'>): boolean => (p.side === 'left') === (p.trans === 'C');

function zormqrName(p: ZormqrParams): string {
  return `zormqr_${complexLetter(p.dtype)}_${p.side === 'left' ? 'L' : 'R'}${p.trans}_${kindTag(p.kind)}`;
}

export function zormqrSource(p: ZormqrParams): KernelSource {
  const left = p.side === 'left';
  const entry = zormqrName(p);
  const source = `${precisionPrelude(p.dtype)}
${complexPrelude(p.dtype)}
// x - d ${left ? 'v' : 'conj(v)'}.
static __device__ __forceinline__ real2 subtractScaled(real2 d, real2 v, real2 x) {
  x.x = fmaReal(-d.x, v.x, x.x); x.x = fmaReal(${left ? '' : '-'}d.y, v.y, x.x);
  x.y = fmaReal(${left ? '-' : ''}d.x, v.y, x.y); x.y = fmaReal(-d.y, v.x, x.y);
  return x;
}
${complexMultiplyAdd({ conjA: left, conjB: false })}

// Reflectors from 0 up (Q^H C, C Q) or from k-1 down (Q C, C Q^H); Q^H takes conj(tau).
constexpr bool FORWARD = ${zforwardOrder(p)};
constexpr bool CONJ_TAU = ${p.trans === 'C'};

// Where v_j(p), p > j, lies in the packed reflectors.
static __device__ __forceinline__ int packedAt(int r, int j) { return j * (r - 1) - j * (j - 1) / 2 - j - 1; }

extern "C" __global__ void __launch_bounds__(${ZORMQR_MAX_THREADS}) ${entry}(
    ${operandParameters('A', p.kind, false, 'real2')},
    ${operandParameters('T', p.kind, false, 'real2')},
    ${operandParameters('C', p.kind, true, 'real2')},
    int count, int r, int k, int nvec, int ldt) {
  extern __shared__ __align__(16) unsigned char smemBytes[];
  const int V = blockDim.x, t = threadIdx.x;
  const long long mat = (long long)blockIdx.x * blockDim.y + threadIdx.y;
  const bool valid = mat < count;
  const int packed = k * (r - 1) - k * (k - 1) / 2;
  real2* vs = reinterpret_cast<real2*>(smemBytes) + (long long)threadIdx.y * (packed + k + r * ldt);
  real2* taus = vs + packed;
  real2* tile = taus + k;
  const real2* a = valid ? ${matrixPointer('A', p.kind, 'mat')} : nullptr;
  const real2* tau = valid ? ${matrixPointer('T', p.kind, 'mat')} : nullptr;
  real2* c = valid ? ${matrixPointer('C', p.kind, 'mat')} : nullptr;
  if (valid) {
    for (int j = 0; j < k; ++j) {
      const int o = packedAt(r, j);
      for (int q = j + 1 + t; q < r; q += V) vs[o + q] = a[q + (long long)j * ldA];
    }
    for (int j = t; j < k; j += V) taus[j] = makeReal2(tau[j].x, CONJ_TAU ? -tau[j].y : tau[j].y);
  }
  for (int b0 = 0; b0 < nvec; b0 += V) {
    const int w = min(V, nvec - b0);
    __syncthreads();   // the reflectors are in place; the previous tile is stored
${loadVectorTile(left)}
    __syncthreads();
    if (valid && t < w) {
      real2* x = tile + t;
      for (int s = 0; s < k; ++s) {
        const int j = FORWARD ? s : k - 1 - s;
        const real2 tj = taus[j];
        if (tj.x == real(0) && tj.y == real(0)) continue;   // H(j) = I
        const int o = packedAt(r, j);
        // d = ${left ? 'v^H x' : 'x v'} (v(j) = 1), then d *= t.
        real2 d = x[j * ldt];
        for (int q = j + 1; q < r; ++q) d = fmaOp(vs[o + q], x[q * ldt], d);
        d = mulReal2(tj, d);
        x[j * ldt] = makeReal2(x[j * ldt].x - d.x, x[j * ldt].y - d.y);
        for (int q = j + 1; q < r; ++q) x[q * ldt] = subtractScaled(d, vs[o + q], x[q * ldt]);   // x -= d ${left ? 'v' : 'conj(v)'}
      }
    }
    __syncthreads();
${storeVectorTile(left)}
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}
