/**
 * The opening of the tiled and tensor-core batched GEMM kernels: which matrix of the batch this
 * block works on (grid y and z together, each limited to 65535), which BM x BN tile of its C
 * (grid x runs over the tiles, m fastest, or in groups of tile rows), and the pointers to its A, B and C
 * (of `element`: real, or the complex kernels' real2). With a `triangle`,
 * a tile wholly outside it returns here, and `triangleGuard` is the test of one element of C.
 */
import type { Uplo } from '../../../core/enums.js';
import { matrixPointer, operandParameters } from '../common/batch-pointer.js';
import type { GemmOperandLayouts, TriangularOperand } from './params.js';

/**
 * `tileGroup`: the tiles in groups of that many tile rows (for one large C; the extra index
 * arithmetic costs registers, which small batched tiles feel), else column by column.
 */
export function tileBlockPrologue(layouts: GemmOperandLayouts, triangle?: Uplo, tileGroup?: number, element: 'real' | 'real2' = 'real'): string {
  const skip = triangle === undefined ? ''
    : triangle === 'lower'
      ? '\n  if (i0 + BM <= j0) return;                // every row of the tile is above the diagonal'
      : '\n  if (i0 >= j0 + BN) return;                // every row of the tile is below the diagonal';
  const order = tileOrder(tileGroup);
  return `const int batch = blockIdx.z * gridDim.y + blockIdx.y;
  if (batch >= count) return;
  ${order}${skip}
  const ${element}* a = ${matrixPointer('A', layouts.a.kind, 'batch')};
  const ${element}* b = ${matrixPointer('B', layouts.b.kind, 'batch')};
  ${element}* c = ${matrixPointer('C', layouts.c.kind, 'batch')};`;
}

/**
 * i0 and j0 of the block's tile from blockIdx.x (m, BM and BN in scope): column by column, or in
 * groups of `tileGroup` tile rows. `index`: the tile's number where it is not blockIdx.x (a
 * persistent block's work item).
 */
export function tileOrder(tileGroup?: number, index = 'blockIdx.x'): string {
  return tileGroup === undefined || tileGroup <= 1
    ? `const int tilesM = (m + BM - 1) / BM;
  const int i0 = (${index} % tilesM) * BM;
  const int j0 = (${index} / tilesM) * BN;`
    : `// Tiles in groups of ${tileGroup} tile rows, column by column within a group (rows fastest):
  // the blocks resident at once then share a few panels of A and B in L2. In plain column order
  // every wave of blocks walks all of A's panels, evicted by the time the next wave comes
  // (C 8192^2 -= A A^T: 1.8 GB read from DRAM where 0.8 suffices; Nsight Compute, H100, 2026-11-26).
  const int tilesM = (m + BM - 1) / BM, tilesN = (n + BN - 1) / BN;
  const int group = ${index} / (${tileGroup} * tilesN), first = group * ${tileGroup};
  const int groupRows = min(${tileGroup}, tilesM - first);
  const int local = ${index} - group * ${tileGroup} * tilesN;
  const int i0 = (first + local % groupRows) * BM;
  const int j0 = (local / groupRows) * BN;`;
}

/**
 * The opening of a triangular op(A) with C = B in place (trmm side left; the tiled and tensor-core
 * designs): a block per (matrix, column panel of BN), grid x the panels, which walks the panel's row
 * tiles so that no tile reads a row of B an earlier tile wrote. Lower op(A): row i of the product
 * needs rows p <= i of B, so the last tile first, k over [kFirst, kEnd) = [0, i0 + BM); upper: the
 * first tile first, k over [i0, k). BK divides BM, so every k-step lies wholly inside the tile's
 * diagonal block or wholly outside it. The prologue opens the tile loop, the close ends it.
 */
export function triangularWalkFrame(entry: string, layouts: GemmOperandLayouts, tri: TriangularOperand): KernelFrame {
  return {
    entry,
    // B and C alias: no __restrict__ on them.
    parameters: `${operandParameters('A', layouts.a.kind, false)},
    ${operandParameters('B', layouts.b.kind, false, 'real', false)},
    ${operandParameters('C', layouts.c.kind, true, 'real', false)},
    int count, real alpha, real beta, int m, int n, int k`,
    unused: '(void)strideA; (void)strideB; (void)strideC;',
    prologue: `const int batch = blockIdx.z * gridDim.y + blockIdx.y;
  if (batch >= count) return;
  const real* a = ${matrixPointer('A', layouts.a.kind, 'batch')};
  const real* b = ${matrixPointer('B', layouts.b.kind, 'batch')};
  real* c = ${matrixPointer('C', layouts.c.kind, 'batch')};
  const int j0 = blockIdx.x * BN;
  const int tilesM = (m + BM - 1) / BM;
  for (int tile = 0; tile < tilesM; ++tile) {
  const int i0 = (${tri.lower ? 'tilesM - 1 - tile' : 'tile'}) * BM;
  const int ${TRIANGULAR_K_RANGE.first} = ${tri.lower ? '0' : 'i0'}, ${TRIANGULAR_K_RANGE.end} = ${tri.lower ? 'min(k, i0 + BM)' : 'k'};`,
    close: `
  __syncthreads();                          // the shared buffers are free for the next tile's copies
  }`,
  };
}

/** A k range other than [0, k): expressions in the kernel for its first k (a multiple of BK) and its end (the walk's kFirst, kEnd). */
export interface KRange {
  readonly first: string;
  readonly end: string;
}

/** The walk's k range (triangularWalkFrame). */
export const TRIANGULAR_K_RANGE: KRange = { first: 'kFirst', end: 'kEnd' };

/** The main loop's step count over the range (the whole [0, k) without one: the plain kernels' text). */
export const kSteps = (range: KRange | undefined): string =>
  (range === undefined ? 'const int steps = (k + BK - 1) / BK;' : `const int steps = (${range.end} - ${range.first} + BK - 1) / BK;`);

/** The first k of step `s` (an expression) of the range. */
export const kAt = (range: KRange | undefined, s: string): string => (range === undefined ? `${s} * BK` : `${range.first} + ${s} * BK`);

/** The entry-name suffix of a triangular op(A) (lower or upper, unit or not). */
export const triangularTag = (t: TriangularOperand | undefined): string => (t === undefined ? '' : `_ta${t.lower ? 'l' : 'u'}${t.unit ? 'u' : 'n'}`);

/** ` && <C(row, col) is in the triangle>`, or nothing without one (the text is then unchanged). */
export function triangleGuard(triangle: Uplo | undefined, row: string, col: string): string {
  return triangle === undefined ? '' : triangle === 'lower' ? ` && ${row} >= ${col}` : ` && ${row} <= ${col}`;
}

/** The entry-name suffix of a triangle kernel. */
export const triangleTag = (triangle: Uplo | undefined): string => (triangle === undefined ? '' : triangle === 'lower' ? '_tl' : '_tu');

/**
 * What differs between a uniform kernel (tiled or tensor-core) and a variable batch's class kernel of
 * the same design (generate-vbatched.ts): the entry name, the parameters after the precision's
 * operands, the casts to void of parameters the body does not read, and the opening that finds the
 * block's matrix, its tile and its sizes (m, n, k, ldA, ldB, ldC, a, b, c, i0, j0 in scope after it).
 */
export interface KernelFrame {
  readonly entry: string;
  readonly parameters: string;
  readonly unused: string;
  readonly prologue: string;
  /** Text after the body, before the kernel's closing brace (a class kernel's member loop ends there); absent: none. */
  readonly close?: string;
}
