/**
 * gesvd's last kernel: info, S (sig scaled back by 2^sc) and the vectors asked, one thread block per
 * matrix. After ormqr the bidiag slice holds Ug = Q_B [U_B; 0] (M x K) and Vg = P_B V_B (K x K), the
 * SVD G = Ug S Vg^T: for m >= n (G = A) U = Ug, VT = Vg^T; for m < n (G = A^T) U = Vg, VT = Ug^T.
 * A failed matrix (NaN or Inf) gets info K + 2 and NaN everywhere; an eigenvector that did not
 * converge, info K + 1 (the outputs as computed).
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { precisionLetter } from '../common/precision.js';
import type { BidiagStoreParams } from './params.js';
import { bidiagPrelude, slicePointers } from './snippets.js';

export const storeEntry = (p: BidiagStoreParams): string =>
  `gesvd_bidiag_store_${precisionLetter(p.dtype)}_${kindTag(p.kind)}_${p.m}x${p.n}_${p.wantU ? 'u' : 'n'}${p.wantVt ? 'v' : 'n'}_t${p.threads}`;

export function bidiagStoreSource(p: BidiagStoreParams): KernelSource {
  const { dtype, m, n, kind, wantU, wantVt, threads } = p;
  const rows = Math.max(m, n), k = Math.min(m, n), tall = m >= n;
  const entry = storeEntry(p);
  const ug = (i: string, r: string): string => `UB[${i} + (long long)${r} * M]`;
  const vg = (i: string, r: string): string => `VB[${i} + (long long)${r} * K]`;
  const source = `${bidiagPrelude(dtype, rows, k, threads)}

extern "C" __global__ void __launch_bounds__(T, 1) ${entry}(
    ${operandParameters('S', kind, true, 'io')},
    ${operandParameters('U', kind, true, 'io')},
    ${operandParameters('V', kind, true, 'io')},
    real* __restrict__ work, real* __restrict__ bwork, long long first,
    int* __restrict__ info, const int* __restrict__ index, int count) {
  const int tid = threadIdx.x;
  const long long mat = first + blockIdx.x;
  if (mat >= count) return;
${slicePointers(rows, k)}  const bool failed = hdr[2] != 0;
  const int sc = hdr[3];
  if (tid == 0) info[index ? index[mat] : mat] = failed ? K + 2 : (hdr[9] != 0 ? K + 1 : 0);
  io* so = ${matrixPointer('S', kind, 'mat')};
  for (int r = tid; r < K; r += T) so[r] = failed ? (io)nanReal() : (io)ldexp(sig[r], sc);
${wantU ? `  io* uo = ${matrixPointer('U', kind, 'mat')};
  for (long long idx = tid; idx < (long long)${m} * K; idx += T) {
    const int i = (int)(idx % ${m}), r = (int)(idx / ${m});
    uo[i + (long long)r * ldU] = failed ? (io)nanReal() : (io)${tall ? ug('i', 'r') : vg('i', 'r')};
  }
` : ''}${wantVt ? `  io* vo = ${matrixPointer('V', kind, 'mat')};
  for (long long idx = tid; idx < (long long)K * ${n}; idx += T) {
    const int r = (int)(idx % K), j = (int)(idx / K);
    vo[r + (long long)j * ldV] = failed ? (io)nanReal() : (io)${tall ? vg('j', 'r') : ug('j', 'r')};
  }
` : ''}}
`;
  return { name: `${entry}.cu`, source, entry };
}
