/**
 * gemm of the fast CPU backend against the reference: every size of SIZES (square) and a spread
 * of non-square shapes, all four transposes, beta 0 (C poisoned with NaN: never read), 1 and
 * other, alpha 0, all batch kinds.
 */
import { describe, test } from 'node:test';
import { serialKernels } from '../../src/cpu-fast/backend.js';
import type { DType } from '../../src/core/dtype.js';
import type { Op } from '../../src/core/ops.js';
import type { Rng } from '../helpers/random.js';
import { conform, makeBatch, type Kind, type Shape } from './harness.js';
import { SIZES } from './factor.test.js';

const KINDS: readonly Kind[] = ['strided', 'list', 'variable'];
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

describe('cpu-fast gemm matches the reference', () => {
  for (const dtype of ['float64', 'float32'] as const) {
    test(`square sizes ${dtype}`, () => {
      for (const n of SIZES) for (const kind of KINDS) for (const [tA, tB] of [['N', 'N'], ['N', 'T'], ['T', 'N'], ['T', 'T']] as const)
        conform(serialKernels, gemmCase(kind, dtype, n, n, n, tA, tB, 1.25, n % 3 === 0 ? 0 : n % 3 === 1 ? 1 : -0.5), n, dtype);
    });
    test(`shapes, alpha and beta ${dtype}`, () => {
      const shapes = [[1, 1, 1], [2, 3, 4], [4, 3, 2], [8, 1, 8], [1, 8, 8], [8, 8, 1], [5, 7, 3], [9, 4, 8], [16, 2, 16], [3, 17, 5], [33, 8, 2]] as const;
      for (const [m, n, k] of shapes) for (const kind of KINDS) for (const [tA, tB] of [['N', 'N'], ['T', 'T'], ['N', 'T'], ['T', 'N']] as const)
        for (const [alpha, beta] of [[1, 0], [0, 0.5], [0, 0], [-2, 1], [0.5, 2]] as const)
          conform(serialKernels, gemmCase(kind, dtype, m, n, k, tA, tB, alpha, beta), m * 100 + n * 10 + k, dtype);
    });
  }
});
