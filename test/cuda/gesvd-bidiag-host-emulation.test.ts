/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the bidiagonalization gesvd (kernels/bidiag/:
 * reduce, the tridiag family's values, vectors and clusters kernels on the upper half of the Golub-Kahan
 * tridiagonal, vectors, store; U := Q_B U_B and V := P_B V_B in C++ between them where the GPU runs
 * ormqr) compiled for the host (test/helpers/gesvd-bidiag-host-harness.cpp) and checked against the
 * CPU reference: info, singular values within k eps ||A||_F of the reference's, ||A - U S VT|| /
 * (max(m, n) eps ||A||) and the orthogonality of U's columns and VT's rows (/ (k eps)) below 30, on
 * random, rank-deficient (zero singular values), exact zero columns, repeated, clustered, diagonal,
 * graded and zero matrices and NaN among good ones, m > n and m < n, k = 33, 40, 64, 100, both dtypes;
 * values only and one side of vectors only.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { strided } from '../../src/core/batch.js';
import type { DType } from '../../src/core/dtype.js';
import { cpuGesvd } from '../../src/cpu/lapack/index.js';
import { bidiagPanelSource, bidiagReduceSource, bidiagSlice, bidiagStoreSource, bidiagVectorsSource, planGesvdBidiag, type BidiagForce, type GesvdBidiagPlan } from '../../src/cuda/kernels/bidiag/index.js';
import { steinParts, tridiagSteinSource } from '../../src/cuda/kernels/tridiag/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { BIDIAG_KINDS, bidiagCase, type BidiagKind } from '../helpers/bidiag-cases.js';
import { frob, mul, orthoResidual, svdResidual, type Mat } from '../helpers/jacobi-checks.js';
import { Rng } from '../helpers/random.js';
import { clustersKernelDefines } from '../helpers/stein-clusters.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';
const HARNESS = resolve('test/helpers/gesvd-bidiag-host-harness.cpp');
const EPS: Record<DType, number> = { float64: 2 ** -52, float32: 2 ** -23 };
const LIMIT = 30;

type Kind = BidiagKind;
const ALL = BIDIAG_KINDS;
const makeCase = bidiagCase;

function build(dir: string, p: GesvdBidiagPlan): string {
  const files: [string, { source: string; entry: string }][] = [
    ['reduce.cu', bidiagReduceSource(p.reduce)], ['values.cu', tridiagSteinSource(p.stein.values)],
    ['bvectors.cu', bidiagVectorsSource(p.vectors)], ['store.cu', bidiagStoreSource(p.store)]];
  if (p.stein.vectors !== undefined) files.push(['vectors.cu', tridiagSteinSource(p.stein.vectors)]);
  if (p.blocked !== undefined) files.push(['panel.cu', bidiagPanelSource(p.blocked.panel)], ['tail.cu', bidiagReduceSource(p.blocked.tail)]);
  for (const [f, s] of files) writeFileSync(join(dir, f), s.source);
  const entry = (f: string): string | undefined => files.find(([name]) => name === f)?.[1].entry;
  const [r, w, v, bv, s, pa, ta] = ['reduce.cu', 'values.cu', 'vectors.cu', 'bvectors.cu', 'store.cu', 'panel.cu', 'tail.cu'].map(entry);
  const exe = join(dir, `bidiag-${r}-${bv}${ta === undefined ? '' : `-${ta}`}`);
  const io = p.reduce.dtype === 'float32' ? ['-DIO=float'] : [];
  const blocked = pa === undefined ? [] : [`-DPANEL=${pa}`, `-DTAIL=${ta}`];
  assert.equal(p.stein.clusters === undefined, p.stein.vectors === undefined, 'the clusters kernel exactly with the vectors kernel');
  const clusters = clustersKernelDefines(dir, p.stein.clusters);
  execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DREDUCE=${r}`, `-DVALUES=${w}`, ...(v === undefined ? [] : [`-DVECTORS=${v}`]), ...clusters,
    `-DBVECTORS=${bv}`, `-DSTORE=${s}`, ...io, ...blocked, `-I${dir}`, HARNESS, '-o', exe]);
  return exe;
}

interface Case {
  readonly dtype: DType;
  readonly m: number;
  readonly n: number;
  readonly kinds: readonly Kind[];
  readonly wantU?: boolean;
  readonly wantVt?: boolean;
  /** The plan's force (the blocked reduction and its panel width). */
  readonly force?: BidiagForce;
}

function check(dir: string, rng: Rng, c: Case): void {
  const { dtype, m, n } = c;
  const wantU = c.wantU ?? true, wantVt = c.wantVt ?? true;
  const k = Math.min(m, n), eps = EPS[dtype];
  const plan = planGesvdBidiag({ dtype, m, n, wantU, wantVt, kind: 'strided' }, tuningFor('sm_90', 'bidiag'), { force: c.force });
  if (c.force?.reduction === 'panels') assert.ok(plan.blocked !== undefined, `${m}x${n}: the panels planned`);
  const exe = build(dir, plan);
  const count = c.kinds.length + 1;
  const mats = Array.from({ length: count }, (_, i) => makeCase(rng, c.kinds[i % c.kinds.length]!, m, n))
    .map((a) => ({ ...a, d: a.d.map((x) => (dtype === 'float32' ? Math.fround(x) : x)) }));
  const ld = m + 1, stride = ld * n + 3;
  const flat = new Float64Array(count * stride).fill(NaN);
  mats.forEach((a, q) => { for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) flat[q * stride + i + j * ld] = a.d[i + j * m]!; });
  const bad = count - 1;
  flat[bad * stride + 2 + 1 * ld] = NaN;
  const b = bidiagSlice(Math.max(m, n), k);
  const input = `${count} ${m} ${n} ${ld} ${stride} ${plan.reduce.threads} ${plan.stein.values.threads} ${steinParts(plan.stein.values)} ${plan.vectors.threads} ${plan.store.threads}\n${Array.from(flat).join(' ')}\n`;
  const panels = plan.blocked === undefined ? [] : [plan.blocked.panel.nb, plan.blocked.tail.from!];
  const args = [b.w, b.ub, b.vb, b.pm, b.tauq, b.taup, plan.vectors.left ? 1 : 0, plan.vectors.right ? 1 : 0, ...panels].map(String);
  const nums = execFileSync(exe, args, { input, maxBuffer: 1 << 30 }).toString().trim().split('\n').map(Number);
  const info = nums.slice(0, count);
  const sAll = nums.slice(count, count + count * k);
  const uAll = nums.slice(count + count * k, count + count * k + count * m * k);
  const vtAll = nums.slice(count + count * k + count * m * k);
  const refS = new Float64Array(count * k), refInfo = new Int32Array(count);
  const dense = new Float64Array(count * m * n);
  mats.forEach((a, q) => dense.set(a.d, q * m * n));
  cpuGesvd({ a: strided(dense, { rows: m, cols: n, count }), s: strided(refS, { rows: k, cols: 1, count }), info: refInfo });
  const what = `bidiag ${dtype} ${m}x${n} ${wantU ? 'U' : '-'}${wantVt ? 'VT' : '-'}${plan.blocked === undefined ? '' : ` panels of ${plan.blocked.panel.nb} to ${plan.blocked.tail.from}`}`;
  mats.forEach((a, q) => {
    const at = `${what} #${q} (${q === bad ? 'NaN' : c.kinds[q % c.kinds.length]})`;
    const s = sAll.slice(q * k, (q + 1) * k);
    const u: Mat = { m, n: k, d: Float64Array.from(uAll.slice(q * m * k, (q + 1) * m * k)) };
    const vt: Mat = { m: k, n, d: Float64Array.from(vtAll.slice(q * k * n, (q + 1) * k * n)) };
    if (q === bad) {
      assert.equal(info[q], k + 2, `${at}: info`);
      assert.ok(s.every(Number.isNaN), `${at}: NaN s`);
      if (wantU) assert.ok(u.d.every(Number.isNaN), `${at}: NaN U`);
      if (wantVt) assert.ok(vt.d.every(Number.isNaN), `${at}: NaN VT`);
      return;
    }
    assert.equal(info[q], 0, `${at}: info`);
    const an = frob(a) || 1;
    for (let i = 0; i < k; i++) {
      if (i > 0) assert.ok(s[i]! <= s[i - 1]!, `${at}: s descending at ${i}`);
      const ratio = Math.abs(s[i]! - refS[q * k + i]!) / (k * eps * an);
      assert.ok(ratio < LIMIT, `${at}: s[${i}] ${s[i]} against ${refS[q * k + i]} (ratio ${ratio.toFixed(1)})`);
    }
    if (wantU) { const o = orthoResidual(u, eps); assert.ok(o < LIMIT, `${at}: ||U^T U - I|| ratio ${o.toFixed(2)}`); }
    if (wantVt) { const o = orthoResidual(vt, eps, true); assert.ok(o < LIMIT, `${at}: ||VT VT^T - I|| ratio ${o.toFixed(2)}`); }
    if (wantU && wantVt) { const r = svdResidual(a, u, s, vt, eps); assert.ok(r < LIMIT, `${at}: residual ratio ${r.toFixed(2)}`); }
    if (wantU && !wantVt) {
      // U^T A = S VT: the rows of U^T A have norms s.
      const uta = mul(u, a, true, false);
      for (let i = 0; i < k; i++) {
        let t = 0;
        for (let j = 0; j < n; j++) t += uta.d[i + j * k]! ** 2;
        assert.ok(Math.abs(Math.sqrt(t) - s[i]!) < LIMIT * k * eps * an, `${at}: ||(U^T A)(${i}, :)|| against s`);
      }
    }
  });
}

test('bidiagonalization gesvd on the host: the matrix kinds, tall and wide, k = 33, 40, 64, 100', { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-bidiag-'));
  try {
    const rng = new Rng(5252);
    const sizes = (process.env['MYRIAD_BIDIAG_SIZES'] ?? '40x33,33x40,64x64,100x64,64x100,130x100').split(',').map((x) => x.split('x').map(Number) as [number, number]);
    for (const [m, n] of sizes) check(dir, rng, { dtype: 'float64', m, n, kinds: ALL });
    for (const [m, n] of [[47, 40], [40, 47]] as const) check(dir, rng, { dtype: 'float32', m, n, kinds: ALL });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('bidiagonalization gesvd on the host: values only, U only, VT only', { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-bidiag-'));
  try {
    const rng = new Rng(77);
    const kinds: readonly Kind[] = ['random', 'zero-columns', 'graded'];
    for (const [wantU, wantVt] of [[false, false], [true, false], [false, true]] as const) {
      check(dir, rng, { dtype: 'float64', m: 50, n: 36, kinds, wantU, wantVt });
      check(dir, rng, { dtype: 'float64', m: 36, n: 50, kinds, wantU, wantVt });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('bidiagonalization gesvd on the host, the blocked reduction forced: panels and a tail, tall, wide and square, k = 33 ... 130', { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-bidiag-'));
  try {
    const rng = new Rng(9191);
    // nb 8: k = 33 four panels and a tail of 1; 40 four and 8; 64 seven and 8; 100 twelve and 4. nb 16 at 130: eight and 2.
    const cases: readonly [number, number, number][] = [[40, 33, 8], [33, 40, 8], [64, 64, 8], [100, 64, 8], [64, 100, 8], [130, 100, 8], [130, 130, 16]];
    for (const [m, n, nb] of cases) check(dir, rng, { dtype: 'float64', m, n, kinds: ALL, force: { reduction: 'panels', nb } });
    for (const [m, n] of [[47, 40], [40, 47]] as const) check(dir, rng, { dtype: 'float32', m, n, kinds: ALL, force: { reduction: 'panels', nb: 8 } });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('bidiagonalization gesvd on the host, the blocked reduction forced: values only, U only, VT only', { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-bidiag-'));
  try {
    const rng = new Rng(4141);
    const kinds: readonly Kind[] = ['random', 'zero-columns', 'graded'];
    for (const [wantU, wantVt] of [[false, false], [true, false], [false, true]] as const) {
      check(dir, rng, { dtype: 'float64', m: 50, n: 36, kinds, wantU, wantVt, force: { reduction: 'panels', nb: 7 } });
      check(dir, rng, { dtype: 'float64', m: 36, n: 50, kinds, wantU, wantVt, force: { reduction: 'panels', nb: 7 } });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
