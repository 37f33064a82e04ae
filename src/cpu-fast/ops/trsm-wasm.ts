/**
 * potrs (either triangle), getrs 'T' above the unrolled sizes, and trsm 'left' (tuning.ts
 * trsmLeftWasm) on the generated WebAssembly solves (kernels/trsm-wasm.ts): each chunk's factors copied as float64 as they lie (one
 * native copy: a packing loop cost twice the solve with one right-hand side) or, where the
 * batch's gaps are large, packed; B packed transposed (the right-hand sides of a row side by
 * side, in groups of eight columns: kernels/trsm-wasm.ts triSolveGroups), getrs's pivots copied beside them; B unpacked (rounded for float32). The factor is not
 * written back. Bitwise the reference's results.
 */
import { matrixAt, type MatrixView } from '../../core/batch.js';
import { dtypeOfArray, type FloatArray } from '../../core/dtype.js';
import { byPrecision } from '../../core/dtype-table.js';
import type { Diag, Uplo } from '../../core/enums.js';
import type { GetrsRequest, Op, PotrsRequest } from '../../core/ops.js';
import { kernelFactory, moduleFactory } from '../jit/compile.js';
import { generatePack, type PackKernel, type PackParams } from '../kernels/pack.js';
import { generateTriSolvePack, generateTriSolveWasm, triSolveGroups, triSolveLdb, triSolveMats, type TriSolveOp, type TriSolvePackParams, type TriSolveWasmParams, type TrsmLeftOp } from '../kernels/trsm-wasm.js';
import { cpuTuning } from '../context.js';
import { stridedView } from './run-batch.js';
import { heap, heapInts, loadModule } from '../wasm/runtime.js';

type WasmSolve = (a: number, b: number, piv: number, count: number, alpha: number) => void;
const kernel = moduleFactory<TriSolveWasmParams, WasmSolve>(generateTriSolveWasm, 'solve', loadModule);
const packKernel = kernelFactory<PackParams, PackKernel>(generatePack);
type WasmPack = (src: number, dst: number, count: number) => void;
const packIn = moduleFactory<TriSolvePackParams, WasmPack>(generateTriSolvePack, 'pack', loadModule);
const packOut = moduleFactory<TriSolvePackParams, WasmPack>(generateTriSolvePack, 'unpack', loadModule);

/** A strided run of matrices: element (i, j) of matrix p at data[offset + p * stride + i + j * ld] (stride unused for one matrix). */
interface Run { readonly data: FloatArray; readonly offset: number; readonly ld: number; readonly stride: number }

interface Solve {
  readonly op: TriSolveOp;
  /** The factor's order (B's rows) and B's columns. */
  readonly n: number;
  readonly nrhs: number;
  readonly alpha: number;
  readonly unit: boolean;
  readonly pivots?: { ipiv: Int32Array; stride: number; first: number };
}

/** Solves `count` matrices of the runs A and B (count > 1: strided runs). */
function solveRuns(s: Solve, A0: Run, B0: Run, count: number): void {
  const plan = solvePlan(s, A0, B0, count, false)!;
  for (let q = 0; q < count; q += plan.chunk) plan.run(q, Math.min(plan.chunk, count - q));
}

/** One solve's kernels and layout, set up once (a few microseconds), and the chunk it runs: matrices q ... q + c - 1 of the runs, c <= chunk. */
interface SolvePlan { readonly chunk: number; run(q: number, c: number): void }

/**
 * The plan of solveRuns. With `aInPlace` the factors already lie at byte 0 of this thread's
 * WebAssembly memory, float64, as A0 lays them out (lda, stride), and are not copied in:
 * undefined where that layout is not the one the solve takes.
 */
function solvePlan(s: Solve, A0: Run, B0: Run, count: number, aInPlace: boolean): SolvePlan | undefined {
  const { op, n, nrhs } = s;
  const dtype = dtypeOfArray(B0.data, 'b.data');
  const trsm = op.startsWith('trsm');
  const single = byPrecision(dtype, { double: false, single: true });
  const ldb = triSolveLdb(nrhs), groups = triSolveGroups(n, nrhs);
  // the factors copied as they lie (one native copy per chunk, converting float32) where the
  // batch is strided and its gaps small; else packed, ld = n, back to back
  const stride = count > 1 ? A0.stride : 0;
  const footprint = (n - 1) * A0.ld + n;
  const asLaid = count === 1 || (stride >= footprint && stride <= 2 * footprint + 16);
  // (one matrix: no stride, so that list and variable batches share one module per ld)
  const lda = asLaid ? A0.ld : n, strideA = asLaid ? stride : n * n, foot = asLaid ? footprint : n * n;
  // B stored densely (ld = n, matrices back to back): copied in and out as it lies (one native
  // copy each way, converting float32) and transposed in WebAssembly
  const dense = B0.ld === n && (count === 1 || B0.stride === n * nrhs);
  const per = (Math.max(strideA, foot) + ldb * n + (dense ? n * nrhs : 0)) * 8 + n * 4;
  const mats = triSolveMats(nrhs);
  // at least one fused group a chunk, whatever the size (alone, one right-hand side runs at one chain's latency)
  const chunk = Math.max(Math.min(count, mats), Math.min(count, Math.floor(cpuTuning().gemmWasmChunkBytes / per)));
  if (aInPlace && (!asLaid || single)) return undefined;
  const bBase = (((chunk - 1) * strideA + foot) * 8 + 15) & ~15, pivBase = bBase + chunk * ldb * n * 8;
  const stage = (pivBase + chunk * n * 4 + 15) & ~15;
  const heapBytes = stage + (dense ? chunk * n * nrhs * 8 : 0) + 16;
  heap(heapBytes);
  const extra = trsm ? { unit: s.unit, float32: single } : {};
  const fn = kernel({ op, n, nrhs, mats, lda, strideA, ...extra });
  const fn1 = mats === 1 ? fn : kernel({ op, n, nrhs, mats: 1, lda, strideA, ...extra });
  // packed: the triangle the solve reads (getrs: both)
  const lower = op === 'potrs-lower' || op === 'trsm-lower-N' || op === 'trsm-lower-T';
  const packA = packKernel(op === 'getrs-T' ? { dtype, trans: 'N', direction: 'in', packed: 'float64' }
    : { dtype, trans: 'N', direction: 'in', packed: 'float64', ...(lower ? { lower: true } : { upper: true }) });
  const packB = packKernel({ dtype, trans: 'T', direction: 'in', packed: 'float64' });
  const unpackB = packKernel({ dtype, trans: 'T', direction: 'out', packed: 'float64' });
  // an odd nrhs leaves a padding lane: zeros, not stale values (subnormals there would slow
  // every operation); ones in trsm's axpy forms, whose zero test would otherwise fire at every k
  const pad = op === 'trsm-lower-N' || op === 'trsm-upper-N' ? 1 : 0;
  const packDense = dense ? packIn({ n, nrhs, pad }) : undefined, unpackDense = dense ? packOut({ n, nrhs, pad }) : undefined;
  const run = (q: number, c: number): void => {
    const { f64 } = heap(heapBytes);
    const ints = heapInts();
    const aOff = A0.offset + q * A0.stride, bOff = B0.offset + q * B0.stride;
    if (aInPlace) { /* the caller's kernel left them there */ } else if (asLaid) f64.set(A0.data.subarray(aOff, aOff + (c - 1) * strideA + footprint));
    else packA(A0.data, aOff, A0.ld, A0.stride, f64, 0, n, n * n, n, n, c);
    if (packDense) {
      f64.set(B0.data.subarray(bOff, bOff + c * n * nrhs), stage / 8);
      packDense(stage, bBase, c);
    } else for (const g of groups) packB(B0.data, bOff + g.col * B0.ld, B0.ld, B0.stride, f64, bBase / 8 + g.offset, g.ld, ldb * n, g.width, n, c);
    if (ldb !== nrhs && !packDense) {
      const g = groups[groups.length - 1]!;
      for (let t = 0; t < c; t++) {
        for (let e = bBase / 8 + t * ldb * n + g.offset + g.width, last = e + n * g.ld; e < last; e += g.ld) f64[e] = pad;
      }
    }
    if (s.pivots) {
      const { ipiv, stride, first } = s.pivots;
      const q0 = first + q;
      if (stride === n) ints.set(ipiv.subarray(q0 * n, (q0 + c) * n), pivBase / 4);
      else for (let t = 0; t < c; t++) ints.set(ipiv.subarray((q0 + t) * stride, (q0 + t) * stride + n), pivBase / 4 + t * n);
    }
    // groups of `mats` matrices fused, the rest one by one
    const fused = c - (c % mats);
    if (fused > 0) fn(0, bBase, pivBase, fused / mats, s.alpha);
    if (fused < c) fn1(fused * strideA * 8, bBase + fused * ldb * n * 8, pivBase + fused * n * 4, c - fused, s.alpha);
    if (unpackDense) {
      unpackDense(bBase, stage, c);
      B0.data.set(f64.subarray(stage / 8, stage / 8 + c * n * nrhs), bOff);
    } else for (const g of groups) unpackB(f64, bBase / 8 + g.offset, g.ld, ldb * n, B0.data, bOff + g.col * B0.ld, B0.ld, B0.stride, n, g.width, c);
  };
  return { chunk, run };
}

/** potrs or getrs 'T' on `count` matrices from matrix p0 (a strided run, or one matrix). */
function triSolve(
  op: TriSolveOp, r: PotrsRequest<FloatArray, Int32Array> | GetrsRequest<FloatArray, Int32Array>,
  first: MatrixView<FloatArray>, p0: number, count: number, pivots?: { ipiv: Int32Array; stride: number },
): void {
  const nrhs = matrixAt(r.b, p0).cols;
  if (nrhs > 0) {
    solveRuns({ op, n: first.rows, nrhs, alpha: 1, unit: false, ...(pivots ? { pivots: { ...pivots, first: p0 } } : {}) },
      stridedView(r.a, p0), stridedView(r.b, p0), count);
  }
  r.info.fill(0, p0, p0 + count); // (no right-hand sides: nothing to solve)
}

export const potrsWasm = (r: PotrsRequest<FloatArray, Int32Array>, first: MatrixView<FloatArray>, p0: number, count: number): void =>
  triSolve(r.uplo === 'upper' ? 'potrs-upper' : 'potrs-lower', r, first, p0, count);

/**
 * potrs of float64 matrices from matrix p0 (at most `count`) whose factors a kernel leaves at
 * byte 0 of this thread's WebAssembly memory, laid out as r.a lays them (a strided run copied as
 * it lies: ops/potrf-interleaved.ts), so that posv does not copy each factor in a second
 * time: `solve(q, c)` solves matrices p0 + q ... p0 + q + c - 1 (c at most `chunk`) from the
 * factors at byte 0. Undefined where that layout is not the solve's (or no right-hand sides).
 * Infos are the caller's.
 */
export function potrsInPlace(r: PotrsRequest<FloatArray, Int32Array>, n: number, p0: number, count: number): SolvePlan | undefined {
  const nrhs = matrixAt(r.b, p0).cols;
  if (nrhs === 0 || r.a.kind !== 'strided' || r.b.kind !== 'strided') return undefined;
  return solvePlan({ op: r.uplo === 'upper' ? 'potrs-upper' : 'potrs-lower', n, nrhs, alpha: 1, unit: false }, stridedView(r.a, p0), stridedView(r.b, p0), count, true);
}

/** getrs 'T' (square; the API checked the pivots). */
export const getrsTransWasm = (r: GetrsRequest<FloatArray, Int32Array>, first: MatrixView<FloatArray>, p0: number, count: number): void =>
  triSolve('getrs-T', r, first, p0, count, { ipiv: r.ipiv, stride: r.pivotStride });

/**
 * trsm 'left' (A m x m, B m x nrhs, alpha not 0) on `count` matrices of the runs (count > 1:
 * strided), B := alpha op(A)^-1 B in place; bitwise the reference (src/cpu/trsm.ts), float32
 * rounded where the reference stores.
 */
export function trsmLeftWasm(uplo: Uplo, transA: Op, diag: Diag, A: Run, B: Run, m: number, nrhs: number, alpha: number, count: number): void {
  if (m === 0 || nrhs === 0) return;
  const op: TrsmLeftOp = `trsm-${uplo}-${transA}`;
  solveRuns({ op, n: m, nrhs, alpha, unit: diag === 'unit' }, A, B, count);
}
