/**
 * The warp-design class kernel of a variable-size batched Cholesky (classes up to 32; the larger
 * classes are the register and panel designs in their class frames, generate-register.ts and
 * generate-panel.ts). Tables (common/vbatch.ts): one pointer per member, and ints n, ld and the
 * member's batch index.
 *
 * The class bound N is the compile-time order: a member of order nm <= N is factored as the N x N
 * matrix diag(A, I) (rows nm..N-1 are loaded as identity rows, never stored), so every lane runs
 * the same unrolled steps (the warp barriers need every lane) and the member's elements see the
 * operations of the uniform kernel of order nm in the same order (generate-small.ts: rows below
 * nm hold zeros in the member's columns, so they change nothing there, and their pivots are 1).
 * Failure: the first pivot of the member that is not positive (or NaN) gives info = k + 1; the
 * padded pivots come after it and never fail first; the matrix is left as LAPACK's potf2 leaves
 * it (storeFactorRows's rule, masked to the member).
 */
import type { KernelSource } from '../../runtime/types.js';
import { precisionLetter } from '../common/precision.js';
import { slotSetup, smallPrelude, type SmallLayout } from '../common/warp-slots.js';
import { choleskyRowsSource, storeFactorRows } from './generate-small.js';
import type { PotrfSmallParams } from './params.js';

/** Entries per member in the int table (n, ld, batch index); one pointer each. */
export const POTRF_VBATCH_INTS = 3;

/**
 * Rows of a class member of order nm (in scope, with `valid`, `a` and `ldm`) into rA, of `regs`
 * registers (N, or more for the fused posv's right-hand sides, left 0): the member's triangle, and
 * identity rows and columns from nm on (diag(A, I)).
 */
export function loadMemberRows(upper: boolean, regs = 'N'): string {
  const identity = `  real rA[${regs}];
#pragma unroll
  for (int j = 0; j < ${regs}; ++j) rA[j] = (j == r) ? real(1) : real(0);`;
  if (!upper) {
    return `${identity}
  if (valid && r < nm) {
#pragma unroll
    for (int j = 0; j < N; ++j) if (j <= r) rA[j] = a[r + (long long)j * ldm];
  }`;
  }
  return `${identity}
  if (valid) {
#pragma unroll
    for (int c = 0; c < N; ++c) if (r <= c) st[r + c * P] = (r < nm && c < nm) ? a[r + (long long)c * ldm] : (r == c ? real(1) : real(0));
  }
  __syncwarp();
#pragma unroll
  for (int j = 0; j < N; ++j) if (j <= r) rA[j] = st[j + r * P];
  __syncwarp();`;
}

/** `p.n` is the class bound; `p.kind` must be 'pointer'. */
export function potrfSmallVbatchedSource(p: PotrfSmallParams): KernelSource {
  if (p.kind !== 'pointer') throw new Error('the vbatched warp kernel reads a pointer table: kind must be pointer');
  const upper = p.uplo === 'upper';
  const entry = `potrf_vsmall_${precisionLetter(p.dtype)}_${upper ? 'u' : 'l'}_c${p.n}_w${p.warps}${p.classic ? '_c' : ''}`;
  const layout: SmallLayout = { dtype: p.dtype, n: p.n, warps: p.warps, tile: upper, lanes: p.n };
  const source = `${smallPrelude(layout)}
${choleskyRowsSource(0, false, p.classic)}

extern "C" __global__ void __launch_bounds__(WARPS * 32) ${entry}(
    real* const* __restrict__ A, const int* __restrict__ dims, int* __restrict__ info, int count) {
  const int* const index = nullptr;     // the member's batch index comes from dims
${slotSetup()}
  const int* dm = dims + ${POTRF_VBATCH_INTS} * (valid ? mid : 0);
  const int nm = valid ? dm[0] : 0;      // the member's order (<= N)
  const int ldm = valid ? dm[1] : 1;
  real* a = (valid && nm > 0) ? A[mid] : nullptr;
${loadMemberRows(upper)}
  real dOwn = real(1), rinv = real(0);
  const int fail = choleskyRows(rA, r, c0, c1, dOwn, rinv);
  (void)rinv;
${storeFactorRows(upper ? 'upper' : 'lower', 'a', 'ldm', p.classic, 'nm')}
  if (valid && r == 0) info[dm[2]] = fail;
}
`;
  return { name: `${entry}.cu`, source, entry };
}
