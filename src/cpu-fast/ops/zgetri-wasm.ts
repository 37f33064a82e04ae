/**
 * getri on complex batches through the two-matrix WebAssembly kernel
 * (kernels/zgetri-interleaved.ts): chunks of LU factors copied into its memory as float64 pairs
 * (ld = n, back to back; complex64 widened) with their pivots, inverted two at a time (an odd
 * batch's last matrix paired with itself), copied back (complex64 rounded once) with info 0. A
 * pair the kernel hands back (a value not finite, or an exactly zero U(j, j)) is left untouched in
 * the caller's arrays and handed to `defer`, one matrix at a time, which runs the reference on it.
 */
import { isFloat32Array, type DType, type FloatArray } from '../../core/dtype.js';
import type { GetriRequest } from '../../core/op-specs.js';
import { wasmChunk } from '../context.js';
import { kernelFactory, moduleFactory } from '../jit/compile.js';
import { generatePack, type PackKernel, type PackParams } from '../kernels/pack.js';
import { generateZgetriInterleaved, zgetriInterleavedScratch, type ZgetriInterleavedParams } from '../kernels/zgetri-interleaved.js';
import { heap, heapInts, loadModule } from '../wasm/runtime.js';
import { stridedView } from './run-batch.js';
import { blockIn, blockOut } from './wasm-staging.js';

type WasmPairs = (a: number, piv: number, ok: number, pairs: number, scratch: number) => void;
type WasmPair = (a0: number, a1: number, piv0: number, piv1: number, scratch: number) => number;
const pairsFor = moduleFactory<ZgetriInterleavedParams, WasmPairs>(generateZgetriInterleaved, 'zgetri2', loadModule);
const pairFor = moduleFactory<ZgetriInterleavedParams, WasmPair>(generateZgetriInterleaved, 'pair', loadModule);
const packFor = kernelFactory<PackParams, PackKernel>(generatePack);

type GetriReq = GetriRequest<FloatArray, Int32Array>;

/** `count` matrices from p0 (one strided run, or one matrix of a list), all of order n. */
export function zgetriWasm(r: GetriReq, n: number, p0: number, count: number, defer: (p: number) => void): void {
  const first = stridedView(r.a, p0);
  const dtype: DType = isFloat32Array(first.data) ? 'float32' : 'float64';
  const copyIn = packFor({ dtype, trans: 'N', direction: 'in', packed: 'float64' });
  const copyOut = packFor({ dtype, trans: 'N', direction: 'out', packed: 'float64' });
  const params: ZgetriInterleavedParams = { n };
  const pairs = pairsFor(params);
  const pair = pairFor(params);
  // floats per matrix; an even chunk, so that only a call's last matrix can be alone
  const aPer = 2 * n * n;
  const chunk = wasmChunk(count, aPer * 8 + 4 * n + 4, 2);
  const pivBase = chunk * aPer * 8, okBase = pivBase + 4 * n * chunk;
  const work = (okBase + 4 * (chunk >> 1) + 4 + 15) & ~15;
  const stage = work + zgetriInterleavedScratch(params);
  const mem = heap(stage + chunk * aPer * 4).f64;
  const ints = heapInts();
  const deferred: number[] = [];
  for (let q = p0; q < p0 + count; q += chunk) {
    const c = Math.min(chunk, p0 + count - q);
    const A = stridedView(r.a, q);
    // one native copy where the chunk lies back to back in the caller's array
    const aBlock = A.ld === n && (c === 1 || A.stride === n * n);
    if (aBlock) blockIn(A.data, 2 * A.offset, c * aPer, 0, stage);
    else copyIn(A.data, 2 * A.offset, 2 * A.ld, 2 * A.stride, mem, 0, 2 * n, aPer, 2 * n, n, c);
    if (r.pivotStride === n) ints.set(r.ipiv.subarray(q * n, (q + c) * n), pivBase / 4);
    else for (let t = 0; t < c; t++) for (let j = 0; j < n; j++) ints[pivBase / 4 + t * n + j] = r.ipiv[(q + t) * r.pivotStride + j]!;
    const half = c >> 1;
    if (half > 0) pairs(0, pivBase, okBase, half, work);
    // the odd last matrix paired with itself
    if (c & 1) ints[okBase / 4 + half] = pair((c - 1) * aPer * 8, (c - 1) * aPer * 8, pivBase + 4 * n * (c - 1), pivBase + 4 * n * (c - 1), work);
    let allOk = true;
    for (let t = 0; t < (c + 1) >> 1; t++) if (ints[okBase / 4 + t] !== 1) allOk = false;
    /** Matrices t0 .. t0 + len - 1 of the chunk back to the caller. */
    const outA = (t0: number, len: number): void => {
      if (aBlock) blockOut(t0 * aPer * 8, len * aPer, stage, A.data, 2 * (A.offset + t0 * A.stride));
      else copyOut(mem, t0 * aPer, 2 * n, aPer, A.data, 2 * (A.offset + t0 * A.stride), 2 * A.ld, 2 * A.stride, 2 * n, n, len);
    };
    if (allOk) {
      outA(0, c);
      r.info.fill(0, q, q + c);
      continue;
    }
    for (let t = 0; t < c; t++) {
      if (ints[okBase / 4 + (t >> 1)] !== 1) {
        deferred.push(q + t);
        continue;
      }
      outA(t, 1);
      r.info[q + t] = 0;
    }
  }
  for (const p of deferred) defer(p);
}
