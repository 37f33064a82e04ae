/**
 * Generated copy of a batch of (optionally transposed) matrices between the caller's arrays and
 * the packed layout of the WebAssembly kernels (column-major, ld padded to whole vectors). One
 * source per dtype and transpose, so V8 keeps each one monomorphic on its array type.
 */
import type { DType } from '../../core/dtype.js';
import type { Op } from '../../core/ops.js';
import { Emitter, type JsKernelSource } from '../jit/compile.js';

export const PACK_PARAMS = ['src', 'sOff', 'ld', 'sStride', 'dst', 'dOff', 'ldp', 'dStride', 'rows', 'cols', 'count'] as const;

export type PackKernel = (
  src: Float64Array | Float32Array, sOff: number, ld: number, sStride: number,
  dst: Float64Array | Float32Array, dOff: number, ldp: number, dStride: number, rows: number, cols: number, count: number,
) => void;

/** dst(i, j) := op(src)(i, j) for rows x cols, count matrices. */
export interface PackParams {
  /** The caller's dtype. */
  readonly dtype: DType;
  readonly trans: Op;
  /** 'in': caller -> packed; 'out': packed -> caller (float64-packed float32 data is rounded here). */
  readonly direction: 'in' | 'out';
  /** The packed dtype (float64 for the factorisations, which work in float64 as the reference). */
  readonly packed: DType;
  /** Only the lower triangle, diagonal included (what a lower Cholesky writes); default all. */
  readonly lower?: boolean;
  /** Only the upper triangle of dst, diagonal included (an 'upper' Cholesky factor written back from its packed transpose); default all. */
  readonly upper?: boolean;
  /**
   * lower / upper count in complex elements of interleaved (re, im) rows: element (i, j) is rows
   * 2i and 2i + 1 (a complex Cholesky factor's triangle); default false.
   */
  readonly pairs?: boolean;
}

export function generatePack(p: PackParams): JsKernelSource {
  const read = p.trans === 'N' ? 'src[s + i + j * ld]' : 'src[s + j + i * ld]';
  const e = new Emitter();
  e.line(`// myriad pack ${p.direction} trans=${p.trans} dtype=${p.dtype} packed=${p.packed} lower=${p.lower === true}${p.upper ? ' upper=true' : ''}${p.pairs ? ' pairs=true' : ''}`);
  if (p.trans === 'N' && !p.lower && !p.upper) {
    // Back-to-back matrices with no padding on either side: one block copy (float32 <-> float64
    // converted natively: widening is exact, narrowing rounds to nearest as Math.fround).
    e.open('if (ld === rows && ldp === rows && sStride === rows * cols && dStride === rows * cols) {');
    e.line('dst.set(src.subarray(sOff, sOff + count * rows * cols), dOff);');
    e.line('return;');
    e.close();
  }
  e.open('for (let q = 0; q < count; q++) {');
  e.line('const s = sOff + q * sStride, d = dOff + q * dStride;');
  e.open('for (let j = 0; j < cols; j++) {');
  e.line('const dj = d + j * ldp;');
  const first = p.lower ? (p.pairs ? '2 * j' : 'j') : '0';
  const end = p.upper ? (p.pairs ? 'Math.min(2 * j + 2, rows)' : 'Math.min(j + 1, rows)') : 'rows';
  e.line(`for (let i = ${first}; i < ${end}; i++) dst[dj + i] = ${read};`);
  e.close();
  e.close();
  return { params: PACK_PARAMS, body: e.toString() };
}
