/**
 * getrf, gesv and getrs ('N') on complex batches through the WebAssembly kernel
 * (kernels/zgetrf-wasm.ts): chunks of matrices copied into its memory as float64 pairs (ld = n,
 * back to back; complex64 widened), factored and solved there, copied back (rounded for
 * complex64) with their pivots and infos. B is written back only where info = 0, as the
 * reference leaves a failing matrix's B untouched. A matrix the kernel defers (a nonzero pivot
 * that is not finite, or tiny; a complex64 pivot that stores as zero is zero there, info) is
 * handed to `defer`, which runs the reference on it alone. getrf and gesv
 * run two matrices at a time where tuning.ts complexLuWasmPairs says so
 * (kernels/zgetrf-interleaved.ts, two pairs a trip up to complexLuWasmQuadMax); a pair it hands
 * back and an odd batch's last matrix run on the one-matrix kernel (a chunk holds whole trips of
 * the pair kernel's loop: context.ts wasmChunk).
 */
import { matrixAt } from '../../core/batch.js';
import { isFloat32Array, type DType, type FloatArray } from '../../core/dtype.js';
import { byPrecision, dtypeInfo } from '../../core/dtype-table.js';
import type { ComplexGetrsRequest } from '../../core/op-specs.js';
import { wasmChunk } from '../context.js';
import { kernelFactory, moduleFactory } from '../jit/compile.js';
import type { LuOp } from '../kernels/getrf-js.js';
import { generatePack, type PackKernel, type PackParams } from '../kernels/pack.js';
import { generateZgetrfWasm, ZGETRF_WASM_DEFER, zgetrfWasmWorkBytes, type ZgetrfWasmParams } from '../kernels/zgetrf-wasm.js';
import { generateZgetrfInterleaved, zgetrfInterleavedScratch, ZGETRF_PAIR_REDO, type ZgetrfInterleavedParams } from '../kernels/zgetrf-interleaved.js';
import type { CpuTuning } from '../tuning.js';
import { heap, heapInts, loadModule } from '../wasm/runtime.js';
import { stridedView } from './run-batch.js';
import { blockIn, blockOut } from './wasm-staging.js';

type WasmZgetrf = (a: number, b: number, piv: number, info: number, count: number, nrhs: number, work: number) => void;
const wasmFor = moduleFactory<ZgetrfWasmParams, WasmZgetrf>(generateZgetrfWasm, 'zgetrf', loadModule);
const pairsFor = moduleFactory<ZgetrfInterleavedParams, WasmZgetrf>(generateZgetrfInterleaved, 'zgetrf2', loadModule);
const packFor = kernelFactory<PackParams, PackKernel>(generatePack);

type LuReq = ComplexGetrsRequest<FloatArray, Int32Array>;

/** `count` matrices from p0 (one strided run, or one matrix of a list), all of order n. */
export function zgetrfWasm(op: LuOp, r: LuReq, n: number, p0: number, count: number, tuning: CpuTuning, defer: (p: number) => void): void {
  const first = stridedView(r.a, p0);
  const dtype: DType = isFloat32Array(first.data) ? 'float32' : 'float64';
  const copyIn = packFor({ dtype, trans: 'N', direction: 'in', packed: 'float64' });
  const copyOut = packFor({ dtype, trans: 'N', direction: 'out', packed: 'float64' });
  const nrhs = op === 'getrf' ? 0 : matrixAt(r.b, p0).cols;
  // complex64's gesv solves with the factor as stored, rounded
  const roundFactor = op === 'gesv' && byPrecision(dtype, { double: false, single: true });
  const params: ZgetrfWasmParams = {
    op, n, roundFactor, cols: tuning.complexLuWasmCols, group: tuning.complexLuWasmGroup, solveLoops: n >= tuning.complexLuWasmSolveLoopMin,
    factorLoops: n >= tuning.complexLuWasmFactorLoopMin, zeroMax: dtypeInfo(dtype).zeroMax,
  };
  const fn = wasmFor(params);
  // getrf and gesv two matrices at a time where tuning.ts complexLuWasmPairs says so (gesv's
  // solves `group` pairs side by side)
  const pairRange = tuning.complexLuWasmPairs;
  const group = tuning.complexLuWasmPairGroup;
  // (factored in Crout's order from complexLuWasmPairCrout.min, right-looking below it)
  const crout = n >= tuning.complexLuWasmPairCrout.min ? tuning.complexLuWasmPairCrout.rows : 0;
  const pairParams: ZgetrfInterleavedParams | undefined = op !== 'getrs' && count > 1 && n >= pairRange.min && n <= pairRange.max
    ? { op, n, roundFactor, pairs: group, rowLoops: n >= tuning.complexLuWasmPairLoopMin, crout, zeroMax: params.zeroMax } : undefined;
  const pairFn = pairParams === undefined ? undefined : pairsFor(pairParams);
  // floats per matrix of A and B; bytes of each chunk's areas; with the pairs, a chunk of whole
  // trips (gesv's `group` pairs side by side), so that only a call's last matrices take another path
  const aPer = 2 * n * n, bPer = 2 * n * nrhs;
  const chunk = wasmChunk(count, (aPer + bPer) * 8 + 4 * n + 4, pairFn ? 2 * (op === 'gesv' ? Math.max(1, group) : 1) : 1);
  const bBase = chunk * aPer, pivBase = (bBase + chunk * bPer) * 8, infoBase = pivBase + chunk * 4 * n;
  // the solves' scratch, then float32 staging for the block copies, as large as A's chunk or B's
  const work = (infoBase + chunk * 4 + 15) & ~15;
  const stage = work + Math.max(zgetrfWasmWorkBytes(params), pairParams ? zgetrfInterleavedScratch(pairParams) : 0);
  const mem = heap(stage + chunk * Math.max(aPer, bPer) * 4).f64;
  const ints = heapInts();
  const deferred: number[] = [];
  for (let q = p0; q < p0 + count; q += chunk) {
    const c = Math.min(chunk, p0 + count - q);
    const A = stridedView(r.a, q);
    const B = op === 'getrf' || nrhs === 0 ? undefined : stridedView(r.b, q);
    // one native copy where the chunk lies back to back in the caller's array
    const aBlock = A.ld === n && (c === 1 || A.stride === n * n);
    const bBlock = B !== undefined && B.ld === n && (c === 1 || B.stride === n * nrhs);
    /** Matrices t0 .. t0 + k - 1 of the chunk's A, or of B, back to the caller. */
    const outA = (t0: number, k: number): void => {
      if (aBlock) blockOut(t0 * aPer * 8, k * aPer, stage, A.data, 2 * (A.offset + t0 * A.stride));
      else copyOut(mem, t0 * aPer, 2 * n, aPer, A.data, 2 * (A.offset + t0 * A.stride), 2 * A.ld, 2 * A.stride, 2 * n, n, k);
    };
    const outB = (t0: number, k: number): void => {
      if (!B) return;
      if (bBlock) blockOut((bBase + t0 * bPer) * 8, k * bPer, stage, B.data, 2 * (B.offset + t0 * B.stride));
      else copyOut(mem, bBase + t0 * bPer, 2 * n, bPer, B.data, 2 * (B.offset + t0 * B.stride), 2 * B.ld, 2 * B.stride, 2 * n, nrhs, k);
    };
    if (aBlock) blockIn(A.data, 2 * A.offset, c * aPer, 0, stage);
    else copyIn(A.data, 2 * A.offset, 2 * A.ld, 2 * A.stride, mem, 0, 2 * n, aPer, 2 * n, n, c);
    if (B && bBlock) blockIn(B.data, 2 * B.offset, c * bPer, bBase * 8, stage);
    else if (B) copyIn(B.data, 2 * B.offset, 2 * B.ld, 2 * B.stride, mem, bBase, 2 * n, bPer, 2 * n, nrhs, c);
    if (op === 'getrs') {
      if (r.pivotStride === n) ints.set(r.ipiv.subarray(q * n, (q + c) * n), pivBase / 4);
      else for (let t = 0; t < c; t++) for (let j = 0; j < n; j++) ints[pivBase / 4 + t * n + j] = r.ipiv[(q + t) * r.pivotStride + j]!;
    }
    /** Matrices t .. t + k - 1 of the chunk on the one-matrix kernel. */
    const single = (t: number, k: number): void => fn(t * aPer * 8, (bBase + t * bPer) * 8, pivBase + 4 * n * t, infoBase + 4 * t, k, nrhs, work);
    if (pairFn && c > 1) {
      pairFn(0, bBase * 8, pivBase, infoBase, c >> 1, nrhs, work);
      // a pair handed back (a pivot it does not take) and an odd batch's last matrix on the one-matrix kernel
      for (let t = 0; t < (c & ~1); t += 2) if (ints[infoBase / 4 + t] === ZGETRF_PAIR_REDO) single(t, 2);
      if (c & 1) single(c - 1, 1);
    } else single(0, c);
    if (op === 'getrs') {
      outB(0, c);
      r.info.fill(0, q, q + c);
      continue;
    }
    const info0 = infoBase / 4;
    let allZero = true, anyDeferred = false;
    for (let t = 0; t < c; t++) {
      const info = ints[info0 + t]!;
      if (info !== 0) allZero = false;
      if (info === ZGETRF_WASM_DEFER) anyDeferred = true;
    }
    if (!anyDeferred) {
      outA(0, c);
      r.info.set(ints.subarray(info0, info0 + c), q);
      if (r.pivotStride === n) r.ipiv.set(ints.subarray(pivBase / 4, pivBase / 4 + c * n), q * n);
      else for (let t = 0; t < c; t++) for (let j = 0; j < n; j++) r.ipiv[(q + t) * r.pivotStride + j] = ints[pivBase / 4 + t * n + j]!;
      if (allZero) outB(0, c);
      else for (let t = 0; t < c; t++) if (ints[info0 + t] === 0) outB(t, 1);
      continue;
    }
    // some matrix left to the reference: the others one by one
    for (let t = 0; t < c; t++) {
      const info = ints[info0 + t]!;
      if (info === ZGETRF_WASM_DEFER) {
        deferred.push(q + t);
        continue;
      }
      outA(t, 1);
      for (let j = 0; j < n; j++) r.ipiv[(q + t) * r.pivotStride + j] = ints[pivBase / 4 + t * n + j]!;
      r.info[q + t] = info;
      if (info === 0) outB(t, 1);
    }
  }
  for (const p of deferred) defer(p);
}
