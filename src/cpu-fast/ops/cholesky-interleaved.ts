/**
 * potrf on the interleaved layout (kernels/potrf-interleaved.ts) for a strided run of matrices:
 * chunks of the batch copied byte for byte into the wasm memory, factored two matrices per f64x2
 * vector (the kernel gathers each pair's elements itself), copied back; posv solves in the same
 * kernel (B's chunk copied in and back the same way). Bitwise the reference's results and infos.
 * Where tuning.ts enables them, see there.
 */
import type { Batch, MatrixView } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import type { PosvRequest, PotrfRequest } from '../../core/ops.js';
import { copyElements } from '../copy.js';
import { INTERLEAVED_CHUNK_BYTES, interleavedShape } from '../tuning.js';
import { runChunks, runnersOf, type ChunkPlan } from './chunks.js';
import { interleavedFixedBytes, interleavedLayout, interleavedRunner, type InterleavedChunk } from './kernel-calls.js';

/** A strided batch's chunk copied byte for byte: how its matrices lie, and whether this kernel takes them. */
interface Region { readonly data: FloatArray; readonly offset: number; readonly stride: number; readonly footprint: number }
function region(b: Batch<FloatArray>, rows: number, cols: number): Region | undefined {
  if (b.kind !== 'strided') return undefined;
  const footprint = (cols - 1) * b.ld + rows;
  // matrices must not overlap (two threads' chunks stay disjoint) nor lie far apart (the gaps are copied too)
  if (b.stride < footprint || b.stride > 2 * footprint + 16) return undefined;
  return { data: b.data, offset: b.offset, stride: b.stride, footprint };
}

/**
 * The chunks of r.a's strided batch (first: any of its matrices), with `b` solving B of each matrix
 * that factored (ops/chunks.ts), or undefined where the layout does not suit: the chunks are
 * copied back whole, gaps and the other triangle included (unchanged bytes), so matrices must not
 * overlap nor lie far apart, and A and B must not share an array (B's chunk, copied back after
 * A's, would restore A's old values in its gaps). Chunks on this thread are of an even number of
 * matrices (pairs) of about INTERLEAVED_CHUNK_BYTES; any chunk's odd last matrix runs as a pair
 * with itself.
 */
export function interleavedPlan(
  r: PotrfRequest<FloatArray, Int32Array>, first: MatrixView<FloatArray>, pairsPerTrip?: 1 | 2, b?: Batch<FloatArray>,
): ChunkPlan | undefined {
  const n = first.rows;
  const shape = interleavedShape(n, b !== undefined);
  const ra = region(r.a, n, n);
  if (!ra || r.a.kind !== 'strided') return undefined;
  const nrhs = b && b.kind === 'strided' ? b.cols : 0;
  if (b && nrhs === 0) return undefined;
  const rb = b ? region(b, n, nrhs) : undefined;
  if (b && (!rb || b.kind !== 'strided' || rb.data.buffer === ra.data.buffer || rb.data.constructor !== ra.data.constructor)) return undefined;
  const f32 = first.data instanceof Float32Array;
  const es = f32 ? 4 : 8;
  const params: InterleavedChunk = {
    kernel: {
      n, uplo: r.uplo, dtype: f32 ? 'float32' : 'float64', ld: r.a.ld, form: shape.form,
      ...(rb && b?.kind === 'strided' ? { solve: { ldb: b.ld } } : {}), pairsPerTrip: 1,
    },
    pairsPerTrip: pairsPerTrip ?? shape.pairsPerTrip,
    stride: ra.stride, footprint: ra.footprint, bStride: rb ? rb.stride : 0, bFootprint: rb ? rb.footprint : 0, nrhs, es,
  };
  // matrix p of A starts at aOffset + p * stride, of B at bOffset + p * bStride
  const a = ra.data, aOffset = ra.offset, bOffset = rb ? rb.offset : 0;
  const view = f32 ? (h: { f32: Float32Array }) => h.f32 : (h: { f64: Float64Array }) => h.f64;
  return {
    perMatrix: (params.stride + params.bStride) * es + 4,
    fixed: interleavedFixedBytes(params),
    chunk: Math.max(2, Math.floor(INTERLEAVED_CHUNK_BYTES / ((params.stride + params.bStride) * es)) & ~1),
    pack(heap, base, p, c): void {
      const v = view(heap), l = interleavedLayout(params, base, c);
      const start = aOffset + p * params.stride;
      copyElements(v, base / es, a, start, l.aLength);
      if (rb) copyElements(v, l.b / es, rb.data, bOffset + p * params.bStride, l.bLength);
    },
    runner: runnersOf((shared) => interleavedRunner(params, shared)),
    call: (base, count) => ({ kernel: 'potrf-interleaved', params, base, count }),
    unpack(heap, base, p, c): void {
      const v = view(heap), l = interleavedLayout(params, base, c);
      copyElements(a, aOffset + p * params.stride, v, base / es, l.aLength);
      if (rb) copyElements(rb.data, bOffset + p * params.bStride, v, l.b / es, l.bLength);
      // one block copy, not a loop (a first call's loop runs in V8's interpreter: 5 of 35 ms for posv 8 x 100,000)
      copyElements(r.info, p, heap.i32, l.info / 4, c);
    },
  };
}

/**
 * Factors `count` matrices of r.a's strided batch from matrix p0 (first is matrix p0), and with
 * `b` solves B of each that factored, or returns false where the layout does not suit
 * (interleavedPlan).
 */
export function potrfInterleaved(
  r: PotrfRequest<FloatArray, Int32Array>, first: MatrixView<FloatArray>, p0: number, count: number,
  pairsPerTrip?: 1 | 2, b?: Batch<FloatArray>,
): boolean {
  const plan = interleavedPlan(r, first, pairsPerTrip, b);
  if (!plan) return false;
  runChunks(plan, p0, count);
  return true;
}

/**
 * posv as the reference does it (src/cpu/lapack/solve.ts: potrf, then potrs with the factor as
 * stored, rounded for float32), fused in the interleaved kernel: each matrix solved while its
 * factor is still in registers. B of a failed matrix is not touched. False (nothing done)
 * where the layout does not suit (see potrfInterleaved).
 */
export function posvInterleaved(r: PosvRequest<FloatArray, Int32Array>, first: MatrixView<FloatArray>, p0: number, count: number): boolean {
  return potrfInterleaved(r, first, p0, count, undefined, r.b);
}
