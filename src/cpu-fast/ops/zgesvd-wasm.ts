/**
 * gesvd on complex batches through the WebAssembly Jacobi sweeps (kernels/zgesvd-interleaved.ts),
 * the rest as the reference does it (src/cpu/complex/zgesvd.ts): each matrix copied into the
 * kernel's memory as G = A (m >= n) or A^H (m < n), float64 pairs (complex64 widened), checked (a
 * value not finite: info k + 2 and NaN outputs for that matrix alone, not sent to the kernel) and
 * scaled by the reference's power of two; the finite ones swept four at a time (the last one to
 * three as a quad with one twice, or a pair); then per matrix the column norms, the reference's
 * selection sort (its swaps replayed on an index), U, VT and s written to the caller (complex64
 * rounded once), info 0. A matrix with an exactly zero singular value (where the reference
 * completes U's columns), or one whose sweeps reached their limit (where the reference tests G at
 * the absolute level and makes U orthonormal), is handed to `defer`, which runs the reference on it.
 */
import type { MatrixView } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import type { GesvdRequest } from '../../core/op-specs.js';
import { scaleForMax } from '../../cpu/lapack/jacobi.js';
import { wasmChunk } from '../context.js';
import { moduleFactory } from '../jit/compile.js';
import { ZGESVD_INTERLEAVED_MAX_COLUMNS, generateZgesvdInterleaved, zgesvdInterleavedScratch, type ZgesvdInterleavedParams } from '../kernels/zgesvd-interleaved.js';
import { heap, heapInts, loadModule } from '../wasm/runtime.js';
import { stridedView } from './run-batch.js';

type WasmQuads = (g: number, v: number, ok: number, quads: number, scratch: number) => void;
type WasmQuad = (g0: number, g1: number, g2: number, g3: number, v0: number, v1: number, v2: number, v3: number, scratch: number) => number;
type WasmPair = (g0: number, g1: number, v0: number, v1: number, scratch: number) => number;
const quadsFor = moduleFactory<ZgesvdInterleavedParams, WasmQuads>(generateZgesvdInterleaved, 'zgesvd4', loadModule);
const quadFor = moduleFactory<ZgesvdInterleavedParams, WasmQuad>(generateZgesvdInterleaved, 'quad', loadModule);
const pairFor = moduleFactory<ZgesvdInterleavedParams, WasmPair>(generateZgesvdInterleaved, 'pair', loadModule);

type GesvdReq = GesvdRequest<FloatArray, Int32Array>;
type View = MatrixView<FloatArray> & { stride: number };

/** The singular values of one matrix and their order (the reference's sort replayed). */
const values = new Float64Array(ZGESVD_INTERLEAVED_MAX_COLUMNS);
const order = new Int32Array(ZGESVD_INTERLEAVED_MAX_COLUMNS);
const unsorted = new Float64Array(ZGESVD_INTERLEAVED_MAX_COLUMNS);
/** Values of a column (or a matrix) from which copyIn copies natively. */
const NATIVE_COPY_MIN = 64;

/** `count` matrices of A (m x n) from p0 (one strided run, or one matrix of a list). */
export function zgesvdWasm(r: GesvdReq, m: number, n: number, p0: number, count: number, defer: (p: number) => void): void {
  const big = Math.max(m, n), k = Math.min(m, n), tall = m >= n;
  if (k > ZGESVD_INTERLEAVED_MAX_COLUMNS) throw new Error(`zgesvd-wasm: min(m, n) = ${k} is above ${ZGESVD_INTERLEAVED_MAX_COLUMNS}`);
  const vectors = tall ? r.vt !== undefined : r.u !== undefined;
  const params: ZgesvdInterleavedParams = { m: big, n: k, vectors };
  const quads = quadsFor(params);
  const quad = quadFor(params);
  const pair = pairFor(params);
  const gPer = 2 * big * k, vPer = vectors ? 2 * k * k : 0;
  // whole groups of four a chunk, so that only a call's last matrices run as a pair or alone
  const chunk = wasmChunk(count, (gPer + vPer) * 8 + 16, 4);
  const vBase = chunk * gPer * 8, okBase = vBase + chunk * vPer * 8;
  const work = (okBase + 4 * ((chunk + 3) >> 2) + 15) & ~15;
  const mem = heap(work + zgesvdInterleavedScratch(params)).f64;
  const ints = heapInts();
  const A = stridedView(r.a, p0), S = stridedView(r.s, p0);
  const U = r.u ? stridedView(r.u, p0) : undefined, VT = r.vt ? stridedView(r.vt, p0) : undefined;
  const good = new Int32Array(chunk), scales = new Float64Array(chunk);
  const deferred: number[] = [];
  for (let q0 = p0; q0 < p0 + count; q0 += chunk) {
    const c = Math.min(chunk, p0 + count - q0);
    // the finite matrices, back to back
    let found = 0;
    for (let t = 0; t < c; t++) {
      const p = q0 + t;
      const amax = copyIn(A, p - p0, tall, mem, found * gPer, big);
      if (Number.isNaN(amax)) {
        r.info[p] = k + 2;
        fillNaN(p - p0, k, S, U, VT);
        continue;
      }
      const scale = scaleForMax(amax);
      if (scale !== 1) for (let x = found * gPer; x < (found + 1) * gPer; x++) mem[x] *= scale;
      good[found] = p;
      scales[found] = scale;
      found++;
    }
    const whole = found >> 2, left = found & 3;
    if (whole > 0) quads(0, vBase, okBase, whole, work);
    // the last one to three: a quad with the third twice, or a pair (one matrix: with itself)
    if (left > 0) {
      const g = (t: number): number => Math.min(4 * whole + t, found - 1) * gPer * 8;
      const v = (t: number): number => vBase + Math.min(4 * whole + t, found - 1) * vPer * 8;
      ints[okBase / 4 + whole] = left === 3 ? quad(g(0), g(1), g(2), g(3), v(0), v(1), v(2), v(3), work) : pair(g(0), g(1), v(0), v(1), work);
    }
    for (let t = 0; t < found; t++) {
      const converged = (ints[okBase / 4 + (t >> 2)]! >> (t & 3)) & 1;
      const p = good[t]!;
      // where the sweeps reached their limit the reference's ending is its own (info 0 where G's
      // off-diagonal is negligible at the absolute level, U made orthonormal): beside a column
      // whose squared norm underflows to 0 the test is against 0, and both rotate on rounding
      // noise to the limit
      if (!converged || !finish(p - p0, tall, big, k, mem, t * gPer, vBase / 8 + t * vPer, scales[t]!, S, U, VT)) {
        deferred.push(p);
        continue;
      }
      r.info[p] = 0;
    }
  }
  for (const p of deferred) defer(p);
}

/**
 * Matrix t of A into G at `to` (A itself, or A^H where A is wide; ld = big); returns the largest
 * |part|, or NaN where a part is not finite.
 */
function copyIn(A: View, t: number, tall: boolean, g: Float64Array, to: number, big: number): number {
  const { data, ld, rows, cols } = A;
  const from = A.offset + t * A.stride;
  if (tall) {
    // the columns by native copies (complex64 widened in them), then the largest part read back
    // from G: a running maximum with no chain through Math.max (a NaN is flagged on the side, an
    // infinity is above MAX_VALUE: one test at the end)
    // (a native copy costs a view's allocation: element by element below NATIVE_COPY_MIN values)
    if (ld === rows && 2 * rows * cols >= NATIVE_COPY_MIN) g.set(data.subarray(2 * from, 2 * (from + cols * ld)), to);
    else if (2 * rows >= NATIVE_COPY_MIN) for (let j = 0; j < cols; j++) g.set(data.subarray(2 * (from + j * ld), 2 * (from + j * ld + rows)), to + 2 * j * big);
    else {
      for (let j = 0; j < cols; j++) {
        const s0 = 2 * (from + j * ld), d0 = to + 2 * j * big;
        for (let x = 0; x < 2 * rows; x++) g[d0 + x] = data[s0 + x]!;
      }
    }
    let amax = 0, nan = false;
    for (let x = to; x < to + 2 * rows * cols; x++) {
      const a = Math.abs(g[x]!);
      if (a > amax) amax = a;
      else if (a !== a) nan = true;
    }
    return !nan && amax <= Number.MAX_VALUE ? amax : NaN;
  }
  // Math.max keeps a NaN, and an infinity is above MAX_VALUE: one test at the end
  let amax = 0;
  for (let j = 0; j < cols; j++) {
    const s0 = 2 * (from + j * ld);
    for (let i = 0; i < rows; i++) {
      const re = data[s0 + 2 * i]!, im = data[s0 + 2 * i + 1]!;
      const d = to + 2 * (j + i * big);
      g[d] = re;
      g[d + 1] = -im;
      amax = Math.max(amax, Math.abs(re), Math.abs(im));
    }
  }
  return amax <= Number.MAX_VALUE ? amax : NaN;
}

/**
 * The reference's ending for matrix t: norms, sort, s, U and VT to the caller. False (nothing
 * written) where a singular value is exactly zero.
 */
function finish(t: number, tall: boolean, big: number, k: number, g: Float64Array, gOff: number, vOff: number,
  scale: number, S: View, U: View | undefined, VT: View | undefined): boolean {
  // each column's sum in the reference's order, four columns' sums side by side (four independent chains)
  let j = 0;
  for (; j + 4 <= k; j += 4) {
    let n0 = 0, n1 = 0, n2 = 0, n3 = 0;
    const x0 = gOff + 2 * j * big, len = 2 * big;
    for (let x = x0; x < x0 + len; x++) {
      const a = g[x]!, b = g[x + len]!, c = g[x + 2 * len]!, d = g[x + 3 * len]!;
      n0 += a * a; n1 += b * b; n2 += c * c; n3 += d * d;
    }
    values[j] = Math.sqrt(n0); values[j + 1] = Math.sqrt(n1); values[j + 2] = Math.sqrt(n2); values[j + 3] = Math.sqrt(n3);
  }
  for (; j < k; j++) {
    let nrm = 0;
    for (let x = gOff + 2 * j * big; x < gOff + 2 * (j + 1) * big; x++) nrm += g[x]! * g[x]!;
    values[j] = Math.sqrt(nrm);
  }
  // descending, `order` the permutation: by insertion (the selection's maximum search mispredicts),
  // which for distinct values gives the permutation the reference's selection sort gives; where two
  // are equal, that sort itself (lapack/jacobi.ts sortWithColumns, its swaps on `order`)
  for (let q = 0; q < k; q++) unsorted[q] = values[q]!;
  for (let q = 0; q < k; q++) order[q] = q;
  let tie = false;
  for (let q = 1; q < k; q++) {
    const v = values[q]!;
    let i = q - 1;
    for (; i >= 0 && values[i]! < v; i--) { values[i + 1] = values[i]!; order[i + 1] = order[i]!; }
    values[i + 1] = v;
    order[i + 1] = q;
    if (i >= 0 && values[i] === v) tie = true;
  }
  if (tie) {
    for (let q = 0; q < k; q++) values[q] = unsorted[q]!;
    for (let q = 0; q < k; q++) order[q] = q;
    for (let i = 0; i < k - 1; i++) {
      let best = i;
      for (let q = i + 1; q < k; q++) if (values[q]! > values[best]!) best = q;
      if (best === i) continue;
      const d = values[i]!; values[i] = values[best]!; values[best] = d;
      const o = order[i]!; order[i] = order[best]!; order[best] = o;
    }
  }
  if (k > 0 && values[k - 1] === 0) return false;
  const sd = S.data, s0 = S.offset + t * S.stride;
  for (let q = 0; q < k; q++) sd[s0 + q] = values[q]! / scale;
  const m = tall ? big : k, n = tall ? k : big;
  // Tall: U = G (normalised columns: times the reciprocal), VT = V^H. Wide: U = V, VT = G^H (normalised).
  // (The views' fields in locals: TurboFan reloaded them at every store of the loops.)
  if (U) {
    const ud = U.data, uld = U.ld, u0 = U.offset + t * U.stride;
    for (let q = 0; q < k; q++) {
      const d0 = 2 * (u0 + q * uld);
      if (tall) {
        const x0 = gOff + 2 * order[q]! * big, inv = 1 / values[q]!;
        for (let i = 0; i < 2 * m; i++) ud[d0 + i] = g[x0 + i]! * inv;
      } else {
        const x0 = vOff + 2 * order[q]! * k;
        for (let i = 0; i < 2 * m; i++) ud[d0 + i] = g[x0 + i]!;
      }
    }
  }
  if (VT) {
    const wd = VT.data, wld = VT.ld, w0 = VT.offset + t * VT.stride;
    for (let q = 0; q < k; q++) {
      // row q of VT: conj of column order[q] of V (tall) or of normalised G (wide)
      const x0 = tall ? vOff + 2 * order[q]! * k : gOff + 2 * order[q]! * big, inv = tall ? 1 : 1 / values[q]!;
      if (tall) {
        for (let c = 0; c < n; c++) {
          const d = 2 * (w0 + q + c * wld);
          wd[d] = g[x0 + 2 * c]!;
          wd[d + 1] = -g[x0 + 2 * c + 1]!;
        }
      } else {
        for (let c = 0; c < n; c++) {
          const d = 2 * (w0 + q + c * wld);
          wd[d] = g[x0 + 2 * c]! * inv;
          wd[d + 1] = -(g[x0 + 2 * c + 1]! * inv);
        }
      }
    }
  }
  return true;
}

/** s, U and VT of the run's matrix t NaN (a value of A not finite). */
function fillNaN(t: number, k: number, S: View, U: View | undefined, VT: View | undefined): void {
  const s0 = S.offset + t * S.stride;
  S.data.fill(NaN, s0, s0 + k);
  for (const M of [U, VT]) {
    if (!M) continue;
    const o = M.offset + t * M.stride;
    for (let j = 0; j < M.cols; j++) M.data.fill(NaN, 2 * (o + j * M.ld), 2 * (o + j * M.ld + M.rows));
  }
}
