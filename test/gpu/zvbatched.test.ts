/**
 * Complex variable batches on the GPU (kernels/common/shape-groups.ts: the members grouped by
 * shape and ld, each group run as a list batch on the operation's own complex route) against the
 * complex reference (the reference context, the same variable batches), on fresh random data.
 * Every operation with complex GPU routes (gemm, trsm, trmm, herk, syrk, potrf, potrs, posv, getrf,
 * getrs, gesv, trtri, lauum, potri, poti, getri, heev, gesvd), complex128 and complex64, one batch
 * per case: orders 0 ... 40 and 47, 64, 100 (trmm and syrk: 0 ... 70; gesvd: 0 ... 32, its kernel's
 * range) with a few orders repeated, in shuffled order, each member at its own leading dimension
 * (ld = rows + 0, 1, 2 or 5: members of one order fall into several groups) with gaps between
 * members, every float outside the members a sentinel; device data and host data (staged) in turn.
 * trmm runs three calls per type (every side, uplo and op over the file, every op in each type),
 * syrk two (both triangles and both trans in each type, complex alpha and beta, beta 0 over NaN).
 * Members fail in several orders: every fifth not positive definite at a planted step (potrf, posv,
 * poti) or singular: a zero column (getrf, gesv; getri: getrf's factors of it, an exactly zero
 * U(k, k)), an exactly zero diagonal element (trtri non-unit, potri), every seventh NaN in its
 * referenced part (the operations above but the inverses other than poti; the LU family, trsm and
 * trmm at orders <= 32). The inverses' other members are well conditioned (triangles with their
 * off-diagonal scaled by 1 / n, getri's members diagonally dominant); lauum's and potri's diagonal
 * imaginary parts are NaN and 0 (lauum reads only the real parts) and their results' exactly 0.
 * Outputs are poisoned: info 99, pivots -9 (also the slots past a member's min(m, n)), gemm's,
 * herk's and syrk's C NaN where beta = 0, heev's W and gesvd's S, U and VT NaN.
 * Checked:
 * - ctx.lastRoute: the operation's GPU route (its name; heev 'tridiag': members to 32 on the Jacobi
 *   warp design, above on the tridiagonal design, by shape group; gesvd 'jacobi'), and 'tridiag' for
 *   a heev batch of orders 5, 40, 0, 12 and 33 with both jobs;
 * - info exactly the reference's, in each member's place; pivots exactly the reference's
 *   (complex64: a few members may pivot differently, the reference computing in float64: there the
 *   LU residual instead), and the pivot slots the reference leaves -9 left -9;
 * - every float outside the members bit for bit as given; every element the reference leaves
 *   unchanged (the other triangle, a unit diagonal, a failed posv's or gesv's B, potrs's and getrs's
 *   factors, a failed trtri's, potri's or getri's member, getri's pivots) unchanged bit for bit; NaN exactly where the reference has NaN (in a failed Cholesky member
 *   also where the other part of the pair is NaN there: the complex products spread a NaN over the
 *   pair), so a failing member spreads nothing to another;
 * - the rest within 64 d u of the member's largest magnitude (d its largest dimension, u the unit
 *   roundoff); a failed Cholesky member (potrf, posv, poti) only in the columns before its failure (the
 *   recursion above 32 leaves the rest unspecified, as the strided route does);
 * - heev: eigenvalues ascending within n eps ||A||_F of the reference's, ||A V - V W|| and
 *   ||V^H V - I|| ratios below 30; gesvd: singular values within max(m, n) eps ||A||_F of the
 *   reference's, ||A - U S VT|| and the unitarity ratios below 30.
 * The file's kernels are compiled at once before the first case. Skips with one line where no GPU
 * is usable.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { newReferenceContext, type Context } from '../../src/api/context.js';
import { variable, type Batch } from '../../src/core/batch.js';
import { DTYPE_EPS, type ComplexDType } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import type { DeviceStorage, Storage } from '../../src/core/storage.js';
import type { DeviceArray } from '../../src/cuda/runtime/types.js';
import { epsOf, get, op as applyOp, random, randomHpd, set, zeros, type Z } from '../helpers/complex.js';
import { gpuContext, gpuSkipReason, warmFileKernels } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';
import { generalCase, GENERAL_KINDS, HERMITIAN_KINDS, hermitianCase, heevResidual, svdResidual, unitaryResidual } from '../helpers/zjacobi-cases.js';
import { hasNaN, luResidual, solveResidual } from '../helpers/zlu-data.js';

const skip = gpuSkipReason();
const TYPES: readonly ComplexDType[] = ['complex128', 'complex64'];
const THRESHOLD = 30;
const SENTINEL = -777.25;
const INFO_POISON = 99;
const PIVOT_POISON = -9;

/** Orders 0 ... 40, beyond the kernels' 32 (47, 64, 100: the recursions and blocked steps), a few repeated. */
const ORDERS = [...Array.from({ length: 41 }, (_, n) => n), 47, 64, 100, 0, 3, 3, 17, 32, 33, 47];
/** gesvd's: its kernels take orders to 32. */
const SMALL_ORDERS = [...Array.from({ length: 33 }, (_, n) => n), 0, 3, 3, 17, 32, 32];
/** ld = rows + PADS[p % 4]; GAPS[p % 3] elements before member p. */
const PADS = [0, 1, 2, 5];
const GAPS = [3, 0, 1];

/** trmm's and syrk's: 0 ... 70 (the warp designs to 32, one and two levels of the recursion above), a few repeated. */
const WIDE_ORDERS = [...Array.from({ length: 71 }, (_, n) => n), 0, 3, 3, 17, 32, 33, 64];

type OpName = 'gemm' | 'trsm' | 'trmm' | 'herk' | 'syrk' | 'potrf' | 'potrs' | 'posv' | 'getrf' | 'getrs' | 'gesv' | 'trtri' | 'lauum' | 'potri' | 'poti' | 'getri' | 'heev' | 'gesvd';
const OPS: readonly OpName[] = ['gemm', 'trsm', 'trmm', 'herk', 'syrk', 'potrf', 'potrs', 'posv', 'getrf', 'getrs', 'gesv', 'trtri', 'lauum', 'potri', 'poti', 'getri', 'heev', 'gesvd'];
const ROUTE: Record<OpName, string> = {
  gemm: 'gemm', trsm: 'trsm', trmm: 'trmm', herk: 'herk', syrk: 'syrk', potrf: 'potrf', potrs: 'potrs', posv: 'posv', getrf: 'getrf', getrs: 'getrs', gesv: 'gesv',
  trtri: 'trtri', lauum: 'lauum', potri: 'potri', poti: 'poti', getri: 'getri', heev: 'tridiag', gesvd: 'jacobi',
};
/** The operations without info. */
const NO_INFO: readonly OpName[] = ['gemm', 'trsm', 'trmm', 'herk', 'syrk'];

/** trmm's calls per dtype (side, uplo, transA, diag): each side, uplo and op over the file, every op in each dtype. */
const TRMM_FORMS = {
  complex128: [['left', 'lower', 'N', 'nonunit'], ['right', 'upper', 'T', 'unit'], ['left', 'upper', 'C', 'nonunit']],
  complex64: [['right', 'lower', 'N', 'unit'], ['left', 'lower', 'T', 'nonunit'], ['right', 'upper', 'C', 'nonunit']],
} as const;
/** syrk's calls per dtype (uplo, trans, beta; beta 0: C NaN): every uplo and trans in each dtype. */
const SYRK_FORMS: Record<ComplexDType, readonly (readonly [Uplo, 'N' | 'T', [number, number]])[]> = {
  complex128: [['lower', 'N', [0, 0]], ['upper', 'T', [0.5, -1]]],
  complex64: [['upper', 'N', [0.25, 0.5]], ['lower', 'T', [0, 0]]],
};
/** How many calls (forms) an operation's cases make per dtype. */
const formsOf = (op: OpName, dtype: ComplexDType): number => (op === 'trmm' ? TRMM_FORMS[dtype].length : op === 'syrk' ? SYRK_FORMS[dtype].length : 1);

/** A deterministic shuffle (the list order is not sorted). */
function shuffled<T>(xs: readonly T[], rng: Rng): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Member p fails as planted (not positive definite, singular) / holds NaN. */
const plantsFailure = (p: number): boolean => p % 5 === 1;
const plantsNaN = (p: number): boolean => p % 7 === 3;
/** The Cholesky family's triangle and the solves' trans, per dtype (both triangles and several trans over the file). */
const uploOf = (dtype: ComplexDType): Uplo => (dtype === 'complex128' ? 'lower' : 'upper');
const inTriangle = (uplo: Uplo, i: number, j: number): boolean => (uplo === 'lower' ? i >= j : i <= j);

/** One operand of a case: its members' values (complex, or real vectors in the real parts) and whether the call writes it. */
interface Operand { readonly ms: readonly Z[]; readonly real?: boolean }

/** A case: the operands by argument name, the call's other arguments, the pivots it reads (getrs). */
interface Case {
  readonly op: OpName;
  readonly dtype: ComplexDType;
  readonly where: 'device' | 'host';
  readonly orders: readonly number[];
  readonly operands: Readonly<Record<string, Operand>>;
  readonly args: Readonly<Record<string, unknown>>;
  readonly ipivIn?: Int32Array;
  /** The inputs of the LAPACK-level checks (A as given: Hermitian for heev, general for gesvd, the LU's A). */
  readonly originals?: readonly Z[];
}

const round = (dtype: ComplexDType) => (z: Z): Z => (dtype === 'complex64' ? { rows: z.rows, cols: z.cols, d: z.d.map((x) => Math.fround(x)) } : z);
const column = (values: readonly number[]): Z => {
  const z = zeros(values.length, 1);
  values.forEach((v, i) => set(z, i, 0, v, 0));
  return z;
};
const filled = (rows: number, cols: number, v: number): Z => ({ rows, cols, d: new Float64Array(2 * rows * cols).fill(v) });

/** Right-hand sides of a member of order n: 1 ... 3, a few 7 (one count per order: one solve kernel per order and dtype). */
const rhsOf = (n: number): number => [1, 2, 3, 1, 7][n % 5]!;

/** An HPD member with the triangle not referenced NaN and NaN in the diagonal's imaginary parts (neither may be read); failures planted. */
function hpdMember(rng: Rng, n: number, p: number, uplo: Uplo): Z {
  const a = randomHpd(rng, n);
  for (let i = 0; i < n; i++) set(a, i, i, get(a, i, i)[0], Number.NaN);
  if (n > 0 && plantsFailure(p)) { const k = rng.int(0, n - 1); set(a, k, k, -1, 0); }
  if (n > 0 && plantsNaN(p)) { const i = rng.int(0, n - 1), j = rng.int(0, i); const [r, s] = uplo === 'lower' ? [i, j] : [j, i]; set(a, r, s, Number.NaN, get(a, r, s)[1]); }
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) if (!inTriangle(uplo, i, j)) set(a, i, j, Number.NaN, Number.NaN);
  return a;
}

/** A triangle of order n (the other triangle NaN, a unit diagonal NaN), its off-diagonal scaled by 1 / n (well conditioned). */
function triangleMember(rng: Rng, n: number, uplo: Uplo, diag: 'unit' | 'nonunit', diagonalIm: 'random' | 'nan' | 'zero' = 'random'): Z {
  const t = random(rng, n, n);
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
    if (!inTriangle(uplo, i, j)) set(t, i, j, Number.NaN, Number.NaN);
    else if (i === j) set(t, i, i, diag === 'unit' ? Number.NaN : 2 + Math.abs(get(t, i, i)[0]), diag === 'unit' || diagonalIm === 'nan' ? Number.NaN : diagonalIm === 'zero' ? 0 : get(t, i, i)[1]);
    else { const [re, im] = get(t, i, j); set(t, i, j, re / n, im / n); }
  }
  return t;
}

/** A general member for the LU family: every fifth singular (a zero column), every seventh (orders <= 32) with a NaN. */
function luMember(rng: Rng, rows: number, cols: number, p: number): Z {
  const a = random(rng, rows, cols);
  const k = Math.min(rows, cols);
  if (k > 0 && plantsFailure(p)) { const c = rng.int(0, k - 1); for (let i = 0; i < rows; i++) set(a, i, c, 0, 0); }
  else if (k > 0 && k <= 32 && plantsNaN(p)) a.d[2 * rng.int(0, rows * cols - 1) + (p % 2)] = Number.NaN;
  return a;
}

/** The reference's getrf of `ms` as one variable batch (for getrs's inputs): the factors and pivots. */
function referenceLu(ms: readonly Z[], dtype: ComplexDType): { lu: Z[]; ipiv: Int32Array } {
  const placed = vplace(ms, dtype);
  const ref = newReferenceContext();
  const { ipiv } = ref.getrf({ a: placed.batch });
  ref.dispose();
  return { lu: ms.map((_, p) => placed.read(p)), ipiv: Int32Array.from(ipiv as Int32Array) };
}

/** The operations whose GPU route takes a complex variable batch's members to order 32 only. */
const smallOnly = (op: OpName): boolean => op === 'gesvd';

/** The orders of an operation's batch. */
const ordersOf = (op: OpName): readonly number[] => (smallOnly(op) ? SMALL_ORDERS : op === 'trmm' || op === 'syrk' ? WIDE_ORDERS : ORDERS);

function caseOf(op: OpName, dtype: ComplexDType, where: 'device' | 'host', form = 0, given?: readonly number[]): Case {
  const rng = new Rng(OPS.indexOf(op) * 31 + (dtype === 'complex64' ? 7 : 0) + form * 1009 + 1);
  const orders = shuffled(given ?? ordersOf(op), rng);
  const r = round(dtype);
  const uplo = uploOf(dtype);
  const base = { op, dtype, where, orders };
  switch (op) {
    case 'gemm': {
      // C (n x rhs) := alpha op(A) op(B) + beta C, k = (n + p) % 9 (0 included).
      const [transA, transB] = dtype === 'complex128' ? ['N', 'C'] as const : ['C', 'T'] as const;
      const beta: [number, number] = dtype === 'complex128' ? [0, 0] : [0.5, -1];
      const a: Z[] = [], b: Z[] = [], c: Z[] = [];
      orders.forEach((n, p) => {
        const k = (n + p) % 9, rhs = rhsOf(n);
        const am = random(rng, n, k), bm = random(rng, k, rhs);
        if (plantsNaN(p) && n * k > 0) am.d[0] = Number.NaN;
        a.push(r(transA === 'N' ? am : applyOp(am, 'T')));
        b.push(r(applyOp(bm, 'T')));
        c.push(beta[0] === 0 ? filled(n, rhs, Number.NaN) : r(random(rng, n, rhs)));
      });
      return { ...base, operands: { a: { ms: a }, b: { ms: b }, c: { ms: c } }, args: { transA, transB, alpha: [0.75, -0.5], beta } };
    }
    case 'trsm': {
      // complex128: left, lower, 'N', non-unit; complex64: right, upper, 'C', unit (its diagonal NaN: never read).
      const [side, tuplo, transA, diag] = dtype === 'complex128' ? ['left', 'lower', 'N', 'nonunit'] as const : ['right', 'upper', 'C', 'unit'] as const;
      const a: Z[] = [], b: Z[] = [];
      orders.forEach((n, p) => {
        const t = random(rng, n, n);
        for (let i = 0; i < n; i++) set(t, i, i, diag === 'unit' ? Number.NaN : 2 + get(t, i, i)[0], diag === 'unit' ? Number.NaN : get(t, i, i)[1]);
        for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) if (!inTriangle(tuplo, i, j)) set(t, i, j, Number.NaN, Number.NaN);
        if (n > 1 && n <= 32 && plantsNaN(p)) set(t, tuplo === 'lower' ? n - 1 : 0, tuplo === 'lower' ? 0 : n - 1, Number.NaN, 0);
        // The off-diagonal scaled by 1 / n: a random triangle of order 100 is otherwise badly conditioned.
        for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) if (i !== j && inTriangle(tuplo, i, j)) { const [re, im] = get(t, i, j); set(t, i, j, re / n, im / n); }
        a.push(r(t));
        b.push(r(side === 'left' ? random(rng, n, rhsOf(n)) : random(rng, rhsOf(n), n)));
      });
      return { ...base, operands: { a: { ms: a }, b: { ms: b } }, args: { side, uplo: tuplo, transA, diag, alpha: [0.5, 1] } };
    }
    case 'trmm': {
      // B := alpha op(T) B (left) or alpha B op(T) (right), in place; T from TRMM_FORMS; NaN planted in T at orders <= 32.
      const [side, tuplo, transA, diag] = TRMM_FORMS[dtype][form]!;
      const a: Z[] = [], b: Z[] = [];
      orders.forEach((n, p) => {
        const t = triangleMember(rng, n, tuplo, diag);
        if (n > 1 && n <= 32 && plantsNaN(p)) set(t, tuplo === 'lower' ? n - 1 : 0, tuplo === 'lower' ? 0 : n - 1, Number.NaN, 0);
        a.push(r(t));
        b.push(r(side === 'left' ? random(rng, n, rhsOf(n)) : random(rng, rhsOf(n), n)));
      });
      return { ...base, operands: { a: { ms: a }, b: { ms: b } }, args: { side, uplo: tuplo, transA, diag, alpha: [0.5, -1] } };
    }
    case 'syrk': {
      // C (n x n) := alpha A A^T + beta C ('N', A n x k) or alpha A^T A + beta C ('T', A k x n), complex alpha and beta; only `uplo` of C written.
      const [suplo, trans, beta] = SYRK_FORMS[dtype][form]!;
      const a: Z[] = [], c: Z[] = [];
      orders.forEach((n, p) => {
        const k = (n * 5 + p) % 9;
        const am = random(rng, n, k);
        if (plantsNaN(p) && n * k > 0) am.d[1] = Number.NaN;
        a.push(r(trans === 'N' ? am : applyOp(am, 'T')));
        c.push(beta[0] === 0 && beta[1] === 0 ? filled(n, n, Number.NaN) : r(random(rng, n, n)));
      });
      return { ...base, operands: { a: { ms: a }, c: { ms: c } }, args: { uplo: suplo, trans, alpha: [0.75, 0.25], beta } };
    }
    case 'trtri': case 'potri': {
      // trtri: complex128 lower non-unit, complex64 upper unit; potri: a factor with a real diagonal. Every fifth non-unit member
      // with an exactly zero diagonal element (info = k, the member then left as given).
      const diag = op === 'trtri' && dtype === 'complex64' ? 'unit' : 'nonunit';
      const a = orders.map((n, p) => {
        const t = triangleMember(rng, n, uplo, diag, op === 'potri' ? 'zero' : 'random');
        if (n > 0 && diag === 'nonunit' && plantsFailure(p)) { const k = rng.int(0, n - 1); set(t, k, k, 0, 0); }
        return r(t);
      });
      return { ...base, operands: { a: { ms: a } }, args: op === 'trtri' ? { uplo, diag } : { uplo } };
    }
    case 'lauum': {
      // The diagonal's imaginary parts NaN (zlauu2 reads only the real parts); info 0.
      const a = orders.map((n) => r(triangleMember(rng, n, uplo, 'nonunit', 'nan')));
      return { ...base, operands: { a: { ms: a } }, args: { uplo } };
    }
    case 'poti': {
      const a = orders.map((n, p) => r(hpdMember(rng, n, p, uplo)));
      return { ...base, operands: { a: { ms: a } }, args: { uplo } };
    }
    case 'getri': {
      // getrf's factors (the reference's) of diagonally dominant members (B + 2n I); every fifth singular (a zero column: an
      // exactly zero U(k, k), info = k, the member then left as given).
      const orig = orders.map((n, p) => {
        const m = random(rng, n, n);
        for (let i = 0; i < n; i++) set(m, i, i, get(m, i, i)[0] + 2 * n, get(m, i, i)[1]);
        if (n > 0 && plantsFailure(p)) { const c = rng.int(0, n - 1); for (let i = 0; i < n; i++) set(m, i, c, 0, 0); }
        return r(m);
      });
      const { lu, ipiv } = referenceLu(orig, dtype);
      return { ...base, operands: { a: { ms: lu } }, args: {}, ipivIn: ipiv, originals: orig };
    }
    case 'herk': {
      // C (n x n) := alpha A A^H + beta C ('N', A n x k) or alpha A^H A + beta C ('C', A k x n); only `uplo` of C written.
      const trans = dtype === 'complex128' ? 'N' : 'C';
      const beta = dtype === 'complex128' ? 0 : 0.5;
      const a: Z[] = [], c: Z[] = [];
      orders.forEach((n, p) => {
        const k = (n * 3 + p) % 7;
        const am = random(rng, n, k);
        if (plantsNaN(p) && n * k > 0) am.d[1] = Number.NaN;
        a.push(r(trans === 'N' ? am : applyOp(am, 'C')));
        const cm = beta === 0 ? filled(n, n, Number.NaN) : random(rng, n, n);
        c.push(r(cm));
      });
      return { ...base, operands: { a: { ms: a }, c: { ms: c } }, args: { uplo, trans, alpha: 0.75, beta } };
    }
    case 'potrf':
    case 'posv': {
      const a = orders.map((n, p) => r(hpdMember(rng, n, p, uplo)));
      const operands: Record<string, Operand> = { a: { ms: a } };
      if (op === 'posv') operands['b'] = { ms: orders.map((n) => r(random(rng, n, rhsOf(n)))) };
      return { ...base, operands, args: { uplo } };
    }
    case 'potrs': {
      // A: the reference's factor of an HPD matrix (the other triangle NaN, never read).
      const h = orders.map((n) => r(randomHpd(rng, n)));
      const placed = vplace(h, dtype);
      const ref = newReferenceContext();
      ref.potrf({ uplo, a: placed.batch });
      ref.dispose();
      const a = orders.map((n, p) => {
        const f = placed.read(p);
        for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) if (!inTriangle(uplo, i, j)) set(f, i, j, Number.NaN, Number.NaN);
        return f;
      });
      return { ...base, operands: { a: { ms: a }, b: { ms: orders.map((n) => r(random(rng, n, rhsOf(n)))) } }, args: { uplo } };
    }
    case 'getrf': {
      // Rectangular members too: every sixth n x (n - 2), every sixth (shifted) (n - 3) x n.
      const a = orders.map((n, p) => r(luMember(rng, p % 6 === 2 ? Math.max(0, n - 3) : n, p % 6 === 5 ? Math.max(0, n - 2) : n, p)));
      return { ...base, operands: { a: { ms: a } }, args: {}, originals: a };
    }
    case 'getrs': {
      const trans = dtype === 'complex128' ? 'N' : 'C';
      const orig = orders.map((n) => r(random(rng, n, n)));
      const { lu, ipiv } = referenceLu(orig, dtype);
      return { ...base, operands: { a: { ms: lu }, b: { ms: orders.map((n) => r(random(rng, n, rhsOf(n)))) } }, args: { trans }, ipivIn: ipiv, originals: orig };
    }
    case 'gesv': {
      const a = orders.map((n, p) => r(luMember(rng, n, n, p)));
      return { ...base, operands: { a: { ms: a }, b: { ms: orders.map((n) => r(random(rng, n, rhsOf(n)))) } }, args: {}, originals: a };
    }
    case 'heev': {
      const jobz = dtype === 'complex128' ? 'vectors' : 'values';
      const orig: Z[] = [];
      const a = orders.map((n, p) => {
        const h = r(n === 0 ? zeros(0, 0) : hermitianCase(rng, HERMITIAN_KINDS[p % HERMITIAN_KINDS.length]!, n));
        orig.push(h);
        const m: Z = { rows: n, cols: n, d: Float64Array.from(h.d) };
        for (let i = 0; i < n; i++) set(m, i, i, get(h, i, i)[0], Number.NaN);
        if (n > 0 && plantsNaN(p)) set(m, n - 1, uplo === 'lower' ? 0 : n - 1, Number.NaN, 0);
        for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) if (!inTriangle(uplo, i, j)) set(m, i, j, Number.NaN, Number.NaN);
        return m;
      });
      const w = orders.map((n) => column(Array.from({ length: n }, () => Number.NaN)));
      return { ...base, operands: { a: { ms: a }, w: { ms: w, real: true } }, args: { jobz, uplo }, originals: orig };
    }
    case 'gesvd': {
      // m x n members: n the order, m = order, order - 3 or order + 2 (at most 32).
      const job = dtype === 'complex128' ? 'thin' : 'none';
      const shapes = orders.map((n, p) => [p % 3 === 1 ? Math.max(0, n - 3) : p % 3 === 2 ? Math.min(32, n + 2) : n, n] as const);
      const a = shapes.map(([m, n], p) => {
        const g = r(m * n === 0 ? zeros(m, n) : generalCase(rng, GENERAL_KINDS[p % GENERAL_KINDS.length]!, m, n));
        if (m * n > 0 && plantsNaN(p)) g.d[2 * (m * n - 1)] = Number.NaN;
        return g;
      });
      const operands: Record<string, Operand> = { a: { ms: a }, s: { ms: shapes.map(([m, n]) => column(Array.from({ length: Math.min(m, n) }, () => Number.NaN))), real: true } };
      if (job === 'thin') {
        operands['u'] = { ms: shapes.map(([m, n]) => filled(m, Math.min(m, n), Number.NaN)) };
        operands['vt'] = { ms: shapes.map(([m, n]) => filled(Math.min(m, n), n, Number.NaN)) };
      }
      return { ...base, operands, args: { jobu: job, jobvt: job }, originals: a };
    }
  }
}

/** A variable batch in one array: member p at ld = rows + PADS[p % 4], GAPS[p % 3] elements after the previous one; the rest SENTINEL. */
interface VPlaced {
  readonly data: Float64Array | Float32Array;
  readonly members: readonly { rows: number; cols: number; ld: number; offset: number }[];
  readonly batch: Batch<Float64Array | Float32Array>;
  read(p: number): Z;
  outside(): number[];
}

function vplace(ms: readonly Z[], dtype: ComplexDType, real = false): VPlaced {
  const parts = real ? 1 : 2;
  let next = 0;
  const members = ms.map((m, p) => {
    const ld = Math.max(1, m.rows + PADS[p % 4]!);
    const offset = next + GAPS[p % 3]!;
    next = offset + ld * m.cols;
    return { rows: m.rows, cols: m.cols, ld, offset };
  });
  const data = (dtype === 'complex64' ? new Float32Array(parts * (next + 2)) : new Float64Array(parts * (next + 2))).fill(SENTINEL);
  const inside = new Uint8Array(data.length);
  const at = (p: number, i: number, j: number): number => parts * (members[p]!.offset + i + j * members[p]!.ld);
  ms.forEach((m, p) => {
    for (let j = 0; j < m.cols; j++) for (let i = 0; i < m.rows; i++) {
      const e = at(p, i, j), [re, im] = get(m, i, j);
      data[e] = re;
      inside[e] = 1;
      if (!real) { data[e + 1] = im; inside[e + 1] = 1; }
    }
  });
  const views = members.map((m) => ({ data, ...m }));
  return {
    data, members,
    batch: real ? variable(views) : variable(views, { dtype }),
    read: (p) => {
      const m = members[p]!, out = zeros(m.rows, m.cols);
      for (let j = 0; j < m.cols; j++) for (let i = 0; i < m.rows; i++) set(out, i, j, data[at(p, i, j)]!, real ? 0 : data[at(p, i, j) + 1]!);
      return out;
    },
    outside: () => [...data].filter((_, e) => inside[e] === 0),
  };
}

/** The case's call on `ctx` over `batches`, with info (and ipiv) given; returns nothing (outputs in place). */
function call(ctx: Context, c: Case, batches: Record<string, Batch<Storage>>, info: Storage | Int32Array, ipiv: Storage | Int32Array | undefined): void {
  const fn = (ctx as unknown as Record<string, (args: object) => unknown>)[c.op]!.bind(ctx);
  fn({ ...c.args, ...batches, ...(NO_INFO.includes(c.op) ? {} : { info }), ...(ipiv === undefined ? {} : { ipiv }) });
}

const pivotStrideOf = (c: Case): number => Math.max(0, ...c.operands['a']!.ms.map((m) => Math.min(m.rows, m.cols)));
const hasPivots = (c: Case): boolean => c.op === 'getrf' || c.op === 'getrs' || c.op === 'gesv' || c.op === 'getri';

interface Run { placed: Record<string, VPlaced>; info: number[]; ipiv: number[] }

/** Runs the case on `ctx` (GPU: on device copies or the host arrays as the case says) or on the reference (host arrays). */
function run(ctx: Context, c: Case, where: 'device' | 'host'): Run {
  const count = c.orders.length;
  const placed = Object.fromEntries(Object.entries(c.operands).map(([name, o]) => [name, vplace(o.ms, c.dtype, o.real)]));
  const infoHost = new Int32Array(count).fill(INFO_POISON);
  const ipivHost = hasPivots(c) ? (c.ipivIn ? Int32Array.from(c.ipivIn) : new Int32Array(count * pivotStrideOf(c)).fill(PIVOT_POISON)) : undefined;
  if (where === 'host') {
    call(ctx, c, Object.fromEntries(Object.entries(placed).map(([k, v]) => [k, v.batch])), infoHost, ipivHost);
    return { placed, info: [...infoHost], ipiv: ipivHost ? [...ipivHost] : [] };
  }
  const uploads: DeviceStorage[] = [];
  const up = <T extends Float64Array | Float32Array | Int32Array>(h: T): DeviceStorage => { const d = ctx.upload(h); uploads.push(d); return d; };
  try {
    const batches = Object.fromEntries(Object.entries(placed).map(([k, v]) => {
      const d = up(v.data);
      const views = v.members.map((m) => ({ data: d, ...m }));
      return [k, c.operands[k]!.real ? variable(views) : variable(views, { dtype: c.dtype })];
    }));
    const info = up(infoHost), ipiv = ipivHost ? up(ipivHost) : undefined;
    call(ctx, c, batches as Record<string, Batch<Storage>>, info, ipiv);
    Object.values(placed).forEach((v, q) => v.data.set(ctx.download(uploads[q]!) as Float64Array | Float32Array));
    return { placed, info: [...(ctx.download(info) as Int32Array)], ipiv: ipiv ? [...(ctx.download(ipiv) as Int32Array)] : [] };
  } finally {
    for (const d of uploads) (d as { dispose?: () => void }).dispose?.();
  }
}

/** The case on the reference context (host arrays). */
function reference(c: Case): Run {
  const ref = newReferenceContext();
  try {
    return run(ref, c, 'host');
  } finally {
    ref.dispose();
  }
}

/**
 * Member outputs against the reference's: unchanged where the reference left the input, NaN where
 * it has NaN, else within 64 d u of the largest magnitude; `checked(i, j)` limits the elements.
 * `pairNaN`: a part may also be NaN where the other part of its pair is NaN in the reference's (a
 * failed Cholesky factor: the GPU's complex products spread a NaN over both parts of a pair, the
 * reference's real scaling of a column does not, as test/gpu/zpotrf.test.ts says of strided batches).
 */
function compare(dtype: ComplexDType, got: Z, want: Z, input: Z, what: string, checked: (i: number, j: number) => boolean = () => true, pairNaN = false): void {
  let scale = 1;
  for (const x of want.d) if (Number.isFinite(x)) scale = Math.max(scale, Math.abs(x));
  const bound = 64 * Math.max(1, got.rows, got.cols, input.rows, input.cols) * epsOf(dtype) * scale;
  for (let e = 0; e < got.d.length; e++) {
    const i = Math.floor(e / 2) % got.rows, j = Math.floor(e / 2 / got.rows);
    if (!checked(i, j)) continue;
    const [g, w, x] = [got.d[e]!, want.d[e]!, input.d[e]!];
    const at = `${what} (${i}, ${j}) part ${e % 2}`;
    if (Object.is(w, x)) { assert.ok(Object.is(g, x), `${at} changed: ${g}, was ${x}`); continue; }
    if (Number.isNaN(w)) { assert.ok(Number.isNaN(g), `${at}: ${g}, want NaN`); continue; }
    if (pairNaN && Number.isNaN(g) && Number.isNaN(want.d[e ^ 1]!)) continue;
    assert.ok(Math.abs(g - w) <= bound, `${at}: ${g}, want ${w} (bound ${bound})`);
  }
}

/** Members of a complex64 LU case whose pivots may differ from the reference's (float64 there): at most this many. */
const PIVOTS_MAY_DIFFER = 3;

function check(c: Case, got: Run, want: Run, name: string): void {
  const count = c.orders.length;
  assert.deepEqual(got.info, want.info, `${name}: info`);
  for (const [k, v] of Object.entries(got.placed)) assert.deepEqual(v.outside().map(String), want.placed[k]!.outside().map(String), `${name}: ${k} outside the members`);
  const stride = pivotStrideOf(c);
  const samePivots = (p: number): boolean => got.ipiv.slice(p * stride, (p + 1) * stride).every((v, j) => v === want.ipiv[p * stride + j]);
  if (hasPivots(c)) {
    const differ = Array.from({ length: count }, (_, p) => p).filter((p) => !samePivots(p));
    assert.ok(c.dtype === 'complex64' ? differ.length <= PIVOTS_MAY_DIFFER : differ.length === 0, `${name}: members ${differ} pivot differently`);
    for (let p = 0; p < count; p++) for (let j = Math.min(c.operands['a']!.ms[p]!.rows, c.operands['a']!.ms[p]!.cols); j < stride; j++)
      assert.equal(got.ipiv[p * stride + j], want.ipiv[p * stride + j], `${name}: member ${p}'s pivot slot ${j} past its min(m, n)`);
  }
  const eps = DTYPE_EPS[c.dtype === 'complex128' ? 'float64' : 'float32'];
  for (let p = 0; p < count; p++) {
    const what = (k: string): string => `${name}: member ${p} (order ${c.orders[p]}) ${k}`;
    const member = (k: string) => ({ got: got.placed[k]!.read(p), want: want.placed[k]!.read(p), input: c.operands[k]!.ms[p]! });
    const failed = want.info[p] !== 0;
    switch (c.op) {
      case 'gemm': case 'trsm': case 'trmm': case 'herk': case 'syrk': case 'potrs': {
        const k = c.op === 'gemm' || c.op === 'herk' || c.op === 'syrk' ? 'c' : 'b';
        const m = member(k);
        compare(c.dtype, m.got, m.want, m.input, what(k));
        // The inputs only read.
        for (const o of Object.keys(c.operands)) if (o !== k) { const x = member(o); compare(c.dtype, x.got, x.input, x.input, what(o)); }
        break;
      }
      case 'trtri': case 'lauum': case 'potri': case 'getri': {
        // A failed member as given, bit for bit (the reference leaves it), the other triangle and a unit diagonal likewise.
        const a = member('a');
        compare(c.dtype, a.got, a.want, a.input, what('a'));
        if (c.op === 'lauum' || c.op === 'potri') for (let i = 0; i < c.orders[p]! && !failed; i++) assert.ok(Object.is(get(a.got, i, i)[1], 0), `${what('a')}: the diagonal's imaginary part at ${i}`);
        break;
      }
      case 'potrf': case 'posv': case 'poti': {
        const a = member('a'), uplo = c.args['uplo'] as Uplo, kk = want.info[p]!;
        // A failed member: the factor's columns before the failure (for upper, its rows), the other triangle unchanged.
        compare(c.dtype, a.got, a.want, a.input, what('a'), (i, j) => !failed || !inTriangle(uplo, i, j) || (uplo === 'lower' ? j : i) < kk - 1, failed);
        // A failed member's B as given (the reference keeps it), the others' solutions to rounding.
        if (c.op === 'posv') { const b = member('b'); compare(c.dtype, b.got, b.want, b.input, what('b')); }
        break;
      }
      case 'getrf': case 'gesv': case 'getrs': {
        const a = member('a');
        const same = samePivots(p);
        if (same) {
          compare(c.dtype, a.got, a.want, a.input, what('a'));
          if (c.op !== 'getrf') { const b = member('b'); compare(c.dtype, b.got, b.want, b.input, what('b')); }
        } else {
          if (c.op === 'getrf' || c.op === 'gesv') {
            const orig = c.originals![p]!;
            if (!hasNaN(orig)) assert.ok(luResidual(orig, a.got, got.ipiv, p * stride, eps) < THRESHOLD, `${what('a')}: LU residual with its own pivots`);
          }
          if (c.op !== 'getrf' && !failed) {
            const b = member('b');
            const trans = (c.args['trans'] as 'N' | 'T' | 'C' | undefined) ?? 'N';
            assert.ok(solveResidual(c.originals![p]!, trans, b.got, b.input, eps) < THRESHOLD, `${what('b')}: solve residual`);
          }
        }
        if (c.op === 'gesv' && failed) { const b = member('b'); compare(c.dtype, b.got, b.input, b.input, `${what('b')} of a failed member (kept)`); }
        break;
      }
      case 'heev': {
        const n = c.orders[p]!, a = member('a'), w = member('w');
        if (failed) { compare(c.dtype, w.got, w.want, w.input, what('w')); compare(c.dtype, a.got, a.want, a.input, what('a')); break; }
        const orig = c.originals![p]!;
        let anorm = 0;
        for (const x of orig.d) anorm += x * x;
        anorm = Math.sqrt(anorm);
        const values = Array.from({ length: n }, (_, j) => get(w.got, j, 0)[0]);
        for (let j = 0; j < n; j++) {
          const ref = get(w.want, j, 0)[0];
          assert.ok(Math.abs(values[j]! - ref) <= Math.max(1, n) * eps * Math.max(anorm, Number.MIN_VALUE), `${what('w')}[${j}] = ${values[j]}, the reference's ${ref}`);
          if (j > 0) assert.ok(values[j - 1]! <= values[j]!, `${what('w')} ascending at ${j}`);
        }
        if (c.args['jobz'] === 'vectors') {
          assert.ok(heevResidual(orig, a.got, values, eps) < THRESHOLD, `${what('a')}: ||A V - V W|| ratio`);
          assert.ok(unitaryResidual(a.got, eps) < THRESHOLD, `${what('a')}: ||V^H V - I|| ratio`);
        } else {
          compare(c.dtype, a.got, a.input, a.input, `${what('a')} (values only: unchanged)`);
        }
        break;
      }
      case 'gesvd': {
        const a = member('a'), s = member('s');
        compare(c.dtype, a.got, a.input, a.input, `${what('a')} (only read)`);
        if (failed) { compare(c.dtype, s.got, s.want, s.input, what('s')); break; }
        const orig = c.originals![p]!, k = s.got.rows;
        let anorm = 0;
        for (const x of orig.d) anorm += x * x;
        anorm = Math.sqrt(anorm);
        const values = Array.from({ length: k }, (_, j) => get(s.got, j, 0)[0]);
        for (let j = 0; j < k; j++) {
          const ref = get(s.want, j, 0)[0];
          assert.ok(Math.abs(values[j]! - ref) <= Math.max(1, orig.rows, orig.cols) * eps * Math.max(anorm, Number.MIN_VALUE), `${what('s')}[${j}] = ${values[j]}, the reference's ${ref}`);
        }
        if (c.operands['u'] !== undefined) {
          const u = member('u').got, vt = member('vt').got;
          assert.ok(svdResidual(orig, u, values, vt, eps) < THRESHOLD, `${what('u, vt')}: ||A - U S VT|| ratio`);
          assert.ok(unitaryResidual(u, eps) < THRESHOLD, `${what('u')}: ||U^H U - I|| ratio`);
          assert.ok(unitaryResidual(applyOp(vt, 'C'), eps) < THRESHOLD, `${what('vt')}: ||VT VT^H - I|| ratio`);
        }
        break;
      }
    }
  }
}

/** The file's cases (the data of each made again in its test: fresh arrays). */
const CASES = OPS.flatMap((op, i) => TYPES.flatMap((dtype, t) => Array.from({ length: formsOf(op, dtype) }, (_, form) =>
  ({ op, dtype, form, where: (i + t + form) % 2 === 0 ? 'device' as const : 'host' as const }))));

/** Every kernel of the file, compiled at once (the calls made on a device that runs nothing). */
before(() => warmFileKernels('zvbatched', (ctx, planning) => {
  if (planning === undefined) return;
  const dev = planning.device;
  for (const { op, dtype, form, where } of CASES) {
    const c = caseOf(op, dtype, where, form);
    const part = dtype === 'complex128' ? 'float64' : 'float32';
    const batches = Object.fromEntries(Object.entries(c.operands).map(([k, o]) => {
      const placed = vplace(o.ms, dtype, o.real);
      const d: DeviceArray = dev.alloc(part, placed.data.length);
      const views = placed.members.map((m) => ({ data: d, ...m }));
      return [k, o.real ? variable(views) : variable(views, { dtype })];
    }));
    const info = dev.alloc('int32', c.orders.length);
    const ipiv = hasPivots(c) ? dev.alloc('int32', Math.max(1, c.orders.length * pivotStrideOf(c))) : undefined;
    call(ctx, c, batches as Record<string, Batch<Storage>>, info, ipiv);
  }
}));

for (const { op, dtype, form, where } of CASES) {
  const forms = op === 'trmm' ? ` ${TRMM_FORMS[dtype][form]!.join(' ')}` : op === 'syrk' ? ` ${SYRK_FORMS[dtype][form]!.slice(0, 2).join(' ')}` : '';
  test(`${op}${forms} ${dtype} on a variable batch (orders 0-${Math.max(...ordersOf(op))}, shuffled, ragged ld, failing members), ${where} data, against the reference`, { skip, timeout: 300_000 }, () => {
    const { ctx } = gpuContext();
    const c = caseOf(op, dtype, where, form);
    const name = `${op}${forms} ${dtype} ${where}`;
    const want = reference(c);
    const got = run(ctx, c, where);
    assert.deepEqual(ctx.lastRoute, { op, route: ROUTE[op], gpu: true }, name);
    check(c, got, want, name);
  });
}

test('heev on a variable batch with members beyond 32: the GPU (route tridiag: the Jacobi warp design to 32, the tridiagonal design above), within the tolerances of the reference', { skip, timeout: 300_000 }, () => {
  const { ctx } = gpuContext();
  for (const dtype of TYPES) for (const jobz of ['vectors', 'values'] as const) {
    const rng = new Rng((dtype === 'complex64' ? 41 : 40) + (jobz === 'values' ? 2 : 0));
    const orders = [5, 40, 0, 12, 33];
    const orig = orders.map((n) => round(dtype)(hermitianCase(rng, 'random', n)));
    const c: Case = {
      op: 'heev', dtype, where: 'device', orders,
      operands: {
        a: { ms: orig },
        w: { ms: orders.map((n) => column(Array.from({ length: n }, () => Number.NaN))), real: true },
      },
      args: { jobz, uplo: 'lower' },
      originals: orig,
    };
    const want = reference(c);
    const got = run(ctx, c, 'device');
    assert.deepEqual(ctx.lastRoute, { op: 'heev', route: 'tridiag', gpu: true }, `${dtype} ${jobz}`);
    check(c, got, want, `heev ${dtype} ${jobz} orders ${orders.join(', ')}`);
  }
});
