/**
 * Complex potrf, posv and potrs on the WebAssembly kernel (kernels/zpotrf-wasm.ts): chunks of
 * matrices copied into its memory as float64 pairs (A whole, B), run, and copied back: the
 * factor's triangle (potrf, posv; complex64 rounded here), B where it was solved (every matrix
 * for potrs; for posv only those that factored, so a failing matrix's B is never written, as the
 * reference leaves it). A chunk lying back to back in the caller's array crosses in one native
 * block copy each way (ops/wasm-staging.ts), a packing loop otherwise. potrf and posv with
 * `pairs` run two matrices at a time (kernels/zpotrf-interleaved.ts); a pair it hands back (either
 * matrix not positive definite) and an odd batch's last matrix run on the one-matrix kernel.
 * Bitwise the reference's results.
 */
import type { MatrixView } from '../../core/batch.js';
import { isFloat32Array, type DType, type FloatArray } from '../../core/dtype.js';
import type { PotrsRequest } from '../../core/op-specs.js';
import { wasmChunk } from '../context.js';
import { kernelFactory, moduleFactory } from '../jit/compile.js';
import { generatePack, type PackKernel, type PackParams } from '../kernels/pack.js';
import type { CholeskyOp } from '../kernels/potrf-js.js';
import { generateZpotrfWasm, zpotrfWasmScratch, type ZpotrfWasmParams } from '../kernels/zpotrf-wasm.js';
import { generateZpotrfInterleaved, zpotrfInterleavedScratch, ZPOTRF_PAIR_REDO, type ZpotrfInterleavedParams } from '../kernels/zpotrf-interleaved.js';
import { heap, heapInts, loadModule } from '../wasm/runtime.js';
import { stridedView } from './run-batch.js';
import { blockIn, blockOut, narrowTriangleOut } from './wasm-staging.js';

type WasmZpotrf = (a: number, b: number, info: number, count: number, nrhs: number, scratch: number) => void;
const wasmFor = moduleFactory<ZpotrfWasmParams, WasmZpotrf>(generateZpotrfWasm, 'zpotrf', loadModule);
const pairsFor = moduleFactory<ZpotrfInterleavedParams, WasmZpotrf>(generateZpotrfInterleaved, 'zpotrf2', loadModule);
const packFor = kernelFactory<PackParams, PackKernel>(generatePack);

/** The one-matrix kernel's row blocks (tuning.ts complexCholeskyWasm.rows); `pairs`: potrf and posv two matrices at a time (`pairRows` rows a trip). */
export interface ZpotrfWasmShape { readonly rows: number; readonly pairs: boolean; readonly pairRows: number }

/** `count` matrices from p0 (one strided run, or one matrix of a list); `first` is matrix p0 of A. */
export function zpotrfWasm(op: CholeskyOp, r: PotrsRequest<FloatArray, Int32Array>, first: MatrixView<FloatArray>, p0: number, count: number, shape: ZpotrfWasmShape): void {
  const n = first.rows;
  const upper = r.uplo === 'upper';
  const single = isFloat32Array(first.data);
  const dtype: DType = single ? 'float32' : 'float64';
  const av = stridedView(r.a, p0);
  const bv = op === 'potrf' ? undefined : stridedView(r.b, p0);
  const nrhs = bv ? bv.cols : 0;
  // floats of each operand in the memory (rows twice the complex rows)
  const aPer = 2 * n * n, bPer = 2 * n * nrhs;
  // with the pairs an even chunk, so that only a call's last matrix goes to the one-matrix kernel
  const pairs = op !== 'potrs' && shape.pairs && count > 1;
  const chunk = wasmChunk(count, (aPer + bPer) * 8 + 4, pairs ? 2 : 1);
  const bBase = chunk * aPer, infoBase = (bBase + chunk * bPer) * 8;
  const scratch = Math.ceil((infoBase + chunk * 4) / 16) * 16;
  // float32 staging for the block copies after the kernel's scratch: A's and B's apart, as A's
  // float32 copy stays there until its other triangle goes back (narrowTriangleOut)
  const stageA = (scratch + Math.max(zpotrfWasmScratch(n), pairs ? zpotrfInterleavedScratch(n) : 0) + 15) & ~15;
  const stageB = (stageA + chunk * aPer * 4 + 15) & ~15;
  const mem = heap(single ? stageB + chunk * bPer * 4 : stageA).f64;
  const ints = heapInts();
  const roundFactor = op === 'posv' && single;
  const fn = wasmFor({ op, n, uplo: r.uplo, roundFactor, rows: shape.rows });
  const pairFn = pairs ? pairsFor({ n, uplo: r.uplo, roundFactor, rows: shape.pairRows }) : undefined;
  /** Matrices t .. t + k - 1 of the chunk on the one-matrix kernel. */
  const single1 = (t: number, k: number): void => fn(t * aPer * 8, (bBase + t * bPer) * 8, infoBase + 4 * t, k, nrhs, scratch);
  const copyIn = packFor({ dtype, trans: 'N', direction: 'in', packed: 'float64' });
  const copyOut = packFor({ dtype, trans: 'N', direction: 'out', packed: 'float64' });
  const triangleOut = packFor({ dtype, trans: 'N', direction: 'out', packed: 'float64', pairs: true, ...(upper ? { upper: true } : { lower: true }) });
  for (let q = 0; q < count; q += chunk) {
    const c = Math.min(chunk, count - q);
    const aOff = 2 * (av.offset + q * av.stride);
    // one native copy where the chunk lies back to back in the caller's array (wasm-staging.ts)
    const aBlock = av.ld === n && (c === 1 || av.stride === n * n);
    const bBlock = bv !== undefined && bv.ld === n && (c === 1 || bv.stride === n * nrhs);
    if (aBlock) blockIn(av.data, aOff, c * aPer, 0, stageA);
    else copyIn(av.data, aOff, 2 * av.ld, 2 * av.stride, mem, 0, 2 * n, aPer, 2 * n, n, c);
    if (bv && bBlock) blockIn(bv.data, 2 * (bv.offset + q * bv.stride), c * bPer, bBase * 8, stageB);
    else if (bv) copyIn(bv.data, 2 * (bv.offset + q * bv.stride), 2 * bv.ld, 2 * bv.stride, mem, bBase, 2 * n, bPer, 2 * n, nrhs, c);
    if (pairFn && c > 1) {
      const half = c >> 1;
      pairFn(0, bBase * 8, infoBase, half, nrhs, scratch);
      for (let t = 0; t < 2 * half; t += 2) if (ints[infoBase / 4 + t] === ZPOTRF_PAIR_REDO) single1(t, 2);
      if (c & 1) single1(c - 1, 1);
    } else single1(0, c);
    // Back-to-back complex128 matrices go back whole, one block copy: the other triangle's bytes
    // were copied in unchanged and the kernel never writes them, so what lands there is what was
    // there. complex64 rounds only the triangle, into the float32 copy it came in through: a
    // float32 NaN's bits need not survive the round trip through float64.
    if (op !== 'potrs') {
      if (aBlock && isFloat32Array(av.data)) narrowTriangleOut(0, n, c, upper, stageA, av.data, aOff);
      else if (aBlock) blockOut(0, c * aPer, stageA, av.data, aOff);
      else triangleOut(mem, 0, 2 * n, aPer, av.data, aOff, 2 * av.ld, 2 * av.stride, 2 * n, n, c);
    }
    const info0 = infoBase / 4;
    r.info.set(ints.subarray(info0, info0 + c), p0 + q);
    if (!bv) continue;
    // B back in runs of matrices that were solved (all of them for potrs)
    for (let t = 0; t < c;) {
      if (ints[info0 + t] !== 0) { t++; continue; }
      let e = t + 1;
      while (e < c && ints[info0 + e] === 0) e++;
      const bOff = 2 * (bv.offset + (q + t) * bv.stride);
      if (bBlock) blockOut((bBase + t * bPer) * 8, (e - t) * bPer, stageB, bv.data, bOff);
      else copyOut(mem, bBase + t * bPer, 2 * n, bPer, bv.data, bOff, 2 * bv.ld, 2 * bv.stride, 2 * n, nrhs, e - t);
      t = e;
    }
  }
}
