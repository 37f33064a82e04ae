/**
 * The complex heev's last kernel, after the reduction (generate-reduce.ts) and the tridiag family's
 * values and vectors kernels; `storeParts` blocks per matrix (blockIdx.y), each with `threads` of its
 * columns (with vectors: the columns' back-transformations are independent, so a matrix's spread over
 * several SMs; values only, one):
 * 1. the eigenvalues (the values kernel's lam) ranked ascending (ties by index; every block ranks),
 *    scaled back by the load's power of two, into W by the first block; info n + 2 for a failed matrix
 *    (W, and A with vectors, NaN), n + 1 where an eigenvector's inverse iteration did not converge (the
 *    vectors are written all the same), else 0;
 * 2. with vectors, V = Q Z: column j of the result starts as the tridiagonal's eigenvector of rank j
 *    (real), held by a thread per column in the slice (row-major, so a warp's accesses are coalesced),
 *    and the reflectors H(N-2), ..., H(0) (Q = H(0) ... H(N-2), H(i) = I - tau_i v_i v_i^H, v_i's unit
 *    at row i + 1, its tail in C(i+2:N, i)) are applied in turn: v staged in shared memory, then
 *    z -= tau v (v^H z) per column; the result over A. Values only: A is never written.
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { complexLetter } from '../common/complex.js';
import type { ZheevStoreParams } from './params.js';
import { slicePointers, zheevPrelude } from './snippets.js';

/** Blocks per matrix of the store kernel: with vectors ceil(n / threads) (a thread per column), else one. */
export const storeParts = (p: Pick<ZheevStoreParams, 'n' | 'vectors' | 'threads'>): number => (p.vectors ? Math.ceil(p.n / p.threads) : 1);

const storeEntry = (p: ZheevStoreParams): string =>
  `zheev_tridiag_store_${complexLetter(p.dtype)}_${kindTag(p.kind)}_n${p.n}_${p.vectors ? 'v' : 'n'}_t${p.threads}`;

/** 2. V = Q Z over A, this block's columns j0 ... j1 - 1 (a failed matrix: NaN). */
const backTransform = (a: string): string => `  io2* g = ${a};
  const int j0 = blockIdx.y * T, j1 = min(N, j0 + T), cols = j1 - j0;
  if (failed) {
    for (int idx = tid; idx < N * cols; idx += T) { io2 x; x.x = (io)nanReal(); x.y = (io)nanReal(); g[idx % N + (long long)(j0 + idx / N) * ldA] = x; }
    return;
  }
  // Vc(r, j) at pair r N + j: column j of the result, the real eigenvector of rank j to start.
  for (int idx = tid; idx < N * cols; idx += T) {
    const int r = idx / cols, j = j0 + idx % cols;
    const long long e = (long long)r * N + j;
    Vc[2 * e] = V[r + (long long)perm[j] * N];
    Vc[2 * e + 1] = real(0);
  }
  __syncthreads();
  for (int i = N - 2; i >= 0; --i) {
    const real tr = ctau[2 * i], ti = ctau[2 * i + 1];
    if (tr == real(0) && ti == real(0)) continue;   // H = I (uniform over the block)
    for (int r = i + 1 + tid; r < N; r += T) {
      const real2 v = r == i + 1 ? makeReal2(real(1), real(0)) : loadPair(C, r + (long long)i * N);
      vr[r] = v.x; vi[r] = v.y;
    }
    __syncthreads();
    for (int j = j0 + tid; j < j1; j += T) {
      // s = tau (v^H z), then z -= v s.
      real sr = real(0), si = real(0);
      for (int r = i + 1; r < N; ++r) {
        const real2 z = loadPair(Vc, (long long)r * N + j);
        sr = fmaReal(vr[r], z.x, fmaReal(vi[r], z.y, sr));
        si = fmaReal(vr[r], z.y, fmaReal(-vi[r], z.x, si));
      }
      const real s0 = fmaReal(tr, sr, -(ti * si)), s1 = fmaReal(tr, si, ti * sr);
      for (int r = i + 1; r < N; ++r) {
        const long long e = (long long)r * N + j;
        const real v0 = vr[r], v1 = vi[r];
        Vc[2 * e] -= fmaReal(v0, s0, -(v1 * s1));
        Vc[2 * e + 1] -= fmaReal(v0, s1, v1 * s0);
      }
    }
    __syncthreads();
  }
  for (int idx = tid; idx < N * cols; idx += T) {
    const int r = idx % N, j = j0 + idx / N;
    const real2 z = loadPair(Vc, (long long)r * N + j);
    io2 x; x.x = (io)z.x; x.y = (io)z.y;
    g[r + (long long)j * ldA] = x;
  }
`;

export function zheevStoreSource(p: ZheevStoreParams): KernelSource {
  const { dtype, n, vectors, kind, threads } = p;
  const entry = storeEntry(p);
  const source = `${zheevPrelude(dtype, n, threads)}

extern "C" __global__ void __launch_bounds__(T, 1) ${entry}(
    ${operandParameters('A', kind, true, 'io2')},
    ${operandParameters('W', kind, true, 'io')},
    real* __restrict__ work, real* __restrict__ cwork, long long first,
    int* __restrict__ info, const int* __restrict__ index, int count) {
  const int tid = threadIdx.x;
  const long long mat = first + blockIdx.x;
  if (mat >= count) return;
${slicePointers(n)}  __shared__ int perm[N];
  __shared__ real vr[N], vi[N];
  const bool failed = hdr[2] != 0;
  const int sc = hdr[3];
  const bool noconv = hdr[9] != 0;
  // 1. Ascending order by rank (ties by index): perm[rank] = j.
  if (!failed)
    for (int j = tid; j < N; j += T) {
      const real x = lam[j];
      int rank = 0;
      for (int k = 0; k < N; ++k) rank += (lam[k] < x || (lam[k] == x && k < j)) ? 1 : 0;
      perm[rank] = j;
    }
  __syncthreads();
  if (blockIdx.y == 0) {
    if (tid == 0) info[index ? index[mat] : mat] = failed ? N + 2 : (noconv ? N + 1 : 0);
    io* w = ${matrixPointer('W', kind, 'mat')};
    for (int j = tid; j < N; j += T) w[j] = failed ? (io)nanReal() : (io)ldexp(lam[perm[j]], sc);
  }
${vectors ? backTransform(matrixPointer('A', kind, 'mat')) : ''}}
`;
  return { name: `${entry}.cu`, source, entry };
}
