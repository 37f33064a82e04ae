import { MyriadError, describeValue } from './errors.js';

/** Which triangle of a matrix is referenced. */
export type Uplo = 'lower' | 'upper';
/** op(A) = A ('N'), A^T ('T'). For real data 'C' (conjugate transpose) means 'T'. */
export type Trans = 'N' | 'T' | 'C';
/** Whether the triangular matrix multiplies from the left (op(A) X) or the right (X op(A)). */
export type Side = 'left' | 'right';
/** 'unit': the diagonal of the triangular matrix is taken as ones and not read. */
export type Diag = 'unit' | 'nonunit';
/** Storage order of one matrix: column-major (native, LAPACK) or row-major (C, numpy). */
export type Order = 'col' | 'row';

/** Parses one of `allowed`, or throws an ENUM error naming the argument and the allowed values. */
export function parseEnumValue<T extends string>(value: unknown, allowed: readonly T[], argument: string): T {
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw new MyriadError('ENUM', `expected one of ${allowed.map((a) => `'${a}'`).join(', ')}, got ${describeValue(value)}`, argument);
}

const UPLOS = ['lower', 'upper'] as const;
const SIDES = ['left', 'right'] as const;
const DIAGS = ['unit', 'nonunit'] as const;
const ORDERS = ['col', 'row'] as const;
const TRANSES = ['N', 'T', 'C'] as const;
/** 'lower' or 'upper', else an ENUM error naming `arg`. */
export const parseUplo = (v: unknown, arg = 'uplo'): Uplo => parseEnumValue(v, UPLOS, arg);
/** 'left' or 'right', else an ENUM error naming `arg`. */
export const parseSide = (v: unknown, arg = 'side'): Side => parseEnumValue(v, SIDES, arg);
/** 'unit' or 'nonunit', else an ENUM error naming `arg`. */
export const parseDiag = (v: unknown, arg = 'diag'): Diag => parseEnumValue(v, DIAGS, arg);
/** 'col' or 'row', else an ENUM error naming `arg`. */
export const parseOrder = (v: unknown, arg = 'order'): Order => parseEnumValue(v, ORDERS, arg);
/** Returns 'N' or 'T' ('C' folds to 'T' for real data). */
export function parseTrans(v: unknown, arg = 'trans'): 'N' | 'T' {
  const t = parseEnumValue(v, TRANSES, arg);
  return t === 'N' ? 'N' : 'T';
}

/** The other triangle. */
export const flipUplo = (u: Uplo): Uplo => (u === 'lower' ? 'upper' : 'lower');
/** The other of N and T. */
export const flipTrans = (t: 'N' | 'T'): 'N' | 'T' => (t === 'N' ? 'T' : 'N');
/** The other side. */
export const flipSide = (s: Side): Side => (s === 'left' ? 'right' : 'left');
