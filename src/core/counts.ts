/**
 * Flop and byte counts for one matrix of each operation. Flops are the leading terms used by the
 * benchmarks and the targets (LAWN 41's counts without lower-order terms): potrf n^3/3,
 * getrf 2n^3/3 (square), gemm 2mnk. Bytes are the fewest a kernel must move through memory:
 * each input read once, each output written once (the roofline's denominator).
 *
 * The solves and factorisations (potrf, potrs, posv, getrf, getrs, gesv, trsm) and the eigen and
 * singular value decompositions (syev as heev, gesvd) also take a complex type: four times the
 * real flops (LAPACK's convention: a complex multiply-add is four real multiplies and four real
 * additions, 8 flops against the real 2), bytes of whole pairs (16 for complex128, 8 for
 * complex64) but for heev's w and gesvd's s, reals of the parts' type; pivots are 4-byte integers
 * either way.
 */
import type { ComplexDType, DType, ElementType } from './dtype.js';
import { complexInfo, elementInfo } from './dtype-table.js';

export interface Cost { flops: number; bytes: number }

const el = (dtype: ElementType, n: number): number => n * elementInfo(dtype).bytes;
/** Bytes of n reals of the type's parts (heev's w, gesvd's s): the type's own bytes when real. */
const part = (dtype: ElementType, n: number): number => n * elementInfo(elementInfo(dtype).real).bytes;
/** Real flops of an operation counted `real` in real arithmetic: 4x on a complex type. */
const fl = (dtype: ElementType, real: number): number => (elementInfo(dtype).field === 'complex' ? 4 * real : real);

/** Flop and byte counts of each operation (for benchmarks: GFLOP/s and GB/s). */
export const counts = {
  /** C (m x n) = alpha op(A) (m x k) op(B) (k x n) + beta C; C read only when beta != 0. */
  gemm(dtype: DType, m: number, n: number, k: number, betaZero = true): Cost {
    return { flops: 2 * m * n * k, bytes: el(dtype, m * k + k * n + m * n * (betaZero ? 1 : 2)) };
  },
  /**
   * Complex gemm (zgemm, cgemm): 8 mnk real flops (a complex multiply-add is four real
   * multiply-adds), bytes of whole pairs (16 for complex128, 8 for complex64).
   */
  zgemm(dtype: ComplexDType, m: number, n: number, k: number, betaZero = true): Cost {
    return { flops: 8 * m * n * k, bytes: complexInfo(dtype).bytes * (m * k + k * n + m * n * (betaZero ? 1 : 2)) };
  },
  /** B (m x n) := op(A)^-1 B with A m x m (left) or n x n (right), triangle only read. */
  trsm(dtype: ElementType, side: 'left' | 'right', m: number, n: number): Cost {
    const t = side === 'left' ? m : n;
    return { flops: fl(dtype, side === 'left' ? m * m * n : m * n * n), bytes: el(dtype, (t * (t + 1)) / 2 + 2 * m * n) };
  },
  trmm(dtype: DType, side: 'left' | 'right', m: number, n: number): Cost {
    return counts.trsm(dtype, side, m, n);
  },
  /** C (n x n, one triangle) = A (n x k) A^T. */
  syrk(dtype: DType, n: number, k: number, betaZero = true): Cost {
    const tri = (n * (n + 1)) / 2;
    return { flops: n * (n + 1) * k, bytes: el(dtype, n * k + tri * (betaZero ? 1 : 2)) };
  },
  /** Cholesky: reads and writes one triangle. */
  potrf(dtype: ElementType, n: number): Cost {
    return { flops: fl(dtype, (n * n * n) / 3), bytes: el(dtype, n * (n + 1)) };
  },
  potrs(dtype: ElementType, n: number, nrhs: number): Cost {
    return { flops: fl(dtype, 2 * n * n * nrhs), bytes: el(dtype, (n * (n + 1)) / 2 + 2 * n * nrhs) };
  },
  posv(dtype: ElementType, n: number, nrhs: number): Cost {
    return { flops: fl(dtype, (n * n * n) / 3 + 2 * n * n * nrhs), bytes: el(dtype, n * (n + 1) + 2 * n * nrhs) };
  },
  /** LU of m x n: max(m,n) k^2 - k^3/3 with k = min(m,n) (2n^3/3 when square); reads and writes A, writes k pivots. */
  getrf(dtype: ElementType, m: number, n: number = m): Cost {
    const k = Math.min(m, n);
    const flops = Math.max(m, n) * k * k - (k * k * k) / 3;
    return { flops: fl(dtype, flops), bytes: el(dtype, 2 * m * n) + 4 * k };
  },
  getrs(dtype: ElementType, n: number, nrhs: number): Cost {
    return { flops: fl(dtype, 2 * n * n * nrhs), bytes: el(dtype, n * n + 2 * n * nrhs) + 4 * n };
  },
  gesv(dtype: ElementType, n: number, nrhs: number): Cost {
    return { flops: fl(dtype, (2 * n * n * n) / 3 + 2 * n * n * nrhs), bytes: el(dtype, 2 * n * n + 2 * n * nrhs) + 4 * n };
  },
  /** Householder QR of A (m x n, LAPACK's dgeqrf count for m >= n: 2mn^2 - 2n^3/3; m < n: 2nm^2 - 2m^3/3; 4x on a complex type): A read, R and the reflectors written, tau too. */
  geqrf(dtype: ElementType, m: number, n: number): Cost {
    const [big, k] = m >= n ? [m, n] : [n, m];
    return { flops: fl(dtype, 2 * big * k * k - (2 * k * k * k) / 3), bytes: el(dtype, 2 * m * n + Math.min(m, n)) };
  },
  /** The m x n Q from k reflectors (LAPACK's dorgqr count: 4mnk - 2(m + n)k^2 + 4k^3/3): the reflectors and tau read, Q written. */
  orgqr(dtype: DType, m: number, n: number, k: number): Cost {
    return { flops: 4 * m * n * k - 2 * (m + n) * k * k + (4 * k * k * k) / 3, bytes: el(dtype, m * k + k + m * n) };
  },
  trtri(dtype: DType, n: number): Cost {
    return { flops: (n * n * n) / 3, bytes: el(dtype, n * (n + 1)) };
  },
  lauum(dtype: DType, n: number): Cost {
    return { flops: (n * n * n) / 3, bytes: el(dtype, n * (n + 1)) };
  },
  potri(dtype: DType, n: number): Cost {
    return { flops: (2 * n * n * n) / 3, bytes: el(dtype, n * (n + 1)) };
  },
  /**
   * Symmetric eigendecomposition, counted as LAPACK's dsyev (LAWN 41: tridiagonal reduction
   * 4n^3/3, plus 6n^3 for the vectors), the vendor's work the benchmarks compare with, not the
   * Jacobi sweeps (about 6n^3 per sweep with vectors). Reads one triangle, writes w (and A).
   * A complex type is heev (zheev, cheev): 4x the flops, A's elements whole pairs, w real (of the parts' type).
   */
  syev(dtype: ElementType, n: number, vectors = true): Cost {
    return { flops: fl(dtype, (4 * n * n * n) / 3 + (vectors ? 6 * n * n * n : 0)), bytes: el(dtype, (n * (n + 1)) / 2 + (vectors ? n * n : 0)) + part(dtype, n) };
  },
  /**
   * Thin SVD of m x n, k = min(m, n), counted as LAPACK's bidiagonal route (LAWN 41: 4 max k^2 -
   * 4k^3/3 for the reduction, plus 4 max k^2 + 8k^3 with U and VT). Reads A, writes s (U, VT).
   * A complex type (zgesvd, cgesvd): 4x the flops, A, U and VT whole pairs, s real (of the parts' type).
   */
  gesvd(dtype: ElementType, m: number, n: number, vectors = true): Cost {
    const k = Math.min(m, n);
    const big = Math.max(m, n);
    const flops = 4 * big * k * k - (4 * k * k * k) / 3 + (vectors ? 4 * big * k * k + 8 * k * k * k : 0);
    return { flops: fl(dtype, flops), bytes: el(dtype, m * n + (vectors ? m * k + k * n : 0)) + part(dtype, k) };
  },
  /**
   * C (m x n) := op(Q) C or C op(Q) with k reflectors, counted as LAPACK's dormqr (LAWN 41,
   * leading terms): 4mnk - 2nk^2 on the left, 4mnk - 2mk^2 on the right. Reads the reflectors
   * (below the diagonal of an r x k block, r = m or n) and tau, reads and writes C.
   */
  ormqr(dtype: DType, side: 'left' | 'right', m: number, n: number, k: number): Cost {
    const r = side === 'left' ? m : n;
    const other = side === 'left' ? n : m;
    return { flops: 4 * m * n * k - 2 * other * k * k, bytes: el(dtype, r * k - (k * (k - 1)) / 2 + 2 * m * n) };
  },
    /** potrf then potri: n^3 / 3 + 2 n^3 / 3. */
  poti(dtype: DType, n: number): Cost {
    return { flops: n * n * n, bytes: el(dtype, n * (n + 1)) };
  },
} as const;
