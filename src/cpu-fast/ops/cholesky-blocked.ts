/**
 * potrf/posv above CHOLESKY_BLOCKED.min: LAPACK's dpotrf (blocked, right-looking) over a strided
 * run of matrices, every block of every matrix itself a strided batch. For each diagonal block of
 * order nb ('lower'; 'upper' is the transpose):
 *  1. A11 := chol(A11) by the unblocked WebAssembly Cholesky (potrfWasm, float64 working copy;
 *     an 'upper' block is transposed into a float64 scratch and back);
 *  2. A21 := A21 L11^-T (the fast trsm, right, lower, transposed);
 *  3. A22 -= A21 A21^T (the fast syrk, blocked over the WebAssembly gemm: most of the work).
 * A matrix whose block fails stops there with LAPACK's info (the first non-positive leading minor,
 * 1-based) and takes no further part: the later steps run on the runs of good matrices between
 * failed ones, so nothing of a failed matrix spreads. As in dpotrf (and unlike the unblocked
 * reference, which leaves the columns after the failing one untouched), the trailing block of a
 * failed matrix holds the updates of the steps before its failing block. posv then solves each
 * matrix with info = 0 (the reference's potrs); B stays untouched where info > 0.
 *
 * Not bitwise the reference (blocked order of additions; float32 blocks rounded to float32
 * between steps where the reference keeps float64).
 */
import { matrixAt, type StridedBatch } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import type { Uplo } from '../../core/enums.js';
import type { PosvRequest, PotrfRequest } from '../../core/ops.js';
import { cpuPotrs } from '../../cpu/lapack/index.js';
import { CHOLESKY_BLOCKED } from '../tuning.js';
import { fastSyrk, fastTrsm } from './blas3.js';
import { potrfWasm } from './cholesky-wasm.js';
import { stridedView } from './run-batch.js';
import type { Run } from './triangular-blocked.js';

const view = (x: Run, rows: number, cols: number, count: number): StridedBatch<FloatArray> =>
  ({ kind: 'strided', data: x.data, offset: x.offset, ld: x.ld, stride: x.stride, rows, cols, count, order: 'col' });
const at = (x: Run, i: number, j: number): Run => ({ ...x, offset: x.offset + i + j * x.ld });

let blockInfo = new Int32Array(8);
let transposed = new Float64Array(64 * 64);

/** chol of the kb x kb diagonal blocks D of matrices [s, s + len) of the run; infos (0 or 1-based within the block) to blockInfo[s ..]. */
function factorBlock(uplo: Uplo, D: Run, kb: number, count: number, s: number, len: number): void {
  const info = blockInfo;
  if (uplo === 'lower') {
    const d = view(D, kb, kb, count);
    potrfWasm({ uplo, a: d, info }, matrixAt(d, s), s, len);
    return;
  }
  // upper: D's upper triangle, transposed into a float64 lower triangle, factored, transposed back
  const size = kb * kb;
  if (transposed.length < len * size) transposed = new Float64Array(len * size);
  const w = transposed;
  for (let t = 0; t < len; t++) {
    const o = D.offset + (s + t) * D.stride;
    for (let j = 0; j < kb; j++) for (let i = 0; i <= j; i++) w[t * size + j + i * kb] = D.data[o + i + j * D.ld]!;
  }
  const scratch: StridedBatch<Float64Array> = { kind: 'strided', data: w, offset: 0, ld: kb, stride: size, rows: kb, cols: kb, count: len, order: 'col' };
  const sub = info.subarray(s, s + len);
  potrfWasm({ uplo: 'lower', a: scratch, info: sub }, matrixAt(scratch, 0), 0, len);
  for (let t = 0; t < len; t++) {
    const o = D.offset + (s + t) * D.stride;
    for (let j = 0; j < kb; j++) for (let i = 0; i <= j; i++) D.data[o + i + j * D.ld] = w[t * size + j + i * kb]!;
  }
}

/** Calls f(start, length) for every maximal run of matrices with info 0 among [0, count). */
function goodRuns(info: Int32Array, p0: number, count: number, f: (s: number, len: number) => void): void {
  let s = 0;
  for (let t = 0; t <= count; t++) {
    if (t === count || info[p0 + t] !== 0) {
      if (t > s) f(s, t - s);
      s = t + 1;
    }
  }
}

/** Factors `count` matrices from matrix p0 of r (a strided run, or one matrix); with `solve`, solves those with info = 0. */
export function potrfBlocked(r: PotrfRequest<FloatArray, Int32Array> | PosvRequest<FloatArray, Int32Array>, p0: number, count: number, solve: boolean): void {
  const A: Run = stridedView(r.a, p0);
  const n = matrixAt(r.a, p0).rows;
  const nb = CHOLESKY_BLOCKED.nb;
  const lower = r.uplo === 'lower';
  for (let t = 0; t < count; t++) r.info[p0 + t] = 0;
  if (blockInfo.length < count) blockInfo = new Int32Array(count);
  for (let k0 = 0; k0 < n; k0 += nb) {
    const kb = Math.min(nb, n - k0);
    const D = at(A, k0, k0);
    goodRuns(r.info, p0, count, (s, len) => factorBlock(r.uplo, D, kb, count, s, len));
    goodRuns(r.info, p0, count, (s, len) => {
      for (let t = s; t < s + len; t++) if (blockInfo[t] !== 0) r.info[p0 + t] = blockInfo[t]! + k0;
    });
    const rest = n - k0 - kb;
    if (rest <= 0) break;
    goodRuns(r.info, p0, count, (s, len) => {
      const shift = (x: Run): Run => ({ ...x, offset: x.offset + s * x.stride });
      const d = view(shift(D), kb, kb, len);
      const a22 = view(shift(at(A, k0 + kb, k0 + kb)), rest, rest, len);
      if (lower) {
        // A21 := A21 L11^-T; A22 -= A21 A21^T
        const a21 = view(shift(at(A, k0 + kb, k0)), rest, kb, len);
        fastTrsm({ side: 'right', uplo: 'lower', transA: 'T', diag: 'nonunit', alpha: 1, a: d, b: a21 });
        fastSyrk({ uplo: 'lower', trans: 'N', alpha: -1, a: a21, beta: 1, c: a22 });
      } else {
        // A12 := U11^-T A12; A22 -= A12^T A12
        const a12 = view(shift(at(A, k0, k0 + kb)), kb, rest, len);
        fastTrsm({ side: 'left', uplo: 'upper', transA: 'T', diag: 'nonunit', alpha: 1, a: d, b: a12 });
        fastSyrk({ uplo: 'upper', trans: 'T', alpha: -1, a: a12, beta: 1, c: a22 });
      }
    });
  }
  if (!solve) return;
  const b = (r as PosvRequest<FloatArray, Int32Array>).b;
  const one = new Int32Array(1);
  for (let t = 0; t < count; t++) {
    const p = p0 + t;
    if (r.info[p] !== 0) continue;
    const a = matrixAt(r.a, p), x = matrixAt(b, p);
    cpuPotrs({
      uplo: r.uplo, info: one,
      a: { kind: 'strided', data: a.data, offset: a.offset, ld: a.ld, stride: 0, rows: n, cols: n, count: 1, order: 'col' },
      b: { kind: 'strided', data: x.data, offset: x.offset, ld: x.ld, stride: 0, rows: x.rows, cols: x.cols, count: 1, order: 'col' },
    });
  }
}
