/**
 * The fast backend's complex kernels (potrf, posv, potrs, getrf, gesv, getrs on complex128 and
 * complex64) against the complex reference, bit for bit: every float of every array (padding,
 * gaps, the other triangle), info and pivots, on n = 1 ... 17
 * (past the tuning table's complexUnrollMax; getrf, gesv and getrs 'N' run the WebAssembly kernel in
 * its range, complexLuWasm, tested on its own in complex-lu-wasm.test.ts), strided batches with odd ld, stride and offset, list batches, a batch holding a failing member
 * (not positive definite, exactly singular) and one holding NaN, on one thread (the serial
 * kernels) and spread over two (the worker pool, the copies for the workers included).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hostComplexOp } from '../../../src/cpu-fast/backend.js';
import { FAST_COMPLEX } from '../../../src/cpu-fast/ops/zfactor.js';
import { cpuTuning } from '../../../src/cpu-fast/context.js';
import type { ComplexDType } from '../../../src/core/dtype.js';
import type { ComplexOp } from '../../../src/core/op-specs.js';
import { complexReference } from '../../../src/cpu/complex/backend.js';
import { LIST, ODD, Rng, get, place, random, randomHpd, set, type Layout, type Z } from '../../helpers/complex.js';
import { assertSameBits, splitAcrossThreads } from './harness.js';

splitAcrossThreads(2);

type Op = 'potrf' | 'posv' | 'potrs' | 'getrf' | 'gesv' | 'getrs';
type Request = Record<string, unknown>;
const TYPES: readonly ComplexDType[] = ['complex128', 'complex64'];

/** Member p's matrix: Hermitian positive definite (Cholesky) or diagonally weighted general (LU); `bad` fails, `nan` holds NaN. */
function matrix(rng: Rng, op: Op, n: number, bad: boolean, nan: boolean): Z {
  const cholesky = op === 'potrf' || op === 'posv' || op === 'potrs';
  const a = cholesky ? randomHpd(rng, n) : random(rng, n, n);
  if (!cholesky) for (let i = 0; i < n; i++) set(a, i, i, get(a, i, i)[0] + 2, get(a, i, i)[1]);
  const k = n - 1 - (n > 2 ? 1 : 0);
  if (bad && cholesky) set(a, k, k, -1, 0);
  if (bad && !cholesky) for (let i = 0; i < n; i++) set(a, i, k, 0, 0);
  if (nan) set(a, n - 1, 0, NaN, 0);
  return a;
}

/** The request of one case, built afresh from its seed (so the fast run and the reference see equal data). */
function build(op: Op, dtype: ComplexDType, n: number, count: number, layout: Layout, seed: number, trans: ComplexOp, uplo: 'lower' | 'upper'): Request {
  const rng = new Rng(seed);
  const ms = Array.from({ length: count }, (_, p) => matrix(rng, op, n, p === 1, p === count - 1 && count > 2));
  const a = place(ms, n, n, dtype, layout, rng.uniform()).batch;
  const nrhs = 1 + (seed % 3);
  const b = place(Array.from({ length: count }, () => random(rng, n, nrhs)), n, nrhs, dtype, layout, rng.uniform()).batch;
  const info = new Int32Array(count).fill(-5);
  const ipiv = new Int32Array(count * n).fill(-5);
  const lu = { ipiv, pivotStride: n, info };
  switch (op) {
    case 'potrf': return { uplo, a, info };
    case 'posv': return { uplo, a, b, info };
    case 'potrs':
      complexReference.potrf({ uplo, a, info: new Int32Array(count) });
      return { uplo, a, b, info };
    case 'getrf': return { a, ...lu };
    case 'gesv': return { a, b, ...lu };
    case 'getrs':
      complexReference.getrf({ a, ...lu });
      return { trans, a, b, ...lu };
  }
}

function check(op: Op, dtype: ComplexDType, n: number, count: number, layout: Layout, seed: number, threaded: boolean, trans: ComplexOp = 'N', uplo: 'lower' | 'upper' = 'lower'): void {
  const label = `${op} ${dtype} n=${n} count=${count} ${layout.kind} ${uplo} ${trans} threads=${threaded}`;
  const want = build(op, dtype, n, count, layout, seed, trans, uplo);
  (complexReference[op] as unknown as (r: Request) => void)(want);
  const got = build(op, dtype, n, count, layout, seed, trans, uplo);
  if (threaded) hostComplexOp('cpu-fast', op)(got);
  else (FAST_COMPLEX[op] as unknown as (r: Request) => void)(got);
  assertSameBits(label, got, want);
}

const OPS: readonly Op[] = ['potrf', 'posv', 'potrs', 'getrf', 'gesv', 'getrs'];

describe('cpu-fast complex kernels match the complex reference bit for bit', () => {
  test('the tests reach past every kernel size', () => {
    const { cholesky, potrs, lu, gesv } = cpuTuning().complexUnrollMax;
    for (const max of [cholesky, potrs, lu, gesv]) assert.ok(max < 17);
  });
  for (const op of OPS) {
    test(`${op}: strided and list batches, failing and NaN members, both types, one thread`, () => {
      let seed = 1;
      for (const dtype of TYPES) {
        for (let n = 1; n <= 17; n++) {
          const layout = n % 3 === 0 ? LIST : n % 3 === 1 ? ODD : { kind: 'strided' as const, pad: 0, gap: 0, offset: 1 };
          const uplo = n % 2 === 0 ? 'upper' : 'lower';
          const trans: ComplexOp = (['N', 'T', 'C'] as const)[n % 3]!;
          check(op, dtype, n, 4, layout, seed++, false, trans, uplo);
        }
      }
    });
    test(`${op}: spread over two threads (copies for the workers), both types`, () => {
      let seed = 100;
      for (const dtype of TYPES) {
        for (const n of [3, 8, 10]) {
          for (const layout of [ODD, LIST]) {
            check(op, dtype, n, 7, layout, seed++, true, 'C', n === 8 ? 'upper' : 'lower');
          }
        }
      }
    });
  }
});
