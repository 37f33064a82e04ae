/**
 * Generated trtri, lauum and potri for one order, triangle and dtype: the triangle in float64
 * locals for the whole matrix (loaded once, stored once), the reference's dtrti2 / dlauu2 steps
 * (src/cpu/lapack/inverse.ts) unrolled operation for operation in the same order, so results
 * and infos are bitwise the reference's, float32 included (widened on load, rounded on store, as
 * the reference's float64 workspace). potri is trtri (non-unit) then lauum in the same locals.
 * A matrix that fails (an exactly zero diagonal element, non-unit) is left untouched with info =
 * the first such column + 1; the other triangle is never read or written.
 */
import type { DType } from '../../core/dtype.js';
import type { Uplo } from '../../core/enums.js';
import { Emitter, type JsKernelSource } from '../jit/compile.js';

export interface TrtriJsParams {
  readonly op: 'trtri' | 'lauum' | 'potri';
  readonly n: number;
  readonly uplo: Uplo;
  /** trtri's diag = 'unit' (the diagonal is neither read nor written). */
  readonly unit: boolean;
  readonly dtype: DType;
}

export const INVERSE_PARAMS = ['A', 'aOff', 'lda', 'aStride', 'info', 'infoOff', 'count'] as const;

export type TrtriJsKernel = (
  A: Float64Array | Float32Array, aOff: number, lda: number, aStride: number, info: Int32Array, infoOff: number, count: number,
) => void;

const a = (i: number, j: number): string => `a_${i}_${j}`;
const range = (lo: number, hi: number): number[] => Array.from({ length: Math.max(0, hi - lo) }, (_, t) => lo + t);

export function generateTrtriJs(p: TrtriJsParams): JsKernelSource {
  const { n, op } = p;
  const upper = p.uplo === 'upper';
  const unit = op === 'trtri' && p.unit;
  const cells: [number, number][] = [];
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) if ((upper ? i < j : i > j) || (i === j && !unit)) cells.push([i, j]);
  const e = new Emitter();
  e.line(`// myriad ${op} n=${n} uplo=${p.uplo} unit=${unit} dtype=${p.dtype}`);
  e.line('let t = 0, g = 0;');
  e.open('outer: for (let p = 0; p < count; p++) {');
  e.line('const o = aOff + p * aStride;');
  for (const [i, j] of cells) e.line(`let ${a(i, j)} = A[o + ${i} + ${j} * lda];`);
  if (op !== 'lauum') {
    if (!unit) for (let j = 0; j < n; j++) e.line(`if (${a(j, j)} === 0) { info[infoOff + p] = ${j + 1}; continue outer; }`);
    if (upper) trti2Upper(e, n, unit);
    else trti2Lower(e, n, unit);
  }
  if (op !== 'trtri') {
    if (upper) lauu2Upper(e, n);
    else lauu2Lower(e, n);
  }
  for (const [i, j] of cells) e.line(`A[o + ${i} + ${j} * lda] = ${a(i, j)};`);
  e.line('info[infoOff + p] = 0;');
  e.close();
  return { params: INVERSE_PARAMS, body: e.toString() };
}

function trti2Upper(e: Emitter, n: number, unit: boolean): void {
  for (let j = 0; j < n; j++) {
    if (!unit) e.line(`${a(j, j)} = 1 / ${a(j, j)}; g = -${a(j, j)};`);
    for (let k = 0; k < j; k++) {
      for (let i = 0; i < k; i++) e.line(`${a(i, j)} = ${a(i, j)} + ${a(k, j)} * ${a(i, k)};`);
      if (!unit) e.line(`${a(k, j)} = ${a(k, j)} * ${a(k, k)};`);
    }
    for (let i = 0; i < j; i++) e.line(`${a(i, j)} = ${a(i, j)} * ${unit ? '-1' : 'g'};`);
  }
}

function trti2Lower(e: Emitter, n: number, unit: boolean): void {
  for (let j = n - 1; j >= 0; j--) {
    if (!unit) e.line(`${a(j, j)} = 1 / ${a(j, j)}; g = -${a(j, j)};`);
    for (let k = n - 1; k > j; k--) {
      for (let i = n - 1; i > k; i--) e.line(`${a(i, j)} = ${a(i, j)} + ${a(k, j)} * ${a(i, k)};`);
      if (!unit) e.line(`${a(k, j)} = ${a(k, j)} * ${a(k, k)};`);
    }
    for (let i = j + 1; i < n; i++) e.line(`${a(i, j)} = ${a(i, j)} * ${unit ? '-1' : 'g'};`);
  }
}

/** dlauu2 upper: dot of row i from the diagonal, scale column i above it, then four columns per pass. */
function lauu2Upper(e: Emitter, n: number): void {
  for (let i = 0; i < n; i++) {
    e.line(`t = ${['0', ...range(i, n).map((c) => `${a(i, c)} * ${a(i, c)}`)].join(' + ')};`);
    for (let r = 0; r < i; r++) e.line(`${a(r, i)} = ${a(r, i)} * ${a(i, i)};`);
    e.line(`${a(i, i)} = t;`);
    let c = i + 1;
    for (; c + 3 < n; c += 4) {
      const cs = [c, c + 1, c + 2, c + 3];
      for (let r = 0; r < i; r++) e.line(`${a(r, i)} = ${a(r, i)} + (${cs.map((q) => `${a(i, q)} * ${a(r, q)}`).join(' + ')});`);
    }
    for (; c < n; c++) for (let r = 0; r < i; r++) e.line(`${a(r, i)} = ${a(r, i)} + ${a(i, c)} * ${a(r, c)};`);
  }
}

/** dlauu2 lower: dot of column i from the diagonal, then row i left of it, two columns per pass. */
function lauu2Lower(e: Emitter, n: number): void {
  for (let i = 0; i < n; i++) {
    e.line(`g = ${a(i, i)};`);
    e.line(`${a(i, i)} = ${['0', ...range(i, n).map((r) => `${a(r, i)} * ${a(r, i)}`)].join(' + ')};`);
    const dot = (c: number): string => ['0', ...range(i + 1, n).map((r) => `${a(r, c)} * ${a(r, i)}`)].join(' + ');
    let c = 0;
    for (; c + 1 < i; c += 2) {
      e.line(`t = ${dot(c)};`);
      e.line(`${a(i, c + 1)} = g * ${a(i, c + 1)} + (${dot(c + 1)});`);
      e.line(`${a(i, c)} = g * ${a(i, c)} + t;`);
    }
    if (c < i) e.line(`${a(i, c)} = g * ${a(i, c)} + (${dot(c)});`);
  }
}
