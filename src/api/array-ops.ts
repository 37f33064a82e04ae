/**
 * The array level's entry points for both element types: each function hands a complex array to
 * array-complex.ts (qr, lstsq: array-complex-qr.ts) and a real one to array.ts (array-qr.ts); the
 * throwing forms are written once, over the Ex forms here. Context calls these.
 */
import type { FloatArray } from '../core/dtype.js';
import type { Context } from './context.js';
import * as real from './array.js';
import {
  isComplexArray, minOrder, throwOnFailure,
  type CholeskyOptions, type EighOptions, type EighResult, type InvOptions, type LuResult, type NDArray, type SvdResult,
  type TriangularSolveOptions, type WithInfo,
} from './array.js';
import * as complex from './array-complex.js';
import * as realQr from './array-qr.js';
import type { LstsqResult, QrOptions, QrResult } from './array-qr.js';
import * as complexQr from './array-complex-qr.js';

export function matmul<T extends FloatArray>(ctx: Context, a: NDArray<T>, b: NDArray<T>): NDArray<T> {
  return isComplexArray(a) ? complex.matmul(ctx, a, b) : real.matmul(ctx, a, b);
}
export function choleskyEx<T extends FloatArray>(ctx: Context, a: NDArray<T>, options?: CholeskyOptions): WithInfo<{ factor: NDArray<T> }> {
  return isComplexArray(a) ? complex.choleskyEx(ctx, a, options) : real.choleskyEx(ctx, a, options);
}
export function luEx<T extends FloatArray>(ctx: Context, a: NDArray<T>): WithInfo<LuResult<T>> {
  return isComplexArray(a) ? complex.luEx(ctx, a) : real.luEx(ctx, a);
}
export function solveEx<T extends FloatArray>(ctx: Context, a: NDArray<T>, b: NDArray<T>): WithInfo<{ x: NDArray<T> }> {
  return isComplexArray(a) ? complex.solveEx(ctx, a, b) : real.solveEx(ctx, a, b);
}
export function choleskySolve<T extends FloatArray>(ctx: Context, factor: NDArray<T>, b: NDArray<T>, options?: CholeskyOptions): NDArray<T> {
  return isComplexArray(factor) ? complex.choleskySolve(ctx, factor, b, options) : real.choleskySolve(ctx, factor, b, options);
}
export function invEx<T extends FloatArray>(ctx: Context, a: NDArray<T>, options: InvOptions = {}): WithInfo<{ inverse: NDArray<T> }> {
  return isComplexArray(a) ? complex.invEx(ctx, a, options) : real.invEx(ctx, a, options);
}
export function triangularSolve<T extends FloatArray>(ctx: Context, a: NDArray<T>, b: NDArray<T>, options?: TriangularSolveOptions): NDArray<T> {
  return isComplexArray(a) ? complex.triangularSolve(ctx, a, b, options) : real.triangularSolve(ctx, a, b, options);
}
export function eighEx<T extends FloatArray>(ctx: Context, a: NDArray<T>, options?: EighOptions): WithInfo<EighResult<T>> {
  return isComplexArray(a) ? complex.eighEx(ctx, a, options) : real.eighEx(ctx, a, options);
}
export function eigvalshEx<T extends FloatArray>(ctx: Context, a: NDArray<T>, options?: EighOptions): WithInfo<{ values: NDArray<T> }> {
  return isComplexArray(a) ? complex.eigvalshEx(ctx, a, options) : real.eigvalshEx(ctx, a, options);
}
export function svdEx<T extends FloatArray>(ctx: Context, a: NDArray<T>): WithInfo<SvdResult<T>> {
  return isComplexArray(a) ? complex.svdEx(ctx, a) : real.svdEx(ctx, a);
}
export function svdvalsEx<T extends FloatArray>(ctx: Context, a: NDArray<T>): WithInfo<{ values: NDArray<T> }> {
  return isComplexArray(a) ? complex.svdvalsEx(ctx, a) : real.svdvalsEx(ctx, a);
}
export function qr<T extends FloatArray>(ctx: Context, a: NDArray<T>, options?: QrOptions): QrResult<T> {
  return isComplexArray(a) ? complexQr.qr(ctx, a, options) : realQr.qr(ctx, a, options);
}
export function lstsqEx<T extends FloatArray>(ctx: Context, a: NDArray<T>, b: NDArray<T>): WithInfo<LstsqResult<T>> {
  return isComplexArray(a) ? complexQr.lstsqEx(ctx, a, b) : realQr.lstsqEx(ctx, a, b);
}

export function cholesky<T extends FloatArray>(ctx: Context, a: NDArray<T>, options?: CholeskyOptions): NDArray<T> {
  const r = choleskyEx(ctx, a, options);
  throwOnFailure(r.info, 'cholesky', a.shape[a.shape.length - 1]!);
  return r.factor;
}
export function lu<T extends FloatArray>(ctx: Context, a: NDArray<T>): LuResult<T> {
  const r = luEx(ctx, a);
  throwOnFailure(r.info, 'lu', Math.min(a.shape[a.shape.length - 2]!, a.shape[a.shape.length - 1]!));
  return { lu: r.lu, pivots: r.pivots };
}
export function solve<T extends FloatArray>(ctx: Context, a: NDArray<T>, b: NDArray<T>): NDArray<T> {
  const r = solveEx(ctx, a, b);
  throwOnFailure(r.info, 'solve', a.shape[a.shape.length - 1]!);
  return r.x;
}
export function inv<T extends FloatArray>(ctx: Context, a: NDArray<T>, options: InvOptions = {}): NDArray<T> {
  const r = invEx(ctx, a, options);
  throwOnFailure(r.info, options.assume === 'spd' ? 'cholesky' : 'inv', a.shape[a.shape.length - 1]!, 'inv');
  return r.inverse;
}
export function eigh<T extends FloatArray>(ctx: Context, a: NDArray<T>, options?: EighOptions): EighResult<T> {
  const r = eighEx(ctx, a, options);
  throwOnFailure(r.info, 'eigh', a.shape[a.shape.length - 1]!);
  return { values: r.values, vectors: r.vectors };
}
export function eigvalsh<T extends FloatArray>(ctx: Context, a: NDArray<T>, options?: EighOptions): NDArray<T> {
  const r = eigvalshEx(ctx, a, options);
  throwOnFailure(r.info, 'eigvalsh', a.shape[a.shape.length - 1]!);
  return r.values;
}
export function svd<T extends FloatArray>(ctx: Context, a: NDArray<T>): SvdResult<T> {
  const r = svdEx(ctx, a);
  throwOnFailure(r.info, 'svd', minOrder(a));
  return { u: r.u, s: r.s, vt: r.vt };
}
export function svdvals<T extends FloatArray>(ctx: Context, a: NDArray<T>): NDArray<T> {
  const r = svdvalsEx(ctx, a);
  throwOnFailure(r.info, 'svdvals', minOrder(a));
  return r.values;
}
export function lstsq<T extends FloatArray>(ctx: Context, a: NDArray<T>, b: NDArray<T>): LstsqResult<T> {
  const r = lstsqEx(ctx, a, b);
  throwOnFailure(r.info, 'lstsq', Math.min(a.shape[a.shape.length - 2]!, a.shape[a.shape.length - 1]!));
  return { x: r.x, residuals: r.residuals };
}
