/**
 * The classification kernel of a getrf on a device-sized variable batch (common/vdevice.ts): one
 * thread a member reads its rows, columns (cols absent: rows) and leading dimension, checks them (m
 * in [0, maxRows], n in [0, maxCols], ld >= max(1, m)), and appends a valid member to the region of
 * its class (max(m, n), or 0 where min(m, n) = 0, as getrfMemberSize): the rows the class kernels
 * read (generate-vbatched.ts, generate-register.ts, generate-panel.ts: one pointer; ints m, n, ld,
 * batch index). The batch index is i + 1: the class kernels write info to a scratch whose entry 0
 * is the sink of the zero rows past a class's members (they write no pivots: min(m, n) = 0), the
 * launcher copies entries 1..count to info. An invalid member is written its code there (LAPACK's
 * xerbla number of dgetrf's argument, negated: -1 m, -2 n, -4 ld) and put in no class. Pure: the
 * source depends on nothing (one kernel for both dtypes).
 */
import type { KernelSource } from '../../runtime/types.js';
import { factorClassifySource } from '../common/vdevice.js';
import { GETRF_VBATCH_INTS } from './generate-vbatched.js';

export function generateGetrfClassify(): KernelSource {
  return factorClassifySource('getrf_vdevice_classify', 'Variable-size batched LU on device sizes', 'src/cuda/kernels/getrf/generate-vdevice.ts', `  const int m = rows[i];
  const int n = cols ? cols[i] : m;
  const int ldI = ld[i];
  int code = 0;
  if (!(m >= 0 && m <= maxRows)) code = -1;
  else if (!(n >= 0 && n <= maxCols)) code = -2;
  else if (ldI < max(1, m)) code = -4;
  if (code != 0) { work[i + 1] = code; return; }  // invalid: left untouched, reported
  const int region = vclassOf(min(m, n) == 0 ? 0 : max(m, n));
  const long long row = region * regionRows + atomicAdd(&counters[region], 1);
  ptrs[row] = ptr[i];
  int* d = dims + ${GETRF_VBATCH_INTS} * row;
  d[0] = m; d[1] = n; d[2] = ldI; d[3] = (int)(i + 1);
`);
}
