/**
 * float32 batches packed into the float64 working copy of the WebAssembly LU (kernels/pack.ts):
 * back-to-back matrices (ld = rows, stride = rows x cols) take one converting block copy each way
 * (`Float64Array.set` of float32 data, and back, rounding as Math.fround), other layouts the
 * element loop. getrf and gesv at n = 16 and 24 against the reference bit for bit, with a
 * singular matrix, a NaN and an infinity among good ones, and untouched B where info > 0.
 */
import { describe, test } from 'node:test';
import { strided } from '../../../src/core/batch.js';
import { serialKernels } from '../../../src/cpu-fast/backend.js';
import { Rng, randomArray } from '../../helpers/random.js';
import { conform, info, pivots } from './harness.js';

function luCase(op: 'getrf' | 'gesv', n: number, count: number) {
  return {
    op,
    label: `float32 ${op} n=${n} count=${count} back to back`,
    build(rng: Rng): object {
      const a = randomArray(rng, 'float32', count * n * n);
      for (let p = 0; p < count; p++) for (let i = 0; i < n; i++) a[p * n * n + i + i * n]! += n;
      for (let i = 0; i < n; i++) a[n * n + i + 3 * n] = 0; // matrix 1: column 3 zero (singular, info 4)
      a[2 * n * n + 5] = NaN; // matrix 2: a NaN below the diagonal of column 0
      a[3 * n * n + 7 + 9 * n] = Infinity; // matrix 3: an infinity
      const r = { a: strided(a, { rows: n, count }), ipiv: pivots(count * n), pivotStride: n, info: info(count) };
      return op === 'getrf' ? r : { ...r, b: strided(randomArray(rng, 'float32', count * n * 2), { rows: n, cols: 2, count }) };
    },
  };
}

describe('float32 back-to-back batches through the converting block copy match the reference bit for bit', () => {
  test('getrf and gesv, n = 16 and 24', () => {
    let seed = 1;
    for (const n of [16, 24]) for (const count of [5, 9]) for (const op of ['getrf', 'gesv'] as const) conform(serialKernels, luCase(op, n, count), seed++, 'float32');
  });
});
