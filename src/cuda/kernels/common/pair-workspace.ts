/**
 * The opening lines of the complex kernels that compute in float64 on a workspace of reals whatever
 * the data's dtype (the complex heev's and the complex gesvd's reductions and stores): `real` and
 * `real2` of float64, the data's pair `io2` and part `io` (for complex64 data a float pair), a quiet
 * NaN, and pair e of a workspace array of reals read and written as two reals (a slice of reals may
 * start at an odd element, so a pair there is not 16-byte aligned).
 */
import type { DType } from '../../../core/dtype.js';
import { complexPrelude } from './complex.js';
import { cType, elementBytes, mathHelpers, precisionPrelude } from './precision.js';

/** The arithmetic of these kernels (and their workspace's element). */
export const PAIR_WORKSPACE_COMPUTE = 'float64' as const;

export function pairWorkspacePrelude(dtype: DType): string {
  const io = `struct __align__(${2 * elementBytes(dtype)}) io2 { ${cType(dtype)} x, y; };   // the data's pair (computed in float64 whatever it is)
typedef ${cType(dtype)} io;`;
  return `${precisionPrelude(PAIR_WORKSPACE_COMPUTE)}
${mathHelpers(PAIR_WORKSPACE_COMPUTE)}
${complexPrelude(PAIR_WORKSPACE_COMPUTE)}
${io}
static __device__ __forceinline__ real nanReal() { return __longlong_as_double(0x7ff8000000000000LL); }
// Pair e of a workspace array of reals (re at 2e, im at 2e + 1).
static __device__ __forceinline__ real2 loadPair(const real* p, long long e) { return makeReal2(p[2 * e], p[2 * e + 1]); }
static __device__ __forceinline__ void storePair(real* p, long long e, real2 v) { p[2 * e] = v.x; p[2 * e + 1] = v.y; }`;
}
