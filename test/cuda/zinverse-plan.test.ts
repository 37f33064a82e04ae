/**
 * The complex inverses' plans (kernels/zinverse/plan.ts: ztrtriSteps, zlauumSteps, zpotriSteps,
 * zgetriSteps) without a GPU: their steps are pure requests on sub-blocks of every matrix and on
 * workspaces, so here they run on the CPU reference (cpu/complex/: the products by ztrsm, zherk,
 * zgemm, zpotrf; the scan, the moves and getri's column interchanges as their kernels' sources
 * say, generate-move.ts)
 * and must reproduce the reference run on the whole matrices (cpu/complex/zinverse.ts, zgetri.ts):
 * info exactly, a failing matrix bit for bit as the reference leaves it, the other triangle and
 * the floats outside the matrices unchanged, complex128 and complex64, lower and upper, unit and
 * non-unit, orders across the leaf (32) and one or two levels of the recursion, odd leading
 * dimensions and list batches. What the GPU adds: test/gpu/zinverse.test.ts, and the kernels run
 * on the host in test/cuda/zinverse-host-emulation.test.ts (opt-in).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { batchCount, matrixAt, strided, type Batch, type StridedBatch } from '../../src/core/batch.js';
import type { ComplexDType, FloatArray } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import { cpuGemmComplex } from '../../src/cpu/complex/zgemm.js';
import { cpuGetrfComplex } from '../../src/cpu/complex/zgetrf.js';
import { cpuGetriComplex } from '../../src/cpu/complex/zgetri.js';
import { cpuLauumComplex, cpuPotiComplex, cpuPotriComplex, cpuTrtriComplex } from '../../src/cpu/complex/zinverse.js';
import { cpuPotrfComplex } from '../../src/cpu/complex/zpotrf.js';
import { cpuHerkComplex } from '../../src/cpu/complex/zrankk.js';
import { cpuTrsmComplex } from '../../src/cpu/complex/ztrsm.js';
import type { BlockBatch } from '../../src/cuda/kernels/common/sub-blocks.js';
import {
  getriWorkspace, lauumWorkspace, potriWorkspace, trtriWorkspace, zgetriSteps, ZINVERSE_LEAF, zlauumSteps, zpotriSteps, ztrtriSteps,
  type ZinverseStep, type ZinverseWorkspace, type ZmoveOp,
} from '../../src/cuda/kernels/zinverse/index.js';
import { epsOf, get, LIST, ODD, place, random, randomHpd, randomTriangular, set, zeros, type Layout, type Placed, type Z } from '../helpers/complex.js';
import { Rng } from '../helpers/random.js';

type S = FloatArray;
const SENTINEL = -777;
const UPLOS: readonly Uplo[] = ['lower', 'upper'];

const blockOf = (b: Batch<S>): BlockBatch<S> => {
  if (b.kind === 'variable') throw new Error('a strided or list batch');
  return b;
};
const inTriangle = (uplo: Uplo, i: number, j: number): boolean => (uplo === 'lower' ? i >= j : i <= j);

// ---------------------------------------------------------------------------------------------
// The launcher's steps on the CPU reference.

/** The move kernel (generate-move.ts) on CPU storage. */
function move(m: ZmoveOp, from: BlockBatch<S>, to: BlockBatch<S>, info: Int32Array): void {
  const n = to.rows;
  for (let p = 0; p < batchCount(to); p++) {
    if (m.op !== 'identity' && m.onlyOk && info[p] !== 0) continue;
    const a = matrixAt(from, p), b = matrixAt(to, p);
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
      const [x, y] = [2 * (a.offset + i + j * a.ld), 2 * (b.offset + i + j * b.ld)];
      const put = (re: number, im: number): void => { b.data[y] = re; b.data[y + 1] = im; };
      if (m.op === 'identity') put(i === j ? 1 : 0, 0);
      else if (m.op === 'whole') put(a.data[x]!, a.data[x + 1]!);
      else if (i !== j && inTriangle(m.uplo, i, j)) put(a.data[x]!, a.data[x + 1]!);
      else if (i === j) {
        if (m.diagonal === 'copy') put(a.data[x]!, a.data[x + 1]!);
        else if (m.diagonal === 'real') put(a.data[x]!, 0);
        else if (m.diagonal === 'one') put(1, 0);
      } else if (m.zeroOther) put(0, 0);
    }
  }
}

/** The scan kernel (generate-move.ts) on CPU storage. */
function scan(a: BlockBatch<S>, info: Int32Array, keep: boolean): void {
  for (let p = 0; p < batchCount(a); p++) {
    if (keep && info[p] !== 0) continue;
    const m = matrixAt(a, p);
    let bad = 0;
    for (let c = 0; c < m.rows; c++) {
      const d = 2 * (m.offset + c * (m.ld + 1));
      if (m.data[d] === 0 && m.data[d + 1] === 0) { bad = c + 1; break; }
    }
    info[p] = bad;
  }
}

/** getri's finish kernel (generate-move.ts zinverseColumnsSource) on CPU storage. */
function columns(w: BlockBatch<S>, a: BlockBatch<S>, info: Int32Array, p: { ipiv: Int32Array; pivotStride: number }): void {
  const n = a.rows;
  for (let q = 0; q < batchCount(a); q++) {
    if (info[q] !== 0) continue;
    const x = matrixAt(w, q), y = matrixAt(a, q);
    const at = (m: typeof x, i: number, j: number): number => 2 * (m.offset + i + j * m.ld);
    for (let i = 0; i < n; i++) {
      for (let j = n - 2; j >= 0; j--) {
        const r = p.ipiv[q * p.pivotStride + j]!;
        if (r === j) continue;
        for (const part of [0, 1]) {
          const t = x.data[at(x, i, j) + part]!;
          x.data[at(x, i, j) + part] = x.data[at(x, i, r) + part]!;
          x.data[at(x, i, r) + part] = t;
        }
      }
      for (let j = 0; j < n; j++) for (const part of [0, 1]) y.data[at(y, i, j) + part] = x.data[at(x, i, j) + part]!;
    }
  }
}

/** The launcher's loop (launch.ts runSteps) with the CPU reference for the families' faces. */
function runSteps(steps: readonly ZinverseStep<S>[], info: Int32Array, pivots?: { ipiv: Int32Array; pivotStride: number }): void {
  for (const s of steps) {
    switch (s.kind) {
      case 'scan': scan(s.a, info, s.keep); break;
      case 'zero-info': info.fill(0); break;
      case 'move': move(s.move, s.from, s.to, info); break;
      case 'trsm': cpuTrsmComplex(s.request); break;
      case 'herk': cpuHerkComplex(s.request); break;
      case 'gemm': cpuGemmComplex(s.request); break;
      case 'columns': columns(s.w, s.a, info, pivots!); break;
      case 'potrf': cpuPotrfComplex({ uplo: s.uplo, a: s.a, info }); break;
    }
  }
}

/** The workspaces as the launcher takes them (NaN-filled: a step that reads what no step wrote shows), in the call's component type. */
function spaces(need: ZinverseWorkspace, n: number, count: number, dtype: ComplexDType): { w?: BlockBatch<S>; v?: BlockBatch<S>; e?: BlockBatch<S> } {
  const space = (order: number): BlockBatch<S> => {
    const len = 2 * Math.max(1, count * order * order);
    const data = (dtype === 'complex64' ? new Float32Array(len) : new Float64Array(len)).fill(NaN);
    return strided(data, { rows: order, cols: order, ld: order, stride: order * order, count, dtype });
  };
  return { ...(need.w ? { w: space(n) } : {}), ...(need.v ? { v: space(n) } : {}), ...(need.e ? { e: space(ZINVERSE_LEAF) } : {}) };
}

// ---------------------------------------------------------------------------------------------
// Data and comparisons.


/** got against want: info-failed matrices and the other triangle bit for bit, the rest within tol of want's largest finite magnitude. */
function close(got: Z, want: Z, tol: number, what: string, exact: (i: number, j: number) => boolean): void {
  let scale = 1;
  for (const v of want.d) if (Number.isFinite(v)) scale = Math.max(scale, Math.abs(v));
  // The message is built only for a failure (per element it cost most of this function's time).
  for (let j = 0; j < want.cols; j++) for (let i = 0; i < want.rows; i++) {
    const eg = 2 * (i + j * got.rows), ew = 2 * (i + j * want.rows);
    const bitwise = exact(i, j);
    for (const part of [0, 1]) {
      const x = got.d[eg + part]!, y = want.d[ew + part]!;
      const ok = bitwise || !Number.isFinite(y) ? Object.is(x, y) || (Number.isNaN(x) && Number.isNaN(y)) : Math.abs(x - y) <= tol * scale;
      if (!ok) assert.fail(`${what}: (${i}, ${j}) part ${part}: got ${x}, want ${y}`);
    }
  }
}

function compare(got: Placed, want: Placed, info: Int32Array, wantInfo: Int32Array, n: number, tol: number, what: string, exact: (p: number, i: number, j: number) => boolean): void {
  assert.deepEqual([...info], [...wantInfo], `${what}: info`);
  for (let p = 0; p < info.length; p++) close(got.read(p), want.read(p), tol, `${what} matrix ${p}`, (i, j) => exact(p, i, j));
  assert.ok(got.outside().every((v) => v === SENTINEL), `${what}: nothing written outside the matrices`);
}

// Across the leaf (32) and two levels of the recursion (70: 32 + 38, 38: 32 + 6); the larger orders run on the GPU
// and in the host emulation (CI time).
const ORDERS = [1, 5, 33, 70];
const layoutOf = (i: number): Layout => (i % 3 === 2 ? LIST : ODD);
const dtypeOf = (i: number): ComplexDType => (i % 2 === 0 ? 'complex128' : 'complex64');

describe('complex inverses (kernels/zinverse/plan.ts) on the CPU reference', () => {
  it('trtri: every uplo, unit and non-unit; a matrix with an exactly zero diagonal keeps A bit for bit, info as ztrtri', () => {
    const rng = new Rng(301);
    let idx = 0;
    for (const n of ORDERS) for (const uplo of UPLOS) for (const diag of ['nonunit', 'unit'] as const) {
      // unit: at half the orders and triangles (CI time).
      if (diag === 'unit' && (ORDERS.indexOf(n) + UPLOS.indexOf(uplo)) % 2 === 0) continue;
      const [dtype, layout] = [dtypeOf(idx), layoutOf(idx++)];
      const count = 3;
      const ms = Array.from({ length: count }, () => randomTriangular(rng, n, uplo, diag));
      // Matrix 1 singular (non-unit): an exactly zero diagonal element, in the second half where there is one.
      if (diag === 'nonunit') set(ms[1]!, n - 1 - Math.floor(n / 4), n - 1 - Math.floor(n / 4), 0, 0);
      const [got, want] = [place(ms, n, n, dtype, layout, SENTINEL), place(ms, n, n, dtype, layout, SENTINEL)];
      const a = blockOf(got.batch);
      const s = spaces(trtriWorkspace(n), n, count, dtype);
      const info = new Int32Array(count).fill(-3);
      runSteps(ztrtriSteps(uplo, diag, a, s.w, s.e!), info);
      const wantInfo = new Int32Array(count);
      cpuTrtriComplex({ uplo, diag, a: want.batch, info: wantInfo });
      if (diag === 'nonunit') assert.ok(wantInfo[1]! > 0);
      compare(got, want, info, wantInfo, n, 16 * n * epsOf(dtype), `trtri ${dtype} n = ${n} ${uplo} ${diag} ${layout.kind}`,
        (p, i, j) => wantInfo[p] !== 0 || !inTriangle(uplo, i, j) || (i === j && diag === 'unit'));
    }
  });

  it('lauum: the diagonal\'s imaginary parts are not read (NaN there), a real diagonal written', () => {
    const rng = new Rng(302);
    let idx = 0;
    for (const n of ORDERS) for (const uplo of UPLOS) {
      const [dtype, layout] = [dtypeOf(idx), layoutOf(idx++)];
      const count = 2;
      const ms = Array.from({ length: count }, () => {
        const t = randomTriangular(rng, n, uplo, 'nonunit');
        for (let i = 0; i < n; i++) set(t, i, i, get(t, i, i)[0], NaN);
        return t;
      });
      const [got, want] = [place(ms, n, n, dtype, layout, SENTINEL), place(ms, n, n, dtype, layout, SENTINEL)];
      const s = spaces(lauumWorkspace(n), n, count, dtype);
      const info = new Int32Array(count).fill(-3);
      runSteps(zlauumSteps(uplo, blockOf(got.batch), s.w), info);
      const wantInfo = new Int32Array(count).fill(-4);
      cpuLauumComplex({ uplo, a: want.batch, info: wantInfo });
      compare(got, want, info, wantInfo, n, 16 * n * epsOf(dtype), `lauum ${dtype} n = ${n} ${uplo} ${layout.kind}`, (_, i, j) => !inTriangle(uplo, i, j));
      for (let p = 0; p < count; p++) for (let i = 0; i < n; i++) assert.ok(Object.is(get(got.read(p), i, i)[1], 0), 'a real diagonal');
    }
  });

  it('potri and poti (the triangles in turn): a complex diagonal of the factor as trtri reads it; failing matrices (zero diagonal; not positive definite; NaN) as the reference leaves them', () => {
    const rng = new Rng(303);
    let idx = 0;
    for (const n of ORDERS) for (const op of ['potri', 'poti'] as const) {
      const uplo = UPLOS[(ORDERS.indexOf(n) + (op === 'poti' ? 1 : 0)) % 2]!;
      const [dtype, layout] = [dtypeOf(idx), layoutOf(idx++)];
      const count = 3;
      const k = n - 1 - Math.floor(n / 3);
      const ms = Array.from({ length: count }, (_, p) => {
        if (op === 'potri') {
          const t = randomTriangular(rng, n, uplo, 'nonunit');
          if (p === 1) set(t, k, k, 0, 0);
          return t;
        }
        const h = randomHpd(rng, n);
        const out = zeros(n, n);
        for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
          const [re, im] = get(h, i, j);
          set(out, i, j, inTriangle(uplo, i, j) ? re : NaN, inTriangle(uplo, i, j) ? (i === j ? NaN : im) : NaN);
        }
        if (p === 1) set(out, k, k, -1, 0);
        if (p === 2 && n > 1) { const [i, j] = uplo === 'lower' ? [n - 1, k] : [k, n - 1]; set(out, i, j, NaN, 0); }
        return out;
      });
      const [got, want] = [place(ms, n, n, dtype, layout, SENTINEL), place(ms, n, n, dtype, layout, SENTINEL)];
      const s = spaces(potriWorkspace(n), n, count, dtype);
      const info = new Int32Array(count).fill(-3);
      runSteps(zpotriSteps(uplo, blockOf(got.batch), s.w, s.v, s.e, op === 'poti' ? 'here' : 'given'), info);
      const wantInfo = new Int32Array(count).fill(-4);
      (op === 'poti' ? cpuPotiComplex : cpuPotriComplex)({ uplo, a: want.batch, info: wantInfo });
      assert.ok(wantInfo[1]! > 0, 'matrix 1 fails');
      const tol = (op === 'poti' ? 256 : 32) * n * epsOf(dtype);
      compare(got, want, info, wantInfo, n, tol, `${op} ${dtype} n = ${n} ${uplo} ${layout.kind}`, (p, i, j) => wantInfo[p] !== 0 || !inTriangle(uplo, i, j));
    }
  });

  it('getri: from getrf\'s factors and pivots; a singular U leaves A bit for bit, info as zgetri', () => {
    const rng = new Rng(304);
    let idx = 0;
    for (const n of ORDERS) {
      const [dtype, layout] = [dtypeOf(idx), layoutOf(idx++)];
      const count = 3;
      const ms = Array.from({ length: count }, (_, p) => {
        const m = random(rng, n, n);
        for (let i = 0; i < n; i++) set(m, i, i, get(m, i, i)[0] + 2, get(m, i, i)[1]);
        if (p === 1) for (let i = 0; i < n; i++) set(m, i, n - 1 - Math.floor(n / 4), 0, 0);
        return m;
      });
      const [got, want] = [place(ms, n, n, dtype, layout, SENTINEL), place(ms, n, n, dtype, layout, SENTINEL)];
      const ipiv = new Int32Array(n * count);
      const factorInfo = new Int32Array(count);
      cpuGetrfComplex({ a: got.batch, ipiv, pivotStride: n, info: factorInfo });
      cpuGetrfComplex({ a: want.batch, ipiv: new Int32Array(n * count), pivotStride: n, info: new Int32Array(count) });
      const s = spaces(getriWorkspace(n), n, count, dtype);
      const info = new Int32Array(count).fill(-3);
      runSteps(zgetriSteps(blockOf(got.batch), s.w, s.e), info, { ipiv, pivotStride: n });
      const wantInfo = new Int32Array(count).fill(-4);
      cpuGetriComplex({ a: want.batch, ipiv, pivotStride: n, info: wantInfo });
      assert.ok(wantInfo[1]! > 0, 'matrix 1 singular');
      compare(got, want, info, wantInfo, n, 64 * n * epsOf(dtype), `getri ${dtype} n = ${n} ${layout.kind}`, (p) => wantInfo[p] !== 0);
    }
  });

  it('the plans: leaves of at most 32 tiling the diagonal, results moved into A once and only where info is 0', () => {
    const m = (n: number): StridedBatch<S> => ({ kind: 'strided', data: new Float64Array(2), rows: n, cols: n, ld: n, stride: 0, offset: 0, count: 1, order: 'col', dtype: 'complex128' });
    const dataOf = (b: Batch<S>): unknown => (b.kind === 'strided' ? b.data : undefined);
    for (const n of [1, 32, 33, 64, 100, 256]) for (const uplo of UPLOS) {
      const [a, w, v, e] = [m(n), m(n), m(n), m(32)];
      const trtri = ztrtriSteps(uplo, 'nonunit', a, n > 32 ? w : undefined, e);
      const potri = zpotriSteps(uplo, a, w, v, e, 'given');
      for (const steps of [trtri, potri]) {
        const leaves = steps.flatMap((s) => (s.kind === 'trsm' && dataOf(s.request.b) === e.data ? [s.request] : []));
        assert.ok(leaves.every((r) => r.a.kind === 'strided' && r.a.rows <= 32 && r.b.kind === 'strided' && r.b.rows === r.a.rows && r.b.cols === r.a.rows));
        assert.equal(leaves.reduce((x, r) => x + (r.a.kind === 'strided' ? r.a.rows : 0), 0), n, 'the leaves tile the diagonal');
        const intoA = steps.filter((s) => s.kind === 'move' && s.to === a);
        assert.equal(intoA.length, 1, 'one move into A');
        assert.ok(intoA.every((s) => s.kind === 'move' && s.move.op === 'triangle' && s.move.onlyOk));
        assert.equal(steps.filter((s) => (s.kind === 'herk' || s.kind === 'gemm') && dataOf(s.request.c) === a.data).length, 0, 'no product writes A');
      }
      const herks = zlauumSteps(uplo, a, w).flatMap((s) => (s.kind === 'herk' ? [s.request] : []));
      const diagonal = herks.filter((r) => r.beta === 0);
      assert.ok(diagonal.every((r) => r.c.kind === 'strided' && r.c.rows <= 32));
      assert.equal(diagonal.reduce((x, r) => x + (r.c.kind === 'strided' ? r.c.rows : 0), 0), n, 'the herk leaves tile the diagonal');
      const getri = zgetriSteps(a, w, e);
      assert.deepEqual([getri[0]!.kind, ...getri.slice(-3).map((s) => s.kind)], ['move', 'trsm', 'scan', 'columns']);
      const withU = getri.at(-3)!;
      assert.ok(withU.kind === 'trsm' && withU.request.a === a && withU.request.b === w && withU.request.uplo === 'upper', 'W := inv(U) W with A\'s U');
      assert.ok(getri.every((s) => s.kind !== 'move' || s.to !== a), 'A written by the finish alone');
    }
  });
});
