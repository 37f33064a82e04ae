/**
 * trsm 'left' on the WebAssembly solves (ops/trsm-wasm.ts trsmLeftWasm, tuning.ts
 * trsmLeftWasm) against the reference bit for bit: every left variant (uplo x transA x diag),
 * orders on both sides of the crossover to the blocked trsm and up to 100, right-hand sides 1, 3
 * (a padding lane), 8 (one full group) and 17 (groups, a tail, a padding lane), alpha 1 and -2.5,
 * padded ld, strided and list batches, both dtypes; the data the reference's shortcuts meet
 * (cases-blas3.ts: an exact zero and an Inf in A's triangle, zeros in B, a zero diagonal element
 * giving Inf/NaN); and a batch split over three threads (counts 5 and 7).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fastCpuBackend, serialKernels } from '../../../src/cpu-fast/backend.js';
import { strided, type StridedBatch } from '../../../src/core/batch.js';
import type { DType, FloatArray } from '../../../src/core/dtype.js';
import type { Diag, Uplo } from '../../../src/core/enums.js';
import type { Op } from '../../../src/core/ops.js';
import { cpuTuning } from '../../../src/cpu-fast/context.js';
import type { Rng } from '../../helpers/random.js';
import { conform, makeBatch, splitAcrossThreads, type HostBackend, type Kind } from './harness.js';
import { rhsFill, triangleFill } from './cases-blas3.js';

const DTYPES: readonly DType[] = ['float64', 'float32'];
const VARIANTS = (['lower', 'upper'] as const).flatMap((uplo) => (['N', 'T'] as const).flatMap((transA) =>
  (['nonunit', 'unit'] as const).map((diag) => ({ uplo, transA, diag }))));

function trsmCase(kind: Kind, dtype: DType, m: number, nrhs: number, v: { uplo: Uplo; transA: Op; diag: Diag }, alpha: number, count: number) {
  return {
    op: 'trsm' as const, label: `trsm ${kind} ${dtype} m=${m} nrhs=${nrhs} left ${v.uplo} ${v.transA} ${v.diag} alpha=${alpha} count=${count}`,
    build(rng: Rng): object {
      const a = makeBatch(rng, dtype, kind, Array.from({ length: count }, () => ({ rows: m, cols: m })), triangleFill(true));
      const b = makeBatch(rng, dtype, kind, Array.from({ length: count }, () => ({ rows: m, cols: nrhs })), rhsFill);
      return { side: 'left', ...v, alpha, a, b };
    },
  };
}

/** Orders around the crossover (below it the blocked trsm, within a tolerance, is not this file's) and inside the range. */
const ordersFor = (dtype: DType): number[] => {
  const { min, max } = cpuTuning().trsmLeftWasm[dtype];
  return [...new Set([min, min + 1, 32, 33, 64, 100, max])].filter((m) => m >= min && m <= Math.min(max, 100));
};

function every(backend: HostBackend, dtype: DType, kind: Kind, orders: readonly number[], count: number): void {
  // A retuned crossover could empty the orders (the list test keeps those to 33): then nothing would run.
  assert.ok(orders.length > 0, `${dtype} ${kind}: no orders inside the WebAssembly solves' range`);
  VARIANTS.forEach((v, t) => {
    // alpha (1 or -2.5: it only scales B) in turn, so each variant and order meets both
    for (const m of orders) (m >= 64 ? [3, 17] : [1, 3, 8, 17]).forEach((nrhs, r) => {
      const alpha = [1, -2.5][(m + r + t) % 2]!;
      conform(backend, trsmCase(kind, dtype, m, nrhs, v, alpha, count), m * 100 + nrhs * 10 + t, dtype);
    });
  });
}

describe("trsm 'left' on the WebAssembly solves matches the reference bit for bit", () => {
  for (const dtype of DTYPES) {
    test(`every left variant, strided (4 matrices), ${dtype}`, () => every(serialKernels, dtype, 'strided', ordersFor(dtype), 4));
    test(`list batches, ${dtype}`, () => every(serialKernels, dtype, 'list', ordersFor(dtype).filter((m) => m <= 33), 4));
  }
  test('a square B of the bench (m = nrhs), both dtypes', () => {
    for (const dtype of DTYPES) for (const m of [32, 64]) VARIANTS.forEach((v, t) => conform(serialKernels, trsmCase('strided', dtype, m, m, v, 0.5, 4), m + t, dtype));
  });
  test('B stored densely (ld = m, back to back: transposed in WebAssembly), both dtypes', () => {
    for (const dtype of DTYPES) for (const [m, nrhs] of [[17, 1], [33, 3], [40, 17], [64, 64]] as const) VARIANTS.forEach((v, t) => {
      const c = trsmCase('strided', dtype, m, nrhs, v, -2.5, 5);
      const build = (rng: Rng): object => {
        const r = c.build(rng) as { b: StridedBatch<FloatArray> };
        const data = dtype === 'float64' ? new Float64Array(5 * m * nrhs) : new Float32Array(5 * m * nrhs);
        for (let i = 0; i < data.length; i++) data[i] = rng.uniform() - 0.5;
        data[0] = 0; data[m - 1] = 0; // zeros the reference skips
        return { ...r, b: strided(data, { rows: m, cols: nrhs, count: 5 }) };
      };
      conform(serialKernels, { ...c, label: `${c.label} dense`, build }, m * 31 + nrhs + t, dtype);
    });
  });
});

describe("trsm 'left' on the WebAssembly solves over three threads", () => {
  splitAcrossThreads(3);
  test('batches of 5 and 7 (not multiples of three), both dtypes', () => {
    for (const dtype of DTYPES) for (const [m, count] of [[33, 7], [64, 5]] as const) VARIANTS.forEach((v, t) => {
      conform(fastCpuBackend, trsmCase('strided', dtype, m, 5, v, -2.5, count), m * count + t, dtype);
    });
  });
});
