/**
 * Generated dgetrs ('N') for gesv above the unrolled sizes, on the float64 factor that the
 * WebAssembly LU left in its memory: swap B's rows, solve with L (unit), then U, each right-hand
 * side in a float64 scratch column, loops in the reference's order (src/cpu/lapack/solve.ts).
 * float32: the factor is rounded as the reference's stored factor is, so results are bitwise.
 */
import type { DType } from '../../core/dtype.js';
import { jsRound } from '../../core/dtype-table.js';
import { Emitter, type JsKernelSource } from '../jit/compile.js';

export const GETRS_JS_PARAMS = ['F', 'fOff', 'ldf', 'n', 'ipiv', 'pOff', 'B', 'bOff', 'ldb', 'nrhs', 'v'] as const;

export type GetrsJsKernel = (
  F: Float64Array, fOff: number, ldf: number, n: number, ipiv: Int32Array, pOff: number,
  B: Float64Array | Float32Array, bOff: number, ldb: number, nrhs: number, v: Float64Array,
) => void;

export function generateGetrsJs(p: { dtype: DType }): JsKernelSource {
  const f = (index: string): string => jsRound(p.dtype, `F[${index}]`);
  const e = new Emitter();
  e.line(`// myriad getrs-loop dtype=${p.dtype}`);
  e.open('for (let c = 0; c < nrhs; c++) {');
  e.line('const q = bOff + c * ldb;');
  e.line('for (let i = 0; i < n; i++) v[i] = B[q + i];');
  e.open('for (let j = 0; j < n; j++) {');
  e.line('const k = ipiv[pOff + j];');
  e.line('if (k !== j) { const t = v[j]; v[j] = v[k]; v[k] = t; }');
  e.close();
  e.open('for (let j = 0; j < n; j++) {');
  e.line('const x = v[j], cj = fOff + j * ldf;');
  e.line(`for (let i = j + 1; i < n; i++) v[i] -= x * ${f('cj + i')};`);
  e.close();
  e.open('for (let j = n - 1; j >= 0; j--) {');
  e.line('const cj = fOff + j * ldf;');
  e.line(`v[j] = v[j] / ${f('cj + j')};`);
  e.line('const x = v[j];');
  e.line(`for (let i = 0; i < j; i++) v[i] -= x * ${f('cj + i')};`);
  e.close();
  e.line('for (let i = 0; i < n; i++) B[q + i] = v[i];');
  e.close();
  return { params: GETRS_JS_PARAMS, body: e.toString() };
}
