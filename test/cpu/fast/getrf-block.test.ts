/**
 * The delayed-update WebAssembly LU (kernels/getrf-block-wasm.ts) with another panel width than
 * the default and from n = 4 (MYRIAD_CPU_LU_BLOCK=4,12, read once when the backend first asks
 * imported), against the reference bit for bit: square getrf/gesv at sizes that leave every
 * kind of edge (a tail panel of 1 ... 11 columns, a trailing block of 0 ... 3 columns and of 2
 * rows, odd m with its padding row), rectangular getrf (tall: the last panel has no trailing
 * columns; wide: U's columns right of the square part), strided/list/variable batches with
 * padding and gaps, a singular matrix among good ones (exactly zero column: info, and B kept),
 * general random data (real row interchanges at almost every step), info and pivots poisoned.
 * test/gpu/factor-cases.ts covers the default (panels of 8 from n = 16).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { strided } from '../../../src/core/batch.js';
import type { DType } from '../../../src/core/dtype.js';
import type { Rng } from '../../helpers/random.js';

process.env.MYRIAD_CPU_LU_BLOCK = '4,12';
const { serialKernels } = await import('../../../src/cpu-fast/backend.js');
const { cpuTuning } = await import('../../../src/cpu-fast/context.js');
const { conform, info, pivots } = await import('./harness.js');
const { lu } = await import('./cases.js');
assert.deepEqual(cpuTuning().luWasmBlock, { min: 4, nb: 12 });

const DTYPES: readonly DType[] = ['float64', 'float32'];
const KINDS = ['strided', 'list', 'variable'] as const;

describe('the delayed-update LU with panels of 12 matches the reference bit for bit', () => {
  for (const dtype of DTYPES) {
    test(`square getrf and gesv, ${dtype}`, () => {
      for (const n of [4, 5, 11, 12, 13, 23, 24, 25, 27, 31, 36, 37, 50, 61]) for (const kind of KINDS)
        for (const op of ['getrf', 'gesv'] as const) conform(serialKernels, lu(kind, dtype, n, op), n * 3 + 1, dtype);
    });
    test(`rectangular getrf, ${dtype}`, () => {
      for (const [m, c] of [[40, 13], [13, 40], [37, 24], [24, 37], [30, 4], [5, 29], [49, 49 - 12]] as const)
        for (const kind of KINDS) conform(serialKernels, lu(kind, dtype, m, 'getrf', 'N', c), m * 31 + c, dtype);
    });
  }
  test('gesv with A and B interleaved in one array: each unpacked into its own elements only', () => {
    const build = (rng: Rng): object => {
      const n = 13, count = 9, stride = n * n + 2 * n + 1;
      const data = new Float64Array(count * stride + 3);
      for (let i = 0; i < data.length; i++) data[i] = rng.uniform();
      for (let k = 0; k < n; k++) data[4 * stride + k + 5 * n] = 0; // matrix 4 singular: its B stays
      const a = strided(data, { rows: n, count, stride, offset: 0 });
      const b = strided(data, { rows: n, cols: 2, count, stride, offset: n * n });
      return { a, b, ipiv: pivots(count * n), pivotStride: n, info: info(count) };
    };
    conform(serialKernels, { op: 'gesv', label: 'interleaved gesv', build }, 3, 'float64');
  });
});
