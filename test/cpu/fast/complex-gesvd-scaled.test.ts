/**
 * The two-matrix WebAssembly complex SVD (kernels/zgesvd-interleaved.ts through ops/zgesvd-wasm.ts)
 * on matrices scaled across the finite range, against the complex reference: info 0 as the
 * reference's, s within 8 max(m, n) eps of the largest, U and VT orthonormal and U diag(s) VT = A
 * (residual ratios below 30, A and s scaled back near 1 first). The driver scales a matrix only
 * where its largest part leaves [2^-500, 2^500] (as the reference does), so columns near 2^-500
 * reach the kernel as they are: their squared norms near 2^-1000, g_p^H g_q at the rounding level
 * near 2^-1050, below the 2^-1024 under which a reciprocal overflows (2^-499 ... 2^-480 here; a
 * third to a half of such matrices came back NaN with info 0, or with info k + 1, while the
 * kernel's reference form took reciprocals). Also a column of 1e-300 beside ordinary ones (the test
 * beside it is against 0 or a subnormal squared norm), three small matrices that failed (2 x 2,
 * 3 x 3, 4 x 4), and complex64 across float32's range. Each batch mixes the scales, so a quad's
 * lanes take the squared forms and the reference's form side by side.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ComplexDType, FloatArray } from '../../../src/core/dtype.js';
import type { GesvdRequest } from '../../../src/core/op-specs.js';
import { fastGesvdComplex, type ComplexPairOptions } from '../../../src/cpu-fast/ops/zfactor.js';
import { DEFAULT_CPU_TUNING as T } from '../../../src/cpu-fast/tuning.js';
import { complexReference } from '../../../src/cpu/complex/backend.js';
import { Rng, epsOf, identity, multiply, norm, op, place, random, ratio, realColumns, scaleColumns, subtract, type Z } from '../../helpers/complex.js';

const OPTIONS: ComplexPairOptions = { force: { variant: 'wasm' }, tuning: T };
const SHAPES: readonly (readonly [number, number])[] = [
  [1, 1], [2, 2], [3, 3], [4, 4], [5, 5], [6, 6], [7, 7], [8, 8], [12, 12], [16, 16], [20, 20], [32, 32],
  [6, 2], [2, 6], [12, 5], [5, 12], [20, 9], [9, 20], [32, 7], [7, 32],
];
/** Powers of two: the extremes (scaled by the driver), the band just inside 2^-500 and 2^500 (not). */
const EXPONENTS: Record<ComplexDType, readonly number[]> = {
  complex128: [-1000, -700, -499, -496, -492, -488, -484, -480, -450, -300, 0, 300, 480, 499, 700, 1000],
  complex64: [-120, -90, -60, -30, 0, 30, 60, 90, 120],
};
/**
 * Scales of the matrix with a column of 1e-300: 2^-1000 ... 2^-300, that column 0 on input (an exactly
 * zero singular value: the reference's); 0 ... 2^300 and 2^1000 (brought to 1 by the driver), its
 * squared norm 0; 2^450 ... 2^499, subnormal: the third test.
 */
const TINY_COLUMN_EXPONENTS = [-1000, -499, -300, 0, 300, 1000];

interface Member { a: Z; /** the power of two that brings A near 1 (the checks' norms would under- or overflow) */ back: number }

/** Runs both backends on the members (one batch) and checks each. */
function check(m: number, n: number, dtype: ComplexDType, members: readonly Member[], label: string): void {
  const k = Math.min(m, n), big = Math.max(m, n), eps = epsOf(dtype);
  const run = (gesvd: (r: GesvdRequest<FloatArray, Int32Array>) => void) => {
    const A = place(members.map((x) => x.a), m, n, dtype);
    const S = realColumns(members.length, k, dtype, NaN);
    const U = place(members.map(() => ({ rows: m, cols: k, d: new Float64Array(2 * m * k).fill(NaN) })), m, k, dtype);
    const VT = place(members.map(() => ({ rows: k, cols: n, d: new Float64Array(2 * k * n).fill(NaN) })), k, n, dtype);
    const request = { a: A.batch, s: S.batch, u: U.batch, vt: VT.batch, info: new Int32Array(members.length).fill(-5) };
    gesvd(request);
    return { info: request.info, a: A.read, s: S.read, u: U.read, vt: VT.read };
  };
  const got = run((r) => fastGesvdComplex(r, OPTIONS));
  const want = run((r) => complexReference.gesvd(r));
  members.forEach(({ back }, p) => {
    const at = `${label} ${dtype} ${m}x${n} #${p} (2^${-Math.log2(back)})`;
    assert.equal(got.info[p], 0, `${at}: info`);
    assert.equal(want.info[p], 0, `${at}: the reference's info`);
    const s = got.s(p), ref = want.s(p);
    for (let j = 0; j < k; j++) {
      assert.ok(s[j]! >= 0 && (j === 0 || s[j - 1]! >= s[j]!), `${at}: s descending, non-negative: ${s}`);
      assert.ok(Math.abs(s[j]! - ref[j]!) <= 8 * big * eps * ref[0]!, `${at}: s[${j}] ${s[j]} vs ${ref[j]}`);
    }
    const u = got.u(p), vt = got.vt(p), a0 = got.a(p);
    const a = { ...a0, d: a0.d.map((x) => x * back) };
    const r = ratio(norm(subtract(multiply(scaleColumns(u, s.map((x) => x * back)), vt), a)), big, norm(a), eps);
    const ou = ratio(norm(subtract(multiply(op(u, 'C'), u), identity(k))), big, 1, eps);
    const ov = ratio(norm(subtract(multiply(vt, op(vt, 'C')), identity(k))), big, 1, eps);
    assert.ok(r < 30, `${at}: ||A - U S VT|| ratio ${r}`);
    assert.ok(ou < 30 && ov < 30, `${at}: orthonormality ratios ${ou}, ${ov}`);
  });
}

const scaled = (a: Z, e: number): Member => ({ a: { ...a, d: a.d.map((x) => x * 2 ** e) }, back: 2 ** -e });

test('random complex128 and complex64 matrices scaled by 2^k across the range, square, tall and wide', () => {
  let seed = 4100;
  for (const dtype of ['complex128', 'complex64'] as const) {
    for (const [m, n] of SHAPES) {
      const rng = new Rng(seed++);
      // two of each scale, interleaved: neighbours in a quad differ in scale
      const members = [0, 1].flatMap(() => EXPONENTS[dtype].map((e) => scaled(random(rng, m, n), e)));
      check(m, n, dtype, members, 'scaled');
    }
  }
});

test('a column of 1e-300 beside ordinary ones, the matrix scaled by 2^k', () => {
  let seed = 4300;
  for (const [m, n] of [[2, 2], [3, 3], [4, 4], [8, 8], [16, 16], [12, 5], [5, 12]] as const) {
    const rng = new Rng(seed++);
    const members = TINY_COLUMN_EXPONENTS.map((e) => {
      const a = scaleColumns(random(rng, m, n), Array.from({ length: n }, (_, j) => (j === n - 1 ? 1e-300 : 1)));
      return scaled(a, e);
    });
    check(m, n, 'complex128', members, 'tiny column');
  }
});

test('a column of 1e-300 in a matrix near 2^480: the sweeps reach their limit, the reference ends them', () => {
  // That column reaches the kernel near 2^-517, its squared norm subnormal: beside it the relative
  // test stays above the rounding noise and the sweeps run to their limit (at these orders), where
  // the reference's ending (info 0 where G is orthogonal at the absolute level, U made
  // orthonormal) is its own. (At orders 2 and 3 some such matrices converge; their U then carries
  // the subnormal sum of squares' error: the reference's alike where it converges.)
  let seed = 4400;
  for (const [m, n] of [[4, 4], [8, 8], [16, 16], [12, 5], [5, 12]] as const) {
    const rng = new Rng(seed++);
    const members = [450, 480, 499].map((e) => {
      const a = scaleColumns(random(rng, m, n), Array.from({ length: n }, (_, j) => (j === n - 1 ? 1e-300 : 1)));
      return scaled(a, e);
    });
    check(m, n, 'complex128', members, 'tiny column, sweep limit');
  }
});

test('three small matrices that failed: 2 x 2 at 1e-148, 3 x 3 at 1e-150, 4 x 4 with a column of 1e-300', () => {
  // row-major (re, im) pairs, as ndarray takes them
  const z = (rows: number, cols: number, d: readonly number[], f: (x: number, i: number) => number): Z => {
    const out = { rows, cols, d: new Float64Array(2 * rows * cols) };
    for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) for (const part of [0, 1]) {
      const at = 2 * (i * cols + j) + part;
      out.d[2 * (i + j * rows) + part] = f(d[at]!, at);
    }
    return out;
  };
  const a = z(2, 2, [1, 2, 3, 4, 5, 6, 7, 8], (x) => x * 1e-148);
  const b = z(3, 3, [0, -7, 7, -5, 3, 9, -7, -4, -6, -9, 0, 1, -3, 3, 7, 2, -1, 7], (x) => x * 1e-150);
  const c = z(4, 4, [0, 3, -2, 1, -2, 4, 3, 2, -2, 1, 2, 1, 3, 4, 0, 3, 2, 2, 2, -1, 4, -3, -3, -3, -1, 0, -1, 3, -1, 3, 2, -3],
    (x, i) => ((i >> 1) % 4 === 3 ? x * 1e-300 : x));
  check(2, 2, 'complex128', [{ a, back: 2 ** 490 }], 'small');
  check(3, 3, 'complex128', [{ a: b, back: 2 ** 496 }], 'small');
  check(4, 4, 'complex128', [{ a: c, back: 1 }], 'small');
});
