/**
 * posv's class kernel for the members of order up to 32 of a variable-size batch: the fused design
 * of generate-small.ts (the Cholesky of the bordered matrix [A | B], then the backward sweep with
 * the factor still in registers: A and B each read once and written once) over a size class, where
 * the host path otherwise runs potrf's class kernel and two of trsm's (three launches a class, the
 * factor through memory, B kept aside and copied back).
 *
 * The class bound N is the compile-time order. A member of order nm <= N is factored as diag(A, I)
 * (potrf's loadMemberRows; rows nm..N-1 identity rows, never stored) with B's rows from nm on and its
 * columns from the member's nrhs on zero: the padding's rows of L are zero in the member's columns,
 * its pivots 1, its solution 0, so the member's elements see the uniform kernel's operations. Every
 * lane runs the same unrolled steps (members of different orders share a warp, whose shuffles need
 * every lane), and the passes over further right-hand sides run to the class's widest B (`nrhsMax`,
 * uniform over the launch), each member loading and storing its own columns only.
 *
 * Tables (common/vbatch.ts): two pointers per member (A, B; offsets folded in) and ints n, ldA,
 * nrhs, ldB and the member's batch index. A member whose factorisation fails keeps its B (LAPACK's
 * posv); its A is what potf2 leaves; info as potrf's.
 */
import type { KernelSource } from '../../runtime/types.js';
import { precisionLetter } from '../common/precision.js';
import { slotSetup, smallPrelude } from '../common/warp-slots.js';
import { choleskyRowsSource, loadMemberRows, storeFactorRows } from '../potrf/index.js';
import { posvLayout, rbOf, sweep } from './generate-small.js';
import type { PosvVbatchedParams } from './params.js';

/** Pointers per member in the pointer table (A, B). */
export const POSV_VBATCH_POINTERS = 2;
/** Entries per member in the int table (n, ldA, nrhs, ldB, batch index). */
export const POSV_VBATCH_INTS = 5;

const FULL = '0xffffffffu';

export function posvSmallVbatchedSource(p: PosvVbatchedParams): KernelSource {
  const rb = rbOf(p);
  const lower = p.uplo === 'lower';
  const entry = `posv_vsmall_${precisionLetter(p.dtype)}_${lower ? 'l' : 'u'}_c${p.n}_r${rb}${p.more ? 'm' : ''}_w${p.warps}`;
  // The backward sweep of posvSmallSource: T(r, k) = L(k, r) L(r, r) from column r's kept buffer.
  const backward = (z: string, out: string): string =>
    sweep(false, '(r >= 0 && r < k) ? c0[r * CS + k] : real(0)', 'base + k', 'rdd', z, out, 'r');
  const storeFactor = storeFactorRows(p.uplo, 'a', 'ldm', false, 'nm');
  const column = (q: string): string => `b[r + (long long)(${q}) * ldB]`;
  const source = `${smallPrelude(posvLayout(p))}
${choleskyRowsSource(rb, true)}
constexpr int RB = RBF;
constexpr int SN = N;

extern "C" __global__ void __launch_bounds__(WARPS * 32) ${entry}(
    real* const* __restrict__ ptrs, const int* __restrict__ dims, int* __restrict__ info, int count, int nrhsMax) {
  const int* const index = nullptr;     // the member's batch index comes from dims
${slotSetup(true)}
  const int* dm = dims + ${POSV_VBATCH_INTS} * (valid ? mid : 0);
  const int nm = valid ? dm[0] : 0;      // the member's order (<= N)
  const int ldm = valid ? dm[1] : 1;
  const int nrhs = valid ? dm[2] : 0;    // its right-hand sides
  const int ldB = valid ? dm[3] : 1;
  real* a = (valid && nm > 0) ? ptrs[${POSV_VBATCH_POINTERS} * mid] : nullptr;
  real* b = (valid && nm > 0 && nrhs > 0) ? ptrs[${POSV_VBATCH_POINTERS} * mid + 1] : nullptr;
  const bool row = valid && r < nm;     // a row of the member (the others: padding)
${loadMemberRows(!lower, 'NA')}
  if (row) {                                        // the first RB columns of B, read with A
#pragma unroll
    for (int c = 0; c < RB; ++c) if (c < nrhs) rA[N + c] = ${column('c')};
  }
  real dOwn = real(1), rinv = real(0);
  const int fail = choleskyRows(rA, r, c0, c1, dOwn, rinv);
  const real rdd = rinv * rinv;                     // 1 / L(r,r)^2
  const bool solve = row && fail == 0;
${lower ? storeFactor : ''}
  {
    real z[RB], x[RB];
#pragma unroll
    for (int c = 0; c < RB; ++c) { z[c] = rA[N + c]; x[c] = real(0); }   // L(r,r) y(r, c)
    ${backward('z', 'x')}
    if (solve) {
#pragma unroll
      for (int c = 0; c < RB; ++c) if (c < nrhs) ${column('c')} = x[c];
    }
  }
${p.more ? `  for (int q0 = RB; q0 < nrhsMax; q0 += RB) {       // further columns: forward and backward sweeps
    real x[RB], z[RB], w[RB];
#pragma unroll
    for (int c = 0; c < RB; ++c) { x[c] = (solve && q0 + c < nrhs) ? ${column('q0 + c')} : real(0); z[c] = real(0); w[c] = real(0); }
    // L y = b: row k's value at step k is L(k,k) y(k) = z(k); y(k) = z(k) / L(k,k) goes to the others.
#pragma unroll
    for (int k = 0; k < N; ++k) {
      const real tk = rA[k];
#pragma unroll
      for (int c = 0; c < RB; ++c) {
        const real yk = __shfl_sync(${FULL}, x[c] * rinv, base + k);
        if (r == k) z[c] = x[c];
        x[c] = fmaReal(-tk, yk, x[c]);
      }
    }
    ${backward('z', 'w')}
    if (solve) {
#pragma unroll
      for (int c = 0; c < RB; ++c) if (q0 + c < nrhs) ${column('q0 + c')} = w[c];
    }
  }
` : ''}
${lower ? '' : storeFactor}
  (void)nrhsMax;
  if (valid && r == 0) info[dm[4]] = fail;
}
`;
  return { name: `${entry}.cu`, source, entry };
}
