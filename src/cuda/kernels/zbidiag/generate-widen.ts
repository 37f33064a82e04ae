/**
 * Between the bidiag family's vectors kernel and the complex back-transformation: U_B (M x K, real,
 * rows K ... M-1 zero) and V_B (K x K, real) from the bidiag slice copied as pairs (imaginary parts
 * zero) into the complex slice, where the zqr family's unmqr applies Q_B and P_B to them. One block
 * per matrix; a failed matrix (NaN or Inf: the vectors kernel left nothing) is skipped.
 */
import type { KernelSource } from '../../runtime/types.js';
import type { ZbidiagWidenParams } from './params.js';
import { slicePointers, zbidiagPrelude } from './snippets.js';

export const widenEntry = (p: ZbidiagWidenParams): string =>
  `zgesvd_bidiag_widen_${p.rows}x${p.k}_${p.left ? 'u' : 'n'}${p.right ? 'v' : 'n'}_t${p.threads}`;

export function zbidiagWidenSource(p: ZbidiagWidenParams): KernelSource {
  const { rows, k, left, right, threads } = p;
  const entry = widenEntry(p);
  // The data's dtype does not enter: every part here is float64.
  const source = `${zbidiagPrelude('float64', rows, k, threads)}

extern "C" __global__ void __launch_bounds__(T, 1) ${entry}(real* __restrict__ work, real* __restrict__ bwork, real* __restrict__ cwork, long long first, int count) {
  const int tid = threadIdx.x;
  const long long mat = first + blockIdx.x;
  if (mat >= count) return;
${slicePointers(rows, k)}  if (hdr[2] != 0) return;   // NaN or Inf in A: the store writes NaN
${left ? `  for (long long idx = tid; idx < (long long)M * K; idx += T) storePair(UB, idx, makeReal2(UBr[idx], real(0)));\n` : ''}${right ? `  for (long long idx = tid; idx < (long long)K * K; idx += T) storePair(VB, idx, makeReal2(VBr[idx], real(0)));\n` : ''}}
`;
  return { name: `${entry}.cu`, source, entry };
}
