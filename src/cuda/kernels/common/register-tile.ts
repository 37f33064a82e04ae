/**
 * The register tile of the one-block-per-matrix designs (getrf and potrf for 32 < n <= 128;
 * KBLAS's register kernels): its layout constants (registerPrelude) and the loop over its
 * elements (forEachTileElement).
 */
import type { DType } from '../../../core/dtype.js';
import { mathHelpers, precisionPrelude } from './precision.js';

/**
 * The tile's layout: lane l of warp w holds rows l, l + 32, ... (RB of them) of the
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

/** The largest rows and columns the register design accepts (RB <= 4 row registers per column). */
export const REGISTER_DESIGN_MAX = 128;

/**
 * Warps for `cols` columns: about 8 columns per thread (32 doubles per thread at 128 x 128,
 * 512 threads), never fewer than 4 warps.
 */
export function registerWarps(cols: number): number {
  return Math.min(16, Math.max(4, Math.ceil(cols / 8)));
}

/** Shared declarations and the layout constants of both register designs (getrf and potrf). */
export function registerPrelude(dtype: DType, rows: number, cols: number, warps: number, nb = 1): string {
  return `${precisionPrelude(dtype)}
${mathHelpers(dtype)}
constexpr int M = ${rows};
constexpr int N = ${cols};
constexpr int TC = ${warps};                 // warps = column groups
constexpr int NB = ${nb};                    // panel width: columns per block of a warp
constexpr int PW = TC * NB;                 // columns per round of the cyclic distribution
constexpr int RB = (M + 31) / 32;           // rows per thread: lane + 32 a
constexpr int CB = NB * ((N + PW - 1) / PW); // columns per thread
constexpr unsigned FULL = 0xffffffffu;
// Column of register column b of warp w: block b / NB of the warp, column b % NB in it.
static __device__ __forceinline__ constexpr int colOf(int b, int w) { return (b / NB) * PW + w * NB + b % NB; }`;
}
