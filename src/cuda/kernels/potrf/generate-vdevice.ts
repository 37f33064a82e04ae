/**
 * The classification kernel of a potrf on a device-sized variable batch (common/vdevice.ts): one
 * thread a member reads its order and leading dimension, checks them (the order in [0, maxRows]
 * and [0, maxCols], equal to cols where cols is given; ld >= max(1, n)), and appends a valid member
 * to its class's region: the rows the class kernels read (generate-vbatched.ts, generate-register.ts,
 * generate-panel.ts: one pointer; ints n, ld, batch index). The batch index is i + 1: the class
 * kernels write info to a scratch whose entry 0 is the sink of the zero rows past a class's
 * members (common/vdevice.ts), the launcher copies entries 1..count to info. An invalid member is
 * written its code there (LAPACK's xerbla number of dpotrf's argument, negated: -2 n, -4 ld) and
 * put in no class. Pure: the source depends on nothing (one kernel for both dtypes and uplos).
 */
import type { KernelSource } from '../../runtime/types.js';
import { factorClassifySource } from '../common/vdevice.js';
import { POTRF_VBATCH_INTS } from './generate-vbatched.js';

export function generatePotrfClassify(): KernelSource {
  return factorClassifySource('potrf_vdevice_classify', 'Variable-size batched Cholesky on device sizes', 'src/cuda/kernels/potrf/generate-vdevice.ts', `  const int n = rows[i];
  const int ldI = ld[i];
  int code = 0;
  if (!(n >= 0 && n <= maxRows && n <= maxCols && (cols == nullptr || cols[i] == n))) code = -2;
  else if (ldI < max(1, n)) code = -4;
  if (code != 0) { work[i + 1] = code; return; }  // invalid: left untouched, reported
  const int region = vclassOf(n);
  const long long row = region * regionRows + atomicAdd(&counters[region], 1);
  ptrs[row] = ptr[i];
  int* d = dims + ${POTRF_VBATCH_INTS} * row;
  d[0] = n; d[1] = ldI; d[2] = (int)(i + 1);
`);
}
