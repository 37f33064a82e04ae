/**
 * Complex matrices for tests, computed here and not by the library: dense column-major matrices of
 * interleaved (re, im) pairs (`Z`: element (i, j) at d[2 (i + j rows)]), their products, conjugate
 * transposes and norms, LAPACK-style residual ratios, and their placement in (and reading back
 * from) strided and list batches with odd leading dimensions, strides and offsets.
 */
import assert from 'node:assert/strict';
import { list, strided, type Batch } from '../../src/core/batch.js';
import { MyriadError, type ErrorCode } from '../../src/core/errors.js';
import type { ComplexDType } from '../../src/core/dtype.js';
import type { ComplexOp } from '../../src/core/op-specs.js';
import type { Diag, Uplo } from '../../src/core/enums.js';
import { Rng } from './random.js';

/** A dense complex matrix. */
export interface Z {
  readonly rows: number;
  readonly cols: number;
  readonly d: Float64Array;
}

export const zeros = (rows: number, cols: number): Z => ({ rows, cols, d: new Float64Array(2 * rows * cols) });
export const get = (a: Z, i: number, j: number): [number, number] => [a.d[2 * (i + j * a.rows)]!, a.d[2 * (i + j * a.rows) + 1]!];
export function set(a: Z, i: number, j: number, re: number, im: number): void {
  a.d[2 * (i + j * a.rows)] = re;
  a.d[2 * (i + j * a.rows) + 1] = im;
}

export function identity(n: number): Z {
  const a = zeros(n, n);
  for (let i = 0; i < n; i++) set(a, i, i, 1, 0);
  return a;
}

/** Entries uniform in the unit square around 0. */
export function random(rng: Rng, rows: number, cols: number): Z {
  const a = zeros(rows, cols);
  for (let k = 0; k < a.d.length; k++) a.d[k] = rng.uniform(-1, 1);
  return a;
}

/** op(A): A, A^T or A^H. */
export function op(a: Z, t: ComplexOp): Z {
  if (t === 'N') return a;
  const out = zeros(a.cols, a.rows);
  for (let i = 0; i < a.rows; i++) for (let j = 0; j < a.cols; j++) {
    const [re, im] = get(a, i, j);
    set(out, j, i, re, t === 'C' ? -im : im);
  }
  return out;
}

/** The product s A B (s complex, default 1). */
export function multiply(a: Z, b: Z, s: readonly [number, number] = [1, 0]): Z {
  const out = zeros(a.rows, b.cols);
  // get / set written out (no pair allocated per element): the same arithmetic in the same order
  const x = a.d, y = b.d, m = a.rows, k = a.cols, ldb = b.rows;
  for (let j = 0; j < b.cols; j++) for (let i = 0; i < m; i++) {
    let re = 0;
    let im = 0;
    for (let l = 0; l < k; l++) {
      const xr = x[2 * (i + l * m)]!, xi = x[2 * (i + l * m) + 1]!;
      const yr = y[2 * (l + j * ldb)]!, yi = y[2 * (l + j * ldb) + 1]!;
      re += xr * yr - xi * yi;
      im += xr * yi + xi * yr;
    }
    set(out, i, j, s[0] * re - s[1] * im, s[0] * im + s[1] * re);
  }
  return out;
}

export function subtract(a: Z, b: Z): Z {
  return { rows: a.rows, cols: a.cols, d: a.d.map((x, k) => x - b.d[k]!) };
}

/** The Frobenius norm (NaN if any entry is NaN). */
export function norm(a: Z): number {
  let s = 0;
  for (const x of a.d) s += x * x;
  return Math.sqrt(s);
}

/** The `uplo` triangle of A, zeros elsewhere; with `unit`, ones on the diagonal. */
export function triangle(a: Z, uplo: Uplo, unit = false): Z {
  const out = zeros(a.rows, a.cols);
  for (let j = 0; j < a.cols; j++) for (let i = 0; i < a.rows; i++) {
    if (uplo === 'lower' ? i < j : i > j) continue;
    if (unit && i === j) set(out, i, i, 1, 0);
    else set(out, i, j, ...get(a, i, j));
  }
  return out;
}

/** The Hermitian matrix whose `uplo` triangle A holds (the diagonal's imaginary parts ignored). */
export function hermitianFrom(a: Z, uplo: Uplo): Z {
  const out = zeros(a.rows, a.cols);
  for (let j = 0; j < a.cols; j++) for (let i = 0; i < a.rows; i++) {
    const inside = uplo === 'lower' ? i >= j : i <= j;
    const [re, im] = inside ? get(a, i, j) : get(a, j, i);
    set(out, i, j, re, i === j ? 0 : inside ? im : -im);
  }
  return out;
}

/** A random Hermitian positive definite matrix: B B^H + n I. */
export function randomHpd(rng: Rng, n: number): Z {
  const b = random(rng, n, n);
  const a = multiply(b, op(b, 'C'));
  for (let i = 0; i < n; i++) set(a, i, i, get(a, i, i)[0] + n, 0);
  return a;
}

/** A random Hermitian matrix: (B + B^H) / 2, entries of B uniform in the unit square. */
export function randomHermitian(rng: Rng, n: number): Z {
  const b = random(rng, n, n);
  const h = op(b, 'C');
  return { rows: n, cols: n, d: b.d.map((x, k) => (x + h.d[k]!) / 2) };
}

/** A diag(d): column j scaled by the real d[j]. */
export function scaleColumns(a: Z, d: ArrayLike<number>): Z {
  const out = zeros(a.rows, a.cols);
  for (let j = 0; j < a.cols; j++) for (let i = 0; i < a.rows; i++) {
    const [re, im] = get(a, i, j);
    set(out, i, j, re * d[j]!, im * d[j]!);
  }
  return out;
}

/**
 * A real batch of `count` rows x 1 columns (eigenvalues, singular values) of the component type of
 * `dtype`, at an odd offset and stride, filled with `fill`; `read(p)` gives column p.
 */
export function realColumns(count: number, rows: number, dtype: ComplexDType, fill = -777): { batch: Batch<Float64Array | Float32Array>; read(p: number): number[] } {
  const stride = rows + 2;
  const data = (dtype === 'complex64' ? new Float32Array(3 + stride * count) : new Float64Array(3 + stride * count)).fill(fill);
  return {
    batch: strided(data, { rows, cols: 1, count, stride, offset: 3 }),
    read: (p) => [...data.subarray(3 + p * stride, 3 + p * stride + rows)],
  };
}

/** ||num|| / (n ||den|| eps), LAPACK's testers' ratio (0 / 0 is 0, x / 0 is 1 / eps). */
export function ratio(num: number, n: number, den: number, eps: number): number {
  if (den === 0) return num === 0 ? 0 : 1 / eps;
  return num / den / (Math.max(n, 1) * eps);
}

/** Unit roundoff of an element type's parts. */
export const epsOf = (dtype: ComplexDType): number => (dtype === 'complex64' ? 2 ** -24 : 2 ** -53);

/** Where the matrices of a batch lie: odd padding by default, so that no layout is accidentally dense. */
export interface Layout {
  readonly kind: 'strided' | 'list';
  /** ld = rows + pad. */
  readonly pad: number;
  /** stride = ld cols + gap (strided). */
  readonly gap: number;
  readonly offset: number;
}
export const ODD: Layout = { kind: 'strided', pad: 3, gap: 5, offset: 7 };
export const LIST: Layout = { kind: 'list', pad: 1, gap: 0, offset: 3 };

/** A complex batch holding `ms` (all rows x cols), padding and gaps filled with `fill`. */
export interface Placed {
  readonly batch: Batch<Float64Array | Float32Array>;
  /** Matrix p read back. */
  read(p: number): Z;
  /** The floats outside the matrices (they must never change). */
  outside(): number[];
}

export function place(ms: readonly Z[], rows: number, cols: number, dtype: ComplexDType, layout: Layout = ODD, fill = -777): Placed {
  const ld = Math.max(1, rows + layout.pad);
  const make = (n: number): Float64Array | Float32Array => (dtype === 'complex64' ? new Float32Array(n) : new Float64Array(n)).fill(fill);
  const inside = (base: number, s = new Set<number>()): Set<number> => {
    for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) s.add(2 * (base + i + j * ld)).add(2 * (base + i + j * ld) + 1);
    return s;
  };
  // The floats inside the matrices, gathered on the first outside() (most callers never ask).
  let usedOnce: Set<number> | undefined;
  const usedBy = (bases: readonly number[]): Set<number> => (usedOnce ??= bases.reduce((s, base) => inside(base, s), new Set<number>()));
  const write = (data: Float64Array | Float32Array, base: number, m: Z): void => {
    for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) {
      const [re, im] = get(m, i, j);
      data[2 * (base + i + j * ld)] = re;
      data[2 * (base + i + j * ld) + 1] = im;
    }
  };
  const readAt = (data: Float64Array | Float32Array, base: number): Z => {
    const out = zeros(rows, cols);
    for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) set(out, i, j, data[2 * (base + i + j * ld)]!, data[2 * (base + i + j * ld) + 1]!);
    return out;
  };
  if (layout.kind === 'strided') {
    const stride = ld * cols + layout.gap;
    const data = make(2 * (layout.offset + stride * ms.length + 1));
    ms.forEach((m, p) => write(data, layout.offset + p * stride, m));
    const bases = ms.map((_, p) => layout.offset + p * stride);
    return {
      batch: strided(data, { rows, cols, ld, stride, offset: layout.offset, count: ms.length, dtype }),
      read: (p) => readAt(data, layout.offset + p * stride),
      outside: () => {
        const used = usedBy(bases);
        return [...data].filter((_, k) => !used.has(k));
      },
    };
  }
  const arrays = ms.map((m) => {
    const data = make(2 * (layout.offset + ld * cols + 1));
    write(data, layout.offset, m);
    return data;
  });
  return {
    batch: list(arrays.map((data) => ({ data, offset: layout.offset })), { rows, cols, ld, dtype }),
    read: (p) => readAt(arrays[p]!, layout.offset),
    outside: () => {
      const used = usedBy([layout.offset]);
      return arrays.flatMap((data) => [...data].filter((_, k) => !used.has(k)));
    },
  };
}

export { Rng };

/** The orders the complex tests run: every n to 12, then 17 and 33 (past the unrolled sizes). */
export const SIZES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 17, 33];
export const TYPES: readonly ComplexDType[] = ['complex128', 'complex64'];

/** Asserts `fn` throws a MyriadError of `code` naming `argument` (and matching `message`). */
export function throwsArg(fn: () => unknown, code: ErrorCode, argument: string, message?: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof MyriadError, String(e));
    assert.equal(e.code, code, e.message);
    assert.equal(e.argument, argument, e.message);
    if (message !== undefined) assert.match(e.message, message);
    return true;
  });
}

/**
 * A triangle to solve with or invert: the `uplo` triangle well conditioned (diagonal 2 ... 3 plus an
 * imaginary part, off-diagonal entries of modulus about 1/n), NaN in the other triangle (never read);
 * for 'unit', NaN on the diagonal (never read either).
 */
export function randomTriangular(rng: Rng, n: number, uplo: Uplo, diag: Diag): Z {
  const t = zeros(n, n);
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
    if (i === j) set(t, i, i, diag === 'unit' ? NaN : 2 + rng.uniform(0, 1), diag === 'unit' ? NaN : rng.uniform(-1, 1));
    else if (uplo === 'lower' ? i >= j : i <= j) set(t, i, j, rng.uniform(-1, 1) / n, rng.uniform(-1, 1) / n);
    else set(t, i, j, NaN, NaN);
  }
  return t;
}
