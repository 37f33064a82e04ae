/**
 * The register tile of the one-block-per-matrix designs (getrf/register.ts, potrf/register.ts;
 * KBLAS's register kernels): lane l of warp w holds rows l, l + 32, ... (RB of them) of the
 * columns colOf(b, w), b < CB (blocks of NB columns dealt to the warps cyclically), in v[r][b].
 * This loop visits every element with its row i and column j in scope (expects RB, CB, colOf,
 * lane, warp).
 */
export function forEachTileElement(body: string): string {
  return `#pragma unroll
  for (int r = 0; r < RB; ++r) {
    const int i = lane + 32 * r;
#pragma unroll
    for (int b = 0; b < CB; ++b) {
      const int j = colOf(b, warp);
      ${body}
    }
  }`;
}
