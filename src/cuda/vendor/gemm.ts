/**
 * gemm on cuBLAS: one product with cublas?gemm, a strided batch with cublas?gemmStridedBatched
 * (ld, stride and offset passed through: the layout needs no conversion), list and variable
 * batches with cublas?gemmBatched over arrays of matrix addresses, one call per shape. cuBLAS
 * reads no C where beta = 0, as the API promises, and writes each C's m x n block alone.
 * alpha = 0 and k = 0 stay with the own routes (BLAS then reads neither A nor B; cuBLAS does not
 * promise that).
 */
import { batchCount, matrixAt, uniformShape, type Batch } from '../../core/batch.js';
import { MyriadError } from '../../core/errors.js';
import type { ComplexGemmRequest, Requests } from '../../core/op-specs.js';
import { complexInfo, complexOf, storageInfo } from '../../core/dtype-table.js';
import { Workspace } from '../runtime/workspace.js';
import type { DeviceArray, GpuDevice } from '../runtime/types.js';
import { classifyTallSkinny, tsm2Serves } from '../kernels/tsm2/index.js';
import type { VendorQuery } from '../model/tuning/vendor-tables.js';
import { launchGroups, matrixAddress } from './groups.js';
import { vendorBlas } from './native.js';
import { deviceDtype, fitsInt32, vendorCard, vendorServes } from './rules.js';

type GemmRequest = Requests<DeviceArray, DeviceArray>['gemm'];

/** m, n, k of a batch of one shape, or undefined. */
function gemmShape(r: GemmRequest): { m: number; n: number; k: number } | undefined {
  const c = uniformShape(r.c), a = uniformShape(r.a);
  if (c === undefined || a === undefined) return undefined;
  return { m: c.rows, n: c.cols, k: r.transA === 'N' ? a.cols : a.rows };
}

/** The table's size of a product: the cube root of m n k (n for a square one). */
export const gemmSize = (m: number, n: number, k: number): number => Math.round(Math.cbrt(m * n * k));

/**
 * What the cuBLAS candidate asks the card's table about `r`, or undefined where it asks nothing: a
 * product the tsm2 route takes (one matrix of a tall-and-skinny shape) by the rules of op 'tsm2r'
 * on C's columns where it is of the TSM2R shape, and nothing where it is of the TSM2L shape (no
 * rule: TSM2L measured ahead of cuBLAS from 100,000 rows); every other product by the rules of op
 * 'gemm' on the cube root of m n k.
 */
export function gemmVendorQuery(r: GemmRequest, dev: GpuDevice): VendorQuery | undefined {
  const count = batchCount(r.c);
  const s = gemmShape(r);
  if (count === 0 || s === undefined || s.m === 0 || s.n === 0 || s.k === 0 || r.alpha === 0) return undefined;
  const dtype = deviceDtype(r.c);
  const kind = count === 1 ? classifyTallSkinny(s.m, s.n, s.k, dev.info.arch) : undefined;
  if (kind !== undefined && tsm2Serves(dev, r)) {
    return kind === 'tsm2r' ? { op: 'tsm2r', route: 'cublas', dtype, n: s.n, count } : undefined;
  }
  return { op: 'gemm', route: 'cublas', dtype, n: gemmSize(s.m, s.n, s.k), count, betaZero: r.beta === 0 };
}

/** Whether the card's table sends `r` to cuBLAS (`gemmVendorQuery`), where its sizes fit cuBLAS's ints. */
export function cublasGemmCovers(r: GemmRequest, dev: GpuDevice): boolean {
  if (!vendorCard(dev)) return false;
  const q = gemmVendorQuery(r, dev);
  return q !== undefined && vendorServes(dev, q, 'cublas') && [r.a, r.b, r.c].every(fitsInt32);
}

export function cublasGemm(dev: GpuDevice, r: GemmRequest): void {
  const count = batchCount(r.c);
  if (count === 0) return;
  if (r.alpha === 0) throw new MyriadError('UNSUPPORTED', 'the cublas route takes alpha != 0 (with alpha = 0 BLAS reads neither A nor B; the own routes keep that)', 'force');
  const blas = vendorBlas(dev);
  if (blas === undefined) return;
  const dtype = deviceDtype(r.c);
  const { transA, transB, alpha, beta } = r;
  if (r.a.kind === 'strided' && r.b.kind === 'strided' && r.c.kind === 'strided') {
    const { a, b, c } = { a: r.a, b: r.b, c: r.c };
    const m = c.rows, n = c.cols, k = transA === 'N' ? a.cols : a.rows;
    if (m === 0 || n === 0) return;
    if (k === 0) throw new MyriadError('UNSUPPORTED', 'the cublas route takes k > 0 (the own routes scale C by beta)', 'force');
    for (const i of [0, count - 1]) { matrixAddress(a, i, 'a'); matrixAddress(b, i, 'b'); matrixAddress(c, i, 'c'); }
    const at = (x: typeof a): bigint => x.data.ptr + BigInt(x.offset * storageInfo(dtype).bytes);
    if (count === 1) blas.gemmAt(dtype, transA, transB, m, n, k, alpha, at(a), a.ld, at(b), b.ld, beta, at(c), c.ld);
    else blas.gemmStridedAt(dtype, transA, transB, m, n, k, alpha, at(a), a.ld, a.stride, at(b), b.ld, b.stride, beta, at(c), c.ld, c.stride, count);
    return;
  }
  const frame = Workspace.of(dev).frame();
  try {
    const groups = launchGroups(dev, frame, [r.a, r.b, r.c], ['a', 'b', 'c']);
    for (const g of groups) {
      const [sa, , sc] = g.shapes;
      if (sc!.rows > 0 && sc!.cols > 0 && (transA === 'N' ? sa!.cols : sa!.rows) === 0)
        throw new MyriadError('UNSUPPORTED', 'the cublas route takes k > 0 (the own routes scale C by beta)', 'force');
    }
    for (const g of groups) {
      const [sa, sb, sc] = g.shapes;
      const m = sc!.rows, n = sc!.cols, k = transA === 'N' ? sa!.cols : sa!.rows;
      if (m === 0 || n === 0) continue;
      const [pa, pb, pc] = g.operands;
      blas.gemmPointersAt(dtype, transA, transB, m, n, k, alpha, pa!.pointer, sa!.ld, pb!.pointer, sb!.ld, beta, pc!.pointer, sc!.ld, g.members.length);
    }
  } finally {
    frame.end();
  }
}

type ComplexGemm = ComplexGemmRequest<DeviceArray>;

/** m, n, k of a complex request of one shape (strided or list batches), or undefined. */
function complexShape(r: ComplexGemm): { m: number; n: number; k: number } | undefined {
  if (r.a.kind === 'variable' || r.b.kind === 'variable' || r.c.kind === 'variable') return undefined;
  return { m: r.c.rows, n: r.c.cols, k: r.transA === 'N' ? r.a.cols : r.a.rows };
}

/**
 * Complex gemm on cuBLAS (cublas{Z,C}gemm, StridedBatched, Batched): strided and list batches
 * where the library loads, alpha != 0 and k > 0 (as the real route), inside a rule of the card's
 * crossover table for the complex type (the size the cube root of m n k, as for real gemm); it
 * runs elsewhere only where forced (`force: { gemm: 'cublas' }`).
 */
export function cublasComplexGemmCovers(r: ComplexGemm, dev: GpuDevice): boolean {
  if (!vendorCard(dev)) return false;
  const s = complexShape(r);
  const count = batchCount(r.c);
  if (s === undefined || count === 0 || s.m === 0 || s.n === 0 || s.k === 0) return false;
  if (r.alpha[0] === 0 && r.alpha[1] === 0) return false;
  const dtype = complexOf(deviceDtype(r.c));
  return vendorServes(dev, { op: 'gemm', route: 'cublas', dtype, n: gemmSize(s.m, s.n, s.k), count }, 'cublas') && [r.a, r.b, r.c].every(fitsInt32);
}

export function cublasComplexGemm(dev: GpuDevice, r: ComplexGemm): void {
  const count = batchCount(r.c);
  const s = complexShape(r);
  if (count === 0 || s === undefined || s.m === 0 || s.n === 0) return;
  if (s.k === 0 || (r.alpha[0] === 0 && r.alpha[1] === 0))
    throw new MyriadError('UNSUPPORTED', 'the cublas route takes alpha != 0 and k > 0 (the own routes scale C by beta)', 'force');
  const blas = vendorBlas(dev);
  if (blas === undefined) return;
  const dtype = deviceDtype(r.c);
  const bytes = complexInfo(complexOf(dtype)).bytes;
  // Matrix i's first pair, checked against its buffer (which holds two parts a pair).
  const address = (b: Batch<DeviceArray>, i: number, argument: string): bigint => {
    const m = matrixAt(b, i);
    const end = m.rows === 0 || m.cols === 0 ? m.offset : m.offset + m.ld * (m.cols - 1) + m.rows;
    if (2 * end > m.data.length || m.ld < Math.max(1, m.rows))
      throw new MyriadError('BOUNDS', `matrix ${i} (${m.rows} x ${m.cols}, ld ${m.ld}, offset ${m.offset}) does not fit its ${m.data.length / 2} pairs`, argument);
    return m.data.ptr + BigInt(m.offset * bytes);
  };
  const { m, n, k } = s;
  const { transA, transB, alpha, beta } = r;
  if (r.a.kind === 'strided' && r.b.kind === 'strided' && r.c.kind === 'strided') {
    const [a, b, c] = [r.a, r.b, r.c];
    // The last matrices must fit too (cuBLAS reads and writes count of them, stride apart).
    address(a, count - 1, 'a'); address(b, count - 1, 'b'); address(c, count - 1, 'c');
    blas.complexGemmAt(count === 1 ? 'one' : 'strided', dtype, transA, transB, m, n, k, alpha, address(a, 0, 'a'), a.ld, a.stride,
      address(b, 0, 'b'), b.ld, b.stride, beta, address(c, 0, 'c'), c.ld, c.stride, count);
    return;
  }
  const frame = Workspace.of(dev).frame();
  try {
    const table = (b: Batch<DeviceArray>, argument: string): bigint => {
      const pointers = frame.take('int64', count, `${argument} matrix pointers`);
      dev.upload(BigInt64Array.from({ length: count }, (_, i) => address(b, i, argument)), pointers);
      return pointers.ptr;
    };
    const lds = [r.a, r.b, r.c].map((b) => matrixAt(b, 0).ld);
    blas.complexGemmAt('pointers', dtype, transA, transB, m, n, k, alpha, table(r.a, 'a'), lds[0]!, 0, table(r.b, 'b'), lds[1]!, 0,
      beta, table(r.c, 'c'), lds[2]!, 0, count);
  } finally {
    frame.end();
  }
}
