/**
 * The CPU BLAS-3 reference, checked against properties that do not depend on it: a naive
 * float64 triple loop and the BLIS testsuite's C t = A (B t) check (gemm, syrk), the backward
 * error of the solve (trsm), trmm undoing trsm, and NaN poison wherever BLAS promises not to
 * read (beta = 0, alpha = 0, unit diagonals, the other triangle) or not to write.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { batchCount, list, matrixAt, storagesOf, strided, variable, type Batch } from '../../src/core/batch.js';
import { DTYPE_EPS, type DType, type FloatArray } from '../../src/core/dtype.js';
import type { Diag, Side, Uplo } from '../../src/core/enums.js';
import type { Op } from '../../src/core/ops.js';
import { cpuGemm, cpuSyrk, cpuTrmm, cpuTrsm } from '../../src/cpu/blas3.js';
import { Rng, at, fillMatrix, fillTriangular, normFro, randomArray, randomGeneral, type View } from '../helpers/random.js';

/** LAPACK's test threshold for normalised error ratios. */
const TOL = 30;
const DTYPES: readonly DType[] = ['float64', 'float32'];
const OPS: readonly Op[] = ['N', 'T'];
const UPLOS: readonly Uplo[] = ['lower', 'upper'];
const SIDES: readonly Side[] = ['left', 'right'];
const DIAGS: readonly Diag[] = ['nonunit', 'unit'];

// ---------------------------------------------------------------------------------------------
// Batches and snapshots

type Kind = 'strided' | 'list' | 'variable';
interface Shape { rows: number; cols: number }

/** A batch of random matrices with padded ld, offsets and gaps between matrices. */
function makeBatch(rng: Rng, dtype: DType, kind: Kind, shapes: readonly Shape[]): Batch<FloatArray> {
  const { rows, cols } = shapes[0]!;
  const ld = Math.max(1, rows + rng.int(0, 2));
  if (kind === 'strided') {
    const stride = ld * cols + rng.int(0, 3);
    const offset = rng.int(0, 3);
    const data = randomArray(rng, dtype, offset + (shapes.length - 1) * stride + ld * cols + rng.int(0, 2));
    return strided(data, { rows, cols, count: shapes.length, ld, stride, offset });
  }
  if (kind === 'list') {
    const entries = shapes.map(() => randomGeneral(rng, dtype, rows, cols, { ld, offset: rng.int(0, 3) }));
    return list(entries, { rows, cols, ld });
  }
  // Variable: the first two matrices share one buffer, the rest have their own.
  const views = shapes.map((s) => randomGeneral(rng, dtype, s.rows, s.cols, { offset: rng.int(0, 3) }));
  if (views.length >= 2) {
    const [v0, v1] = [views[0]!, views[1]!];
    const second = v0.offset + v0.ld * v0.cols + 1;
    const data = randomArray(rng, dtype, second + v1.ld * v1.cols + 1);
    views[0] = { ...v0, data };
    views[1] = { ...v1, data, offset: second };
  }
  return variable(views);
}

function sameShapes(count: number, rows: number, cols: number): Shape[] {
  return Array.from({ length: count }, () => ({ rows, cols }));
}

function forEachMatrix(b: Batch<FloatArray>, f: (v: View, p: number) => void): void {
  for (let p = 0; p < batchCount(b); p++) f(matrixAt(b, p), p);
}

type Snapshot = Map<FloatArray, FloatArray>;
function snapshot(b: Batch<FloatArray>): Snapshot {
  return new Map(storagesOf(b).map((s) => [s, s.slice()]));
}
/** The same view in the snapshot: the matrix as it was before the call. */
function before(v: View, snap: Snapshot): View {
  return { ...v, data: snap.get(v.data)! };
}

/** Every element of the batch's buffers that `mayWrite` does not allow is bit-identical to the snapshot. */
function assertOnlyWritten(b: Batch<FloatArray>, snap: Snapshot, mayWrite: (p: number, i: number, j: number) => boolean, label: string): void {
  const masks = new Map<FloatArray, Uint8Array>([...snap.keys()].map((s) => [s, new Uint8Array(s.length)]));
  forEachMatrix(b, (v, p) => {
    const mask = masks.get(v.data)!;
    for (let j = 0; j < v.cols; j++) for (let i = 0; i < v.rows; i++) if (mayWrite(p, i, j)) mask[v.offset + i + j * v.ld] = 1;
  });
  for (const [s, old] of snap) {
    const mask = masks.get(s)!;
    for (let x = 0; x < s.length; x++) {
      if (!mask[x] && !Object.is(s[x], old[x])) assert.fail(`${label}: element ${x} changed (${old[x]} -> ${s[x]}) though it may not be written`);
    }
  }
}
const anywhere = (): boolean => true;
const nowhere = (): boolean => false;

// ---------------------------------------------------------------------------------------------
// float64 references

function opAt(v: View, t: Op, i: number, j: number): number {
  return t === 'N' ? at(v, i, j) : at(v, j, i);
}

/** alpha op(A) op(B) + beta C0 by the definition, in float64; A, B unread when alpha = 0, C0 when beta = 0. */
function referenceGemm(ta: Op, tb: Op, alpha: number, a: View, b: View, beta: number, c0: View | undefined, m: number, n: number, k: number): View {
  const data = new Float64Array(m * n);
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < m; i++) {
      let s = 0;
      if (alpha !== 0) for (let l = 0; l < k; l++) s += opAt(a, ta, i, l) * opAt(b, tb, l, j);
      data[i + j * m] = alpha * s + (beta === 0 ? 0 : beta * at(c0!, i, j));
    }
  }
  return { data, offset: 0, ld: Math.max(1, m), rows: m, cols: n };
}

/** op(X) t for a vector t, in float64. */
function matVec(x: View, t: Op, v: Float64Array): Float64Array {
  const rows = t === 'N' ? x.rows : x.cols;
  const cols = t === 'N' ? x.cols : x.rows;
  const out = new Float64Array(rows);
  for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) out[i] += opAt(x, t, i, j) * v[j]!;
  return out;
}

function vecNorm(v: Float64Array): number {
  return Math.hypot(...v);
}

/** ||x - y||_F over the elements where `where` holds. */
function diffFro(x: View, y: View, where: (i: number, j: number) => boolean = anywhere): number {
  let s = 0;
  for (let j = 0; j < x.cols; j++) for (let i = 0; i < x.rows; i++) if (where(i, j)) s += (at(x, i, j) - at(y, i, j)) ** 2;
  return Math.sqrt(s);
}

/** ||x||_F over the elements where `where` holds. */
function normWhere(x: View, where: (i: number, j: number) => boolean): number {
  let s = 0;
  for (let j = 0; j < x.cols; j++) for (let i = 0; i < x.rows; i++) if (where(i, j)) s += at(x, i, j) ** 2;
  return Math.sqrt(s);
}

/** s x as a compact float64 matrix. */
function scaled(x: View, s: number): View {
  const data = new Float64Array(x.rows * x.cols);
  for (let j = 0; j < x.cols; j++) for (let i = 0; i < x.rows; i++) data[i + j * x.rows] = s * at(x, i, j);
  return { data, offset: 0, ld: Math.max(1, x.rows), rows: x.rows, cols: x.cols };
}

/** A triangular matrix as BLAS reads it: the `uplo` triangle, ones on a unit diagonal, zeros elsewhere. */
function denseTriangular(a: View, uplo: Uplo, diag: Diag): View {
  const n = a.rows;
  const data = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      if (i === j) data[i + j * n] = diag === 'unit' ? 1 : at(a, i, i);
      else if (uplo === 'upper' ? i < j : i > j) data[i + j * n] = at(a, i, j);
    }
  }
  return { data, offset: 0, ld: Math.max(1, n), rows: n, cols: n };
}

/** err <= TOL * scale, where scale = 0 demands an exact result; NaN always fails. */
function assertRatio(err: number, scale: number, label: string): void {
  assert.ok(err <= TOL * scale, `${label}: error ${err} exceeds ${TOL} x ${scale} (ratio ${err / scale})`);
}

// ---------------------------------------------------------------------------------------------
// gemm

function checkGemm(label: string, dtype: DType, ta: Op, tb: Op, alpha: number, beta: number,
  a: Batch<FloatArray>, b: Batch<FloatArray>, c: Batch<FloatArray>, rng: Rng): void {
  const eps = DTYPE_EPS[dtype];
  if (alpha === 0) { forEachMatrix(a, (v) => fillMatrix(v, NaN)); forEachMatrix(b, (v) => fillMatrix(v, NaN)); }
  if (beta === 0) forEachMatrix(c, (v) => fillMatrix(v, NaN));
  const [snapA, snapB, snapC] = [snapshot(a), snapshot(b), snapshot(c)];
  cpuGemm({ transA: ta, transB: tb, alpha, a, b, beta, c });
  forEachMatrix(c, (cv, p) => {
    const av = matrixAt(a, p);
    const bv = matrixAt(b, p);
    const c0 = before(cv, snapC);
    const [m, n, k] = [cv.rows, cv.cols, ta === 'N' ? av.cols : av.rows];
    const where = `${label} matrix ${p} (m ${m} n ${n} k ${k})`;
    const normAB = alpha === 0 ? 0 : Math.abs(alpha) * normFro(av) * normFro(bv);
    const normC = beta === 0 ? 0 : Math.abs(beta) * normFro(c0);
    // 1. Against the definition (MAGMA's normalised error).
    const expected = referenceGemm(ta, tb, alpha, av, bv, beta, c0, m, n, k);
    assertRatio(diffFro(cv, expected), (Math.sqrt(k + 2) * normAB + 2 * normC) * eps, `${where} vs definition`);
    // 2. BLIS: C t = alpha op(A) (op(B) t) + beta C0 t, in O(n^2) without a second gemm.
    const t = Float64Array.from({ length: n }, () => rng.uniform());
    const ct = matVec(cv, 'N', t);
    const abt = alpha === 0 ? new Float64Array(m) : matVec(av, ta, matVec(bv, tb, t));
    const c0t = beta === 0 ? new Float64Array(m) : matVec(c0, 'N', t);
    const r = ct.map((x, i) => x - (alpha * abt[i]! + beta * c0t[i]!));
    assertRatio(vecNorm(r), (k + 2) * (normAB + normC) * vecNorm(t) * eps, `${where} C t vs A (B t)`);
  });
  assertOnlyWritten(c, snapC, anywhere, `${label} C`);
  assertOnlyWritten(a, snapA, nowhere, `${label} A`);
  assertOnlyWritten(b, snapB, nowhere, `${label} B`);
}

const ALPHA_BETA: readonly [number, number][] = [[1, 0], [0.5, 1], [-1.5, 0.25], [0, 0.5], [0, 0], [2, -1]];

function gemmShapes(ta: Op, tb: Op, m: number, n: number, k: number): [Shape, Shape, Shape] {
  return [ta === 'N' ? { rows: m, cols: k } : { rows: k, cols: m }, tb === 'N' ? { rows: k, cols: n } : { rows: n, cols: k }, { rows: m, cols: n }];
}

describe('cpuGemm', () => {
  const sizes: [number, number, number][] = [
    ...[0, 1, 2, 3, 5, 7, 16, 32, 33].map((s): [number, number, number] => [s, s, s]),
    [1, 7, 3], [5, 2, 16], [33, 1, 7], [3, 32, 0], [7, 5, 33], [0, 3, 2], [2, 0, 3], [16, 33, 1],
  ];
  for (const dtype of DTYPES) {
    test(`${dtype}: all transposes, alpha/beta, sizes 0..33, strided batches with ld pad, offset and gaps`, () => {
      const rng = new Rng(1001);
      for (const [m, n, k] of sizes) for (const ta of OPS) for (const tb of OPS) for (const [alpha, beta] of ALPHA_BETA) {
        const [sa, sb, sc] = gemmShapes(ta, tb, m, n, k);
        const count = 2;
        checkGemm(`gemm ${dtype} ${ta}${tb} m ${m} n ${n} k ${k} alpha ${alpha} beta ${beta}`, dtype, ta, tb, alpha, beta,
          makeBatch(rng, dtype, 'strided', sameShapes(count, sa.rows, sa.cols)),
          makeBatch(rng, dtype, 'strided', sameShapes(count, sb.rows, sb.cols)),
          makeBatch(rng, dtype, 'strided', sameShapes(count, sc.rows, sc.cols)), rng);
      }
    });
    test(`${dtype}: list and variable batches`, () => {
      const rng = new Rng(1002);
      for (const kind of ['list', 'variable'] as const) for (const ta of OPS) for (const tb of OPS) for (const [alpha, beta] of ALPHA_BETA) {
        const count = 6;
        const dims = Array.from({ length: count }, (_, p) => kind === 'list' && p > 0 ? null : [rng.int(0, 9), rng.int(0, 9), rng.int(0, 9)] as const);
        const per = dims.map((d) => gemmShapes(ta, tb, ...(d ?? dims[0]!)));
        checkGemm(`gemm ${dtype} ${kind} ${ta}${tb} alpha ${alpha} beta ${beta}`, dtype, ta, tb, alpha, beta,
          makeBatch(rng, dtype, kind, per.map((s) => s[0])),
          makeBatch(rng, dtype, kind, per.map((s) => s[1])),
          makeBatch(rng, dtype, kind, per.map((s) => s[2])), rng);
      }
    });
  }
});

// ---------------------------------------------------------------------------------------------
// trsm and trmm

interface TriCase { dtype: DType; side: Side; uplo: Uplo; transA: Op; diag: Diag; alpha: number }

/**
 * A batch of triangular A (NaN in the other triangle, and on the diagonal when unit) for a
 * batch of B shapes: A is m x m (left) or n x n (right).
 */
function triangularBatch(rng: Rng, c: TriCase, kind: Kind, bShapes: readonly Shape[]): Batch<FloatArray> {
  const orders = bShapes.map((s) => (c.side === 'left' ? s.rows : s.cols));
  const a = makeBatch(rng, c.dtype, kind, orders.map((o) => ({ rows: o, cols: o })));
  forEachMatrix(a, (v) => fillTriangular(rng, v, c.uplo, { other: NaN, ...(c.diag === 'unit' ? { diagonal: NaN } : {}) }));
  return a;
}

function caseLabel(c: TriCase): string {
  return `${c.dtype} ${c.side} ${c.uplo} ${c.transA} ${c.diag} alpha ${c.alpha}`;
}

/** X = trsm(B): backward error of op(A) X = alpha B; then trmm with 1/alpha must give B back. */
function checkTrsmAndUndo(label: string, c: TriCase, a: Batch<FloatArray>, b: Batch<FloatArray>): void {
  const eps = DTYPE_EPS[c.dtype];
  const [snapA, snapB] = [snapshot(a), snapshot(b)];
  const { side, uplo, transA, diag, alpha } = c;
  cpuTrsm({ side, uplo, transA, diag, alpha, a, b });
  assertOnlyWritten(b, snapB, anywhere, `${label} trsm B`);
  assertOnlyWritten(a, snapA, nowhere, `${label} trsm A`);
  const snapX = snapshot(b);
  forEachMatrix(b, (x, p) => {
    const t = denseTriangular(matrixAt(a, p), uplo, diag);
    const b0 = before(x, snapB);
    const [m, n] = [x.rows, x.cols];
    const product = side === 'left' ? referenceGemm(transA, 'N', 1, t, x, 0, undefined, m, n, m)
      : referenceGemm('N', transA, 1, x, t, 0, undefined, m, n, n);
    assertRatio(diffFro(product, scaled(b0, alpha)), normFro(t) * normFro(x) * Math.max(1, t.rows) * eps,
      `${label} matrix ${p} (m ${m} n ${n}) trsm residual`);
  });
  cpuTrmm({ side, uplo, transA, diag, alpha: 1 / alpha, a, b });
  assertOnlyWritten(a, snapA, nowhere, `${label} trmm A`);
  forEachMatrix(b, (y, p) => {
    const t = denseTriangular(matrixAt(a, p), uplo, diag);
    const scale = (normFro(t) * normFro(before(y, snapX)) * Math.max(1, t.rows) * eps) / Math.abs(alpha);
    assertRatio(diffFro(y, before(y, snapB)), scale, `${label} matrix ${p} trmm(trsm(B)) = B`);
  });
}

/** trmm against the definition alpha op(A) B (left) or alpha B op(A) (right). */
function checkTrmm(label: string, c: TriCase, a: Batch<FloatArray>, b: Batch<FloatArray>): void {
  const eps = DTYPE_EPS[c.dtype];
  const snapB = snapshot(b);
  const { side, uplo, transA, diag, alpha } = c;
  cpuTrmm({ side, uplo, transA, diag, alpha, a, b });
  assertOnlyWritten(b, snapB, anywhere, `${label} trmm B`);
  forEachMatrix(b, (y, p) => {
    const t = denseTriangular(matrixAt(a, p), uplo, diag);
    const b0 = before(y, snapB);
    const [m, n] = [y.rows, y.cols];
    const expected = side === 'left' ? referenceGemm(transA, 'N', alpha, t, b0, 0, undefined, m, n, m)
      : referenceGemm('N', transA, alpha, b0, t, 0, undefined, m, n, n);
    assertRatio(diffFro(y, expected), Math.sqrt(t.rows + 2) * Math.abs(alpha) * normFro(t) * normFro(b0) * eps,
      `${label} matrix ${p} (m ${m} n ${n}) trmm vs definition`);
  });
}

function* triCases(alphas: readonly number[]): Generator<TriCase> {
  for (const dtype of DTYPES) for (const side of SIDES) for (const uplo of UPLOS) for (const transA of OPS)
    for (const diag of DIAGS) for (const alpha of alphas) yield { dtype, side, uplo, transA, diag, alpha };
}

describe('cpuTrsm and cpuTrmm', () => {
  const sizes: [number, number][] = [[0, 3], [3, 0], [1, 1], [2, 3], [5, 5], [7, 2], [16, 16], [33, 7], [4, 33]];
  test('every side x uplo x trans x diag, strided batches; A poisoned outside what BLAS reads', () => {
    const rng = new Rng(2001);
    for (const c of triCases([1, -0.5])) for (const [m, n] of sizes) {
      const label = `${caseLabel(c)} m ${m} n ${n}`;
      const shapes = sameShapes(2, m, n);
      const a = triangularBatch(rng, c, 'strided', shapes);
      checkTrsmAndUndo(label, c, a, makeBatch(rng, c.dtype, 'strided', shapes));
      checkTrmm(label, c, a, makeBatch(rng, c.dtype, 'strided', shapes));
    }
  });
  test('list and variable batches', () => {
    const rng = new Rng(2002);
    for (const c of triCases([2])) for (const kind of ['list', 'variable'] as const) {
      const first = { rows: rng.int(0, 9), cols: rng.int(0, 9) };
      const shapes = Array.from({ length: 5 }, () => kind === 'list' ? first : { rows: rng.int(0, 9), cols: rng.int(0, 9) });
      const a = triangularBatch(rng, c, kind, shapes);
      checkTrsmAndUndo(`${caseLabel(c)} ${kind}`, c, a, makeBatch(rng, c.dtype, kind, shapes));
      checkTrmm(`${caseLabel(c)} ${kind}`, c, a, makeBatch(rng, c.dtype, kind, shapes));
    }
  });
  test('alpha = 0 zeroes B without reading A or B', () => {
    const rng = new Rng(2003);
    for (const c of triCases([0])) for (const op of [cpuTrsm, cpuTrmm]) {
      const shapes = sameShapes(2, 4, 3);
      const a = triangularBatch(rng, c, 'strided', shapes);
      forEachMatrix(a, (v) => fillMatrix(v, NaN));
      const b = makeBatch(rng, c.dtype, 'strided', shapes);
      forEachMatrix(b, (v) => fillMatrix(v, NaN));
      const snapB = snapshot(b);
      op({ side: c.side, uplo: c.uplo, transA: c.transA, diag: c.diag, alpha: 0, a, b });
      forEachMatrix(b, (v) => assert.equal(normFro(v), 0, `${op.name} ${caseLabel(c)}: B is not zero`));
      assertOnlyWritten(b, snapB, anywhere, `${op.name} ${caseLabel(c)}`);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// syrk

function checkSyrk(label: string, dtype: DType, uplo: Uplo, trans: Op, alpha: number, beta: number,
  a: Batch<FloatArray>, c: Batch<FloatArray>): void {
  const eps = DTYPE_EPS[dtype];
  const inTriangle = (i: number, j: number): boolean => (uplo === 'upper' ? i <= j : i >= j);
  if (alpha === 0) forEachMatrix(a, (v) => fillMatrix(v, NaN));
  // The other triangle is poison; so is all of C when beta = 0.
  forEachMatrix(c, (v) => {
    for (let j = 0; j < v.cols; j++) for (let i = 0; i < v.rows; i++) {
      if (beta === 0 || !inTriangle(i, j)) v.data[v.offset + i + j * v.ld] = NaN;
    }
  });
  const [snapA, snapC] = [snapshot(a), snapshot(c)];
  cpuSyrk({ uplo, trans, alpha, a, beta, c });
  forEachMatrix(c, (cv, p) => {
    const av = matrixAt(a, p);
    const c0 = before(cv, snapC);
    const [n, k] = [cv.rows, trans === 'N' ? av.cols : av.rows];
    // Explicit alpha A A^T + beta C0 (or A^T A); only its `uplo` triangle is compared.
    const expected = referenceGemm(trans, trans === 'N' ? 'T' : 'N', alpha, av, av, beta, c0, n, n, k);
    const normA = alpha === 0 ? 0 : normFro(av);
    const normC = beta === 0 ? 0 : normWhere(c0, inTriangle);
    assertRatio(diffFro(cv, expected, inTriangle), (Math.sqrt(k + 2) * Math.abs(alpha) * normA ** 2 + 2 * Math.abs(beta) * normC) * eps,
      `${label} matrix ${p} (n ${n} k ${k})`);
  });
  assertOnlyWritten(c, snapC, (_p, i, j) => inTriangle(i, j), `${label} C`);
  assertOnlyWritten(a, snapA, nowhere, `${label} A`);
}

describe('cpuSyrk', () => {
  const sizes: [number, number][] = [[0, 3], [3, 0], [1, 1], [2, 5], [5, 2], [7, 7], [16, 3], [33, 17], [32, 32]];
  for (const dtype of DTYPES) {
    test(`${dtype}: both uplo and trans, alpha/beta, strided, list and variable batches; other triangle untouched`, () => {
      const rng = new Rng(3001);
      for (const uplo of UPLOS) for (const trans of OPS) for (const [alpha, beta] of ALPHA_BETA) {
        for (const [n, k] of sizes) {
          const sa = trans === 'N' ? { rows: n, cols: k } : { rows: k, cols: n };
          checkSyrk(`syrk ${dtype} ${uplo} ${trans} alpha ${alpha} beta ${beta} n ${n} k ${k}`, dtype, uplo, trans, alpha, beta,
            makeBatch(rng, dtype, 'strided', sameShapes(2, sa.rows, sa.cols)), makeBatch(rng, dtype, 'strided', sameShapes(2, n, n)));
        }
        for (const kind of ['list', 'variable'] as const) {
          const fixed = [rng.int(0, 9), rng.int(0, 9)] as const;
          const dims = Array.from({ length: 5 }, () => (kind === 'list' ? fixed : [rng.int(0, 9), rng.int(0, 9)] as const));
          checkSyrk(`syrk ${dtype} ${kind} ${uplo} ${trans} alpha ${alpha} beta ${beta}`, dtype, uplo, trans, alpha, beta,
            makeBatch(rng, dtype, kind, dims.map(([n, k]) => (trans === 'N' ? { rows: n, cols: k } : { rows: k, cols: n }))),
            makeBatch(rng, dtype, kind, dims.map(([n]) => ({ rows: n, cols: n }))));
        }
      }
    });
  }
});
