/**
 * The diagonal scan that comes before the recursion (n above the leaf): info[i] = the first
 * exactly zero diagonal element of matrix i (1-based), or 0, as dtrtri checks before it writes
 * anything. One thread per matrix; n reads, nothing written but info.
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { precisionLetter, precisionPrelude } from '../common/precision.js';
import type { TrtriScanParams } from './params.js';

export const SCAN_THREADS = 128;

export function trtriScanSource(p: TrtriScanParams): KernelSource {
  const entry = `trtri_scan_${precisionLetter(p.dtype)}_${kindTag(p.kind)}`;
  const source = `${precisionPrelude(p.dtype)}

extern "C" __global__ void ${entry}(
    ${operandParameters('A', p.kind, false)}, const int* __restrict__ index, int count, int* __restrict__ info, int n) {
  const int m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m >= count) return;
  const real* a = ${matrixPointer('A', p.kind, 'm')};
  int bad = 0;
  for (int c = 0; c < n; ++c) {
    if (a[c + (long long)c * ldA] == real(0)) { bad = c + 1; break; }
  }
  info[index != nullptr ? index[m] : m] = bad;
}
`;
  return { name: `${entry}.cu`, source, entry };
}
