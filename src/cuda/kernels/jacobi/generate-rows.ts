/**
 * Batched syev for n <= 32 with the matrix in registers: N2 lanes per matrix (n rounded up to
 * even), lane i holding row i of A and row i of V; as many matrices a warp as fit (32 / N2).
 *
 * Why: the shared-memory warp design (generate-warp.ts) moves every rotated element through shared
 * memory three times a round (A J, V J, J^T A), and that traffic bounds it (about 1 ms of its 1.4 ms
 * at 20,000 16 x 16 float64 matrices). Here the pairs (p_k, q_k) of a round are compile-time register
 * slots: the rounds run in a frame that turns with them (slot j holds column (j + r) mod (N2 - 1) in
 * round r, the last slot the last column), in which the circle tournament pairs the fixed slots
 * (k, N2 - 1 - k), and the frame's turn after a round renames registers without moving data. A J and
 * V J rotate two registers of the lane's own rows, and only J^T A exchanges data: the partner's row,
 * by shuffles. A round's rotations are disjoint, so all are applied at once. The loop over rounds stays
 * rolled: unrolled, its N2 - 1 copies of the same instructions took 4.4 s of ptxas and front end at
 * n = 32 (0.5 s rolled) for no fewer instructions a round.
 *
 * A lane's own diagonal entry a_ii and its coupling a_ij to this round's partner sit at the lane's
 * own (run-time) columns, which registers cannot be indexed by: the diagonal is kept in a scalar
 * (`dii`, set to its exact value after each rotation) and its slot in the row held at zero; a_ij is
 * read by a select over the row, and zeroed the same way after a rotation. Both lanes of a pair use
 * the lower lane's a_pq, so they compute the same (c, s); the lane whose slot is the pair's first
 * publishes (c, s) in shared memory for the other rows' column steps. (Skipping a round's application where no pair of the warp
 * rotates, by __any_sync, measured slower: 32 x 10,000 float64 8.3 ms against 4.4 on the H100.)
 *
 * The angle (`angle`): each round waits on it, a dependent chain that the SM's few warps do not hide.
 * 'tangent' (cot 2theta, Rutishauser's t, c = rsqrt(1 + t^2)) has a division, a square root, a
 * division and an rsqrt in a row; 'halfAngle' (common/rotation.ts) three rsqrt (cos 2phi and sin 2phi
 * from the scaled d^2 + g^2, t from cos^2 phi, c as Rutishauser's) and no division or square root,
 * and it renews the test's sqrt|a_ii| where a_ii is set, behind the round's application instead of
 * ahead of the next angle. PTX a round, tangent -> halfAngle: div.rn 2 -> 0, sqrt.rn 2 -> 1 (the
 * test's), rsqrt.approx 1 -> 3. The cubins (nvcc 13, sm_90, vectors; SASS opcodes counted in the .text
 * sections, slow paths included): float64 16 1,520 -> 1,464 instructions, MUFU 8 -> 7, DFMA 99 -> 84;
 * float32 16 1,240 -> 1,160, MUFU 8 -> 6, slow-path calls 4 -> 2. Registers (ptxas -v) at n = 9, 16,
 * 24, 32: float64 84, 120, 156, 190 -> 84, 120, 160, 192; float32 56, 63, 92, 110 -> 56, 72, 94, 108;
 * no spills. `minBlocks`: __launch_bounds__'s blocks an SM (the planner's per-card table).
 *
 * Same rules as the CPU reference (cpu/lapack/jacobi.ts) and the other designs: the `uplo`
 * triangle read once, a pair rotates while |a_pq| > sqrt(n) eps sqrt(|a_pp|) sqrt(|a_qq|), the
 * 2 x 2 block set to its exact result, `maxSweeps` sweeps at most (info n + 1), NaN or Inf in A:
 * info n + 2 and NaN outputs; eigenvalues ascending (ties by index), eigenvector j in column j.
 */
import { MyriadError } from '../../../core/errors.js';
import type { KernelSource } from '../../runtime/types.js';
import { matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { halfAngleRotation } from '../common/rotation.js';
import { ROWS_PARTNER, ROWS_SLOT, ROWS_WARPS, rowsFrameTurn, rowsShape, selectByIndex, rowsRankAndValues } from '../common/rows-frame.js';
import { ROWS_ROTATION } from '../common/rows-rotation.js';
import type { SyevRowsParams } from './params.js';
import { SYEV_TEST, jacobiPrelude, pairRotation, syevDims, syevTag } from './snippets.js';

/**
 * The reference's test (|a_pq| > tol sqrt(|a_pp|) sqrt(|a_qq|), in that order) with each lane's sqrt(|a_ii|) taken
 * once and the partner's shuffled over, for a matrix still sweeping (a converged one publishes the
 * identity).
 */
const ROWS_TEST = { ...SYEV_TEST, rotates: '!done && apq != real(0) && absReal(apq) > tol * rpp * rqq' } as const;

/** The rows design's shape (common/rows-frame.ts), part of the family's face. */
export { ROWS_WARPS, rowsShape };

export function syevRowsSource(p: SyevRowsParams): KernelSource {
  const { dtype, n, uplo, vectors, kind, maxSweeps, angle, minBlocks } = p;
  if (minBlocks !== undefined && !(Number.isInteger(minBlocks) && minBlocks >= 1 && minBlocks <= 16))
    throw new MyriadError('INVALID_ARGUMENT', `the rows design's minBlocks must be an integer in 1 ... 16, got ${minBlocks}`, 'minBlocks');
  const { lanes: n2, perWarp, perBlock } = rowsShape(n);
  const entry = `syev_rows_${syevTag(p)}_s${maxSweeps}${angle === 'halfAngle' ? '_h' : ''}${minBlocks === undefined ? '' : `_b${minBlocks}`}`;
  const V = (line: string): string => (vectors ? line : '');
  const lower = uplo === 'lower';
  // sqrt|a_ii| for the test: with the half-angle rotation kept beside dii and renewed as dii is set, so
  // that its square root runs behind the round's application instead of ahead of the next angle.
  const half = angle === 'halfAngle';
  const H = (line: string): string => (half ? line : '');
  const source = `${jacobiPrelude(dtype)}
${angle === 'halfAngle' ? `${halfAngleRotation(dtype)}\n` : ''}${syevDims(n)}
constexpr int MPW = ${perWarp};          // matrices a warp
constexpr int MPB = ${perBlock};          // matrices a block
constexpr int MAX_SWEEPS = ${maxSweeps};
${ROWS_ROTATION}

extern "C" __global__ void __launch_bounds__(${32 * ROWS_WARPS}${minBlocks === undefined ? '' : `, ${minBlocks}`}) ${entry}(
    ${operandParameters('A', kind, true)},
    ${operandParameters('W', kind, true)},
    int* __restrict__ info, const int* __restrict__ index, int count) {
  // (c, s) of each pair by its first slot (k < HALF, s signed for the slot order (k, N2 - 1 - k)); slot MPB
  // is the idle lanes' (read, never written: their values are never used, and lanes that write one slot would race).
  __shared__ Rotation sRot[(MPB + 1) * N2];
${ROWS_SLOT}
  Rotation* rot = sRot + slot * N2;
  const real tol = sqrtReal(real(N)) * EPS;

  // Row tid of A from the ${uplo} triangle, its diagonal apart (the slot held at zero); V := I.
  real a[N2];
${V('  real v[N2];')}
  real dii = real(0);
  int bad = 0;
  {
    // Only a matrix's lanes form its pointer (a list batch's pointer array holds count entries).
    const real* g = active ? ${matrixPointer('A', kind, 'mat')} : nullptr;
    #pragma unroll
    for (int j = 0; j < N2; ++j) {
      real x = real(0);
      if (active && tid < N && j < N) x = (${lower ? 'tid >= j' : 'tid <= j'}) ? g[tid + (long long)j * ldA] : g[j + (long long)tid * ldA];
      if (!(absReal(x) <= MAXR)) bad = 1;
      if (j == tid) { dii = x; x = real(0); }
      a[j] = x;
${V('      v[j] = j == tid ? real(1) : real(0);')}
    }
  }
  const bool failed = (__ballot_sync(FULL, bad) & group) != 0u;
  bool done = !active || failed || N < 2;
${H('  real rii = sqrtReal(absReal(dii));\n')}  for (int sweep = 0; sweep < MAX_SWEEPS; ++sweep) {
    if (__all_sync(FULL, done)) break;
    int rotated = 0;
    #pragma unroll 1
    for (int r = 0; r < N2 - 1; ++r) {
${ROWS_PARTNER}
      // The pair's a_pq as the lower lane holds it.
${selectByIndex(n2, 'other', 'aij')}
      const bool low = tid < partner;
      const real djj = __shfl_sync(FULL, dii, src);
${half ? '' : '      const real rii = sqrtReal(absReal(dii));\n'}      const real rjj = __shfl_sync(FULL, rii, src);
      const real apq = __shfl_sync(FULL, aij, low ? lane : src);
      // Both lanes in the pair's order (p, q), so that they take the same decision and (c, s) to the bit.
      const real app = low ? dii : djj, aqq = low ? djj : dii;
      const real rpp = low ? rii : rjj, rqq = low ? rjj : rii;
      bool turn = false;
      real app2 = app, aqq2 = aqq;
${pairRotation(6, ROWS_TEST, ['app2 = app - t * apq;', 'aqq2 = aqq + t * apq;', 'turn = true;'], ['if (own < HALF && !idle) rot[own] = Rotation{c, low ? s : -s};', 'dii = low ? app2 : aqq2;', ...(half ? ['rii = sqrtReal(absReal(dii));'] : [])], half ? 'halfAngle' : 'rsqrt')}
      __syncwarp();
      // A := A J and V := V J on the lane's rows, pair k on the slots (k, N2 - 1 - k).
      #pragma unroll
      for (int k = 0; k < HALF; ++k) {
        const Rotation jk = rot[k];
        rotSlots(a[k], a[N2 - 1 - k], jk.c, jk.s);
${V('        rotSlots(v[k], v[N2 - 1 - k], jk.c, jk.s);')}
      }
      __syncwarp();
      // A := J^T A: row p := c row_p - s row_q, row q := s row_p + c row_q (the partner's row by
      // shuffles; both lanes hold the pair's (c, s) from above, bit for bit the published one).
      const real sy = low ? -s : s;
      #pragma unroll
      for (int j = 0; j < N2; ++j) {
        const real y = __shfl_sync(FULL, a[j], src);
        a[j] = fmaReal(sy, y, c * a[j]);
      }
      // The 2 x 2 block's off-diagonal is exactly zero, the diagonal's slot stays zero (dii holds it).
      if (turn) {
        #pragma unroll
        for (int j = 0; j < N2; ++j) if (j == other || j == own) a[j] = real(0);
      }
      // The next round's frame: slot j takes slot j + 1's column, slot N2 - 2 slot 0's (a renaming of
      // registers, no data moves). After N2 - 1 rounds, at the sweep's end, slot j holds column j.
${rowsFrameTurn('real', 'a', vectors ? 'v' : undefined)}
      __syncwarp();
    }
    if ((__ballot_sync(FULL, rotated) & group) == 0u) done = true;
  }
${rowsRankAndValues(kind)}
${vectors ? `  // Eigenvector j (column j of V) to column rank(j) of A: the lane writes its row.
  real* g = ${matrixPointer('A', kind, 'mat')};
  #pragma unroll
  for (int j = 0; j < N; ++j) {
    const int rj = __shfl_sync(group, rank, base + j);
    if (tid < N) g[tid + (long long)rj * ldA] = failed ? nanReal() : v[j];
  }` : ''}
}
`;
  return { name: `${entry}.cu`, source, entry };
}
