/**
 * LU of float32 and complex64 data whose pivot is nonzero in the float64 working copy but stores
 * as zero (|p| <= 2^-150, rounded to nearest even; complex: both parts): every CPU path factors
 * in float64, and such a pivot must count as zero, as sgetrf would see it, or gesv divides by the
 * stored U(k, k) = 0 and returns Inf/NaN with info 0. Each special member is the identity with a
 * small block at rows and columns k.. that elimination turns into exact tiny powers of two:
 * - tie: [[2^-149, 0], [2^-140, 2^-141]] (row-major): rows interchanged, U(k+1, k+1) = -2^-150, a
 *   tie that rounds to -0: info k + 2;
 * - below: 3 x 3, column k + 1 left holding -2^-151 on the diagonal and -2^-150 below it: info
 *   k + 2 and no interchange at that step (ipiv[k+1] = k + 1; float64 interchanges);
 * - roundsUp (real): U(k+1, k+1) = -1.5 * 2^-150, which stores as -2^-149: not singular;
 * - complex tie: both parts -2^-150 (singular); reOnly / imOnly: one part -2^-150, the other
 *   -2^-149 (not singular: a single tiny part does not make the pivot zero).
 * float64 and complex128 are the control: the same matrices are regular there (info 0, finite X).
 *
 * On the reference and the fast backend through open(), and on each fast variant forced (the
 * unrolled JavaScript LU, the WebAssembly LU unblocked and delayed-update, the recursive blocked
 * LU with several leaves, the interleaved gesv in both forms; complex: the JavaScript kernel, the
 * one-matrix WebAssembly kernel with its steps unrolled and as loops, the two-matrix kernel
 * right-looking and in Crout's order), count 1 and a batch of 5 (or 3) whose members 1 and 2 are special
 * (the others dense and well conditioned): info, pivots, factor and solution as the reference's
 * (the special members' arithmetic is exact, so every path agrees bit for bit there), the failed
 * members' B bitwise untouched, the neighbours' residuals small. Then the array level (luEx,
 * solveEx, invEx) reports the failed member as it reports an exactly singular one.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { matrixAt, strided, type StridedBatch } from '../../src/core/batch.js';
import type { ComplexDType, ElementType, FloatArray } from '../../src/core/dtype.js';
import { ndarray, open, type Context, type NDArray } from '../../src/index.js';
import { fastGesv, fastGetrf, type GetrfOptions } from '../../src/cpu-fast/ops/getrf.js';
import { gesvInterleaved } from '../../src/cpu-fast/ops/gesv-interleaved.js';
import { fastGesvComplex, fastGetrfComplex, type ComplexLuOptions } from '../../src/cpu-fast/ops/zfactor.js';
import { DEFAULT_CPU_TUNING as T } from '../../src/cpu-fast/tuning.js';
import { Rng } from '../helpers/random.js';

const reference = open({ backend: 'reference' });
const fast = open({ backend: 'cpu' });
after(() => { reference.dispose(); fast.dispose(); });

type Op = 'getrf' | 'gesv';
const isComplex = (t: ElementType): t is ComplexDType => t === 'complex64' || t === 'complex128';
const isSingle = (t: ElementType): boolean => t === 'float32' || t === 'complex64';
const partsOf = (t: ElementType): 1 | 2 => (isComplex(t) ? 2 : 1);
const arrayOf = (t: ElementType, length: number): FloatArray => (isSingle(t) ? new Float32Array(length) : new Float64Array(length));

/** A special member's block: entries (i, j, re, im) relative to (k, k); pivots at steps k and k + 1 relative to k. */
interface Kind {
  readonly name: string;
  readonly size: 2 | 3;
  readonly entries: readonly (readonly [number, number, number, number])[];
  /** Whether step k + 1's pivot stores as zero in single precision. */
  readonly singular: boolean;
  readonly pivK: number;
  /** ipiv[k+1] - k: in single precision (where singular: no interchange), in double. */
  readonly pivK1: { readonly single: number; readonly double: number };
}
const T149 = 2 ** -149, S = 2 ** -140;
const twoByTwo = (name: string, re: number, im: number, h: number, singular: boolean): Kind => ({
  name, size: 2, singular, pivK: 1, pivK1: { single: 1, double: 1 },
  entries: [[0, 0, re * T149, im * T149], [1, 0, S, 0], [1, 1, h, 0]],
});
/** Column k + 1 after step k: -2^-151 at row k + 1, -2^-150 (|re| + |im|) at row k + 2, the larger. */
const below = (im: number): Kind => ({
  name: 'below', size: 3, singular: true, pivK: 0, pivK1: { single: 1, double: 2 },
  entries: [[0, 0, S, 0], [1, 0, T149, 0], [2, 0, (im ? 1 : 2) * T149, im * T149], [0, 1, 2 ** -142, 0], [2, 2, 1, 0]],
});
const REAL_KINDS: readonly Kind[] = [twoByTwo('tie', 1, 0, 2 ** -141, true), below(0), twoByTwo('roundsUp', 3, 0, 2 ** -142, false)];
const COMPLEX_KINDS: readonly Kind[] = [
  twoByTwo('tie', 1, 1, 2 ** -141, true), below(1), twoByTwo('reOnly', 1, 2, 2 ** -141, false), twoByTwo('imOnly', 2, 1, 2 ** -141, false),
];

/** Member m's role in a batch of `count`: special (its block at k) or dense. */
function kOf(n: number, kind: Kind, count: number, m: number): number | undefined {
  const last = n - kind.size;
  if (count === 1) return Math.min(last, 1 + (n >> 2));
  if (m === 1) return Math.min(last, Math.max(0, (n >> 1) - 1));
  if (m === 2) return last;
  return undefined;
}

interface Case { readonly dtype: ElementType; readonly n: number; readonly kind: Kind; readonly count: number; readonly nrhs: number }

/** Column-major data of the case (A back to back, ld = n; B n x nrhs), deterministic: a fresh copy of the one built. */
const built = new Map<string, { a: FloatArray; b: FloatArray }>();
function build(c: Case): { a: FloatArray; b: FloatArray } {
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

interface Request { a: StridedBatch<FloatArray>; b: StridedBatch<FloatArray>; ipiv: Int32Array; pivotStride: number; info: Int32Array }
interface Result { a: FloatArray; b: FloatArray; ipiv: Int32Array; info: Int32Array }
type Runner = (op: Op, r: Request) => void;

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
const viaContext = (ctx: Context): Runner => (op, r) => {
  const out = op === 'getrf' ? ctx.getrf({ a: r.a }) : ctx.gesv({ a: r.a, b: r.b });
  r.info.set(out.info as Int32Array);
  r.ipiv.set(out.ipiv as Int32Array);
};
const realForced = (options: GetrfOptions): Runner => (op, r) => (op === 'getrf' ? fastGetrf(r, options) : fastGesv(r, options));
const complexForced = (options: ComplexLuOptions): Runner => (op, r) => (op === 'getrf' ? fastGetrfComplex(r, options) : fastGesvComplex(r, options));
/** gesv on the interleaved kernel (scratch or locals form; getrf has no interleaved form: the reference's). */
const interleaved = (form: 'scratch' | 'locals'): Runner => (op, r) => {
  if (op === 'getrf') return void fastGetrf(r);
  assert.ok(gesvInterleaved(r, matrixAt(r.a, 0), 0, r.a.count, form), 'layout accepted');
};

/** max |A x - b| <= 16 n eps (max|A| max|x| + max|b|) for member m's columns (A and b as built, x from the result). */
function residualOk(c: Case, m: number, x: FloatArray): boolean {
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

const sameBits = (x: ArrayLike<number>, y: ArrayLike<number>): boolean => {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (!Object.is(x[i], y[i])) return false;
  return true;
};

/**
 * Runs the case on `runner` and checks it: info and the special members' pivots as the kind says,
 * every pivot and info as the reference's (`want`), the special members' factor (and, where they
 * solved, solution) bit for bit the reference's, a failed member's B as given, the others' residuals.
 */
function check(label: string, c: Case, op: Op, runner: Runner, want?: Result): Result {
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
function everyPath(c: Case, runners: readonly (readonly [string, Runner])[]): void {
  for (const op of ['getrf', 'gesv'] as const) {
    const want = check('reference', c, op, viaContext(reference));
    for (const [label, runner] of runners) check(label, c, op, runner, want);
  }
}

const CONTEXT: readonly (readonly [string, Runner])[] = [['cpu', viaContext(fast)]];
/** Every kind in single precision (and in double up to `allUpTo`); else the control's first kind only (the suite's time). */
const kindsOf = (dtype: ElementType, n: number, allUpTo: number): readonly Kind[] => {
  const kinds = isComplex(dtype) ? COMPLEX_KINDS : REAL_KINDS;
  return (isSingle(dtype) || n <= allUpTo ? kinds : kinds.slice(0, 1)).filter((k) => k.size <= n);
};

describe('LU: a pivot that stores as zero in float32 / complex64 is zero', () => {
  test('real: the reference and the fast backend, every size class (unrolled, interleaved, WebAssembly, delayed-update single and in pairs)', () => {
    for (const dtype of ['float32', 'float64'] as const) for (const n of [2, 3, 8, 12, 20, 40]) for (const kind of kindsOf(dtype, n, 3)) {
      for (const count of [1, 5]) everyPath({ dtype, n, kind, count, nrhs: 1 + (n % 2) }, CONTEXT);
    }
  });

  test('real: each fast variant forced', () => {
    const variant = (v: 'unrolled' | 'wasm' | 'wasmBlock' | 'blocked'): readonly [string, Runner] => [v, realForced({ force: { variant: v } })];
    for (const dtype of ['float32', 'float64'] as const) {
      for (const n of [3, 7]) for (const kind of kindsOf(dtype, n, 3)) for (const count of [1, 5]) {
        everyPath({ dtype, n, kind, count, nrhs: 2 }, [variant('unrolled'), variant('wasm'), variant('wasmBlock'), ['interleaved', interleaved('scratch')], ['interleaved locals', interleaved('locals')]]);
      }
      for (const kind of kindsOf(dtype, 13, 0)) everyPath({ dtype, n: 13, kind, count: 5, nrhs: 1 }, [variant('wasm'), variant('wasmBlock'), ['interleaved', interleaved('scratch')]]);
      for (const kind of kindsOf(dtype, 33, 0)) everyPath({ dtype, n: 33, kind, count: 5, nrhs: 1 }, [variant('wasm'), variant('wasmBlock')]);
      // the recursive LU: leaves of at most 32 columns (tuning.ts luBlocked.leaf; at n = 70 four of 16
      // and 18, at 130 five of 16 to 32), the special steps in different leaves
      for (const kind of kindsOf(dtype, 70, 0)) everyPath({ dtype, n: 70, kind, count: 5, nrhs: 1 }, [variant('blocked')]);
      if (dtype === 'float32') everyPath({ dtype, n: 130, kind: REAL_KINDS[0]!, count: 3, nrhs: 1 }, [variant('blocked')]);
    }
  });

  test('complex: the reference and the fast backend (JavaScript, one-matrix and two-matrix WebAssembly, the reference past 24)', () => {
    for (const dtype of ['complex64', 'complex128'] as const) for (const n of [2, 3, 8, 17, 30]) for (const kind of kindsOf(dtype, n, 3)) {
      for (const count of [1, 5]) everyPath({ dtype, n, kind, count, nrhs: 1 + (n % 2) }, CONTEXT);
    }
  });

  test('complex: each fast variant forced', () => {
    const wasm = (tuning: Partial<typeof T>): ComplexLuOptions => ({ force: { variant: 'wasm' }, tuning: { ...T, ...tuning } });
    const runners: readonly (readonly [string, Runner])[] = [
      ['unrolled', complexForced({ force: { variant: 'unrolled' } })],
      ['one-matrix', complexForced(wasm({ complexLuWasmPairs: { min: 99, max: 99 } }))],
      ['one-matrix loops', complexForced(wasm({ complexLuWasmPairs: { min: 99, max: 99 }, complexLuWasmFactorLoopMin: 1, complexLuWasmSolveLoopMin: 1 }))],
      ['pairs', complexForced(wasm({ complexLuWasmPairs: { min: 1, max: 99 }, complexLuWasmPairCrout: { min: 99, rows: 2 }, complexLuWasmPairLoopMin: 99 }))],
      ['pairs loops', complexForced(wasm({ complexLuWasmPairs: { min: 1, max: 99 }, complexLuWasmPairCrout: { min: 99, rows: 2 }, complexLuWasmPairLoopMin: 1, complexLuWasmPairGroup: 1 }))],
      ['pairs Crout', complexForced(wasm({ complexLuWasmPairs: { min: 1, max: 99 }, complexLuWasmPairCrout: { min: 1, rows: 2 } }))],
    ];
    for (const dtype of ['complex64', 'complex128'] as const) for (const n of [3, 6]) for (const kind of COMPLEX_KINDS) for (const count of [1, 5]) {
      everyPath({ dtype, n, kind, count, nrhs: 1 + (count % 2) }, runners);
    }
  });

  test('the array level: luEx, solveEx and invEx report the member as they report an exactly singular one', () => {
    const n = 4, k = 1, count = 4;
    for (const ctx of [reference, fast]) for (const dtype of ['float32', 'complex64', 'float64', 'complex128'] as const) {
      const e = partsOf(dtype);
      const kinds = isComplex(dtype) ? COMPLEX_KINDS : REAL_KINDS;
      // members: the tie block at k, an exactly singular matrix (column 2 zero), the identity, the `below` block at k (row-major data)
      const a = arrayOf(dtype, e * n * n * count);
      for (let m = 0; m < count; m++) for (let i = 0; i < n; i++) if (!(m === 1 && i === 2)) a[e * (m * n * n + i * n + i)] = 1;
      for (const [m, kind] of [[0, kinds[0]!], [3, kinds[1]!]] as const) {
        for (let i = 0; i < kind.size; i++) a[e * (m * n * n + (k + i) * n + k + i)] = 0;
        for (const [i, j, re, im] of kind.entries) {
          a[e * (m * n * n + (k + i) * n + k + j)] = re;
          if (e === 2) a[e * (m * n * n + (k + i) * n + k + j) + 1] = im;
        }
      }
      const array = (data: FloatArray, shape: number[]): NDArray => (isComplex(dtype) ? ndarray(data, shape, { dtype }) : ndarray(data, shape));
      const A = array(a, [count, n, n]);
      // one right-hand side per matrix ([count, n, 1]): 1, and 2^-140 in the blocks' rows
      const b = arrayOf(dtype, e * n * count);
      for (let m = 0; m < count; m++) for (let i = 0; i < n; i++) b[e * (m * n + i)] = (m === 0 || m === 3) && i >= k && i < k + 3 ? S : 1;
      const single = isSingle(dtype);
      const failed = [single, true, false, single];
      const info = [single ? k + 2 : 0, 3, 0, single ? k + 2 : 0];
      const label = `${ctx === fast ? 'cpu' : 'reference'} ${dtype}`;
      const lu = ctx.luEx(A);
      assert.deepEqual([...lu.info], info, `${label}: luEx info`);
      // a singular member keeps its factors (finite), as getrf leaves them
      assert.ok(lu.lu.data.every(Number.isFinite), `${label}: luEx factors`);
      const s = ctx.solveEx(A, array(b, [count, n, 1]));
      assert.deepEqual([...s.info], info, `${label}: solveEx info`);
      const inv = ctx.invEx(A);
      assert.deepEqual([...inv.info], info, `${label}: invEx info`);
      for (let m = 0; m < count; m++) {
        const x = s.x.data.subarray(e * m * n, e * (m + 1) * n), y = inv.inverse.data.subarray(e * m * n * n, e * (m + 1) * n * n);
        assert.ok(failed[m] ? x.every(Number.isNaN) && y.every(Number.isNaN) : x.every(Number.isFinite) && y.every(Number.isFinite), `${label}: member ${m}'s solution and inverse`);
      }
      if (single) assert.throws(() => ctx.solve(A, array(b, [count, n, 1])), /#0/, `${label}: solve names the first failed member`);
    }
  });
});
