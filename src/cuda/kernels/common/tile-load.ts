/**
 * Cooperative copies between global memory and shared memory for the very-small GEMM kernel
 * (paper section 4.2: loads must be coalesced even when one matrix is smaller than what a warp
 * reads at once). All threads of the block move the `tbc` matrices of a block together:
 * - a densely packed strided operand is one contiguous span: thread t moves elements
 *   t, t + THREADS, ... of the span (every warp reads consecutive addresses); where the span is
 *   16-byte aligned and whole, it moves 16-byte vectors instead (float4 / double2), so fewer
 *   instructions keep more bytes in flight;
 * - otherwise element e of the block's run is matrix e / (rows*cols), column-major inside it,
 *   read through the matrix's own pointer and leading dimension (coalesced along columns).
 * Sizes are compile-time constants, so the loops are fully unrolled and the divisions are by
 * constants (multiply-shift).
 */
import type { DType } from '../../../core/dtype.js';
import { dtypeInfo } from '../../../core/dtype-table.js';
import { matrixPointer, spanPointer, type OperandLayout, type OperandName } from './batch-pointer.js';

export interface TileCopy {
  readonly operand: OperandName;
  readonly layout: OperandLayout;
  readonly dtype: DType;
  /**
   * The C++ element type where it is not `real`: 'real2' (complex pairs, common/complex.ts) moves
   * one pair per access (a 16- or 8-byte load), so the 16-byte vector path is not used.
   */
  readonly element?: 'real' | 'real2';
  /** Rows and columns of one matrix as stored in global memory. */
  readonly rows: number;
  readonly cols: number;
  /** The shared array, its size per matrix, and where stored element (r, c) goes inside it. */
  readonly shared: string;
  readonly sharedPerMatrix: number;
  readonly sharedIndex: (r: string, c: string) => string;
}

type Direction = 'load' | 'store';

/** Shared-memory slot of span element `e` (declares q, w, r, c in the current scope). */
function slot(copy: TileCopy, e: string): string {
  return `const int q = ${e} / ELEMS;               // matrix within the block
        const int w = ${e} - q * ELEMS;           // element within the matrix, column-major
        const int r = w % ${copy.rows};
        const int c = w / ${copy.rows};
        (void)r; (void)c;`;
}

function sharedRef(copy: TileCopy): string {
  return `${copy.shared}[q * ${copy.sharedPerMatrix} + ${copy.sharedIndex('r', 'c')}]`;
}

/** The 16-byte path of a dense span: whole vectors, unpacked into shared memory component by component. */
function vectorLoop(copy: TileCopy, dir: Direction): string {
  const X = copy.operand;
  const { type: vecType, members: parts } = dtypeInfo(copy.dtype).cuda.vector;
  const moves = parts.map((comp, u) => `{
        ${slot(copy, `(v * VEC + ${u})`)}
        ${dir === 'load' ? `${sharedRef(copy)} = x.${comp};` : `x.${comp} = ${sharedRef(copy)};`}
      }`).join('\n      ');
  return `#pragma unroll
    for (int it = 0; it < (SPAN / VEC + THREADS - 1) / THREADS; ++it) {
      const int v = t + it * THREADS;
      if ((SPAN / VEC) % THREADS != 0 && v >= SPAN / VEC) break;
      ${dir === 'load' ? `const ${vecType} x = reinterpret_cast<const ${vecType}*>(span${X})[v];` : `${vecType} x;`}
      ${moves}
      ${dir === 'store' ? `reinterpret_cast<${vecType}*>(span${X})[v] = x;` : ''}
    }`;
}

function scalarLoop(copy: TileCopy, dir: Direction): string {
  const X = copy.operand;
  const global = copy.layout.dense
    ? `span${X}[e]`
    : `${matrixPointer(X, copy.layout.kind, 'first + q')}[r + (long long)c * ld${X}]`;
  return `#pragma unroll
    for (int it = 0; it < (SPAN + THREADS - 1) / THREADS; ++it) {
      const int e = t + it * THREADS;
      ${slot(copy, 'e')}
      if ((SPAN % THREADS == 0 || e < SPAN) && q < nmat) {
        ${dir === 'load' ? `${sharedRef(copy)} = ${global};` : `${global} = ${sharedRef(copy)};`}
      }
    }`;
}

/** A block-wide copy of the block's `tbc` matrices (needs t, first, nmat, TBC, THREADS in scope). */
function blockCopy(copy: TileCopy, dir: Direction): string {
  const X = copy.operand;
  const header = `constexpr int ELEMS = ${copy.rows} * ${copy.cols}; // one matrix
    constexpr int SPAN = TBC * ELEMS;        // the block's matrices`;
  if (!copy.layout.dense) {
    return `{
    ${header}
    ${scalarLoop(copy, dir)}
  }`;
  }
  if (copy.element === 'real2') {
    return `{
    ${header}
    ${dir === 'load' ? 'const real2' : 'real2'}* span${X} = ${spanPointer(X, 'first')};
    ${scalarLoop(copy, dir)}
  }`;
  }
  return `{
    ${header}
    constexpr int VEC = 16 / sizeof(real);   // elements per 16-byte vector
    ${dir === 'load' ? 'const real' : 'real'}* span${X} = ${spanPointer(X, 'first')};
    if (SPAN % VEC == 0 && nmat == TBC && reinterpret_cast<unsigned long long>(span${X}) % 16 == 0) {
    ${vectorLoop(copy, dir)}
    } else {
    ${scalarLoop(copy, dir)}
    }
  }`;
}

/** Global -> shared for `tbc` matrices. */
export function loadTiles(copy: TileCopy): string {
  return blockCopy(copy, 'load');
}

/** Shared -> global, the same mapping reversed. */
export function storeTiles(copy: TileCopy): string {
  return blockCopy(copy, 'store');
}
