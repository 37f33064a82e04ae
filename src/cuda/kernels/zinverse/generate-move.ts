/**
 * The complex inverses' own kernels, both memory-bound and tiny beside the products they frame:
 * - the diagonal scan (zinverseScanSource): one thread per matrix, n pairs read, info written;
 * - the moves (zinverseMoveSource): one block per matrix, its threads over the n x n elements of
 *   B, each element written once from the same element of A (or the identity's);
 * - getri's finish (zinverseColumnsSource): one block per matrix, a thread per row of W.
 * The element is `real2` (common/complex.ts); rows, ld, offsets and strides count pairs.
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { complexLetter, complexPrelude } from '../common/complex.js';
import { precisionPrelude } from '../common/precision.js';
import type { ZcolumnsParams, ZmoveOp, ZmoveParams, ZscanParams } from './params.js';

export const SCAN_THREADS = 128;
export const MOVE_THREADS = 256;

export function zinverseScanSource(p: ZscanParams): KernelSource {
  const entry = `zinv_scan_${complexLetter(p.dtype)}_${kindTag(p.kind)}${p.keep ? '_keep' : ''}`;
  const source = `${precisionPrelude(p.dtype)}
${complexPrelude(p.dtype)}

// info[i] = 1 + the first c with A(c, c) == 0 (both parts), or 0${p.keep ? '; a non-zero info stays' : ''}.
extern "C" __global__ void ${entry}(
    ${operandParameters('A', p.kind, false, 'real2')}, const int* __restrict__ index, int count, int* __restrict__ info, int n) {
  const long long m = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (m >= count) return;
  const long long id = index ? (long long)index[m] : m;
${p.keep ? '  if (info[id] != 0) return;\n' : ''}  const real2* a = ${matrixPointer('A', p.kind, 'm')};
  int bad = 0;
  for (int c = 0; c < n; ++c) {
    const real2 d = a[c + (long long)c * ldA];
    if (d.x == real(0) && d.y == real(0)) { bad = c + 1; break; }
  }
  info[id] = bad;
}
`;
  return { name: `${entry}.cu`, source, entry };
}

/** The kernel name's fragment of a move. */
function moveTag(m: ZmoveOp): string {
  if (m.op === 'identity') return 'identity';
  if (m.op === 'whole') return `whole${m.onlyOk ? '_ok' : ''}`;
  return `tri_${m.uplo === 'lower' ? 'l' : 'u'}_${m.diagonal}${m.zeroOther ? '_0' : ''}${m.onlyOk ? '_ok' : ''}`;
}

/** The body's statement for element (i, j): b[i + j ldB] from a[i + j ldA]. */
function moveBody(m: ZmoveOp): string {
  const dst = 'b[i + j * (long long)ldB]';
  const src = 'a[i + j * (long long)ldA]';
  if (m.op === 'identity') return `${dst} = makeReal2(i == j ? real(1) : real(0), real(0));`;
  if (m.op === 'whole') return `${dst} = ${src};`;
  const strict = m.uplo === 'lower' ? 'i > j' : 'i < j';
  const diagonal = m.diagonal === 'copy' ? `${dst} = ${src};`
    : m.diagonal === 'real' ? `${dst} = makeReal2(${src}.x, real(0));`
    : m.diagonal === 'one' ? `${dst} = makeReal2(real(1), real(0));` : '';
  const other = m.zeroOther ? `${dst} = makeReal2(real(0), real(0));` : '';
  return `if (${strict}) ${dst} = ${src};
    else if (i == j) { ${diagonal} }
    else { ${other} }`;
}

export function zinverseMoveSource(p: ZmoveParams): KernelSource {
  const m = p.move;
  const onlyOk = m.op !== 'identity' && m.onlyOk;
  const entry = `zinv_${moveTag(m)}_${complexLetter(p.dtype)}_${kindTag(p.kindA)}${kindTag(p.kindB)}`;
  const source = `${precisionPrelude(p.dtype)}
${complexPrelude(p.dtype)}

// Block mid: B of matrix mid (n x n) from A's${onlyOk ? ', where info is 0' : ''}.
extern "C" __global__ void __launch_bounds__(${MOVE_THREADS}) ${entry}(
    ${operandParameters('A', p.kindA, false, 'real2')},
    ${operandParameters('B', p.kindB, true, 'real2')},
    const int* __restrict__ info, const int* __restrict__ index, int count, int n) {
  const long long mid = blockIdx.x;
  if (mid >= count) return;
  const long long id = index ? (long long)index[mid] : mid;
  ${onlyOk ? 'if (info[id] != 0) return;' : '(void)info; (void)id;'}
  ${m.op === 'identity' ? '// A is not read.' : `const real2* a = ${matrixPointer('A', p.kindA, 'mid')};`}
  real2* b = ${matrixPointer('B', p.kindB, 'mid')};
  for (long long e = threadIdx.x; e < (long long)n * n; e += blockDim.x) {
    const int i = (int)(e % n), j = (int)(e / n);
    ${moveBody(m)}
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}

export function zinverseColumnsSource(p: ZcolumnsParams): KernelSource {
  const entry = `zinv_columns_${complexLetter(p.dtype)}_${kindTag(p.kindW)}${kindTag(p.kindA)}`;
  const source = `${precisionPrelude(p.dtype)}
${complexPrelude(p.dtype)}

// Block mid, where info is 0: W's columns j and ipiv[j] swapped for j = n-2 ... 0 (each thread its
// rows: the rows are independent, a row's swaps in order), then A := W.
extern "C" __global__ void __launch_bounds__(${MOVE_THREADS}) ${entry}(
    ${operandParameters('W', p.kindW, true, 'real2')},
    ${operandParameters('A', p.kindA, true, 'real2')},
    const int* __restrict__ ipiv, int pivotStride, const int* __restrict__ info, const int* __restrict__ index, int count, int n) {
  const long long mid = blockIdx.x;
  if (mid >= count) return;
  const long long id = index ? (long long)index[mid] : mid;
  if (info[id] != 0) return;
  real2* w = ${matrixPointer('W', p.kindW, 'mid')};
  real2* a = ${matrixPointer('A', p.kindA, 'mid')};
  const int* pv = ipiv + id * (long long)pivotStride;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    for (int j = n - 2; j >= 0; --j) {
      const int p = pv[j];
      if (p != j) {
        const real2 t = w[i + j * (long long)ldW];
        w[i + j * (long long)ldW] = w[i + p * (long long)ldW];
        w[i + p * (long long)ldW] = t;
      }
    }
    for (int j = 0; j < n; ++j) a[i + j * (long long)ldA] = w[i + j * (long long)ldW];
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}
