/**
 * The copies between a matrix in global memory and its slot in shared memory that the one-block-a-
 * matrix designs of QR (qr/ and zqr/ generate-shared.ts) share: the slot `a` holds A's M x N
 * column-major with leading dimension LDS; TPM threads a matrix (thread `tid`) move it element by
 * element, consecutive threads down a column.
 */
import { matrixPointer, type OperandKind } from './batch-pointer.js';

/** Columns 0 .. cols-1 of A (the pointer g, in scope) into the slot. */
export const loadSlotColumns = (cols: string): string => `    for (int idx = tid; idx < M * ${cols}; idx += TPM) {
      const int i = idx % M, c = idx / M;
      a[i + c * LDS] = g[i + (long long)c * ldA];
    }`;

/** The slot back into A (groups with a matrix only); `element` the C++ type of A's elements. */
export const storeSlot = (kind: OperandKind, element: 'real' | 'real2'): string => `  if (!active) return;
  ${element}* g = ${matrixPointer('A', kind, 'mat')};
  for (int idx = tid; idx < M * N; idx += TPM) {
    const int i = idx % M, c = idx / M;
    g[i + (long long)c * ldA] = a[i + c * LDS];
  }`;
