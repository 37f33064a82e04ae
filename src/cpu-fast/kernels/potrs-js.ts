/**
 * Generated dpotrs ('lower') for posv above the unrolled sizes, on the float64 factor the
 * WebAssembly Cholesky left in its memory: L y = b (dtrsm's axpy form), then L^T x = y (its dot
 * form), each right-hand side in a float64 scratch column, in the reference's order
 * (src/cpu/lapack/triangular-solve.ts). float32: the factor is rounded as the reference's
 * stored factor is, so results are bitwise.
 */
import type { DType } from '../../core/dtype.js';
import { jsRound } from '../../core/dtype-table.js';
import { Emitter, type JsKernelSource } from '../jit/compile.js';

export const POTRS_JS_PARAMS = ['F', 'fOff', 'ldf', 'n', 'B', 'bOff', 'ldb', 'nrhs', 'v'] as const;

export type PotrsJsKernel = (
  F: Float64Array, fOff: number, ldf: number, n: number,
  B: Float64Array | Float32Array, bOff: number, ldb: number, nrhs: number, v: Float64Array,
) => void;

export function generatePotrsJs(p: { dtype: DType }): JsKernelSource {
  const f = (index: string): string => jsRound(p.dtype, `F[${index}]`);
  const e = new Emitter();
  e.line(`// myriad potrs-loop lower dtype=${p.dtype}`);
  e.open('for (let c = 0; c < nrhs; c++) {');
  e.line('const q = bOff + c * ldb;');
  e.line('for (let i = 0; i < n; i++) v[i] = B[q + i];');
  e.open('for (let j = 0; j < n; j++) {');
  e.line('const cj = fOff + j * ldf;');
  e.line(`v[j] = v[j] / ${f('cj + j')};`);
  e.line('const x = v[j];');
  e.line(`for (let i = j + 1; i < n; i++) v[i] -= x * ${f('cj + i')};`);
  e.close();
  e.open('for (let j = n - 1; j >= 0; j--) {');
  e.line('const cj = fOff + j * ldf;');
  e.line('let s = v[j];');
  e.line(`for (let i = j + 1; i < n; i++) s -= ${f('cj + i')} * v[i];`);
  e.line(`v[j] = s / ${f('cj + j')};`);
  e.close();
  e.line('for (let i = 0; i < n; i++) B[q + i] = v[i];');
  e.close();
  return { params: POTRS_JS_PARAMS, body: e.toString() };
}
