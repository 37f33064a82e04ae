/**
 * Benchmark workloads: for each operation, how to make its data (on the context's backend, so
 * that a CUDA benchmark times device-resident batches), how to run it, and what it costs in flops
 * and bytes. In-place operations are reset from a pristine copy before each timed run, outside
 * the timed region, so every run sees fresh input.
 */
import { strided, type StridedBatch } from '../core/batch.js';
import { counts, type Cost } from '../core/counts.js';
import { allocate, dtypeOfArray, type DType, type ElementType, type FloatArray } from '../core/dtype.js';
import { isComplexDType } from '../core/dtype-table.js';
import { MyriadError } from '../core/errors.js';
import type { IntStorage, Storage } from '../core/storage.js';
import type { Context } from '../api/context.js';
import { COMPLEX_BENCH_OPS, COMPLEX_WORKLOADS } from './complex-workloads.js';
import { Random, randomGeneral, randomMatrices, randomSpd } from './data.js';
import { Placement } from './placement.js';

export const BENCH_OPS = ['gemm', 'potrf', 'getrf', 'posv', 'gesv', 'posv-many', 'gesv-many', 'potrs', 'getrs', 'trsm', 'trmm', 'syrk', 'lauum', 'trtri', 'potri', 'poti', 'syev', 'syev-values', 'heev', 'gesvd', 'geqrf', 'orgqr', 'qr', 'ormqr', 'gels', 'gels-tall', 'gels-wide', 'gels-many'] as const;
export type BenchOp = (typeof BENCH_OPS)[number];

export interface Prepared {
  /** The call being timed. */
  run(): void;
  /** Restores inputs that the call overwrites (not timed). */
  reset(): void;
  /** Frees device memory. */
  dispose(): void;
  /**
   * The batches, for vendor baselines on the same data; the complex factorisations add `a0`, the
   * pristine A, and on a device `ipiv`, the own pivots (the vendor's result is checked against them).
   */
  readonly arrays: Record<string, Storage>;
}

export interface Workload {
  cost(dtype: DType, n: number): Cost;
  prepare(ctx: Context, dtype: DType, n: number, count: number, rng: Random): Prepared;
}

/** info (one per matrix) and ipiv (n per matrix), allocated once per benchmark row. */
export interface Ints { info: IntStorage; ipiv: IntStorage }

/** Right-hand sides per system in the solve benchmarks. */
export const BENCH_NRHS = 1;

/** Right-hand sides per system of posv-many / gesv-many: n / 4 (at least 1), the many-RHS case of BENCHMARKS.md. */
export const manyRhs = (n: number): number => Math.max(1, Math.floor(n / 4));

const square = (data: Storage, n: number, count: number): StridedBatch<Storage> => strided(data, { rows: n, cols: n, count });

/** A workload whose input `a` is overwritten (and, for solves, `b` too). */
function inPlace(
  cost: Workload['cost'],
  makeA: (dtype: DType, n: number, count: number, rng: Random) => FloatArray,
  call: (ctx: Context, a: StridedBatch<Storage>, b: StridedBatch<Storage> | undefined, ints: Ints) => void,
  /** Columns of B for each n (none when absent). */
  rhs?: (n: number) => number,
): Workload {
  return {
    cost,
    prepare(ctx, dtype, n, count, rng) {
      const place = new Placement(ctx);
      const a0 = place.put(makeA(dtype, n, count, rng));
      const a = place.working(a0);
      const nrhs = rhs?.(n) ?? 0;
      const b0 = nrhs > 0 ? place.put(randomMatrices(dtype, n, nrhs, count, rng)) : undefined;
      const b = b0 !== undefined ? place.working(b0) : undefined;
      const A = square(a, n, count);
      const B = b !== undefined ? strided(b, { rows: n, cols: nrhs, count }) : undefined;
      const ints: Ints = { info: place.ints(count), ipiv: place.ints(count * n) };
      return {
        run: () => call(ctx, A, B, ints),
        reset: () => { place.restore(a0, a); if (b0 !== undefined && b !== undefined) place.restore(b0, b); },
        dispose: () => place.dispose(),
        arrays: b !== undefined ? { a, b } as Record<string, Storage> : { a },
      };
    },
  };
}

/** Factors once (untimed) so that the solve alone is timed; B has `nrhs` columns. */
function solveOnly(
  cost: Workload['cost'],
  makeA: (dtype: DType, n: number, count: number, rng: Random) => FloatArray,
  factor: (ctx: Context, a: StridedBatch<Storage>, ints: Ints) => void,
  solve: (ctx: Context, a: StridedBatch<Storage>, b: StridedBatch<Storage>, ints: Ints) => void,
  nrhs = BENCH_NRHS,
): Workload {
  return {
    cost,
    prepare(ctx, dtype, n, count, rng) {
      const place = new Placement(ctx);
      const a = place.working(place.put(makeA(dtype, n, count, rng)));
      const A = square(a, n, count);
      const ints: Ints = { info: place.ints(count), ipiv: place.ints(count * n) };
      factor(ctx, A, ints);
      const b0 = place.put(randomMatrices(dtype, n, nrhs, count, rng));
      const b = place.working(b0);
      const B = strided(b, { rows: n, cols: nrhs, count });
      return {
        run: () => solve(ctx, A, B, ints),
        reset: () => place.restore(b0, b),
        dispose: () => place.dispose(),
        arrays: { a, b },
      };
    },
  };
}

/** syev on symmetric positive definite matrices, lower, with or without the vectors. */
function eigenvalues(jobz: 'vectors' | 'values'): Workload {
  return {
    cost: (dtype, n) => counts.syev(dtype, n, jobz === 'vectors'),
    prepare(ctx, dtype, n, count, rng) {
      const place = new Placement(ctx);
      const a0 = place.put(randomSpd(dtype, n, count, rng));
      const a = place.working(a0);
      const w = place.put(allocate(dtype, n * count));
      const info = place.ints(count);
      const [A, W] = [square(a, n, count), strided(w, { rows: n, cols: 1, count })];
      return {
        run: () => { ctx.syev({ a: A, w: W, jobz, uplo: 'lower', info }); },
        reset: () => place.restore(a0, a), dispose: () => place.dispose(), arrays: { a, w },
      };
    },
  };
}

/** The ops with a real benchmark: all but heev, the complex Hermitian one (on real data it is syev). */
export type RealBenchOp = Exclude<BenchOp, 'heev'>;

/**
 * C = A B (beta 0: the bench's gemm) or C = A B + C (beta 1: C read, the form of the factorizations'
 * updates), square n x n matrices. With beta 1, C grows by A B each call; no reset (the values stay
 * finite over any number of repeats the bench makes: |A B| is at most n a call).
 */
export function gemmWorkload(beta: 0 | 1): Workload {
  return {
    cost: (dtype, n) => counts.gemm(dtype, n, n, n),
    prepare(ctx, dtype, n, count, rng) {
      const place = new Placement(ctx);
      const a = place.put(randomMatrices(dtype, n, n, count, rng));
      const b = place.put(randomMatrices(dtype, n, n, count, rng));
      const c = place.put(randomMatrices(dtype, n, n, count, rng));
      const [A, B, C] = [square(a, n, count), square(b, n, count), square(c, n, count)];
      return { run: () => ctx.gemm({ a: A, b: B, c: C, alpha: 1, beta }), reset: () => {}, dispose: () => place.dispose(), arrays: { a, b, c } };
    },
  };
}

export const WORKLOADS: Readonly<Record<RealBenchOp, Workload>> = {
  gemm: gemmWorkload(0),
  potrf: inPlace((d, n) => counts.potrf(d, n), randomSpd, (ctx, a, _b, { info }) => { ctx.potrf({ a, uplo: 'lower', info }); }),
  getrf: inPlace((d, n) => counts.getrf(d, n), randomGeneral, (ctx, a, _b, { info, ipiv }) => { ctx.getrf({ a, info, ipiv }); }),
  posv: inPlace((d, n) => counts.posv(d, n, BENCH_NRHS), randomSpd,
    (ctx, a, b, { info }) => { ctx.posv({ a, b: b!, uplo: 'lower', info }); }, () => BENCH_NRHS),
  gesv: inPlace((d, n) => counts.gesv(d, n, BENCH_NRHS), randomGeneral,
    (ctx, a, b, { info, ipiv }) => { ctx.gesv({ a, b: b!, info, ipiv }); }, () => BENCH_NRHS),
  'posv-many': inPlace((d, n) => counts.posv(d, n, manyRhs(n)), randomSpd,
    (ctx, a, b, { info }) => { ctx.posv({ a, b: b!, uplo: 'lower', info }); }, manyRhs),
  'gesv-many': inPlace((d, n) => counts.gesv(d, n, manyRhs(n)), randomGeneral,
    (ctx, a, b, { info, ipiv }) => { ctx.gesv({ a, b: b!, info, ipiv }); }, manyRhs),
  potrs: solveOnly((d, n) => counts.potrs(d, n, BENCH_NRHS), randomSpd,
    (ctx, a, { info }) => { ctx.potrf({ a, uplo: 'lower', info }); },
    (ctx, a, b, { info }) => { ctx.potrs({ a, b, uplo: 'lower', info }); }),
  getrs: solveOnly((d, n) => counts.getrs(d, n, BENCH_NRHS), randomGeneral,
    (ctx, a, { info, ipiv }) => { ctx.getrf({ a, info, ipiv }); },
    (ctx, a, b, { info, ipiv }) => { ctx.getrs({ a, b, ipiv, info }); }),
  trsm: inPlace((d, n) => counts.trsm(d, 'left', n, n), randomGeneral,
    (ctx, a, b) => ctx.trsm({ a, b: b!, side: 'left', uplo: 'lower' }), (n) => n),
  trmm: inPlace((d, n) => counts.trmm(d, 'left', n, n), randomGeneral,
    (ctx, a, b) => ctx.trmm({ a, b: b!, side: 'left', uplo: 'lower' }), (n) => n),
  syrk: {
    cost: (dtype, n) => counts.syrk(dtype, n, n),
    prepare(ctx, dtype, n, count, rng) {
      const place = new Placement(ctx);
      const a = place.put(randomMatrices(dtype, n, n, count, rng));
      const c = place.put(randomMatrices(dtype, n, n, count, rng));
      const [A, C] = [square(a, n, count), square(c, n, count)];
      return { run: () => ctx.syrk({ a: A, c: C, uplo: 'lower', beta: 0 }), reset: () => {}, dispose: () => place.dispose(), arrays: { a, c } };
    },
  },
  lauum: inPlace((d, n) => counts.lauum(d, n), randomGeneral, (ctx, a, _b, { info }) => { ctx.lauum({ a, uplo: 'lower', info }); }),
  /** Eigenvalues and eigenvectors (the vendor's syevjBatched overwrites A too: reset from a copy). */
  syev: eigenvalues('vectors'),
  /** Eigenvalues only (the own call leaves A alone; the vendor's routines overwrite it: reset from a copy). */
  'syev-values': eigenvalues('values'),
  /** The thin SVD of square matrices with U and VT (A only read here; the vendor's gesvdj overwrites it). */
  gesvd: {
    cost: (dtype, n) => counts.gesvd(dtype, n, n),
    prepare(ctx, dtype, n, count, rng) {
      const place = new Placement(ctx);
      const a0 = place.put(randomMatrices(dtype, n, n, count, rng));
      const a = place.working(a0);
      const s = place.put(allocate(dtype, n * count));
      const u = place.put(allocate(dtype, n * n * count));
      const vt = place.put(allocate(dtype, n * n * count));
      const info = place.ints(count);
      const [A, S, U, VT] = [square(a, n, count), strided(s, { rows: n, cols: 1, count }), square(u, n, count), square(vt, n, count)];
      return {
        run: () => { ctx.gesvd({ a: A, s: S, u: U, vt: VT, info }); },
        reset: () => place.restore(a0, a), dispose: () => place.dispose(), arrays: { a, s, u, vt },
      };
    },
  },
  // The inverses, on SPD matrices (well conditioned; their lower triangle stands for a triangle or a
  // Cholesky factor), so that the vendor's general inverse runs on the same data.
  trtri: inPlace((d, n) => counts.trtri(d, n), randomSpd, (ctx, a, _b, { info }) => { ctx.trtri({ a, uplo: 'lower', info }); }),
  potri: inPlace((d, n) => counts.potri(d, n), randomSpd, (ctx, a, _b, { info }) => { ctx.potri({ a, uplo: 'lower', info }); }),
  poti: inPlace((d, n) => counts.poti(d, n), randomSpd, (ctx, a, _b, { info }) => { ctx.poti({ a, uplo: 'lower', info }); }),
  geqrf: qrWorkload('geqrf'),
  orgqr: qrWorkload('orgqr'),
  qr: qrWorkload('qr'),
  /** C := Q^T C (side left, as gels applies it), n reflectors of order n, C n x n (reset from a copy). */
  ormqr: {
    cost: (dtype, n) => counts.ormqr(dtype, 'left', n, n, n),
    prepare(ctx, dtype, n, count, rng) {
      const place = new Placement(ctx);
      const reflectors = randomMatrices(dtype, n, n, count, rng);
      const a = place.put(reflectors);
      const tau = place.put(householderScalars(reflectors, n, count));
      const c0 = place.put(randomMatrices(dtype, n, n, count, rng));
      const c = place.working(c0);
      const [A, T, C] = [square(a, n, count), strided(tau, { rows: n, cols: 1, count }), square(c, n, count)];
      return {
        run: () => { ctx.ormqr({ side: 'left', trans: 'T', a: A, tau: T, c: C }); },
        reset: () => place.restore(c0, c), dispose: () => place.dispose(), arrays: { a, tau, c },
      };
    },
  },
  gels: gelsWorkload('square', () => BENCH_NRHS),
  'gels-tall': gelsWorkload('tall', () => BENCH_NRHS),
  'gels-wide': gelsWorkload('wide', () => BENCH_NRHS),
  'gels-many': gelsWorkload('square', manyRhs),
};

/** The m x n of A in the gels workloads: n x n ('square'), 2n x n ('tall', least squares), n x 2n ('wide', minimum norm). */
export function gelsShape(shape: 'square' | 'tall' | 'wide', n: number): { m: number; n: number } {
  return shape === 'square' ? { m: n, n } : shape === 'tall' ? { m: 2 * n, n } : { m: n, n: 2 * n };
}

/**
 * gels on random (full-rank) A and B (max(m, n) x nrhs), both reset from pristine copies. Its cost:
 * the QR of A (or A^T), op(Q) B and the triangular solve, LAPACK's counts of each.
 */
function gelsWorkload(shape: 'square' | 'tall' | 'wide', rhs: (n: number) => number): Workload {
  return {
    cost(dtype, size) {
      const { m, n } = gelsShape(shape, size);
      const [k, rows, nrhs] = [Math.min(m, n), Math.max(m, n), rhs(size)];
      const parts = [counts.geqrf(dtype, m, n), counts.ormqr(dtype, 'left', rows, nrhs, k), counts.trsm(dtype, 'left', k, nrhs)];
      return { flops: parts.reduce((s, c) => s + c.flops, 0), bytes: parts.reduce((s, c) => s + c.bytes, 0) };
    },
    prepare(ctx, dtype, size, count, rng) {
      const { m, n } = gelsShape(shape, size);
      const [rows, nrhs] = [Math.max(m, n), rhs(size)];
      const place = new Placement(ctx);
      const a0 = place.put(randomMatrices(dtype, m, n, count, rng));
      const b0 = place.put(randomMatrices(dtype, rows, nrhs, count, rng));
      const [a, b] = [place.working(a0), place.working(b0)];
      const info = place.ints(count);
      const A = strided(a, { rows: m, cols: n, count });
      const B = strided(b, { rows, cols: nrhs, count });
      return {
        run: () => { ctx.gels({ a: A, b: B, info }); },
        reset: () => { place.restore(a0, a); place.restore(b0, b); },
        dispose: () => place.dispose(),
        arrays: { a, b },
      };
    },
  };
}

/**
 * Householder QR of n x n matrices: 'geqrf' times the factorisation, 'orgqr' the Q of n reflectors
 * (the factors made once, untimed, from the pristine copy), 'qr' both in one timed call (numpy's
 * linalg.qr: Q and R), its cost the sum of the two.
 */
function qrWorkload(kind: 'geqrf' | 'orgqr' | 'qr'): Workload {
  return {
    cost(dtype, n) {
      const f = counts.geqrf(dtype, n, n);
      const o = counts.orgqr(dtype, n, n, n);
      return kind === 'geqrf' ? f : kind === 'orgqr' ? o : { flops: f.flops + o.flops, bytes: f.bytes + o.bytes };
    },
    prepare(ctx, dtype, n, count, rng) {
      const place = new Placement(ctx);
      const a0 = place.put(randomMatrices(dtype, n, n, count, rng));
      const tau = place.put(allocate(dtype, n * count));
      const info = place.ints(count);
      const T = strided(tau, { rows: n, cols: 1, count });
      if (kind === 'orgqr') ctx.geqrf({ a: square(a0, n, count), tau: T, info });
      const a = place.working(a0);
      const A = square(a, n, count);
      const run = kind === 'geqrf' ? () => { ctx.geqrf({ a: A, tau: T, info }); }
        : kind === 'orgqr' ? () => { ctx.orgqr({ a: A, tau: T }); }
        : () => { ctx.geqrf({ a: A, tau: T, info }); ctx.orgqr({ a: A, tau: T }); };
      return { run, reset: () => place.restore(a0, a), dispose: () => place.dispose(), arrays: { a, tau } };
    },
  };
}

/**
 * tau_j = 2 / ||v_j||^2 for the reflectors below the diagonal of each n x n matrix (v_j(j) = 1):
 * every H(j) = I - tau_j v_j v_j^T is then orthogonal, so repeated runs keep C's size.
 */
function householderScalars(a: FloatArray, n: number, count: number): FloatArray {
  const tau = allocate(dtypeOfArray(a, 'a'), n * count);
  for (let i = 0; i < count; i++) for (let j = 0; j < n; j++) {
    let s = 1;
    for (let p = j + 1; p < n; p++) s += a[i * n * n + p + j * n]! ** 2;
    tau[i * n + j] = 2 / s;
  }
  return tau;
}

/** A benchmark's workload for one element type: its cost and data for order n (real or complex). */
export interface TypedWorkload {
  cost(n: number): Cost;
  prepare(ctx: Context, n: number, count: number, rng: Random): Prepared;
}

export function benchWorkload(op: string, dtype: ElementType): TypedWorkload {
  if (isComplexDType(dtype)) {
    const w = COMPLEX_WORKLOADS[op as BenchOp];
    if (w === undefined) throw new MyriadError('UNSUPPORTED', `${op} has no complex benchmark (complex: ${COMPLEX_BENCH_OPS.join(', ')})`, '--dtype');
    return { cost: (n) => w.cost(dtype, n), prepare: (ctx, n, count, rng) => w.prepare(ctx, dtype, n, count, rng) };
  }
  const w = workloadFor(op);
  return { cost: (n) => w.cost(dtype, n), prepare: (ctx, n, count, rng) => w.prepare(ctx, dtype, n, count, rng) };
}

export function workloadFor(op: string): Workload {
  if (!(BENCH_OPS as readonly string[]).includes(op))
    throw new MyriadError('ENUM', `unknown benchmark op '${op}'; one of ${BENCH_OPS.join(', ')}`, 'op');
  if (op === 'heev') throw new MyriadError('UNSUPPORTED', 'heev is the complex Hermitian benchmark: --dtype complex128 or complex64 (real symmetric matrices: syev)', '--dtype');
  return WORKLOADS[op as RealBenchOp];
}

/** The solves of the vendor sweep (bench/vendor-sweep.ts). */
export type SolveOp = 'trsm' | 'getrs' | 'gesv' | 'potrs' | 'posv';

/**
 * A solve's workload with B of `nrhs` columns (the others above fix them): trsm left, lower, no
 * transpose, non-unit, as the trsm workload; getrs and potrs after an untimed factorisation; gesv
 * and posv factoring in the timed call, as theirs.
 */
export function solveWorkload(op: SolveOp, nrhs: number): Workload {
  switch (op) {
    case 'trsm':
      return inPlace((d, n) => counts.trsm(d, 'left', n, nrhs), randomGeneral,
        (ctx, a, b) => ctx.trsm({ a, b: b!, side: 'left', uplo: 'lower' }), () => nrhs);
    case 'getrs':
      return solveOnly((d, n) => counts.getrs(d, n, nrhs), randomGeneral,
        (ctx, a, { info, ipiv }) => { ctx.getrf({ a, info, ipiv }); },
        (ctx, a, b, { info, ipiv }) => { ctx.getrs({ a, b, ipiv, info }); }, nrhs);
    case 'potrs':
      return solveOnly((d, n) => counts.potrs(d, n, nrhs), randomSpd,
        (ctx, a, { info }) => { ctx.potrf({ a, uplo: 'lower', info }); },
        (ctx, a, b, { info }) => { ctx.potrs({ a, b, uplo: 'lower', info }); }, nrhs);
    case 'gesv':
      return inPlace((d, n) => counts.gesv(d, n, nrhs), randomGeneral,
        (ctx, a, b, { info, ipiv }) => { ctx.gesv({ a, b: b!, info, ipiv }); }, () => nrhs);
    case 'posv':
      return inPlace((d, n) => counts.posv(d, n, nrhs), randomSpd,
        (ctx, a, b, { info }) => { ctx.posv({ a, b: b!, uplo: 'lower', info }); }, () => nrhs);
  }
}
