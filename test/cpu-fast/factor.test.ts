/**
 * potrf/posv/potrs and getrf/gesv/getrs of the fast CPU backend against the reference: every size
 * 1..40, 47, 64, 100, 128, 256, both triangles and transposes, strided/list/variable batches with
 * padding and gaps, info and pivots poisoned before the call, failing matrices among good ones.
 */
import { describe, test } from 'node:test';
import { serialKernels } from '../../src/cpu-fast/backend.js';
import type { DType } from '../../src/core/dtype.js';
import type { Op } from '../../src/core/ops.js';
import type { Uplo } from '../../src/core/enums.js';
import { conform, generalFill, info, makeBatch, pivots, spdFill, type Kind, type Shape } from './harness.js';

export const SIZES: readonly number[] = [...Array.from({ length: 40 }, (_, i) => i + 1), 47, 64, 100, 128, 256];
const DTYPES: readonly DType[] = ['float64', 'float32'];
const KINDS: readonly Kind[] = ['strided', 'list', 'variable'];

/** Matrices per batch: several for small sizes, one or two for the largest (time). */
const countFor = (n: number): number => (n <= 16 ? 5 : n <= 64 ? 2 : 1);
/** Matrix 1 of each batch fails (where there is one). */
const failing = (n: number) => (p: number): number => (p === 1 ? Math.floor(n / 2) : -1);

/** Shapes of a batch: all n x cols, or for variable batches sizes around n (small and large mixed). */
function shapes(kind: Kind, n: number, cols: number | 'square', count: number): Shape[] {
  return Array.from({ length: count }, (_, p) => {
    const rows = kind === 'variable' ? Math.max(0, n - (p % 3) * (p % 2 === 0 ? 1 : -1) * 2) : n;
    return { rows, cols: cols === 'square' ? rows : cols };
  });
}

export function cholesky(kind: Kind, dtype: DType, n: number, uplo: Uplo, op: 'potrf' | 'posv' | 'potrs') {
  return {
    op, label: `${op} ${kind} ${dtype} n=${n} ${uplo}`,
    build(rng: import('../helpers/random.js').Rng): object {
      const count = countFor(n);
      const sa = shapes(kind, n, 'square', count);
      const a = makeBatch(rng, dtype, kind, sa, op === 'potrs' ? spdFill(() => -1) : spdFill(failing(n)));
      const r = { uplo, a, info: info(count) };
      return op === 'potrf' ? r : { ...r, b: makeBatch(rng, dtype, kind, sa.map((s) => ({ rows: s.rows, cols: 1 + (n % 3) }))) };
    },
  };
}

export function lu(kind: Kind, dtype: DType, n: number, op: 'getrf' | 'gesv' | 'getrs', trans: Op = 'N', cols: number | 'square' = 'square') {
  return {
    op, label: `${op} ${kind} ${dtype} n=${n} cols=${cols} ${trans}`,
    build(rng: import('../helpers/random.js').Rng): object {
      const count = countFor(n);
      const sa = shapes(kind, n, cols, count);
      const stride = Math.max(0, ...sa.map((s) => Math.min(s.rows, s.cols)));
      const a = makeBatch(rng, dtype, kind, sa, generalFill(op === 'getrs' ? () => -1 : failing(n)));
      const ipiv = pivots(count * stride);
      if (op === 'getrs') for (let p = 0; p < count; p++) for (let j = 0; j < sa[p]!.rows; j++) ipiv[p * stride + j] = rng.int(j, sa[p]!.rows - 1);
      const r = { a, ipiv, pivotStride: stride, info: info(count) };
      const b = makeBatch(rng, dtype, kind, sa.map((s) => ({ rows: s.rows, cols: 2 })));
      return op === 'getrf' ? r : op === 'gesv' ? { ...r, b } : { ...r, b, trans };
    },
  };
}

describe('cpu-fast factorisations match the reference bit for bit', () => {
  for (const dtype of DTYPES) {
    test(`Cholesky ${dtype}`, () => {
      for (const n of SIZES) for (const kind of KINDS) for (const uplo of ['lower', 'upper'] as const)
        for (const op of ['potrf', 'posv', 'potrs'] as const) conform(serialKernels, cholesky(kind, dtype, n, uplo, op), n, dtype);
    });
    test(`LU ${dtype}`, () => {
      for (const n of SIZES) for (const kind of KINDS) {
        for (const op of ['getrf', 'gesv'] as const) conform(serialKernels, lu(kind, dtype, n, op), n, dtype);
        for (const trans of ['N', 'T'] as const) conform(serialKernels, lu(kind, dtype, n, 'getrs', trans), n, dtype);
      }
    });
    test(`rectangular getrf ${dtype}`, () => {
      for (const [m, c] of [[1, 3], [3, 1], [5, 9], [9, 5], [12, 7], [7, 12], [13, 4], [4, 20]] as const)
        for (const kind of KINDS) conform(serialKernels, lu(kind, dtype, m, 'getrf', 'N', c), m * 31 + c, dtype);
    });
  }
});
