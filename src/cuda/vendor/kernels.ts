/**
 * The small kernels around the vendor calls, which carry this API's semantics over what the vendor
 * returns (pure generators, then their launchers). Matrices are addressed by their place q in a
 * launch group (vendor/groups.ts); `index[q]` (or q where index is null) is the matrix's place in
 * the batch, for info and pivots.
 *
 * - potrf_scan: per matrix, the first row (lower; column for upper) of the referenced triangle
 *   holding a value at which the CPU reference stops: NaN, an infinity off the diagonal, or -Inf on
 *   it (atomicMin over the matrix; the scratch starts at SENTINEL). Run before the vendor's potrf.
 *   Complex (zpotrf_scan): NaN or an infinity in either part off the diagonal, NaN or -Inf in the
 *   real part on it; the diagonal's imaginary parts are zeroed (ScanElement).
 * - potrf_info: info = the vendor's, or r + 1 where that row r comes first (the minor of order r + 1
 *   is where the reference fails), so NaN and Inf report as the own routes report them, whatever
 *   the vendor does with them.
 * - getrf_scatter: the vendor's 1-based pivots, minus one, and its info, to the batch's places.
 * - getrf_keep, tiny_diagonal, getrf_restore: around the vendor's LU, which multiplies by the
 *   reciprocal of each pivot however small it is (cusolverDnSgetrf on an H200: a pivot of 2^-140
 *   in float32 gave U = -Inf and NaN after it, where sgetf2 divides below the smallest normal
 *   number): each matrix is kept (packed densely into scratch) before the call; after it, a
 *   matrix is flagged where a stored pivot U(j, j) is nonzero and below the smallest normal
 *   number; the flagged ones are written back as they were, for the own route to factor.
 * - tiny_diagonal before the vendor's complex trsm too, which multiplies by the reciprocal of the
 *   triangle's diagonal: the flagged matrices are solved on the own route.
 * - syev_pack: the referenced triangle mirrored into a dense scratch matrix (what
 *   cusolverDnXsyevBatched takes); a NaN or Inf is written as 0 and flags the matrix.
 * - syev_unpack: eigenvectors (jobz 'vectors') and eigenvalues back to the batch's layout, NaN for a
 *   flagged matrix; info 0, n + 1 (the vendor did not converge) or n + 2 (NaN or Inf in A). Each
 *   eigenvalue (and its vector) lands at its rank: the vendor's tied values can be out of order.
 * - heev_pack, heev_unpack: the same for complex Hermitian matrices (pairs; the other triangle
 *   conjugated, the diagonal's imaginary parts zero; w real).
 * - getrs_pivots: the API's 0-based pivots (`ipiv[b * pivotStride + j]`) as LAPACK's 1-based ones,
 *   n per matrix packed in group order (what cublas?getrsBatched reads). A pivot outside [0, n)
 *   (not getrf's output) is read as no interchange, so the vendor never addresses a row outside
 *   the matrix.
 * - strided_pointers: the addresses of a strided batch's matrices (the pointer arrays the batched
 *   vendor routines take).
 * - solve_mask: the B pointer of every matrix whose info is not 0 replaced by a scratch matrix's,
 *   so that gesv leaves B as it was where the factorisation failed (LAPACK's gesv).
 */
import type { DType } from '../../core/dtype.js';
import { cudaMath, dtypeInfo } from '../../core/dtype-table.js';
import type { Uplo } from '../../core/enums.js';
import { kindTag, matrixPointer, operandParameters, type OperandKind } from '../kernels/common/batch-pointer.js';
import { cachedKernel } from '../kernels/common/kernel-cache.js';
import { cType, precisionLetter } from '../kernels/common/precision.js';
import { arg, type DeviceArray, type GpuDevice, type KernelArg, type KernelSource } from '../runtime/types.js';

/** The potrf scan's "no such row" (0x7f in every byte: what a byte fill writes). */
export const SCAN_SENTINEL = 0x7f7f7f7f;
/** The byte that fills the scan's scratch with SCAN_SENTINEL. */
export const SCAN_FILL = 0x7f;

/** The block decomposition of the per-matrix kernels: `parts` blocks per matrix, columns strided over them. */
export function blockShape(n: number): { readonly parts: number; readonly threads: number } {
  return { parts: Math.max(1, Math.min(1024, Math.ceil(n / 8))), threads: Math.min(256, Math.max(32, Math.ceil(n / 32) * 32)) };
}

/** The kernels' prelude: `real` and its largest finite magnitude MAXR. */
export const head = (dtype: DType): string => `typedef ${cType(dtype)} real;\n#define MAXR (${dtypeInfo(dtype).cuda.max})\n`;
/** The complex kernels' element: a pair (x = re, y = im) of the parts' type. */
const pairType = (dtype: DType): string => `struct __align__(${2 * dtypeInfo(dtype).bytes}) real2 { real x, y; };\n`;
/** The matrix q and part of a per-matrix block (the grid is count x parts blocks). */
export const BLOCK = `  const long long block = blockIdx.x;
  const int q = (int)(block / parts);
  const int part = (int)(block - (long long)q * parts);
  if (q >= count) return;
`;

/**
 * The scan's element: 'real', or 'complex' (`real2`, a pair (x = re, y = im) of the parts' type;
 * offsets, strides and ld in pairs). A complex diagonal is read by its real part alone (the
 * reference's zpotf2 ignores the imaginary parts there, and so stops at NaN or -Inf in the real
 * part only), and its imaginary part is set to zero (what the reference writes there), so the
 * vendor factors the same Hermitian matrix whatever was stored; off the diagonal a NaN or an
 * infinity in either part stops the reference.
 */
export type ScanElement = 'real' | 'complex';

/** The scan kernel's entry name (its cache key: the source is generated only on a miss). */
const potrfScanEntry = (dtype: DType, uplo: Uplo, kind: OperandKind, element: ScanElement): string =>
  `vendor_${element === 'complex' ? 'z' : ''}potrf_scan_${precisionLetter(dtype)}_${uplo === 'lower' ? 'l' : 'u'}_${kindTag(kind)}`;

export function potrfScanSource(dtype: DType, uplo: Uplo, kind: OperandKind, element: ScanElement = 'real'): KernelSource {
  const lower = uplo === 'lower';
  const complex = element === 'complex';
  const entry = potrfScanEntry(dtype, uplo, kind, element);
  // Whether element (i, j), read as v, stops the reference (finiteReal: neither NaN nor an infinity).
  const test = complex
    ? `      const real2 v = a[i + (long long)j * ldA];
      bool stops;
      if (i == j) { stops = !finiteReal(v.x) && !(v.x > MAXR); a[i + (long long)j * ldA].y = 0; }
      else stops = !finiteReal(v.x) || !finiteReal(v.y);`
    : `      const real v = a[i + (long long)j * ldA];
      const bool stops = !finiteReal(v) && !(i == j && v > MAXR);`;
  const source = `${head(dtype)}${complex ? pairType(dtype) : ''}
static __device__ __forceinline__ bool finiteReal(real v) { return v >= -MAXR && v <= MAXR; }
extern "C" __global__ void ${entry}(${operandParameters('A', kind, complex, complex ? 'real2' : 'real')}, int n, int* __restrict__ first, int count, int parts) {
${BLOCK}  ${complex ? '' : 'const '}${complex ? 'real2' : 'real'}* a = ${matrixPointer('A', kind, 'q')};
  int best = ${SCAN_SENTINEL};
  for (int j = part; j < n; j += parts) {
    for (int i = ${lower ? 'j + ' : ''}threadIdx.x; i < ${lower ? 'n' : 'j + 1'}; i += blockDim.x) {
${test}
      if (stops) best = min(best, ${lower ? 'i' : 'j'});
    }
  }
  for (int o = 16; o > 0; o >>= 1) best = min(best, __shfl_down_sync(0xffffffffu, best, o));
  if ((threadIdx.x & 31) == 0 && best != ${SCAN_SENTINEL}) atomicMin(first + q, best);
}
`;
  return { name: `${entry}.cu`, source, entry };
}

export function potrfInfoSource(): KernelSource {
  const entry = 'vendor_potrf_info';
  const source = `extern "C" __global__ void ${entry}(int* __restrict__ info, const int* __restrict__ index, const int* __restrict__ vendor,
    const int* __restrict__ first, int count) {
  const long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= count) return;
  int v = vendor[q];
  const int r = first[q];
  if (r != ${SCAN_SENTINEL} && !(v > 0 && v <= r)) v = r + 1;
  info[index ? index[q] : q] = v;
}
`;
  return { name: `${entry}.cu`, source, entry };
}

export function getrfScatterSource(): KernelSource {
  const entry = 'vendor_getrf_scatter';
  const source = `extern "C" __global__ void ${entry}(int* __restrict__ ipiv, int* __restrict__ info, const int* __restrict__ index,
    const int* __restrict__ pivots, const int* __restrict__ vendor, int count, int k, long long pivotStride) {
  const int per = k > 0 ? k : 1;
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (long long)count * per) return;
  const int q = (int)(t / per);
  const int j = (int)(t - (long long)q * per);
  const long long b = index ? index[q] : q;
  if (j < k) ipiv[b * pivotStride + j] = pivots[(long long)q * k + j] - 1;
  if (j == 0) info[b] = vendor[q];
}
`;
  return { name: `${entry}.cu`, source, entry };
}

const getrfKeepEntry = (dtype: DType, kind: OperandKind, restore: boolean): string =>
  `vendor_getrf_${restore ? 'restore' : 'keep'}_${precisionLetter(dtype)}_${kindTag(kind)}`;

/** getrf_keep (A into the dense `kept`, rows x cols a matrix) or getrf_restore (the flagged matrices' `kept` back into A). */
export function getrfKeepSource(dtype: DType, kind: OperandKind, restore: boolean): KernelSource {
  const entry = getrfKeepEntry(dtype, kind, restore);
  const source = `${head(dtype)}
extern "C" __global__ void ${entry}(${operandParameters('A', kind, restore)}, int rows, int cols, ${restore ? 'const ' : ''}real* __restrict__ kept,
    const int* __restrict__ flags, int count, int parts) {
${BLOCK}  ${restore ? 'if (flags[q] == 0) return;\n  ' : '(void)flags;\n  '}${restore ? '' : 'const '}real* a = ${matrixPointer('A', kind, 'q')};
  ${restore ? 'const ' : ''}real* k = kept + (long long)q * rows * cols;
  for (int j = part; j < cols; j += parts) {
    for (int i = threadIdx.x; i < rows; i += blockDim.x) ${restore ? 'a[i + (long long)j * ldA] = k[i + (long long)j * rows]' : 'k[i + (long long)j * rows] = a[i + (long long)j * ldA]'};
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}

const tinyDiagonalEntry = (dtype: DType, kind: OperandKind, element: ScanElement): string =>
  `vendor_${element === 'complex' ? 'z' : ''}tiny_diagonal_${precisionLetter(dtype)}_${kindTag(kind)}`;

/**
 * tiny_diagonal: flags[q] = 1 where one of the first k diagonal entries of matrix q is nonzero and
 * below the smallest normal number in magnitude (complex: the modulus, by hypot; NaN is not), where
 * the own solves divide rather than multiply by the reciprocal (kernels/common/diagonal-scale.ts);
 * complex also where |re| + |im| overflows (cuBLAS's z/ctrsmBatched gave X = NaN at (2^1023, 2^1023)
 * on an H200, where Smith's division, the own routes', is finite).
 */
export function tinyDiagonalSource(dtype: DType, kind: OperandKind, element: ScanElement = 'real'): KernelSource {
  const complex = element === 'complex';
  const entry = tinyDiagonalEntry(dtype, kind, element);
  const type = complex ? 'real2' : 'real';
  const tiny = complex
    ? `((u.x != 0 || u.y != 0) && ${cudaMath(dtype, 'hypot')}(u.x, u.y) < SAFMIN) || fabs(u.x) + fabs(u.y) > MAXR`
    : 'u != 0 && fabs(u) < SAFMIN';
  const source = `${head(dtype)}${complex ? pairType(dtype) : ''}#define SAFMIN (${dtypeInfo(dtype).cuda.safeMin})
extern "C" __global__ void ${entry}(${operandParameters('A', kind, false, type)}, int k, int* __restrict__ flags, int count, int parts) {
${BLOCK}  const ${type}* a = ${matrixPointer('A', kind, 'q')};
  for (long long j = (long long)part * blockDim.x + threadIdx.x; j < k; j += (long long)parts * blockDim.x) {
    const ${type} u = a[j + j * ldA];
    if (${tiny}) flags[q] = 1;
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}

export function getrsPivotsSource(): KernelSource {
  const entry = 'vendor_getrs_pivots';
  const source = `extern "C" __global__ void ${entry}(int* __restrict__ packed, const int* __restrict__ ipiv, const int* __restrict__ index,
    int count, int n, long long pivotStride) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (long long)count * n) return;
  const int q = (int)(t / n);
  const int j = (int)(t - (long long)q * n);
  const long long b = index ? index[q] : q;
  const int p = ipiv[b * pivotStride + j];
  packed[t] = (p >= 0 && p < n ? p : j) + 1;
}
`;
  return { name: `${entry}.cu`, source, entry };
}

export function stridedPointersSource(): KernelSource {
  const entry = 'vendor_strided_pointers';
  const source = `extern "C" __global__ void ${entry}(unsigned long long* __restrict__ pointers, unsigned long long first, long long strideBytes, int count) {
  const long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (q < count) pointers[q] = first + (unsigned long long)(q * strideBytes);
}
`;
  return { name: `${entry}.cu`, source, entry };
}

export function solveMaskSource(): KernelSource {
  const entry = 'vendor_solve_mask';
  const source = `extern "C" __global__ void ${entry}(unsigned long long* __restrict__ pointers, const int* __restrict__ info,
    const int* __restrict__ index, const void* scratch, int count) {
  const long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= count) return;
  if (info[index ? index[q] : q] != 0) pointers[q] = (unsigned long long)scratch;
}
`;
  return { name: `${entry}.cu`, source, entry };
}

const syevPackEntry = (dtype: DType, uplo: Uplo, kind: OperandKind, element: ScanElement = 'real'): string =>
  `vendor_${element === 'complex' ? 'heev' : 'syev'}_pack_${precisionLetter(dtype)}_${uplo === 'lower' ? 'l' : 'u'}_${kindTag(kind)}`;

export function syevPackSource(dtype: DType, uplo: Uplo, kind: OperandKind, element: ScanElement = 'real'): KernelSource {
  if (element === 'complex') return heevPackSource(dtype, uplo, kind);
  const lower = uplo === 'lower';
  const entry = syevPackEntry(dtype, uplo, kind);
  const source = `${head(dtype)}
extern "C" __global__ void ${entry}(${operandParameters('A', kind, false)}, int n, real* __restrict__ dst, int* __restrict__ flags, int count, int parts) {
${BLOCK}  const real* a = ${matrixPointer('A', kind, 'q')};
  real* d = dst + (long long)q * n * n;
  for (int j = part; j < n; j += parts) {
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
      const int r = ${lower ? 'max(i, j)' : 'min(i, j)'}, c = ${lower ? 'min(i, j)' : 'max(i, j)'};
      real v = a[r + (long long)c * ldA];
      if (!(v >= -MAXR && v <= MAXR)) { flags[q] = 1; v = 0; }
      d[i + (long long)j * n] = v;
    }
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}

/**
 * heev_pack: the referenced triangle of a Hermitian matrix (pairs) mirrored into a dense scratch
 * matrix with the other triangle conjugated and the diagonal's imaginary parts zero (the reference
 * ignores them, as zhetrd does); NaN or an infinity in either part off the diagonal, or in the real
 * part on it, is written as 0 and flags the matrix.
 */
function heevPackSource(dtype: DType, uplo: Uplo, kind: OperandKind): KernelSource {
  const lower = uplo === 'lower';
  const entry = syevPackEntry(dtype, uplo, kind, 'complex');
  const source = `${head(dtype)}${pairType(dtype)}
static __device__ __forceinline__ bool finiteReal(real v) { return v >= -MAXR && v <= MAXR; }
extern "C" __global__ void ${entry}(${operandParameters('A', kind, false, 'real2')}, int n, real2* __restrict__ dst, int* __restrict__ flags, int count, int parts) {
${BLOCK}  const real2* a = ${matrixPointer('A', kind, 'q')};
  real2* d = dst + (long long)q * n * n;
  for (int j = part; j < n; j += parts) {
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
      const int r = ${lower ? 'max(i, j)' : 'min(i, j)'}, c = ${lower ? 'min(i, j)' : 'max(i, j)'};
      real2 v = a[r + (long long)c * ldA];
      if (i == j) v.y = 0;
      else if (r != i) v.y = -v.y;               // (i, j) outside the triangle: conj(A(j, i))
      if (!finiteReal(v.x) || !finiteReal(v.y)) { flags[q] = 1; v.x = 0; v.y = 0; }
      d[i + (long long)j * n] = v;
    }
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}

/**
 * The place of eigenvalue j among a matrix's n (ascending; ties and NaN in their index order, NaN
 * last): cusolverDnXsyevBatched's values can be out of order by rounding where they tie, and the
 * API promises them ascending, so the unpack writes value j (and vector j) at its rank.
 */
const RANK_OF = `static __device__ __forceinline__ int rankOf(const real* w, int n, int j) {
  const real v = w[j];
  int r = 0;
  for (int i = 0; i < n; ++i) {
    const real u = w[i];
    r += u != u ? (v != v && i < j) : (v != v || u < v || (u == v && i < j));
  }
  return r;
}
`;

const syevUnpackEntry = (dtype: DType, kindA: OperandKind, kindW: OperandKind, element: ScanElement = 'real'): string =>
  `vendor_${element === 'complex' ? 'heev' : 'syev'}_unpack_${precisionLetter(dtype)}_${kindTag(kindA)}_${kindTag(kindW)}`;

export function syevUnpackSource(dtype: DType, kindA: OperandKind, kindW: OperandKind, element: ScanElement = 'real'): KernelSource {
  if (element === 'complex') return heevUnpackSource(dtype, kindA, kindW);
  const entry = syevUnpackEntry(dtype, kindA, kindW);
  const source = `${head(dtype)}${RANK_OF}
extern "C" __global__ void ${entry}(${operandParameters('A', kindA, true)}, ${operandParameters('W', kindW, true)},
    const real* __restrict__ srcA, const real* __restrict__ srcW, const int* __restrict__ flags, const int* __restrict__ vendor,
    int* __restrict__ info, const int* __restrict__ index, int n, int count, int vectors, int parts) {
${BLOCK}  const bool failed = flags[q] != 0;
  const real nan = ${dtypeInfo(dtype).cuda.nan};
  const real* sw = srcW + (long long)q * n;
  if (vectors) {
    real* a = ${matrixPointer('A', kindA, 'q')};
    const real* s = srcA + (long long)q * n * n;
    for (int j = part; j < n; j += parts) {
      const int to = failed ? j : rankOf(sw, n, j);
      for (int i = threadIdx.x; i < n; i += blockDim.x) a[i + (long long)to * ldA] = failed ? nan : s[i + (long long)j * n];
    }
  }
  if (part != 0) return;
  real* w = ${matrixPointer('W', kindW, 'q')};
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    if (failed) w[i] = nan;
    else w[rankOf(sw, n, i)] = sw[i];
  }
  if (threadIdx.x == 0) {
    const int v = vendor[q];
    info[index ? index[q] : q] = failed ? n + 2 : v > 0 ? n + 1 : v;
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}

/** heev_unpack: syev_unpack with the eigenvectors in pairs (a flagged matrix's NaN in both parts); w real. */
function heevUnpackSource(dtype: DType, kindA: OperandKind, kindW: OperandKind): KernelSource {
  const entry = syevUnpackEntry(dtype, kindA, kindW, 'complex');
  const source = `${head(dtype)}${pairType(dtype)}${RANK_OF}
extern "C" __global__ void ${entry}(${operandParameters('A', kindA, true, 'real2')}, ${operandParameters('W', kindW, true)},
    const real2* __restrict__ srcA, const real* __restrict__ srcW, const int* __restrict__ flags, const int* __restrict__ vendor,
    int* __restrict__ info, const int* __restrict__ index, int n, int count, int vectors, int parts) {
${BLOCK}  const bool failed = flags[q] != 0;
  const real nan = ${dtypeInfo(dtype).cuda.nan};
  const real* sw = srcW + (long long)q * n;
  if (vectors) {
    real2* a = ${matrixPointer('A', kindA, 'q')};
    const real2* s = srcA + (long long)q * n * n;
    real2 bad; bad.x = nan; bad.y = nan;
    for (int j = part; j < n; j += parts) {
      const int to = failed ? j : rankOf(sw, n, j);
      for (int i = threadIdx.x; i < n; i += blockDim.x) a[i + (long long)to * ldA] = failed ? bad : s[i + (long long)j * n];
    }
  }
  if (part != 0) return;
  real* w = ${matrixPointer('W', kindW, 'q')};
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    if (failed) w[i] = nan;
    else w[rankOf(sw, n, i)] = sw[i];
  }
  if (threadIdx.x == 0) {
    const int v = vendor[q];
    info[index ? index[q] : q] = failed ? n + 2 : v > 0 ? n + 1 : v;
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}

/** One operand of a launch group, as the kernels take it (common/batch-pointer.ts). */
export interface GroupOperand {
  readonly kind: OperandKind;
  /** Strided: the data's address; pointer form: the device array of int64 addresses. */
  readonly pointer: bigint;
  readonly offset: number;
  readonly stride: number;
  readonly ld: number;
}

/** A group operand's four kernel arguments (pointer, offset, stride, ld). */
export const operand = (o: GroupOperand): KernelArg[] => [arg.ptr(o.pointer), arg.i64(o.offset), arg.i64(o.stride), arg.i32(o.ld)];
export const ptrOrNull = (a: DeviceArray | null): KernelArg => arg.ptr(a === null ? 0n : a.ptr);

/** The grid of the per-matrix kernels: `blockShape(n)`'s parts per matrix. */
export function perMatrix(n: number, count: number): { grid: [number, number, number]; block: [number, number, number]; parts: number } {
  const { parts, threads } = blockShape(n);
  return { grid: [count * parts, 1, 1], block: [threads, 1, 1], parts };
}

/** The scan of a group's `count` matrices (n x n) into `first`; `dtype` the parts' type where `element` is 'complex'. */
export function launchPotrfScan(dev: GpuDevice, dtype: DType, uplo: Uplo, a: GroupOperand, n: number, first: DeviceArray, count: number,
  element: ScanElement = 'real'): void {
  if (count === 0 || n === 0) return;
  const shape = perMatrix(n, count);
  cachedKernel(dev, potrfScanEntry(dtype, uplo, a.kind, element), () => potrfScanSource(dtype, uplo, a.kind, element)).launch({ grid: shape.grid, block: shape.block },
    [...operand(a), arg.i32(n), arg.ptr(first), arg.i32(count), arg.i32(shape.parts)]);
}

export function launchPotrfInfo(dev: GpuDevice, info: DeviceArray, index: DeviceArray | null, vendor: DeviceArray, first: DeviceArray, count: number): void {
  if (count === 0) return;
  cachedKernel(dev, 'vendor_potrf_info', potrfInfoSource).launch({ grid: [Math.ceil(count / 256), 1, 1], block: [256, 1, 1] },
    [arg.ptr(info), ptrOrNull(index), arg.ptr(vendor), arg.ptr(first), arg.i32(count)]);
}

export function launchGetrfScatter(dev: GpuDevice, ipiv: DeviceArray, info: DeviceArray, index: DeviceArray | null, pivots: DeviceArray,
  vendor: DeviceArray, count: number, k: number, pivotStride: number): void {
  if (count === 0) return;
  const threads = count * Math.max(1, k);
  cachedKernel(dev, 'vendor_getrf_scatter', getrfScatterSource).launch({ grid: [Math.ceil(threads / 256), 1, 1], block: [256, 1, 1] },
    [arg.ptr(ipiv), arg.ptr(info), ptrOrNull(index), arg.ptr(pivots), arg.ptr(vendor), arg.i32(count), arg.i32(k), arg.i64(pivotStride)]);
}

/** The pack of a group's `count` matrices into `dst` (dense n x n each; `element` 'complex': Hermitian pairs, `dtype` the parts' type). */
export function launchSyevPack(dev: GpuDevice, dtype: DType, uplo: Uplo, a: GroupOperand, n: number, dst: DeviceArray, flags: DeviceArray, count: number,
  element: ScanElement = 'real'): void {
  if (count === 0 || n === 0) return;
  const shape = perMatrix(n, count);
  cachedKernel(dev, syevPackEntry(dtype, uplo, a.kind, element), () => syevPackSource(dtype, uplo, a.kind, element)).launch({ grid: shape.grid, block: shape.block },
    [...operand(a), arg.i32(n), arg.ptr(dst), arg.ptr(flags), arg.i32(count), arg.i32(shape.parts)]);
}

export function launchSyevUnpack(dev: GpuDevice, dtype: DType, a: GroupOperand, w: GroupOperand, srcA: DeviceArray, srcW: DeviceArray,
  flags: DeviceArray, vendor: DeviceArray, info: DeviceArray, index: DeviceArray | null, n: number, count: number, vectors: boolean,
  element: ScanElement = 'real'): void {
  if (count === 0 || n === 0) return;
  const shape = perMatrix(n, count);
  cachedKernel(dev, syevUnpackEntry(dtype, a.kind, w.kind, element), () => syevUnpackSource(dtype, a.kind, w.kind, element)).launch({ grid: shape.grid, block: shape.block },
    [...operand(a), ...operand(w), arg.ptr(srcA), arg.ptr(srcW), arg.ptr(flags), arg.ptr(vendor), arg.ptr(info), ptrOrNull(index),
      arg.i32(n), arg.i32(count), arg.i32(vectors ? 1 : 0), arg.i32(shape.parts)]);
}

/** getrf_keep / getrf_restore over a group's `count` matrices (rows x cols): `kept` holds them densely, matrix after matrix. */
export function launchGetrfKeep(dev: GpuDevice, dtype: DType, a: GroupOperand, rows: number, cols: number, kept: DeviceArray, flags: DeviceArray,
  count: number, restore: boolean): void {
  if (count === 0 || rows === 0 || cols === 0) return;
  const shape = perMatrix(cols, count);
  cachedKernel(dev, getrfKeepEntry(dtype, a.kind, restore), () => getrfKeepSource(dtype, a.kind, restore)).launch({ grid: shape.grid, block: shape.block },
    [...operand(a), arg.i32(rows), arg.i32(cols), arg.ptr(kept), arg.ptr(flags), arg.i32(count), arg.i32(shape.parts)]);
}

/** tiny_diagonal over a group's `count` matrices (the first k diagonal entries of each) into `flags` (set, never cleared). */
export function launchTinyDiagonal(dev: GpuDevice, dtype: DType, a: GroupOperand, k: number, flags: DeviceArray, count: number, element: ScanElement = 'real'): void {
  if (count === 0 || k === 0) return;
  const parts = Math.max(1, Math.min(64, Math.ceil(k / 256)));
  cachedKernel(dev, tinyDiagonalEntry(dtype, a.kind, element), () => tinyDiagonalSource(dtype, a.kind, element)).launch({ grid: [count * parts, 1, 1], block: [256, 1, 1] },
    [...operand(a), arg.i32(k), arg.ptr(flags), arg.i32(count), arg.i32(parts)]);
}

/** The 1-based pivots of a group's `count` matrices (n each) from the API's `ipiv` into `packed` (int32, count x n). */
export function launchGetrsPivots(dev: GpuDevice, packed: DeviceArray, ipiv: DeviceArray, index: DeviceArray | null, count: number, n: number, pivotStride: number): void {
  if (count === 0 || n === 0) return;
  const threads = count * n;
  cachedKernel(dev, 'vendor_getrs_pivots', getrsPivotsSource).launch({ grid: [Math.ceil(threads / 256), 1, 1], block: [256, 1, 1] },
    [arg.ptr(packed.ptr), arg.ptr(ipiv.ptr), ptrOrNull(index), arg.i32(count), arg.i32(n), arg.i64(pivotStride)]);
}

/** Points `pointers[q]` (a group's B addresses) at `scratch` wherever matrix q's info is not 0. */
export function launchSolveMask(dev: GpuDevice, pointers: bigint, info: DeviceArray, index: DeviceArray | null, scratch: DeviceArray, count: number): void {
  if (count === 0) return;
  cachedKernel(dev, 'vendor_solve_mask', solveMaskSource).launch({ grid: [Math.ceil(count / 256), 1, 1], block: [256, 1, 1] },
    [arg.ptr(pointers), arg.ptr(info.ptr), ptrOrNull(index), arg.ptr(scratch.ptr), arg.i32(count)]);
}

/** pointers[q] = first + q * strideBytes for q < count (int64 addresses). */
export function launchStridedPointers(dev: GpuDevice, pointers: DeviceArray, first: bigint, strideBytes: number, count: number): void {
  if (count === 0) return;
  cachedKernel(dev, 'vendor_strided_pointers', stridedPointersSource).launch({ grid: [Math.ceil(count / 256), 1, 1], block: [256, 1, 1] },
    [arg.ptr(pointers.ptr), arg.ptr(first), arg.i64(strideBytes), arg.i32(count)]);
}
