/**
 * potrf on the interleaved layout (kernels/potrf-interleaved.ts) for a strided run of matrices:
 * chunks of the batch copied byte for byte into the wasm memory, factored two matrices per f64x2
 * vector (the kernel gathers each pair's elements itself), copied back. Bitwise the reference's
 * results and infos. Where tuning.ts enables it, see there.
 */
import type { MatrixView } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import type { PotrfRequest } from '../../core/ops.js';
import { moduleFactory } from '../jit/compile.js';
import { generatePotrfInterleavedStrided, type PotrfInterleavedStridedParams } from '../kernels/potrf-interleaved.js';
import { INTERLEAVED_CHUNK_BYTES } from '../tuning.js';
import { heap, heapInts, instantiate } from '../wasm/runtime.js';

type WasmPotrf = (a: number, strideBytes: number, info: number, pairs: number) => void;
const kernel = moduleFactory<PotrfInterleavedStridedParams, WasmPotrf>(generatePotrfInterleavedStrided, 'potrf', instantiate);

/**
 * Factors `count` matrices of r.a's strided batch from matrix p0 (first is matrix p0), or returns
 * false where the layout does not suit: the chunks are copied back whole, gaps and the other
 * triangle included (unchanged bytes), so matrices must not overlap (stride at least the
 * footprint: two threads' chunks stay disjoint) nor lie far apart (the gaps are copied too).
 */
export function potrfInterleaved(r: PotrfRequest<FloatArray, Int32Array>, first: MatrixView<FloatArray>, p0: number, count: number): boolean {
  if (r.a.kind !== 'strided') return false;
  const n = first.rows;
  const { ld, stride } = r.a;
  const footprint = (n - 1) * ld + n;
  if (stride < footprint || stride > 2 * footprint + 16) return false;
  const f32 = first.data instanceof Float32Array;
  const es = f32 ? 4 : 8;
  const per = Math.max(2, Math.floor(INTERLEAVED_CHUNK_BYTES / (stride * es)) & ~1);
  const regionBytes = ((per - 1) * stride + footprint) * es;
  const infoBase = (regionBytes + 15) & ~15;
  const views = heap(infoBase + (per + 2) * 4);
  const view = f32 ? views.f32 : views.f64;
  const ints = heapInts();
  const fn = kernel({ n, uplo: r.uplo, dtype: f32 ? 'float32' : 'float64', ld });
  const data = first.data;
  for (let q = 0; q < count; q += per) {
    const c = Math.min(per, count - q);
    const start = first.offset + q * stride;
    const len = (c - 1) * stride + footprint;
    view.set(data.subarray(start, start + len));
    if (c >= 2) fn(0, stride * es, infoBase, c >> 1);
    if (c & 1) fn((c - 1) * stride * es, 0, infoBase + (c - 1) * 4, 1);
    data.set(view.subarray(0, len), start);
    for (let t = 0; t < c; t++) r.info[p0 + q + t] = ints[infoBase / 4 + t]!;
  }
  return true;
}
