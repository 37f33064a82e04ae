/**
 * Generated complex trsm kernels (complex128 / complex64) for one order of T, side, triangle,
 * operation, diagonal, alpha case and element type: B := alpha op(A)^-1 B (left) or alpha B op(A)^-1
 * (right), the substitution unrolled. Batched: one call runs `count` matrices of strided batches.
 * Per matrix the triangle of T (the matrix the vectors of B meet, src/cpu/complex/ztriangular.ts)
 * goes into locals once, conjugated on load where op is 'C'; per vector of B (a column for side
 * 'left', a row for 'right': `nvec` of them) its elements go into locals, are scaled by alpha, and
 * are solved by substitution.
 *
 * The arithmetic is the complex reference's (ztrsm.ts, ztriangular.ts, scalar.ts) operation for
 * operation, in the same order and in float64, so results are bitwise the reference's: each
 * element's dot in ascending k, Smith's division by T(i, i) spelled inline (zarith-js.ts). For
 * complex64 every value the reference stores and reads back (the scaled vector, each solved
 * element) is rounded to float32 where it is stored. alpha = 0 writes zeros without reading A or B.
 *
 * Offsets, leading dimensions and strides are in floats (twice the complex counts): element
 * (i, j) of matrix p of X is X[xOff + p xStride + j ldx + 2 i] (re) and the float after it (im).
 */
import type { ComplexDType } from '../../core/dtype.js';
import { complexInfo, jsRound } from '../../core/dtype-table.js';
import type { Diag, Side, Uplo } from '../../core/enums.js';
import type { ComplexOp } from '../../core/op-specs.js';
import { Emitter, type JsKernelSource } from '../jit/compile.js';
import { emitDivide, range } from './zarith-js.js';

export interface ZtrsmJsParams {
  /** The order of T: B's rows (left) or columns (right). */
  readonly n: number;
  readonly side: Side;
  readonly uplo: Uplo;
  readonly transA: ComplexOp;
  readonly diag: Diag;
  /** alpha = 0 (zeros, nothing read), 1 (no scaling) or any other value. */
  readonly alpha: 'zero' | 'one' | 'general';
  readonly dtype: ComplexDType;
}

export type ZtrsmJsKernel = (
  A: Float64Array | Float32Array, aOff: number, lda: number, aStride: number,
  B: Float64Array | Float32Array, bOff: number, ldb: number, bStride: number,
  nvec: number, ar: number, ai: number, count: number,
) => void;

export const ZTRSM_PARAMS: readonly string[] = ['A', 'aOff', 'lda', 'aStride', 'B', 'bOff', 'ldb', 'bStride', 'nvec', 'ar', 'ai', 'count'];

export function generateZtrsmJs(p: ZtrsmJsParams): JsKernelSource {
  const { n } = p;
  const left = p.side === 'left';
  const transposed = p.transA !== 'N';
  // T as ztriangular.ts's triangularView: op(A) (left) or op(A)^T (right); T(i, k) = A(i, k) where
  // `direct`, else A(k, i).
  const opLower = (p.uplo === 'lower') !== transposed;
  const lower = left ? opLower : !opLower;
  const direct = left !== transposed;
  const unit = p.diag === 'unit';
  const neg = p.transA === 'C' ? '-' : '';
  const round = (v: string): string => jsRound(complexInfo(p.dtype).real, v);
  const atT = (i: number, k: number): string => (direct ? `aq_${k} + ${2 * i}` : `aq_${i} + ${2 * k}`);
  // Element k of the vector: B's rows (left) lie 2 floats apart, its columns (right) ldb.
  const atX = (k: number): string => (left ? `q + ${2 * k}` : `q + ${k} * ldb`);
  const e = new Emitter();
  e.line(`// myriad complex trsm n=${n} side=${p.side} uplo=${p.uplo} transA=${p.transA} diag=${p.diag} alpha=${p.alpha} dtype=${p.dtype}`);
  e.open('for (let p = 0; p < count; p++) {');
  e.line('const b = bOff + p * bStride;');
  if (p.alpha === 'zero') {
    e.open('for (let v = 0; v < nvec; v++) {');
    e.line(`const q = b + v * ${left ? 'ldb' : '2'};`);
    for (let k = 0; k < n; k++) e.line(`B[${atX(k)}] = 0; B[${atX(k)} + 1] = 0;`);
    e.close();
    e.close();
    return { params: ZTRSM_PARAMS, body: e.toString() };
  }
  e.line('const a = aOff + p * aStride;');
  for (let q = 0; q < n; q++) e.line(`const aq_${q} = a + ${q} * lda;`);
  const ks = (i: number): number[] => (lower ? range(i) : range(n - i - 1).map((t) => i + 1 + t));
  for (let i = 0; i < n; i++) {
    for (const k of [...ks(i), ...(unit ? [] : [i])]) e.line(`const tr_${i}_${k} = A[${atT(i, k)}], ti_${i}_${k} = ${neg}A[${atT(i, k)} + 1];`);
  }
  e.open('for (let v = 0; v < nvec; v++) {');
  e.line(`const q = b + v * ${left ? 'ldb' : '2'};`);
  for (let k = 0; k < n; k++) {
    if (p.alpha === 'one') {
      e.line(`let xr_${k} = B[${atX(k)}], xi_${k} = B[${atX(k)} + 1];`);
    } else {
      e.line(`let xr_${k}, xi_${k};`);
      e.open(`{ const re = B[${atX(k)}], im = B[${atX(k)} + 1];`);
      e.line(`xr_${k} = ${round('ar * re - ai * im')}; xi_${k} = ${round('ar * im + ai * re')};`);
      e.close();
    }
  }
  for (let s = 0; s < n; s++) {
    const i = lower ? s : n - 1 - s;
    e.open(`{ let re = xr_${i}, im = xi_${i};`);
    for (const k of ks(i)) {
      e.line(`re -= tr_${i}_${k} * xr_${k} - ti_${i}_${k} * xi_${k}; im -= tr_${i}_${k} * xi_${k} + ti_${i}_${k} * xr_${k};`);
    }
    if (unit) e.line(`xr_${i} = ${round('re')}; xi_${i} = ${round('im')};`);
    else {
      emitDivide(e, `xr_${i}`, `xi_${i}`, 're', 'im', `tr_${i}_${i}`, `ti_${i}_${i}`);
      if (round('x') !== 'x') e.line(`xr_${i} = ${round(`xr_${i}`)}; xi_${i} = ${round(`xi_${i}`)};`);
    }
    e.close();
  }
  for (let k = 0; k < n; k++) e.line(`B[${atX(k)}] = xr_${k}; B[${atX(k)} + 1] = xi_${k};`);
  e.close();
  e.close();
  return { params: ZTRSM_PARAMS, body: e.toString() };
}
