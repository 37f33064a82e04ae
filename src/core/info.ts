/**
 * Per-matrix `info` codes, one table for every operation, and the words a failure is named with.
 *
 * p is the matrix's order (n for square matrices; min(m, n) for gesvd, gels and lstsq).
 *
 * | info        | operations                                   | meaning                                                     |
 * |-------------|----------------------------------------------|-------------------------------------------------------------|
 * | 0           | all                                          | success                                                     |
 * | k in 1..p   | potrf, posv, poti, cholesky, inv (spd)       | not positive definite: the leading minor of order k        |
 * | k in 1..p   | getrf, gesv, getri, lu, solve, inv           | singular: U(k, k) is exactly zero                           |
 * | k in 1..p   | trtri, potri                                 | singular: A(k, k) is exactly zero                           |
 * | k in 1..p   | gels, lstsq                                  | rank-deficient: R(k, k) is exactly zero                     |
 * | p + 1       | syev, heev, gesvd, eigh, eigvalsh, svd, svdvals | the Jacobi sweeps did not converge                       |
 * | p + 2       | syev, heev, gesvd, every array-level function   | NaN or Inf in the input                                  |
 *
 * The LAPACK-level factorizations keep LAPACK's codes (potrf reports a NaN where it meets it, as
 * column k); `{ check: true }` and `assertInfo` tell NaN/Inf apart by looking at the matrix. The
 * array level reports NaN/Inf inputs as p + 2 in every function.
 */
import { MyriadError, describeValue } from './errors.js';
import { INFO_OP_NAMES, OP_SPECS, type InfoMeaning, type LapackInfoOp } from './op-specs.js';

/** The array-level functions that report info. */
export type ArrayInfoOp = 'cholesky' | 'lu' | 'solve' | 'inv' | 'eigh' | 'eigvalsh' | 'svd' | 'svdvals' | 'lstsq';
/** Operations whose `info` this table describes: the LAPACK level's (their op spec's `info`) and the array level's. */
export type InfoOp = LapackInfoOp | ArrayInfoOp;

const ARRAY_FAMILY: Readonly<Record<ArrayInfoOp, InfoMeaning>> = {
  cholesky: 'pd', lu: 'lu', solve: 'lu', inv: 'lu', lstsq: 'rank',
  eigh: 'jacobi', eigvalsh: 'jacobi', svd: 'jacobi', svdvals: 'jacobi',
};
const FAMILY: Readonly<Record<InfoOp, InfoMeaning>> = {
  ...Object.fromEntries(INFO_OP_NAMES.map((op) => [op, OP_SPECS[op].info!.meaning])) as Record<LapackInfoOp, InfoMeaning>,
  ...ARRAY_FAMILY,
};

/** Every operation `describeInfo` and `assertInfo` know. */
export const INFO_OPS: readonly InfoOp[] = Object.keys(FAMILY) as InfoOp[];

/**
 * What one non-zero info code means, in words: `code` for a matrix of order `p`; `nonFinite`
 * when the call's output for the matrix holds NaN or Inf (which then names the failure, whatever
 * the code, unless the code itself says NaN/Inf in the input).
 */
export function describeInfo(op: InfoOp, code: number, p: number, nonFinite = false): string {
  if (!Object.hasOwn(FAMILY, op)) throw new MyriadError('ENUM', `expected one of ${INFO_OPS.join(', ')}, got ${describeValue(op)}`, 'op');
  if (!Number.isSafeInteger(code)) throw new MyriadError('INVALID_ARGUMENT', `expected an integer info code, got ${describeValue(code)}`, 'code');
  if (!Number.isSafeInteger(p) || p < 0) throw new MyriadError('INVALID_ARGUMENT', `expected the matrix's order, a non-negative integer, got ${describeValue(p)}`, 'p');
  // The Jacobi routines report to p + 2, the array level's others k in 1..p or p + 2 (NaN/Inf), the LAPACK level's others k in 1..p.
  if (p > 0 && code > 0) {
    const jacobi = FAMILY[op] === 'jacobi';
    const top = reportsPastOrder(op) ? p + 2 : p;
    const gap = !jacobi && isArrayLevel(op) && code === p + 1;
    if (code > top || gap) throw new MyriadError('INVALID_ARGUMENT', `info ${code} is not a code ${op} reports for a matrix of order ${p} (${jacobi ? `1 to ${p + 2}` : isArrayLevel(op) ? `1 to ${p}, or ${p + 2}` : `1 to ${p}`})`, 'code');
  }
  return codeWords(op, code, p, nonFinite);
}

/**
 * describeInfo's words once its arguments are known good. A failure's p is -1 where the matrices
 * were not given: the codes whose meaning depends on p (the array level's and the Jacobi routines')
 * are then not named.
 */
function codeWords(op: InfoOp, code: number, p: number, nonFinite: boolean): string {
  if (code === 0 && !nonFinite) return 'success';
  if (p < 0 && code > 0 && !nonFinite && reportsPastOrder(op)) return 'failed (give the call\'s a to have the code named)';
  if (code === p + 2 && code > 0 && reportsPastOrder(op)) return 'NaN/Inf in the input';
  // Seen in the call's outputs afterwards: the input's NaN/Inf carried through, or a finite result that overflowed.
  if (nonFinite) return 'NaN/Inf in the output (the input held NaN/Inf, or the result overflowed)';
  if (code < 0) return `argument ${-code} was illegal`;
  switch (FAMILY[op]) {
    case 'pd': return `not positive definite (the leading minor of order ${code})`;
    case 'lu': return `singular (U(${code}, ${code}) is exactly zero)`;
    case 'tri': return `singular (A(${code}, ${code}) is exactly zero)`;
    case 'rank': return `rank-deficient (R(${code}, ${code}) is exactly zero)`;
    case 'jacobi': return code === p + 1 ? 'no convergence (the Jacobi sweeps did not converge)' : `info ${code}`;
    case 'none': return `info ${code}`;
  }
}

const isArrayLevel = (op: InfoOp): boolean => Object.hasOwn(ARRAY_FAMILY, op);
/** Whether `op` reports codes past p (p + 2 NaN/Inf; the Jacobi routines' p + 1 too): what those codes mean depends on p. */
const reportsPastOrder = (op: InfoOp): boolean => FAMILY[op] === 'jacobi' || isArrayLevel(op);

/** The array-level functions whose p is min(m, n) (the others take square matrices; lu takes any m x n). */
const ARRAY_MIN_ORDER: ReadonlySet<InfoOp> = new Set<InfoOp>(['lu', 'svd', 'svdvals', 'lstsq']);

/** Whether `op`'s p is the matrix's order (square) or min(m, n): the op spec's for the LAPACK level, the table's header for the array level. */
export function orderKind(op: InfoOp): 'square' | 'min' {
  return isArrayLevel(op) ? (ARRAY_MIN_ORDER.has(op) ? 'min' : 'square') : OP_SPECS[op as LapackInfoOp].info!.order;
}

/** Whether `op`'s codes are the Jacobi ones (p + 1 no convergence, p + 2 NaN/Inf already told apart). */
export const isJacobi = (op: InfoOp): boolean => FAMILY[op] === 'jacobi';

/** One failed matrix: its index, code, order p (-1: not known) and whether it holds NaN/Inf. */
export interface Failure { index: number; code: number; order: number; nonFinite: boolean }

/**
 * The NUMERICAL error for a batch with failures: how many, and the first five by index and
 * meaning ("#3 not positive definite (the leading minor of order 2)"). `hint` ends the message.
 */
export function failureError(op: InfoOp, failures: readonly Failure[], total: number, hint: string, label: string = op): MyriadError {
  const first = failures.slice(0, 5).map((f) => `#${f.index} ${codeWords(op, f.code, f.order, f.nonFinite)} (info ${f.code})`);
  return new MyriadError('NUMERICAL',
    `${label}: ${total} of the matrices failed: ${first.join('; ')}${total > first.length ? '; ...' : ''}${hint}`);
}

/** True when data[offset .. offset + length) holds NaN or Inf. */
export function spanNonFinite(data: ArrayLike<number>, offset: number, length: number): boolean {
  for (let i = offset; i < offset + length; i++) if (!Number.isFinite(data[i]!)) return true;
  return false;
}
