/**
 * Cooperative copies between global memory and shared memory for the very-small GEMM kernel
 * (paper section 4.2: loads must be coalesced even when one matrix is smaller than what a warp
 * reads at once). All threads of the block move the `tbc` matrices of a block together:
 * - a densely packed strided operand is one contiguous span: thread t moves elements
 *   t, t + THREADS, ... of the span (every warp reads consecutive addresses);
 * - otherwise element e of the block's run is matrix e / (rows*cols), column-major inside it,
 *   read through the matrix's own pointer and leading dimension (coalesced along columns).
 * Sizes are compile-time constants, so the loop is fully unrolled and the divisions are by
 * constants (multiply-shift).
 */
import { matrixPointer, spanPointer, type OperandName } from './batch-pointer.js';
import type { OperandLayout } from '../gemm/params.js';

export interface TileCopy {
  readonly operand: OperandName;
  readonly layout: OperandLayout;
  /** Rows and columns of one matrix as stored in global memory. */
  readonly rows: number;
  readonly cols: number;
  /** The shared array, its size per matrix, and where stored element (r, c) goes inside it. */
  readonly shared: string;
  readonly sharedPerMatrix: number;
  readonly sharedIndex: (r: string, c: string) => string;
}

/** The unrolled loop header of a block-wide copy of `tbc` matrices of `rows x cols` (in TBC, THREADS). */
function spanLoop(copy: TileCopy, writable: boolean, body: (global: string, shared: string) => string): string {
  const { operand: X, layout, rows, cols } = copy;
  const global = layout.dense
    ? `span${X}[e]`
    : `${matrixPointer(X, layout.kind, 'first + q')}[r + (long long)c * ld${X}]`;
  const shared = `${copy.shared}[q * ${copy.sharedPerMatrix} + ${copy.sharedIndex('r', 'c')}]`;
  return `{
    constexpr int ELEMS = ${rows} * ${cols}; // one matrix
    constexpr int SPAN = TBC * ELEMS;        // the block's matrices
    ${layout.dense ? `${writable ? 'real' : 'const real'}* span${X} = ${spanPointer(X, 'first')};` : ''}
    #pragma unroll
    for (int it = 0; it < (SPAN + THREADS - 1) / THREADS; ++it) {
      const int e = t + it * THREADS;
      const int q = e / ELEMS;               // matrix within the block
      const int w = e - q * ELEMS;           // element within the matrix, column-major
      const int r = w % ${rows};
      const int c = w / ${rows};
      (void)r; (void)c;
      if ((SPAN % THREADS == 0 || e < SPAN) && q < nmat) {
        ${body(global, shared)}
      }
    }
  }`;
}

/** Global -> shared for `tbc` matrices (needs `t`, `first`, `nmat`, TBC, THREADS in scope). */
export function loadTiles(copy: TileCopy): string {
  return spanLoop(copy, false, (global, shared) => `${shared} = ${global};`);
}

/** Shared -> global, the same mapping reversed. */
export function storeTiles(copy: TileCopy): string {
  return spanLoop(copy, true, (global, shared) => `${global} = ${shared};`);
}
