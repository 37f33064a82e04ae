/**
 * CUDA text of the "rows" Jacobi designs' frame that does not depend on the element type (the real
 * syev rows design, jacobi/generate-rows.ts; the complex heev rows design, zjacobi/generate-heev-rows.ts):
 * the shape (N2 lanes a matrix, as many matrices a warp as fit), the thread's place in it, the round's
 * partner in the turning frame, the select of a register slot by a run-time index, the frame's turn, and
 * the eigenvalues' ranks, info and W at the end.
 *
 * The rounds of the circle tournament run in a frame that turns one slot a round (slot j < N2 - 1
 * holds column (j + r) mod (N2 - 1) in round r, slot N2 - 1 column N2 - 1), in which every round pairs
 * the same compile-time register slots (k, N2 - 1 - k); the turn after a round renames registers.
 */

import { matrixPointer, type OperandKind } from './batch-pointer.js';

/** Warps per block of the rows designs. */
export const ROWS_WARPS = 4;

/** Lanes per matrix (N2: n rounded up to even, at least 2) and matrices per warp and per block of a rows design for order n. */
export function rowsShape(n: number, warps = ROWS_WARPS): { readonly lanes: number; readonly perWarp: number; readonly perBlock: number } {
  const lanes = Math.max(2, n + (n & 1));
  const perWarp = Math.floor(32 / lanes);
  return { lanes, perWarp, perBlock: perWarp * warps };
}

/**
 * The thread's place (after N2, MPW and MPB): its lane, its matrix's slot in the block (MPB for the idle
 * lanes past the warp's last whole matrix), its row `tid`, the matrix's first lane `base`, the matrix
 * `mat`, whether it exists (`active`) and the matrix's lane mask `group`.
 */
export const ROWS_SLOT = `  const int lane = threadIdx.x & 31;
  const int inWarp = lane / N2;                 // MPW for the idle lanes past the last whole matrix
  const bool idle = inWarp >= MPW;
  const int tid = idle ? 0 : lane % N2;         // the lane's row
  const int base = idle ? lane : lane - tid;    // the matrix's first lane
  const int slot = idle ? MPB : (threadIdx.x >> 5) * MPW + inWarp;
  const long long mat = (long long)blockIdx.x * MPB + slot;
  const bool active = !idle && mat < count;
  const unsigned group = idle ? 0u : (N2 == 32 ? FULL : ((1u << N2) - 1u) << base);`;

/**
 * Round r's frame (inside the loop over r, after ROWS_SLOT): `own`, the slot of the lane's column (its
 * diagonal), `other` its partner's, `partner` the partner's row and `src` its lane.
 */
export const ROWS_PARTNER = `      // The round's frame: register slot j < N2 - 1 holds column (j + r) mod (N2 - 1), slot N2 - 1 column
      // N2 - 1, so that the round's pairs (the circle tournament's) are the fixed slots (k, N2 - 1 - k).
      // own: the slot of the lane's column (its diagonal); other: its partner's.
      int own = N2 - 1;
      if (tid != N2 - 1) { own = tid - r; if (own < 0) own += N2 - 1; }
      const int other = N2 - 1 - own;
      int partner = N2 - 1;
      if (other != N2 - 1) { partner = other + r; if (partner >= N2 - 1) partner -= N2 - 1; }
      const int src = idle ? lane : base + partner;`;

/**
 * `out` := a[index] of type `type` for a run-time `index` < N2: a tree of selects on the index's bits
 * (depth log2 N2, where a chain over j would be N2 dependent selects), the missing leaves of a
 * non-power-of-two N2 `zero`.
 */
export function selectByIndex(n2: number, index: string, out: string, type = 'real', zero = 'real(0)'): string {
  let level = Array.from({ length: n2 }, (_, j) => `a[${j}]`);
  const lines: string[] = [];
  for (let bit = 0; level.length > 1; bit++) {
    const next: string[] = [];
    for (let m = 0; m < level.length; m += 2) {
      const name = `s${bit}_${m >> 1}`;
      const hi = level[m + 1] ?? zero;
      lines.push(`const ${type} ${name} = (${index} & ${1 << bit}) ? ${hi} : ${level[m]};`);
      next.push(name);
    }
    level = next;
  }
  lines.push(`const ${type} ${out} = ${level[0]};`);
  return lines.map((l) => `      ${l}`).join('\n');
}

/**
 * The frame's turn after a round (inside the loop over r): slot j takes slot j + 1's column, slot
 * N2 - 2 slot 0's, in the register arrays `first` and, where given, `second` (of type `type`; an empty
 * line in each of the second's places where it is absent). A renaming of registers, no data moves.
 */
export function rowsFrameTurn(type: string, first: string, second: string | undefined): string {
  const S = (line: string): string => (second === undefined ? '' : line);
  return `      {
        const ${type} ${first}0 = ${first}[0];
${S(`        const ${type} ${second}0 = ${second}[0];`)}
        #pragma unroll
        for (int j = 0; j < N2 - 2; ++j) {
          ${first}[j] = ${first}[j + 1];
${S(`          ${second}[j] = ${second}[j + 1];`)}
        }
        ${first}[N2 - 2] = ${first}0;
${S(`        ${second}[N2 - 2] = ${second}0;`)}
      }`;
}

/**
 * The eigenvalues' end of a rows design (real and complex): each lane's rank among its matrix's
 * diagonal (ascending, ties by index; a failed matrix keeps its order), info, and W by rank (NaN for
 * a failed matrix). Needs lane, dii, idle, base, tid, failed, active, done, mat and index in scope;
 * returns from the kernel for lanes without a matrix.
 */
export function rowsRankAndValues(kind: OperandKind): string {
  return `  // Ascending order by rank (ties by index); a failed matrix keeps its order (NaN outputs).
  int rank = 0;
  #pragma unroll
  for (int k = 0; k < N; ++k) {
    const real dk = __shfl_sync(FULL, dii, idle ? lane : base + k);
    rank += (dk < dii || (dk == dii && k < tid)) ? 1 : 0;
  }
  if (failed) rank = tid;
  if (!active) return;
  if (tid == 0) info[index ? index[mat] : mat] = failed ? N + 2 : (done ? 0 : N + 1);
  if (tid < N) {
    real* w = ${matrixPointer('W', kind, 'mat')};
    w[rank] = failed ? nanReal() : dii;
  }`;
}
