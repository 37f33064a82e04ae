/**
 * The small kernels around the vendor's dense single-matrix SVD (cusolverDn?gesvd, vendor/gesvd.ts),
 * in the style of kernels.ts (pure generators, then their launchers; matrices addressed by their
 * place q in a launch chunk, `index[q]` (or q) their place in the batch):
 *
 * - dense_pack: a general rows x cols matrix of a batch operand into a dense scratch matrix, as it is
 *   (ld rows) or transposed (cols x rows, ld cols: the m < n case, solved as A^T); a NaN or an
 *   infinity is written as 0 and flags the matrix (the vendor then solves finite data, and the
 *   unpack reports it as the own routes do).
 * - dense_unpack: a dense scratch matrix (leading dimension `ld`, `srcStride` elements apart) into a
 *   batch operand of rows x cols, as it is or transposed (out(i, j) = src(j, i)), NaN throughout a
 *   flagged matrix.
 * - gesvd_values: the singular values (k per matrix, descending as the vendor returns them) into s,
 *   NaN for a flagged matrix; info 0, k + 1 (the vendor's devInfo > 0: superdiagonals that did not
 *   converge) or k + 2 (NaN or Inf in A).
 *
 * The transposed copies read (pack) or write (unpack) one operand across its leading dimension:
 * uncoalesced, but O(m n) traffic beside the O(m n min(m, n)) of the SVD they serve.
 */
import type { DType } from '../../core/dtype.js';
import { dtypeInfo } from '../../core/dtype-table.js';
import { kindTag, matrixPointer, operandParameters, type OperandKind } from '../kernels/common/batch-pointer.js';
import { cachedKernel } from '../kernels/common/kernel-cache.js';
import { precisionLetter } from '../kernels/common/precision.js';
import { arg, type DeviceArray, type GpuDevice, type KernelSource } from '../runtime/types.js';
import { BLOCK, blockShape, head, operand, ptrOrNull, type GroupOperand } from './kernels.js';

const tTag = (transpose: boolean): string => (transpose ? 't' : 'n');
const densePackEntry = (dtype: DType, kind: OperandKind, transpose: boolean): string =>
  `vendor_dense_pack_${precisionLetter(dtype)}_${tTag(transpose)}_${kindTag(kind)}`;
const denseUnpackEntry = (dtype: DType, kind: OperandKind, transpose: boolean): string =>
  `vendor_dense_unpack_${precisionLetter(dtype)}_${tTag(transpose)}_${kindTag(kind)}`;
const gesvdValuesEntry = (dtype: DType, kind: OperandKind): string => `vendor_gesvd_values_${precisionLetter(dtype)}_${kindTag(kind)}`;

export function densePackSource(dtype: DType, kind: OperandKind, transpose: boolean): KernelSource {
  const entry = densePackEntry(dtype, kind, transpose);
  const source = `${head(dtype)}
extern "C" __global__ void ${entry}(${operandParameters('A', kind, false)}, int rows, int cols, real* __restrict__ dst, int* __restrict__ flags,
    int count, int parts) {
${BLOCK}  const real* a = ${matrixPointer('A', kind, 'q')};
  real* d = dst + (long long)q * rows * cols;
  for (int j = part; j < cols; j += parts) {
    for (int i = threadIdx.x; i < rows; i += blockDim.x) {
      real v = a[i + (long long)j * ldA];
      if (!(v >= -MAXR && v <= MAXR)) { flags[q] = 1; v = 0; }
      d[${transpose ? 'j + (long long)i * cols' : 'i + (long long)j * rows'}] = v;
    }
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}

export function denseUnpackSource(dtype: DType, kind: OperandKind, transpose: boolean): KernelSource {
  const entry = denseUnpackEntry(dtype, kind, transpose);
  const source = `${head(dtype)}
extern "C" __global__ void ${entry}(${operandParameters('A', kind, true)}, int rows, int cols, const real* __restrict__ src, int ld,
    long long srcStride, const int* __restrict__ flags, int count, int parts) {
${BLOCK}  const bool failed = flags[q] != 0;
  const real nan = ${dtypeInfo(dtype).cuda.nan};
  real* a = ${matrixPointer('A', kind, 'q')};
  const real* s = src + (long long)q * srcStride;
  for (int j = part; j < cols; j += parts) {
    for (int i = threadIdx.x; i < rows; i += blockDim.x) {
      a[i + (long long)j * ldA] = failed ? nan : s[${transpose ? 'j + (long long)i * ld' : 'i + (long long)j * ld'}];
    }
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}

export function gesvdValuesSource(dtype: DType, kind: OperandKind): KernelSource {
  const entry = gesvdValuesEntry(dtype, kind);
  const source = `${head(dtype)}
extern "C" __global__ void ${entry}(${operandParameters('S', kind, true)}, const real* __restrict__ src, const int* __restrict__ flags,
    const int* __restrict__ vendor, int* __restrict__ info, const int* __restrict__ index, int k, int count) {
  const int q = blockIdx.x;
  if (q >= count) return;
  const bool failed = flags[q] != 0;
  const real nan = ${dtypeInfo(dtype).cuda.nan};
  real* s = ${matrixPointer('S', kind, 'q')};
  for (int i = threadIdx.x; i < k; i += blockDim.x) s[i] = failed ? nan : src[(long long)q * k + i];
  if (threadIdx.x == 0) {
    const int v = vendor[q];
    info[index ? index[q] : q] = failed ? k + 2 : v > 0 ? k + 1 : v;
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}

/** The grid of a rows x cols per-matrix kernel: columns over `parts` blocks a matrix, rows over the threads. */
function rowsColsShape(rows: number, cols: number, count: number): { grid: [number, number, number]; block: [number, number, number]; parts: number } {
  const parts = blockShape(cols).parts, threads = blockShape(rows).threads;
  return { grid: [count * parts, 1, 1], block: [threads, 1, 1], parts };
}

/** Packs `count` rows x cols matrices of `a` into `dst` (dense, transposed where `transpose`), flagging NaN and Inf in `flags`. */
export function launchDensePack(dev: GpuDevice, dtype: DType, a: GroupOperand, rows: number, cols: number, transpose: boolean,
  dst: DeviceArray, flags: DeviceArray, count: number): void {
  if (count === 0 || rows === 0 || cols === 0) return;
  const shape = rowsColsShape(rows, cols, count);
  cachedKernel(dev, densePackEntry(dtype, a.kind, transpose), () => densePackSource(dtype, a.kind, transpose)).launch({ grid: shape.grid, block: shape.block },
    [...operand(a), arg.i32(rows), arg.i32(cols), arg.ptr(dst), arg.ptr(flags), arg.i32(count), arg.i32(shape.parts)]);
}

/** Writes `count` rows x cols matrices of `x` from `src` (leading dimension `ld`, `srcStride` apart; read transposed where `transpose`). */
export function launchDenseUnpack(dev: GpuDevice, dtype: DType, x: GroupOperand, rows: number, cols: number, transpose: boolean,
  src: DeviceArray, ld: number, srcStride: number, flags: DeviceArray, count: number): void {
  if (count === 0 || rows === 0 || cols === 0) return;
  const shape = rowsColsShape(rows, cols, count);
  cachedKernel(dev, denseUnpackEntry(dtype, x.kind, transpose), () => denseUnpackSource(dtype, x.kind, transpose)).launch({ grid: shape.grid, block: shape.block },
    [...operand(x), arg.i32(rows), arg.i32(cols), arg.ptr(src), arg.i32(ld), arg.i64(srcStride), arg.ptr(flags), arg.i32(count), arg.i32(shape.parts)]);
}

/** The singular values (k per matrix, packed in `src`) into `s`, and info at the batch places. */
export function launchGesvdValues(dev: GpuDevice, dtype: DType, s: GroupOperand, src: DeviceArray, flags: DeviceArray, vendor: DeviceArray,
  info: DeviceArray, index: DeviceArray | null, k: number, count: number): void {
  if (count === 0) return;
  cachedKernel(dev, gesvdValuesEntry(dtype, s.kind), () => gesvdValuesSource(dtype, s.kind)).launch({ grid: [count, 1, 1], block: [blockShape(k).threads, 1, 1] },
    [...operand(s), arg.ptr(src), arg.ptr(flags), arg.ptr(vendor), arg.ptr(info), ptrOrNull(index), arg.i32(k), arg.i32(count)]);
}
