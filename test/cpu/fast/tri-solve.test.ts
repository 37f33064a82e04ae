/**
 * The WebAssembly triangular solves (kernels/trsm-wasm.ts: potrs either triangle, getrs 'T';
 * getrs 'N' on the LU kernel's solve beside them) against the reference bit for bit, on one
 * thread and on three: every size of cases.ts's list, nrhs 1, 2, 3, 5, 8, 17 (a padding lane,
 * one and several groups of eight columns, a group and a tail), padded ld, gaps and offsets
 * (untouched, compared whole), info poisoned, zero right-hand sides, a singular U(k, k) (getrs:
 * Inf/NaN in that matrix's B only, as the reference).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fastCpuBackend, serialKernels } from '../../../src/cpu-fast/backend.js';
import { matrixAt, strided, type Batch } from '../../../src/core/batch.js';
import type { DType, FloatArray } from '../../../src/core/dtype.js';
import type { Uplo } from '../../../src/core/enums.js';
import type { Op } from '../../../src/core/ops.js';
import { Rng } from '../../helpers/random.js';
import { conform, generalFill, info, makeBatch, spdFill, splitAcrossThreads, type HostBackend, type Kind } from './harness.js';
import { SIZES } from './cases.js';

const DTYPES: readonly DType[] = ['float64', 'float32'];
const NRHS = [1, 2, 3, 5, 8, 17] as const;
/**
 * Fewer right-hand-side counts above 20 (time): from 21 to 40 half the counts, the halves taking turns
 * with the size's parity (each count still meets both parities of n, and every size one lane, a
 * group with a tail and two groups and a tail); at the largest sizes one lane, one group with a tail,
 * two groups and a tail.
 */
const nrhsFor = (n: number): readonly number[] => (n >= 100 ? [1, 17] : n >= 47 ? [1, 3, 17] : n <= 20 ? NRHS : n % 2 === 0 ? [1, 5, 17] : [2, 3, 8, 17]);
const countFor = (n: number): number => (n <= 40 ? 3 : 1);

function potrsCase(kind: Kind, dtype: DType, n: number, uplo: Uplo, nrhs: number, count = countFor(n)) {
  return {
    op: 'potrs' as const, label: `potrs ${kind} ${dtype} n=${n} ${uplo} nrhs=${nrhs}`,
    build(rng: Rng): object {
      const a = makeBatch(rng, dtype, kind, Array.from({ length: count }, () => ({ rows: n, cols: n })), spdFill(() => -1));
      const b = makeBatch(rng, dtype, kind, Array.from({ length: count }, () => ({ rows: n, cols: nrhs })));
      return { uplo, a, b, info: info(count) };
    },
  };
}

/** getrs with pivots in [j, n), and (singular >= 0) matrix 1's U(singular, singular) exactly zero. */
function getrsCase(kind: Kind, dtype: DType, n: number, trans: Op, nrhs: number, count = countFor(n), singular = -1) {
  return {
    op: 'getrs' as const, label: `getrs ${kind} ${dtype} n=${n} ${trans} nrhs=${nrhs}${singular >= 0 ? ` singular at ${singular}` : ''}`,
    build(rng: Rng): object {
      const a = makeBatch(rng, dtype, kind, Array.from({ length: count }, () => ({ rows: n, cols: n })), (r, v, p) => {
        generalFill(() => -1)(r, v, p);
        // a diagonal away from zero (a usable factor), but for the singular one
        for (let i = 0; i < n; i++) v.data[v.offset + i + i * v.ld] = (p === 1 && i === singular) ? 0 : 2 + (i % 5);
      });
      const ipiv = new Int32Array(count * n + 3).fill(-9);
      for (let p = 0; p < count; p++) for (let j = 0; j < n; j++) ipiv[p * n + j] = rng.int(j, n - 1);
      const b = makeBatch(rng, dtype, kind, Array.from({ length: count }, () => ({ rows: n, cols: nrhs })));
      return { a, b, ipiv, pivotStride: n, trans, info: info(count) };
    },
  };
}

function everything(backend: HostBackend, dtype: DType, sizes: readonly number[], kind: Kind): void {
  for (const n of sizes) for (const nrhs of nrhsFor(n)) {
    for (const uplo of ['lower', 'upper'] as const) conform(backend, potrsCase(kind, dtype, n, uplo, nrhs), n * 7 + nrhs, dtype);
    for (const trans of ['N', 'T'] as const) conform(backend, getrsCase(kind, dtype, n, trans, nrhs), n * 11 + nrhs, dtype);
  }
}

describe('potrs and getrs on the WebAssembly solves match the reference bit for bit', () => {
  for (const dtype of DTYPES) {
    test(`every size, nrhs 1 ... 17, ${dtype}, strided`, () => everything(serialKernels, dtype, SIZES, 'strided'));
    test(`list and variable batches, ${dtype}`, () => {
      for (const kind of ['list', 'variable'] as const) everything(serialKernels, dtype, [13, 17, 33], kind);
    });
  }
  test('factors far apart (packed, not copied as they lie) and A with B in one array', () => {
    for (const dtype of DTYPES) for (const n of [13, 40]) for (const op of ['potrs-lower', 'potrs-upper', 'getrs-T'] as const) {
      const build = (rng: Rng): object => {
        const count = 5, nrhs = 3, stride = 3 * n * n + 1;
        const data = dtype === 'float64' ? new Float64Array(count * stride + 2) : new Float32Array(count * stride + 2);
        for (let i = 0; i < data.length; i++) data[i] = rng.uniform();
        for (let p = 0; p < count; p++) for (let i = 0; i < n; i++) data[p * stride + 1 + i + i * n] = n + 2 + (i % 3);
        const a = strided(data, { rows: n, count, stride, offset: 1 });
        const b = strided(data, { rows: n, cols: nrhs, count, stride, offset: 1 + n * n + 3 });
        const ipiv = new Int32Array(count * n);
        for (let p = 0; p < count; p++) for (let j = 0; j < n; j++) ipiv[p * n + j] = rng.int(j, n - 1);
        return op === 'getrs-T' ? { a, b, ipiv, pivotStride: n, trans: 'T', info: info(count) }
          : { a, b, uplo: op === 'potrs-lower' ? 'lower' : 'upper', info: info(count) };
      };
      conform(serialKernels, { op: op === 'getrs-T' ? 'getrs' : 'potrs', label: `${op} ${dtype} n=${n} apart`, build }, n, dtype);
    }
  });
  test('zero right-hand sides: B untouched, info 0', () => {
    for (const dtype of DTYPES) for (const n of [13, 40, 64]) {
      conform(serialKernels, potrsCase('strided', dtype, n, 'lower', 0, 3), n, dtype);
      conform(serialKernels, potrsCase('strided', dtype, n, 'upper', 0, 3), n, dtype);
      conform(serialKernels, getrsCase('strided', dtype, n, 'T', 0, 3), n, dtype);
    }
  });
  test("getrs 'T' with an exactly zero U(k, k): Inf/NaN in that matrix's B only, as the reference", () => {
    for (const dtype of DTYPES) for (const n of [13, 31, 64]) for (const nrhs of [1, 3]) {
      const c = getrsCase('strided', dtype, n, 'T', nrhs, 4, n >> 1);
      conform(serialKernels, c, n + nrhs, dtype);
      const r = c.build(new Rng(n + nrhs)) as { b: Batch<FloatArray> };
      serialKernels.getrs(r as Parameters<typeof serialKernels.getrs>[0]);
      for (let p = 0; p < 4; p++) {
        const m = matrixAt(r.b, p);
        let finite = true;
        for (let j = 0; j < nrhs; j++) for (let i = 0; i < n; i++) finite &&= Number.isFinite(m.data[m.offset + i + j * m.ld]!);
        assert.equal(finite, p !== 1, `matrix ${p}`);
      }
    }
  });
});

describe('potrs and getrs on the WebAssembly solves over three threads', () => {
  splitAcrossThreads(3);
  test('batches of 5 and 7 (not multiples of three), both dtypes', () => {
    for (const dtype of DTYPES) for (const [n, count] of [[17, 7], [47, 5]] as const) for (const nrhs of [1, 5]) {
      for (const uplo of ['lower', 'upper'] as const) conform(fastCpuBackend, potrsCase('strided', dtype, n, uplo, nrhs, count), n * count + nrhs, dtype);
      conform(fastCpuBackend, getrsCase('strided', dtype, n, 'T', nrhs, count), n * count + nrhs, dtype);
    }
  });
});
