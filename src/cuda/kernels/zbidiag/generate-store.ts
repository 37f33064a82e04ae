/**
 * The complex gesvd's last kernel: info, S (sig scaled back by 2^sc) and the vectors asked, one
 * thread block per matrix. After unmqr the complex slice holds Ug = Q_B [U_B; 0] (M x K) and
 * Vg = P_B V_B (K x K), the SVD G = Ug S Vg^H: for m >= n (G = A) U = Ug, VT = Vg^H; for m < n
 * (G = A^H, so A = Vg S Ug^H) U = Vg, VT = Ug^H. A failed matrix (NaN or Inf) gets info K + 2 and
 * NaN everywhere; an eigenvector that did not converge, info K + 1 (the outputs as computed).
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { complexLetter } from '../common/complex.js';
import type { ZbidiagStoreParams } from './params.js';
import { slicePointers, zbidiagPrelude } from './snippets.js';

export const zstoreEntry = (p: ZbidiagStoreParams): string =>
  `zgesvd_bidiag_store_${complexLetter(p.dtype)}_${kindTag(p.kind)}_${p.m}x${p.n}_${p.wantU ? 'u' : 'n'}${p.wantVt ? 'v' : 'n'}_t${p.threads}`;

export function zbidiagStoreSource(p: ZbidiagStoreParams): KernelSource {
  const { dtype, m, n, kind, wantU, wantVt, threads } = p;
  const rows = Math.max(m, n), k = Math.min(m, n), tall = m >= n;
  const entry = zstoreEntry(p);
  const ug = (i: string, r: string): string => `loadPair(UB, ${i} + (long long)${r} * M)`;
  const vg = (i: string, r: string): string => `loadPair(VB, ${i} + (long long)${r} * K)`;
  const source = `${zbidiagPrelude(dtype, rows, k, threads)}
static __device__ __forceinline__ io2 toIo(real2 z, bool failed) {
  io2 x;
  x.x = failed ? (io)nanReal() : (io)z.x;
  x.y = failed ? (io)nanReal() : (io)z.y;
  return x;
}

extern "C" __global__ void __launch_bounds__(T, 1) ${entry}(
    ${operandParameters('S', kind, true, 'io')},
    ${operandParameters('U', kind, true, 'io2')},
    ${operandParameters('V', kind, true, 'io2')},
    real* __restrict__ work, real* __restrict__ bwork, real* __restrict__ cwork, long long first,
    int* __restrict__ info, const int* __restrict__ index, int count) {
  const int tid = threadIdx.x;
  const long long mat = first + blockIdx.x;
  if (mat >= count) return;
${slicePointers(rows, k)}  const bool failed = hdr[2] != 0;
  const int sc = hdr[3];
  if (tid == 0) info[index ? index[mat] : mat] = failed ? K + 2 : (hdr[9] != 0 ? K + 1 : 0);
  io* so = ${matrixPointer('S', kind, 'mat')};
  for (int r = tid; r < K; r += T) so[r] = failed ? (io)nanReal() : (io)ldexp(sig[r], sc);
${wantU ? `  io2* uo = ${matrixPointer('U', kind, 'mat')};
  for (long long idx = tid; idx < (long long)${m} * K; idx += T) {
    const int i = (int)(idx % ${m}), r = (int)(idx / ${m});
    uo[i + (long long)r * ldU] = toIo(failed ? makeReal2(real(0), real(0)) : ${tall ? ug('i', 'r') : vg('i', 'r')}, failed);
  }
` : ''}${wantVt ? `  io2* vo = ${matrixPointer('V', kind, 'mat')};
  for (long long idx = tid; idx < (long long)K * ${n}; idx += T) {
    const int r = (int)(idx % K), j = (int)(idx / K);
    const real2 z = failed ? makeReal2(real(0), real(0)) : ${tall ? vg('j', 'r') : ug('j', 'r')};
    vo[r + (long long)j * ldV] = toIo(makeReal2(z.x, -z.y), failed);   // the conjugate transpose
  }
` : ''}}
`;
  return { name: `${entry}.cu`, source, entry };
}
