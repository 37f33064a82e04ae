/**
 * Generated complex gemm kernels (complex128 / complex64) for one shape m x n x k, pair of
 * operations and element type: C := alpha op(A) op(B) + beta C, the whole product unrolled.
 * Batched: one call runs `count` matrices of strided batches. Per matrix, op(A) goes into locals
 * once; per column j of C, column j of op(B) goes into locals and the m elements of C's column
 * are computed and stored.
 *
 * The arithmetic is the complex reference's (src/cpu/complex/zgemm.ts) operation for operation,
 * in the same order and in float64, so results are bitwise the reference's, complex64 included
 * (widened on load, rounded once on store): each dot starts at 0 and adds its k products in
 * ascending l, a conjugated operand's imaginary part is negated on load, and alpha and beta are
 * applied as the reference applies them. `alphaZero` leaves A and B unread (the dots are 0),
 * `betaZero` leaves C unread.
 *
 * Offsets, leading dimensions and strides are in floats (twice the complex counts): element
 * (i, j) of matrix p of X is X[xOff + p xStride + j ldx + 2 i] (re) and the float after it (im).
 */
import type { ComplexDType } from '../../core/dtype.js';
import type { ComplexOp } from '../../core/op-specs.js';
import { Emitter, type JsKernelSource } from '../jit/compile.js';

export interface ZgemmJsParams {
  readonly m: number;
  readonly n: number;
  readonly k: number;
  readonly transA: ComplexOp;
  readonly transB: ComplexOp;
  readonly alphaZero: boolean;
  readonly betaZero: boolean;
  readonly dtype: ComplexDType;
}

export type ZgemmJsKernel = (
  A: Float64Array | Float32Array, aOff: number, lda: number, aStride: number,
  B: Float64Array | Float32Array, bOff: number, ldb: number, bStride: number,
  C: Float64Array | Float32Array, cOff: number, ldc: number, cStride: number,
  ar: number, ai: number, br: number, bi: number, count: number,
) => void;

export const ZGEMM_PARAMS: readonly string[] = [
  'A', 'aOff', 'lda', 'aStride', 'B', 'bOff', 'ldb', 'bStride', 'C', 'cOff', 'ldc', 'cStride', 'ar', 'ai', 'br', 'bi', 'count',
];

/**
 * Shapes up to this many products unroll the columns of C too; larger ones loop over them, so the
 * source grows as m k and not m n k: fully unrolled, V8 stopped optimising the kernel at n = 8
 * (57 us a matrix against the loop's 0.7).
 */
const UNROLL_J_MAX = 64;

export function generateZgemmJs(p: ZgemmJsParams): JsKernelSource {
  const { m, n, k, transA, transB } = p;
  const readsAB = !p.alphaZero && k > 0;
  const unrollJ = m * n * k <= UNROLL_J_MAX;
  // The float index of the real part of op(X)(r, s): X(r, s) or X(s, r).
  const atA = (i: number, l: number): string => (transA === 'N' ? `aq_${l} + ${2 * i}` : `aq_${i} + ${2 * l}`);
  const atB = (l: number, j: string): string => (transB === 'N' ? `b + ${j} * ldb + ${2 * l}` : `b + ${l} * ldb + 2 * ${j}`);
  const negA = transA === 'C' ? '-' : '';
  const negB = transB === 'C' ? '-' : '';
  const e = new Emitter();
  e.line(`// myriad complex gemm m=${m} n=${n} k=${k} ${transA}${transB} alphaZero=${p.alphaZero} betaZero=${p.betaZero} dtype=${p.dtype} unrollJ=${unrollJ}`);
  e.open('for (let p = 0; p < count; p++) {');
  e.line('const a = aOff + p * aStride, b = bOff + p * bStride, c = cOff + p * cStride;');
  // Column (or row) bases of A: A's float index of op(A)(i, l) is aq_l + 2 i ('N') or aq_i + 2 l.
  if (readsAB) for (let q = 0; q < (transA === 'N' ? k : m); q++) e.line(`const aq_${q} = a + ${q} * lda;`);
  // Columns j0 ... j0 + w - 1 of C: op(B)'s columns in locals, each A element loaded once for all w.
  const columns = (j0: string, w: number): void => {
    const js = Array.from({ length: w }, (_, t) => t);
    const jx = (t: number): string => (t === 0 ? j0 : `${j0} + ${t}`);
    if (readsAB) {
      for (const t of js) {
        for (let l = 0; l < k; l++) e.line(`const yr_${t}_${l} = B[${atB(l, `(${jx(t)})`)}], yi_${t}_${l} = ${negB}B[${atB(l, `(${jx(t)})`)} + 1];`);
      }
    }
    for (const t of js) e.line(`const z_${t} = c + (${jx(t)}) * ldc;`);
    for (let i = 0; i < m; i++) {
      const ls = readsAB ? Array.from({ length: k }, (_, l) => l) : [];
      e.open('{');
      for (const l of ls) e.line(`const xr_${l} = A[${atA(i, l)}], xi_${l} = ${negA}A[${atA(i, l)} + 1];`);
      for (const t of js) {
        const tr = ['0', ...ls.map((l) => `(xr_${l} * yr_${t}_${l} - xi_${l} * yi_${t}_${l})`)].join(' + ');
        const ti = ['0', ...ls.map((l) => `(xr_${l} * yi_${t}_${l} + xi_${l} * yr_${t}_${l})`)].join(' + ');
        const z = `z_${t}`;
        e.open('{');
        e.line(`const tr = ${tr};`);
        e.line(`const ti = ${ti};`);
        if (p.betaZero) {
          e.line(`C[${z} + ${2 * i}] = ar * tr - ai * ti; C[${z} + ${2 * i + 1}] = ar * ti + ai * tr;`);
        } else {
          e.line(`const cr = C[${z} + ${2 * i}], ci = C[${z} + ${2 * i + 1}];`);
          e.line(`C[${z} + ${2 * i}] = (ar * tr - ai * ti) + (br * cr - bi * ci); C[${z} + ${2 * i + 1}] = (ar * ti + ai * tr) + (br * ci + bi * cr);`);
        }
        e.close();
      }
      e.close();
    }
  };
  if (unrollJ) {
    for (let j = 0; j < n; j++) {
      e.open('{');
      columns(String(j), 1);
      e.close();
    }
  } else {
    // Two or four columns a trip (A's loads shared) measured 10 % faster at n = 8 and 10, slower at 12.
    e.open(`for (let j = 0; j < ${n}; j++) {`);
    columns('j', 1);
    e.close();
  }
  e.close();
  return { params: ZGEMM_PARAMS, body: e.toString() };
}
