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

export function registerColumnStep(col: string, otherColumns = ''): string {
  return `    const int q = k & 1;
    real key = real(-2);
    int pos = 0x7fffffff;
#pragma unroll
    for (int i = 0; i < R; ++i) {
      const int r = tid + i * T;
      const real x = v[i][${col}];
      if (r >= k && r < m) better(key, pos, x != x ? (r == k ? infReal() : real(-1)) : absReal(x), r);
    }
    warpBest(key, pos);
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
    const real pivot = sPiv[q][${col}];
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
#pragma unroll
    for (int i = 0; i < R; ++i) {
      const int r = tid + i * T;
      if (r > k && r < m) {
        real l = v[i][${col}];
        if (scale) l = small ? l / pivot : l * rcp;
        v[i][${col}] = l;
#pragma unroll
        for (int c = ${col} + 1; c < NB; ++c) v[i][c] = fmaReal(-l, sPiv[q][c], v[i][c]);
      }
    }
`;
}
