/**
 * geqrf and orgqr on complex batches through the two-matrix WebAssembly kernel
 * (kernels/zgeqrf-interleaved.ts): chunks of matrices copied into its memory as float64 pairs
 * (ld = m, back to back; complex64 widened) with tau for orgqr, worked two at a time (an odd
 * batch's last matrix paired with itself), copied back (complex64 rounded once) with tau and info
 * 0 for geqrf. A pair the kernel hands back (geqrf: a reflector's sum of squares out of its
 * bounds, from a NaN, an infinity, or values near float64's limits; orgqr: a value not finite) is
 * worked again one matrix at a time (each paired with itself: the lanes never mix, so a matrix's
 * result does not depend on its neighbour); a matrix handed back alone is left untouched in the
 * caller's arrays and handed to `defer`, which runs the reference on it.
 */
import { isFloat32Array, type DType, type FloatArray } from '../../core/dtype.js';
import type { GeqrfRequest, OrgqrRequest } from '../../core/op-specs.js';
import { wasmChunk } from '../context.js';
import { kernelFactory, moduleFactory } from '../jit/compile.js';
import { generatePack, type PackKernel, type PackParams } from '../kernels/pack.js';
import { generateZgeqrfInterleaved, zgeqrfInterleavedScratch, type ZgeqrfInterleavedParams } from '../kernels/zgeqrf-interleaved.js';
import { heap, heapInts, loadModule } from '../wasm/runtime.js';
import { stridedView } from './run-batch.js';
import { blockIn, blockOut } from './wasm-staging.js';

type WasmPairs = (a: number, tau: number, ok: number, pairs: number, scratch: number) => void;
type WasmPair = (a0: number, a1: number, tau0: number, tau1: number, scratch: number) => number;
const pairsFor = moduleFactory<ZgeqrfInterleavedParams, WasmPairs>(generateZgeqrfInterleaved, 'zgeqrf2', loadModule);
const pairFor = moduleFactory<ZgeqrfInterleavedParams, WasmPair>(generateZgeqrfInterleaved, 'pair', loadModule);
const packFor = kernelFactory<PackParams, PackKernel>(generatePack);

type QrReq = { op: 'geqrf'; r: GeqrfRequest<FloatArray, Int32Array> } | { op: 'orgqr'; r: OrgqrRequest<FloatArray> };

/** `count` matrices from p0 (one strided run, or one matrix of a list), all m x n (orgqr: k reflectors, tau's rows). */
export function zgeqrfWasm(q: QrReq, m: number, n: number, p0: number, count: number, defer: (p: number) => void): void {
  const { op, r } = q;
  const k = op === 'geqrf' ? Math.min(m, n) : stridedView(r.tau, p0).rows;
  const first = stridedView(r.a, p0);
  const dtype: DType = isFloat32Array(first.data) ? 'float32' : 'float64';
  const copyIn = packFor({ dtype, trans: 'N', direction: 'in', packed: 'float64' });
  const copyOut = packFor({ dtype, trans: 'N', direction: 'out', packed: 'float64' });
  const params: ZgeqrfInterleavedParams = op === 'geqrf' ? { op, m, n } : { op, m, n, k };
  const pairs = pairsFor(params);
  const pair = pairFor(params);
  // floats per matrix of A and of tau; an even chunk, so that only a call's last matrix can be alone
  const aPer = 2 * m * n, tPer = 2 * k;
  const chunk = wasmChunk(count, (aPer + tPer) * 8 + 4, 2);
  const tauBase = chunk * aPer, okBase = (tauBase + chunk * tPer) * 8;
  const work = (okBase + 4 * (chunk >> 1) + 4 + 15) & ~15;
  const stage = work + zgeqrfInterleavedScratch(params);
  const mem = heap(stage + chunk * aPer * 4).f64;
  const ints = heapInts();
  const deferred: number[] = [];
  for (let q0 = p0; q0 < p0 + count; q0 += chunk) {
    const c = Math.min(chunk, p0 + count - q0);
    const A = stridedView(r.a, q0);
    // one native copy where the chunk lies back to back in the caller's array
    const aBlock = A.ld === m && (c === 1 || A.stride === m * n);
    if (aBlock) blockIn(A.data, 2 * A.offset, c * aPer, 0, stage);
    else copyIn(A.data, 2 * A.offset, 2 * A.ld, 2 * A.stride, mem, 0, 2 * m, aPer, 2 * m, n, c);
    const T = stridedView(r.tau, q0);
    if (op === 'orgqr') for (let t = 0; t < c; t++) {
      const from = 2 * (T.offset + t * T.stride), to = tauBase + t * tPer;
      for (let e = 0; e < tPer; e++) mem[to + e] = T.data[from + e]!;
    }
    const half = c >> 1;
    if (half > 0) pairs(0, tauBase * 8, okBase, half, work);
    // the odd last matrix paired with itself
    if (c & 1) ints[okBase / 4 + half] = pair((c - 1) * aPer * 8, (c - 1) * aPer * 8, (tauBase + (c - 1) * tPer) * 8, (tauBase + (c - 1) * tPer) * 8, work);
    let allOk = true;
    for (let t = 0; t < (c + 1) >> 1; t++) if (ints[okBase / 4 + t] !== 1) allOk = false;
    /** Matrices t0 .. t0 + len - 1 of the chunk back to the caller. */
    const outA = (t0: number, len: number): void => {
      if (aBlock) blockOut(t0 * aPer * 8, len * aPer, stage, A.data, 2 * (A.offset + t0 * A.stride));
      else copyOut(mem, t0 * aPer, 2 * m, aPer, A.data, 2 * (A.offset + t0 * A.stride), 2 * A.ld, 2 * A.stride, 2 * m, n, len);
    };
    const outTau = (t: number): void => {
      if (op === 'orgqr') return;
      const to = 2 * (T.offset + t * T.stride), from = tauBase + t * tPer;
      for (let e = 0; e < tPer; e++) T.data[to + e] = mem[from + e]!;
    };
    if (allOk) {
      outA(0, c);
      for (let t = 0; t < c; t++) outTau(t);
      if (op === 'geqrf') r.info.fill(0, q0, q0 + c);
      continue;
    }
    /** Matrix t of the chunk alone (the kernel left a handed-back pair's A as it was). */
    const alone = (t: number): boolean => pair(t * aPer * 8, t * aPer * 8, (tauBase + t * tPer) * 8, (tauBase + t * tPer) * 8, work) === 1;
    for (let t = 0; t < c; t++) {
      const pairOk = ints[okBase / 4 + (t >> 1)] === 1;
      // the odd last matrix already ran alone
      if (!pairOk && ((c & 1) !== 0 && t === c - 1 || !alone(t))) {
        deferred.push(q0 + t);
        continue;
      }
      outA(t, 1);
      outTau(t);
      if (op === 'geqrf') r.info[q0 + t] = 0;
    }
  }
  for (const p of deferred) defer(p);
}
