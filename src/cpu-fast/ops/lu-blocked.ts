/**
 * getrf/gesv above LU_BLOCKED.min: LAPACK's dgetrf (blocked, right-looking) over a strided run of
 * matrices, every block of every matrix itself a strided batch (same ld and stride, shifted
 * offset). For each block column of width nb:
 *  1. the panel A(k0:m, k0:k0+kb) of every matrix by the unblocked WebAssembly LU (getrfWasm:
 *     dgetf2's order, pivot search over the panel's rows, float64 working copy);
 *  2. its row interchanges applied to the columns left and right of the panel (dlaswp);
 *  3. U12 := L11^-1 A12 (the fast trsm, left, lower, unit);
 *  4. A22 -= L21 U12 (the WebAssembly gemm: all but O(n^2 nb) of the work).
 * gesv then solves each matrix with info = 0 (the reference's getrs: one right-hand side is
 * O(n^2), bound by reading the factor); B stays untouched where info > 0, as in LAPACK.
 *
 * Pivots and info are LAPACK's (a zero pivot does not stop the factorisation: info is the first
 * exactly-zero U(k,k), 1-based). Not bitwise the reference: the trailing update sums in the
 * gemm's order, and float32 data is rounded to float32 between block steps where the reference
 * keeps float64, so results agree to rounding and pivots wherever the choice is not a near tie.
 */
import { matrixAt, type StridedBatch } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import type { GesvRequest, GetrfRequest } from '../../core/ops.js';
import { cpuGetrs } from '../../cpu/lapack/index.js';
import { LU_BLOCKED } from '../tuning.js';
import { fastTrsm } from './blas3.js';
import { fastGemm } from './gemm.js';
import { getrfWasm } from './lu-wasm.js';
import { stridedView } from './run-batch.js';
import type { Run } from './triangular-blocked.js';

const view = (x: Run, rows: number, cols: number, count: number): StridedBatch<FloatArray> =>
  ({ kind: 'strided', data: x.data, offset: x.offset, ld: x.ld, stride: x.stride, rows, cols, count, order: 'col' });
const at = (x: Run, i: number, j: number): Run => ({ ...x, offset: x.offset + i + j * x.ld });

let panelPiv = new Int32Array(64);
let panelInfo = new Int32Array(8);

/** Row interchanges rows k0 + j <-> piv[j] (absolute rows), j < kb, of columns [c0, c1) of one matrix at `off`. */
function swapRows(a: FloatArray, off: number, ld: number, c0: number, c1: number, k0: number, piv: Int32Array, p0: number, kb: number): void {
  for (let c = c0; c < c1; c++) {
    const col = off + c * ld;
    for (let j = 0; j < kb; j++) {
      const r = piv[p0 + j]!;
      const i = k0 + j;
      if (r !== i) {
        const t = a[col + i]!;
        a[col + i] = a[col + r]!;
        a[col + r] = t;
      }
    }
  }
}

/** Factors `count` m x n matrices from matrix p0 of r (a strided run, or one matrix); with `b`, solves those with info = 0. */
export function getrfBlocked(r: GetrfRequest<FloatArray, Int32Array> | GesvRequest<FloatArray, Int32Array>, p0: number, count: number, solve: boolean): void {
  const A: Run = stridedView(r.a, p0);
  const first = matrixAt(r.a, p0);
  const m = first.rows, n = first.cols;
  const steps = Math.min(m, n);
  const nb = LU_BLOCKED.nb;
  const ps = r.pivotStride;
  for (let t = 0; t < count; t++) r.info[p0 + t] = 0;
  if (panelInfo.length < count) panelInfo = new Int32Array(count);
  if (panelPiv.length < count * nb) panelPiv = new Int32Array(count * nb);
  for (let k0 = 0; k0 < steps; k0 += nb) {
    const kb = Math.min(nb, steps - k0);
    // 1. the panel, pivots relative to its first row
    const panel = view(at(A, k0, k0), m - k0, kb, count);
    const info = panelInfo.subarray(0, count);
    getrfWasm({ a: panel, ipiv: panelPiv, pivotStride: kb, info }, matrixAt(panel, 0), 0, count);
    for (let t = 0; t < count; t++) {
      const pv = (p0 + t) * ps + k0;
      for (let j = 0; j < kb; j++) r.ipiv[pv + j] = panelPiv[t * kb + j]! + k0;
      if (r.info[p0 + t] === 0 && info[t]! > 0) r.info[p0 + t] = info[t]! + k0;
      // 2. the panel's interchanges on the columns left and right of it
      const off = A.offset + t * A.stride;
      swapRows(A.data, off, A.ld, 0, k0, k0, r.ipiv, pv, kb);
      swapRows(A.data, off, A.ld, k0 + kb, n, k0, r.ipiv, pv, kb);
    }
    const rest = n - k0 - kb;
    if (rest <= 0) continue;
    // 3. U12 := L11^-1 A12
    const l11 = view(at(A, k0, k0), kb, kb, count);
    const a12 = view(at(A, k0, k0 + kb), kb, rest, count);
    fastTrsm({ side: 'left', uplo: 'lower', transA: 'N', diag: 'unit', alpha: 1, a: l11, b: a12 });
    // 4. A22 -= L21 U12
    const below = m - k0 - kb;
    if (below <= 0) continue;
    fastGemm({
      transA: 'N', transB: 'N', alpha: -1, beta: 1,
      a: view(at(A, k0 + kb, k0), below, kb, count), b: a12, c: view(at(A, k0 + kb, k0 + kb), below, rest, count),
    });
  }
  if (!solve) return;
  const g = r as GesvRequest<FloatArray, Int32Array>;
  const one = new Int32Array(1);
  for (let t = 0; t < count; t++) {
    const p = p0 + t;
    if (r.info[p] !== 0) continue;
    const a = matrixAt(r.a, p), b = matrixAt(g.b, p);
    cpuGetrs({
      trans: 'N', info: one, pivotStride: ps, ipiv: r.ipiv.subarray(p * ps, (p + 1) * ps),
      a: { kind: 'strided', data: a.data, offset: a.offset, ld: a.ld, stride: 0, rows: m, cols: n, count: 1, order: 'col' },
      b: { kind: 'strided', data: b.data, offset: b.offset, ld: b.ld, stride: 0, rows: b.rows, cols: b.cols, count: 1, order: 'col' },
    });
  }
}
