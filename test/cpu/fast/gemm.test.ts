/**
 * gemm of the fast CPU backend against the reference: every size of SIZES (square) and a spread
 * of non-square shapes, all four transposes, beta 0 (C poisoned with NaN: never read), 1 and
 * other, alpha 0, all batch kinds.
 */
import { describe, test } from 'node:test';
import { serialKernels } from '../../../src/cpu-fast/backend.js';
import { conform, type Kind } from './harness.js';
import { SIZES, gemmCase } from './cases.js';

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
});
