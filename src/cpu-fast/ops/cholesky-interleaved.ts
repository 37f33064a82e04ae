/**
 * potrf on the interleaved layout (kernels/potrf-interleaved.ts) for a strided run of matrices:
 * chunks of pairs transposed into the wasm memory, factored two per vector, transposed back.
 * Bitwise the reference's results and infos. Where tuning.ts enables it, see there.
 */
import type { MatrixView } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import type { PotrfRequest } from '../../core/ops.js';
import { kernelFactory, moduleFactory } from '../jit/compile.js';
import {
  LANES, generateInterleave, generatePotrfInterleaved, triangleSize,
  type InterleaveKernel, type InterleaveParams, type PotrfInterleavedParams,
} from '../kernels/potrf-interleaved.js';
import { INTERLEAVED_CHUNK_BYTES } from '../tuning.js';
import { heap, heapInts, instantiate } from '../wasm/runtime.js';
import { stridedView } from './run-batch.js';

type WasmPotrf = (a: number, info: number, pairs: number) => void;
const kernel = moduleFactory<PotrfInterleavedParams, WasmPotrf>(generatePotrfInterleaved, 'potrf', instantiate);
const interleave = kernelFactory<InterleaveParams, InterleaveKernel>(generateInterleave);

/** Factors `count` matrices of r.a's strided batch from matrix p0 (first is matrix p0). */
export function potrfInterleaved(r: PotrfRequest<FloatArray, Int32Array>, first: MatrixView<FloatArray>, p0: number, count: number): void {
  const n = first.rows;
  const dtype = first.data instanceof Float32Array ? 'float32' : 'float64';
  const T = triangleSize(n);
  const pairBytes = T * 16 + 16;
  const pairs = Math.max(1, Math.min(Math.ceil(count / LANES), Math.floor(INTERLEAVED_CHUNK_BYTES / pairBytes)));
  const infoBase = pairs * T * 16;
  const { f64 } = heap(infoBase + pairs * 16);
  const ints = heapInts();
  const fn = kernel({ n, uplo: r.uplo });
  const pack = interleave({ n, uplo: r.uplo, dtype, direction: 'in' });
  const unpack = interleave({ n, uplo: r.uplo, dtype, direction: 'out' });
  const A = stridedView(r.a, p0);
  for (let q = 0; q < count; q += pairs * LANES) {
    const c = Math.min(pairs * LANES, count - q);
    const off = A.offset + q * A.stride;
    pack(A.data, off, A.ld, A.stride, f64, 0, ints, 0, c);
    fn(0, infoBase, Math.ceil(c / LANES));
    unpack(A.data, off, A.ld, A.stride, f64, 0, ints, infoBase / 4, c);
    for (let t = 0; t < c; t++) r.info[p0 + q + t] = ints[infoBase / 4 + 2 * t]!;
  }
}
