/**
 * What the split design's three kernels share (generate-syev.ts's 'record' and 'finish' stages,
 * generate-apply.ts): the layout of a matrix's workspace slice and the CUDA text that names its parts.
 *
 * One slice per matrix, float64 elements, from the workspace (common/block-launch.ts chunks):
 *   Z      n * n   the working matrix (Q after dorgtr, the eigenvectors after the rotations), ld n
 *   d, e   n + n   the tridiagonal where the chain stopped (or ended)
 *   hdr    8       16 ints: [0] rotations recorded, [1] chain finished, [2] failed (NaN/Inf),
 *                  [3] the power-of-two scale, [4 ... 9] the chain's QlState (l1, l, lend, jtot,
 *                  inBlock, noconv)
 *   rc, rs cap each the rotations' cosines and sines, in the order made
 *   ri     cap / 2  (cap ints) the first of the two columns each rotates
 */

export interface SliceLayout {
  readonly d: number;
  readonly e: number;
  readonly hdr: number;
  readonly rc: number;
  readonly rs: number;
  readonly ri: number;
  /** float64 elements per matrix. */
  readonly slice: number;
}

export function splitSlice(n: number, cap: number): SliceLayout {
  const d = n * n, e = d + n, hdr = e + n, rc = hdr + 8, rs = rc + cap, ri = rs + cap;
  return { d, e, hdr, rc, rs, ri, slice: ri + Math.ceil(cap / 2) };
}

/** CUDA text: the slice's parts after Z (a `real*` named `Z`), as the layout above. */
export function slicePointers(n: number, cap: number): string {
  const l = splitSlice(n, cap);
  return `  // This matrix's slice after Z (snippets.ts): the state the three kernels pass on, the rotations.
  real* sd = Z + ${l.d};
  real* se = Z + ${l.e};
  int* hdr = (int*)(Z + ${l.hdr});
  real* grc = Z + ${l.rc};
  real* grs = Z + ${l.rs};
  int* gri = (int*)(Z + ${l.ri});
`;
}
