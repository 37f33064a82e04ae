/**
 * One entry per operation: what every layer needs to know about it that is not its arithmetic.
 * The tables that used to be kept per layer are derived from here: the operation names
 * (OP_NAMES), the fields each call writes (the CUDA staging and CPU fallback download them, the
 * CPU worker pool stages them back, prepared calls check new storages against them), the batch
 * that defines a call's count and shape, which row-major host batches the context copies to
 * column-major, what a call returns, and whether its work can be recorded in a graph.
 *
 * Validation (the public argument object -> the request of core/ops.ts) is the operation's
 * preparer in api/prepare.ts (VALIDATORS), the arithmetic its CPU reference (cpu/backend.ts) and
 * its GPU candidates (cuda/router.ts). Flop and byte counts are in counts.ts.
 */
import type { OpName } from './ops.js';

/** What a request field is. */
export type ArgKind =
  /** a batch of matrices (core/batch.ts) */
  | 'batch'
  /** an optional batch (absent where the caller does not want it) */
  | 'batch?'
  /** a number (alpha, beta) */
  | 'scalar'
  /** a parsed enum (side, uplo, trans, diag, jobz) */
  | 'enum'
  /** per-matrix int32 (info, ipiv) */
  | 'ints'
  /** an integer the API derives (pivotStride) */
  | 'int';

export interface OpSpec {
  /** The request's fields and their kinds, in the order of the request. */
  readonly args: Readonly<Record<string, ArgKind>>;
  /** The fields the operation writes (batches and ints). */
  readonly writes: readonly string[];
  /** The batch that defines the call's count and shape; a call whose `main` matrices are all empty computes nothing but info. */
  readonly main: string;
  /**
   * Batches the context copies to column-major where they are row-major host batches (no
   * transposed operation maps them); written back after the call unless `readOnly` lists them.
   */
  readonly copies?: readonly string[];
  /** The fields of `copies` the operation only reads. */
  readonly readOnly?: readonly string[];
  /** What the call returns: nothing, { info }, or { info, ipiv }. */
  readonly returns: 'none' | 'info' | 'pivots';
  /** Whether its GPU work can be recorded in a graph (a composition that reads info on the host cannot). */
  readonly capturable: boolean;
  /** What its non-zero info codes mean (core/info.ts), absent where it has no info. */
  readonly info?: InfoSpec;
}

/** What a failure code k in 1..p means: not positive definite, singular U(k,k), singular A(k,k), rank-deficient R(k,k), the Jacobi codes, or nothing. */
export type InfoMeaning = 'pd' | 'lu' | 'tri' | 'rank' | 'jacobi' | 'none';
export interface InfoSpec {
  readonly meaning: InfoMeaning;
  /** p, the order the codes count in: n of a square A, or min(m, n). */
  readonly order: 'square' | 'min';
  /** The outputs where NaN/Inf in the input shows (`{ check: true }` looks there). */
  readonly watch: readonly string[];
}
const info = (meaning: InfoMeaning, order: 'square' | 'min', ...watch: string[]): InfoSpec => ({ meaning, order, watch });

const SQUARE_INFO = { args: { uplo: 'enum', a: 'batch', info: 'ints' }, writes: ['a', 'info'], main: 'a', returns: 'info', capturable: true } as const;
const TRIANGULAR = { args: { side: 'enum', uplo: 'enum', transA: 'enum', diag: 'enum', alpha: 'scalar', a: 'batch', b: 'batch' }, writes: ['b'], main: 'b', returns: 'none', capturable: true } as const;
const CHOLESKY_SOLVE = { args: { uplo: 'enum', a: 'batch', b: 'batch', info: 'ints' }, main: 'a', copies: ['b'], returns: 'info', capturable: true } as const;

const SPECS = {
  gemm: {
    args: { transA: 'enum', transB: 'enum', alpha: 'scalar', a: 'batch', b: 'batch', beta: 'scalar', c: 'batch' },
    writes: ['c'], main: 'c', returns: 'none', capturable: true,
  },
  trsm: TRIANGULAR,
  trmm: TRIANGULAR,
  syrk: { args: { uplo: 'enum', trans: 'enum', alpha: 'scalar', a: 'batch', beta: 'scalar', c: 'batch' }, writes: ['c'], main: 'c', returns: 'none', capturable: true },
  potrf: { ...SQUARE_INFO, info: info('pd', 'square', 'a') },
  potrs: { ...CHOLESKY_SOLVE, writes: ['b', 'info'], info: info('none', 'square', 'b') },
  posv: { ...CHOLESKY_SOLVE, writes: ['a', 'b', 'info'], info: info('pd', 'square', 'a', 'b') },
  getrf: {
    args: { a: 'batch', ipiv: 'ints', pivotStride: 'int', info: 'ints' },
    writes: ['a', 'ipiv', 'info'], main: 'a', copies: ['a'], returns: 'pivots', capturable: true, info: info('lu', 'square', 'a'),
  },
  getrs: {
    args: { trans: 'enum', a: 'batch', ipiv: 'ints', pivotStride: 'int', b: 'batch', info: 'ints' },
    writes: ['b', 'info'], main: 'a', copies: ['a', 'b'], readOnly: ['a'], returns: 'info', capturable: true, info: info('none', 'square', 'b'),
  },
  gesv: {
    args: { trans: 'enum', a: 'batch', ipiv: 'ints', pivotStride: 'int', b: 'batch', info: 'ints' },
    writes: ['a', 'ipiv', 'b', 'info'], main: 'a', copies: ['a', 'b'], returns: 'pivots', capturable: true, info: info('lu', 'square', 'a', 'b'),
  },
  trtri: { ...SQUARE_INFO, args: { uplo: 'enum', diag: 'enum', a: 'batch', info: 'ints' }, info: info('tri', 'square', 'a') },
  lauum: { ...SQUARE_INFO, info: info('none', 'square', 'a') },
  potri: { ...SQUARE_INFO, info: info('tri', 'square', 'a') },
  poti: { ...SQUARE_INFO, info: info('pd', 'square', 'a') },
  syev: {
    args: { jobz: 'enum', uplo: 'enum', a: 'batch', w: 'batch', info: 'ints' },
    writes: ['a', 'w', 'info'], main: 'a', returns: 'info', capturable: true, info: info('jacobi', 'square', 'w'),
  },
  gesvd: {
    args: { a: 'batch', s: 'batch', u: 'batch?', vt: 'batch?', info: 'ints' },
    writes: ['s', 'u', 'vt', 'info'], main: 'a', returns: 'info', capturable: true, info: info('jacobi', 'min', 's'),
  },
  geqrf: {
    args: { a: 'batch', tau: 'batch', info: 'ints' },
    writes: ['a', 'tau', 'info'], main: 'a', copies: ['a', 'tau'], returns: 'info', capturable: true, info: info('none', 'min', 'a'),
  },
  orgqr: { args: { a: 'batch', tau: 'batch' }, writes: ['a'], main: 'a', copies: ['a', 'tau'], readOnly: ['tau'], returns: 'none', capturable: true },
  ormqr: {
    args: { side: 'enum', trans: 'enum', a: 'batch', tau: 'batch', c: 'batch' },
    writes: ['c'], main: 'c', copies: ['a', 'tau'], readOnly: ['a', 'tau'], returns: 'none', capturable: true,
  },
  gels: {
    args: { a: 'batch', b: 'batch', info: 'ints' },
    writes: ['a', 'b', 'info'], main: 'a', copies: ['a', 'b'], returns: 'info', capturable: true, info: info('rank', 'min', 'a', 'b'),
  },
  getri: {
    args: { a: 'batch', ipiv: 'ints', pivotStride: 'int', info: 'ints' },
    writes: ['a', 'info'], main: 'a', copies: ['a'], returns: 'info', capturable: true, info: info('lu', 'square', 'a'),
  },
} satisfies { readonly [K in OpName]: OpSpec };

export const OP_SPECS: { readonly [K in OpName]: OpSpec } = SPECS;

/** The operations with per-matrix info (their spec has `info`). */
export type LapackInfoOp = { [K in OpName]: (typeof SPECS)[K] extends { info: InfoSpec } ? K : never }[OpName];

/** The LAPACK-level operations, by name (the order of OP_SPECS). */
export const OP_NAMES: readonly OpName[] = Object.keys(OP_SPECS) as OpName[];

/** The fields each operation writes (batches and ints): what a staged call copies back. */
export const OUTPUTS: { readonly [K in OpName]: readonly string[] } = mapSpecs((s) => s.writes);

/** The operations that report per-matrix info, in the order of OP_SPECS. */
export const INFO_OP_NAMES: readonly LapackInfoOp[] = OP_NAMES.filter((op): op is LapackInfoOp => OP_SPECS[op].info !== undefined);

/** The batches each operation writes (info and ipiv left out). */
export const WRITTEN_BATCHES: { readonly [K in OpName]: readonly string[] } =
  mapSpecs((s) => s.writes.filter((f) => s.args[f] === 'batch' || s.args[f] === 'batch?'));

function mapSpecs<T>(f: (s: OpSpec) => T): { readonly [K in OpName]: T } {
  const out = {} as { [K in OpName]: T };
  for (const op of Object.keys(OP_SPECS) as OpName[]) out[op] = f(OP_SPECS[op]);
  return out;
}
