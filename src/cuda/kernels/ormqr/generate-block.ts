/**
 * Batched ormqr (LAPACK's dorm2r, one reflector at a time): C := op(Q) C (side left) or C op(Q)
 * (side right), op(Q) = Q or Q^T, Q = H(0) ... H(k-1), H(j) = I - tau_j v_j v_j^T from geqrf.
 *
 * Both sides are the same computation on "vectors" of C: the columns of C on the left (H x for a
 * column x), the rows on the right (x H for a row x: H is symmetric), each of length r (m on the
 * left, n on the right), and H(j) x = x - tau_j (v_j . x) v_j touches x(j:r) only. The sides
 * differ in which dimension of C is a vector, and with trans in the reflectors' order (as
 * dorm2r): Q^T C and C Q take them from 0 up, Q C and C Q^T from k-1 down.
 *
 * Layout: `threads` (V = blockDim.x) per matrix, blockDim.y matrices per block, each matrix with
 * its own slot of dynamic shared memory: the reflectors packed (column j holds v_j(j+1:r), the
 * unit diagonal and the zeros above it implied; k (r - 1) - k (k - 1) / 2 elements), tau (k), and
 * a tile of V vectors of C (r x V, tile[q + p * ldt] is position p of vector q). The reflectors
 * are loaded once (coalesced down each column of A); then the vectors of C go through the tile V
 * at a time: loaded coalesced (down C's columns on either side), each thread applies all k
 * reflectors to its own vector (no barrier inside: v_j(p) is a broadcast, the tile's accesses
 * hit consecutive words), stored coalesced. A and tau are only read; only C is written.
 *
 * Sizes are kernel arguments (r, k, the vector count, ldt): nothing is unrolled, so one kernel
 * serves every shape whose reflectors fit the shared memory (plan.ts; the rest run on the CPU).
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { precisionLetter, precisionPrelude } from '../common/precision.js';
import type { OrmqrParams } from './params.js';
import { loadVectorTile, storeVectorTile } from '../common/vector-tile.js';

/** Most threads of one block (threads per matrix x matrices per block). */
export const ORMQR_MAX_THREADS = 256;

/** Elements of one matrix's shared slot: packed reflectors, tau, the r x ldt tile. */
export function ormqrSlotElements(r: number, k: number, ldt: number): number {
  return packedElements(r, k) + k + r * ldt;
}

/** Elements of k reflectors of length r packed below their unit diagonals. */
export function packedElements(r: number, k: number): number {
  return k === 0 ? 0 : k * (r - 1) - (k * (k - 1)) / 2;
}

/** True where the reflectors run from 0 up (Q^T C, C Q), as dorm2r. */
export const forwardOrder = (p: Pick<OrmqrParams, 'side' | 'trans'>): boolean => (p.side === 'left') === (p.trans === 'T');

export function ormqrBlockSource(p: OrmqrParams): KernelSource {
  const left = p.side === 'left';
  const entry = `ormqr_${precisionLetter(p.dtype)}_${left ? 'L' : 'R'}${p.trans}_${kindTag(p.kind)}`;
  const source = `${precisionPrelude(p.dtype)}

// Reflectors from 0 up (Q^T C, C Q) or from k-1 down (Q C, C Q^T).
constexpr bool FORWARD = ${forwardOrder(p)};

// Where v_j(p), p > j, lies in the packed reflectors: column j starts after the r-1, r-2, ... of
// the columns before it.
static __device__ __forceinline__ int packedAt(int r, int j) { return j * (r - 1) - j * (j - 1) / 2 - j - 1; }

extern "C" __global__ void __launch_bounds__(${ORMQR_MAX_THREADS}) ${entry}(
    ${operandParameters('A', p.kind, false)},
    ${operandParameters('T', p.kind, false)},
    ${operandParameters('C', p.kind, true)},
    int count, int r, int k, int nvec, int ldt) {
  extern __shared__ __align__(16) unsigned char smemBytes[];
  const int V = blockDim.x, t = threadIdx.x;
  const long long mat = (long long)blockIdx.x * blockDim.y + threadIdx.y;
  const bool valid = mat < count;
  const int packed = k * (r - 1) - k * (k - 1) / 2;
  real* vs = reinterpret_cast<real*>(smemBytes) + (long long)threadIdx.y * (packed + k + r * ldt);
  real* taus = vs + packed;
  real* tile = taus + k;
  const real* a = valid ? ${matrixPointer('A', p.kind, 'mat')} : nullptr;
  const real* tau = valid ? ${matrixPointer('T', p.kind, 'mat')} : nullptr;
  real* c = valid ? ${matrixPointer('C', p.kind, 'mat')} : nullptr;
  if (valid) {
    for (int j = 0; j < k; ++j) {
      const int o = packedAt(r, j);
      for (int q = j + 1 + t; q < r; q += V) vs[o + q] = a[q + (long long)j * ldA];
    }
    for (int j = t; j < k; j += V) taus[j] = tau[j];
  }
  for (int b0 = 0; b0 < nvec; b0 += V) {
    const int w = min(V, nvec - b0);
    __syncthreads();   // the reflectors are in place; the previous tile is stored
${loadVectorTile(left)}
    __syncthreads();
    if (valid && t < w) {
      real* x = tile + t;
      for (int s = 0; s < k; ++s) {
        const int j = FORWARD ? s : k - 1 - s;
        const real tj = taus[j];
        if (tj == real(0)) continue;   // H(j) = I (dlarfg's tau for a zero column)
        const int o = packedAt(r, j);
        real d = x[j * ldt];
        for (int q = j + 1; q < r; ++q) d = fmaReal(vs[o + q], x[q * ldt], d);
        d *= tj;
        x[j * ldt] -= d;
        for (int q = j + 1; q < r; ++q) x[q * ldt] = fmaReal(-d, vs[o + q], x[q * ldt]);
      }
    }
    __syncthreads();
${storeVectorTile(left)}
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}
