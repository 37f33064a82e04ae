/**
 * What the register-resident LU panels share (generate-tall.ts, generate-wide.ts).
 *
 * One column's step of dgetf2 in a panel held in registers (the tall leaf, and the wide leaf's
 * sub-blocks): the row of largest magnitude at or below row k of register column `col` (NaN
 * first, the first of equals, as idamax), its pivot and a zero pivot's info recorded, rows piv and
 * k published to shared memory by their owners and swapped in registers; `otherColumns`: code
 * run after the swap where piv != k (the wide leaf swaps its columns outside the registers there);
 * then the column below the pivot scaled (divided where the pivot is tiny, as dgetf2) and the
 * register columns right of it updated (rank 1).
 * Expects k, v, R, T, NB, NW, tid, lane, warp, m, off, pv, inf and REGISTER_COLUMN_SHARED's arrays in scope.
 */
/** The column step's shared memory, double-buffered by the column's parity q. */
export const REGISTER_COLUMN_SHARED = `  __shared__ real redKey[2][NW];
  __shared__ int redPos[2][NW];
  __shared__ real sPiv[2][NB];   // the pivot row (row k after the swap)
  __shared__ real sRow[2][NB];   // row k before the swap (row piv after it)
`;

/** Indents every line of `text` by `by` spaces (lines starting with '#' stay at column 0). */
function indent(text: string, by: number): string {
  return text.split('\n').map((l) => (l.startsWith('#') || l === '' ? l : ' '.repeat(by) + l)).join('\n');
}

/**
 * The thread's best pivot candidate in register column `col` at or below row `k` into (key, pos),
 * by idamax's rules: a NaN at row k wins, elsewhere it loses; ties go to the smaller row.
 */
function threadCandidates(col: string, k: string, by: number): string {
  return indent(`#pragma unroll
for (int i = 0; i < R; ++i) {
  const int r = tid + i * T;
  const real x = v[i][${col}];
  if (r >= ${k} && r < m) better(key, pos, x != x ? (r == ${k} ? infReal() : real(-1)) : absReal(x), r);
}`, by);
}

/** The block's pivot from every thread's (key, pos), and rows piv and k published to shared memory. */
const PIVOT_AND_PUBLISH = `    warpBest(key, pos);
    if (lane == 0) { redKey[q][warp] = key; redPos[q][warp] = pos; }
    __syncthreads();
    key = lane < NW ? redKey[q][lane] : real(-2);
    pos = lane < NW ? redPos[q][lane] : 0x7fffffff;
    warpBest(key, pos);
    const int piv = pos;
    // Publish rows piv and k: their owners copy them out by selects over the static row slots
    // (an 'if (i == piv / T)' form lets the compiler index v dynamically: local memory).
    if (tid == piv % T || tid == k % T) {
#pragma unroll
      for (int c = 0; c < NB; ++c) {
        real atPiv = real(0), atK = real(0);
#pragma unroll
        for (int i = 0; i < R; ++i) {
          atPiv = tid + i * T == piv ? v[i][c] : atPiv;
          atK = tid + i * T == k ? v[i][c] : atK;
        }
        if (tid == piv % T) sPiv[q][c] = atPiv;
        if (tid == k % T) sRow[q][c] = atK;
      }
    }
    __syncthreads();
`;

/** The pivot recorded, rows piv and k swapped in registers (and `otherColumns` run) where piv != k. */
function recordAndSwap(col: string, otherColumns: string): string {
  return `    const real pivot = sPiv[q][${col}];
    if (tid == 0) pv[k] = off + piv;
    if (pivot == real(0) && inf == 0) inf = off + k + 1;
    if (piv != k) {
#pragma unroll
      for (int i = 0; i < R; ++i) {
        const int r = tid + i * T;
        if (r == k) {
#pragma unroll
          for (int c = 0; c < NB; ++c) v[i][c] = sPiv[q][c];
        } else if (r == piv) {
#pragma unroll
          for (int c = 0; c < NB; ++c) v[i][c] = sRow[q][c];
        }
      }
${otherColumns}    }
    const bool scale = pivot != real(0);
    const bool small = absReal(pivot) < SAFE_MIN;
    const real rcp = real(1) / pivot;
`;
}

/** The column below the pivot scaled and the register columns right of `col` updated (rank 1, row u of the pivot). */
function scaleAndUpdate(col: string, u: string, by: number): string {
  return indent(`#pragma unroll
for (int i = 0; i < R; ++i) {
  const int r = tid + i * T;
  if (r > k && r < m) {
    real l = v[i][${col}];
    if (scale) l = small ? l / pivot : l * rcp;
    v[i][${col}] = l;
#pragma unroll
    for (int c = ${col} + 1; c < NB; ++c) v[i][c] = fmaReal(-l, ${u}[c], v[i][c]);
  }
}`, by);
}

/** One column's step with `col` a compile-time column (a loop over the columns unrolled around it). */
export function registerColumnStep(col: string, otherColumns = ''): string {
  return `    const int q = k & 1;
    real key = real(-2);
    int pos = 0x7fffffff;
${threadCandidates(col, 'k', 4)}
${PIVOT_AND_PUBLISH}${recordAndSwap(col, otherColumns)}${scaleAndUpdate(col, 'sPiv[q]', 4)}
`;
}

/**
 * For the rolled form (rolledColumnStep): a column step's scaling and rank-1 update for compile-time
 * column KK, then the thread's pivot candidate of the next column (KK + 1, from row k + 1) into
 * (key, pos). Expects R, T, NB and the pivot helpers in scope.
 */
export const COLUMN_UPDATE = `template <int KK>
static __device__ __forceinline__ void columnUpdate(real (&v)[R][NB], real& key, int& pos, const real* __restrict__ u,
    int tid, int k, int m, bool scale, bool small, real pivot, real rcp) {
${scaleAndUpdate('KK', 'u', 2)}
  if constexpr (KK + 1 < NB) {
    key = real(-2);
    pos = 0x7fffffff;
${threadCandidates('KK + 1', 'k + 1', 4)}
  }
}
`;

/**
 * The column steps of register columns kk = 0 ... gw - 1 (gw <= nb; k = first + kk) as a rolled
 * loop: the block's pivot search, the publishing and the swap touch every register column or none
 * by index, so they are one copy of code for every kk; the scaling and the update right of column kk,
 * and the next column's candidates, index registers by kk and dispatch on it to columnUpdate<kk>
 * (COLUMN_UPDATE). The instructions of a step are the unrolled form's (registerColumnStep) plus the
 * dispatch, in a fraction of the code and of the compile time; between steps only (key, pos) is
 * carried. Expects COLUMN_UPDATE's template, registerColumnStep's names and gw in scope.
 */
export function rolledColumnStep(nb: number, first: string, otherColumns = ''): string {
  const cases = Array.from({ length: nb }, (_, kk) =>
    `      case ${kk}: columnUpdate<${kk}>(v, key, pos, sPiv[q], tid, k, m, scale, small, pivot, rcp); break;\n`).join('');
  return `    real key = real(-2);
    int pos = 0x7fffffff;
    {
      const int k = ${first};
${threadCandidates('0', 'k', 6)}
    }
#pragma unroll 1
    for (int kk = 0; kk < gw; ++kk) {
    const int k = ${first} + kk;
    const int q = k & 1;
${PIVOT_AND_PUBLISH}${recordAndSwap('kk', otherColumns)}    switch (kk) {
${cases}    }
    }
`;
}
