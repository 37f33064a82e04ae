/**
 * `ctx.warm(op, { sizes, dtype, ... })` and `myriad warm`: the first call of a new shape compiles
 * its kernels (up to seconds for a large factorization); warm compiles them beforehand, all at
 * once on worker threads, into the disk module cache, so the first real call loads them.
 *
 * What gets compiled is planned by the call itself: each shape's call is made through this
 * context's API on a backend whose device runs nothing and records the kernels asked for
 * (cuda/runtime/planning-device.ts). So warm compiles exactly what a call with these arguments
 * would (same validation, same planners and generators), and nothing here knows any routing.
 * The calls are the ones `myriad bench` makes (same defaults), with the options below.
 */
import { ALL_DTYPES, isDType } from '../core/dtype-table.js';
import { strided, type StridedBatch } from '../core/batch.js';
import type { DType } from '../core/dtype.js';
import type { PrefetchReport } from '../core/device-backend.js';
import type { Trans, Uplo } from '../core/enums.js';
import type { OpName } from '../core/op-specs.js';
import { MyriadError } from '../core/errors.js';
import type { DeviceStorage, Storage } from '../core/storage.js';
import type { Context } from './context.js';
import { gpuBenchBatch } from '../core/bench-batch.js';

/** The operations warm plans: every LAPACK-level one; CALLS below has their calls. */
export type WarmOp = OpName;

export interface WarmOptions {
  /** Matrix orders n (each call on n x n matrices; gels: n x n A). */
  readonly sizes: readonly number[];
  /** Default 'float64'. */
  readonly dtype?: DType;
  /**
   * Matrices per call: some plans depend on it (a batch of large matrices takes other panels
   * than one). Default: the count `myriad bench` takes for that size on a GPU (bench/run.ts).
   */
  readonly count?: number | ((n: number) => number);
  /** Default 'lower'. */
  readonly uplo?: Uplo;
  /** Right-hand sides of the solves (posv, gesv, potrs, getrs, gels). Default 1. */
  readonly nrhs?: number;
  /** gemm's transposes. Default 'N'. */
  readonly transA?: Trans;
  readonly transB?: Trans;
}

/** What warm did: the prefetch's account (its `ms` here is warm's whole wall time, planning included). */
export interface WarmResult extends PrefetchReport {
  readonly backend: string;
  readonly op: WarmOp;
  readonly dtype: DType;
  readonly shapes: readonly { readonly n: number; readonly count: number }[];
  /** Why nothing was done, where nothing was (the CPU backend: it compiles nothing). */
  readonly note?: string;
}

/** Matrices of `count` n x n blocks (rows x cols), uninitialised, on the context's device. */
function batch(ctx: Context, dtype: DType, rows: number, cols: number, count: number): StridedBatch<Storage> {
  return strided(ctx.alloc(dtype, rows * cols * count) as DeviceStorage, { rows, cols, count });
}

type WarmCall = (ctx: Context, dtype: DType, n: number, count: number, o: WarmOptions) => void;

/** The call warm plans for each op: the call `myriad bench` makes (bench/workloads.ts; getri, which has no bench workload: inverting getrf's factors), with the options. */
const CALLS: Readonly<Record<WarmOp, WarmCall>> = {
  gemm: (ctx, d, n, c, o) => ctx.gemm({ a: batch(ctx, d, n, n, c), b: batch(ctx, d, n, n, c), c: batch(ctx, d, n, n, c), alpha: 1, beta: 0, transA: o.transA ?? 'N', transB: o.transB ?? 'N' }),
  potrf: (ctx, d, n, c, o) => void ctx.potrf({ a: batch(ctx, d, n, n, c), uplo: o.uplo ?? 'lower' }),
  getrf: (ctx, d, n, c) => void ctx.getrf({ a: batch(ctx, d, n, n, c) }),
  posv: (ctx, d, n, c, o) => void ctx.posv({ a: batch(ctx, d, n, n, c), b: batch(ctx, d, n, o.nrhs ?? 1, c), uplo: o.uplo ?? 'lower' }),
  gesv: (ctx, d, n, c, o) => void ctx.gesv({ a: batch(ctx, d, n, n, c), b: batch(ctx, d, n, o.nrhs ?? 1, c) }),
  potrs: (ctx, d, n, c, o) => void ctx.potrs({ a: batch(ctx, d, n, n, c), b: batch(ctx, d, n, o.nrhs ?? 1, c), uplo: o.uplo ?? 'lower' }),
  getrs: (ctx, d, n, c, o) => void ctx.getrs({ a: batch(ctx, d, n, n, c), b: batch(ctx, d, n, o.nrhs ?? 1, c), ipiv: ctx.alloc('int32', n * c) }),
  trsm: (ctx, d, n, c, o) => ctx.trsm({ a: batch(ctx, d, n, n, c), b: batch(ctx, d, n, n, c), side: 'left', uplo: o.uplo ?? 'lower' }),
  trmm: (ctx, d, n, c, o) => ctx.trmm({ a: batch(ctx, d, n, n, c), b: batch(ctx, d, n, n, c), side: 'left', uplo: o.uplo ?? 'lower' }),
  syrk: (ctx, d, n, c, o) => ctx.syrk({ a: batch(ctx, d, n, n, c), c: batch(ctx, d, n, n, c), uplo: o.uplo ?? 'lower', beta: 0 }),
  herk: (ctx, d, n, c, o) => ctx.herk({ a: batch(ctx, d, n, n, c), c: batch(ctx, d, n, n, c), uplo: o.uplo ?? 'lower', beta: 0 }),
  lauum: (ctx, d, n, c, o) => void ctx.lauum({ a: batch(ctx, d, n, n, c), uplo: o.uplo ?? 'lower' }),
  trtri: (ctx, d, n, c, o) => void ctx.trtri({ a: batch(ctx, d, n, n, c), uplo: o.uplo ?? 'lower' }),
  potri: (ctx, d, n, c, o) => void ctx.potri({ a: batch(ctx, d, n, n, c), uplo: o.uplo ?? 'lower' }),
  poti: (ctx, d, n, c, o) => void ctx.poti({ a: batch(ctx, d, n, n, c), uplo: o.uplo ?? 'lower' }),
  syev: (ctx, d, n, c, o) => void ctx.syev({ a: batch(ctx, d, n, n, c), w: batch(ctx, d, n, 1, c), jobz: 'vectors', uplo: o.uplo ?? 'lower' }),
  heev: (ctx, d, n, c, o) => void ctx.heev({ a: batch(ctx, d, n, n, c), w: batch(ctx, d, n, 1, c), jobz: 'vectors', uplo: o.uplo ?? 'lower' }),
  gesvd: (ctx, d, n, c) => void ctx.gesvd({ a: batch(ctx, d, n, n, c), s: batch(ctx, d, n, 1, c), u: batch(ctx, d, n, n, c), vt: batch(ctx, d, n, n, c) }),
  geqrf: (ctx, d, n, c) => void ctx.geqrf({ a: batch(ctx, d, n, n, c), tau: batch(ctx, d, n, 1, c) }),
  orgqr: (ctx, d, n, c) => ctx.orgqr({ a: batch(ctx, d, n, n, c), tau: batch(ctx, d, n, 1, c) }),
  ormqr: (ctx, d, n, c) => ctx.ormqr({ side: 'left', trans: 'T', a: batch(ctx, d, n, n, c), tau: batch(ctx, d, n, 1, c), c: batch(ctx, d, n, n, c) }),
  gels: (ctx, d, n, c, o) => void ctx.gels({ a: batch(ctx, d, n, n, c), b: batch(ctx, d, n, o.nrhs ?? 1, c) }),
  getri: (ctx, d, n, c) => void ctx.getri({ a: batch(ctx, d, n, n, c), ipiv: ctx.alloc('int32', n * c) }),
};

/** The operations warm plans, in the table's order (the keys of CALLS). */
export const WARM_OPS: readonly WarmOp[] = Object.keys(CALLS) as WarmOp[];

export function parseWarmOp(op: unknown): WarmOp {
  if (typeof op !== 'string' || !(WARM_OPS as readonly string[]).includes(op))
    throw new MyriadError('ENUM', `warm takes one of ${WARM_OPS.join(', ')}; got ${JSON.stringify(op)}`, 'op');
  return op as WarmOp;
}

/** The sizes and counts warm plans, validated. */
export function warmShapes(op: WarmOp, options: WarmOptions): { dtype: DType; shapes: { n: number; count: number }[] } {
  if (typeof options !== 'object' || options === null || !Array.isArray(options.sizes))
    throw new MyriadError('INVALID_ARGUMENT', 'warm takes { sizes: number[], dtype?, count?, ... }', 'options');
  const dtype = options.dtype ?? 'float64';
  if (!isDType(dtype)) throw new MyriadError('DTYPE', `one of ${ALL_DTYPES.join(', ')}, got ${String(dtype)}`, 'dtype');
  const shapes = options.sizes.map((n) => {
    if (!Number.isInteger(n) || n < 1) throw new MyriadError('INVALID_ARGUMENT', `sizes are positive integers, got ${n}`, 'sizes');
    const count = typeof options.count === 'function' ? options.count(n) : options.count ?? gpuBenchBatch(op, dtype, n);
    if (!Number.isInteger(count) || count < 1) throw new MyriadError('INVALID_ARGUMENT', `count is a positive integer, got ${count}`, 'count');
    return { n, count };
  });
  return { dtype, shapes };
}

/** Makes every shape's call on `planning` (a context over a device that runs nothing). */
export function planWarmCalls(planning: Context, op: WarmOp, dtype: DType, shapes: readonly { n: number; count: number }[], options: WarmOptions): void {
  for (const { n, count } of shapes) CALLS[op](planning, dtype, n, count, options);
}
