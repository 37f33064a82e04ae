/**
 * The array level on complex arrays (dtype 'complex128' or 'complex64': interleaved (re, im) pairs,
 * row-major, the shape in complex elements), with numpy 2's conventions and the real functions'
 * shapes, options, info and errors (array.ts). The Context sends an array whose `dtype` is complex
 * here; every other argument must then be of the same complex type (DTYPE naming it).
 *
 * The LAPACK level takes complex batches column-major only: read as column-major, row-major data
 * is A^T, and a transposed operation on it would need conj(A) without a transpose, which no BLAS
 * trans expresses. So each function copies its matrices into column-major work arrays (broadcast
 * members copied once per use), calls the LAPACK-level operation on the true matrices with
 * LAPACK's z semantics, and copies the results out row-major: O(n^2) per matrix beside the O(n^3)
 * of the factorizations. Eigenvalues and singular values are real arrays of the component type.
 */
import { strided, type StridedBatch } from '../core/batch.js';
import type { ComplexDType, FloatArray } from '../core/dtype.js';
import { check } from '../core/errors.js';
import type { Context } from './context.js';
import {
  allocLike, broadcastShapes, checkOptions, countOf, describeTrans, isVector, markNonFinite, markNonFiniteTriangle, numpyRhs, poisonFailed, rhsStack,
  sameDtype, sideStack, sourceIndices, squareStack, stackOf, vectorStack, withShape,
  type CholeskyOptions, type EighOptions, type EighResult, type InvOptions, type LuResult, type NDArray, type Stack, type SvdResult,
  type TriangularSolveOptions, type WithInfo,
} from './array.js';

/** 0, 1, ..., count - 1: every matrix its own source. */
export const own = (count: number): number[] => Array.from({ length: count }, (_, i) => i);

/**
 * Column-major copies of the m x n matrices src[0], src[1], ... of a row-major complex stack, each
 * in a block of `width` columns with leading dimension ld (the rest zero).
 */
export function toCol<T extends FloatArray>(data: T, src: readonly number[], m: number, n: number, ld = Math.max(1, m), width = n): T {
  const per = ld * width;
  const out = allocLike(data, 2 * src.length * per);
  src.forEach((s, c) => {
    const from = 2 * s * m * n;
    const to = 2 * c * per;
    for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) {
      const f = from + 2 * (i * n + j);
      const t = to + 2 * (i + j * ld);
      out[t] = data[f]!;
      out[t + 1] = data[f + 1]!;
    }
  });
  return out;
}

/** The leading m x n blocks of `count` column-major complex matrices (ld, `per` elements apart), row-major. */
export function toRow<T extends FloatArray>(work: T, count: number, m: number, n: number, ld = Math.max(1, m), per = ld * n): T {
  const out = allocLike(work, 2 * count * m * n);
  for (let c = 0; c < count; c++) {
    const from = 2 * c * per;
    const to = 2 * c * m * n;
    for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) {
      const f = from + 2 * (i + j * ld);
      const t = to + 2 * (i * n + j);
      out[t] = work[f]!;
      out[t + 1] = work[f + 1]!;
    }
  }
  return out;
}

/** A column-major complex batch over work arrays made by toCol. */
export function zbatch<T extends FloatArray>(data: T, z: ComplexDType, m: number, n: number, count: number, argument: string, ld = Math.max(1, m), stride = ld * n): StridedBatch<T> {
  return strided(data, { rows: m, cols: n, ld, stride, count, dtype: z }, argument);
}

const complexOf = (s: Stack): ComplexDType => s.complex!;
const out = <T extends FloatArray>(data: T, shape: readonly number[], dtype: ComplexDType): NDArray<T> => ({ data, shape: [...shape], dtype });

export function matmul<T extends FloatArray>(ctx: Context, a: NDArray<T>, b: NDArray<T>): NDArray<T> {
  const aVector = isVector(a, 'a');
  const bVector = isVector(b, 'b');
  sameDtype(a, b, 'b');
  const aa = aVector ? withShape(a, [1, a.shape[0]!]) : a;
  const bb = bVector ? withShape(b, [b.shape[0]!, 1]) : b;
  const sa = stackOf(aa, 'a', 2, true);
  const sb = stackOf(bb, 'b', 2, true);
  check(sa.cols === sb.rows, 'SHAPE', 'b', `inner dimensions differ: a is [..., ${sa.rows}, ${sa.cols}], b is [..., ${sb.rows}, ${sb.cols}]`);
  const batchShape = broadcastShapes(sa.batchShape, sb.batchShape, 'b');
  const count = countOf(batchShape);
  const [m, k, n] = [sa.rows, sa.cols, sb.cols];
  const z = complexOf(sa);
  const c = allocLike(a.data, 2 * count * m * n);
  if (count * m * n * k > 0) {
    ctx.gemm({
      a: zbatch(toCol(aa.data, sourceIndices(sa.batchShape, batchShape), m, k), z, m, k, count, 'a'),
      b: zbatch(toCol(bb.data, sourceIndices(sb.batchShape, batchShape), k, n), z, k, n, count, 'b'),
      c: zbatch(c, z, m, n, count, 'c'), alpha: 1, beta: 0,
    });
  }
  return out(toRow(c, count, m, n), [...batchShape, ...(aVector ? [] : [m]), ...(bVector ? [] : [n])], z);
}

export function choleskyEx<T extends FloatArray>(ctx: Context, a: NDArray<T>, options: CholeskyOptions = {}): WithInfo<{ factor: NDArray<T> }> {
  checkOptions(options, ['upper']);
  const s = squareStack(a, 'a', true);
  const { rows: n, count } = s;
  const upper = options.upper === true;
  const work = toCol(a.data, own(count), n, n);
  const { info } = ctx.potrf({ a: zbatch(work, complexOf(s), n, n, count, 'a'), uplo: upper ? 'upper' : 'lower' });
  const factor = out(toRow(work, count, n, n), a.shape, complexOf(s));
  for (let m = 0; m < count; m++)
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) if (upper ? j < i : j > i) factor.data.fill(0, 2 * (m * n * n + i * n + j), 2 * (m * n * n + i * n + j) + 2);
  markNonFiniteTriangle(info, a.data, n, !upper, 2);
  poisonFailed(factor, info, 2 * n * n);
  return { factor, info };
}

export function luEx<T extends FloatArray>(ctx: Context, a: NDArray<T>): WithInfo<LuResult<T>> {
  const s = stackOf(a, 'a', 2, true);
  const { rows: m, cols: n, count } = s;
  const work = toCol(a.data, own(count), m, n);
  const { info, ipiv } = ctx.getrf({ a: zbatch(work, complexOf(s), m, n, count, 'a') });
  const p = Math.min(m, n);
  markNonFinite(info, a.data, 2 * m * n, p);
  const lu = out(toRow(work, count, m, n), a.shape, complexOf(s));
  poisonFailed(lu, info, 2 * m * n, (code) => code === p + 2); // as the real luEx: singular factors kept
  return { lu, pivots: ipiv, info };
}

export function solveEx<T extends FloatArray>(ctx: Context, a: NDArray<T>, b: NDArray<T>): WithInfo<{ x: NDArray<T> }> {
  const s = squareStack(a, 'a', true);
  sameDtype(a, b, 'b');
  const n = s.rows;
  const { sb, vector, batchShape, count } = numpyRhs(s, a.shape, b, (rows) =>
    `b has ${rows} rows but a is [..., ${n}, ${n}] (b is [..., n, k]; numpy 2 reads b as vectors only when 1-D: give b [..., ${n}, 1] for a vector per matrix)`);
  const k = sb.cols;
  const z = complexOf(s);
  const aw = toCol(a.data, sourceIndices(s.batchShape, batchShape), n, n);
  const bw = toCol(b.data, sourceIndices(sb.batchShape, batchShape), n, k);
  const bad = new Int32Array(count);
  markNonFinite(bad, aw, 2 * n * n, n);
  markNonFinite(bad, bw, 2 * n * k, n);
  const { info } = ctx.gesv({ a: zbatch(aw, z, n, n, count, 'a'), b: zbatch(bw, z, n, k, count, 'b') });
  bad.forEach((v, i) => { if (v !== 0) info[i] = v; });
  const x = out(toRow(bw, count, n, k), [...batchShape, n, ...(vector ? [] : [k])], z);
  poisonFailed(x, info, 2 * n * k);
  return { x, info };
}

export function choleskySolve<T extends FloatArray>(ctx: Context, factor: NDArray<T>, b: NDArray<T>, options: CholeskyOptions = {}): NDArray<T> {
  checkOptions(options, ['upper']);
  const s = squareStack(factor, 'factor', true);
  sameDtype(factor, b, 'b', 'factor');
  const { stack } = rhsStack(b, s);
  const { rows: n, count } = s;
  const k = stack.cols;
  const z = complexOf(s);
  const x = toCol(b.data, own(count), n, k);
  ctx.potrs({ a: zbatch(toCol(factor.data, own(count), n, n), z, n, n, count, 'factor'), b: zbatch(x, z, n, k, count, 'b'), uplo: options.upper === true ? 'upper' : 'lower' });
  return out(toRow(x, count, n, k), b.shape, z);
}

export function invEx<T extends FloatArray>(ctx: Context, a: NDArray<T>, options: InvOptions = {}): WithInfo<{ inverse: NDArray<T> }> {
  checkOptions(options, ['assume']);
  const assume = options.assume ?? 'general';
  check(assume === 'general' || assume === 'spd', 'ENUM', 'options.assume', `expected 'general' or 'spd', got ${String(assume)}`);
  const s = squareStack(a, 'a', true);
  const { rows: n, count } = s;
  const z = complexOf(s);
  const work = toCol(a.data, own(count), n, n);
  let info: Int32Array;
  let x: T;
  if (assume === 'spd') {
    // poti writes the lower triangle of the (Hermitian) inverse; the upper is its conjugate.
    info = ctx.poti({ a: zbatch(work, z, n, n, count, 'a'), uplo: 'lower' }).info;
    for (let m = 0; m < count; m++)
      for (let j = 0; j < n; j++) for (let i = 0; i < j; i++) {
        const up = 2 * (m * n * n + i + j * n);
        const low = 2 * (m * n * n + j + i * n);
        work[up] = work[low]!;
        work[up + 1] = -work[low + 1]!;
      }
    x = work;
  } else {
    x = allocLike(a.data, 2 * count * n * n);
    for (let m = 0; m < count; m++) for (let i = 0; i < n; i++) x[2 * (m * n * n + i * n + i)] = 1;
    info = ctx.gesv({ a: zbatch(work, z, n, n, count, 'a'), b: zbatch(x, z, n, n, count, 'b') }).info;
  }
  const inverse = out(toRow(x, count, n, n), a.shape, z);
  // The SPD path reads A's lower triangle only (poti's uplo), the general one all of A.
  if (assume === 'spd') markNonFiniteTriangle(info, a.data, n, true, 2);
  else markNonFinite(info, a.data, 2 * n * n, n);
  poisonFailed(inverse, info, 2 * n * n);
  return { inverse, info };
}

export function triangularSolve<T extends FloatArray>(ctx: Context, a: NDArray<T>, b: NDArray<T>, options: TriangularSolveOptions = {}): NDArray<T> {
  checkOptions(options, ['upper', 'left', 'transpose', 'adjoint', 'unitDiagonal']);
  const transA = describeTrans(options);
  const s = squareStack(a, 'a', true);
  sameDtype(a, b, 'b');
  const left = options.left !== false;
  const stack = sideStack(b, s, left);
  const { rows: n, count } = s;
  const z = complexOf(s);
  const x = toCol(b.data, own(count), stack.rows, stack.cols);
  if (count * stack.rows * stack.cols > 0) {
    ctx.trsm({
      a: zbatch(toCol(a.data, own(count), n, n), z, n, n, count, 'a'), b: zbatch(x, z, stack.rows, stack.cols, count, 'b'),
      side: left ? 'left' : 'right', uplo: options.upper === true ? 'upper' : 'lower', transA, diag: options.unitDiagonal === true ? 'unit' : 'nonunit',
    });
  }
  return out(toRow(x, count, stack.rows, stack.cols), b.shape, z);
}

function eigenEx<T extends FloatArray>(ctx: Context, a: NDArray<T>, options: EighOptions, vectors: boolean): WithInfo<{ values: NDArray<T>; vectors: NDArray<T> | undefined }> {
  checkOptions(options, ['upper']);
  const s = squareStack(a, 'a', true);
  const { rows: n, count } = s;
  const work = toCol(a.data, own(count), n, n);
  const w = vectorStack(a.data, s.batchShape, count, n, 'w');
  const { info } = ctx.heev({
    a: zbatch(work, complexOf(s), n, n, count, 'a'), w: w.batch, uplo: options.upper === true ? 'upper' : 'lower', jobz: vectors ? 'vectors' : 'values',
  });
  poisonFailed(w.out, info, n);
  const v = vectors ? out(toRow(work, count, n, n), a.shape, complexOf(s)) : undefined;
  if (v) poisonFailed(v, info, 2 * n * n);
  return { values: w.out, vectors: v, info };
}
export function eighEx<T extends FloatArray>(ctx: Context, a: NDArray<T>, options: EighOptions = {}): WithInfo<EighResult<T>> {
  const r = eigenEx(ctx, a, options, true);
  return { values: r.values, vectors: r.vectors!, info: r.info };
}
export function eigvalshEx<T extends FloatArray>(ctx: Context, a: NDArray<T>, options: EighOptions = {}): WithInfo<{ values: NDArray<T> }> {
  const r = eigenEx(ctx, a, options, false);
  return { values: r.values, info: r.info };
}

function singularEx<T extends FloatArray>(ctx: Context, a: NDArray<T>, vectors: boolean): WithInfo<{ s: NDArray<T>; u: NDArray<T> | undefined; vt: NDArray<T> | undefined }> {
  const st = stackOf(a, 'a', 2, true);
  const { rows: m, cols: n, batchShape, count } = st;
  const z = complexOf(st);
  const k = Math.min(m, n);
  const s = vectorStack(a.data, batchShape, count, k, 's');
  const u = vectors ? allocLike(a.data, 2 * count * m * k) : undefined;
  const vt = vectors ? allocLike(a.data, 2 * count * k * n) : undefined;
  const { info } = ctx.gesvd({
    a: zbatch(toCol(a.data, own(count), m, n), z, m, n, count, 'a'), s: s.batch,
    jobu: vectors ? 'thin' : 'none', jobvt: vectors ? 'thin' : 'none',
    ...(u ? { u: zbatch(u, z, m, k, count, 'u') } : {}),
    ...(vt ? { vt: zbatch(vt, z, k, n, count, 'vt') } : {}),
  });
  poisonFailed(s.out, info, k);
  const uo = u ? out(toRow(u, count, m, k), [...batchShape, m, k], z) : undefined;
  const vo = vt ? out(toRow(vt, count, k, n), [...batchShape, k, n], z) : undefined;
  if (uo) poisonFailed(uo, info, 2 * m * k);
  if (vo) poisonFailed(vo, info, 2 * k * n);
  return { s: s.out, u: uo, vt: vo, info };
}
export function svdEx<T extends FloatArray>(ctx: Context, a: NDArray<T>): WithInfo<SvdResult<T>> {
  const r = singularEx(ctx, a, true);
  return { u: r.u!, s: r.s, vt: r.vt!, info: r.info };
}
export function svdvalsEx<T extends FloatArray>(ctx: Context, a: NDArray<T>): WithInfo<{ values: NDArray<T> }> {
  const r = singularEx(ctx, a, false);
  return { values: r.s, info: r.info };
}
