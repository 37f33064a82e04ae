/** Test cases shared by the cpu-fast suites: builders of requests for conform(). */
import type { DType } from '../../../src/core/dtype.js';
import type { Op } from '../../../src/core/ops.js';
import type { Uplo } from '../../../src/core/enums.js';
import type { Rng } from '../../helpers/random.js';
import { cpuTuning } from '../../../src/cpu-fast/context.js';
import { generalFill, info, makeBatch, pivots, spdFill, type Kind, type Shape } from './harness.js';

export const SIZES: readonly number[] = [...Array.from({ length: 40 }, (_, i) => i + 1), 47, 64, 100, 128, 256];

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
  // 'upper' above the unrolled sizes (variable batches reach n + 2) factors the transpose in
  // WebAssembly, whose order of additions is the lower triangle's: equal to rounding, not bitwise
  const transposed = uplo === 'upper' && op !== 'potrs' && n + 2 > cpuTuning().unrollMax.cholesky;
  return {
    op, label: `${op} ${kind} ${dtype} n=${n} ${uplo}`,
    ...(transposed ? { tolerance: { keys: ['a', 'b'], eps: 8 * (n + 2), scale: n + 5 } } : {}),
    build(rng: Rng): object {
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
    build(rng: Rng): object {
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

const poison: Parameters<typeof makeBatch>[4] = (_rng, v) => {
  for (let j = 0; j < v.cols; j++) for (let i = 0; i < v.rows; i++) v.data[v.offset + i + j * v.ld] = NaN;
};

export function gemmCase(kind: Kind, dtype: DType, m: number, n: number, k: number, transA: Op, transB: Op, alpha: number, beta: number) {
  const count = m * n * k <= 4096 ? 5 : m * n * k <= 300_000 ? 2 : 1;
  const label = `gemm ${kind} ${dtype} ${m}x${n}x${k} ${transA}${transB} alpha=${alpha} beta=${beta}`;
  return {
    op: 'gemm' as const, label,
    /** float32 and summation order may differ from the reference only in C's elements. */
    tolerance: { keys: ['c'], eps: 4 * (k + 2), scale: Math.max(1, Math.abs(alpha)) * k + Math.abs(beta) },
    build(rng: Rng): object {
      // variable batches vary one dimension per matrix; the other two stay fixed.
      const mp = (p: number): number => (kind === 'variable' ? Math.max(0, m - (p % 3)) : m);
      const shapeA = (p: number): Shape => (transA === 'N' ? { rows: mp(p), cols: k } : { rows: k, cols: mp(p) });
      const shapeB: Shape = transB === 'N' ? { rows: k, cols: n } : { rows: n, cols: k };
      const idx = Array.from({ length: count }, (_, p) => p);
      const a = makeBatch(rng, dtype, kind, idx.map(shapeA));
      const b = makeBatch(rng, dtype, kind, idx.map(() => shapeB));
      const c = makeBatch(rng, dtype, kind, idx.map((p) => ({ rows: mp(p), cols: n })), beta === 0 ? poison : undefined);
      return { transA, transB, alpha, a, b, beta, c };
    },
  };
}

