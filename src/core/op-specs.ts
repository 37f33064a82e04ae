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
}

const SQUARE_INFO = { args: { uplo: 'enum', a: 'batch', info: 'ints' }, writes: ['a', 'info'], main: 'a', returns: 'info', capturable: true } as const;
const TRIANGULAR = { args: { side: 'enum', uplo: 'enum', transA: 'enum', diag: 'enum', alpha: 'scalar', a: 'batch', b: 'batch' }, writes: ['b'], main: 'b', returns: 'none', capturable: true } as const;
const CHOLESKY_SOLVE = { args: { uplo: 'enum', a: 'batch', b: 'batch', info: 'ints' }, main: 'a', copies: ['b'], returns: 'info', capturable: true } as const;

export const OP_SPECS: { readonly [K in OpName]: OpSpec } = {
  gemm: {
    args: { transA: 'enum', transB: 'enum', alpha: 'scalar', a: 'batch', b: 'batch', beta: 'scalar', c: 'batch' },
    writes: ['c'], main: 'c', returns: 'none', capturable: true,
  },
  trsm: TRIANGULAR,
  trmm: TRIANGULAR,
  syrk: { args: { uplo: 'enum', trans: 'enum', alpha: 'scalar', a: 'batch', beta: 'scalar', c: 'batch' }, writes: ['c'], main: 'c', returns: 'none', capturable: true },
  potrf: SQUARE_INFO,
  potrs: { ...CHOLESKY_SOLVE, writes: ['b', 'info'] },
  posv: { ...CHOLESKY_SOLVE, writes: ['a', 'b', 'info'] },
  getrf: {
    args: { a: 'batch', ipiv: 'ints', pivotStride: 'int', info: 'ints' },
    writes: ['a', 'ipiv', 'info'], main: 'a', copies: ['a'], returns: 'pivots', capturable: true,
  },
  getrs: {
    args: { trans: 'enum', a: 'batch', ipiv: 'ints', pivotStride: 'int', b: 'batch', info: 'ints' },
    writes: ['b', 'info'], main: 'a', copies: ['a', 'b'], readOnly: ['a'], returns: 'info', capturable: true,
  },
  gesv: {
    args: { trans: 'enum', a: 'batch', ipiv: 'ints', pivotStride: 'int', b: 'batch', info: 'ints' },
    writes: ['a', 'ipiv', 'b', 'info'], main: 'a', copies: ['a', 'b'], returns: 'pivots', capturable: true,
  },
  trtri: { ...SQUARE_INFO, args: { uplo: 'enum', diag: 'enum', a: 'batch', info: 'ints' } },
  lauum: SQUARE_INFO,
  potri: SQUARE_INFO,
  poti: SQUARE_INFO,
  syev: {
    args: { jobz: 'enum', uplo: 'enum', a: 'batch', w: 'batch', info: 'ints' },
    writes: ['a', 'w', 'info'], main: 'a', returns: 'info', capturable: true,
  },
  gesvd: {
    args: { a: 'batch', s: 'batch', u: 'batch?', vt: 'batch?', info: 'ints' },
    writes: ['s', 'u', 'vt', 'info'], main: 'a', returns: 'info', capturable: true,
  },
  geqrf: {
    args: { a: 'batch', tau: 'batch', info: 'ints' },
    writes: ['a', 'tau', 'info'], main: 'a', copies: ['a', 'tau'], returns: 'info', capturable: true,
  },
  orgqr: { args: { a: 'batch', tau: 'batch' }, writes: ['a'], main: 'a', copies: ['a', 'tau'], readOnly: ['tau'], returns: 'none', capturable: true },
  ormqr: {
    args: { side: 'enum', trans: 'enum', a: 'batch', tau: 'batch', c: 'batch' },
    writes: ['c'], main: 'c', copies: ['a', 'tau'], readOnly: ['a', 'tau'], returns: 'none', capturable: true,
  },
  gels: {
    args: { a: 'batch', b: 'batch', info: 'ints' },
    writes: ['a', 'b', 'info'], main: 'a', copies: ['a', 'b'], returns: 'info', capturable: true,
  },
};

/** The LAPACK-level operations, by name (the order of OP_SPECS). */
export const OP_NAMES: readonly OpName[] = Object.keys(OP_SPECS) as OpName[];

/** The fields each operation writes (batches and ints): what a staged call copies back. */
export const OUTPUTS: { readonly [K in OpName]: readonly string[] } = mapSpecs((s) => s.writes);

/** The batches each operation writes (info and ipiv left out). */
export const WRITTEN_BATCHES: { readonly [K in OpName]: readonly string[] } =
  mapSpecs((s) => s.writes.filter((f) => s.args[f] === 'batch' || s.args[f] === 'batch?'));

function mapSpecs<T>(f: (s: OpSpec) => T): { readonly [K in OpName]: T } {
  const out = {} as { [K in OpName]: T };
  for (const op of Object.keys(OP_SPECS) as OpName[]) out[op] = f(OP_SPECS[op]);
  return out;
}
