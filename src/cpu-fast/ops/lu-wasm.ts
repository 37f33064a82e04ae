/**
 * getrf above the unrolled sizes: chunks of matrices packed as float64 into the WebAssembly
 * memory, factored by the generated kernel (kernels/getrf-wasm.ts), unpacked with their pivots
 * and infos. Bitwise the reference's results (same float64 operations, same order).
 */
import type { MatrixView } from '../../core/batch.js';
import type { DType, FloatArray } from '../../core/dtype.js';
import type { GetrfRequest } from '../../core/ops.js';
import { compileKernel } from '../jit/compile.js';
import { generateGetrfWasm, ldOf } from '../kernels/getrf-wasm.js';
import { generatePack, type PackKernel } from '../kernels/pack.js';
import { GEMM_WASM_CHUNK_BYTES } from '../tuning.js';
import { heap, heapInts, instantiate } from '../wasm/runtime.js';
import { stridedView } from './cholesky.js';

type WasmGetrf = (a: number, ipiv: number, info: number, count: number) => void;
const kernels = new Map<string, WasmGetrf>();

function kernel(m: number, n: number): WasmGetrf {
  const name = `${m}/${n}`;
  let k = kernels.get(name);
  if (!k) kernels.set(name, (k = instantiate(generateGetrfWasm({ m, n })).getrf as WasmGetrf));
  return k;
}

const pack = (dtype: DType, direction: 'in' | 'out'): PackKernel =>
  compileKernel<PackKernel>(generatePack({ dtype, trans: 'N', direction, packed: 'float64' }));

/** Factors `count` matrices from matrix p0 (shape of `first`), writing A, ipiv and info as the reference does. */
export function getrfWasm(r: GetrfRequest<FloatArray, Int32Array>, first: MatrixView<FloatArray>, p0: number, count: number): void {
  const { rows: m, cols: n } = first;
  const dtype: DType = first.data instanceof Float32Array ? 'float32' : 'float64';
  const ld = ldOf(m);
  const steps = Math.min(m, n);
  const per = ld * n * 8 + steps * 4 + 4;
  const chunk = Math.max(1, Math.min(count, Math.floor(GEMM_WASM_CHUNK_BYTES / per)));
  const aBytes = chunk * ld * n * 8;
  const pivBase = aBytes, infoBase = pivBase + chunk * steps * 4;
  const { f64 } = heap(infoBase + chunk * 4 + 16);
  const ints = heapInts();
  const fn = kernel(m, n);
  const packIn = pack(dtype, 'in'), packOut = pack(dtype, 'out');
  for (let q = p0; q < p0 + count; q += chunk) {
    const c = Math.min(chunk, p0 + count - q);
    const A = stridedView(r.a, q);
    packIn(A.data, A.offset, A.ld, A.stride, f64, 0, ld, ld * n, m, n, c);
    fn(0, pivBase, infoBase, c);
    packOut(f64, 0, ld, ld * n, A.data, A.offset, A.ld, A.stride, m, n, c);
    for (let t = 0; t < c; t++) {
      const pv = (q + t) * r.pivotStride;
      const src = pivBase / 4 + t * steps;
      for (let j = 0; j < steps; j++) r.ipiv[pv + j] = ints[src + j]!;
      r.info[q + t] = ints[infoBase / 4 + t]!;
    }
  }
}
