/**
 * The block-a-matrix application of Householder reflectors to C (ormqr/ generate-block.ts and its
 * complex form, zqr/ generate-ormqr.ts) moves C through a shared tile `tile` (leading dimension ldt)
 * w vectors at a time from b0: side left the vectors are C's columns, side right its rows. V
 * threads (thread t) move r x w elements, consecutive threads down a column of C; `valid` says
 * whether the block has a matrix.
 */

/** C's vectors b0 .. b0 + w - 1 into the tile (vector q at tile[q + pos * ldt]). */
export const loadVectorTile = (left: boolean): string => `    if (valid) {
      for (int e = t; e < r * w; e += V) {
${left
    ? `        // Vector q is column b0 + q: consecutive threads read down a column.
        const int q = e / r, pos = e % r;
        tile[q + pos * ldt] = c[pos + (long long)(b0 + q) * ldC];`
    : `        // Vector q is row b0 + q: consecutive threads read down a column (consecutive rows).
        const int q = e % w, pos = e / w;
        tile[q + pos * ldt] = c[(b0 + q) + (long long)pos * ldC];`}
      }
    }`;

/** The tile back into C's vectors. */
export const storeVectorTile = (left: boolean): string => `    if (valid) {
      for (int e = t; e < r * w; e += V) {
${left
    ? `        const int q = e / r, pos = e % r;
        c[pos + (long long)(b0 + q) * ldC] = tile[q + pos * ldt];`
    : `        const int q = e % w, pos = e / w;
        c[(b0 + q) + (long long)pos * ldC] = tile[q + pos * ldt];`}
      }
    }`;
