/**
 * potrf/posv/potrs and getrf/gesv/getrs of the fast CPU backend against the reference: every size
 * 1..40, 47, 64, 100, 128, 256 (getrf/gesv below the blocked crossover: blocked.test.ts has the
 * rest), both triangles and transposes, strided/list/variable batches with
 * padding and gaps, info and pivots poisoned before the call, failing matrices among good ones.
 */
import { describe, test } from 'node:test';
import { serialKernels } from '../../../src/cpu-fast/backend.js';
import { strided } from '../../../src/core/batch.js';
import type { DType } from '../../../src/core/dtype.js';
import { cpuTuning } from '../../../src/cpu-fast/context.js';
import { conform, info, makeBatch, pivots, type Kind } from './harness.js';
import type { Rng } from '../../helpers/random.js';
import { SIZES, cholesky, lu } from './cases.js';

const DTYPES: readonly DType[] = ['float64', 'float32'];
const KINDS: readonly Kind[] = ['strided', 'list', 'variable'];

describe('cpu-fast factorisations match the reference bit for bit', () => {
  for (const dtype of DTYPES) {
    // Up to 20 (the unrolled kernels and the first sizes past them) every batch kind meets every
    // triangle, op and transpose; above, where a batch kind only changes how matrices reach the same
    // kernel, the kind takes turns over them, so each size still meets every kind.
    const kindsAt = (n: number, turn: number): readonly Kind[] => (n <= 20 ? KINDS : [KINDS[(n + turn) % KINDS.length]!]);
    test(`Cholesky ${dtype}`, () => {
      for (const n of SIZES) (['lower', 'upper'] as const).forEach((uplo, u) => (['potrf', 'posv', 'potrs'] as const).forEach((op, o) => {
        for (const kind of kindsAt(n, 3 * u + o)) conform(serialKernels, cholesky(kind, dtype, n, uplo, op), n, dtype);
      }));
    });
    test(`LU ${dtype}`, () => {
      for (const n of SIZES) {
        // the blocked sizes (variable batches reach n + 2) are in blocked.test.ts, to rounding
        if (n + 2 < cpuTuning().luBlocked.min) (['getrf', 'gesv'] as const).forEach((op, o) => {
          for (const kind of kindsAt(n, o)) conform(serialKernels, lu(kind, dtype, n, op), n, dtype);
        });
        (['N', 'T'] as const).forEach((trans, t) => {
          for (const kind of kindsAt(n, 2 + t)) conform(serialKernels, lu(kind, dtype, n, 'getrs', trans), n, dtype);
        });
      }
    });
    test(`LU pivot search: ties and NaNs, ${dtype}`, () => {
      // small integers: many entries of equal magnitude in a column (the first must win, in
      // either lane of the vectorised search, before or after a scalar row); a NaN on the
      // diagonal (chosen: the scan starts there) or below it (never chosen) in some matrices
      for (const n of [16, 17, 18, 23, 33, 47, 64]) for (const op of ['getrf', 'gesv'] as const) {
        const build = (rng: Rng): object => {
          const count = 5;
          const shapes = Array.from({ length: count }, () => ({ rows: n, cols: n }));
          const a = makeBatch(rng, dtype, 'strided', shapes, (r, v, p) => {
            for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) v.data[v.offset + i + j * v.ld] = r.int(-2, 2);
            if (p === 1) v.data[v.offset + 3 + 3 * v.ld] = NaN;
            if (p === 3) v.data[v.offset + (n - 1) + 5 * v.ld] = NaN;
          });
          const b = makeBatch(rng, dtype, 'strided', shapes.map(() => ({ rows: n, cols: 2 })));
          const r = { a, ipiv: pivots(count * n), pivotStride: n, info: info(count) };
          return op === 'gesv' ? { ...r, b } : r;
        };
        conform(serialKernels, { op, label: `${op} ties/NaN ${dtype} n=${n}`, build }, n * 13, dtype);
      }
    });
    test(`getrs with no right-hand sides, ${dtype}`, () => {
      // B n x 0 (strided, stride 0): nothing to solve, infos 0 as the reference sets them
      for (const n of [11, 20, 64]) {
        const build = (rng: Rng): object => {
          const count = 3;
          const a = makeBatch(rng, dtype, 'strided', Array.from({ length: count }, () => ({ rows: n, cols: n })));
          const data = dtype === 'float64' ? new Float64Array(2) : new Float32Array(2);
          const ipiv = pivots(count * n);
          for (let p = 0; p < count; p++) for (let j = 0; j < n; j++) ipiv[p * n + j] = rng.int(j, n - 1);
          return { a, b: strided(data, { rows: n, cols: 0, count, stride: 0 }), ipiv, pivotStride: n, info: info(count), trans: 'N' };
        };
        conform(serialKernels, { op: 'getrs', label: `getrs nrhs=0 ${dtype} n=${n}`, build }, n, dtype);
      }
    });
    test(`rectangular getrf ${dtype}`, () => {
      // the last four on the delayed-update kernel (min(m, n) >= 16): a tail panel, wide and tall
      for (const [m, c] of [[1, 3], [3, 1], [5, 9], [9, 5], [12, 7], [7, 12], [13, 4], [4, 20], [41, 19], [19, 41], [33, 32], [32, 33]] as const)
        for (const kind of KINDS) conform(serialKernels, lu(kind, dtype, m, 'getrf', 'N', c), m * 31 + c, dtype);
    });
  }
});
