/**
 * The complex benchmark workloads (complex128, complex64: interleaved (re, im) pairs, every
 * length, ld and stride of a batch in pairs), as the real ones of workloads.ts: data made on the
 * context's backend, overwritten operands restored from pristine copies outside the timed calls.
 * - gemm: C = A B (beta 0);
 * - potrf, posv: Hermitian positive definite A, lower; posv with one right-hand side;
 * - getrf, gesv: general A with a dominant diagonal; gesv with one right-hand side;
 * - trsm: left, lower, no transpose, non-unit, alpha 1, B n x n (A's lower triangle read);
 * - heev: random Hermitian A (not diagonally dominant), eigenvalues and vectors, lower; w real;
 * - gesvd: general square A, s (real), U and VT (thin: n x n each).
 * Costs: core/counts.ts (4x the real flops, whole pairs' bytes; heev's w and gesvd's s reals).
 */
import { strided, type StridedBatch } from '../core/batch.js';
import { counts, type Cost } from '../core/counts.js';
import type { ComplexDType, DType, FloatArray } from '../core/dtype.js';
import { allocate } from '../core/dtype.js';
import { complexInfo } from '../core/dtype-table.js';
import { isDeviceStorage, type Storage } from '../core/storage.js';
import type { Context } from '../api/context.js';
import { randomComplexGeneral, randomHermitian, randomHpd, randomMatrices, type Random } from './data.js';
import { Placement } from './placement.js';
import type { BenchOp, Ints, Prepared } from './workloads.js';

export interface ComplexWorkload {
  cost(dtype: ComplexDType, n: number): Cost;
  prepare(ctx: Context, dtype: ComplexDType, n: number, count: number, rng: Random): Prepared;
}

/** Right-hand sides of the complex posv and gesv workloads (BENCH_NRHS of workloads.ts, the vendor's potrsBatched's only nrhs). */
export const COMPLEX_NRHS = 1;

/** A from `makeA` (pairs of the parts' dtype) on the context: its pristine copy `a0`, the working copy `a` and its batch `A`. */
function pristineA(
  ctx: Context, makeA: (real: DType, n: number, count: number, rng: Random) => FloatArray, dtype: ComplexDType, n: number, count: number, rng: Random,
): { place: Placement; real: DType; a0: Storage; a: Storage; A: StridedBatch<Storage> } {
  const place = new Placement(ctx);
  const real = complexInfo(dtype).real;
  const a0 = place.put(makeA(real, n, count, rng));
  const a = place.working(a0);
  return { place, real, a0, a, A: strided(a, { rows: n, cols: n, count, dtype }) };
}

/**
 * A workload whose A (and B, where `rhs` gives it columns) the call overwrites: A from `makeA`
 * (pairs of the parts' dtype), B random; both restored from pristine copies before each run.
 */
function inPlace(
  cost: ComplexWorkload['cost'],
  makeA: (real: DType, n: number, count: number, rng: Random) => FloatArray,
  call: (ctx: Context, a: StridedBatch<Storage>, b: StridedBatch<Storage> | undefined, ints: Ints) => void,
  rhs?: (n: number) => number,
): ComplexWorkload {
  return {
    cost,
    prepare(ctx, dtype, n, count, rng) {
      const { place, real, a0, a, A } = pristineA(ctx, makeA, dtype, n, count, rng);
      const nrhs = rhs?.(n) ?? 0;
      const b0 = nrhs > 0 ? place.put(randomMatrices(real, 2 * n, nrhs, count, rng)) : undefined;
      const b = b0 !== undefined ? place.working(b0) : undefined;
      const B = b !== undefined ? strided(b, { rows: n, cols: nrhs, count, dtype }) : undefined;
      const ints: Ints = { info: place.ints(count), ipiv: place.ints(count * n) };
      const arrays: Record<string, Storage> = { a, a0, ...(b !== undefined ? { b } : {}), ...(isDeviceStorage(ints.ipiv) ? { ipiv: ints.ipiv } : {}) };
      return {
        run: () => call(ctx, A, B, ints),
        reset: () => { place.restore(a0, a); if (b0 !== undefined && b !== undefined) place.restore(b0, b); },
        dispose: () => place.dispose(),
        arrays,
      };
    },
  };
}

/** The complex workloads by op; the other ops have no complex benchmark. */
export const COMPLEX_WORKLOADS: Partial<Record<BenchOp, ComplexWorkload>> = {
  gemm: {
    cost: (dtype, n) => counts.zgemm(dtype, n, n, n),
    prepare(ctx, dtype, n, count, rng) {
      const place = new Placement(ctx);
      const real = complexInfo(dtype).real;
      // 2 n x n floats a matrix: the pairs, interleaved.
      const [a, b, c] = [0, 1, 2].map(() => place.put(randomMatrices(real, 2 * n, n, count, rng)));
      const pairs = (d: Storage): StridedBatch<Storage> => strided(d, { rows: n, cols: n, count, dtype });
      const [A, B, C] = [pairs(a!), pairs(b!), pairs(c!)];
      return { run: () => ctx.gemm({ a: A, b: B, c: C, alpha: 1, beta: 0 }), reset: () => {}, dispose: () => place.dispose(), arrays: { a: a!, b: b!, c: c! } };
    },
  },
  potrf: inPlace((d, n) => counts.potrf(d, n), randomHpd, (ctx, a, _b, { info }) => { ctx.potrf({ a, uplo: 'lower', info }); }),
  getrf: inPlace((d, n) => counts.getrf(d, n), randomComplexGeneral, (ctx, a, _b, { info, ipiv }) => { ctx.getrf({ a, info, ipiv }); }),
  posv: inPlace((d, n) => counts.posv(d, n, COMPLEX_NRHS), randomHpd,
    (ctx, a, b, { info }) => { ctx.posv({ a, b: b!, uplo: 'lower', info }); }, () => COMPLEX_NRHS),
  gesv: inPlace((d, n) => counts.gesv(d, n, COMPLEX_NRHS), randomComplexGeneral,
    (ctx, a, b, { info, ipiv }) => { ctx.gesv({ a, b: b!, info, ipiv }); }, () => COMPLEX_NRHS),
  trsm: complexTrsmWorkload((n) => n),
  geqrf: {
    cost: (d, n) => counts.geqrf(d, n, n),
    prepare(ctx, dtype, n, count, rng) {
      const { place, real, a0, a, A } = pristineA(ctx, randomComplexGeneral, dtype, n, count, rng);
      const tau = place.put(allocate(real, 2 * n * count));
      const T = strided(tau, { rows: n, cols: 1, count, dtype });
      const info = place.ints(count);
      return { run: () => { ctx.geqrf({ a: A, tau: T, info }); }, reset: () => place.restore(a0, a), dispose: () => place.dispose(), arrays: { a, a0, tau } };
    },
  },
  heev: decomposition((d, n) => counts.syev(d, n), randomHermitian, (n) => ({ w: { real: true, rows: n, cols: 1 } }),
    (ctx, a, { w }, info) => { ctx.heev({ a, w: w!, jobz: 'vectors', uplo: 'lower', info }); }),
  gesvd: decomposition((d, n) => counts.gesvd(d, n, n), randomComplexGeneral,
    (n) => ({ s: { real: true, rows: n, cols: 1 }, u: { real: false, rows: n, cols: n }, vt: { real: false, rows: n, cols: n } }),
    (ctx, a, { s, u, vt }, info) => { ctx.gesvd({ a, s: s!, u: u!, vt: vt!, info }); }),
};

/**
 * heev and gesvd: A (the call overwrites it with heev's vectors; the vendor's Jacobi routines
 * destroy it in gesvd) restored from its pristine copy `a0` before each run; `arrays` holds `a0`
 * too (the vendor's values are checked against the CPU reference on the pristine matrices).
 */
function decomposition(
  cost: ComplexWorkload['cost'],
  makeA: (real: DType, n: number, count: number, rng: Random) => FloatArray,
  outputs: (n: number) => Record<string, { real: boolean; rows: number; cols: number }>,
  call: (ctx: Context, a: StridedBatch<Storage>, out: Record<string, StridedBatch<Storage>>, info: Ints['info']) => void,
): ComplexWorkload {
  return {
    cost,
    prepare(ctx, dtype, n, count, rng) {
      const { place, real, a0, a, A } = pristineA(ctx, makeA, dtype, n, count, rng);
      const arrays: Record<string, Storage> = { a, a0 };
      const out: Record<string, StridedBatch<Storage>> = {};
      for (const [name, o] of Object.entries(outputs(n))) {
        const x = place.put(allocate(real, (o.real ? 1 : 2) * o.rows * o.cols * count));
        arrays[name] = x;
        out[name] = strided(x, { rows: o.rows, cols: o.cols, count, ...(o.real ? {} : { dtype }) });
      }
      const info = place.ints(count);
      return { run: () => call(ctx, A, out, info), reset: () => place.restore(a0, a), dispose: () => place.dispose(), arrays };
    },
  };
}

/** trsm (left, lower, no transpose, non-unit, alpha 1) with B of `nrhs(n)` columns: the bench's B n x n, the vendor sweep's 1 and more. */
export function complexTrsmWorkload(nrhs: (n: number) => number): ComplexWorkload {
  return inPlace((d, n) => counts.trsm(d, 'left', n, nrhs(n)), randomComplexGeneral,
    (ctx, a, b) => { ctx.trsm({ a, b: b!, side: 'left', uplo: 'lower' }); }, nrhs);
}

/** The ops with a complex benchmark, in the table's order. */
export const COMPLEX_BENCH_OPS: readonly BenchOp[] = Object.keys(COMPLEX_WORKLOADS) as BenchOp[];
