/**
 * The delayed-update LU (kernels/getrf-block-wasm.ts) works on two matrices at a time: each
 * pair's panels factored side by side (a last odd one alone), gesv's solves for both together
 * where both factored (else each that did alone), getrs's in pairs with a last one alone.
 * Against the reference bit for bit, around n = 16 (where gesv takes this kernel), strided
 * batches of 1 ... 7 matrices with every pattern of failing ones up to 5 (a zero column at
 * various steps, the first and last included), NaNs in A or B of one matrix of a pair, general
 * random data (interchanges at most steps), and batches of a few hundred matrices (several
 * chunks, not a multiple of the chunk) with failures spread through them.
 */
import { describe, test } from 'node:test';
import { serialKernels } from '../../../src/cpu-fast/backend.js';
import type { DType } from '../../../src/core/dtype.js';
import type { Rng } from '../../helpers/random.js';
import { conform, info, makeBatch, pivots, type Fill } from './harness.js';

const DTYPES: readonly DType[] = ['float64', 'float32'];

type Spoil = (v: Parameters<Fill>[1], p: number, rng: Rng) => void;

/** Matrix p of a batch gets a zero column when `fails(p)`: which column varies with p (0, the middle, the last). */
const zeroColumn = (fails: (p: number) => boolean): Spoil => (v, p) => {
  if (!fails(p)) return;
  const k = [0, Math.floor(v.cols / 2), v.cols - 1, 3][p % 4]!;
  for (let i = 0; i < v.rows; i++) v.data[v.offset + i + k * v.ld] = 0;
};

function luCase(op: 'gesv' | 'getrs', dtype: DType, n: number, count: number, nrhs: number, spoilA: Spoil, spoilB?: Spoil, label = '') {
  return {
    op, label: `${op} pairs ${dtype} n=${n} count=${count} nrhs=${nrhs} ${label}`,
    build(rng: Rng): object {
      const shapes = Array.from({ length: count }, () => ({ rows: n, cols: n }));
      const a = makeBatch(rng, dtype, 'strided', shapes, (r, v, p) => spoilA(v, p, r));
      const b = makeBatch(rng, dtype, 'strided', shapes.map(() => ({ rows: n, cols: nrhs })), spoilB ? (r, v, p) => spoilB(v, p, r) : undefined);
      const ipiv = pivots(count * n);
      if (op === 'getrs') for (let p = 0; p < count; p++) for (let j = 0; j < n; j++) ipiv[p * n + j] = rng.int(j, n - 1);
      return op === 'gesv' ? { a, b, ipiv, pivotStride: n, info: info(count) } : { a, b, ipiv, pivotStride: n, info: info(count), trans: 'N' };
    },
  };
}

describe('the delayed-update LU two matrices at a time matches the reference bit for bit', () => {
  for (const dtype of DTYPES) {
    test(`gesv, every pattern of failing matrices in batches of 1 ... 5, ${dtype}`, () => {
      for (const n of [16, 17]) for (let count = 1; count <= 5; count++) for (let mask = 0; mask < 1 << count; mask++) {
        const c = luCase('gesv', dtype, n, count, 1 + (mask % 2), zeroColumn((p) => ((mask >> p) & 1) === 1), undefined, `mask=${mask}`);
        conform(serialKernels, c, n * 64 + mask, dtype);
      }
    });
    test(`gesv and getrs: general data, NaNs, batches of 6 and 7, ${dtype}`, () => {
      const nanA: Spoil = (v, p) => { if (p === 2) v.data[v.offset + 5 + 5 * v.ld] = NaN; if (p === 5) v.data[v.offset + 1 + 9 * v.ld] = NaN; };
      const nanB: Spoil = (v, p) => { if (p === 3) v.data[v.offset + 7] = NaN; };
      for (const n of [16, 18, 20]) for (const count of [6, 7]) {
        conform(serialKernels, luCase('gesv', dtype, n, count, 1, () => {}, undefined, 'general'), n + count, dtype);
        conform(serialKernels, luCase('gesv', dtype, n, count, 2, nanA, nanB, 'NaN'), n * 3 + count, dtype);
        conform(serialKernels, luCase('gesv', dtype, n, count, 1, zeroColumn((p) => p === 0 || p === count - 1), undefined, 'ends fail'), n * 5 + count, dtype);
      }
      for (const n of [16, 17, 24]) for (let count = 1; count <= 7; count++) for (const nrhs of [1, 3]) {
        conform(serialKernels, luCase('getrs', dtype, n, count, nrhs, () => {}, nrhs === 3 ? nanB : undefined), n * 7 + count, dtype);
      }
    });
    test(`gesv and getrs over several chunks, failures spread, ${dtype}`, () => {
      for (const [n, count] of [[16, 301], [17, 250]] as const) {
        conform(serialKernels, luCase('gesv', dtype, n, count, 1, zeroColumn((p) => p % 7 === 3 || p % 11 === 0)), n + count, dtype);
        conform(serialKernels, luCase('getrs', dtype, n, count, 1, () => {}), n * 2 + count, dtype);
      }
    });
  }
});
