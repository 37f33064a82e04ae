/**
 * posv's and gesv's class kernels for the members of order up to 32 of a variable-size batch: the
 * fused designs of generate-small.ts (the factorisation of the bordered matrix [A | B], then the
 * backward sweep with the factor still in registers: A and B each read once and written once) over
 * a size class, where the host path otherwise runs the factorisation's class kernel and two of
 * trsm's (three launches a class, the factor through memory, B kept aside and copied back).
 *
 * posv:
 * The class bound N is the compile-time order. A member of order nm <= N is factored as diag(A, I)
 * (potrf's loadMemberRows; rows nm..N-1 identity rows, never stored) with B's rows from nm on and its
 * columns from the member's nrhs on zero: the padding's rows of L are zero in the member's columns,
 * its pivots 1, its solution 0, so the member's elements see the uniform kernel's operations. Every
 * lane runs the same unrolled steps (members of different orders share a warp, whose shuffles need
 * every lane), and the passes over further right-hand sides run to the widest B of the warp's
 * members (uniform over the warp), each member loading and storing its own columns only. A warp
 * whose members all have order 0 (on device sizes, the rows of a class's region past its members)
 * only writes their info and leaves.
 *
 * gesv: getrf's masked LU (luPrelude's `steps`: lanes from nm on hold no row, never candidates, never
 * updated; the member's pivots, info and factor are getrf's class kernel's) of [A | B], B's columns
 * past the member's nrhs zero; the sweeps over the rows' positions skip the steps from nm on (`live`:
 * those positions hold no row of the member, and their lane map is not written).
 *
 * Tables (common/vbatch.ts): two pointers per member (A, B; offsets folded in) and ints n, ldA,
 * nrhs, ldB and the member's batch index. A member whose factorisation fails keeps its B (LAPACK's
 * posv and gesv); its A is what potf2 or getf2 leaves; info as potrf's or getrf's.
 */
import type { KernelSource } from '../../runtime/types.js';
import { precisionLetter } from '../common/precision.js';
import { slotSetup, smallPrelude } from '../common/warp-slots.js';
import { choleskyRowsSource, loadMemberRows, storeFactorRows } from '../potrf/index.js';
import { luPrelude } from '../getrf/index.js';
import { gesvBorderedSolve, gesvFurtherPass, gesvLayout, posvBorderedSolve, posvFurtherPass, posvLayout, rbOf, sweep, type PositionSweep } from './generate-small.js';
import type { FusedVbatchedParams, PosvVbatchedParams } from './params.js';

const FULL = '0xffffffffu';

/** Pointers per member in the pointer table (A, B). */
export const FUSED_VBATCH_POINTERS = 2;
/** Entries per member in the int table (n, ldA, nrhs, ldB, batch index). */
export const FUSED_VBATCH_INTS = 5;

/**
 * The member's fields from the tables (`valid`, `mid` in scope): nm, ldm, nrhs, ldB, dm (its ints), a
 * and b; `passes` the widest B of the warp's members; a warp of members of order 0 writes info 0 and
 * returns (warp-uniform: the kernels' only barriers are the warp's).
 */
const memberPrologue = `  const int* dm = dims + ${FUSED_VBATCH_INTS} * (valid ? mid : 0);
  const int nm = valid ? dm[0] : 0;      // the member's order (<= N)
  const int ldm = valid ? dm[1] : 1;
  const int nrhs = valid ? dm[2] : 0;    // its right-hand sides
  const int ldB = valid ? dm[3] : 1;
  real* a = (valid && nm > 0) ? ptrs[${FUSED_VBATCH_POINTERS} * mid] : nullptr;
  real* b = (valid && nm > 0 && nrhs > 0) ? ptrs[${FUSED_VBATCH_POINTERS} * mid + 1] : nullptr;
  if (__all_sync(${FULL}, nm == 0)) {
    if (valid && r == 0) info[dm[4]] = 0;
    return;
  }
  const int passes = __reduce_max_sync(${FULL}, nrhs);`;


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
    real* const* __restrict__ ptrs, const int* __restrict__ dims, int* __restrict__ info, int count) {
  const int* const index = nullptr;     // the member's batch index comes from dims
${slotSetup(true)}
${memberPrologue}
  const bool row = valid && r < nm;     // a row of the member (the others: padding)
${loadMemberRows(!lower, 'NA')}
  if (row) {                                        // the first RB columns of B, read with A
#pragma unroll
    for (int c = 0; c < RB; ++c) if (c < nrhs) rA[N + c] = ${column('c')};
  }
${posvBorderedSolve(backward, 'row', lower ? storeFactor : '', 'if (c < nrhs) ', column('c'))}
${p.more ? `  for (int q0 = RB; q0 < passes; q0 += RB) {       // further columns: forward and backward sweeps
${posvFurtherPass(backward, column('q0 + c'))}
  }
` : ''}
${lower ? '' : storeFactor}
  (void)passes;
  if (valid && r == 0) info[dm[4]] = fail;
}
`;
  return { name: `${entry}.cu`, source, entry };
}

export function gesvSmallVbatchedSource(p: FusedVbatchedParams): KernelSource {
  const rb = rbOf(p);
  const entry = `gesv_vsmall_${precisionLetter(p.dtype)}_c${p.n}_r${rb}${p.more ? 'm' : ''}_w${p.warps}`;
  // Rows are at positions `pos`; the lane of position k is lmap[k], written for k < nm only.
  const swept: PositionSweep = (down, scale, x, out) => sweep(down, 'rA[k]', 'lmap[k]', scale, x, out, 'pos', 'k < nm');
  const column = (row: string, q: string): string => `b[${row} + (long long)(${q}) * ldB]`;
  const source = `${smallPrelude(gesvLayout(p))}
${luPrelude(p.dtype, p.n, p.n + rb, undefined, true)}
constexpr int RB = ${rb};
constexpr int SN = ROWS;

extern "C" __global__ void __launch_bounds__(WARPS * 32) ${entry}(
    real* const* __restrict__ ptrs, const int* __restrict__ dims,
    int* __restrict__ ipiv, int pivotStride, int* __restrict__ info, int count) {
  const int* const index = nullptr;     // the member's batch index comes from dims
${slotSetup()}
${memberPrologue}
  const long long bid = valid ? (long long)dm[4] : 0;
  const bool hasRow = valid && r < nm;  // a row of the member (lanes from nm on hold none)
  real rA[COLS];                                    // row r of [A | B(:, 0..RB)]
#pragma unroll
  for (int j = 0; j < ROWS; ++j) rA[j] = (hasRow && j < nm) ? a[r + (long long)j * ldm] : real(0);
#pragma unroll
  for (int c = 0; c < RB; ++c) rA[ROWS + c] = (hasRow && c < nrhs) ? ${column('r', 'c')} : real(0);
  int pos;
  const int inf = luRows(rA, hasRow ? r : -1, pos, c0, c1, (valid && nm > 0) ? ipiv + bid * pivotStride : nullptr, nm);
  if (hasRow) {
#pragma unroll
    for (int j = 0; j < ROWS; ++j) if (j < nm) a[pos + (long long)j * ldm] = rA[j];
  }
${gesvBorderedSolve(p.dtype, swept, 'hasRow', 'if (c < nrhs) ', column('pos', 'c'))}
${p.more ? `  for (int q0 = RB; q0 < passes; q0 += RB) {       // further columns: row r of B is row pos of P B
${gesvFurtherPass(swept, column('r', 'q0 + c'), column('pos', 'q0 + c'))}
  }
` : ''}
  (void)passes;
  if (valid && r == 0) info[bid] = inf;
}
`;
  return { name: `${entry}.cu`, source, entry };
}
