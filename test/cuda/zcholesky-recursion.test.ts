/**
 * The complex families' recursions above order 32 (ztrsm/plan.ts ztrsmSteps, zherk/plan.ts
 * zherkSteps, zpotrf/plan.ts zpotrfSteps and zpotrsSteps) without a GPU: their steps are pure
 * requests on sub-blocks of every matrix, so here they run on the CPU reference (cpu/complex/:
 * leaves by ztrsm, zherk and zpotrf, updates by zgemm), composed as the launchers compose them
 * (ztrsm/launch.ts, zherk/launch.ts, zpotrf/launch.ts: potrf's trsm and herk steps recurse in
 * turn, its leaves' info is combined by each matrix's first failure, posv keeps a failed
 * matrix's B), and must reproduce the reference run on the whole matrices: complex128 and
 * complex64, lower and upper, every trsm variant, orders 33 to 129 (the GPU tests reach 512), strided batches with odd
 * leading dimensions and gaps and list batches. The triangle that is not to be read holds NaN, and
 * the floats outside the matrices a sentinel, so a step that reads or writes where it must not
 * shows. Failing matrices (in the first half, in the second: info = n1 + k, NaN in the triangle)
 * beside good ones check info exactly and that nothing of theirs reaches the others. What the GPU
 * adds (the leaf kernels, the GEMM kernels): test/gpu/ztrsm, zherk and zpotrf.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Batch } from '../../src/core/batch.js';
import type { ComplexDType, FloatArray } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import type { ComplexScalar } from '../../src/core/op-specs.js';
import { cpuGemmComplex } from '../../src/cpu/complex/zgemm.js';
import { cpuPotrfComplex } from '../../src/cpu/complex/zpotrf.js';
import { cpuHerkComplex } from '../../src/cpu/complex/zrankk.js';
import { cpuPosvComplex, cpuPotrsComplex } from '../../src/cpu/complex/zsolve.js';
import { cpuTrsmComplex } from '../../src/cpu/complex/ztrsm.js';
import type { BlockBatch } from '../../src/cuda/kernels/common/sub-blocks.js';
import { ZHERK_MAX_N, zherkSteps, type BlockHerkRequest } from '../../src/cuda/kernels/zherk/index.js';
import { ZCHOLESKY_MAX_N, zpotrfSteps, zpotrsSteps } from '../../src/cuda/kernels/zpotrf/index.js';
import { ZTRSM_MAX_N, ztrsmSteps, type BlockTrsmRequest } from '../../src/cuda/kernels/ztrsm/index.js';
import { epsOf, get, LIST, ODD, place, random, randomHpd, randomTriangular, set, zeros, type Layout, type Placed, type Z } from '../helpers/complex.js';
import { Rng } from '../helpers/random.js';

type S = FloatArray;
const DTYPES: readonly ComplexDType[] = ['complex128', 'complex64'];
const UPLOS: readonly Uplo[] = ['lower', 'upper'];
const SENTINEL = -777;

const blockOf = (b: Batch<S>): BlockBatch<S> => {
  if (b.kind === 'variable') throw new Error('a strided or list batch');
  return b;
};

// ---------------------------------------------------------------------------------------------
// The launchers' composition, on the CPU reference.

/** complexTrsmCuda: the small kernel up to 32, else the steps (leaves <= 32, GEMM updates). */
function trsm(r: BlockTrsmRequest<S>): void {
  const order = r.side === 'left' ? r.b.rows : r.b.cols;
  if (order <= ZTRSM_MAX_N) { cpuTrsmComplex(r); return; }
  for (const s of ztrsmSteps(r)) {
    if (s.kind === 'leaf') {
      assert.ok((r.side === 'left' ? s.request.b.rows : s.request.b.cols) <= ZTRSM_MAX_N && s.request.a.rows <= ZTRSM_MAX_N, 'a leaf the kernel takes');
      cpuTrsmComplex(s.request);
    } else {
      cpuGemmComplex(s.request);
    }
  }
}

/** complexHerkCuda: zherk's early return, the small kernel up to 32, else the steps. */
function herk(r: BlockHerkRequest<S>): void {
  const k = r.trans === 'N' ? r.a.cols : r.a.rows;
  if (r.c.rows === 0 || ((r.alpha === 0 || k === 0) && r.beta === 1)) return;
  if (r.c.rows <= ZHERK_MAX_N) { cpuHerkComplex(r); return; }
  for (const s of zherkSteps(r)) {
    if (s.kind === 'leaf') {
      assert.ok(s.request.c.rows <= ZHERK_MAX_N, 'a diagonal block the kernel takes');
      cpuHerkComplex(s.request);
    } else {
      cpuGemmComplex(s.request);
    }
  }
}

/** complexPotrfCuda above 32: info zeroed, each leaf's info into a scratch array and combined (the first failure kept). */
function potrf(uplo: Uplo, a: BlockBatch<S>, info: Int32Array): void {
  const count = info.length;
  info.fill(0);
  const scratch = new Int32Array(count);
  for (const s of zpotrfSteps(uplo, a)) {
    if (s.kind === 'leaf') {
      assert.ok(s.a.rows <= ZCHOLESKY_MAX_N, 'a leaf the kernel takes');
      scratch.fill(-1);   // every entry is written by the leaf
      cpuPotrfComplex({ uplo, a: s.a, info: scratch });
      for (let i = 0; i < count; i++) {
        assert.ok(scratch[i]! >= 0, 'the leaf wrote info');
        if (info[i] === 0 && scratch[i]! > 0) info[i] = s.off + scratch[i]!;   // common/info-combine.ts
      }
    } else if (s.kind === 'trsm') {
      trsm({ ...s.request, a: blockOf(s.request.a), b: blockOf(s.request.b) });
    } else {
      herk({ ...s.request, a: blockOf(s.request.a), c: blockOf(s.request.c) });
    }
  }
}

function potrs(uplo: Uplo, a: BlockBatch<S>, b: BlockBatch<S>): void {
  for (const r of zpotrsSteps(uplo, a, b)) trsm({ ...r, a: blockOf(r.a), b: blockOf(r.b) });
}

/** complexPosvCuda above 32: potrf, then the solves with B copied aside and copied back where info > 0. */
function posv(uplo: Uplo, a: BlockBatch<S>, b: BlockBatch<S>, info: Int32Array, bs: Placed): void {
  potrf(uplo, a, info);
  const kept = Array.from(info, (_, p) => bs.read(p));
  potrs(uplo, a, b);
  info.forEach((v, p) => {
    if (v !== 0) writeBack(bs, p, kept[p]!);
  });
}

/** Matrix p of a placed batch overwritten with m (the copy kernel's work in posv). */
function writeBack(x: Placed, p: number, m: Z): void {
  const b = x.batch;
  if (b.kind === 'variable') throw new Error('unreachable');
  const [data, base] = b.kind === 'strided' ? [b.data, b.offset + p * b.stride] : [b.matrices[p]!.data, b.matrices[p]!.offset];
  for (let j = 0; j < m.cols; j++) for (let i = 0; i < m.rows; i++) {
    const [re, im] = get(m, i, j);
    data[2 * (base + i + j * b.ld)] = re;
    data[2 * (base + i + j * b.ld) + 1] = im;
  }
}

// ---------------------------------------------------------------------------------------------
// Data and comparisons.

/** Two placements of the same matrices: one for the recursion, one for the reference. */
function twice(ms: readonly Z[], rows: number, cols: number, dtype: ComplexDType, layout: Layout): [Placed, Placed] {
  return [place(ms, rows, cols, dtype, layout, SENTINEL), place(ms, rows, cols, dtype, layout, SENTINEL)];
}

const inTriangle = (uplo: Uplo, i: number, j: number): boolean => (uplo === 'lower' ? i >= j : i <= j);


/** The `uplo` triangle of m, NaN in the other (never read by potrf, herk, the solves). */
function withNaNOutside(m: Z, uplo: Uplo): Z {
  const out = zeros(m.rows, m.cols);
  for (let j = 0; j < m.cols; j++) for (let i = 0; i < m.rows; i++) {
    const [re, im] = inTriangle(uplo, i, j) ? get(m, i, j) : [NaN, NaN];
    set(out, i, j, re, im);
  }
  return out;
}

/**
 * got against want, elementwise: bitwise where `exact(i, j)` (what must be as it was: the other
 * triangle, a failed matrix's B); a pair with NaN where want's has one (the reference computes the
 * parts apart, so NaN in one part of an input may stay in one part there and reach both through
 * a complex product here); else within tol of want's largest finite magnitude (at least 1).
 * `only(i, j)`: the elements compared at all.
 */
function close(got: Z, want: Z, tol: number, what: string, exact: (i: number, j: number) => boolean = () => false, only: (i: number, j: number) => boolean = () => true): void {
  let scale = 1;
  for (const v of want.d) if (Number.isFinite(v)) scale = Math.max(scale, Math.abs(v));
  // The messages are built only for a failure (per element they cost most of this file's time).
  for (let j = 0; j < want.cols; j++) for (let i = 0; i < want.rows; i++) {
    if (!only(i, j)) continue;
    const eg = 2 * (i + j * got.rows), ew = 2 * (i + j * want.rows);
    const g = [got.d[eg]!, got.d[eg + 1]!], w = [want.d[ew]!, want.d[ew + 1]!];
    const bitwise = exact(i, j);
    if (!bitwise && (Number.isNaN(w[0]) || Number.isNaN(w[1]))) {
      if (!(Number.isNaN(g[0]) || Number.isNaN(g[1]))) assert.fail(`${what}: (${i}, ${j}): got ${g}, want NaN in ${w}`);
      continue;
    }
    for (const part of [0, 1]) {
      const x = g[part]!, y = w[part]!;
      const ok = bitwise || !Number.isFinite(y) ? Object.is(x, y) || (Number.isNaN(x) && Number.isNaN(y)) : Math.abs(x - y) <= tol * scale;
      if (!ok) assert.fail(`${what}: (${i}, ${j}) part ${part}: got ${x}, want ${y}`);
    }
  }
}

/** The floats outside the matrices are the sentinel still. */
function untouched(x: Placed, what: string): void {
  assert.ok(x.outside().every((v) => v === SENTINEL), `${what}: nothing written outside the matrices`);
}

const layoutOf = (i: number): Layout => (i % 3 === 2 ? LIST : ODD);

// ---------------------------------------------------------------------------------------------

describe('complex trsm recursion (ztrsmSteps) on the CPU reference', () => {
  it('leaves of at most 32 tile the triangle, split at multiples of 32; the updates are GEMMs of -1 with beta = alpha once per target', () => {
    const d = new Float64Array(2);
    const m = (rows: number, cols: number): BlockBatch<S> => ({ kind: 'strided', data: d, rows, cols, ld: rows, stride: 0, offset: 0, count: 1, order: 'col', dtype: 'complex128' });
    const alpha: ComplexScalar = [0.5, -2];
    for (const t of [33, 47, 64, 100, 129, 256, 511]) for (const side of ['left', 'right'] as const) for (const uplo of UPLOS) for (const transA of ['N', 'T', 'C'] as const) {
      const steps = ztrsmSteps({ side, uplo, transA, diag: 'nonunit', alpha, a: m(t, t), b: side === 'left' ? m(t, 3) : m(3, t) });
      const leaves = steps.flatMap((s) => (s.kind === 'leaf' ? [s.request] : []));
      const covered = leaves.map((r) => (side === 'left' ? r.b.rows : r.b.cols)).reduce((x, y) => x + y, 0);
      assert.equal(covered, t, 'the leaves cover the triangle once');
      assert.ok(leaves.every((r) => r.a.rows <= 32), 'leaves of at most 32');
      assert.equal(leaves.filter((r) => r.alpha === alpha).length, 1, 'one leaf scales by alpha: the first');
      assert.equal(leaves.findIndex((r) => r.alpha === alpha), 0);
      const updates = steps.flatMap((s) => (s.kind === 'update' ? [s.request] : []));
      assert.equal(updates.length, leaves.length - 1);
      assert.ok(updates.every((u) => u.alpha[0] === -1 && u.alpha[1] === 0));
      assert.ok(updates.every((u) => (side === 'left' ? u.transA === transA && u.transB === 'N' : u.transA === 'N' && u.transB === transA)), 'op(A) as the request reads it');
    }
    // alpha = 0: leaves alone, each writing zeros.
    const zero = ztrsmSteps({ side: 'left', uplo: 'lower', transA: 'N', diag: 'unit', alpha: [0, 0], a: m(100, 100), b: m(100, 2) });
    assert.deepEqual(zero.map((s) => s.kind), ['leaf', 'leaf', 'leaf', 'leaf']);
    assert.ok(zero.every((s) => s.kind === 'leaf' && s.request.alpha[0] === 0 && s.request.alpha[1] === 0));
  });

  it('reproduces the reference: every side, uplo, transA and diag, complex alpha, complex128 and complex64, orders 33 to 129 (two levels of the recursion), odd ld and list batches', () => {
    const rng = new Rng(71);
    let i = 0;
    for (const dtype of DTYPES) for (const t of [33, 47, 64, 100, 129]) for (const side of ['left', 'right'] as const) for (const uplo of UPLOS)
      for (const transA of ['N', 'T', 'C'] as const) for (const diag of ['unit', 'nonunit'] as const) {
        // From 100 on a quarter of the variants (every variant runs at 33-64); complex64 to 47 (CI time:
        // the GPU tests run both types to 511).
        const idx = i++;
        if ((t >= 100 && idx % 4 !== 0) || (dtype === 'complex64' && t > 47)) continue;
        const count = 2, vectors = 3;
        const layout = layoutOf(idx);
        const as = Array.from({ length: count }, () => randomTriangular(rng, t, uplo, diag));
        const [rows, cols] = side === 'left' ? [t, vectors] : [vectors, t];
        const bs = Array.from({ length: count }, () => random(rng, rows, cols));
        const [a1, a2] = twice(as, t, t, dtype, layout);
        const [b1, b2] = twice(bs, rows, cols, dtype, layout);
        const alpha: ComplexScalar = [0.75, -0.5];
        trsm({ side, uplo, transA, diag, alpha, a: blockOf(a1.batch), b: blockOf(b1.batch) });
        cpuTrsmComplex({ side, uplo, transA, diag, alpha, a: a2.batch, b: b2.batch });
        const what = `${dtype} t = ${t} ${side} ${uplo} ${transA} ${diag} ${layout.kind}`;
        for (let p = 0; p < count; p++) close(b1.read(p), b2.read(p), 16 * t * epsOf(dtype), `${what} matrix ${p}`);
        untouched(b1, what);
        close(a1.read(0), a2.read(0), 0, `${what}: A unchanged`, () => true);
      }
  });

  it('alpha = 0 writes zeros without reading A (NaN there) or B (NaN there)', () => {
    const rng = new Rng(72);
    for (const dtype of DTYPES) for (const side of ['left', 'right'] as const) {
      const t = 70;
      const a = zeros(t, t);
      a.d.fill(NaN);
      const b = random(rng, side === 'left' ? t : 2, side === 'left' ? 2 : t);
      b.d[4] = NaN;
      const pa = place([a], t, t, dtype, ODD, SENTINEL);
      const pb = place([b], b.rows, b.cols, dtype, ODD, SENTINEL);
      trsm({ side, uplo: 'upper', transA: 'C', diag: 'nonunit', alpha: [0, 0], a: blockOf(pa.batch), b: blockOf(pb.batch) });
      assert.ok(pb.read(0).d.every((v) => Object.is(v, 0)), `${dtype} ${side}: zeros`);
      untouched(pb, `${dtype} ${side}`);
    }
  });
});

describe('complex herk recursion (zherkSteps) on the CPU reference', () => {
  it('the diagonal blocks of at most 32 and one GEMM per split cover the uplo triangle once, the other never', () => {
    const d = new Float64Array(2);
    const m = (rows: number, cols: number): BlockBatch<S> => ({ kind: 'strided', data: d, rows, cols, ld: 600, stride: 0, offset: 0, count: 1, order: 'col', dtype: 'complex128' });
    for (const n of [33, 47, 64, 100, 129, 256, 512]) for (const uplo of UPLOS) for (const trans of ['N', 'C'] as const) {
      const hits = new Int32Array(n * n);
      for (const s of zherkSteps({ uplo, trans, alpha: 1, beta: 0.5, a: trans === 'N' ? m(n, 5) : m(5, n), c: m(n, n) })) {
        const c = s.request.c;
        if (c.kind !== 'strided') throw new Error('unreachable');
        const [r0, c0] = [c.offset % 600, Math.floor(c.offset / 600)];
        if (s.kind === 'leaf') assert.ok(c.rows <= 32 && r0 === c0, 'a diagonal block of at most 32');
        else assert.deepEqual([s.request.transA, s.request.transB], trans === 'N' ? ['N', 'C'] : ['C', 'N']);
        for (let j = 0; j < c.cols; j++) for (let i = 0; i < c.rows; i++) {
          const [gi, gj] = [r0 + i, c0 + j];
          if (s.kind === 'leaf' && !inTriangle(uplo, gi, gj)) continue;   // the kernel writes its triangle only
          hits[gi + gj * n]!++;
        }
      }
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
        const want = inTriangle(uplo, i, j) ? 1 : 0;
        if (hits[i + j * n] !== want) assert.equal(hits[i + j * n], want, `n = ${n} ${uplo} ${trans} (${i}, ${j})`);
      }
    }
  });

  it('reproduces the reference: lower and upper, N and C, complex128 and complex64, n = 33 to 129, beta once, the diagonal real, the other triangle untouched', () => {
    const rng = new Rng(73);
    let i = 0;
    for (const dtype of DTYPES) for (const n of [33, 47, 64, 100, 129]) for (const uplo of UPLOS) for (const trans of ['N', 'C'] as const) {
      // From 100 one triangle per type (complex128 lower, complex64 upper); complex64 to 47 and at 129.
      if ((n >= 100 && (dtype === 'complex64') !== (uplo === 'upper')) || (dtype === 'complex64' && n > 47 && n < 129)) continue;
      i++;
      const k = [5, 40][i % 2]!;
      const count = 2;
      const layout = layoutOf(i);
      const [rows, cols] = trans === 'N' ? [n, k] : [k, n];
      const as = Array.from({ length: count }, () => random(rng, rows, cols));
      // C: its triangle random (the diagonal's imaginary parts too: set to zero, never read), NaN in the other.
      const cs = Array.from({ length: count }, () => withNaNOutside(random(rng, n, n), uplo));
      const [a1] = twice(as, rows, cols, dtype, layout);
      const [c1, c2] = twice(cs, n, n, dtype, layout);
      const [alpha, beta] = [-1.25, 0.5];
      herk({ uplo, trans, alpha, beta, a: blockOf(a1.batch), c: blockOf(c1.batch) });
      cpuHerkComplex({ uplo, trans, alpha, beta, a: a1.batch, c: c2.batch });
      const what = `${dtype} n = ${n} k = ${k} ${uplo} ${trans} ${layout.kind}`;
      for (let p = 0; p < count; p++) {
        const got = c1.read(p);
        close(got, c2.read(p), 8 * k * epsOf(dtype), `${what} matrix ${p}`, (r, c) => !inTriangle(uplo, r, c));
        for (let d = 0; d < n; d++) assert.ok(Object.is(get(got, d, d)[1], 0), `${what}: the diagonal real`);
      }
      untouched(c1, what);
    }
  });

  it('alpha = 0 (or k = 0) scales C by beta without reading A (NaN there); beta = 0 overwrites NaN in C', () => {
    const rng = new Rng(74);
    for (const dtype of DTYPES) for (const uplo of UPLOS) {
      const n = 70;
      const a = random(rng, n, 3);
      a.d.fill(NaN);
      const c = withNaNOutside(random(rng, n, n), uplo);
      const [pa] = twice([a], n, 3, dtype, ODD);
      const [c1, c2] = twice([c], n, n, dtype, ODD);
      herk({ uplo, trans: 'N', alpha: 0, beta: 2, a: blockOf(pa.batch), c: blockOf(c1.batch) });
      cpuHerkComplex({ uplo, trans: 'N', alpha: 0, beta: 2, a: pa.batch, c: c2.batch });
      close(c1.read(0), c2.read(0), 0, `${dtype} ${uplo} alpha 0`, () => true);
      const none = random(rng, n, 0);
      const [pn] = twice([none], n, 0, dtype, ODD);
      const [k1, k2] = twice([c], n, n, dtype, LIST);
      herk({ uplo, trans: 'N', alpha: 2, beta: 0.5, a: blockOf(pn.batch), c: blockOf(k1.batch) });
      cpuHerkComplex({ uplo, trans: 'N', alpha: 2, beta: 0.5, a: pn.batch, c: k2.batch });
      close(k1.read(0), k2.read(0), 0, `${dtype} ${uplo} k = 0`, () => true);
      const b = random(rng, n, 4);
      const nanC = withNaNOutside(random(rng, n, n), uplo);
      nanC.d.fill(NaN);
      const [pb] = twice([b], n, 4, dtype, ODD);
      const [d1, d2] = twice([nanC], n, n, dtype, ODD);
      herk({ uplo, trans: 'N', alpha: 1, beta: 0, a: blockOf(pb.batch), c: blockOf(d1.batch) });
      cpuHerkComplex({ uplo, trans: 'N', alpha: 1, beta: 0, a: pb.batch, c: d2.batch });
      close(d1.read(0), d2.read(0), 16 * epsOf(dtype), `${dtype} ${uplo} beta 0`, (r, col) => !inTriangle(uplo, r, col));
      assert.ok(d1.read(0).d.every((v, e) => !inTriangle(uplo, (e >> 1) % n, Math.floor((e >> 1) / n)) || Number.isFinite(v)), 'no NaN left in the triangle');
    }
  });
});

/** Where a case's matrix fails: none, at step k of the first half, at n1 + k of the second, or NaN in the triangle (second half). */
type Failure = 'none' | 'first' | 'second' | 'nan';
const FAILURES: readonly Failure[] = ['none', 'second', 'nan', 'first', 'none'];

/** An HPD matrix of n made to fail as asked; the step (0-based) where the reference fails is what it reports (info - 1). */
function failing(rng: Rng, n: number, f: Failure): Z {
  const m = randomHpd(rng, n);
  const n1 = zpotrfSteps('lower', { kind: 'strided', data: new Float64Array(2), rows: n, cols: n, ld: n, stride: 0, offset: 0, count: 1, order: 'col' })
    .find((s) => s.kind === 'trsm');
  const top = n1 && n1.kind === 'trsm' ? blockOf(n1.request.b).cols : n;
  const k = top + Math.min(3, n - top - 1);   // a step of the second half
  if (f === 'first') set(m, 5, 5, -1, 0);
  if (f === 'second') set(m, k, k, -2, 0);
  if (f === 'nan') {
    // In the second half, below its first diagonal element (and the mirror above: either triangle
    // is read as the factor); where the second half is one column, on its diagonal.
    set(m, n - 1, top, NaN, 0.5);
    set(m, top, n - 1, NaN, n - 1 === top ? 0 : -0.5);
  }
  return m;
}

describe('complex Cholesky recursion (zpotrfSteps, zpotrsSteps) on the CPU reference', () => {
  it('potrf: leaves of at most 32; the panel by trsm with the factor (\'C\'), the update by herk (alpha -1, beta 1)', () => {
    const d = new Float64Array(2);
    for (const n of [33, 100, 256, 512]) for (const uplo of UPLOS) {
      const steps = zpotrfSteps(uplo, { kind: 'strided', data: d, rows: n, cols: n, ld: n, stride: 0, offset: 0, count: 1, order: 'col' });
      const leaves = steps.flatMap((s) => (s.kind === 'leaf' ? [s] : []));
      assert.equal(leaves.reduce((x, s) => x + s.a.rows, 0), n);
      assert.ok(leaves.every((s) => s.a.rows <= 32 && s.off % 32 === 0));
      for (const s of steps) {
        if (s.kind === 'trsm') assert.deepEqual([s.request.side, s.request.transA, s.request.uplo], [uplo === 'lower' ? 'right' : 'left', 'C', uplo]);
        if (s.kind === 'herk') assert.deepEqual([s.request.trans, s.request.alpha, s.request.beta], [uplo === 'lower' ? 'N' : 'C', -1, 1]);
      }
    }
  });

  it('potrf reproduces the reference: info exactly (first half, second half n1 + k, NaN), the factor, nothing spread; n = 33 to 129, both dtypes and triangles (from 100 one per type)', () => {
    const rng = new Rng(75);
    let i = 0;
    for (const dtype of DTYPES) for (const n of [33, 47, 64, 100, 129]) for (const uplo of UPLOS) {
      // From 100 one triangle per type (complex128 lower, complex64 upper); complex64 to 47 and at 129: the CI's time.
      if ((n >= 100 && (dtype === 'complex64') !== (uplo === 'upper')) || (dtype === 'complex64' && n > 47 && n < 129)) continue;
      i++;
      const layout = layoutOf(i);
      const fails = FAILURES;
      const ms = fails.map((f) => withNaNOutside(failing(rng, n, f), uplo));
      const [a1, a2] = twice(ms, n, n, dtype, layout);
      const info = new Int32Array(ms.length);
      const want = new Int32Array(ms.length);
      potrf(uplo, blockOf(a1.batch), info);
      cpuPotrfComplex({ uplo, a: a2.batch, info: want });
      const what = `${dtype} n = ${n} ${uplo} ${layout.kind}`;
      assert.deepEqual([...info], [...want], `${what}: info`);
      fails.forEach((f, p) => {
        if (f === 'none') assert.equal(want[p], 0, `${what}: matrix ${p} factors`);
        else assert.ok(want[p]! > 0, `${what}: matrix ${p} fails`);
        if (f === 'second') assert.ok(want[p]! > 32, `${what}: in the second half`);
        // A failed matrix: the columns before the failing one, and its diagonal element, as the reference.
        const upTo = want[p] === 0 ? n : want[p]! - 1;
        const col = (r: number, c: number): number => (uplo === 'lower' ? c : r);
        const compared = (r: number, c: number): boolean => !inTriangle(uplo, r, c) || col(r, c) < upTo || (r === c && r === upTo);
        close(a1.read(p), a2.read(p), 32 * n * epsOf(dtype), `${what} matrix ${p} (${f})`, (r, c) => !inTriangle(uplo, r, c), compared);
        if (f === 'none') assert.ok(a1.read(p).d.every((v, e) => !inTriangle(uplo, (e >> 1) % n, Math.floor((e >> 1) / n)) || Number.isFinite(v)), `${what}: no NaN reaches matrix ${p}`);
      });
      untouched(a1, what);
    }
  });

  it('potrs and posv reproduce the reference; a failed matrix keeps its B bitwise', () => {
    const rng = new Rng(76);
    let i = 0;
    for (const dtype of DTYPES) for (const n of [33, 64, 100, 129]) for (const uplo of UPLOS) {
      if ((n >= 100 && (dtype === 'complex64') !== (uplo === 'upper')) || (dtype === 'complex64' && n === 64)) continue;
      i++;
      const layout = layoutOf(i);
      const nrhs = [1, 3, 5][i % 3]!;
      const what = `${dtype} n = ${n} ${uplo} nrhs = ${nrhs} ${layout.kind}`;
      // posv: good and failing matrices.
      const ms = FAILURES.map((f) => withNaNOutside(failing(rng, n, f), uplo));
      const bs = ms.map(() => random(rng, n, nrhs));
      const [a1, a2] = twice(ms, n, n, dtype, layout);
      const [b1, b2] = twice(bs, n, nrhs, dtype, layout);
      const before = bs.map((_, p) => b1.read(p));
      const info = new Int32Array(ms.length);
      const want = new Int32Array(ms.length);
      posv(uplo, blockOf(a1.batch), blockOf(b1.batch), info, b1);
      cpuPosvComplex({ uplo, a: a2.batch, b: b2.batch, info: want });
      assert.deepEqual([...info], [...want], `${what}: posv info`);
      want.forEach((v, p) => {
        if (v === 0) close(b1.read(p), b2.read(p), 64 * n * epsOf(dtype), `${what}: posv X of matrix ${p}`);
        else close(b1.read(p), before[p]!, 0, `${what}: posv keeps B of failed matrix ${p}`, () => true);
      });
      untouched(b1, `${what} posv`);
      // potrs: with the reference's factors.
      const good = Array.from({ length: 2 }, () => withNaNOutside(randomHpd(rng, n), uplo));
      const [f1, f2] = twice(good, n, n, dtype, layout);
      cpuPotrfComplex({ uplo, a: f1.batch, info: new Int32Array(2) });
      cpuPotrfComplex({ uplo, a: f2.batch, info: new Int32Array(2) });
      const rs = good.map(() => random(rng, n, nrhs));
      const [r1, r2] = twice(rs, n, nrhs, dtype, layout);
      potrs(uplo, blockOf(f1.batch), blockOf(r1.batch));
      cpuPotrsComplex({ uplo, a: f2.batch, b: r2.batch, info: new Int32Array(2) });
      for (let p = 0; p < 2; p++) close(r1.read(p), r2.read(p), 64 * n * epsOf(dtype), `${what}: potrs matrix ${p}`);
      untouched(r1, `${what} potrs`);
    }
  });
});
