/**
 * getrf/gesv from min(m, n) >= luBlocked.min: LAPACK's recursive dgetrf2 on chunks of matrices
 * packed as float64 into the WebAssembly memory, every step one kernel call over the whole chunk
 * on the packed matrices in place (no copies between steps). The columns are halved; the left
 * half is factored (recursively, down to leaves of luBlocked.leaf columns on the unblocked
 * WebAssembly LU, kernels/getrf-wasm.ts: dgetf2, pivot search over all rows below); its row
 * interchanges are applied to the right half (dlaswp), then A12 := L11^-1 A12
 * (kernels/trsm-lower-unit-wasm.ts, itself halved down to the leaf size with a gemm between),
 * A22 -= L21 A12 (the WebAssembly gemm, kernels/gemm-wasm.ts, on the packed matrices' leading
 * dimension); the right half's trailing rows are factored, and their interchanges applied back
 * to the left half. The gemms carry all but O(n^2 leaf) of the work.
 * Then the chunk is unpacked with its pivots and infos, and gesv solves each matrix with info = 0
 * from the packed factor (kernels/getrs-js.ts); B stays untouched where info > 0, as in LAPACK.
 *
 * Pivots and info are LAPACK's (a zero pivot does not stop the factorisation: info is the first
 * zero U(k,k), 1-based; the leaves decide it, kernels/getrf-wasm.ts, on the dtype's zeroMax: for
 * float32 a pivot that stores as zero). Works in float64 for both dtypes, as the reference does; not
 * bitwise the reference (the updates sum in the gemm's order), so factors agree to rounding and
 * pivots wherever the choice is not a near tie.
 */
import { matrixAt, type Batch } from '../../core/batch.js';
import { dtypeOfArray, type DType, type FloatArray } from '../../core/dtype.js';
import { dtypeInfo } from '../../core/dtype-table.js';
import type { GetrfRequest } from '../../core/ops.js';
import { kernelFactory, moduleFactory } from '../jit/compile.js';
import { generateGemmWasm, type GemmWasmParams } from '../kernels/gemm-wasm.js';
import { generateGetrfWasm, ldOf, type GetrfWasmParams } from '../kernels/getrf-wasm.js';
import { generateGetrsJs, type GetrsJsKernel } from '../kernels/getrs-js.js';
import { generatePack, type PackKernel, type PackParams } from '../kernels/pack.js';
import { generateTrsmLowerUnitWasm, type TrsmLowerUnitWasmParams } from '../kernels/trsm-lower-unit-wasm.js';
import { cpuScratch, cpuTuning, wasmChunk } from '../context.js';
import { heap, heapInts, loadModule } from '../wasm/runtime.js';
import { gemmWasmParams } from './gemm.js';
import { stridedView } from './run-batch.js';

type WasmGetrf = (a: number, ipiv: number, info: number, count: number) => void;
type WasmTrsm = (l: number, b: number, count: number) => void;
type WasmGemm = (a: number, b: number, c: number, count: number, alpha: number, beta: number) => void;
const panelKernel = moduleFactory<GetrfWasmParams, WasmGetrf>(generateGetrfWasm, 'getrf', loadModule);
const trsmKernel = moduleFactory<TrsmLowerUnitWasmParams, WasmTrsm>(generateTrsmLowerUnitWasm, 'trsm', loadModule);
const gemmKernel = moduleFactory<GemmWasmParams, WasmGemm>(generateGemmWasm, 'gemm', loadModule);
const packKernel = kernelFactory<PackParams, PackKernel>(generatePack);
const solveKernel = kernelFactory<{ dtype: DType }, GetrsJsKernel>(generateGetrsJs);

const pack = (dtype: DType, direction: 'in' | 'out'): PackKernel => packKernel({ dtype, trans: 'N', direction, packed: 'float64' });

/**
 * The packed matrices' leading dimension: m rounded up to even, one cache line more where a
 * column is a multiple of 256 bytes (the gemm's operands all live in these columns, and such
 * strides map a block's columns onto a few cache sets; ops/gemm.ts pads its A the same way).
 */
const ldBlocked = (m: number): number => ldOf(m) + ((ldOf(m) * 8) % 256 === 0 ? 8 : 0);

/**
 * One step of the plan, on every matrix of a chunk; byte offsets are from each matrix's start.
 * leaf: the unblocked LU of columns [k0, k0 + w) below row k0 (pivots relative to k0);
 * swap: the interchanges of steps [k0, k0 + w) on columns [c0, c1); trsm and gemm: kernels.
 */
type Step =
  | { readonly kind: 'leaf'; readonly k0: number; readonly w: number; readonly at: number; readonly fn: WasmGetrf }
  | { readonly kind: 'swap'; readonly k0: number; readonly w: number; readonly c0: number; readonly c1: number }
  | { readonly kind: 'trsm'; readonly l: number; readonly b: number; readonly fn: WasmTrsm }
  | { readonly kind: 'gemm'; readonly a: number; readonly b: number; readonly c: number; readonly fn: WasmGemm };

/**
 * The steps for one m x n: dgetrf2's recursion (LAPACK 3.6: the columns halved, the left half
 * factored, its interchanges and L11^-1 applied to the right half, the right half's trailing
 * rows updated by one gemm and factored, its interchanges applied back to the left half) down to
 * leaves of at most `leaf` columns; the triangular solves recurse the same way down to
 * `leaf` rows, so all but O(n^2 leaf) of the work is gemm. Built once per shape: a chunk is often
 * a single matrix (n >= 128), and kernel lookups per step would cost more than the small steps.
 */
const plans = new Map<string, readonly Step[]>();
function planFor(m: number, n: number, leaf: number, zeroMax: number): readonly Step[] {
  // zeroMax in the key: the leaves' kernels differ by the dtype's zero pivot test
  const key = `${m},${n},${leaf},${zeroMax}`;
  const known = plans.get(key);
  if (known) return known;
  const ld = ldBlocked(m), size = ld * n, stride = size * 8;
  const at = (i: number, j: number): number => (i + j * ld) * 8;
  const plan: Step[] = [];
  const gemm = (i: number, j: number, rows: number, cols: number, ai: number, aj: number, bi: number, bj: number, k: number): void => {
    if (rows <= 0 || cols <= 0 || k <= 0) return;
    const g = gemmWasmParams(rows, cols, k, 'float64', 'N');
    plan.push({ kind: 'gemm', a: at(ai, aj), b: at(bi, bj), c: at(i, j), fn: gemmKernel({ ...g, lda: ld, ldb: ld, ldc: ld, strides: { a: size, b: size, c: size } }) });
  };
  /** B(k0:k0+kb, c0:c0+cols) := L(k0:k0+kb, k0:k0+kb)^-1 B, unit lower. */
  const trsm = (k0: number, kb: number, c0: number, cols: number): void => {
    if (cols <= 0 || kb <= 1) return;
    if (kb <= leaf) {
      plan.push({ kind: 'trsm', l: at(k0, k0), b: at(k0, c0), fn: trsmKernel({ kb, cols, ld, stride }) });
      return;
    }
    const n1 = kb >> 1, n2 = kb - n1;
    trsm(k0, n1, c0, cols);
    gemm(k0 + n1, c0, n2, cols, k0 + n1, k0, k0, c0, n1);
    trsm(k0 + n1, n2, c0, cols);
  };
  /** LU of columns [k0, k0 + w), rows k0 .. m - 1 (w <= m - k0); interchanges within these columns. */
  const lu = (k0: number, w: number): void => {
    if (w <= leaf) {
      plan.push({ kind: 'leaf', k0, w, at: at(k0, k0), fn: panelKernel({ m: m - k0, n: w, ld, stride, zeroMax }) });
      return;
    }
    // an even split: every leaf starts on an even row, where the leaf kernel's padded vector
    // loop (ldOf(m - k0) rows from k0) stays inside the column
    const n1 = (w >> 1) & ~1, n2 = w - n1;
    lu(k0, n1);
    plan.push({ kind: 'swap', k0, w: n1, c0: k0 + n1, c1: k0 + w });
    trsm(k0, n1, k0 + n1, n2);
    gemm(k0 + n1, k0 + n1, m - k0 - n1, n2, k0 + n1, k0, k0, k0 + n1, n1);
    lu(k0 + n1, n2);
    plan.push({ kind: 'swap', k0: k0 + n1, w: n2, c0: k0, c1: k0 + n1 });
  };
  const steps = Math.min(m, n);
  lu(0, steps);
  if (n > steps) {
    // wide: U's columns right of the square part
    plan.push({ kind: 'swap', k0: 0, w: steps, c0: steps, c1: n });
    trsm(0, steps, steps, n - steps);
  }
  plans.set(key, plan);
  return plan;
}

/** Rows k <-> piv[k] (absolute) for steps k in [k0, k0 + w), on columns [c0, c1) of the packed matrix at element `a`. */
function swapRows(f64: Float64Array, a: number, ld: number, piv: Int32Array, p: number, k0: number, w: number, c0: number, c1: number): void {
  for (let c = c0; c < c1; c++) {
    const col = a + c * ld;
    for (let k = k0; k < k0 + w; k++) {
      const r = piv[p + k]!;
      if (r !== k) {
        const t = f64[col + k]!;
        f64[col + k] = f64[col + r]!;
        f64[col + r] = t;
      }
    }
  }
}

/** Factors `count` m x n matrices from matrix p0 (`first`); with `b` (gesv), solves those with info = 0. */
export function getrfBlocked(
  r: GetrfRequest<FloatArray, Int32Array>, first: { rows: number; cols: number; data: FloatArray }, p0: number, count: number, b?: Batch<FloatArray>,
): void {
  const { rows: m, cols: n } = first;
  const dtype = dtypeOfArray(first.data, 'a.data');
  const ld = ldBlocked(m);
  const steps = Math.min(m, n);
  const leaf = cpuTuning().luBlocked.leaf;
  const size = ld * n;
  const per = size * 8 + leaf * 4 + 4;
  const chunk = wasmChunk(count, per);
  // the leaves' pivots (relative to their first row) and infos after the matrices, then a vector
  // of slack: the gemm reads a partial vector past a column's end
  const pivBase = chunk * size * 8, infoBase = pivBase + chunk * leaf * 4;
  const { f64 } = heap(infoBase + chunk * 4 + 64);
  const ints = heapInts();
  const plan = planFor(m, n, leaf, dtypeInfo(dtype).zeroMax);
  const solve = solveKernel({ dtype });
  const packIn = pack(dtype, 'in'), packOut = pack(dtype, 'out');
  // absolute pivots of the chunk (the caller's ipiv may have another stride)
  const pivots = cpuScratch().i32('getrfBlockedPivots', chunk * steps);
  const scratch = cpuScratch().f64('getrfBlockedSolve', m);
  for (let q = p0; q < p0 + count; q += chunk) {
    const c = Math.min(chunk, p0 + count - q);
    const A = stridedView(r.a, q);
    packIn(A.data, A.offset, A.ld, A.stride, f64, 0, ld, size, m, n, c);
    for (let t = 0; t < c; t++) r.info[q + t] = 0;
    for (const s of plan) {
      if (s.kind === 'gemm') s.fn(s.a, s.b, s.c, c, -1, 1);
      else if (s.kind === 'trsm') s.fn(s.l, s.b, c);
      else if (s.kind === 'swap') for (let t = 0; t < c; t++) swapRows(f64, t * size, ld, pivots, t * steps, s.k0, s.w, s.c0, s.c1);
      else {
        s.fn(s.at, pivBase, infoBase, c);
        for (let t = 0; t < c; t++) {
          const rel = pivBase / 4 + t * s.w;
          for (let j = 0; j < s.w; j++) pivots[t * steps + s.k0 + j] = ints[rel + j]! + s.k0;
          // leaves run left to right: the first one with a zero pivot has the first
          const info = ints[infoBase / 4 + t]!;
          if (r.info[q + t] === 0 && info > 0) r.info[q + t] = info + s.k0;
        }
      }
    }
    packOut(f64, 0, ld, size, A.data, A.offset, A.ld, A.stride, m, n, c);
    for (let t = 0; t < c; t++) r.ipiv.set(pivots.subarray(t * steps, (t + 1) * steps), (q + t) * r.pivotStride);
    if (!b) continue;
    for (let t = 0; t < c; t++) {
      if (r.info[q + t] !== 0) continue;
      const B = matrixAt(b, q + t);
      solve(f64, t * size, ld, m, r.ipiv, (q + t) * r.pivotStride, B.data, B.offset, B.ld, B.cols, scratch);
    }
  }
}
