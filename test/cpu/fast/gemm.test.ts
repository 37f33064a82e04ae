/**
 * gemm of the fast CPU backend against the reference: every size of SIZES (square) and a spread
 * of non-square shapes, all four transposes, beta 0 (C poisoned with NaN: never read), 1 and
 * other, alpha 0, all batch kinds; variable batches in runs of one shape (each run gathered
 * into one kernel call) and list batches gathered the same way, for every transpose.
 */
import { describe, test } from 'node:test';
import { serialKernels } from '../../../src/cpu-fast/backend.js';
import { conform, makeBatch, type Kind } from './harness.js';
import { SIZES, gemmCase } from './cases.js';
import type { Rng } from '../../helpers/random.js';

const KINDS: readonly Kind[] = ['strided', 'list', 'variable'];

describe('cpu-fast gemm matches the reference', () => {
  for (const dtype of ['float64', 'float32'] as const) {
    test(`square sizes ${dtype}`, () => {
      const all = [['N', 'N'], ['N', 'T'], ['T', 'N'], ['T', 'T']] as const;
      // every transpose up to 16; above, one per size in turn (time), every one over the sizes
      for (const n of SIZES) for (const kind of KINDS) for (const [tA, tB] of n <= 16 ? all : [all[n % 4]!])
        conform(serialKernels, gemmCase(kind, dtype, n, n, n, tA, tB, 1.25, n % 3 === 0 ? 0 : n % 3 === 1 ? 1 : -0.5), n, dtype);
    });
    test(`shapes, alpha and beta ${dtype}`, () => {
      const shapes = [[1, 1, 1], [2, 3, 4], [4, 3, 2], [8, 1, 8], [1, 8, 8], [8, 8, 1], [5, 7, 3], [9, 4, 8], [16, 2, 16], [3, 17, 5], [33, 8, 2]] as const;
      for (const [m, n, k] of shapes) for (const kind of KINDS) for (const [tA, tB] of [['N', 'N'], ['T', 'T'], ['N', 'T'], ['T', 'N']] as const)
        for (const [alpha, beta] of [[1, 0], [0, 0.5], [0, 0], [-2, 1], [0.5, 2]] as const)
          conform(serialKernels, gemmCase(kind, dtype, m, n, k, tA, tB, alpha, beta), m * 100 + n * 10 + k, dtype);
    });
  }
  test('variable batches in runs of one shape, list batches gathered per chunk', () => {
    for (const dtype of ['float64', 'float32'] as const) for (const m of [1, 3, 8, 17, 33]) for (const [tA, tB] of [['N', 'N'], ['T', 'T'], ['N', 'T'], ['T', 'N']] as const)
      for (const [alpha, beta] of [[1, 0], [-1.5, 0.5]] as const) {
        const rows = [m, m, m, Math.max(0, m - 1), Math.max(0, m - 1), m + 2, m, m];
        const n = 5, k = 3 + (m % 4);
        const build = (rng: Rng): object => {
          const a = makeBatch(rng, dtype, 'variable', rows.map((r) => (tA === 'N' ? { rows: r, cols: k } : { rows: k, cols: r })));
          const b = makeBatch(rng, dtype, 'variable', rows.map(() => (tB === 'N' ? { rows: k, cols: n } : { rows: n, cols: k })));
          const c = makeBatch(rng, dtype, 'variable', rows.map((r) => ({ rows: r, cols: n })), beta === 0 ? (_r, v) => {
            for (let j = 0; j < v.cols; j++) for (let i = 0; i < v.rows; i++) v.data[v.offset + i + j * v.ld] = NaN;
          } : undefined);
          return { transA: tA, transB: tB, alpha, beta, a, b, c };
        };
        const label = `gemm variable runs ${dtype} m=${m} ${tA}${tB} alpha=${alpha} beta=${beta}`;
        conform(serialKernels, { op: 'gemm', label, build, tolerance: { keys: ['c'], eps: 4 * (k + 2), scale: Math.abs(alpha) * k + Math.abs(beta) } }, m, dtype);
      }
  });
  test('batches over several chunks of the kernel memory (23 matrices of 32 x 32: chunks of 10)', () => {
    for (const kind of KINDS) for (const dtype of ['float64', 'float32'] as const) for (const beta of [0, 2] as const) {
      const shapes = Array.from({ length: 23 }, () => ({ rows: 32, cols: 32 }));
      const build = (rng: Rng): object => ({ transA: 'N', transB: 'T', alpha: 0.5, beta, a: makeBatch(rng, dtype, kind, shapes), b: makeBatch(rng, dtype, kind, shapes), c: makeBatch(rng, dtype, kind, shapes) });
      conform(serialKernels, { op: 'gemm', label: `gemm chunks ${kind} ${dtype} beta=${beta}`, build, tolerance: { keys: ['c'], eps: 4 * 34, scale: 0.5 * 32 + beta } }, 23, dtype);
    }
  });
});
