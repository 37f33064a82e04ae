/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the complex bidiagonalization gesvd
 * (kernels/zbidiag/: zgebd2's reduction to a real bidiagonal, the tridiag family's values, vectors and clusters
 * kernels on the upper half of the Golub-Kahan tridiagonal, the bidiag family's vectors kernel, the
 * widen and store kernels; U := Q_B U and V := P_B V in C++ between them where the GPU runs the zqr
 * family's unmqr) as the plan gives it, compiled for the host (test/helpers/zgesvd-bidiag-host-harness.cpp)
 * and checked against the complex CPU reference (cpu/complex/zgesvd.ts): info (k + 2 for the NaN
 * one, its outputs NaN), the singular values descending and within 30 max(m, n) eps ||A||_F of the
 * reference's, ||A - U S VT||_F / (max(m, n) eps ||A||_F), ||U^H U - I||_F / (k eps) and
 * ||VT VT^H - I||_F / (k eps) below 30; with one side only, the norms of U^H A's rows (A VT^H's
 * columns) against S. Random, rank-deficient, repeated, graded and zero matrices and NaN among them,
 * tall, wide and square, k = 33, 40, 47, 64, 65, 100, complex128 and complex64; values only and each
 * side of vectors. The launcher's launches (and the unmqr views) are checked on a recording device in
 * zgesvd-large-generate.test.ts; test/gpu/zgesvd-large.test.ts runs it all on a GPU.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { strided } from '../../src/core/batch.js';
import { DTYPE_EPS, type DType } from '../../src/core/dtype.js';
import { cpuGesvdComplex } from '../../src/cpu/complex/zgesvd.js';
import { bidiagVectorsSource } from '../../src/cuda/kernels/bidiag/index.js';
import { steinParts, steinSlice, tridiagSteinSource } from '../../src/cuda/kernels/tridiag/index.js';
import { planZgesvdBidiag, zbidiagReduceSource, zbidiagSlice, zbidiagStoreSource, zbidiagWidenSource } from '../../src/cuda/kernels/zbidiag/index.js';
import { get, multiply, op, type Z } from '../helpers/complex.js';
import { GENERAL_KINDS, generalCase, svdResidual, unitaryResidual, type GeneralKind } from '../helpers/zjacobi-cases.js';
import { compileHarnesses, HOST_EMULATION_SKIP, parseHarnessNumber } from '../helpers/recording-device.js';
import { Rng } from '../helpers/random.js';
import { clustersKernelDefines } from '../helpers/stein-clusters.js';

const skip = HOST_EMULATION_SKIP;
const HARNESS = resolve('test/helpers/zgesvd-bidiag-host-harness.cpp');
const LIMIT = 30;

interface Case { readonly dtype: DType; readonly m: number; readonly n: number; readonly kinds: readonly GeneralKind[]; readonly wantU: boolean; readonly wantVt: boolean }

function cases(): Case[] {
  const both = { wantU: true, wantVt: true };
  const out: Case[] = [];
  for (const [m, n] of [[40, 33], [33, 40], [64, 64], [100, 65], [65, 100]] as const) out.push({ dtype: 'float64', m, n, kinds: GENERAL_KINDS, ...both });
  for (const [m, n] of [[47, 47], [60, 47], [40, 52]] as const) out.push({ dtype: 'float32', m, n, kinds: GENERAL_KINDS, ...both });
  if (process.env['MYRIAD_ZGESVD_LARGE'] === '1') out.push({ dtype: 'float64', m: 130, n: 100, kinds: ['random', 'graded'], ...both });
  const some: readonly GeneralKind[] = ['random', 'rank-deficient', 'graded'];
  for (const [wantU, wantVt] of [[false, false], [true, false], [false, true]] as const)
    for (const [m, n] of [[50, 36], [36, 50]] as const) out.push({ dtype: wantU ? 'float32' : 'float64', m, n, kinds: some, wantU, wantVt });
  // MYRIAD_ZGESVD_ONLY=MxN[,MxN...]: those shapes only (each case compiles a harness of its own).
  const only = process.env['MYRIAD_ZGESVD_ONLY']?.split(',');
  return only === undefined ? out : out.filter((c) => only.includes(`${c.m}x${c.n}`));
}

const round = (dtype: DType, x: number): number => (dtype === 'float32' ? Math.fround(x) : x);

interface Prepared { c: Case; dir: string; exe: string; defines: string[]; args: string[]; input: string; mats: Z[]; refS: Float64Array; count: number; what: string }

function prepare(c: Case, index: number, root: string): Prepared {
  const { dtype, m, n, wantU, wantVt } = c;
  const rng = new Rng(4300 + index);
  const k = Math.min(m, n), rows = Math.max(m, n);
  const p = planZgesvdBidiag({ dtype, m, n, wantU, wantVt, kind: 'strided' });
  const dir = join(root, `case${index}`);
  mkdirSync(dir, { recursive: true });
  const files: [string, { source: string; entry: string } | undefined][] = [
    ['reduce.cu', zbidiagReduceSource(p.reduce)], ['values.cu', tridiagSteinSource(p.stein.values)],
    ['vectors.cu', p.stein.vectors === undefined ? undefined : tridiagSteinSource(p.stein.vectors)],
    ['bvectors.cu', bidiagVectorsSource(p.vectors)], ['widen.cu', p.widen === undefined ? undefined : zbidiagWidenSource(p.widen)],
    ['store.cu', zbidiagStoreSource(p.store)]];
  for (const [f, s] of files) if (s !== undefined) writeFileSync(join(dir, f), s.source);
  const entry = (f: string): string | undefined => files.find(([name]) => name === f)?.[1]?.entry;
  const defines = [`-DREDUCE=${entry('reduce.cu')}`, `-DVALUES=${entry('values.cu')}`, `-DBVECTORS=${entry('bvectors.cu')}`, `-DSTORE=${entry('store.cu')}`,
    ...(p.stein.vectors === undefined ? [] : [`-DVECTORS=${entry('vectors.cu')}`, `-DWIDEN=${entry('widen.cu')}`]),
    ...clustersKernelDefines(dir, p.stein.clusters), ...(dtype === 'float32' ? ['-DIO=float'] : [])];
  assert.equal(p.stein.vectors === undefined, p.widen === undefined, 'widen exactly where the Golub-Kahan vectors are computed');
  assert.equal(p.stein.vectors === undefined, p.stein.clusters === undefined, 'the clusters kernel exactly with the vectors kernel');
  // The matrices (rounded to the dtype) and one with NaN among them.
  const kinds = [...c.kinds];
  const rounded = (a: Z): Z => ({ ...a, d: a.d.map((x) => round(dtype, x)) });
  const mats = [...kinds.map((kind) => rounded(generalCase(rng, kind, m, n))), rounded(generalCase(rng, 'random', m, n))];
  const count = mats.length;
  const ld = m + 1, stride = ld * n + 3;
  const flat = new Float64Array(2 * count * stride).fill(NaN);
  mats.forEach((a, q) => { for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) { const [re, im] = get(a, i, j); flat[2 * (q * stride + i + j * ld)] = re; flat[2 * (q * stride + i + j * ld) + 1] = im; } });
  flat[2 * ((count - 1) * stride + 2 + ld) + 1] = NaN;
  const input = `${count} ${m} ${n} ${ld} ${stride} ${p.reduce.threads} ${p.stein.values.threads} ${steinParts(p.stein.values)} ${p.vectors.threads} ${p.store.threads}\n${Array.from(flat).join(' ')}\n`;
  const cs = zbidiagSlice(rows, k);
  const args = [cs.w, cs.ub, cs.vb, cs.pm, cs.tauq, cs.taup, steinSlice(2 * k).hdr, p.vectors.left ? 1 : 0, p.vectors.right ? 1 : 0].map(String);
  // The reference's values (the NaN matrix's too: it gives NaN).
  const dense = new Float64Array(2 * count * m * n);
  mats.forEach((a, q) => dense.set(a.d, 2 * q * m * n));
  dense[2 * ((count - 1) * m * n + 2 + m) + 1] = NaN;
  const refS = new Float64Array(count * k);
  cpuGesvdComplex({ a: strided(dense, { rows: m, cols: n, count, dtype: 'complex128' }), s: strided(refS, { rows: k, cols: 1, count }), info: new Int32Array(count) });
  const what = `zgesvd bidiag ${dtype === 'float64' ? 'complex128' : 'complex64'} ${m}x${n} ${wantU ? 'U' : '-'}${wantVt ? 'VT' : '-'}`;
  return { c, dir, exe: join(dir, 'h'), defines, args, input, mats, refS, count, what };
}

function check(p: Prepared, out: string): void {
  const { c, count, mats } = p;
  const { m, n, wantU, wantVt, dtype } = c;
  const k = Math.min(m, n), eps = DTYPE_EPS[dtype];
  const nums = out.trim().split('\n').map(parseHarnessNumber);
  assert.equal(nums.length, count + count * k + 2 * count * m * k + 2 * count * k * n, `${p.what}: the outputs back`);
  const info = nums.slice(0, count);
  const sAll = nums.slice(count, count + count * k);
  const uAll = nums.slice(count + count * k, count + count * k + 2 * count * m * k);
  const vtAll = nums.slice(count + count * k + 2 * count * m * k);
  const ratios: string[] = [];
  mats.forEach((a, q) => {
    const bad = q === count - 1;
    const at = `${p.what} #${q} (${bad ? 'NaN' : c.kinds[q]})`;
    const s = sAll.slice(q * k, (q + 1) * k);
    const u: Z = { rows: m, cols: k, d: Float64Array.from(uAll.slice(2 * q * m * k, 2 * (q + 1) * m * k)) };
    const vt: Z = { rows: k, cols: n, d: Float64Array.from(vtAll.slice(2 * q * k * n, 2 * (q + 1) * k * n)) };
    if (bad) {
      assert.equal(info[q], k + 2, `${at}: info`);
      assert.ok(s.every(Number.isNaN), `${at}: NaN S`);
      if (wantU) assert.ok(u.d.every(Number.isNaN), `${at}: NaN U`);
      if (wantVt) assert.ok(vt.d.every(Number.isNaN), `${at}: NaN VT`);
      return;
    }
    assert.equal(info[q], 0, `${at}: info`);
    let an = 0;
    for (const x of a.d) an += x * x;
    an = Math.sqrt(an) || 1;
    for (let i = 0; i < k; i++) {
      if (i > 0) assert.ok(s[i]! <= s[i - 1]!, `${at}: S descending at ${i}`);
      const ratio = Math.abs(s[i]! - p.refS[q * k + i]!) / (Math.max(m, n) * eps * an);
      assert.ok(ratio < LIMIT, `${at}: s[${i}] ${s[i]} against ${p.refS[q * k + i]} (ratio ${ratio.toFixed(1)})`);
    }
    const parts: string[] = [];
    if (wantU) { const o = unitaryResidual(u, eps); parts.push(`U ${o.toFixed(2)}`); assert.ok(o < LIMIT, `${at}: ||U^H U - I|| ratio ${o.toFixed(2)}`); }
    if (wantVt) { const o = unitaryResidual(op(vt, 'C'), eps); parts.push(`VT ${o.toFixed(2)}`); assert.ok(o < LIMIT, `${at}: ||VT VT^H - I|| ratio ${o.toFixed(2)}`); }
    if (wantU && wantVt) { const r = svdResidual(a, u, s, vt, eps); parts.push(`res ${r.toFixed(2)}`); assert.ok(r < LIMIT, `${at}: residual ratio ${r.toFixed(2)}`); }
    // One side: U^H A = S VT has rows of norms s (A VT^H = U S columns of norms s).
    const side = wantU && !wantVt ? multiply(op(u, 'C'), a) : wantVt && !wantU ? op(multiply(a, op(vt, 'C')), 'C') : undefined;
    if (side !== undefined)
      for (let i = 0; i < k; i++) {
        let t = 0;
        for (let j = 0; j < side.cols; j++) { const [re, im] = get(side, i, j); t += re * re + im * im; }
        assert.ok(Math.abs(Math.sqrt(t) - s[i]!) < LIMIT * Math.max(m, n) * eps * an, `${at}: the norm of row ${i} of ${wantU ? 'U^H A' : '(A VT^H)^H'} against s`);
      }
    ratios.push(`${c.kinds[q]} ${parts.join(' ')}`);
  });
  console.log(`${p.what}: ${ratios.join('; ')}`);
}

describe('complex gesvd above 32 runs on the host (reduce, the Golub-Kahan kernels, widen, the reflectors, store)', { skip, timeout: 3_600_000 }, () => {
  const all = cases();
  const root = skip === undefined ? mkdtempSync(join(tmpdir(), 'myriad-zgesvd-large-')) : '';
  const prepared = skip === undefined ? all.map((c, i) => prepare(c, i, root)) : [];
  before(() => compileHarnesses(HARNESS, prepared));
  after(() => { if (root !== '') rmSync(root, { recursive: true, force: true }); });
  for (const [i, c] of all.entries()) {
    it(`gesvd ${c.dtype === 'float64' ? 'complex128' : 'complex64'} ${c.m}x${c.n} ${c.wantU ? 'U' : '-'}${c.wantVt ? 'VT' : '-'}`, () => {
      const p = prepared[i]!;
      const r = spawnSync(p.exe, p.args, { input: p.input, maxBuffer: 1 << 28, timeout: 3_600_000 });
      assert.equal(r.status, 0, `${p.what}: status ${r.status} ${r.signal ?? ''} ${r.stderr.toString()}`);
      check(p, r.stdout.toString());
    });
  }
});
