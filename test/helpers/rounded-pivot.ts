/**
 * LU cases whose pivot is nonzero in a float64 working copy but stores as zero in float32 /
 * complex64 (|p| <= 2^-150, rounded to nearest even; complex: both parts), and their checks, for
 * any context (test/cpu/lu-rounded-pivot.test.ts, test/gpu/lu-rounded-pivot.test.ts). Each special
 * member is the identity with a small block at rows and columns k.. that elimination turns into
 * exact tiny powers of two:
 * - tie: [[2^-149, 0], [2^-140, 2^-141]] (row-major): rows interchanged, U(k+1, k+1) = -2^-150, a
 *   tie that rounds to -0: info k + 2;
 * - below: 3 x 3, column k + 1 left holding -2^-151 on the diagonal and -2^-150 below it: info
 *   k + 2 and no interchange at that step (ipiv[k+1] = k + 1; float64 interchanges);
 * - roundsUp (real): U(k+1, k+1) = -1.5 * 2^-150, which stores as -2^-149: not singular;
 * - complex tie: both parts -2^-150 (singular); reOnly / imOnly: one part -2^-150, the other
 *   -2^-149 (not singular: a single tiny part does not make the pivot zero).
 * float64 and complex128 are the control: the same matrices are regular there (info 0, finite X).
 */
import assert from 'node:assert/strict';
import { strided, type StridedBatch } from '../../src/core/batch.js';
import type { ComplexDType, ElementType, FloatArray } from '../../src/core/dtype.js';
import type { Context } from '../../src/index.js';
import { Rng } from './random.js';

export type Op = 'getrf' | 'gesv';
export const isComplex = (t: ElementType): t is ComplexDType => t === 'complex64' || t === 'complex128';
export const isSingle = (t: ElementType): boolean => t === 'float32' || t === 'complex64';
export const partsOf = (t: ElementType): 1 | 2 => (isComplex(t) ? 2 : 1);
export const arrayOf = (t: ElementType, length: number): FloatArray => (isSingle(t) ? new Float32Array(length) : new Float64Array(length));

/** A special member's block: entries (i, j, re, im) relative to (k, k); pivots at steps k and k + 1 relative to k. */
export interface Kind {
  readonly name: string;
  readonly size: 2 | 3;
  readonly entries: readonly (readonly [number, number, number, number])[];
  /** Whether step k + 1's pivot stores as zero in single precision. */
  readonly singular: boolean;
  readonly pivK: number;
  /** ipiv[k+1] - k: in single precision (where singular: no interchange), in double. */
  readonly pivK1: { readonly single: number; readonly double: number };
}
const T149 = 2 ** -149;
/** The blocks' larger entry, and the special members' right-hand sides in the blocks' rows. */
export const S = 2 ** -140;
const twoByTwo = (name: string, re: number, im: number, h: number, singular: boolean): Kind => ({
  name, size: 2, singular, pivK: 1, pivK1: { single: 1, double: 1 },
  entries: [[0, 0, re * T149, im * T149], [1, 0, S, 0], [1, 1, h, 0]],
});
/** Column k + 1 after step k: -2^-151 at row k + 1, -2^-150 (|re| + |im|) at row k + 2, the larger. */
const below = (im: number): Kind => ({
  name: 'below', size: 3, singular: true, pivK: 0, pivK1: { single: 1, double: 2 },
  entries: [[0, 0, S, 0], [1, 0, T149, 0], [2, 0, (im ? 1 : 2) * T149, im * T149], [0, 1, 2 ** -142, 0], [2, 2, 1, 0]],
});
export const REAL_KINDS: readonly Kind[] = [twoByTwo('tie', 1, 0, 2 ** -141, true), below(0), twoByTwo('roundsUp', 3, 0, 2 ** -142, false)];
export const COMPLEX_KINDS: readonly Kind[] = [
  twoByTwo('tie', 1, 1, 2 ** -141, true), below(1), twoByTwo('reOnly', 1, 2, 2 ** -141, false), twoByTwo('imOnly', 2, 1, 2 ** -141, false),
];

/** Member m's role in a batch of `count`: special (its block at k) or dense. */
export function kOf(n: number, kind: Kind, count: number, m: number): number | undefined {
  const last = n - kind.size;
  if (count === 1) return Math.min(last, 1 + (n >> 2));
  if (m === 1) return Math.min(last, Math.max(0, (n >> 1) - 1));
  if (m === 2) return last;
  return undefined;
}

export interface Case { readonly dtype: ElementType; readonly n: number; readonly kind: Kind; readonly count: number; readonly nrhs: number }

/** Column-major data of the case (A back to back, ld = n; B n x nrhs), deterministic: a fresh copy of the one built. */
const built = new Map<string, { a: FloatArray; b: FloatArray }>();
export function build(c: Case): { a: FloatArray; b: FloatArray } {
  const key = `${c.dtype} ${c.n} ${c.kind.name} ${c.kind.size} ${c.count} ${c.nrhs}`;
  let data = built.get(key);
  if (!data) built.set(key, (data = generate(c)));
  return { a: data.a.slice(), b: data.b.slice() };
}
function generate(c: Case): { a: FloatArray; b: FloatArray } {
  const { dtype, n, kind, count, nrhs } = c;
  const e = partsOf(dtype);
  const rng = new Rng(n * 97 + count * 13 + kind.size);
  const a = arrayOf(dtype, e * n * n * count), b = arrayOf(dtype, e * n * nrhs * count);
  for (let m = 0; m < count; m++) {
    const o = m * n * n;
    const k = kOf(n, kind, count, m);
    if (k === undefined) {
      // dense, diagonally dominant: no near tie in the pivot search, well conditioned
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) for (let q = 0; q < e; q++) a[e * (o + i + j * n) + q] = rng.uniform();
      for (let i = 0; i < n; i++) a[e * (o + i + i * n)] = n + rng.next();
    } else {
      for (let i = 0; i < n; i++) a[e * (o + i + i * n)] = 1;
      for (let i = 0; i < kind.size; i++) a[e * (o + k + i + (k + i) * n)] = 0;
      for (const [i, j, re, im] of kind.entries) {
        a[e * (o + k + i + (k + j) * n)] = re;
        if (e === 2) a[e * (o + k + i + (k + j) * n) + 1] = im;
      }
    }
    for (let i = 0; i < e * n * nrhs; i++) b[e * m * n * nrhs + i] = rng.uniform();
    // a special member's right-hand sides: 1, and 2^-140 in the block's rows, so that X is finite where it solves
    if (k !== undefined) {
      for (let col = 0; col < nrhs; col++) for (let i = 0; i < n; i++) {
        const x = e * (m * n * nrhs + i + col * n);
        b[x] = i >= k && i < k + kind.size ? S : 1;
        if (e === 2) b[x + 1] = 0;
      }
    }
  }
  return { a, b };
}

export interface Request { a: StridedBatch<FloatArray>; b: StridedBatch<FloatArray>; ipiv: Int32Array; pivotStride: number; info: Int32Array }
export interface Result { a: FloatArray; b: FloatArray; ipiv: Int32Array; info: Int32Array }
export type Runner = (op: Op, r: Request) => void;

function run(c: Case, op: Op, runner: Runner): Result {
  const { a, b } = build(c);
  const { dtype, n, count, nrhs } = c;
  const complex = isComplex(dtype) ? { dtype } : {};
  const r: Request = {
    a: strided(a, { rows: n, cols: n, count, ...complex }), b: strided(b, { rows: n, cols: nrhs, count, ...complex }),
    ipiv: new Int32Array(n * count).fill(-9), pivotStride: n, info: new Int32Array(count).fill(-7),
  };
  runner(op, r);
  return { a, b, ipiv: r.ipiv, info: r.info };
}

/** Through a context's LAPACK-level calls (info and pivots copied out). */
export const viaContext = (ctx: Context): Runner => (op, r) => {
  const out = op === 'getrf' ? ctx.getrf({ a: r.a }) : ctx.gesv({ a: r.a, b: r.b });
  r.info.set(out.info as Int32Array);
  r.ipiv.set(out.ipiv as Int32Array);
};
/** max |A x - b| <= 16 n eps (max|A| max|x| + max|b|) for member m's columns (A and b as built, x from the result). */
export function residualOk(c: Case, m: number, x: FloatArray): boolean {
  const { a, b } = build(c);
  const { n, nrhs, dtype } = c;
  const e = partsOf(dtype);
  const eps = isSingle(dtype) ? 2 ** -23 : 2 ** -52;
  const A = (i: number, j: number, q: number): number => a[e * (m * n * n + i + j * n) + q]!;
  let an = 0, xn = 0, bn = 0, rn = 0;
  for (let i = 0; i < e * n * n; i++) an = Math.max(an, Math.abs(a[e * m * n * n + i]!));
  for (let col = 0; col < nrhs; col++) {
    const at = (i: number, q: number): number => e * (m * n * nrhs + i + col * n) + q;
    for (let i = 0; i < n; i++) for (let q = 0; q < e; q++) { xn = Math.max(xn, Math.abs(x[at(i, q)]!)); bn = Math.max(bn, Math.abs(b[at(i, q)]!)); }
    for (let i = 0; i < n; i++) {
      let re = -b[at(i, 0)]!, im = e === 2 ? -b[at(i, 1)]! : 0;
      for (let j = 0; j < n; j++) {
        const ar = A(i, j, 0), xr = x[at(j, 0)]!;
        if (e === 1) { re += ar * xr; continue; }
        const ai = A(i, j, 1), xi = x[at(j, 1)]!;
        re += ar * xr - ai * xi;
        im += ar * xi + ai * xr;
      }
      rn = Math.max(rn, Math.abs(re), Math.abs(im));
    }
  }
  return Number.isFinite(xn) && rn <= 16 * n * eps * (an * xn + bn);
}

export const sameBits = (x: ArrayLike<number>, y: ArrayLike<number>): boolean => {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (!Object.is(x[i], y[i])) return false;
  return true;
};

/**
 * Runs the case on `runner` and checks it: info and the special members' pivots as the kind says,
 * every pivot and info as the reference's (`want`), the special members' factor (and, where they
 * solved, solution) bit for bit the reference's, a failed member's B as given, the others' residuals.
 */
export function check(label: string, c: Case, op: Op, runner: Runner, want?: Result): Result {
  const got = run(c, op, runner);
  const { dtype, n, kind, count, nrhs } = c;
  const e = partsOf(dtype);
  const zero = isSingle(dtype) && kind.singular;
  const given = build(c).b;
  const at = `${label} ${op} ${dtype} ${kind.name} n=${n} count=${count}`;
  for (let m = 0; m < count; m++) {
    const k = kOf(n, kind, count, m);
    const bm = (x: FloatArray): FloatArray => x.subarray(e * m * n * nrhs, e * (m + 1) * n * nrhs);
    const am = (x: FloatArray): FloatArray => x.subarray(e * m * n * n, e * (m + 1) * n * n);
    assert.equal(got.info[m], zero && k !== undefined ? k + 2 : 0, `${at}: info of member ${m}`);
    if (k !== undefined) {
      const piv = got.ipiv.subarray(m * n, (m + 1) * n);
      assert.equal(piv[k], k + kind.pivK, `${at}: member ${m} ipiv[${k}]`);
      assert.equal(piv[k + 1], k + (zero ? kind.pivK1.single : kind.pivK1.double), `${at}: member ${m} ipiv[${k + 1}]`);
      // U(k+1, k+1) as stored: zero exactly where info says so
      const u = Array.from({ length: e }, (_, q) => got.a[e * (m * n * n + (k + 1) * (n + 1)) + q]!);
      assert.equal(u.every((v) => v === 0), zero, `${at}: member ${m} U(k+1, k+1) = ${u.join(', ')}`);
      if (want) assert.ok(sameBits(am(got.a), am(want.a)), `${at}: member ${m}'s factor differs from the reference's`);
    }
    if (op !== 'gesv') continue;
    if (got.info[m] !== 0) assert.ok(sameBits(bm(got.b), bm(given)), `${at}: failed member ${m}'s B was written`);
    else if (k === undefined) assert.ok(residualOk(c, m, got.b), `${at}: member ${m}'s residual`);
    else {
      assert.ok(bm(got.b).every(Number.isFinite), `${at}: member ${m}'s X is not finite`);
      if (want) assert.ok(sameBits(bm(got.b), bm(want.b)), `${at}: member ${m}'s X differs from the reference's`);
    }
  }
  if (want) {
    assert.deepEqual([...got.info], [...want.info], `${at}: infos`);
    assert.deepEqual([...got.ipiv], [...want.ipiv], `${at}: pivots`);
  }
  return got;
}

/** The case on the reference, then on each runner against it. */
export function everyPath(reference: Context, c: Case, runners: readonly (readonly [string, Runner])[]): void {
  for (const op of ['getrf', 'gesv'] as const) {
    const want = check('reference', c, op, viaContext(reference));
    for (const [label, runner] of runners) check(label, c, op, runner, want);
  }
}
